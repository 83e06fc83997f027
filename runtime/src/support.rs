//! What the code that `gdlc` generates calls: the container of a derived
//! relation and the lookups into its compile-time tables.
//!
//! Terms are small integer ids (`u32`) assigned by the compiler; a tuple of
//! a relation of arity `N` is a `[u32; N]`.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The end of an index chain (see [`Rel::first`]).
pub const END: u32 = u32::MAX;

/// The hasher of the relations' sets and indexes.
type IdBuild = BuildHasherDefault<IdHasher>;

/// The facts of a derived relation: a list for enumeration, a hash set for
/// membership and, per query shape, an index from the values at the bound
/// positions to the facts that have them (a chain through the list).
/// Clearing keeps the capacity, so once warmed up a reasoner stops
/// allocating.
#[derive(Clone, Debug, Default)]
pub struct Rel<const N: usize> {
    list: Vec<[u32; N]>,
    set: HashSet<[u32; N], IdBuild>,
    indexes: Vec<Index<N>>,
}

/// One index of a relation: the positions it is keyed on, the newest fact
/// of each key, and for each fact the next older one with the same key.
#[derive(Clone, Debug)]
struct Index<const N: usize> {
    mask: [bool; N],
    heads: HashMap<[u32; N], u32, IdBuild>,
    next: Vec<u32>,
}

impl<const N: usize> Rel<N> {
    /// An empty relation with one index per mask (`true` at the positions
    /// the index is keyed on).
    pub fn with_indexes(masks: &[[bool; N]]) -> Self {
        Rel {
            list: Vec::new(),
            set: HashSet::default(),
            indexes: masks
                .iter()
                .map(|&mask| Index {
                    mask,
                    heads: HashMap::default(),
                    next: Vec::new(),
                })
                .collect(),
        }
    }

    /// Adds a fact; `false` if it was there.
    #[inline]
    pub fn insert(&mut self, fact: [u32; N]) -> bool {
        let new = self.set.insert(fact);
        if new {
            let i = self.list.len() as u32;
            self.list.push(fact);
            for index in &mut self.indexes {
                let mut key = fact;
                for (k, &keep) in key.iter_mut().zip(&index.mask) {
                    if !keep {
                        *k = 0;
                    }
                }
                let older = index.heads.insert(key, i).unwrap_or(END);
                index.next.push(older);
            }
        }
        new
    }

    /// Whether the fact holds.
    #[inline]
    pub fn contains(&self, fact: &[u32; N]) -> bool {
        self.set.contains(fact)
    }

    /// The number of facts.
    #[inline]
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there is no fact.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The `i`-th fact in insertion order.
    #[inline]
    pub fn get(&self, i: usize) -> [u32; N] {
        self.list[i]
    }

    /// The newest fact whose values at the positions of index `index` are
    /// those of `key` (its other positions 0), or [`END`].
    #[inline]
    pub fn first(&self, index: usize, key: &[u32; N]) -> u32 {
        self.indexes[index].heads.get(key).copied().unwrap_or(END)
    }

    /// The next older fact with the same key as fact `i` in index `index`,
    /// or [`END`].
    #[inline]
    pub fn next(&self, index: usize, i: u32) -> u32 {
        self.indexes[index].next[i as usize]
    }

    /// Removes every fact, keeping the capacity.
    #[inline]
    pub fn clear(&mut self) {
        if !self.list.is_empty() {
            self.list.clear();
            self.set.clear();
            for index in &mut self.indexes {
                index.heads.clear();
                index.next.clear();
            }
        }
    }
}

/// A fast hasher for tuples of small ids (multiply-rotate, as in FxHash).
#[derive(Clone, Copy, Debug, Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The rows of `rows` (sorted) whose first `key.len()` columns equal `key`.
#[inline]
pub fn range<'a, const N: usize>(rows: &'a [[u32; N]], key: &[u32]) -> &'a [[u32; N]] {
    let k = key.len();
    if k == 0 {
        return rows;
    }
    let lo = rows.partition_point(|r| r[..k] < *key);
    let hi = lo + rows[lo..].partition_point(|r| r[..k] <= *key);
    &rows[lo..hi]
}

/// The first row of `rows` (sorted) whose first columns equal `key`.
#[inline]
pub fn find<'a, const N: usize>(rows: &'a [[u32; N]], key: &[u32]) -> Option<&'a [u32; N]> {
    let k = key.len();
    let lo = rows.partition_point(|r| r[..k] < *key);
    rows.get(lo).filter(|r| r[..k] == *key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relation_dedups_and_clears() {
        let mut r: Rel<2> = Rel::default();
        assert!(r.insert([1, 2]));
        assert!(!r.insert([1, 2]));
        assert!(r.insert([2, 1]));
        assert_eq!(r.len(), 2);
        assert!(r.contains(&[2, 1]) && !r.contains(&[2, 2]));
        assert_eq!(r.get(1), [2, 1]);
        r.clear();
        assert!(r.is_empty() && !r.contains(&[1, 2]));
    }

    #[test]
    fn indexes_chain_the_facts_of_a_key() {
        let mut r: Rel<2> = Rel::with_indexes(&[[true, false], [false, true]]);
        for fact in [[1, 2], [1, 3], [2, 3], [1, 2]] {
            r.insert(fact);
        }
        fn chain(r: &Rel<2>, index: usize, key: [u32; 2]) -> Vec<[u32; 2]> {
            let mut out = Vec::new();
            let mut i = r.first(index, &key);
            while i != END {
                out.push(r.get(i as usize));
                i = r.next(index, i);
            }
            out
        }
        assert_eq!(chain(&r, 0, [1, 0]), [[1, 3], [1, 2]]);
        assert_eq!(chain(&r, 1, [0, 3]), [[2, 3], [1, 3]]);
        assert!(chain(&r, 0, [3, 0]).is_empty());
        r.clear();
        assert!(chain(&r, 0, [1, 0]).is_empty());
        r.insert([1, 5]);
        assert_eq!(chain(&r, 0, [1, 0]), [[1, 5]]);
    }

    #[test]
    fn range_and_find_by_prefix() {
        let rows = [[1, 5, 0], [2, 1, 1], [2, 1, 2], [2, 3, 3], [4, 0, 4]];
        assert_eq!(range(&rows, &[2]).len(), 3);
        assert_eq!(range(&rows, &[2, 1]), &rows[1..3]);
        assert!(range(&rows, &[3]).is_empty());
        assert_eq!(range(&rows, &[]).len(), 5);
        assert_eq!(find(&rows, &[2, 3]), Some(&[2, 3, 3]));
        assert_eq!(find(&rows, &[5]), None);
        assert_eq!(find(&rows, &[0]), None);
    }
}
