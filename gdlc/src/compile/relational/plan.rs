//! Stage 6, plans: each rule becomes a filter tree (thesis 7.2.4), a
//! sequence of steps run as nested loops. Queries are ordered so that the
//! cheapest one given the variables bound so far comes next (bound
//! arguments first, then the most selective relation); `not`, `distinct`
//! and fully bound queries are placed as soon as their variables are bound;
//! once the head is fully bound the rest of the body only looks for a
//! first witness.
//!
//! Literals over static relations and over `true` are answered from
//! compile-time tables: the rows of the facts (or of the possible fluents)
//! that match the literal's pattern, projected on its variables and sorted
//! with the bound variables first, so that the runtime finds the matching
//! rows by binary search and never takes a term apart.

use crate::compile::analyse::domains::Domains;
use crate::compile::program::{matches, Atom, Class, Lit, Pat, Program};
use crate::ir::terms::{SymId, TermId};
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

/// One step of a rule's filter tree.
#[derive(Clone, Debug)]
pub enum Step {
    /// Rows of constant table `table` whose first columns equal the bound
    /// variables `key`; the next columns bind `bind`; with `fluent`, the
    /// last column is a fluent that must hold in the state. With `negated`,
    /// the step passes when no such row exists (then `bind` is empty).
    Table {
        /// The table.
        table: usize,
        /// Variables compared with the first columns.
        key: Vec<usize>,
        /// Variables bound by the following columns.
        bind: Vec<usize>,
        /// Whether the last column is a fluent to test in the state.
        fluent: bool,
        /// Whether the literal is negated.
        negated: bool,
        /// For a fluent table, the pattern of the fluent (whose id is the
        /// last column).
        term: Option<Pat>,
    },
    /// A fluent that must (or must not) hold, known at compile time.
    Fluent {
        /// The runtime id of the fluent.
        id: u32,
        /// Whether the literal is negated.
        negated: bool,
    },
    /// Every fact of a dynamic relation matching the atom (some variables free).
    Scan(Atom),
    /// A fully bound atom of a dynamic relation that must (not) hold.
    Member {
        /// The atom.
        atom: Atom,
        /// Whether the literal is negated.
        negated: bool,
    },
    /// The terms differ.
    Distinct(Pat, Pat),
    /// The terms are equal.
    Same(Pat, Pat),
}

impl Step {
    /// Whether the step loops over candidates (rather than filtering).
    pub fn is_loop(&self) -> bool {
        match self {
            Step::Table { negated, bind, .. } => !negated && !bind.is_empty(),
            Step::Scan(_) => true,
            _ => false,
        }
    }
}

/// The argument order to number the fluents of a symbol by, per symbol
/// (and arity) whose loops over `true` would walk the state with another
/// order: the positions that most of its looping `true` steps know
/// (bound or constant) first, then the others. Fluents are numbered by
/// their arguments' ids in this order (see `analyse::term_ids::term_order`), so the
/// rows of such a step are the fluents of an id range: checkers' and
/// skirmish's `(true (cell ?x ?y ?piece))` with the piece bound walk the
/// few cells that hold that piece instead of testing all 64.
pub fn fluent_orders(plans: &[RulePlan]) -> FxHashMap<(SymId, usize), Vec<usize>> {
    let mut counts: FxHashMap<(SymId, usize), FxHashMap<Vec<usize>, usize>> = FxHashMap::default();
    for step in plans.iter().flat_map(|p| &p.steps) {
        let Step::Table {
            key,
            bind,
            fluent: true,
            negated: false,
            term: Some(Pat::Func(symbol, args)),
            ..
        } = step
        else {
            continue;
        };
        if bind.is_empty() {
            continue;
        }
        let known: Vec<usize> = (0..args.len())
            .filter(|&p| args[p].vars().iter().all(|v| key.contains(v)))
            .collect();
        if !known.is_empty() && known.len() < args.len() {
            *counts
                .entry((*symbol, args.len()))
                .or_default()
                .entry(known)
                .or_default() += 1;
        }
    }
    counts
        .into_iter()
        .filter_map(|((symbol, arity), shapes)| {
            // The most frequent shape (the smallest positions on a tie).
            let (first, _) = shapes
                .into_iter()
                .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))?;
            if first.iter().enumerate().all(|(i, &p)| i == p) {
                return None;
            }
            let mut order = first.clone();
            order.extend((0..arity).filter(|p| !first.contains(p)));
            Some(((symbol, arity), order))
        })
        .collect()
}

/// The plan of one rule.
pub struct RulePlan {
    /// Index into [`Program::rules`].
    pub rule: usize,
    /// The steps, outermost first.
    pub steps: Vec<Step>,
    /// The number of leading steps after which every head variable is bound.
    pub head_bound_after: usize,
}

/// What the planner knows of each literal of each rule, found once for
/// every planning (renumbering the fluents changes the runtime ids of the
/// matches, not the matches): what a literal over a static relation or
/// `true` matches (the facts, or the possible fluents), and the statistics
/// of each positive literal.
pub struct Literals(Vec<Vec<(Option<Matched>, Option<Stats>)>>);

/// The matches of one literal.
struct Matched {
    /// The literal's variables ([`Atom::vars`]).
    vars: Vec<usize>,
    /// Per match, the values of `vars`, then for `true` the fluent.
    values: Vec<TermId>,
    /// Values per match: `vars`, and the fluent for `true`.
    stride: usize,
    /// The number of matches.
    count: usize,
}

impl Matched {
    /// The matches, each its values of `vars` (then the fluent).
    fn rows(&self) -> impl Iterator<Item = &[TermId]> {
        (0..self.count).map(|i| &self.values[i * self.stride..(i + 1) * self.stride])
    }
}

impl Literals {
    /// Matches every literal of `program`'s rules over a static relation
    /// or `true`, and estimates each positive literal.
    pub fn new(program: &Program, domains: &Domains) -> Literals {
        let by_rule = program
            .rules
            .iter()
            .map(|rule| {
                let nvars = rule.vars.len();
                let matched = rule.body.iter().map(|lit| {
                    let (Lit::Pos(atom) | Lit::Neg(atom)) = lit else {
                        return None;
                    };
                    let is_true = atom.rel == program.true_rel;
                    if program.class[atom.rel] != Class::Static && !is_true {
                        return None;
                    }
                    let vars = atom.vars();
                    let mut values = Vec::new();
                    let mut count = 0;
                    let mut binding: Vec<Option<TermId>> = vec![None; nvars];
                    let mut add = |binding: &[Option<TermId>], fluent: Option<TermId>| {
                        values.extend(
                            vars.iter()
                                .map(|&v| binding[v].expect("matched variables are bound")),
                        );
                        values.extend(fluent);
                        count += 1;
                    };
                    if is_true {
                        for &f in &domains.args[program.true_rel][0] {
                            binding.iter_mut().for_each(|b| *b = None);
                            if matches(&program.store, &atom.args[0], f, &mut binding) {
                                add(&binding, Some(f));
                            }
                        }
                    } else {
                        for fact in &program.facts[atom.rel] {
                            binding.iter_mut().for_each(|b| *b = None);
                            if atom
                                .args
                                .iter()
                                .zip(fact)
                                .all(|(p, &t)| matches(&program.store, p, t, &mut binding))
                            {
                                add(&binding, None);
                            }
                        }
                    }
                    Some(Matched {
                        stride: vars.len() + usize::from(is_true),
                        vars,
                        values,
                        count,
                    })
                });
                rule.body
                    .iter()
                    .zip(matched)
                    .map(|(l, m)| {
                        // A frame literal: `true` of the fluent the `next` head keeps.
                        let frame = matches!(l, Lit::Pos(a) if a.rel == program.true_rel
                            && program.answers[1].contains(&rule.head.rel)
                            && a.args.first() == rule.head.args.first());
                        let stats = stats(program, domains, l, m.as_ref(), nvars, frame);
                        (m, stats)
                    })
                    .collect()
            })
            .collect();
        Literals(by_rule)
    }
}

/// Plans every rule of `program`; rules that can never fire (a positive
/// literal no fact or possible fluent matches) get no plan. Without
/// `tables` no table is built (the steps' table indexes mean nothing):
/// the plans serve only to find the fluent orders ([`fluent_orders`]).
pub fn plan_rules(
    program: &Program,
    domains: &Domains,
    literals: &Literals,
    mut tables: Option<&mut Tables>,
) -> Vec<RulePlan> {
    let component = program.graph.component_of();
    (0..program.rules.len())
        .filter_map(|index| {
            plan_rule(
                program,
                domains,
                literals,
                tables.as_deref_mut(),
                &component,
                index,
            )
        })
        .collect()
}

/// The plan of rule `index` of `program`, or `None` when it can never fire:
/// filters as soon as their variables are bound, then the cheapest positive
/// literal next. `component` is each relation's component.
fn plan_rule(
    program: &Program,
    domains: &Domains,
    literals: &Literals,
    mut tables: Option<&mut Tables>,
    component: &[usize],
    index: usize,
) -> Option<RulePlan> {
    let rule = &program.rules[index];
    // A literal of its head's component drives the semi-naive rounds when
    // scanned (only the facts new in the last round), while tested it makes
    // the rule run in full every round; so while the rule has answers to
    // enumerate, such a literal counts a quarter of its estimate.
    let recursive = |lit: &Lit| match lit {
        Lit::Pos(a) => component
            .get(a.rel)
            .is_some_and(|c| Some(c) == component.get(rule.head.rel)),
        _ => false,
    };
    let nvars = rule.vars.len();
    let mut bound = vec![false; nvars];
    let mut pending: Vec<Pending> = rule
        .body
        .iter()
        .zip(&literals.0[index])
        .map(|(l, (m, s))| (l, s.as_ref(), m.as_ref()))
        .collect();
    let mut steps = Vec::new();
    let head_vars = rule.head.vars();
    let mut head_bound_after = if head_vars.is_empty() { 0 } else { usize::MAX };
    loop {
        // Filters whose variables are all bound go first.
        for (lit, _, m) in take_ready(&mut pending, &bound) {
            match lower(program, domains, tables.as_deref_mut(), lit, m, &bound, &[]) {
                Lowered::Step(s) => steps.push(s),
                Lowered::Always => {}
                Lowered::Never => return None,
            }
        }
        if head_bound_after == usize::MAX && head_vars.iter().all(|&v| bound[v]) {
            head_bound_after = steps.len();
        }
        if pending.is_empty() {
            break;
        }
        // The cheapest positive literal next.
        let answers_left = head_vars.iter().any(|&v| !bound[v]);
        let i = cheapest(&pending, &bound, |l| answers_left && recursive(l));
        let (lit, _, m) = pending.remove(i);
        // Variables no other literal nor the head mentions are projected out.
        let elsewhere: Vec<usize> = lit
            .vars()
            .into_iter()
            .filter(|&v| occurrences(rule, v) > lit_occurrences(lit, v))
            .collect();
        match lower(
            program,
            domains,
            tables.as_deref_mut(),
            lit,
            m,
            &bound,
            &elsewhere,
        ) {
            Lowered::Step(s) => steps.push(s),
            Lowered::Always => {}
            Lowered::Never => return None,
        }
        for v in lit.vars() {
            bound[v] = true;
        }
    }
    if head_bound_after == usize::MAX {
        head_bound_after = steps.len();
    }
    Some(RulePlan {
        rule: index,
        steps,
        head_bound_after,
    })
}

/// A literal of a rule still to plan, with its estimate and matches.
type Pending<'a> = (&'a Lit, Option<&'a Stats>, Option<&'a Matched>);

/// Takes out of `pending` the literals whose variables are all `bound`,
/// in their order.
fn take_ready<'a>(pending: &mut Vec<Pending<'a>>, bound: &[bool]) -> Vec<Pending<'a>> {
    let ready = |(lit, _, _): &Pending| lit.vars().iter().all(|&v| bound[v]);
    let (now, later) = pending.drain(..).partition(ready);
    *pending = later;
    now
}

/// The index in `pending` of the positive literal cheapest to evaluate
/// next given the variables `bound`; one that `drives` the semi-naive
/// rounds counts a quarter of its estimate.
fn cheapest(pending: &[Pending], bound: &[bool], drives: impl Fn(&Lit) -> bool) -> usize {
    let best = pending
        .iter()
        .enumerate()
        .filter_map(|(i, (l, s, _))| {
            let n = estimate((*s)?, l, bound);
            Some((if drives(l) { n / 4.0 } else { n }, i))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, i)| i);
    let Some(i) = best else {
        // Only filters with unbound variables remain: unsafe rules are
        // rejected by the checks, so this cannot happen.
        unreachable!("checked rules are safe")
    };
    i
}

/// A literal lowered to a step, or decided at compile time.
enum Lowered {
    Step(Step),
    Always,
    Never,
}

/// Occurrences of variable `v` in a rule's head and body.
pub(super) fn occurrences(rule: &crate::compile::program::Rule, v: usize) -> usize {
    let mut n = 0;
    for a in &rule.head.args {
        a.for_each_var(&mut |w| n += usize::from(w == v));
    }
    n + rule
        .body
        .iter()
        .map(|l| lit_occurrences(l, v))
        .sum::<usize>()
}

/// Occurrences of variable `v` in a literal.
fn lit_occurrences(lit: &Lit, v: usize) -> usize {
    let mut n = 0;
    let mut count = |p: &Pat| p.for_each_var(&mut |w| n += usize::from(w == v));
    match lit {
        Lit::Pos(a) | Lit::Neg(a) => a.args.iter().for_each(&mut count),
        Lit::Distinct(x, y) | Lit::Same(x, y) => {
            count(x);
            count(y);
        }
    }
    n
}

/// The step of a literal given the variables bound before it (`matched`:
/// its matches, for a literal over a static relation or `true`); of its
/// free variables, only those in `keep` are bound by the step (the others
/// are mentioned nowhere else). Without `tables`, a table step gets no
/// table.
fn lower(
    program: &Program,
    domains: &Domains,
    tables: Option<&mut Tables>,
    lit: &Lit,
    matched: Option<&Matched>,
    bound: &[bool],
    keep: &[usize],
) -> Lowered {
    let (atom, negated) = match lit {
        Lit::Pos(a) => (a, false),
        Lit::Neg(a) => (a, true),
        Lit::Distinct(x, y) => return Lowered::Step(Step::Distinct(x.clone(), y.clone())),
        Lit::Same(x, y) => return Lowered::Step(Step::Same(x.clone(), y.clone())),
    };
    let is_true = atom.rel == program.true_rel;
    let Some(matched) = matched else {
        let all_bound = atom.vars().iter().all(|&v| bound[v]);
        return Lowered::Step(if all_bound {
            Step::Member {
                atom: atom.clone(),
                negated,
            }
        } else {
            Step::Scan(atom.clone())
        });
    };
    let vars = &matched.vars;
    if matched.count == 0 {
        return if negated {
            Lowered::Always
        } else {
            Lowered::Never
        };
    }
    if is_true {
        if let (Pat::Ground(f), 1) = (&atom.args[0], matched.count) {
            return Lowered::Step(Step::Fluent {
                id: domains.id(*f),
                negated,
            });
        }
    } else if vars.is_empty() {
        return if negated {
            Lowered::Never
        } else {
            Lowered::Always
        };
    }
    let key: Vec<usize> = vars.iter().copied().filter(|&v| bound[v]).collect();
    let mut bind: Vec<usize> = vars
        .iter()
        .copied()
        .filter(|&v| !bound[v] && keep.contains(&v))
        .collect();
    // A fluent's variables in the order its symbol's fluents are numbered
    // by, so that the rows of a key come by increasing fluent id.
    if let (true, Pat::Func(symbol, args)) = (is_true, &atom.args[0]) {
        if let Some(positions) = domains.fluent_orders.get(&(*symbol, args.len())) {
            let rank = |v: usize| positions.iter().position(|&p| args[p].vars().contains(&v));
            bind.sort_by_key(|&v| rank(v));
        }
    }
    let table = match tables {
        Some(tables) => {
            // The columns: the matches' values of the key, then of `bind`,
            // then the fluent.
            let columns: Vec<usize> = key
                .iter()
                .chain(&bind)
                .map(|v| {
                    vars.iter()
                        .position(|w| w == v)
                        .expect("a literal's variable")
                })
                .chain(is_true.then_some(vars.len()))
                .collect();
            let rows = matched
                .rows()
                .map(|m| columns.iter().map(|&c| domains.id(m[c])).collect())
                .collect();
            tables.add(Table {
                columns: columns.len(),
                rows,
                fluent_key: (is_true && !bind.is_empty()).then_some(key.len()),
            })
        }
        None => usize::MAX,
    };
    Lowered::Step(Step::Table {
        table,
        key,
        bind,
        fluent: is_true,
        negated,
        term: is_true.then(|| atom.args[0].clone()),
    })
}

/// What the planner knows of a positive literal's matches: how many there
/// are when nothing is bound, and how many distinct values each variable
/// takes among them.
struct Stats {
    rows: f64,
    distinct: Vec<f64>,
}

/// The statistics of a positive literal (`None` for the other literals),
/// from its matches (`matched`) when it is over a static relation or
/// `true`.
fn stats(
    program: &Program,
    domains: &Domains,
    lit: &Lit,
    matched: Option<&Matched>,
    nvars: usize,
    frame: bool,
) -> Option<Stats> {
    let Lit::Pos(atom) = lit else { return None };
    let vars = atom.vars();
    let mut distinct = vec![1.0; nvars];
    // The number of matches, and of distinct values of each variable.
    let from_matches = |m: &Matched, distinct: &mut Vec<f64>| {
        for (k, &v) in m.vars.iter().enumerate() {
            let mut values: Vec<TermId> = m.rows().map(|row| row[k]).collect();
            values.sort_unstable();
            values.dedup();
            distinct[v] = values.len().max(1) as f64;
        }
        m.count as f64
    };
    let rows = if let (Some(m), false) = (matched, atom.rel == program.true_rel) {
        from_matches(m, &mut distinct)
    } else if let Some(m) = matched {
        let candidates = from_matches(m, &mut distinct);
        // About one candidate in four holds in a state; a frame literal
        // as many as hold in the initial state, if fewer (the pieces on a
        // board), but no fewer than one candidate in sixteen.
        if frame {
            let mut binding = vec![None; nvars];
            let initially = program
                .init
                .iter()
                .filter(|&&f| {
                    binding.iter_mut().for_each(|b| *b = None);
                    matches(&program.store, &atom.args[0], f, &mut binding)
                })
                .count() as f64;
            (candidates / 4.0).min(initially.max(candidates / 16.0))
        } else {
            candidates / 4.0
        }
    } else if atom.rel == program.does_rel {
        // One move per role.
        for &v in &vars {
            distinct[v] = program.roles.len().max(1) as f64;
        }
        program.roles.len().max(1) as f64
    } else {
        let product: f64 = (0..atom.args.len())
            .map(|i| domains.args[atom.rel][i].len().max(1) as f64)
            .product();
        let rows = domains.rows[atom.rel].map_or(product, |n| n as f64);
        for (i, arg) in atom.args.iter().enumerate() {
            for v in arg.vars() {
                distinct[v] = (domains.args[atom.rel][i].len().max(1) as f64).min(rows.max(1.0));
            }
        }
        // Enumerating a derived relation costs more than a table.
        rows * 2.0
    };
    Some(Stats {
        rows: rows.max(1.0),
        distinct,
    })
}

/// Estimated number of candidates a positive literal yields given the
/// bound variables: the fewer, the earlier it goes.
fn estimate(stats: &Stats, lit: &Lit, bound: &[bool]) -> f64 {
    let vars = lit.vars();
    if vars.iter().all(|&v| bound[v]) {
        return 0.5;
    }
    let mut n = stats.rows;
    for v in vars {
        if bound[v] {
            n /= stats.distinct[v];
        }
    }
    n.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::Step;
    use crate::compile::{analyze_with, Strategy};

    #[test]
    fn filters_follow_the_literal_that_binds_them_and_static_literals_become_tables() {
        let text = "(role a) (init (c 1)) (init (c 2)) (ok 1)
            (<= (next (c ?x)) (true (c ?x)) (not (bad ?x)) (ok ?x))
            (<= (bad ?x) (true (c ?x)) (true (c 2)))
            (<= (legal a go) (true (c 1)))
            (<= terminal (true (c 3))) (goal a 100)";
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        let c = analyze_with(&loaded, Strategy::Relational).expect("compiles");
        let next = c
            .relational()
            .unwrap()
            .plans
            .iter()
            .find(|p| c.program.rules[p.rule].text.starts_with("(<= (next"))
            .expect("the next rule is planned");
        // true (c ?x) binds ?x; then `ok ?x` (a fully bound static literal:
        // a table check) and `not (bad ?x)` (a member test) as filters.
        assert!(
            matches!(&next.steps[0], Step::Table { fluent: true, negated: false, bind, .. } if bind.len() == 1)
        );
        assert_eq!(next.steps.len(), 3);
        assert!(next.steps[1..].iter().all(|s| !s.is_loop()));
        assert!(next.steps[1..]
            .iter()
            .any(|s| matches!(s, Step::Member { negated: true, .. })));
        assert!(next.steps[1..].iter().any(|s| matches!(
            s,
            Step::Table {
                fluent: false,
                negated: false,
                ..
            }
        )));
    }

    #[test]
    fn a_frame_literal_is_estimated_at_the_fluents_that_hold_initially() {
        // Two pieces on a 6 x 6 board at the start (of 144 possible): the
        // frame rule walks the pieces and tests `other` for each, rather
        // than listing the 35 other squares of the move and testing each
        // for a piece.
        let mut text = String::from(
            "(role a) (init (at 1 1 k)) (init (at 2 2 q))
            (kind k) (kind q) (kind r) (kind b)
            (<= (other ?x ?y ?u ?v) (coord ?x) (coord ?y) (coord ?u) (coord ?v) (distinct ?x ?u))
            (<= (other ?x ?y ?u ?v) (coord ?x) (coord ?y) (coord ?u) (coord ?v) (distinct ?y ?v))
            (<= (legal a (move ?x ?y ?k)) (coord ?x) (coord ?y) (kind ?k))
            (<= (next (at ?x ?y ?k)) (does a (move ?x ?y ?k)))
            (<= (next (at ?x ?y ?p)) (does a (move ?u ?v ?k)) (true (at ?x ?y ?p)) (other ?x ?y ?u ?v))
            (<= terminal (true (at 6 6 k))) (goal a 100)",
        );
        for i in 1..=6 {
            text += &format!(" (coord {i})");
        }
        let loaded = crate::load_bytes("t.kif".into(), text.into_bytes()).expect("valid");
        let c = analyze_with(&loaded, Strategy::Relational).expect("compiles");
        let frame = c
            .relational()
            .unwrap()
            .plans
            .iter()
            .find(|p| {
                c.program.rules[p.rule]
                    .text
                    .contains("(other ?x ?y ?u ?v))")
            })
            .expect("the frame rule is planned");
        assert!(
            matches!(&frame.steps[1], Step::Table { fluent: true, bind, .. } if bind.len() == 3),
            "{:?}",
            frame.steps
        );
        assert!(!frame.steps[2].is_loop(), "{:?}", frame.steps);
    }

    #[test]
    fn a_membership_bitset_ranks_each_columns_values() {
        // Column 0 takes 10 and 30 (20 is in its span but no row's), column
        // 1 takes 5, 6 and 7: 2 x 3 keys, and the bits of the four rows.
        let mut tables = super::Tables::default();
        let rows = vec![
            vec![10, 5, 0],
            vec![10, 7, 1],
            vec![30, 6, 2],
            vec![30, 7, 3],
        ];
        let t = tables.add(super::Table {
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
