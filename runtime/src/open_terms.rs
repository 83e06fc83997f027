//! Compound terms built while a state is evaluated, for the arguments
//! whose values the compiler cannot enumerate (a path carried as a list of
//! the cells visited). Such a term keeps the id the compiler gave it when
//! it knows it; otherwise it gets an id from [`OpenTerms::first`] on,
//! hash-consed, so that equal terms have equal ids. These ids never reach
//! a state, a move or an answer: a reasoner forgets them when it leaves a
//! state ([`OpenTerms::clear`]).

use crate::support::{find, IdHasher, Table};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// Most terms built in one state: past it the description builds
/// unboundedly many terms, and the reasoner stops with that message
/// rather than exhausting memory.
pub const MAX_OPEN_TERMS: usize = 20_000_000;

/// One term built at run time: its functor, and where its arguments lie
/// in [`OpenTerms::args`].
#[derive(Clone, Copy, Debug)]
struct Node {
    functor: u32,
    start: u32,
    arity: u32,
    /// The previous term whose functor and arguments hash alike, or
    /// `u32::MAX`.
    next: u32,
}

/// The terms built at run time in the current state, hash-consed. Clearing
/// keeps the capacity, so once warmed up it stops allocating.
#[derive(Clone, Debug)]
pub struct OpenTerms {
    first: u32,
    nodes: Vec<Node>,
    args: Vec<u32>,
    /// The newest term of each hash.
    newest: HashMap<u64, u32, BuildHasherDefault<IdHasher>>,
}

impl OpenTerms {
    /// No terms yet; the first one built gets id `first` (one past the
    /// compiler's ids).
    pub fn new(first: u32) -> Self {
        OpenTerms {
            first,
            nodes: Vec::new(),
            args: Vec::new(),
            newest: HashMap::default(),
        }
    }

    /// The id the first term built gets.
    pub fn first(&self) -> u32 {
        self.first
    }

    /// Forgets every term built.
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.args.clear();
        self.newest.clear();
    }

    /// The number of terms built.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no term was built.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The id of the term `(functor args...)`, built if new.
    ///
    /// # Panics
    ///
    /// When more than [`MAX_OPEN_TERMS`] terms are built in one state.
    pub fn build(&mut self, functor: u32, args: &[u32]) -> u32 {
        let hash = hash_of(functor, args);
        let newest = self.newest.get(&hash).copied().unwrap_or(u32::MAX);
        let mut at = newest;
        while at != u32::MAX {
            let node = self.nodes[at as usize];
            if node.functor == functor && self.args_of(node) == args {
                return self.first + at;
            }
            at = node.next;
        }
        assert!(
            self.nodes.len() < MAX_OPEN_TERMS,
            "more than {MAX_OPEN_TERMS} terms built in one state: the description builds \
             unboundedly many terms"
        );
        let index = self.nodes.len() as u32;
        self.nodes.push(Node {
            functor,
            start: self.args.len() as u32,
            arity: args.len() as u32,
            next: newest,
        });
        self.args.extend_from_slice(args);
        self.newest.insert(hash, index);
        self.first + index
    }

    /// The arguments of built term `id` when it is `(functor` with `A`
    /// arguments`)`; `None` for any other term (and for the compiler's).
    #[inline]
    pub fn args<const A: usize>(&self, id: u32, functor: u32) -> Option<[u32; A]> {
        let node = self.nodes.get(id.checked_sub(self.first)? as usize)?;
        if node.functor != functor || node.arity as usize != A {
            return None;
        }
        self.args_of(*node).try_into().ok()
    }

    fn args_of(&self, node: Node) -> &[u32] {
        &self.args[node.start as usize..(node.start + node.arity) as usize]
    }
}

/// The hash of a term's functor and arguments.
fn hash_of(functor: u32, args: &[u32]) -> u64 {
    let mut h = IdHasher::default();
    functor.hash(&mut h);
    args.hash(&mut h);
    h.finish()
}

/// The arguments of term `id` when it is `(functor` with `A` arguments`)`:
/// a term the compiler knows is looked up in `known` (its terms of that
/// shape, rows `[id, args...]` sorted), one built at run time in `built`.
#[inline]
pub fn term_args<const A: usize, const N: usize, R: Table<[u32; N]> + ?Sized>(
    known: &R,
    built: &OpenTerms,
    id: u32,
    functor: u32,
) -> Option<[u32; A]> {
    if id < built.first() {
        let row = find(known, &[id])?;
        row[1..].try_into().ok()
    } else {
        built.args(id, functor)
    }
}

/// The id of `(functor args...)`: the compiler's, found in `known` (its
/// terms of that shape, rows `[args..., id]` sorted), or one built in
/// `built`.
#[inline]
pub fn build_term<const N: usize, R: Table<[u32; N]> + ?Sized>(
    known: &R,
    built: &mut OpenTerms,
    functor: u32,
    args: &[u32],
) -> u32 {
    match find(known, args) {
        Some(row) => row[N - 1],
        None => built.build(functor, args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_terms_get_equal_ids_and_come_apart_again() {
        let mut t = OpenTerms::new(100);
        let a = t.build(7, &[1, 2]);
        let b = t.build(7, &[1, 3]);
        let c = t.build(8, &[1, 2]);
        assert_eq!((a, b, c), (100, 101, 102));
        assert_eq!(t.build(7, &[1, 2]), a);
        assert_eq!(t.args::<2>(b, 7), Some([1, 3]));
        assert_eq!(t.args::<2>(c, 7), None, "another functor");
        assert_eq!(t.args::<3>(a, 7), None, "another arity");
        assert_eq!(t.args::<2>(99, 7), None, "the compiler's id");
        assert_eq!(t.args::<2>(103, 7), None, "not built");
        t.clear();
        assert!(t.is_empty());
        assert_eq!(t.build(8, &[5]), 100);
    }

    #[test]
    fn terms_whose_hashes_collide_stay_apart() {
        let mut t = OpenTerms::new(0);
        let ids: Vec<u32> = (0..10_000).map(|i| t.build(1, &[i, i + 1])).collect();
        assert!(ids.iter().enumerate().all(|(i, &id)| id == i as u32));
        assert!((0..10_000).all(|i| t.build(1, &[i, i + 1]) == i));
        assert_eq!(t.len(), 10_000);
    }

    #[test]
    fn a_term_the_compiler_knows_keeps_its_id() {
        // The compiler's (f 1 2) is id 5, (f 3 4) id 6; ids from 10 on are built.
        let by_args = [[1, 2, 5], [3, 4, 6]];
        let by_id = [[5, 1, 2], [6, 3, 4]];
        let mut t = OpenTerms::new(10);
        assert_eq!(build_term(&by_args, &mut t, 0, &[3, 4]), 6);
        let built = build_term(&by_args, &mut t, 0, &[6, 5]);
        assert_eq!(built, 10);
        assert_eq!(term_args::<2, 3, _>(&by_id, &t, 6, 0), Some([3, 4]));
        assert_eq!(term_args::<2, 3, _>(&by_id, &t, built, 0), Some([6, 5]));
        assert_eq!(term_args::<2, 3, _>(&by_id, &t, 7, 0), None);
    }
}
