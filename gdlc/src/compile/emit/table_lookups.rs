//! The constant tables the relational rules' code reads besides the plans'
//! tables, and the lookups into them: a compound term's row found by its
//! key (a slot of an exact box, a direct index, or a binary search), the
//! direct indexes and membership bitsets made for that, and the tables
//! that take compound terms apart.

use crate::compile::analyse::boards::Boards;
use crate::compile::analyse::domains::Domains;
use crate::compile::demand::rays::{self, RayTable};
use crate::compile::emit::arrays::Arrays;
use crate::compile::emit::skeleton::lit;
use crate::compile::program::{Pat, Program, RelId};
use crate::compile::relational::plan::{key_box, Membership, RulePlan, Table, Tables, Walk};
use crate::ir::terms::{SymId, TermData, TermId};
use gdl_runtime::support::box_slot;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{format_ident, quote};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// Most slots of a direct index.
pub const MAX_OFFSETS: usize = 1 << 16;

/// What the rules' code refers to besides the plans' tables, collected
/// while it is generated and emitted after.
pub struct Registered {
    /// Per relation, the bound positions of each index its scans use.
    pub indexes: Vec<Vec<Vec<bool>>>,
    /// The direct indexes of tables made so far (name, offsets).
    offset_tables: Vec<(Ident, Vec<u32>)>,
    /// The membership bitsets of tables made so far (table, key columns,
    /// bitset).
    membership_tables: Vec<(usize, usize, Membership)>,
    /// The tables of [`TableLookups::pattern_table`] made so far, by pattern
    /// (variables numbered in order of first occurrence), domain and row
    /// order: the many legal rules of a game often take apart the same
    /// moves.
    pattern_tables: FxHashMap<(Pat, PatternDomain, bool), usize>,
    /// The ray tables of the walks' steps found so far, by step relation
    /// and direction, with their index among the constant tables.
    ray_tables: FxHashMap<(RelId, bool), Option<(RayTable, usize)>>,
    /// The boards the plans read a square of.
    pub plan_boards: BTreeSet<usize>,
}

impl Registered {
    /// Nothing registered yet, for `relations` relations.
    pub fn new(relations: usize) -> Self {
        Registered {
            indexes: vec![Vec::new(); relations],
            offset_tables: Vec::new(),
            membership_tables: Vec::new(),
            pattern_tables: FxHashMap::default(),
            ray_tables: FxHashMap::default(),
            plan_boards: BTreeSet::new(),
        }
    }

    /// The constant tables that are walks' ray tables.
    pub fn ray_table_indexes(&self) -> Vec<usize> {
        let tables = self.ray_tables.values().flatten().map(|&(_, t)| t);
        tables.collect()
    }

    /// The boards the ray tables' tests and the plans read, in order.
    pub fn boards_read(&self) -> BTreeSet<usize> {
        let sections = (self.ray_tables.values().flatten()).flat_map(|(ray, _)| &ray.sections);
        let mut read: BTreeSet<usize> = sections.filter_map(|s| s.board).collect();
        read.extend(&self.plan_boards);
        read
    }

    /// The direct indexes and membership bitsets the rules use, as statics.
    pub fn index_items(&self, arrays: &mut Arrays) -> Vec<TokenStream> {
        let mut items: Vec<TokenStream> = self
            .offset_tables
            .iter()
            .map(|(name, offsets)| {
                let n = Literal::usize_unsuffixed(offsets.len());
                arrays.static_ints(name, &quote! { #n }, offsets.iter().copied())
            })
            .collect();
        items.extend(self.membership_tables.iter().map(|(table, k, m)| {
            let (bits, ranks) = (format_ident!("M{table}_{k}"), format_ident!("R{table}_{k}"));
            let (n_bits, n_ranks) = (
                Literal::usize_unsuffixed(m.bits.len()),
                Literal::usize_unsuffixed(m.ranks.len()),
            );
            let bit_words = arrays.static_ints(&bits, &quote! { #n_bits }, m.bits.iter().copied());
            let rank_values =
                arrays.static_ints(&ranks, &quote! { #n_ranks }, m.ranks.iter().copied());
            quote! {
                #bit_words
                #rank_values
            }
        }));
        items
    }
}

/// The plans' constant tables and what the rules' code registered besides
/// them, with the lookups that add to both.
pub struct TableLookups<'a> {
    /// The constant tables (the plans' and those added here).
    pub tables: &'a mut Tables,
    /// The indexes, direct indexes, membership bitsets and pattern tables
    /// made so far.
    pub registered: &'a mut Registered,
}

impl TableLookups<'_> {
    /// An expression: the first row of table `table` whose first columns
    /// are `keys` (an `Option`): the row at the keys' slot when the rows
    /// are exactly the slots of the keys' box, else found through a direct
    /// index when that box has at most about four times as many slots as
    /// the table has rows (so the index adds at most about as much to the
    /// generated source as the table, and a term looked up per legal move
    /// is found without a search), else by binary search among the rows
    /// of the longest prefix of the keys that has such an index (a game's
    /// moves by their first coordinates, a few rows each), or among all
    /// rows.
    pub fn first_row(&mut self, table: usize, keys: &[TokenStream]) -> TokenStream {
        let name = format_ident!("T{table}");
        if let Some((mins, spans)) = self.exact_box(table, keys.len()) {
            // Row `i` is the key at slot `i` of the box: no index needed.
            let mins = mins.iter().map(|&m| lit(m));
            let spans = spans.iter().map(|&m| lit(m));
            return quote! { box_slot(&[#(#mins),*], &[#(#spans),*], &[#(#keys),*]).map(|s| &#name[s]) };
        }
        let max = (4 * self.tables.tables[table].rows.len() + 64).min(MAX_OFFSETS);
        // The rows of the longest prefix of the keys (all of them first)
        // that has a direct index; searched for the whole key when shorter.
        for k in (1..=keys.len()).rev() {
            if let Some((offsets, mins, spans)) = self.offsets(table, k, max) {
                let mins = mins.iter().map(|&m| lit(m));
                let spans = spans.iter().map(|&m| lit(m));
                let prefix = &keys[..k];
                let rows = quote! { boxed_range(&#name, &#offsets, &[#(#mins),*], &[#(#spans),*], &[#(#prefix),*]) };
                return if k == keys.len() {
                    quote! { #rows.first() }
                } else {
                    quote! { find(#rows, &[#(#keys),*]) }
                };
            }
        }
        quote! { find(&#name, &[#(#keys),*]) }
    }

    /// The box of the first `k` columns of table `table` (smallest values
    /// and spans) when its rows are exactly the box's slots in order, one
    /// each: then the row of a key is its slot.
    fn exact_box(&self, table: usize, k: usize) -> Option<(Vec<u32>, Vec<u32>)> {
        let rows = &self.tables.tables[table].rows;
        let (mins, spans, volume) = key_box(rows, k)?;
        let slot = |row: &[u32]| box_slot(&mins, &spans, &row[..k]);
        let exact =
            volume == rows.len() && rows.iter().enumerate().all(|(i, r)| slot(r) == Some(i));
        exact.then_some((mins, spans))
    }

    /// A direct index of table `table` by its first `k` columns, when they
    /// span a box of at most `max` slots: the static offsets array's name,
    /// the box's smallest values and spans.
    pub fn offsets(
        &mut self,
        table: usize,
        k: usize,
        max: usize,
    ) -> Option<(Ident, Vec<u32>, Vec<u32>)> {
        let rows = &self.tables.tables[table].rows;
        let (mins, spans, volume) = key_box(rows, k).filter(|&(_, _, v)| v <= max)?;
        let name = format_ident!("O{table}_{k}");
        if !self
            .registered
            .offset_tables
            .iter()
            .any(|(n, _)| *n == name)
        {
            let slot = |row: &[u32]| box_slot(&mins, &spans, &row[..k]).expect("in the box");
            let mut offsets = Vec::with_capacity(volume + 1);
            let mut r = 0usize;
            for s in 0..=volume {
                while r < rows.len() && slot(&rows[r]) < s {
                    r += 1;
                }
                offsets.push(r as u32);
            }
            self.registered.offset_tables.push((name.clone(), offsets));
        }
        Some((name, mins, spans))
    }

    /// The membership bitset of table `table` by its first `k` columns
    /// ([`Tables::membership`]), registered to be emitted as `M<table>_<k>`
    /// (bits) and `R<table>_<k>` (ranks).
    pub fn membership(&mut self, table: usize, k: usize) -> Option<&Membership> {
        let at = match self
            .registered
            .membership_tables
            .iter()
            .position(|&(t, n, _)| (t, n) == (table, k))
        {
            Some(at) => at,
            None => {
                let m = self.tables.membership(table, k)?;
                self.registered.membership_tables.push((table, k, m));
                self.registered.membership_tables.len() - 1
            }
        };
        Some(&self.registered.membership_tables[at].2)
    }

    /// A table relating the terms of `domain` that match `pat` to the values
    /// of its variables: rows `[id, vars...]` when `by_id`, else `[vars..., id]`.
    pub fn pattern_table(
        &mut self,
        program: &Program,
        domains: &Domains,
        plan: &RulePlan,
        pat: &Pat,
        domain: PatternDomain,
        by_id: bool,
    ) -> usize {
        let mut order = Vec::new();
        let key = (renumbered(pat, &mut order), domain, by_id);
        if let Some(&table) = self.registered.pattern_tables.get(&key) {
            return table;
        }
        let vars = pat.vars();
        let nvars = program.rules[plan.rule].vars.len();
        let mut rows = Vec::new();
        let mut binding = vec![None; nvars];
        let all: Vec<TermId>;
        let terms = match domain {
            PatternDomain::Arg(rel, pos) => &domains.args[rel][pos],
            PatternDomain::All => {
                all = (0..program.store.len() as TermId).collect();
                &all
            }
        };
        for &t in terms {
            binding.iter_mut().for_each(|b| *b = None);
            if crate::compile::program::matches(&program.store, pat, t, &mut binding) {
                let values = vars
                    .iter()
                    .map(|&v| domains.id(binding[v].expect("matched variables are bound")));
                let id = domains.id(t);
                rows.push(if by_id {
                    std::iter::once(id).chain(values).collect()
                } else {
                    values.chain(std::iter::once(id)).collect()
                });
            }
        }
        let table = self.tables.add(Table {
            columns: vars.len() + 1,
            rows,
            fluent_key: None,
        });
        self.registered.pattern_tables.insert(key, table);
        table
    }
}

impl TableLookups<'_> {
    /// The ray table of `walk`'s steps in a direction
    /// ([`crate::compile::demand::rays`]), if it has one, and its index
    /// among the constant tables.
    pub fn ray_table(
        &mut self,
        program: &Program,
        domains: &Domains,
        boards: &Boards,
        walk: &Walk,
        forward: bool,
    ) -> Option<(RayTable, usize)> {
        let found = (self.registered.ray_tables)
            .entry((walk.step, forward))
            .or_insert_with(|| {
                let ray = rays::ray_table(program, domains, boards, walk, forward)?;
                let table = self.tables.add(Table {
                    columns: ray.width(),
                    rows: ray.rows.clone(),
                    fluent_key: None,
                });
                Some((ray, table))
            });
        found.clone()
    }

    /// The table of every compile-time term `(sym` with `arity`
    /// arguments`)`: rows `[id, args...]` when `by_id`, else `[args...,
    /// id]` — where a term built at run time is first looked for (see
    /// `gdl_runtime::support::OpenTerms`).
    pub fn shape_table(
        &mut self,
        program: &Program,
        domains: &Domains,
        sym: SymId,
        arity: usize,
        by_id: bool,
    ) -> usize {
        let shape = Pat::Func(sym, (0..arity).map(Pat::Var).collect());
        let key = (shape, PatternDomain::All, by_id);
        if let Some(&table) = self.registered.pattern_tables.get(&key) {
            return table;
        }
        let rows = (0..program.store.len() as TermId)
            .filter_map(|t| match program.store.data(t) {
                TermData::Func(s, args) if *s == sym && args.len() == arity => {
                    let args = args.iter().map(|&a| domains.id(a));
                    let id = domains.id(t);
                    Some(match by_id {
                        true => std::iter::once(id).chain(args).collect(),
                        false => args.chain(std::iter::once(id)).collect(),
                    })
                }
                _ => None,
            })
            .collect();
        let table = self.tables.add(Table {
            columns: arity + 1,
            rows,
            fluent_key: None,
        });
        self.registered.pattern_tables.insert(key, table);
        table
    }
}

/// The terms a table of [`TableLookups::pattern_table`] takes apart.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub enum PatternDomain {
    /// The domain of an argument of a relation.
    Arg(RelId, usize),
    /// Every term.
    All,
}

/// `pat` with its variables numbered in order of first occurrence
/// (`order` lists the original numbers), so that patterns that differ
/// only in their variables' numbers are equal.
pub fn renumbered(pat: &Pat, order: &mut Vec<usize>) -> Pat {
    match pat {
        Pat::Ground(t) => Pat::Ground(*t),
        Pat::Var(v) => Pat::Var(match order.iter().position(|w| w == v) {
            Some(k) => k,
            None => {
                order.push(*v);
                order.len() - 1
            }
        }),
        Pat::Func(f, args) => Pat::Func(*f, args.iter().map(|a| renumbered(a, order)).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::renumbered;
    use crate::compile::program::Pat;
    use crate::compile::{generated_code, Strategy};

    /// Patterns that differ only in their variables' numbers share one
    /// table of their terms; a repeated variable is part of the shape.
    #[test]
    fn patterns_are_keyed_by_the_order_their_variables_first_occur() {
        let f = |vars: [usize; 3]| Pat::Func(7, vars.iter().map(|&v| Pat::Var(v)).collect());
        let key = |p: &Pat| renumbered(p, &mut Vec::new());
        assert_eq!(key(&f([4, 9, 4])), key(&f([0, 1, 0])));
        assert_eq!(key(&f([4, 9, 4])), f([0, 1, 0]));
        assert_ne!(key(&f([4, 9, 4])), key(&f([4, 9, 9])));
        assert_ne!(key(&f([4, 9, 2])), key(&f([4, 9, 4])));
    }

    /// The relational code of a game whose moves `(go ?x ?y)` follow the
    /// `adj` facts among `facts`, from `(at 1)` until `(at end)`.
    fn moves_code(end: u32, facts: &str) -> String {
        let text = format!(
            "(role a) (init (at 1))
            (<= (legal a (go ?x ?y)) (true (at ?x)) (adj ?x ?y))
            (<= (next (at ?y)) (does a (go ?x ?y)))
            (goal a 100) (<= terminal (true (at {end}))){facts}"
        );
        generated_code(&text, Strategy::Relational)
    }

    /// A legal move `(go ?x ?y)` is looked up by the ids of `?x` and `?y`
    /// in the table of the moves: 34 moves in a box of 12 × 12 keys, which
    /// a direct index of 145 offsets serves (no binary search per move).
    #[test]
    fn a_term_is_found_through_a_direct_index_of_up_to_four_slots_per_row() {
        let mut facts = String::new();
        for x in 1..=12u32 {
            for y in 1..=12 {
                if x.abs_diff(y) <= 1 {
                    facts += &format!(" (adj {x} {y})");
                }
            }
        }
        let code = moves_code(12, &facts);
        assert!(code.contains("boxed_range("), "{code}");
        assert!(!code.contains("find(&"), "{code}");
    }

    /// A term whose key box is too large for a direct index is searched for
    /// among the rows of the longest prefix of its key that has one: the 24
    /// moves `(go x y)`, `y` 100 or 200 above `x`, span at least 12 × 24
    /// keys, more than a direct index gets (4 × 24 + 64 slots), but their
    /// first coordinates only 12.
    #[test]
    fn a_term_is_searched_for_among_the_rows_of_an_indexed_prefix() {
        let mut facts = String::new();
        for x in 1..=12u32 {
            facts += &format!(
                " (init (at {x})) (adj {x} {}) (adj {x} {})",
                x + 100,
                x + 200
            );
        }
        let code = moves_code(0, &facts);
        let compact: String = code.split_whitespace().collect();
        assert!(compact.contains("find(boxed_range(&T"), "{code}");
        assert!(!code.contains("find(&"), "{code}");
    }
}
