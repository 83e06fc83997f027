//! Stage 4, domains: for every relation and argument position, a superset
//! of the ground terms that can occur there, computed as a fixpoint over the
//! rules with negation and `distinct` ignored (thesis 7.2.1). Nested function
//! terms are followed through their patterns, so a variable inside
//! `(cell ?x ?y ?p)` gets exactly the values found at its place.
//!
//! Every term of these domains gets a small runtime id: the possible fluents
//! first (so that a state is a bitset indexed by fluent id), then every other
//! term, ordered so that each domain's terms get mostly consecutive ids and
//! a predicate's fluents come by their arguments' ids (see `term_order`);
//! the order depends only on the terms, so the generated code is
//! deterministic.

use crate::compile::error::CompileError;
use crate::compile::program::{
    instantiate, is_bound, lookup, lookup_bound, matches, Class, Lit, Pat, Program, RelId, Rule,
};
use crate::ir::terms::{SymId, TermData, TermId, TermStore};
use hashbrown::HashTable;
use indexmap::IndexSet;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};
use std::hash::BuildHasher;

/// Most values one head argument may produce in one rule's step of the
/// fixpoint before the compiler gives up.
const MAX_INSTANCES: usize = 1_000_000;
/// Most distinct ground terms the compiler creates.
const MAX_TERMS: usize = 4_000_000;
/// Most possible fluents (bits of a state).
const MAX_FLUENTS: usize = 1_000_000;
/// How far the relaxed evaluation enumerates facts before it falls back to
/// domains computed argument by argument.
#[derive(Clone, Copy)]
struct Limits {
    /// Most tuples kept for one relation; past it only the domain of each
    /// argument is kept.
    rows: usize,
    /// Most candidate tuples one evaluation of a rule may look at; past it
    /// the rule's head domains are computed argument by argument.
    join_work: usize,
}

/// The limits of [`compute`].
const LIMITS: Limits = Limits {
    rows: 400_000,
    join_work: 4_000_000,
};
/// Most values of a compound head argument [`Grounder::saturated`] checks.
const SATURATION_CHECK: usize = 4096;
/// Fewest candidate facts by argument positions for which a literal whose
/// compound argument is bound in part looks its facts up by the bound
/// children instead (see [`inner_key`]): for fewer, the key costs more
/// than the scan.
const MIN_INNER_SCAN: usize = 64;
/// Most ground rule instances enumerated for the ground backend; past it
/// the game is compiled relation by relation.
pub const MAX_GROUND_INSTANCES: usize = 60_000;

/// The domains of every argument position, and the runtime term ids.
pub struct Domains {
    /// Per relation, per argument position: the terms that can occur there
    /// (compile-time ids, sorted by runtime id).
    pub args: Vec<Vec<Vec<TermId>>>,
    /// Runtime id of each compile-time term id.
    pub runtime_id: Vec<u32>,
    /// Canonical text of each runtime id.
    pub texts: Vec<String>,
    /// Number of possible fluents: runtime ids `0..fluents`.
    pub fluents: usize,
    /// Per relation, its number of facts in the relaxed evaluation, when
    /// it was small enough to enumerate.
    pub rows: Vec<Option<usize>>,
    /// Per rule, every binding of its variables that satisfies its positive
    /// literals and filters in the relaxed evaluation (compile-time ids, by
    /// variable number): the ground instances of the program, when there
    /// are at most [`MAX_GROUND_INSTANCES`] of them.
    pub instances: Option<Vec<Vec<Vec<TermId>>>>,
    /// What the relaxed evaluation took (the compile cost of this stage).
    pub work: RelaxedWork,
    /// The fluent symbols (and arities) whose fluents are numbered by their
    /// arguments in another order than their own: that order (see
    /// [`Domains::reorder_fluents`]).
    pub fluent_orders: FxHashMap<(SymId, usize), Vec<usize>>,
}

/// The work of the relaxed evaluation, for `gdlc explain`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RelaxedWork {
    /// Rounds until nothing grew.
    pub rounds: usize,
    /// Evaluations of a rule over its facts (one per new part of an input).
    pub joins: usize,
    /// Evaluations of a rule argument by argument.
    pub by_argument: usize,
    /// Facts added to the relations whose facts are enumerated.
    pub facts: usize,
    /// Candidate facts the joins tried.
    pub tried: usize,
}

impl Domains {
    /// Numbers the fluents of the symbols in `orders` by their arguments
    /// in the order given there (the others keep theirs): the fluents stay
    /// ids `0..fluents`, by symbol, then by the ids of their arguments.
    pub fn reorder_fluents(
        &mut self,
        store: &TermStore,
        orders: FxHashMap<(SymId, usize), Vec<usize>>,
    ) {
        let mut fluents: Vec<TermId> = (0..self.runtime_id.len() as TermId)
            .filter(|&t| (self.runtime_id[t as usize] as usize) < self.fluents)
            .collect();
        let fluents_before = self.fluents as u32;
        let runtime_id = &self.runtime_id;
        // A non-fluent argument's runtime id orders it as its place did.
        let place = |a: TermId| {
            let id = runtime_id[a as usize];
            (id >= fluents_before).then_some(id as usize)
        };
        fluents.sort_by_cached_key(|&f| fluent_order(store, f, place, &orders));
        for (i, &f) in fluents.iter().enumerate() {
            self.runtime_id[f as usize] = i as u32;
            self.texts[i] = store.text(f);
        }
        let runtime_id = &self.runtime_id;
        for positions in &mut self.args {
            for values in positions {
                values.sort_unstable_by_key(|&t| runtime_id[t as usize]);
            }
        }
        self.fluent_orders = orders;
    }

    /// The runtime id of a compile-time term.
    pub fn id(&self, t: TermId) -> u32 {
        self.runtime_id[t as usize]
    }

    /// The words of the state whose fluents are `fluents` (one bit per
    /// possible fluent, by runtime id).
    pub fn state_words(&self, fluents: &[TermId]) -> Vec<u64> {
        let mut words = vec![0u64; self.fluents.div_ceil(64).max(1)];
        for &f in fluents {
            let id = self.id(f) as usize;
            words[id / 64] |= 1 << (id % 64);
        }
        words
    }
}

/// Computes the domains of `program` and numbers its terms.
pub fn compute(program: &mut Program) -> Result<Domains, CompileError> {
    compute_within(program, LIMITS)
}

/// [`compute`] with the given limits.
fn compute_within(program: &mut Program, limits: Limits) -> Result<Domains, CompileError> {
    let (dom, rows, instances, work) = Grounder::new(program, limits).run()?;
    if dom[program.true_rel][0].len() > MAX_FLUENTS {
        return Err(CompileError::TooManyFluents { limit: MAX_FLUENTS });
    }
    let (fluents, rest) = term_order(&program.store, &dom, program.true_rel);
    let store = &program.store;
    let mut runtime_id = vec![0u32; store.len()];
    let mut texts = Vec::with_capacity(store.len());
    for (i, &t) in fluents.iter().chain(&rest).enumerate() {
        runtime_id[t as usize] = i as u32;
        texts.push(store.text(t));
    }
    let args = dom
        .into_iter()
        .map(|positions| {
            positions
                .into_iter()
                .map(|set| {
                    let mut v: Vec<TermId> = set.into_iter().collect();
                    v.sort_unstable_by_key(|&t| runtime_id[t as usize]);
                    v
                })
                .collect()
        })
        .collect();
    Ok(Domains {
        args,
        runtime_id,
        texts,
        fluents: fluents.len(),
        rows,
        instances,
        work,
        fluent_orders: FxHashMap::default(),
    })
}

/// The runtime order of the terms: the possible fluents, then every other
/// term. The other terms come domain by domain, largest domain first
/// (the argument positions of every relation and of every function symbol
/// inside their terms), each in natural order (numbers by value, then by
/// text), so that a domain's terms mostly get consecutive ids and the boxes
/// of dense containers and direct indexes stay small. The fluents come by
/// symbol, then by the ids of their arguments, so that a table of fluents
/// sorted by argument ids lists them by increasing fluent id (see
/// `codegen`'s walks over the set bits of a state).
fn term_order(
    store: &TermStore,
    dom: &[Vec<Domain>],
    true_rel: RelId,
) -> (Vec<TermId>, Vec<TermId>) {
    let is_fluent: FxHashSet<TermId> = dom[true_rel][0].iter().copied().collect();
    // Every domain: each relation's argument positions, and the values at
    // each argument of each function symbol in the terms of those.
    let mut domains: Vec<Vec<TermId>> = Vec::new();
    let mut inner: FxHashMap<(u32, usize), FxHashSet<TermId>> = FxHashMap::default();
    let mut seen: FxHashSet<TermId> = FxHashSet::default();
    let mut stack: Vec<TermId> = Vec::new();
    for positions in dom {
        for set in positions {
            domains.push(set.iter().copied().collect());
            stack.extend(set.iter().copied());
        }
    }
    while let Some(t) = stack.pop() {
        if !seen.insert(t) {
            continue;
        }
        if let TermData::Func(_, args) = store.data(t) {
            let functor = store.functor_of_term(t);
            for (k, &a) in args.iter().enumerate() {
                inner.entry((functor, k)).or_default().insert(a);
                stack.push(a);
            }
        }
    }
    domains.extend(inner.into_values().map(|set| set.into_iter().collect()));
    let natural = |t: &TermId| {
        let n = store.number(*t);
        (n.is_none(), n, store.text(*t))
    };
    for d in &mut domains {
        d.retain(|t| !is_fluent.contains(t));
        d.sort_by_cached_key(natural);
        d.dedup();
    }
    domains.retain(|d| !d.is_empty());
    domains.sort_by_cached_key(|d| {
        (
            std::cmp::Reverse(d.len()),
            d.iter().map(|&t| store.text(t)).collect::<Vec<_>>(),
        )
    });
    let mut placed: FxHashSet<TermId> = FxHashSet::default();
    let mut rest: Vec<TermId> = Vec::new();
    for d in &domains {
        rest.extend(d.iter().copied().filter(|&t| placed.insert(t)));
    }
    let mut others: Vec<TermId> = (0..store.len() as TermId)
        .filter(|t| !is_fluent.contains(t) && !placed.contains(t))
        .collect();
    others.sort_by_cached_key(|&t| store.text(t));
    rest.extend(others);
    // Fluents by symbol and arity, then argument by argument: a non-fluent
    // argument by its place above, a fluent argument after those, by text.
    let place: FxHashMap<TermId, usize> = rest.iter().enumerate().map(|(i, &t)| (t, i)).collect();
    let mut fluents: Vec<TermId> = dom[true_rel][0].iter().copied().collect();
    let no_orders = FxHashMap::default();
    fluents.sort_by_cached_key(|&f| fluent_order(store, f, |a| place.get(&a).copied(), &no_orders));
    (fluents, rest)
}

/// The sort key of fluent `f`: its symbol and arity, then its arguments
/// (in the order `orders` gives its symbol, else their own), a non-fluent
/// argument by its `place` among the other terms, a fluent argument after
/// those, by text.
fn fluent_order(
    store: &TermStore,
    f: TermId,
    place: impl Fn(TermId) -> Option<usize>,
    orders: &FxHashMap<(SymId, usize), Vec<usize>>,
) -> (String, usize, Vec<(u8, usize, String)>) {
    match store.data(f) {
        TermData::Const(s) => (store.symbol_name(*s).to_string(), 0, Vec::new()),
        TermData::Func(s, args) => {
            let key = |a: TermId| match place(a) {
                Some(i) => (0, i, String::new()),
                None => (1, 0, store.text(a)),
            };
            let args: Vec<(u8, usize, String)> = match orders.get(&(*s, args.len())) {
                Some(order) => order.iter().map(|&p| key(args[p])).collect(),
                None => args.iter().map(|&a| key(a)).collect(),
            };
            (store.symbol_name(*s).to_string(), args.len(), args)
        }
    }
}

/// The values each variable of a body can take, from its positive literals
/// (each argument matched on its own, static relations row by row); `None`
/// when some positive literal can match nothing.
fn variable_values(
    program: &Program,
    dom: &[Vec<Domain>],
    nvars: usize,
    body: &[Lit],
) -> Option<Vec<Vec<TermId>>> {
    let mut values: Vec<Option<FxHashSet<TermId>>> = vec![None; nvars];
    let mut narrow = |v: usize, found: FxHashSet<TermId>| {
        values[v] = Some(match values[v].take() {
            None => found,
            Some(old) => old.intersection(&found).copied().collect(),
        });
    };
    for lit in body {
        let Lit::Pos(atom) = lit else { continue };
        // Static relations are matched row by row (their facts are exact),
        // the others argument by argument over their domains.
        let found = if program.class[atom.rel] == Class::Static {
            let args: Vec<&Pat> = atom.args.iter().collect();
            let rows = program.facts[atom.rel].iter().map(Vec::as_slice);
            vec![values_matching(program, &args, rows, nvars)?]
        } else {
            atom.args
                .iter()
                .enumerate()
                .map(|(i, arg)| {
                    let rows = dom[atom.rel][i].iter().map(std::slice::from_ref);
                    values_matching(program, &[arg], rows, nvars)
                })
                .collect::<Option<Vec<_>>>()?
        };
        for (vars, sets) in found {
            for (v, set) in vars.into_iter().zip(sets) {
                narrow(v, set);
            }
        }
    }
    let mut out = Vec::with_capacity(nvars);
    for v in values {
        let mut v: Vec<TermId> = v?.into_iter().collect();
        if v.is_empty() {
            return None;
        }
        v.sort_unstable();
        out.push(v);
    }
    Some(out)
}

/// The variables of `pats` and, for each, the values it takes in the rows
/// that match `pats` jointly; `None` when no row matches.
#[allow(clippy::type_complexity)]
fn values_matching<'r>(
    program: &Program,
    pats: &[&Pat],
    rows: impl Iterator<Item = &'r [TermId]>,
    nvars: usize,
) -> Option<(Vec<usize>, Vec<FxHashSet<TermId>>)> {
    let mut vars: Vec<usize> = Vec::new();
    for p in pats {
        for v in p.vars() {
            if !vars.contains(&v) {
                vars.push(v);
            }
        }
    }
    let mut found: Vec<FxHashSet<TermId>> = vec![FxHashSet::default(); vars.len()];
    let mut binding = vec![None; nvars];
    let mut any = false;
    for row in rows {
        binding.iter_mut().for_each(|b| *b = None);
        if pats
            .iter()
            .zip(row)
            .all(|(p, &t)| matches(&program.store, p, t, &mut binding))
        {
            any = true;
            for (k, &v) in vars.iter().enumerate() {
                found[k].insert(binding[v].expect("matched variables are bound"));
            }
        }
    }
    any.then_some((vars, found))
}

/// Calls `f` with every assignment of `values` to `vars` (the cartesian
/// product), written into `binding`.
fn product(
    vars: &[usize],
    values: &[Vec<TermId>],
    binding: &mut [TermId],
    k: usize,
    f: &mut impl FnMut(&[TermId]),
) {
    if k == vars.len() {
        f(binding);
        return;
    }
    for &t in &values[vars[k]] {
        binding[vars[k]] = t;
        product(vars, values, binding, k + 1, f);
    }
}

/// The values found at one argument position, in the order found (so the
/// values new since some moment are a suffix).
type Domain = IndexSet<TermId, FxBuildHasher>;

/// Row numbers of a relation by the values at some argument positions.
type Index = FxHashMap<Box<[TermId]>, Vec<u32>>;

/// The tuples of a relation in the relaxed evaluation, with hash indexes
/// on the argument positions that joins look up.
#[derive(Default)]
struct Tuples {
    rows: Rows,
    /// By the positions they key on (a relation has few), with the number
    /// of rows they index.
    indexes: Vec<(Box<[usize]>, Index, usize)>,
    /// By the places they key on, for literals whose compound arguments
    /// are bound only in part (see [`inner_key`]), with the number of rows
    /// they index.
    inner: Vec<(Box<[Place]>, Index, usize)>,
    /// Scratch space for a key.
    key: Vec<TermId>,
}

/// The distinct rows of a relation in the order added, stored one after
/// the other (a join reads them by the thousands).
#[derive(Default)]
struct Rows {
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
    fn len(&self) -> usize {
        self.count
    }

    /// Row `i`.
    fn get(&self, i: usize) -> &[TermId] {
        row_at(&self.values, self.arity, i)
    }

    /// The rows from row `from` on.
    fn from(&self, from: usize) -> impl Iterator<Item = &[TermId]> {
        (from..self.count).map(|i| self.get(i))
    }

    /// Whether `row` (of hash `hash`) is a row.
    fn find(&self, hash: u64, row: &[TermId]) -> bool {
        self.set
            .find(hash, |&i| self.get(i as usize) == row)
            .is_some()
    }

    /// Whether `row` is a row.
    fn contains(&self, row: &[TermId]) -> bool {
        self.find(FxBuildHasher.hash_one(row), row)
    }

    /// Makes room for `additional` more rows of `arity` values (growing
    /// rehashes every row).
    fn reserve(&mut self, additional: usize, arity: usize) {
        let Rows { values, set, .. } = self;
        set.reserve(additional, row_hash(values, arity));
        values.reserve(additional * arity);
    }

    /// Adds `row` unless it is a row already; `true` if it is new.
    fn insert(&mut self, row: &[TermId]) -> bool {
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

/// A place in a relation's facts: an argument position, then the children
/// to follow through compound terms of the given functors (symbol, arity,
/// child), as `?x` in `(legal ?player (move ?piece ?u ?v ?x ?y))` is at
/// position 1, then child 3 of a `move` of arity 5.
type Place = (usize, Box<[(SymId, usize, usize)]>);

/// The term at `place` in `row`, if the row's terms have its functors.
fn value_at(store: &TermStore, row: &[TermId], place: &Place) -> Option<TermId> {
    let mut t = row[place.0];
    for &(symbol, arity, child) in place.1.iter() {
        match store.data(t) {
            TermData::Func(s, args) if *s == symbol && args.len() == arity => t = args[child],
            _ => return None,
        }
    }
    Some(t)
}

impl Tuples {
    /// Indexes of the rows whose `places` hold `key`, in the order of the
    /// rows.
    fn lookup_inner(&mut self, places: &[Place], key: &[TermId], store: &TermStore) -> &[u32] {
        let index = index_on(
            &mut self.inner,
            &self.rows,
            places,
            &mut self.key,
            |row, key| {
                for place in places {
                    match value_at(store, row, place) {
                        Some(t) => key.push(t),
                        None => return false,
                    }
                }
                true
            },
        );
        index.get(key).map_or(&[][..], |v| v.as_slice())
    }

    /// Indexes of the rows whose `positions` hold `key`, in the order of
    /// the rows.
    fn lookup(&mut self, positions: &[usize], key: &[TermId]) -> &[u32] {
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

/// The numbers of the distinct tuples among `count` tuples of `k` values
/// stored one after the other in `tuples`, in the order of their values.
/// (Sorted by their first values packed in one number, as many as fit, the
/// rest compared only between tuples that share those: chess's threat
/// rules sort hundreds of thousands of seven-value heads.)
fn distinct_in_order(tuples: &[TermId], k: usize, count: usize) -> Vec<usize> {
    let tuple = |i: usize| &tuples[i * k..(i + 1) * k];
    let largest = tuples.iter().copied().max().unwrap_or(0);
    let bits = (TermId::BITS - largest.leading_zeros()).max(1);
    let packed = k.min((u128::BITS / bits) as usize);
    let key = |i: usize| {
        tuple(i)[..packed]
            .iter()
            .fold(0u128, |key, &v| (key << bits) | u128::from(v))
    };
    let rest = |i: usize| &tuple(i)[packed..];
    let mut order: Vec<(u128, usize)> = (0..count).map(|i| (key(i), i)).collect();
    order.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| rest(a.1).cmp(rest(b.1))));
    order.dedup_by(|a, b| a.0 == b.0 && rest(a.1) == rest(b.1));
    order.into_iter().map(|(_, i)| i).collect()
}

/// The fact `rule`'s head makes of one binding of its variables `vars`
/// (their values `values`), into `row` (`full`: the binding by variable
/// number, scratch space).
fn head_row(
    store: &mut TermStore,
    rule: &Rule,
    vars: &[usize],
    values: &[TermId],
    full: &mut [TermId],
    row: &mut Vec<TermId>,
) {
    for (&v, &t) in vars.iter().zip(values) {
        full[v] = t;
    }
    row.clear();
    for a in &rule.head.args {
        row.push(instantiate(store, a, full));
    }
}

/// The relaxed evaluation: every rule with its negative literals dropped,
/// `true` holding every fluent `init` or `next` can produce and `does`
/// every move `legal` can. Its facts are a superset of every fact of every
/// reachable state, so their argument values are sound domains. Relations
/// with too many tuples, and rules whose joins are too large, fall back to
/// domains computed argument by argument.
struct Grounder<'a> {
    program: &'a mut Program,
    /// Tuples per relation; `None` once only the domains are kept.
    tuples: Vec<Option<Tuples>>,
    dom: Vec<Vec<Domain>>,
    /// Whether a domain of the relation grew in the current round.
    grew: Vec<bool>,
    /// Rules whose joins were too large: evaluated argument by argument.
    too_large: FxHashSet<usize>,
    /// Per rule evaluated argument by argument, per head argument, how many
    /// values each of its variables had when it was last evaluated.
    by_argument: FxHashMap<usize, Vec<Vec<usize>>>,
    /// Per rule whose head keeps only its domains, the values its
    /// variables take at each of their occurrences (see
    /// [`Grounder::saturated`]).
    occurrences: FxHashMap<usize, Vec<Occurrence>>,
    limits: Limits,
    work: RelaxedWork,
    /// Scratch space for [`bound_key`].
    key: (Vec<usize>, Vec<TermId>),
    /// Buffers for [`Grounder::scan_literal`], one taken per literal being
    /// scanned (joins nest) and given back after.
    buffers: Vec<ScanBuffers>,
    /// The variables each witness search of [`Grounder::join`] must unbind
    /// after it, stacked (witness searches nest).
    to_unbind: Vec<usize>,
}

/// The scratch space of one literal's scan.
#[derive(Default)]
struct ScanBuffers {
    /// The candidate rows, by index.
    rows: Vec<u32>,
    /// The literal's variables the scan binds.
    free: Vec<usize>,
    /// Its arguments not bound before the scan.
    unbound: Vec<usize>,
    /// The candidate being matched.
    row: Vec<TermId>,
}

/// An argument of a positive literal of a rule that holds variables, and
/// the values each of them takes in the terms of that argument's domain
/// that the argument's pattern matches.
struct Occurrence {
    /// The literal's index in the body.
    lit: usize,
    position: usize,
    /// How many values of the domain were matched so far (domains only
    /// grow, new values last).
    seen: usize,
    vars: Vec<usize>,
    values: Vec<FxHashSet<TermId>>,
}

/// The positions of the arguments of `atom` that `binding` binds, into
/// `positions`, and their values, into `key`; `false` when one is a term
/// never created (no fact can match).
fn bound_key(
    store: &TermStore,
    atom: &crate::compile::program::Atom,
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
fn inner_key(
    store: &TermStore,
    atom: &crate::compile::program::Atom,
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

/// The parts of a rule's body that share no variable (positive literals
/// and filters, linked by their variables; negative literals are dropped
/// in the relaxed evaluation), as lists of literal indices, when there are
/// several and each argument of the head takes its variables from one.
/// `(threatened ?x ?y ?ix ?iy) :- (attack ?x ?y) (coordinate ?ix)
/// (coordinate ?iy)` has three: its facts are a product.
fn parts(rule: &Rule) -> Option<Vec<Vec<usize>>> {
    let mut root: Vec<usize> = (0..rule.vars.len()).collect();
    fn find(root: &mut [usize], v: usize) -> usize {
        let mut r = v;
        while root[r] != r {
            r = root[r];
        }
        root[v] = r;
        r
    }
    let linked: Vec<(usize, Vec<usize>)> = rule
        .body
        .iter()
        .enumerate()
        .filter(|(_, l)| !matches!(l, Lit::Neg(_)))
        .map(|(i, l)| (i, l.vars()))
        .collect();
    for (_, vars) in &linked {
        for w in vars.windows(2) {
            let (a, b) = (find(&mut root, w[0]), find(&mut root, w[1]));
            root[a] = b;
        }
    }
    let mut parts: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
    for (i, vars) in &linked {
        let part = vars.first().map(|&v| find(&mut root, v));
        match parts.iter_mut().find(|(p, _)| part.is_some() && *p == part) {
            Some((_, literals)) => literals.push(*i),
            None => parts.push((part, vec![*i])),
        }
    }
    if parts.len() < 2 {
        return None;
    }
    for arg in &rule.head.args {
        let vars = arg.vars();
        let first = vars.first().map(|&v| find(&mut root, v));
        if vars.iter().any(|&v| Some(find(&mut root, v)) != first) {
            return None;
        }
    }
    Some(parts.into_iter().map(|(_, literals)| literals).collect())
}

/// The candidate facts of a literal in a join.
enum Candidates {
    /// Rows of the relation's tuples, by position.
    Range(std::ops::Range<usize>),
    /// Rows of the relation's tuples, by the indexes in the scan's buffer.
    Rows,
    /// Tuples of the product of the argument domains.
    Product(Vec<Vec<TermId>>),
}

impl Candidates {
    /// How many facts there are (`ids`: the scan's buffer of row indexes).
    fn len(&self, ids: &[u32]) -> usize {
        match self {
            Candidates::Range(range) => range.len(),
            Candidates::Rows => ids.len(),
            Candidates::Product(rows) => rows.len(),
        }
    }
}

/// Why a join stopped before enumerating every binding.
enum Halt {
    /// Too much work: the rule is evaluated argument by argument.
    TooLarge,
    /// The first binding was found ([`Mode::First`]).
    Found,
}

/// Which bindings of a rule's body a join enumerates.
#[derive(Clone, Copy)]
enum Mode<'h> {
    /// Every one (the ground instances).
    All,
    /// One per binding of the head's variables (these): once they are all
    /// bound, the rest of the body only needs a witness, as in the plans.
    Heads(&'h [usize]),
    /// As [`Mode::Heads`], for a head that keeps only its domains: a
    /// binding whose every head argument's value is known already needs no
    /// witness (it would add nothing).
    Domains(&'h [usize]),
    /// The first one.
    First,
}

impl<'a> Grounder<'a> {
    fn new(program: &'a mut Program, limits: Limits) -> Self {
        let n = program.relations.len();
        let mut g = Grounder {
            tuples: (0..n).map(|_| Some(Tuples::default())).collect(),
            dom: program
                .relations
                .iter()
                .map(|r| vec![Domain::default(); r.arity])
                .collect(),
            grew: vec![false; n],
            too_large: FxHashSet::default(),
            by_argument: FxHashMap::default(),
            occurrences: FxHashMap::default(),
            limits,
            work: RelaxedWork::default(),
            key: Default::default(),
            buffers: Vec::new(),
            to_unbind: Vec::new(),
            program,
        };
        for r in 0..n {
            if g.program.class[r] == Class::Static {
                let facts = std::mem::take(&mut g.program.facts[r]);
                for row in &facts {
                    g.add(r, row);
                }
                g.program.facts[r] = facts;
            }
        }
        let true_rel = g.program.true_rel;
        for f in g.program.init.clone() {
            g.add(true_rel, &[f]);
        }
        g
    }

    /// Adds a fact; `true` if something grew.
    fn add(&mut self, r: RelId, row: &[TermId]) -> bool {
        let mut grew = false;
        let new = match &mut self.tuples[r] {
            Some(t) => {
                // A fact known already has its values in the domains, and
                // so has the fact added before it (facts come sorted, so
                // their first values repeat). The indexes catch up with the
                // facts when they are next looked up.
                if !t.rows.insert(row) {
                    return false;
                }
                let n = t.rows.len();
                let previous = (n > 1).then(|| t.rows.get(n - 2));
                for (i, &v) in row.iter().enumerate() {
                    if previous.is_none_or(|p| p[i] != v) {
                        grew |= self.dom[r][i].insert(v);
                    }
                }
                self.work.facts += 1;
                if t.rows.len() > self.limits.rows {
                    // Its readers must now see it argument by argument.
                    self.tuples[r] = None;
                    self.grew[r] = true;
                }
                true
            }
            None => {
                for (i, &v) in row.iter().enumerate() {
                    grew |= self.dom[r][i].insert(v);
                }
                false
            }
        };
        self.grew[r] |= grew;
        new || grew
    }

    fn len(&self, r: RelId) -> usize {
        self.tuples[r].as_ref().map_or(0, |t| t.rows.len())
    }

    /// The domains, the number of relaxed facts of each relation and the
    /// ground instances of the rules (when few enough).
    #[allow(clippy::type_complexity)]
    fn run(
        mut self,
    ) -> Result<
        (
            Vec<Vec<Domain>>,
            Vec<Option<usize>>,
            Option<Vec<Vec<Vec<TermId>>>>,
            RelaxedWork,
        ),
        CompileError,
    > {
        let n = self.program.relations.len();
        let rules = std::mem::take(&mut self.program.rules);
        let result = self.fixpoint(&rules, n);
        let instances = match result {
            Ok(()) => self.instances(&rules),
            Err(_) => None,
        };
        self.program.rules = rules;
        result?;
        let rows = self
            .tuples
            .iter()
            .map(|t| t.as_ref().map(|t| t.rows.len()))
            .collect();
        Ok((self.dom, rows, instances, self.work))
    }

    /// Every binding of every rule over the relaxed facts, or `None` when
    /// a relation is known only argument by argument or there are more
    /// than [`MAX_GROUND_INSTANCES`].
    fn instances(&mut self, rules: &[Rule]) -> Option<Vec<Vec<Vec<TermId>>>> {
        if !self.too_large.is_empty() || self.tuples.iter().any(Option::is_none) {
            return None;
        }
        let mut all = Vec::with_capacity(rules.len());
        let mut total = 0usize;
        for rule in rules {
            let mut found: Vec<Vec<TermId>> = Vec::new();
            let mut binding = vec![None; rule.vars.len()];
            let mut pending: Vec<usize> = (0..rule.body.len()).collect();
            let mut work = 0usize;
            let mut over = false;
            self.join(
                rule,
                None,
                &mut pending,
                &mut binding,
                &mut work,
                Mode::All,
                &mut |b: &[Option<TermId>]| {
                    if total + found.len() >= MAX_GROUND_INSTANCES {
                        over = true;
                    } else {
                        found.push(b.iter().map(|t| t.expect("variables are bound")).collect());
                    }
                },
            )
            .ok()?;
            if over {
                return None;
            }
            total += found.len();
            all.push(found);
        }
        Some(all)
    }

    fn fixpoint(&mut self, rules: &[Rule], n: usize) -> Result<(), CompileError> {
        // Rows `seen[r]..now[r]` are the ones new since the last round, and
        // so are the values `dom_seen[r][p]..dom_now[r][p]` of each domain.
        let mut seen = vec![0usize; n];
        let mut dom_seen: Vec<Vec<usize>> = self.dom.iter().map(|d| vec![0; d.len()]).collect();
        let mut bridged = vec![0usize; n];
        let mut bridged_values = vec![0usize; n];
        let mut first = true;
        loop {
            let now: Vec<usize> = (0..n).map(|r| self.len(r)).collect();
            let dom_now: Vec<Vec<usize>> = self
                .dom
                .iter()
                .map(|d| d.iter().map(Domain::len).collect())
                .collect();
            self.grew = vec![false; n];
            let mut changed = false;
            for (rule_index, rule) in rules.iter().enumerate() {
                let positive: Vec<(usize, RelId)> = rule
                    .body
                    .iter()
                    .enumerate()
                    .filter_map(|(i, l)| match l {
                        Lit::Pos(a) => Some((i, a.rel)),
                        _ => None,
                    })
                    .collect();
                // A rule whose joins were too large, or that reads a relation
                // known only argument by argument, is evaluated argument by
                // argument: again only when a domain it reads gained a value
                // its pattern there matches (new rows alone change nothing).
                if self.too_large.contains(&rule_index)
                    || positive.iter().any(|&(_, r)| self.tuples[r].is_none())
                {
                    let newly = self.too_large.insert(rule_index);
                    if first || newly || self.gained_matching(rule, &dom_seen, &dom_now) {
                        changed |= self.apply(rule_index, rule, None)?;
                    }
                    continue;
                }
                // A head known only by its domains gains nothing from a rule
                // whose every argument can only produce values it has.
                if !first
                    && self.tuples[rule.head.rel].is_none()
                    && self.saturated(rule_index, rule)
                {
                    continue;
                }
                let full = first;
                let runs: Vec<Option<(usize, usize, usize)>> = if full {
                    vec![None]
                } else {
                    positive
                        .iter()
                        .filter(|&&(_, r)| self.tuples[r].is_some() && now[r] > seen[r])
                        .map(|&(i, r)| Some((i, seen[r], now[r])))
                        .collect()
                };
                for delta in runs {
                    changed |= self.apply(rule_index, rule, delta)?;
                }
            }
            // `true` ranges over what `init` and `next` produce, `does` over
            // what `legal` produces: the facts new since the last round.
            let true_rel = self.program.true_rel;
            let does_rel = self.program.does_rel;
            let mut bridged_rows: Vec<(RelId, Box<[TermId]>)> = Vec::new();
            for (keyword, target) in [(1, true_rel), (0, does_rel)] {
                for r in self.program.answers[keyword].clone() {
                    match &self.tuples[r] {
                        Some(t) => {
                            for row in t.rows.from(bridged[r]) {
                                let row = if keyword == 1 {
                                    Box::from([row[0]])
                                } else {
                                    row.into()
                                };
                                bridged_rows.push((target, row));
                            }
                            bridged[r] = t.rows.len();
                        }
                        None if keyword == 1 => {
                            let values = &self.dom[r][0];
                            for &t in values.iter().skip(bridged_values[r]) {
                                bridged_rows.push((target, Box::from([t])));
                            }
                            bridged_values[r] = values.len();
                        }
                        None => {
                            let values = &self.dom[r][1];
                            for &m in values.iter().skip(bridged_values[r]) {
                                for &role in &self.program.roles {
                                    bridged_rows.push((target, Box::from([role, m])));
                                }
                            }
                            bridged_values[r] = values.len();
                        }
                    }
                }
            }
            for (target, row) in bridged_rows {
                changed |= self.add(target, &row);
            }
            if self.tuples[true_rel].is_none() {
                return Err(CompileError::TooManyFluents {
                    limit: self.limits.rows,
                });
            }
            if self.program.store.len() > MAX_TERMS {
                return Err(CompileError::TooManyTerms { limit: MAX_TERMS });
            }
            seen = now;
            dom_seen = dom_now;
            first = false;
            self.work.rounds += 1;
            if !changed && self.grew.iter().all(|g| !g) {
                return Ok(());
            }
        }
    }

    /// Whether evaluating `rule` cannot make a domain of its head grow:
    /// every value each argument of the head could take is in that
    /// argument's domain already, each variable ranging over the values it
    /// can take at every argument of the body's positive literals where it
    /// occurs (see [`Occurrence`]). A compound argument is checked value by
    /// value when it has at most [`SATURATION_CHECK`] of them.
    fn saturated(&mut self, rule_index: usize, rule: &Rule) -> bool {
        let mut occurrences = self.occurrences.remove(&rule_index).unwrap_or_else(|| {
            let mut found = Vec::new();
            for (lit, l) in rule.body.iter().enumerate() {
                let Lit::Pos(atom) = l else { continue };
                for (position, arg) in atom.args.iter().enumerate() {
                    let vars = arg.vars();
                    if !vars.is_empty() {
                        let values = vec![FxHashSet::default(); vars.len()];
                        found.push(Occurrence {
                            lit,
                            position,
                            seen: 0,
                            vars,
                            values,
                        });
                    }
                }
            }
            found
        });
        // The values new in each domain since the last check.
        let mut binding = vec![None; rule.vars.len()];
        for o in &mut occurrences {
            let Lit::Pos(atom) = &rule.body[o.lit] else {
                unreachable!("occurrences are in positive literals")
            };
            let pat = &atom.args[o.position];
            let domain = &self.dom[atom.rel][o.position];
            for &t in &domain.as_slice()[o.seen..] {
                if matches(&self.program.store, pat, t, &mut binding) {
                    for (k, &v) in o.vars.iter().enumerate() {
                        o.values[k].insert(binding[v].expect("matched"));
                    }
                }
                for &v in &o.vars {
                    binding[v] = None;
                }
            }
            o.seen = domain.len();
        }
        // The values of variable `v`: those of its smallest occurrence that
        // every other occurrence has too (`None` without an occurrence).
        let bound = |v: usize| -> Option<Vec<TermId>> {
            let sets: Vec<&FxHashSet<TermId>> = occurrences
                .iter()
                .filter_map(|o| o.vars.iter().position(|&w| w == v).map(|k| &o.values[k]))
                .collect();
            let smallest = sets.iter().min_by_key(|s| s.len())?;
            Some(
                smallest
                    .iter()
                    .copied()
                    .filter(|t| sets.iter().all(|s| s.contains(t)))
                    .collect(),
            )
        };
        let r = rule.head.rel;
        let answer = rule.head.args.iter().enumerate().all(|(i, arg)| {
            let domain = &self.dom[r][i];
            match arg {
                Pat::Ground(t) => domain.contains(t),
                Pat::Var(v) => bound(*v).is_some_and(|b| b.iter().all(|t| domain.contains(t))),
                Pat::Func(..) => {
                    let vars = arg.vars();
                    let mut values = vec![Vec::new(); rule.vars.len()];
                    for &v in &vars {
                        match bound(v) {
                            Some(b) => values[v] = b,
                            None => return false,
                        }
                    }
                    let count = vars
                        .iter()
                        .map(|&v| values[v].len())
                        .try_fold(1usize, |acc, k| acc.checked_mul(k));
                    if count.is_none_or(|n| n > SATURATION_CHECK) {
                        return false;
                    }
                    let mut b = vec![0; rule.vars.len()];
                    let mut all = true;
                    product(&vars, &values, &mut b, 0, &mut |b| {
                        all &= lookup(&self.program.store, arg, b)
                            .is_some_and(|t| domain.contains(&t));
                    });
                    all
                }
            }
        });
        self.occurrences.insert(rule_index, occurrences);
        answer
    }

    /// Whether a domain read by a positive literal of `rule` gained, between
    /// `seen` and `now`, a value that the literal's pattern at that position
    /// matches (static relations never gain any).
    fn gained_matching(&self, rule: &Rule, seen: &[Vec<usize>], now: &[Vec<usize>]) -> bool {
        let mut binding = vec![None; rule.vars.len()];
        rule.body.iter().any(|lit| {
            let Lit::Pos(atom) = lit else { return false };
            let r = atom.rel;
            atom.args.iter().enumerate().any(|(p, pat)| {
                let new = &self.dom[r][p].as_slice()[seen[r][p]..now[r][p]];
                new.iter().any(|&t| {
                    binding.iter_mut().for_each(|b| *b = None);
                    matches(&self.program.store, pat, t, &mut binding)
                })
            })
        })
    }

    /// Evaluates one rule (its literal `delta.0` restricted to the rows
    /// `delta.1..delta.2`), adding the head facts; `true` if something grew.
    fn apply(
        &mut self,
        rule_index: usize,
        rule: &Rule,
        delta: Option<(usize, usize, usize)>,
    ) -> Result<bool, CompileError> {
        // The values of the head's variables in each binding found, one
        // after the other (`found` bindings).
        let mut heads: Vec<TermId> = Vec::new();
        let mut found = 0usize;
        let mut work = 0usize;
        let mut binding = vec![None; rule.vars.len()];
        let mut pending: Vec<usize> = (0..rule.body.len()).collect();
        let head_vars = rule.head.vars();
        let r = rule.head.rel;
        let too_large = self.too_large.contains(&rule_index);
        let parts = if too_large { None } else { parts(rule) };
        // A body that falls apart: its parts first (a product too large to
        // keep, or a relation that keeps only its domains, needs only their
        // projections).
        let by_parts = match &parts {
            Some(parts) => self.join_parts(rule, delta, parts, &head_vars, &mut 0),
            None => Ok(None),
        };
        let outcome = match by_parts {
            _ if too_large => Err(Halt::TooLarge),
            Ok(Some(changed)) => {
                self.work.joins += 1;
                return Ok(changed);
            }
            Err(halt) => Err(halt),
            Ok(None) => {
                self.work.joins += 1;
                self.join(
                    rule,
                    delta,
                    &mut pending,
                    &mut binding,
                    &mut work,
                    if self.tuples[r].is_some() {
                        Mode::Heads(&head_vars)
                    } else {
                        Mode::Domains(&head_vars)
                    },
                    &mut |b: &[Option<TermId>]| {
                        found += 1;
                        heads.extend(
                            head_vars
                                .iter()
                                .map(|&v| b[v].expect("head variables are bound")),
                        );
                    },
                )
            }
        };
        let mut changed = false;
        match outcome {
            Ok(()) if self.tuples[r].is_none() => {
                changed |= self.add_head_domains(rule, &head_vars, &heads, found);
            }
            Ok(()) => {
                let arity = rule.head.args.len();
                let mut full = vec![0; rule.vars.len()];
                let mut row: Vec<TermId> = Vec::with_capacity(arity);
                let k = head_vars.len();
                let head = |i: usize| &heads[i * k..(i + 1) * k];
                // When the facts could be more than the relation keeps, the
                // ones not known yet are counted first, each once, in the
                // order found: past the limit only their values are kept
                // (chess's threat relations overflow with 400 000 facts at
                // once), and they need not be sorted nor indexed.
                if self.len(r) + found > self.limits.rows {
                    let mut fresh = Rows::default();
                    fresh.reserve(found, arity);
                    for i in 0..found {
                        head_row(
                            &mut self.program.store,
                            rule,
                            &head_vars,
                            head(i),
                            &mut full,
                            &mut row,
                        );
                        if !self.tuples[r]
                            .as_ref()
                            .is_some_and(|t| t.rows.contains(&row))
                        {
                            fresh.insert(&row);
                        }
                    }
                    if self.len(r) + fresh.len() > self.limits.rows {
                        self.tuples[r] = None;
                        self.grew[r] = true;
                        for (column, values) in self.dom[r].iter_mut().enumerate() {
                            // (A value just added need not be looked up
                            // again: facts found one after the other share
                            // their first values.)
                            let mut last = None;
                            for i in 0..fresh.len() {
                                let v = fresh.get(i)[column];
                                if last != Some(v) {
                                    last = Some(v);
                                    self.grew[r] |= values.insert(v);
                                }
                            }
                        }
                        return Ok(true);
                    }
                }
                // Each distinct head once, in the order of their values
                // (all of them fit).
                let order = distinct_in_order(&heads, k, found);
                if let Some(t) = &mut self.tuples[r] {
                    t.rows.reserve(order.len(), arity);
                }
                for i in order {
                    head_row(
                        &mut self.program.store,
                        rule,
                        &head_vars,
                        head(i),
                        &mut full,
                        &mut row,
                    );
                    changed |= self.add(r, &row);
                }
            }
            Err(_) => {
                // Argument by argument: each head argument from the product
                // of its variables' values; from now on for this rule.
                self.work.by_argument += 1;
                self.too_large.insert(rule_index);
                if self.tuples[r].take().is_some() {
                    self.grew[r] = true;
                }
                let Some(values) =
                    variable_values(self.program, &self.dom, rule.vars.len(), &rule.body)
                else {
                    return Ok(false);
                };
                let seen = self.by_argument.entry(rule_index).or_default();
                seen.resize(rule.head.args.len(), Vec::new());
                let mut todo: Vec<usize> = Vec::new();
                for (i, arg) in rule.head.args.iter().enumerate() {
                    // Values only grow: as many as last time are the same.
                    let counts: Vec<usize> = arg.vars().iter().map(|&v| values[v].len()).collect();
                    if seen[i] != counts || counts.is_empty() {
                        seen[i] = counts;
                        todo.push(i);
                    }
                }
                for i in todo {
                    let arg = &rule.head.args[i];
                    let vars = arg.vars();
                    let count = vars
                        .iter()
                        .map(|&v| values[v].len())
                        .try_fold(1usize, |acc, k| acc.checked_mul(k))
                        .unwrap_or(usize::MAX);
                    if count > MAX_INSTANCES {
                        return Err(CompileError::ArgumentTooLarge {
                            argument: i + 1,
                            relation: self.program.relations[r].to_string(),
                            rule: rule.text.clone(),
                            limit: MAX_INSTANCES,
                        });
                    }
                    let mut b = vec![0; rule.vars.len()];
                    let mut produced = Vec::with_capacity(count);
                    product(&vars, &values, &mut b, 0, &mut |b| {
                        produced.push(instantiate(&mut self.program.store, arg, b));
                    });
                    for t in produced {
                        let grew = self.dom[r][i].insert(t);
                        self.grew[r] |= grew;
                        changed |= grew;
                    }
                }
            }
        }
        Ok(changed)
    }

    /// Adds to the domains of the head of `rule` the values of its
    /// arguments whose variables are among `vars`, from `found` bindings of
    /// those variables (`heads`, one after the other); `true` if a domain
    /// grew.
    fn add_head_domains(
        &mut self,
        rule: &Rule,
        vars: &[usize],
        heads: &[TermId],
        found: usize,
    ) -> bool {
        let r = rule.head.rel;
        let k = vars.len();
        let mut full = vec![0; rule.vars.len()];
        let mut changed = false;
        for (i, arg) in rule.head.args.iter().enumerate() {
            let Some(columns) = arg
                .vars()
                .iter()
                .map(|v| vars.iter().position(|w| w == v))
                .collect::<Option<Vec<usize>>>()
            else {
                continue;
            };
            // The distinct values of the argument's own variables.
            let c = columns.len();
            let mut tuples: Vec<TermId> = Vec::with_capacity(found * c);
            for b in 0..found {
                tuples.extend(columns.iter().map(|&col| heads[b * k + col]));
            }
            let mut order: Vec<usize> = (0..if c == 0 { found.min(1) } else { found }).collect();
            if c == 1 {
                tuples.sort_unstable();
                tuples.dedup();
                order.truncate(tuples.len());
            } else {
                let tuple = |i: usize| &tuples[i * c..(i + 1) * c];
                order.sort_unstable_by(|&a, &b| tuple(a).cmp(tuple(b)));
                order.dedup_by(|a, b| tuple(*a) == tuple(*b));
            }
            for j in order {
                for (&col, &t) in columns.iter().zip(&tuples[j * c..(j + 1) * c]) {
                    full[vars[col]] = t;
                }
                let t = instantiate(&mut self.program.store, arg, &full);
                let grew = self.dom[r][i].insert(t);
                self.grew[r] |= grew;
                changed |= grew;
            }
        }
        changed
    }

    /// Joins each part of a body that falls apart (see [`parts`]) on its
    /// own. The head's facts are the product of the parts' projections on
    /// the head's variables: when that product is more than a relation
    /// keeps (or the relation keeps only its domains), the head's domains
    /// come from the projections, and the product is never enumerated
    /// (`Ok(Some(changed))`); otherwise `Ok(None)`, and the rule is joined
    /// as a whole.
    fn join_parts(
        &mut self,
        rule: &Rule,
        delta: Option<(usize, usize, usize)>,
        parts: &[Vec<usize>],
        head_vars: &[usize],
        work: &mut usize,
    ) -> Result<Option<bool>, Halt> {
        // No head without a binding of every part.
        for part in parts {
            let mut found = false;
            let mut binding = vec![None; rule.vars.len()];
            let mut pending = part.clone();
            let result = self.join(
                rule,
                delta,
                &mut pending,
                &mut binding,
                work,
                Mode::First,
                &mut |_| found = true,
            );
            match result {
                Err(Halt::TooLarge) => return Err(Halt::TooLarge),
                _ if !found => return Ok(Some(false)),
                _ => {}
            }
        }
        let mut projections: Vec<(Vec<usize>, Vec<TermId>, usize)> = Vec::new();
        let mut product = 1usize;
        for part in parts {
            let mut in_part: Vec<usize> = Vec::new();
            for &i in part {
                in_part.extend(rule.body[i].vars());
            }
            let vars: Vec<usize> = head_vars
                .iter()
                .copied()
                .filter(|v| in_part.contains(v))
                .collect();
            let mut heads: Vec<TermId> = Vec::new();
            let mut found = 0usize;
            let mut binding = vec![None; rule.vars.len()];
            let mut pending = part.clone();
            self.join(
                rule,
                delta,
                &mut pending,
                &mut binding,
                work,
                Mode::Heads(&vars),
                &mut |b: &[Option<TermId>]| {
                    found += 1;
                    heads.extend(
                        vars.iter()
                            .map(|&v| b[v].expect("head variables are bound")),
                    );
                },
            )?;
            if found == 0 {
                return Ok(Some(false));
            }
            let k = vars.len().max(1);
            let mut distinct: Vec<&[TermId]> = heads.chunks(k).collect();
            distinct.sort_unstable();
            distinct.dedup();
            product = product.saturating_mul(distinct.len().max(1));
            projections.push((vars, heads, found));
        }
        let r = rule.head.rel;
        if self.tuples[r].is_some() && product <= self.limits.rows {
            return Ok(None);
        }
        // Past the limit: its readers see it argument by argument.
        let mut changed = false;
        if self.tuples[r].take().is_some() {
            self.grew[r] = true;
            changed = true;
        }
        for (vars, heads, found) in &projections {
            changed |= self.add_head_domains(rule, vars, heads, *found);
        }
        Ok(Some(changed))
    }

    /// Enumerates the bindings of the positive literals and filters in
    /// `pending` (those `mode` asks for), calling `out` for each complete
    /// one.
    #[allow(clippy::too_many_arguments)]
    fn join(
        &mut self,
        rule: &Rule,
        delta: Option<(usize, usize, usize)>,
        pending: &mut Vec<usize>,
        binding: &mut Vec<Option<TermId>>,
        work: &mut usize,
        mode: Mode<'_>,
        out: &mut dyn FnMut(&[Option<TermId>]),
    ) -> Result<(), Halt> {
        *work += 1;
        if *work > self.limits.join_work {
            return Err(Halt::TooLarge);
        }
        // Filters whose variables are bound.
        let mut k = 0;
        while k < pending.len() {
            let i = pending[k];
            let (x, y, same) = match &rule.body[i] {
                Lit::Distinct(x, y) => (x, y, false),
                Lit::Same(x, y) => (x, y, true),
                Lit::Neg(_) => {
                    pending.remove(k);
                    let r = self.join(rule, delta, pending, binding, work, mode, out);
                    pending.insert(k, i);
                    return r;
                }
                Lit::Pos(_) => {
                    k += 1;
                    continue;
                }
            };
            if !is_bound(x, binding) || !is_bound(y, binding) {
                k += 1;
                continue;
            }
            let a = lookup_bound(&self.program.store, x, binding);
            let b = lookup_bound(&self.program.store, y, binding);
            let equal = a.is_some() && a == b;
            if equal != same {
                return Ok(());
            }
            pending.remove(k);
            let r = self.join(rule, delta, pending, binding, work, mode, out);
            pending.insert(k, i);
            return r;
        }
        // The head is bound: one witness for the rest of the body.
        if let Mode::Heads(head) | Mode::Domains(head) = mode {
            if head.iter().all(|&v| binding[v].is_some())
                && pending.iter().any(|&i| matches!(rule.body[i], Lit::Pos(_)))
            {
                // A head that keeps only its domains and has every value
                // already gains nothing from a witness.
                if let Mode::Domains(_) = mode {
                    let r = rule.head.rel;
                    let known = rule.head.args.iter().enumerate().all(|(p, arg)| {
                        lookup_bound(&self.program.store, arg, binding)
                            .is_some_and(|t| self.dom[r][p].contains(&t))
                    });
                    if known {
                        return Ok(());
                    }
                }
                let unbound = self.to_unbind.len();
                self.to_unbind
                    .extend((0..binding.len()).filter(|&v| binding[v].is_none()));
                let mut found = false;
                let result = self.join(
                    rule,
                    delta,
                    pending,
                    binding,
                    work,
                    Mode::First,
                    &mut |_| {
                        found = true;
                    },
                );
                // The search stopped inside its loops: unbind what it bound.
                for v in self.to_unbind.drain(unbound..) {
                    binding[v] = None;
                }
                if let Err(Halt::TooLarge) = result {
                    return result;
                }
                if found {
                    out(binding);
                }
                return Ok(());
            }
        }
        // The next positive literal: the delta one first, then the one with
        // the fewest candidates under the current binding.
        // (Counting the candidates takes a lookup: not for the delta
        // literal, nor for the only positive literal left.)
        let positive = |k: &usize| matches!(rule.body[pending[*k]], Lit::Pos(_));
        let mut positives = (0..pending.len()).filter(positive);
        let pick = match (positives.next(), positives.next()) {
            (None, _) => None,
            (Some(k), None) => Some(k),
            _ => match (0..pending.len()).find(|&k| delta.is_some_and(|d| d.0 == pending[k])) {
                Some(k) => Some(k),
                None => {
                    let mut pick: Option<(usize, usize)> = None;
                    for (k, &i) in pending.iter().enumerate() {
                        let Lit::Pos(a) = &rule.body[i] else { continue };
                        let n = self.candidates(a, binding);
                        if n == 0 {
                            // No binding: the rest need not be counted.
                            return Ok(());
                        }
                        if pick.is_none_or(|(_, best)| n < best) {
                            pick = Some((k, n));
                        }
                    }
                    pick.map(|(k, _)| k)
                }
            },
        };
        let Some(k) = pick else {
            if pending.is_empty() {
                out(binding);
                if let Mode::First = mode {
                    return Err(Halt::Found);
                }
            }
            return Ok(());
        };
        let i = pending.remove(k);
        let Lit::Pos(atom) = &rule.body[i] else {
            unreachable!()
        };
        // Joins nest: each scan takes buffers of its own, and gives them back.
        let mut buffers = self.buffers.pop().unwrap_or_default();
        let result = self.scan_literal(
            rule,
            atom,
            i,
            delta,
            pending,
            binding,
            work,
            mode,
            out,
            &mut buffers,
        );
        self.buffers.push(buffers);
        pending.insert(k, i);
        result
    }

    /// How many facts a positive literal would try under `binding`: exact
    /// for enumerated relations (an index lookup), the product of the free
    /// arguments' domains otherwise.
    fn candidates(
        &mut self,
        atom: &crate::compile::program::Atom,
        binding: &[Option<TermId>],
    ) -> usize {
        let r = atom.rel;
        let (positions, key) = &mut self.key;
        if !bound_key(&self.program.store, atom, binding, positions, key) {
            return 0;
        }
        match &mut self.tuples[r] {
            Some(t) if positions.is_empty() => t.rows.len(),
            Some(t) => t.lookup(positions, key).len(),
            None => (0..atom.args.len())
                .filter(|p| !positions.contains(p))
                .map(|p| self.dom[r][p].len())
                .fold(1usize, |acc, n| acc.saturating_mul(n)),
        }
    }

    /// Tries every candidate fact of one positive literal (`buffers`: its
    /// scratch space).
    #[allow(clippy::too_many_arguments)]
    fn scan_literal(
        &mut self,
        rule: &Rule,
        atom: &crate::compile::program::Atom,
        i: usize,
        delta: Option<(usize, usize, usize)>,
        pending: &mut Vec<usize>,
        binding: &mut Vec<Option<TermId>>,
        work: &mut usize,
        mode: Mode<'_>,
        out: &mut dyn FnMut(&[Option<TermId>]),
        buffers: &mut ScanBuffers,
    ) -> Result<(), Halt> {
        let r = atom.rel;
        let mut counted = None;
        let ScanBuffers {
            rows: ids,
            free,
            unbound,
            row,
        } = buffers;
        ids.clear();
        let candidates = if self.tuples[r].is_some() {
            let (positions, key) = &mut self.key;
            if !bound_key(&self.program.store, atom, binding, positions, key) {
                return Ok(());
            }
            let range = match delta {
                Some((d, lo, hi)) if d == i => lo..hi,
                _ => 0..usize::MAX,
            };
            let store = &self.program.store;
            let tuples = self.tuples[r].as_mut().expect("materialized");
            // The work is counted by the argument positions' candidates
            // whichever index finds the facts (so the same rules fall back
            // to their arguments' domains).
            let in_range = |j: &u32| range.contains(&(*j as usize));
            let by_positions = if positions.is_empty() {
                let hi = range.end.min(tuples.rows.len());
                Candidates::Range(range.start..hi)
            } else {
                ids.extend(
                    tuples
                        .lookup(positions, key)
                        .iter()
                        .copied()
                        .filter(in_range),
                );
                Candidates::Rows
            };
            let n = by_positions.len(ids);
            counted = Some(n);
            // A compound argument bound in part: the facts with its bound
            // children (`legal2`'s moves to a square, not all of a
            // player's).
            let inner = if n >= MIN_INNER_SCAN {
                inner_key(store, atom, binding)
            } else {
                Ok(None)
            };
            match inner {
                // A bound child that is a term never created: no fact.
                Err(()) => {
                    ids.clear();
                    Candidates::Rows
                }
                Ok(Some((places, values))) => {
                    ids.clear();
                    ids.extend(
                        tuples
                            .lookup_inner(&places, &values, store)
                            .iter()
                            .copied()
                            .filter(in_range),
                    );
                    Candidates::Rows
                }
                Ok(None) => by_positions,
            }
        } else {
            // Only per-argument domains: their product, argument by argument.
            let mut rows: Vec<Vec<TermId>> = vec![Vec::new()];
            for (p, arg) in atom.args.iter().enumerate() {
                let candidates: Vec<TermId> = if is_bound(arg, binding) {
                    match lookup_bound(&self.program.store, arg, binding) {
                        Some(t) if self.dom[r][p].contains(&t) => vec![t],
                        _ => return Ok(()),
                    }
                } else {
                    let mut b = binding.clone();
                    self.dom[r][p]
                        .iter()
                        .copied()
                        .filter(|&t| {
                            b.clone_from(binding);
                            matches(&self.program.store, arg, t, &mut b)
                        })
                        .collect()
                };
                let mut next = Vec::with_capacity(rows.len() * candidates.len());
                for partial in &rows {
                    for &t in &candidates {
                        let mut v = partial.clone();
                        v.push(t);
                        next.push(v);
                    }
                    if next.len() > self.limits.join_work {
                        return Err(Halt::TooLarge);
                    }
                }
                rows = next;
            }
            Candidates::Product(rows)
        };
        let count = candidates.len(ids);
        self.work.tried += count;
        *work += counted.unwrap_or(count);
        if *work > self.limits.join_work {
            return Err(Halt::TooLarge);
        }
        free.clear();
        for arg in &atom.args {
            arg.for_each_var(&mut |v| {
                if binding[v].is_none() && !free.contains(&v) {
                    free.push(v);
                }
            });
        }
        // The candidates agree with the bound arguments already.
        unbound.clear();
        unbound.extend((0..atom.args.len()).filter(|&p| !is_bound(&atom.args[p], binding)));
        for k in 0..count {
            row.clear();
            match &candidates {
                Candidates::Range(range) => {
                    let tuples = self.tuples[r].as_ref().expect("materialized");
                    row.extend_from_slice(tuples.rows.get(range.start + k));
                }
                Candidates::Rows => {
                    let tuples = self.tuples[r].as_ref().expect("materialized");
                    row.extend_from_slice(tuples.rows.get(ids[k] as usize));
                }
                Candidates::Product(rows) => row.extend_from_slice(&rows[k]),
            }
            if unbound
                .iter()
                .all(|&p| matches(&self.program.store, &atom.args[p], row[p], binding))
            {
                self.join(rule, delta, pending, binding, work, mode, out)?;
            }
            for &v in free.iter() {
                binding[v] = None;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{compute_within, distinct_in_order, Domains, Grounder, Limits, Mode};
    use crate::compile::program::{Program, Rule};
    use crate::compile::{analyze, program};

    /// The domains of a description under the given limits, and the index
    /// of relation `name` (as `name/arity`).
    fn relaxed(text: &str, limits: Limits, name: &str) -> (Domains, usize) {
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        let mut program = program::lower::lower(&loaded.analysis.rules).expect("lowers");
        let d = compute_within(&mut program, limits).expect("computes");
        let r = program
            .relations
            .iter()
            .position(|r| r.to_string() == name)
            .expect("the relation");
        (d, r)
    }

    /// Runs the relaxed evaluation of a description to its fixpoint and
    /// hands the grounder and the rules to `f`.
    fn at_fixpoint(text: &str, limits: Limits, f: impl FnOnce(&mut Grounder, &[Rule])) {
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        let mut program: Program = program::lower::lower(&loaded.analysis.rules).expect("lowers");
        let n = program.relations.len();
        let rules = std::mem::take(&mut program.rules);
        let mut g = Grounder::new(&mut program, limits);
        g.fixpoint(&rules, n).expect("computes");
        f(&mut g, &rules);
    }

    /// How many bindings a join of `rule`'s whole body in `mode` hands
    /// over, and the work it counts.
    fn join_all(g: &mut Grounder, rule: &Rule, mode: Mode<'_>) -> (usize, usize) {
        let mut binding = vec![None; rule.vars.len()];
        let mut pending: Vec<usize> = (0..rule.body.len()).collect();
        let (mut out, mut work) = (0, 0);
        let result = g.join(
            rule,
            None,
            &mut pending,
            &mut binding,
            &mut work,
            mode,
            &mut |_| out += 1,
        );
        assert!(result.is_ok());
        (out, work)
    }

    /// A game with `rule` for `q`, whose 4 × 4 × 4 × 4 facts are over a
    /// limit of 100, so only its domains are kept (the rule reads `true`,
    /// or normalization would make its facts static).
    fn four_columns(rule: &str) -> String {
        let mut text = format!(
            "(role a) (<= (next (c ?k)) (true (c ?k))) (legal a go)
            (goal a 100) (<= terminal (true d)) (<= (goal a 0) (true d) (q ?x ?y ?z ?w))
            {rule}"
        );
        for x in 1..=4 {
            text += &format!(" (init (c {x})) (g {x})");
            for y in 1..=4 {
                for z in 1..=4 {
                    text += &format!(" (f {x} {y} {z})");
                }
            }
        }
        for b in 1..=100 {
            text += &format!(" (k {b})");
        }
        text
    }

    const FOUR_COLUMNS: Limits = Limits {
        rows: 100,
        join_work: 100_000,
    };

    #[test]
    fn a_head_that_keeps_only_known_domains_needs_no_witness() {
        // Once `?x ?y ?z ?w` are bound, `(k ?b)` needs a witness; for a head
        // that keeps only its domains, all of which are known at the
        // fixpoint, the binding adds nothing: no witness is looked for.
        let text = four_columns("(<= (q ?x ?y ?z ?w) (true (c 1)) (g ?w) (f ?x ?y ?z) (k ?b))");
        at_fixpoint(&text, FOUR_COLUMNS, |g, rules| {
            let q = rules
                .iter()
                .find(|r| r.text.starts_with("(<= (q"))
                .expect("q");
            assert!(g.tuples[q.head.rel].is_none(), "q keeps only its domains");
            let vars = q.head.vars();
            let (heads, with_witness) = join_all(g, q, Mode::Heads(&vars));
            assert_eq!(heads, 256);
            let (domains, without) = join_all(g, q, Mode::Domains(&vars));
            assert_eq!(domains, 0);
            assert!(
                without + 256 <= with_witness,
                "{without} against {with_witness}"
            );
        });
    }

    #[test]
    fn a_compound_argument_bound_in_part_is_looked_up_by_its_bound_children() {
        // `(m (go ?x ?z))` with `?x` bound: the 10 facts with that first
        // child, not all 100 of `m`, for each of the 10 values of `?x`: 100
        // candidates per join of `q`'s rule instead of 1 000 (it is joined
        // part by part, then whole, then for `m`'s new facts).
        let mut text = String::from(
            "(role a) (init (c 1)) (<= (next (c 1)) (true (c 1))) (legal a go)
            (goal a 100) (<= terminal (true (c 2))) (<= (goal a 0) (q ?x ?z))
            (<= (m (go ?x ?y)) (true (c 1)) (n ?x) (n ?y))
            (<= (q ?x ?z) (true (c 1)) (n ?x) (m (go ?x ?z)))",
        );
        for x in 1..=10 {
            text += &format!(" (n {x})");
        }
        let limits = Limits {
            rows: 1_000,
            join_work: 100_000,
        };
        let (d, q) = relaxed(&text, limits, "q/2");
        assert_eq!(d.rows[q], Some(100));
        assert!(d.work.tried < 2_000, "{:?}", d.work);
    }

    #[test]
    fn distinct_tuples_come_once_in_the_order_of_their_values() {
        // Values up to 2^20 pack six to a key: the seventh is compared
        // apart. Few distinct values, so that keys tie often.
        let mut state = 7u64;
        let mut value = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            [0, 1, 5, 1 << 20][(state >> 33) as usize % 4]
        };
        for k in [0, 1, 2, 7] {
            let count = 300;
            let tuples: Vec<u32> = (0..count * k).map(|_| value()).collect();
            let tuple = |i: usize| &tuples[i * k..(i + 1) * k];
            let mut expected: Vec<&[u32]> = (0..count).map(tuple).collect();
            expected.sort();
            expected.dedup();
            let got: Vec<&[u32]> = distinct_in_order(&tuples, k, count)
                .into_iter()
                .map(tuple)
                .collect();
            assert_eq!(got, expected, "{k} values");
        }
    }

    #[test]
    fn a_relation_past_the_limit_at_once_indexes_none_of_its_facts() {
        // `q` gets 256 facts in one step of a join (its body does not fall
        // apart), over the limit of 100: it keeps only its domains without
        // indexing any of them first.
        let rule = "(<= (q ?x ?y ?z ?w) (true (c ?z)) (f ?x ?y ?z) (f ?w ?y ?z))";
        let (with, q) = relaxed(&four_columns(rule), FOUR_COLUMNS, "q/4");
        // The same relations read, no fact derived.
        let none = "(<= (q ?x ?y ?z ?w) (true (e ?z)) (f ?x ?y ?z) (f ?w ?y ?z))";
        let (without, _) = relaxed(&four_columns(none), FOUR_COLUMNS, "q/4");
        assert_eq!(with.rows[q], None);
        assert!(with.args[q].iter().all(|d| d.len() == 4));
        assert_eq!(with.work.facts, without.work.facts, "{:?}", with.work);
    }

    fn fluents(text: &str) -> Vec<String> {
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        let c = analyze(&loaded).expect("compiles");
        c.domains.texts[..c.domains.fluents].to_vec()
    }

    #[test]
    fn fluents_are_what_init_and_next_can_produce() {
        // The counter reaches 3 through succ; (step 9) is never produced.
        let text = "(role a) (init (step 0)) (succ 0 1) (succ 1 2) (succ 2 3) (succ 8 9)
            (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
            (<= (legal a go) (true (step ?x)))
            (<= terminal (true (step 3))) (goal a 100)";
        assert_eq!(
            fluents(text),
            ["(step 0)", "(step 1)", "(step 2)", "(step 3)"]
        );
    }

    #[test]
    fn negation_is_ignored_and_joins_are_exact() {
        // (p 1 1) and (p 2 2) are reachable; the relaxed join keeps the
        // pairs together, so (p 1 2) is not a possible fluent, and the rule
        // guarded by `not` still counts.
        let text = "(role a) (init (p 1 1)) (pair 1 1) (pair 2 2)
            (<= (next (p ?x ?y)) (pair ?x ?y) (not (true (p ?x ?y))))
            (<= (legal a go) (true (p ?x ?y)))
            (<= terminal (true (p 2 2))) (goal a 100)";
        assert_eq!(fluents(text), ["(p 1 1)", "(p 2 2)"]);
    }

    #[test]
    fn a_domain_gets_consecutive_ids_and_fluents_come_by_argument_ids() {
        // Numbers 1..12 in `succ`, 1..3 on the board: by text, 10, 11 and
        // 12 would sit between 1 and 2. The fluents of `cell` come by the
        // ids of their arguments (numbers by value), not by text.
        let text = "(role a) (init (cell 1 1)) (init (step 1))
            (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
            (succ 7 8) (succ 8 9) (succ 9 10) (succ 10 11) (succ 11 12)
            (coord 1) (coord 2) (coord 3)
            (<= (next (cell ?x ?y)) (coord ?x) (coord ?y))
            (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
            (<= (legal a go) (true (step ?x)))
            (<= terminal (true (step 12))) (goal a 100)";
        let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
        let c = analyze(&loaded).expect("compiles");
        let d = &c.domains;
        let ids: Vec<u32> = ["1", "2", "3"]
            .iter()
            .map(|t| d.texts.iter().position(|x| x == t).expect("numbered") as u32)
            .collect();
        assert_eq!(ids, [ids[0], ids[0] + 1, ids[0] + 2], "1, 2, 3 consecutive");
        let fluents = &d.texts[..d.fluents];
        assert_eq!(
            fluents[..4],
            ["(cell 1 1)", "(cell 1 2)", "(cell 1 3)", "(cell 2 1)"]
        );
        let steps: Vec<&str> = fluents[9..].iter().map(String::as_str).collect();
        assert_eq!(steps[..3], ["(step 1)", "(step 2)", "(step 3)"]);
        assert_eq!(steps[11], "(step 12)");
    }

    #[test]
    fn a_body_that_falls_apart_is_joined_part_by_part() {
        // `h` is the product of three parts of 6 values: 216 facts, over
        // the limit of 100 kept facts; its domains come from the parts,
        // never from the 216 bindings (over the work limit of 150).
        let text = "(role a) (init (control a))
            (n 1) (n 2) (n 3) (n 4) (n 5) (n 6)
            (<= (next (control a)) (true (control a)))
            (<= (h ?x ?y ?z) (true (control a)) (n ?x) (n ?y) (n ?z))
            (<= (legal a (go ?x)) (n ?x))
            (<= terminal (not (h 1 2 3))) (goal a 100)";
        let limits = Limits {
            rows: 100,
            join_work: 150,
        };
        let (d, h) = relaxed(text, limits, "h/3");
        assert_eq!(d.rows[h], None, "past the limit: domains only");
        assert_eq!(d.work.by_argument, 0, "{:?}", d.work);
        assert!(d.args[h].iter().all(|values| values.len() == 6));
    }

    #[test]
    fn a_join_looks_for_one_witness_once_the_head_is_bound() {
        // 6 values of ?a, each with 36 bindings of ?b and ?c: 216 bindings
        // (some 500 candidates and steps), over the limit of 200, but 6
        // heads with one witness each.
        let text = "(role a) (init (control a))
            (n 1) (n 2) (n 3) (n 4) (n 5) (n 6)
            (<= (next (control a)) (true (control a)))
            (<= (legal a (mark ?a)) (true (control a)) (n ?a) (n ?b) (n ?c))
            (<= terminal (true (control b))) (goal a 100)";
        let limits = Limits {
            rows: 1_000,
            join_work: 200,
        };
        let (d, legal) = relaxed(text, limits, "legal/2");
        assert_eq!(d.work.by_argument, 0, "{:?}", d.work);
        assert_eq!(d.rows[legal], Some(6));
    }

    #[test]
    fn a_rule_evaluated_by_argument_runs_again_only_when_its_patterns_gain_values() {
        // The `legal` rule's join is over the limit, so its head is computed
        // argument by argument. The step counter makes `true` grow for 30
        // rounds, but by `(step ?)` fluents that `(true (control a))` does
        // not match: the rule is not evaluated again for them.
        let mut text = String::from(
            "(role a) (init (step 0)) (init (control a))
            (n 1) (n 2) (n 3) (n 4) (n 5) (n 6)
            (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
            (<= (next (control a)) (true (control a)))
            (<= (legal a (mark ?a ?b ?c)) (true (control a)) (n ?a) (n ?b) (n ?c))
            (<= terminal (true (step 30))) (goal a 100)",
        );
        for i in 0..30 {
            text += &format!(" (succ {i} {})", i + 1);
        }
        let limits = Limits {
            rows: 1_000,
            join_work: 100,
        };
        let (d, legal) = relaxed(&text, limits, "legal/2");
        assert_eq!(d.fluents, 1 + 31, "control and the steps");
        assert_eq!(d.args[legal][1].len(), 6 * 6 * 6, "every mark");
        assert!(d.work.rounds > 30, "one round per step: {:?}", d.work);
        assert_eq!(d.work.by_argument, 1, "{:?}", d.work);
    }

    #[test]
    fn a_rule_whose_head_keeps_only_domains_stops_once_they_are_full() {
        // `legal` has more facts than the limit, so only its domains are
        // kept. Its rule reads `(true (step ?s))`, which gains a fluent
        // every round for 30 rounds, but the head's domains are full after
        // the first evaluation: it is not evaluated again.
        let game = |legal: &str| {
            let mut text = format!(
                "(role a) (role b) (init (step 0))
                (n 1) (n 2) (n 3) (n 4) (n 5) (n 6)
                (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
                {legal}
                (<= terminal (true (step 30))) (goal a 100) (goal b 100)"
            );
            for i in 0..30 {
                text += &format!(" (succ {i} {})", i + 1);
            }
            text
        };
        let limits = Limits {
            rows: 100,
            join_work: 100_000,
        };
        let rule =
            "(<= (legal ?r (mark ?a ?b ?c)) (role ?r) (true (step ?s)) (n ?a) (n ?b) (n ?c))";
        let (d, legal) = relaxed(&game(rule), limits, "legal/2");
        assert_eq!(d.rows[legal], None, "only its domains are kept");
        assert_eq!(d.args[legal][0].len(), 2, "both roles");
        assert_eq!(d.args[legal][1].len(), 6 * 6 * 6, "every mark");
        assert!(d.work.rounds > 30, "one round per step: {:?}", d.work);
        let (without, _) = relaxed(&game("(<= (legal ?r noop) (role ?r))"), limits, "legal/2");
        assert!(
            d.work.joins <= without.work.joins + 2,
            "{:?} against {:?} without the rule",
            d.work,
            without.work
        );
    }
}
