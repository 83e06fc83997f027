//! What the code that `gdlc` generates calls: the container of a derived
//! relation and the lookups into its compile-time tables.
//!
//! Terms are small integer ids (`u32`) assigned by the compiler; a tuple of
//! a relation of arity `N` is a `[u32; N]`.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// The facts of a derived relation: a list for enumeration and a hash set
/// for membership. Clearing keeps the capacity, so once warmed up a
/// reasoner stops allocating.
#[derive(Clone, Debug, Default)]
pub struct Rel<const N: usize> {
    list: Vec<[u32; N]>,
    set: HashSet<[u32; N], BuildHasherDefault<IdHasher>>,
}

impl<const N: usize> Rel<N> {
    /// Adds a fact; `false` if it was there.
    #[inline]
    pub fn insert(&mut self, fact: [u32; N]) -> bool {
        let new = self.set.insert(fact);
        if new {
            self.list.push(fact);
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

    /// Removes every fact, keeping the capacity.
    #[inline]
    pub fn clear(&mut self) {
        if !self.list.is_empty() {
            self.list.clear();
            self.set.clear();
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
