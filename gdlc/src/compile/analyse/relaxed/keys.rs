//! The keys a literal of a join looks its candidate facts up by: the
//! values of its bound arguments ([`bound_key`]), or of the bound children
//! of a compound argument bound only in part ([`InnerKey`]).

use super::table::{push_place, Places};
use crate::compile::program::{is_bound, lookup_bound, Atom, Pat};
use crate::ir::terms::{TermId, TermStore};

/// The positions of the arguments of `atom` that `binding` binds, into
/// `positions`, and their values, into `key`; `false` when one is a term
/// never created (no fact can match).
pub(super) fn bound_key(
    store: &TermStore,
    atom: &Atom,
    binding: &[Option<TermId>],
    positions: &mut Vec<usize>,
    key: &mut Vec<TermId>,
) -> bool {
    positions.clear();
    key.clear();
    for (p, arg) in atom.args.iter().enumerate() {
        if is_bound(arg, binding) {
            match lookup_bound(store, arg, binding) {
                Some(t) => {
                    positions.push(p);
                    key.push(t);
                }
                None => return false,
            }
        }
    }
    true
}

/// The key of a literal whose compound argument is bound only in part
/// (scratch space, reused from one literal to the next): the places of
/// its facts that the binding fixes, and their values.
#[derive(Default)]
pub(super) struct InnerKey {
    /// The places, as a [`Places`] spec.
    pub(super) places: Places,
    /// Their values.
    pub(super) values: Vec<TermId>,
    /// The steps to the argument being walked, three numbers each, as in
    /// [`Places`].
    path: Vec<u32>,
}

impl InnerKey {
    /// Sets the places of `atom` whose values `binding` fixes (every bound
    /// argument and, inside a compound argument bound only in part, every
    /// bound child), and those values, when some compound argument is
    /// bound in part (`Ok(false)` otherwise: the argument positions key as
    /// well); `Err` when a value is a term never created (no fact can
    /// match).
    pub(super) fn fill(
        &mut self,
        store: &TermStore,
        atom: &Atom,
        binding: &[Option<TermId>],
    ) -> Result<bool, ()> {
        fn fixes_some(pat: &Pat, binding: &[Option<TermId>]) -> bool {
            match pat {
                Pat::Ground(_) => true,
                Pat::Var(v) => binding[*v].is_some(),
                Pat::Func(_, args) => args.iter().any(|a| fixes_some(a, binding)),
            }
        }
        let partly = atom.args.iter().any(|arg| {
            matches!(arg, Pat::Func(..)) && !is_bound(arg, binding) && fixes_some(arg, binding)
        });
        if !partly {
            return Ok(false);
        }
        self.places.clear();
        self.values.clear();
        for (position, arg) in atom.args.iter().enumerate() {
            self.walk(store, arg, position, binding)?;
        }
        Ok(true)
    }

    /// Adds the places under `pat` (at argument `position`, then the
    /// current path) that `binding` fixes, and their values.
    fn walk(
        &mut self,
        store: &TermStore,
        pat: &Pat,
        position: usize,
        binding: &[Option<TermId>],
    ) -> Result<(), ()> {
        if is_bound(pat, binding) {
            self.values
                .push(lookup_bound(store, pat, binding).ok_or(())?);
            push_place(&mut self.places, position, &self.path);
        } else if let Pat::Func(symbol, args) = pat {
            for (child, arg) in args.iter().enumerate() {
                self.path.extend([*symbol, args.len() as u32, child as u32]);
                self.walk(store, arg, position, binding)?;
                self.path.truncate(self.path.len() - 3);
            }
        }
        Ok(())
    }
}
