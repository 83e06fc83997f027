//! The constant tables of the relational strategy's plans: the rows a
//! literal over a static relation or `true` matches (see
//! [`crate::compile::relational::plan`]), each emitted once, and what the
//! emitter derives from one: walks of the state's set bits and membership
//! bitsets.

use gdl_runtime::support::ranked_slot;
use rustc_hash::FxHashMap;

/// A table of runtime ids emitted as a constant: rows sorted, deduplicated.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Table {
    /// Number of columns.
    pub columns: usize,
    /// The rows.
    pub rows: Vec<Vec<u32>>,
    /// For a table of fluents (its last column), the number of key
    /// columns: its rows are sorted by the key, then by fluent id, so that
    /// the rows of a key come in the order a walk of the state finds them
    /// (even when variables projected out or bound in another order than
    /// the fluents are numbered by would sort them otherwise).
    pub fluent_key: Option<usize>,
}

/// The constant tables of a program, each emitted once.
#[derive(Default)]
pub struct Tables {
    /// Tables by index.
    pub tables: Vec<Table>,
    index: FxHashMap<Table, usize>,
}

/// Fewest rows per key, on average, for which a step over a fluent table
/// walks the state's set bits (see [`Tables::walk_stride`]).
const MIN_WALK_ROWS: usize = 4;
/// Most keys of a membership bitset (see [`Tables::membership`]): 128 KiB
/// of bits.
const MAX_MEMBERSHIP_BITS: usize = 1 << 20;
/// Most entries of one column's table of ranks in a membership bitset.
const MAX_RANK_SPAN: u32 = 1 << 16;

/// A constant bitset answering whether a table has a row with given first
/// columns: each column's values are ranked (their ids need not be
/// consecutive: checkers' coordinates are 1–8, numbered with the step
/// counter's numbers, and a–h, numbered elsewhere), and a key's bit is its
/// ranks in mixed radix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Membership {
    /// Per column, its smallest value.
    pub mins: Vec<u32>,
    /// Per column and one past the last, where its ranks start in `ranks`.
    pub starts: Vec<u32>,
    /// Per column, the number of its distinct values.
    pub sizes: Vec<u32>,
    /// The rank of value `mins[c] + j` of column `c` at `starts[c] + j`
    /// (`u16::MAX`: no row has that value there).
    pub ranks: Vec<u16>,
    /// The bits: one per key, set when a row has that key.
    pub bits: Vec<u64>,
}
/// Largest stride between the fluent ids of a key's rows for which a step
/// walks the state's set bits (it skips the bits in between).
const MAX_WALK_STRIDE: u32 = 4;

impl Tables {
    /// Whether a step over fluent table `table` keyed on its first `k`
    /// columns walks the set bits of the state instead of testing row by
    /// row, and the stride between the fluent ids of the rows of a key:
    /// when the rows of each key are the fluents of an id range, every
    /// `stride`-th (a predicate's fluents are numbered by their arguments:
    /// see `analyse::term_ids::term_order`); worth it when a key has a few rows on
    /// average and the walk skips few set bits.
    pub fn walk_stride(&self, table: usize, k: usize) -> Option<u32> {
        let t = &self.tables[table];
        // A table of no columns has no fluent column to walk.
        let last = t.columns.checked_sub(1)?;
        let mut stride = None;
        let mut keys = 1;
        for w in t.rows.windows(2) {
            if w[0][..k] != w[1][..k] {
                keys += 1;
                continue;
            }
            let step = w[1][last].checked_sub(w[0][last]).filter(|&d| d > 0)?;
            if *stride.get_or_insert(step) != step {
                return None;
            }
        }
        let stride = stride.unwrap_or(1);
        (stride <= MAX_WALK_STRIDE && t.rows.len() >= MIN_WALK_ROWS * keys).then_some(stride)
    }

    /// For a step that only asks whether table `table` has a row with given
    /// first `k` columns (it binds nothing and tests no fluent, e.g.
    /// `(different_cells ?x ?y ?u ?v)` with all four bound): the bitset of
    /// those keys, when it is small enough, so that the question is one
    /// bit instead of a binary search.
    pub fn membership(&self, table: usize, k: usize) -> Option<Membership> {
        let rows = &self.tables[table].rows;
        let (mins, spans, _) = key_box(rows, k)?;
        if spans.iter().any(|&s| s > MAX_RANK_SPAN) {
            return None;
        }
        let mut starts = vec![0u32];
        let mut ranks = Vec::new();
        let mut sizes = Vec::new();
        for c in 0..k {
            let mut column = vec![u16::MAX; spans[c] as usize];
            for row in rows {
                column[(row[c] - mins[c]) as usize] = 0;
            }
            let mut size = 0u32;
            for r in column.iter_mut().filter(|r| **r == 0) {
                *r = u16::try_from(size).ok()?;
                size += 1;
            }
            ranks.extend(column);
            starts.push(ranks.len() as u32);
            sizes.push(size);
        }
        let volume = sizes
            .iter()
            .try_fold(1usize, |acc, &s| acc.checked_mul(s as usize))
            .filter(|&v| v <= MAX_MEMBERSHIP_BITS)?;
        let mut bits = vec![0u64; volume.div_ceil(64)];
        for row in rows {
            let slot =
                ranked_slot(&ranks, &mins, &starts, &sizes, &row[..k]).expect("every value ranked");
            bits[slot / 64] |= 1 << (slot % 64);
        }
        Some(Membership {
            mins,
            starts,
            sizes,
            ranks,
            bits,
        })
    }

    /// The index of a table, registering it.
    pub fn add(&mut self, mut table: Table) -> usize {
        match table.fluent_key {
            Some(k) => table
                .rows
                .sort_unstable_by(|a, b| (&a[..k], a.last(), a).cmp(&(&b[..k], b.last(), b))),
            None => table.rows.sort_unstable(),
        }
        table.rows.dedup();
        // Rows in plain order need no other (and a table in plain order is
        // shared with the steps that asked for one).
        if table.rows.is_sorted() {
            table.fluent_key = None;
        }
        if let Some(&i) = self.index.get(&table) {
            return i;
        }
        self.tables.push(table.clone());
        self.index.insert(table, self.tables.len() - 1);
        self.tables.len() - 1
    }
}

/// The box of the first `k` columns of `rows` (smallest values, spans and
/// number of slots), if there are rows and keys and the volume fits a
/// `usize`.
pub fn key_box(rows: &[Vec<u32>], k: usize) -> Option<(Vec<u32>, Vec<u32>, usize)> {
    if k == 0 || rows.is_empty() {
        return None;
    }
    let mut mins = vec![u32::MAX; k];
    let mut maxs = vec![0u32; k];
    for row in rows {
        for c in 0..k {
            mins[c] = mins[c].min(row[c]);
            maxs[c] = maxs[c].max(row[c]);
        }
    }
    let spans: Vec<u32> = mins.iter().zip(&maxs).map(|(lo, hi)| hi - lo + 1).collect();
    let volume = spans
        .iter()
        .try_fold(1usize, |acc, &s| acc.checked_mul(s as usize))?;
    Some((mins, spans, volume))
}

#[cfg(test)]
mod tests {
    use super::{Table, Tables};

    #[test]
    fn a_membership_bitset_ranks_each_columns_values() {
        // Column 0 takes 10 and 30 (20 is in its span but no row's), column
        // 1 takes 5, 6 and 7: 2 x 3 keys, and the bits of the four rows.
        let mut tables = Tables::default();
        let rows = vec![
            vec![10, 5, 0],
            vec![10, 7, 1],
            vec![30, 6, 2],
            vec![30, 7, 3],
        ];
        let t = tables.add(Table {
            columns: 3,
            rows,
            fluent_key: None,
        });
        let m = tables.membership(t, 2).expect("small");
        assert_eq!((m.mins.clone(), m.sizes.clone()), (vec![10, 5], vec![2, 3]));
        assert_eq!(m.starts, [0, 21, 24]);
        assert_eq!((m.ranks[0], m.ranks[10], m.ranks[20]), (0, u16::MAX, 1));
        assert_eq!(m.ranks[21..], [0, 1, 2]);
        // Keys (rank0, rank1) -> bit rank0 * 3 + rank1: (0,0) (0,2) (1,1) (1,2).
        assert_eq!(m.bits, [0b110_101]);
        let member = |key: &[u32]| {
            gdl_runtime::support::ranked_member(
                &m.bits, &m.ranks, &m.mins, &m.starts, &m.sizes, key,
            )
        };
        assert!(member(&[10, 5]) && member(&[30, 6]) && member(&[30, 7]));
        assert!(!member(&[10, 6]) && !member(&[20, 5]) && !member(&[31, 5]) && !member(&[9, 5]));
        assert!(!member(&[10, 8]) && !member(&[10, 4]));
        // Without keys there is nothing to look up.
        assert!(tables.membership(t, 0).is_none());
    }
}
