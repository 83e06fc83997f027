//! The keys a literal of a join looks its candidate facts up by: the
//! values of its bound arguments ([`bound_key`]), or of the bound children
//! of a compound argument bound only in part ([`inner_key`]).

use super::table::Place;
use crate::compile::program::{is_bound, lookup_bound, Atom, Pat};
use crate::ir::terms::{SymId, TermId, TermStore};

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

/// The places of `atom` whose values `binding` fixes (every bound argument
/// and, inside a compound argument bound only in part, every bound
/// child), and those values, when some compound argument is bound in part
/// (`Ok(None)` otherwise: the argument positions key as well); `Err` when
/// a value is a term never created (no fact can match).
#[allow(clippy::type_complexity)]
pub(super) fn inner_key(
    store: &TermStore,
    atom: &Atom,
    binding: &[Option<TermId>],
) -> Result<Option<(Vec<Place>, Vec<TermId>)>, ()> {
    fn walk(
        store: &TermStore,
        pat: &Pat,
        place: &mut (usize, Vec<(SymId, usize, usize)>),
        binding: &[Option<TermId>],
        out: &mut (Vec<Place>, Vec<TermId>),
    ) -> Result<(), ()> {
        if is_bound(pat, binding) {
            let t = lookup_bound(store, pat, binding).ok_or(())?;
            out.0.push((place.0, place.1.as_slice().into()));
            out.1.push(t);
        } else if let Pat::Func(symbol, args) = pat {
            for (child, arg) in args.iter().enumerate() {
                place.1.push((*symbol, args.len(), child));
                walk(store, arg, place, binding, out)?;
                place.1.pop();
            }
        }
        Ok(())
    }
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
        return Ok(None);
    }
    let mut out = (Vec::new(), Vec::new());
    for (position, arg) in atom.args.iter().enumerate() {
        walk(store, arg, &mut (position, Vec::new()), binding, &mut out)?;
    }
    Ok(Some(out))
}
