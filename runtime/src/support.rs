//! What the code that `gdlc` generates calls: the container of a derived
//! relation and the lookups into its compile-time tables.
//!
//! Terms are small integer ids (`u32`) assigned by the compiler; a tuple of
//! a relation of arity `N` is a `[u32; N]`.

pub use crate::open_terms::{build_term, term_args, OpenTerms, MAX_OPEN_TERMS};
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The end of an index chain (see [`Rel::first`]).
pub const END: u32 = u32::MAX;

/// The hasher of the relations' sets and indexes.
type IdBuild = BuildHasherDefault<IdHasher>;

/// The facts of a derived relation: a list for enumeration; for
/// membership a bitset when the facts fit a small box (see [`Rel::new`]),
/// else a hash set; and, per query shape, an index from the values at the
/// bound positions to the facts that have them (a chain through the list).
/// Clearing keeps the capacity, so once warmed up a reasoner stops
/// allocating.
#[derive(Clone, Debug, Default)]
pub struct Rel<const N: usize> {
    list: Vec<[u32; N]>,
    /// Membership of facts outside the dense box (all of them without one).
    set: HashSet<[u32; N], IdBuild>,
    dense: Option<Dense<N>>,
    indexes: Vec<Index<N>>,
}

/// A bitset over the box `mins[p] <= fact[p] < mins[p] + spans[p]`, in
/// mixed radix.
#[derive(Clone, Debug)]
struct Dense<const N: usize> {
    mins: [u32; N],
    spans: [u32; N],
    bits: Vec<u64>,
}

impl<const N: usize> Dense<N> {
    /// The bit of a fact, if it lies in the box.
    #[inline]
    fn slot(&self, fact: &[u32; N]) -> Option<usize> {
        box_slot(&self.mins, &self.spans, fact)
    }
}

/// One index of a relation: the positions it is keyed on, the newest fact
/// of each key, and for each fact the next older one with the same key.
/// With a dense box, the heads of the keys inside it are a table over the
/// box's slots of the keyed positions (when that is small); the others are
/// hashed.
#[derive(Clone, Debug)]
struct Index<const N: usize> {
    mask: [bool; N],
    heads: HashMap<[u32; N], u32, IdBuild>,
    /// The heads by slot (see [`Index::slot`]); empty without a box.
    table: Vec<u32>,
    next: Vec<u32>,
}

/// Words of a bitset or slots of a table of heads per fact up to which
/// [`Rel::clear`] fills it whole instead of resetting each fact's word or
/// slot (which costs a slot computation and a store).
const FILL_PER_FACT: usize = 8;

/// Most slots of an index's table of heads.
const MAX_TABLE_HEADS: usize = 1 << 16;

impl<const N: usize> Index<N> {
    /// The slot of a key in the table of heads: the mixed-radix offset of
    /// its keyed positions in the box, if it lies there and there is a table.
    #[inline]
    fn slot(&self, dense: Option<&Dense<N>>, key: &[u32; N]) -> Option<usize> {
        let d = dense.filter(|_| !self.table.is_empty())?;
        let mut slot = 0usize;
        for (((&value, &keyed), &min), &span) in
            key.iter().zip(&self.mask).zip(&d.mins).zip(&d.spans)
        {
            if keyed {
                let offset = value.wrapping_sub(min);
                if offset >= span {
                    return None;
                }
                slot = slot * span as usize + offset as usize;
            }
        }
        Some(slot)
    }
}

impl<const N: usize> Rel<N> {
    /// An empty relation with one index per mask (`true` at the positions
    /// the index is keyed on) and, given `(mins, spans)`, a bitset for the
    /// facts in that box (its volume should be small: it is allocated
    /// once, one bit per tuple).
    pub fn new(masks: &[[bool; N]], dense: Option<([u32; N], [u32; N])>) -> Self {
        Rel {
            list: Vec::new(),
            set: HashSet::default(),
            dense: dense.map(|(mins, spans)| {
                let volume: usize = spans.iter().map(|&s| s as usize).product();
                Dense {
                    mins,
                    spans,
                    bits: vec![0; volume.div_ceil(64)],
                }
            }),
            indexes: masks
                .iter()
                .map(|&mask| {
                    let slots = dense.map_or(usize::MAX, |(_, spans)| {
                        (0..N)
                            .filter(|&p| mask[p])
                            .map(|p| spans[p] as usize)
                            .product()
                    });
                    let table = if slots <= MAX_TABLE_HEADS {
                        vec![END; slots]
                    } else {
                        Vec::new()
                    };
                    Index {
                        mask,
                        heads: HashMap::default(),
                        table,
                        next: Vec::new(),
                    }
                })
                .collect(),
        }
    }

    /// Adds a fact; `false` if it was there.
    #[inline]
    pub fn insert(&mut self, fact: [u32; N]) -> bool {
        let new = match self.dense.as_mut().and_then(|d| Some((d.slot(&fact)?, d))) {
            Some((slot, d)) => {
                let word = &mut d.bits[slot >> 6];
                let bit = 1u64 << (slot & 63);
                let new = *word & bit == 0;
                *word |= bit;
                new
            }
            None => self.set.insert(fact),
        };
        if new {
            let i = self.list.len() as u32;
            self.list.push(fact);
            for index in &mut self.indexes {
                let older = match index.slot(self.dense.as_ref(), &fact) {
                    Some(slot) => std::mem::replace(&mut index.table[slot], i),
                    None => index
                        .heads
                        .insert(masked(fact, &index.mask), i)
                        .unwrap_or(END),
                };
                index.next.push(older);
            }
        }
        new
    }

    /// Whether the fact holds.
    #[inline]
    pub fn contains(&self, fact: &[u32; N]) -> bool {
        match self.dense.as_ref().and_then(|d| Some((d.slot(fact)?, d))) {
            Some((slot, d)) => d.bits[slot >> 6] >> (slot & 63) & 1 != 0,
            None => self.set.contains(fact),
        }
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
        let index = &self.indexes[index];
        match index.slot(self.dense.as_ref(), key) {
            Some(slot) => index.table[slot],
            None => index.heads.get(key).copied().unwrap_or(END),
        }
    }

    /// The next older fact with the same key as fact `i` in index `index`,
    /// or [`END`].
    #[inline]
    pub fn next(&self, index: usize, i: u32) -> u32 {
        self.indexes[index].next[i as usize]
    }

    /// Removes every fact, keeping the capacity. A bitset or table of
    /// heads at most [`FILL_PER_FACT`] words per fact is filled whole (a
    /// memset), a larger one reset fact by fact.
    #[inline]
    pub fn clear(&mut self) {
        if !self.list.is_empty() {
            let fill = self.list.len() * FILL_PER_FACT;
            if let Some(d) = &mut self.dense {
                if d.bits.len() <= fill {
                    d.bits.fill(0);
                } else {
                    for fact in &self.list {
                        if let Some(slot) = d.slot(fact) {
                            d.bits[slot >> 6] = 0;
                        }
                    }
                }
            }
            if !self.set.is_empty() {
                self.set.clear();
            }
            for index in &mut self.indexes {
                if index.table.len() <= fill {
                    index.table.fill(END);
                } else {
                    for fact in &self.list {
                        if let Some(slot) = index.slot(self.dense.as_ref(), fact) {
                            index.table[slot] = END;
                        }
                    }
                }
                if !index.heads.is_empty() {
                    index.heads.clear();
                }
                index.next.clear();
            }
            self.list.clear();
        }
    }
}

/// A fact with the positions an index is not keyed on set to 0: its key.
#[inline]
fn masked<const N: usize>(mut fact: [u32; N], mask: &[bool; N]) -> [u32; N] {
    for (k, &keep) in fact.iter_mut().zip(mask) {
        if !keep {
            *k = 0;
        }
    }
    fact
}

/// The answers a search (the demand strategy's `ask_<r>`) has found for
/// the current state (and joint move), by their arguments: a question
/// asked again in the same state is answered without searching. A cache,
/// each question in one of the two slots its hash picks, a later question
/// taking the second slot of an earlier one when both are taken (the
/// earlier is then searched again if asked again): a lookup and an
/// insert are one hash and two slots, with no probing, and forgetting
/// every answer is one increment (a slot holds an answer only of the
/// generation it was written in). It starts with [`MEMO_SLOTS`] slots and
/// doubles them (up to [`MAX_MEMO_SLOTS`]) when a state asked more
/// questions than a quarter of them, so that few answers are lost to a
/// taken slot.
#[derive(Clone, Debug)]
pub struct Memo<const N: usize> {
    slots: Vec<MemoSlot<N>>,
    /// 64 minus the number of bits of a slot index.
    shift: u32,
    /// The generation of the answers that count; never 0, the generation
    /// of a slot never written.
    generation: u32,
    /// The answers inserted in this generation.
    inserted: usize,
}

/// The number of slots a [`Memo`] starts with: a power of two. Fewer
/// cost more: gt_two_thirds_6p asks about 3 000 questions per state; a
/// memo starting at 256 slots searched 11 % more often than a hash map,
/// one starting at 65 536 no more often.
pub const MEMO_SLOTS: usize = 4096;
/// The most slots a [`Memo`] grows to.
pub const MAX_MEMO_SLOTS: usize = 1 << 16;

/// One slot of a [`Memo`].
#[derive(Clone, Copy, Debug)]
struct MemoSlot<const N: usize> {
    key: [u32; N],
    generation: u32,
    answer: bool,
}

impl<const N: usize> MemoSlot<N> {
    /// A slot never written.
    const EMPTY: Self = MemoSlot {
        key: [0; N],
        generation: 0,
        answer: false,
    };
}

impl<const N: usize> Default for Memo<N> {
    fn default() -> Self {
        Memo {
            slots: vec![MemoSlot::EMPTY; MEMO_SLOTS],
            shift: 64 - MEMO_SLOTS.trailing_zeros(),
            generation: 1,
            inserted: 0,
        }
    }
}

impl<const N: usize> Memo<N> {
    /// The first of the two slots of arguments `t`: the top bits of a
    /// multiplicative hash, made even.
    #[inline]
    fn pair(&self, t: &[u32; N]) -> usize {
        let mut h = 0u64;
        for &w in t {
            h = (h.rotate_left(5) ^ u64::from(w)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
        (h >> self.shift) as usize & !1
    }

    /// The answer found for arguments `t`, if it is still remembered.
    #[inline]
    pub fn get(&self, t: &[u32; N]) -> Option<bool> {
        let at = self.pair(t);
        self.slots[at..at + 2]
            .iter()
            .find(|s| s.generation == self.generation && s.key == *t)
            .map(|s| s.answer)
    }

    /// Remembers the answer for arguments `t`: in the first of its two
    /// slots if that holds no answer of this generation, else in the
    /// second.
    #[inline]
    pub fn insert(&mut self, t: [u32; N], answer: bool) {
        let mut at = self.pair(&t);
        if self.slots[at].generation == self.generation {
            at += 1;
        }
        self.slots[at] = MemoSlot {
            key: t,
            generation: self.generation,
            answer,
        };
        self.inserted += 1;
    }

    /// Forgets every answer (the state or the joint move changed); keeps
    /// the memory, or doubles it when this state asked more questions
    /// than a quarter of the slots (a question finds its slot taken by
    /// another about as often as the slots are full).
    #[inline]
    pub fn clear(&mut self) {
        let len = self.slots.len();
        if 4 * self.inserted > len && len < MAX_MEMO_SLOTS {
            self.slots = vec![MemoSlot::EMPTY; 2 * len];
            self.shift -= 1;
        }
        self.inserted = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Every slot's generation is now older than 1.
            self.slots.fill(MemoSlot::EMPTY);
            self.generation = 1;
        }
    }
}

/// A fast hasher for tuples of small ids: each word is folded in with a
/// multiply-rotate (as in FxHash), and the result goes through the
/// splitmix64 finalizer, so that the low bits a hash table indexes by
/// depend on every word (without it, large relations of ids that differ
/// only in their high words collided and inserts went quadratic).
#[derive(Clone, Copy, Debug, Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(4);
        for c in &mut chunks {
            self.write_u32(u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        }
        for &b in chunks.remainder() {
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
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A constant table of generated code: an array, or an array decoded
/// from the data file on first use (see [`crate::data`]).
pub trait Table<T> {
    /// Its elements.
    fn table(&self) -> &[T];
}

impl<T> Table<T> for [T] {
    #[inline]
    fn table(&self) -> &[T] {
        self
    }
}

impl<T> Table<T> for Vec<T> {
    #[inline]
    fn table(&self) -> &[T] {
        self
    }
}

impl<T, const M: usize> Table<T> for [T; M] {
    #[inline]
    fn table(&self) -> &[T] {
        self
    }
}

impl<T, const M: usize> Table<T> for std::sync::LazyLock<Box<[T; M]>> {
    #[inline]
    fn table(&self) -> &[T] {
        &***self
    }
}

/// The rows of `rows` (sorted) whose first `key.len()` columns equal `key`.
#[inline]
pub fn range<'a, const N: usize, R: Table<[u32; N]> + ?Sized>(
    rows: &'a R,
    key: &[u32],
) -> &'a [[u32; N]] {
    let rows = rows.table();
    if key.is_empty() {
        return rows;
    }
    let lo = rows.partition_point(|r| prefix_cmp(r, key).is_lt());
    let hi = lo + rows[lo..].partition_point(|r| prefix_cmp(r, key).is_le());
    &rows[lo..hi]
}

/// The rows of `rows` (sorted) whose first `key.len()` columns equal `key`,
/// found without a search: the key's columns lie in the box `mins[c] <=
/// key[c] < mins[c] + spans[c]` (a key outside it has no rows), and
/// `offsets[s]` is the first row whose key is at mixed-radix slot `s` or
/// after (`offsets` has one entry more than the box has slots).
#[inline]
pub fn boxed_range<'a, const N: usize, R: Table<[u32; N]> + ?Sized, O: Table<u32> + ?Sized>(
    rows: &'a R,
    offsets: &O,
    mins: &[u32],
    spans: &[u32],
    key: &[u32],
) -> &'a [[u32; N]] {
    let Some(slot) = box_slot(mins, spans, key) else {
        return &[];
    };
    let offsets = offsets.table();
    &rows.table()[offsets[slot] as usize..offsets[slot + 1] as usize]
}

/// The set bits `lo <= f < hi` of a bitset (`words`, bit `f` in word
/// `f / 64`), in increasing order: a state's fluents in an id range.
#[inline]
pub fn ones(words: &[u64], lo: u32, hi: u32) -> Ones<'_> {
    if lo >= hi {
        return Ones {
            words,
            word: 0,
            bits: 0,
            last: 0,
            hi,
        };
    }
    let word = (lo >> 6) as usize;
    Ones {
        words,
        word,
        bits: words[word] & (!0u64 << (lo & 63)),
        last: ((hi - 1) >> 6) as usize,
        hi,
    }
}

/// The iterator of [`ones`].
pub struct Ones<'a> {
    words: &'a [u64],
    /// The word `bits` came from.
    word: usize,
    /// Its bits not yet returned.
    bits: u64,
    /// The last word to look at.
    last: usize,
    hi: u32,
}

impl Iterator for Ones<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        while self.bits == 0 {
            if self.word >= self.last {
                return None;
            }
            self.word += 1;
            self.bits = self.words[self.word];
        }
        let f = (self.word as u32) << 6 | self.bits.trailing_zeros();
        self.bits &= self.bits - 1;
        if f < self.hi {
            Some(f)
        } else {
            self.bits = 0;
            self.last = 0;
            None
        }
    }
}

/// The first set bit `lo <= f < hi` of a bitset, or `hi` when there is
/// none: a walk over a state's fluents, one call per step, that holds no
/// borrow of the state between steps (so its body may evaluate other
/// layers of the reasoner).
#[inline]
pub fn next_one(words: &[u64], lo: u32, hi: u32) -> u32 {
    ones(words, lo, hi).next().unwrap_or(hi)
}

/// Whether some row's column `column` is a set bit of `words` (a bitset,
/// bit `f` in word `f / 64`): whether a fluent among some rows' holds.
#[inline]
pub fn any_held<const N: usize>(rows: &[[u32; N]], column: usize, words: &[u64]) -> bool {
    rows.iter().any(|r| {
        let f = r[column];
        words[(f >> 6) as usize] >> (f & 63) & 1 != 0
    })
}

/// Column `column` of the first of `rows`, 0 when there is none: where
/// the fluent ids of a run of rows start.
#[inline]
pub fn first_column<const N: usize>(rows: &[[u32; N]], column: usize) -> u32 {
    match rows.first() {
        Some(row) => row[column],
        None => 0,
    }
}

/// Whether some bit `lo <= f < hi` of a bitset is set.
#[inline]
pub fn any_one(words: &[u64], lo: u32, hi: u32) -> bool {
    ones(words, lo, hi).next().is_some()
}

/// Whether `key` is set in a membership bitset over ranked columns: its
/// bit in `bits` is its [`ranked_slot`].
#[inline]
pub fn ranked_member<B: Table<u64> + ?Sized, K: Table<u16> + ?Sized>(
    bits: &B,
    ranks: &K,
    mins: &[u32],
    starts: &[u32],
    sizes: &[u32],
    key: &[u32],
) -> bool {
    let bits = bits.table();
    ranked_slot(ranks, mins, starts, sizes, key).is_some_and(|s| bits[s >> 6] >> (s & 63) & 1 != 0)
}

/// The ranks of `key` in mixed radix, if every value has one: value `v` of
/// column `c` has rank `ranks[starts[c] + v - mins[c]]` (when that lies
/// below `starts[c + 1]` and is not `u16::MAX`) among `sizes[c]`.
#[inline]
pub fn ranked_slot<K: Table<u16> + ?Sized>(
    ranks: &K,
    mins: &[u32],
    starts: &[u32],
    sizes: &[u32],
    key: &[u32],
) -> Option<usize> {
    let ranks = ranks.table();
    let mut slot = 0usize;
    for (c, &k) in key.iter().enumerate() {
        let at = starts[c] as usize + k.wrapping_sub(mins[c]) as usize;
        if at >= starts[c + 1] as usize {
            return None;
        }
        let rank = ranks[at];
        if rank == u16::MAX {
            return None;
        }
        slot = slot * sizes[c] as usize + rank as usize;
    }
    Some(slot)
}

/// The end of a ray table's fluent tests in a row (see [`fluent_tests`]).
pub const TESTS_END: u32 = u32::MAX;
/// A ray table's test that never passes (a rule that takes no step from
/// the row's square).
pub const TESTS_FAIL: u32 = u32::MAX - 1;

/// Whether the fluent tests of a ray table's row hold in the state `words`
/// (bit `f` in word `f / 64`): test `t` asks that fluent `t >> 1` holds
/// (`t & 1 == 0`) or does not (`1`); the tests end at the first
/// [`TESTS_END`], and fail at [`TESTS_FAIL`].
#[inline]
pub fn fluent_tests(words: &[u64], tests: &[u32]) -> bool {
    for &t in tests {
        if t == TESTS_END {
            break;
        }
        if t == TESTS_FAIL {
            return false;
        }
        let f = t >> 1;
        let held = words[(f >> 6) as usize] >> (f & 63) & 1;
        if held as u32 == t & 1 {
            return false;
        }
    }
    true
}

/// Bits of a board cell ([`fill_board`]) that hold the content number.
pub const CONTENT_BITS: u32 = 5;

/// Fills `board`, a board's contents per square (bit `c` of square `s`:
/// content `c` is there), from the state `words`: each fluent `first + i`
/// that holds sets the content `cells[i] & 31` of the square `cells[i] >>
/// 5`. A square holding two contents has two bits, so the board says
/// exactly what the fluents say. The board must be empty: all zeros, or
/// cleared of the state it held by [`clear_board`].
#[inline]
pub fn fill_board<C: Table<u32> + ?Sized>(board: &mut [u32], words: &[u64], first: u32, cells: &C) {
    let cells = cells.table();
    for f in ones(words, first, first + cells.len() as u32) {
        let cell = cells[(f - first) as usize];
        board[(cell >> CONTENT_BITS) as usize] |= 1 << (cell & ((1 << CONTENT_BITS) - 1));
    }
}

/// Empties `board`, filled by [`fill_board`] from the state `words`: the
/// squares of the fluents that hold there, rather than every square (a
/// board can have many more squares than pieces).
#[inline]
pub fn clear_board<C: Table<u32> + ?Sized>(
    board: &mut [u32],
    words: &[u64],
    first: u32,
    cells: &C,
) {
    let cells = cells.table();
    for f in ones(words, first, first + cells.len() as u32) {
        board[(cells[(f - first) as usize] >> CONTENT_BITS) as usize] = 0;
    }
}

/// Whether the board test `test` — `[square, required, forbidden]`, each
/// of the last two a set of contents — holds on `board`: the square holds
/// every required content and no forbidden one. A ray table's fluent
/// tests at one square of a board, as one load; `[0, !0, !0]` never holds.
#[inline]
pub fn board_tests(board: &[u32], test: &[u32]) -> bool {
    let held = board[test[0] as usize];
    held & test[1] == test[1] && held & test[2] == 0
}

/// A square of no board: what a square table ([`board_cell`]) holds at a
/// slot whose coordinates name no square.
pub const OFF_BOARD: u32 = u32::MAX;

/// What is on the square whose coordinates are `key` (runtime ids), as
/// [`fill_board`] keeps it in `board`: the square is `squares[s]`, `s` the
/// slot of `key` in the box `mins`/`spans` ([`box_slot`]). A key outside
/// the box or at an [`OFF_BOARD`] slot has nothing on it. A plan's fluent
/// test at a bound square, as one load.
#[inline]
pub fn board_cell<S: Table<u32> + ?Sized>(
    board: &[u32],
    squares: &S,
    mins: &[u32],
    spans: &[u32],
    key: &[u32],
) -> u32 {
    box_slot(mins, spans, key)
        .and_then(|s| board.get(squares.table()[s] as usize))
        .copied()
        .unwrap_or(0)
}

/// The bit of content `v` (a runtime id) on a board whose contents' bits
/// are `masks[v - min]`; none for another term.
#[inline]
pub fn content_bit<M: Table<u32> + ?Sized>(masks: &M, min: u32, v: u32) -> u32 {
    (masks.table().get(v.wrapping_sub(min) as usize))
        .copied()
        .unwrap_or(0)
}

/// The set bits of `word`, lowest first: the contents on one square.
#[inline]
pub fn bits(word: u32) -> Bits {
    Bits(word)
}

/// The iterator of [`bits`].
#[derive(Clone, Copy, Debug)]
pub struct Bits(u32);

impl Iterator for Bits {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(b as usize)
    }
}

/// ORs the fluents `lo <= f < hi` of the state `from` into `to` (bit `f`
/// in word `f / 64`), except the fluents of the lists `excluded` (each
/// ending at its first [`TESTS_END`]) that `to` does not hold already: a
/// frame rule's copy of the cells a move leaves alone. At most 64
/// excluded fluents in all.
#[inline]
pub fn copy_fluents_except(from: &[u64], to: &mut [u64], lo: u32, hi: u32, excluded: &[&[u32]]) {
    if lo >= hi {
        return;
    }
    let listed = || {
        (excluded.iter())
            .flat_map(|list| list.iter().take_while(|&&f| f != TESTS_END))
            .enumerate()
    };
    let mut clear = 0u64;
    for (k, &f) in listed() {
        if to[(f >> 6) as usize] >> (f & 63) & 1 == 0 {
            clear |= 1 << k;
        }
    }
    let (first, last) = ((lo >> 6) as usize, ((hi - 1) >> 6) as usize);
    for w in first..=last {
        let mut bits = from[w];
        if w == first {
            bits &= !0u64 << (lo & 63);
        }
        if w == last {
            bits &= !0u64 >> (63 - ((hi - 1) & 63));
        }
        to[w] |= bits;
    }
    for (k, &f) in listed() {
        if clear >> k & 1 != 0 {
            to[(f >> 6) as usize] &= !(1u64 << (f & 63));
        }
    }
}

/// The mixed-radix slot of `key` in the box `mins[c] <= key[c] < mins[c] +
/// spans[c]`, if it lies there: the row of a table that lists the box's
/// slots in order.
#[inline]
pub fn box_slot(mins: &[u32], spans: &[u32], key: &[u32]) -> Option<usize> {
    let mut slot = 0usize;
    for ((&k, &min), &span) in key.iter().zip(mins).zip(spans) {
        let offset = k.wrapping_sub(min);
        if offset >= span {
            return None;
        }
        slot = slot * span as usize + offset as usize;
    }
    Some(slot)
}

/// Compares the first `key.len()` columns of a row with `key`.
#[inline]
fn prefix_cmp(row: &[u32], key: &[u32]) -> std::cmp::Ordering {
    for (a, b) in row.iter().zip(key) {
        if a != b {
            return a.cmp(b);
        }
    }
    std::cmp::Ordering::Equal
}

/// The first row of `rows` (sorted) whose first columns equal `key`.
#[inline]
pub fn find<'a, const N: usize, R: Table<[u32; N]> + ?Sized>(
    rows: &'a R,
    key: &[u32],
) -> Option<&'a [u32; N]> {
    let rows = rows.table();
    let lo = rows.partition_point(|r| prefix_cmp(r, key).is_lt());
    rows.get(lo).filter(|r| prefix_cmp(&r[..], key).is_eq())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_memo_answers_what_it_was_told_until_cleared() {
        let mut m: Memo<2> = Memo::default();
        assert_eq!(m.get(&[1, 2]), None);
        m.insert([1, 2], true);
        m.insert([2, 1], false);
        assert_eq!((m.get(&[1, 2]), m.get(&[2, 1])), (Some(true), Some(false)));
        m.clear();
        assert_eq!(m.get(&[1, 2]), None);
    }

    #[test]
    fn a_memo_forgets_at_most_what_shares_a_slot_and_survives_its_generations_wrapping() {
        let mut m: Memo<3> = Memo::default();
        let keys: Vec<[u32; 3]> = (0..64).map(|i| [i, 9000 + i, 7]).collect();
        for (i, k) in keys.iter().enumerate() {
            m.insert(*k, i % 3 == 0);
        }
        // Each answer is either remembered correctly or forgotten (its
        // slot taken by a later key), never wrong; most are remembered.
        let mut remembered = 0;
        for (i, k) in keys.iter().enumerate() {
            if let Some(answer) = m.get(k) {
                assert_eq!(answer, i % 3 == 0);
                remembered += 1;
            }
        }
        assert!(remembered >= 48, "{remembered} of 64");
        // A state of more questions than a quarter of the slots doubles
        // them.
        for i in 0..MEMO_SLOTS as u32 / 4 {
            m.insert([i, i, i], true);
        }
        m.clear();
        assert_eq!(m.slots.len(), 2 * MEMO_SLOTS);
        m.clear();
        assert_eq!(m.slots.len(), 2 * MEMO_SLOTS);
        m.generation = u32::MAX;
        m.insert([1, 2, 3], true);
        m.clear();
        assert_eq!(m.get(&[1, 2, 3]), None);
        m.insert([1, 2, 3], false);
        assert_eq!(m.get(&[1, 2, 3]), Some(false));
    }

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
    fn dense_membership_with_facts_outside_the_box() {
        let mut r: Rel<2> = Rel::new(&[], Some(([10, 0], [3, 2])));
        assert!(r.insert([11, 1]));
        assert!(!r.insert([11, 1]));
        assert!(r.insert([40, 1]), "outside the box: kept in the hash set");
        assert!(r.contains(&[11, 1]) && r.contains(&[40, 1]));
        assert!(!r.contains(&[12, 1]) && !r.contains(&[9, 0]) && !r.contains(&[11, 2]));
        r.clear();
        assert!(!r.contains(&[11, 1]) && !r.contains(&[40, 1]));
        assert!(r.insert([12, 0]) && r.contains(&[12, 0]));
    }

    /// The facts of index `index`'s chain for `key`, newest first.
    fn chain(r: &Rel<2>, index: usize, key: [u32; 2]) -> Vec<[u32; 2]> {
        let mut out = Vec::new();
        let mut i = r.first(index, &key);
        while i != END {
            out.push(r.get(i as usize));
            i = r.next(index, i);
        }
        out
    }

    #[test]
    fn indexes_chain_the_facts_of_a_key() {
        let mut r: Rel<2> = Rel::new(&[[true, false], [false, true]], None);
        for fact in [[1, 2], [1, 3], [2, 3], [1, 2]] {
            r.insert(fact);
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
    fn indexes_over_a_dense_box_chain_facts_inside_and_outside_it() {
        // Box 10..13 x 0..2; index 0 keyed on position 0 (a table of 3
        // heads), index 1 on both (a table of 6).
        let mut r: Rel<2> = Rel::new(&[[true, false], [true, true]], Some(([10, 0], [3, 2])));
        for fact in [[11, 1], [11, 0], [40, 1], [12, 1], [40, 0], [11, 1]] {
            r.insert(fact);
        }
        assert_eq!(chain(&r, 0, [11, 0]), [[11, 0], [11, 1]]);
        assert_eq!(chain(&r, 0, [40, 0]), [[40, 0], [40, 1]]);
        assert_eq!(chain(&r, 1, [12, 1]), [[12, 1]]);
        assert!(chain(&r, 0, [10, 0]).is_empty() && chain(&r, 1, [12, 0]).is_empty());
        r.clear();
        assert!(chain(&r, 0, [11, 0]).is_empty() && chain(&r, 0, [40, 0]).is_empty());
        r.insert([11, 0]);
        assert_eq!(chain(&r, 0, [11, 0]), [[11, 0]]);
        assert_eq!(chain(&r, 1, [11, 0]), [[11, 0]]);
    }

    #[test]
    fn clear_fills_small_boxes_and_resets_large_ones_fact_by_fact() {
        // A 1000 x 1000 box (15 625 words, a table of 1 000 heads) with two
        // facts: reset fact by fact; a 4 x 4 box (one word, a table of 4
        // heads) with three: filled whole. Both must come back empty.
        let mut large: Rel<2> = Rel::new(&[[true, false]], Some(([0, 0], [1000, 1000])));
        let mut small: Rel<2> = Rel::new(&[[true, false]], Some(([0, 0], [4, 4])));
        for _ in 0..2 {
            for fact in [[3, 999], [998, 0]] {
                assert!(large.insert(fact));
            }
            for fact in [[1, 2], [3, 3], [1, 0]] {
                assert!(small.insert(fact));
            }
            assert_eq!(chain(&small, 0, [1, 0]), [[1, 0], [1, 2]]);
            large.clear();
            small.clear();
            assert!(!large.contains(&[3, 999]) && chain(&large, 0, [998, 0]).is_empty());
            assert!(!small.contains(&[3, 3]) && chain(&small, 0, [1, 0]).is_empty());
        }
    }

    #[test]
    fn hashes_spread_over_the_low_bits() {
        use std::hash::{BuildHasher, BuildHasherDefault};
        // Tuples that differ only in one word: the low 10 bits of their
        // hashes (a table's bucket) must take many values.
        let build = BuildHasherDefault::<IdHasher>::default();
        let mut buckets = HashSet::new();
        for i in 0..1024u32 {
            buckets.insert(build.hash_one([7u32, 1000 + i * 4096]) & 1023);
        }
        assert!(buckets.len() > 500, "{} buckets of 1024", buckets.len());
    }

    #[test]
    fn boxed_range_agrees_with_range() {
        let rows = [[1, 5, 0], [2, 1, 1], [2, 1, 2], [2, 3, 3], [4, 0, 4]];
        // Keys of two columns in the box 1..=4 x 0..=5: slot = (k0-1)*6 + k1.
        let mut offsets = vec![0u32; 4 * 6 + 1];
        for (s, o) in offsets.iter_mut().enumerate() {
            *o = rows
                .iter()
                .position(|r| ((r[0] - 1) * 6 + r[1]) as usize >= s)
                .unwrap_or(rows.len()) as u32;
        }
        for k0 in 0..6 {
            for k1 in 0..7 {
                let key = [k0, k1];
                assert_eq!(
                    boxed_range(&rows, &offsets, &[1, 0], &[4, 6], &key),
                    range(&rows, &key),
                    "{key:?}"
                );
            }
        }
    }

    #[test]
    fn ones_lists_the_set_bits_of_a_range() {
        let words = [0b1011u64 | 1 << 63, 0, 1 << 5 | 1 << 40, u64::MAX];
        let all = |lo, hi| ones(&words, lo, hi).collect::<Vec<u32>>();
        assert_eq!(all(0, 256).len(), 4 + 2 + 64);
        assert_eq!(all(0, 4), [0, 1, 3]);
        assert_eq!(all(1, 3), [1]);
        assert_eq!(all(3, 134), [3, 63, 133]);
        assert_eq!(all(64, 128), Vec::<u32>::new());
        assert_eq!(all(168, 194), [168, 192, 193]);
        assert_eq!(all(169, 194), [192, 193]);
        assert_eq!(all(5, 5), Vec::<u32>::new());
        assert!(any_one(&words, 60, 64) && !any_one(&words, 64, 133) && any_one(&words, 64, 134));
        assert!(!any_one(&words, 9, 9));
    }

    #[test]
    fn rows_are_tested_by_the_fluent_in_a_column() {
        let words = [1u64 << 3, 1 << 6];
        let rows = [[7, 2, 64], [9, 3, 70]];
        assert!(any_held(&rows, 2, &words), "fluent 70 holds");
        assert!(!any_held(&rows[..1], 2, &words), "fluent 64 does not");
        assert!(any_held(&rows, 1, &words), "fluent 3 holds");
        assert!(!any_held::<3>(&[], 0, &words));
        assert_eq!(first_column(&rows, 2), 64);
        assert_eq!(first_column(&rows[1..], 0), 9);
        assert_eq!(first_column::<3>(&[], 2), 0);
    }

    #[test]
    fn box_slots_are_mixed_radix() {
        assert_eq!(box_slot(&[10, 0], &[3, 2], &[10, 0]), Some(0));
        assert_eq!(box_slot(&[10, 0], &[3, 2], &[12, 1]), Some(5));
        assert_eq!(box_slot(&[10, 0], &[3, 2], &[13, 0]), None);
        assert_eq!(box_slot(&[10, 0], &[3, 2], &[9, 0]), None);
    }

    #[test]
    fn fluent_tests_ask_held_and_unheld_bits_up_to_the_end_marker() {
        // Fluents 3 and 70 hold.
        let words = [1u64 << 3, 1u64 << 6];
        assert!(fluent_tests(&words, &[3 << 1, 70 << 1, 4 << 1 | 1]));
        assert!(!fluent_tests(&words, &[3 << 1, 4 << 1]));
        assert!(!fluent_tests(&words, &[70 << 1 | 1]));
        // After the end marker nothing is tested.
        assert!(fluent_tests(&words, &[3 << 1, TESTS_END, 4 << 1]));
        assert!(fluent_tests(&words, &[]));
        assert!(!fluent_tests(&words, &[TESTS_FAIL, TESTS_END]));
    }

    #[test]
    fn a_square_is_read_by_its_coordinates_and_a_key_off_the_board_holds_nothing() {
        // Coordinates 10..12 × 20..22: slot 2 (11, 20) is square 2, slot
        // 1 (10, 21) is off the board.
        let board = [0b1u32, 0, 0b110];
        let squares = [0u32, OFF_BOARD, 2, 1];
        assert_eq!(
            board_cell(&board, &squares[..], &[10, 20], &[2, 2], &[11, 20]),
            0b110
        );
        assert_eq!(
            board_cell(&board, &squares[..], &[10, 20], &[2, 2], &[10, 21]),
            0
        );
        assert_eq!(
            board_cell(&board, &squares[..], &[10, 20], &[2, 2], &[12, 20]),
            0
        );
        assert_eq!(bits(0b110).collect::<Vec<_>>(), vec![1, 2]);
        let masks = [0b1u32, 0b10];
        assert_eq!(content_bit(&masks[..], 7, 8), 0b10);
        assert_eq!(content_bit(&masks[..], 7, 6), 0);
        assert_eq!(content_bit(&masks[..], 7, 9), 0);
    }

    #[test]
    fn a_board_holds_each_squares_contents_and_answers_tests_at_a_square() {
        // Fluents 10..14 are a board's cells: 10 = square 0 content 1,
        // 11 = square 0 content 2, 12 = square 2 content 0, 13 = square 3
        // content 1. Fluents 9, 10, 11 and 13 hold (9 is not the board's).
        let cells = [1, 2, 2 << CONTENT_BITS, 3 << CONTENT_BITS | 1];
        let words = [1u64 << 9 | 1 << 10 | 1 << 11 | 1 << 13];
        let mut board = [0u32; 4];
        fill_board(&mut board, &words, 10, &cells);
        assert_eq!(board, [0b110, 0, 0, 0b10]);
        // Cleared of that state, then filled from one where only 12 holds.
        clear_board(&mut board, &words, 10, &cells);
        assert_eq!(board, [0; 4]);
        fill_board(&mut board, &[1 << 12], 10, &cells);
        assert_eq!(board, [0, 0, 0b1, 0]);
        clear_board(&mut board, &[1 << 12], 10, &cells);
        fill_board(&mut board, &words, 10, &cells);
        // Square 0 holds 1 and 2, not 0; square 1 nothing.
        assert!(board_tests(&board, &[0, 0b110, 0b1]));
        assert!(!board_tests(&board, &[0, 0b10, 0b100]));
        assert!(board_tests(&board, &[1, 0, 0b111]));
        assert!(!board_tests(&board, &[1, 0b1, 0]));
        assert!(!board_tests(&board, &[3, !0, !0]));
    }

    #[test]
    fn a_frame_copy_keeps_what_the_next_state_holds_and_drops_the_excluded() {
        // From holds 1, 5, 64, 70 and 130; the copy is of 3..=129.
        let from = [1u64 << 1 | 1 << 5, 1 << 0 | 1 << 6, 1 << 2];
        // 70 is excluded but another rule already derived it; 5 is
        // excluded; 64 is excluded in a second list, after the end marker
        // of which 1 is not.
        let mut to = [0u64, 1 << 6, 0];
        copy_fluents_except(&from, &mut to, 3, 130, &[&[5, 70], &[64, TESTS_END, 1]]);
        assert_eq!(to, [0, 1 << 6, 0]);
        let mut to = [0u64; 3];
        copy_fluents_except(&from, &mut to, 3, 131, &[]);
        assert_eq!(to, [1 << 5, 1 << 0 | 1 << 6, 1 << 2]);
        let mut to = [0u64; 3];
        copy_fluents_except(&from, &mut to, 6, 6, &[]);
        assert_eq!(to, [0; 3]);
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
