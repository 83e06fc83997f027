//! The facts table of the relaxed evaluation: the distinct rows of a
//! relation ([`Rows`]), with the hash indexes joins look them up by
//! ([`Tuples`]), and the values found at each argument position
//! ([`Domain`]).

use crate::ir::terms::{TermData, TermId, TermStore};
use hashbrown::HashTable;
use indexmap::IndexSet;
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;

/// The values found at one argument position, in the order found (so the
/// values new since some moment are a suffix).
pub type Domain = IndexSet<TermId, FxBuildHasher>;

/// Row numbers of a relation by the values at some argument positions.
type Index = FxHashMap<Box<[TermId]>, Vec<u32>>;

/// The tuples of a relation in the relaxed evaluation, with hash indexes
/// on the argument positions that joins look up.
#[derive(Default)]
pub(super) struct Tuples {
    pub(super) rows: Rows,
    /// By the positions they key on (a relation has few), with the number
    /// of rows they index.
    indexes: Vec<(Box<[usize]>, Index, usize)>,
    /// By the places they key on (a [`Places`] spec), for literals whose
    /// compound arguments are bound only in part (see `InnerKey`), with
    /// the number of rows they index.
    inner: Vec<(Box<[u32]>, Index, usize)>,
    /// Scratch space for a key.
    key: Vec<TermId>,
}

/// The distinct rows of a relation in the order added, stored one after
/// the other (a join reads them by the thousands).
#[derive(Default)]
pub(super) struct Rows {
    /// Values per row (set by the first row).
    arity: usize,
    /// Number of rows.
    count: usize,
    /// The rows' values.
    values: Vec<TermId>,
    /// Row numbers, by the hash of the row.
    set: HashTable<u32>,
}

impl Rows {
    /// Number of rows.
    pub(super) fn len(&self) -> usize {
        self.count
    }

    /// Row `i`.
    pub(super) fn get(&self, i: usize) -> &[TermId] {
        row_at(&self.values, self.arity, i)
    }

    /// The rows from row `from` on.
    pub(super) fn from(&self, from: usize) -> impl Iterator<Item = &[TermId]> {
        (from..self.count).map(|i| self.get(i))
    }

    /// Whether `row` (of hash `hash`) is a row.
    fn find(&self, hash: u64, row: &[TermId]) -> bool {
        self.set
            .find(hash, |&i| self.get(i as usize) == row)
            .is_some()
    }

    /// Whether `row` is a row.
    pub(super) fn contains(&self, row: &[TermId]) -> bool {
        self.find(FxBuildHasher.hash_one(row), row)
    }

    /// Makes room for `additional` more rows of `arity` values (growing
    /// rehashes every row).
    pub(super) fn reserve(&mut self, additional: usize, arity: usize) {
        let Rows { values, set, .. } = self;
        set.reserve(additional, row_hash(values, arity));
        values.reserve(additional * arity);
    }

    /// Adds `row` unless it is a row already; `true` if it is new.
    pub(super) fn insert(&mut self, row: &[TermId]) -> bool {
        if self.count == 0 {
            self.arity = row.len();
        }
        let hash = FxBuildHasher.hash_one(row);
        if self.find(hash, row) {
            return false;
        }
        let Rows {
            arity,
            count,
            values,
            set,
        } = self;
        set.insert_unique(hash, *count as u32, row_hash(values, *arity));
        values.extend_from_slice(row);
        *count += 1;
        true
    }
}

/// The hash of a row given its number, among rows of `arity` values
/// stored one after the other in `values` (what [`Rows`]' table rehashes
/// by when it grows).
fn row_hash(values: &[TermId], arity: usize) -> impl Fn(&u32) -> u64 + '_ {
    move |&i| FxBuildHasher.hash_one(row_at(values, arity, i as usize))
}

/// Row `i` of rows of `arity` values stored one after the other in
/// `values`.
fn row_at(values: &[TermId], arity: usize, i: usize) -> &[TermId] {
    &values[i * arity..(i + 1) * arity]
}

/// Places in a relation's facts, one after the other: per place, its
/// argument position, the number of steps, then per step the functor's
/// symbol and arity and the child to follow, as `?x` in
/// `(legal ?player (move ?piece ?u ?v ?x ?y))` is at position 1, then
/// child 3 of a `move` of arity 5: `[1, 1, move, 5, 3]`. (Flat, so that a
/// key is made without allocating.)
pub(super) type Places = Vec<u32>;

/// Appends to `places` the place at argument `position`, then the steps
/// `path` (three numbers each).
pub(super) fn push_place(places: &mut Places, position: usize, path: &[u32]) {
    places.push(position as u32);
    places.push((path.len() / 3) as u32);
    places.extend_from_slice(path);
}

/// The values at `places` in `row`, into `key`; `false` if the row's terms
/// do not have a place's functors.
fn values_at(store: &TermStore, row: &[TermId], places: &[u32], key: &mut Vec<TermId>) -> bool {
    let mut rest = places;
    while let [position, steps, tail @ ..] = rest {
        let (path, after) = tail.split_at(*steps as usize * 3);
        let mut t = row[*position as usize];
        for step in path.chunks_exact(3) {
            match store.data(t) {
                TermData::Func(s, args) if *s == step[0] && args.len() == step[1] as usize => {
                    t = args[step[2] as usize];
                }
                _ => return false,
            }
        }
        key.push(t);
        rest = after;
    }
    true
}

impl Tuples {
    /// Indexes of the rows whose `places` (a [`Places`] spec) hold `key`,
    /// in the order of the rows.
    pub(super) fn lookup_inner(
        &mut self,
        places: &[u32],
        key: &[TermId],
        store: &TermStore,
    ) -> &[u32] {
        let index = index_on(
            &mut self.inner,
            &self.rows,
            places,
            &mut self.key,
            |row, key| values_at(store, row, places, key),
        );
        index.get(key).map_or(&[][..], |v| v.as_slice())
    }

    /// Indexes of the rows whose `positions` hold `key`, in the order of
    /// the rows.
    pub(super) fn lookup(&mut self, positions: &[usize], key: &[TermId]) -> &[u32] {
        let index = index_on(
            &mut self.indexes,
            &self.rows,
            positions,
            &mut self.key,
            |row, key| {
                key.extend(positions.iter().map(|&p| row[p]));
                true
            },
        );
        index.get(key).map_or(&[][..], |v| v.as_slice())
    }
}

/// The index of `indexes` keyed on `spec`, brought up to date with `rows`
/// (created when missing): `key_of` writes a row's key into its scratch
/// space, or answers `false` to leave the row out.
fn index_on<'i, S: PartialEq + Clone>(
    indexes: &'i mut Vec<(Box<[S]>, Index, usize)>,
    rows: &Rows,
    spec: &[S],
    key: &mut Vec<TermId>,
    key_of: impl Fn(&[TermId], &mut Vec<TermId>) -> bool,
) -> &'i Index {
    // (Element by element: the specs are a few positions long, shorter
    // than a call to compare memory.)
    let same = |s: &[S]| s.len() == spec.len() && s.iter().zip(spec).all(|(a, b)| a == b);
    let at = match indexes.iter().position(|(s, _, _)| same(s)) {
        Some(at) => at,
        None => {
            indexes.push((spec.into(), Index::default(), 0));
            indexes.len() - 1
        }
    };
    let (_, index, indexed) = &mut indexes[at];
    for i in *indexed..rows.len() {
        key.clear();
        if !key_of(rows.get(i), key) {
            continue;
        }
        match index.get_mut(key.as_slice()) {
            Some(rows) => rows.push(i as u32),
            None => {
                index.insert(key.as_slice().into(), vec![i as u32]);
            }
        }
    }
    *indexed = rows.len();
    &indexes[at].1
}
