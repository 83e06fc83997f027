//! Bottom-up evaluation: running rule plans as nested-loop joins with
//! backtracking, and strata to their fixpoint (semi-naive when recursive).

use super::plan::{Adornment, CallMode, KeyArg, Pattern, RelId, RulePlan, Step};
use super::table::Table;
use crate::ir::limits::{exceeded, max_work, MAX_CALL_DEPTH, MAX_ROWS};
use crate::ir::terms::{TermData, TermId, TermStore};
use rustc_hash::FxHashMap;
use std::sync::Arc;

const UNBOUND: TermId = TermId::MAX;

/// Join steps counted for each answer of a recursive call copied into the
/// answers of a call in progress: a copy allocates the tuple, which costs
/// about as much as this many rows tried.
const COPY_STEPS: usize = 8;

/// Join steps counted for each rule a call of a relation answered on demand
/// runs: a join of its own, allocated, which costs about as much as this
/// many rows tried.
const RULE_CALL_STEPS: usize = 16;

/// The rows of each table a join may read: `[start, end)` per step (used by
/// semi-naive evaluation to restrict one literal to the newest facts).
pub type Ranges = [(u32, u32)];

/// The relations answered on demand: their called forms and the plans of
/// their rules for each form.
#[derive(Default)]
pub struct DemandPlans {
    /// Each called form.
    pub adornments: Vec<Adornment>,
    /// The rule plans of each called form.
    pub plans: Vec<Vec<RulePlan>>,
    /// Whether each called form's relation is recursive.
    pub recursive: Vec<bool>,
}

/// A ground tuple.
type Tuple = Box<[TermId]>;

/// The answers of one call: whole tuples of the called relation.
type Answers = Arc<[Tuple]>;

/// Memoized answers of calls, per called form and input values.
///
/// Calls of recursive relations are tabled: a call met again while it is
/// still being answered gets the answers found so far, and the call it
/// reached iterates until its answers stop growing; calls that used the
/// partial answers of a call still in progress are not memoized as complete.
pub struct DemandCache {
    answers: Vec<FxHashMap<Tuple, Answers>>,
    exists: Vec<FxHashMap<Tuple, bool>>,
    partial: Vec<FxHashMap<Tuple, Vec<Tuple>>>,
    /// Calls being answered, with their depth in the chain of calls.
    in_progress: FxHashMap<(usize, Tuple), usize>,
    depth: usize,
    /// The shallowest call in progress whose partial answers were used.
    low: usize,
    /// Whether some partial answers grew since the innermost iterating call
    /// began its current round.
    grew: bool,
    /// Join steps taken in the current evaluation; kept here because every
    /// join and call reaches it.
    work: u64,
    /// Most join steps one evaluation may take ([`max_work`]).
    work_limit: u64,
}

impl DemandCache {
    /// A cache for `forms` called forms.
    pub fn new(forms: usize) -> Self {
        DemandCache {
            answers: vec![FxHashMap::default(); forms],
            exists: vec![FxHashMap::default(); forms],
            partial: vec![FxHashMap::default(); forms],
            in_progress: FxHashMap::default(),
            depth: 0,
            low: usize::MAX,
            grew: false,
            work: 0,
            work_limit: max_work(),
        }
    }

    /// Starts a new evaluation: its join steps are counted from zero.
    pub fn start_evaluation(&mut self) {
        self.work = 0;
    }

    /// Forgets the answers of called form `form`.
    pub fn clear(&mut self, form: usize) {
        self.answers[form].clear();
        self.exists[form].clear();
        self.partial[form].clear();
    }
}

/// Everything a join reads or extends besides its own plan.
pub struct Context<'a> {
    /// Interned terms (new ones are added for derived facts).
    pub store: &'a mut TermStore,
    /// The materialized relations.
    pub tables: &'a [Table],
    /// The relations answered on demand.
    pub demand: &'a DemandPlans,
    /// Their memoized answers.
    pub cache: &'a mut DemandCache,
    /// Most head tuples one rule may derive before the join stops.
    pub budget: usize,
}

/// Runs one rule plan and appends each derived head tuple to `out`; `false`
/// if it stopped at the context's budget.
pub fn run_rule(
    plan: &RulePlan,
    cx: &mut Context<'_>,
    ranges: Option<&Ranges>,
    out: &mut Vec<Box<[TermId]>>,
) -> bool {
    let start = out.len();
    let mut join = Join {
        plan,
        store: &mut *cx.store,
        tables: cx.tables,
        demand: cx.demand,
        cache: &mut *cx.cache,
        ranges,
        bindings: vec![UNBOUND; plan.vars],
        trail: Vec::new(),
        key: Vec::new(),
        out,
        first_only: false,
        budget: start.saturating_add(cx.budget),
        done: false,
        witness_at: None,
        found: false,
    };
    join.step(0);
    join.out.len() < join.budget
}

struct Join<'a> {
    plan: &'a RulePlan,
    store: &'a mut TermStore,
    tables: &'a [Table],
    demand: &'a DemandPlans,
    cache: &'a mut DemandCache,
    ranges: Option<&'a Ranges>,
    bindings: Vec<TermId>,
    trail: Vec<u16>,
    key: Vec<u32>,
    out: &'a mut Vec<Box<[TermId]>>,
    /// Stop at the first derived tuple (an existence check).
    first_only: bool,
    /// Stop when `out` holds this many tuples.
    budget: usize,
    done: bool,
    /// The step at which the innermost group of steps that needs only one
    /// witness ends (see [`RulePlan::witness_ends`]).
    witness_at: Option<usize>,
    /// Whether that group found its witness.
    found: bool,
}

/// Stack left below which a call of a relation answered on demand runs on
/// a new stack segment: calls nest as deep as the chain of calls waiting
/// for one another, which a thread's stack (2 MiB for a spawned one) may
/// not hold.
const STACK_RED_ZONE: usize = 256 << 10;
/// Size of each new stack segment.
const STACK_SEGMENT: usize = 4 << 20;

/// Answers a call of `form` with input values `values`: every head tuple of
/// its rules that agrees with them (only the first one if `first_only`).
fn solve(
    form: usize,
    values: &[TermId],
    first_only: bool,
    store: &mut TermStore,
    tables: &[Table],
    demand: &DemandPlans,
    cache: &mut DemandCache,
) -> Vec<Box<[TermId]>> {
    stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
        solve_here(form, values, first_only, store, tables, demand, cache)
    })
}

/// [`solve`] on the current stack.
fn solve_here(
    form: usize,
    values: &[TermId],
    first_only: bool,
    store: &mut TermStore,
    tables: &[Table],
    demand: &DemandPlans,
    cache: &mut DemandCache,
) -> Vec<Box<[TermId]>> {
    let mut out = Vec::new();
    for plan in &demand.plans[form] {
        let mut join = Join {
            plan,
            store: &mut *store,
            tables,
            demand,
            cache: &mut *cache,
            ranges: None,
            bindings: vec![UNBOUND; plan.vars],
            trail: Vec::new(),
            key: Vec::new(),
            out: &mut out,
            first_only,
            budget: usize::MAX,
            done: false,
            witness_at: None,
            found: false,
        };
        let inputs_match = plan.inputs.iter().zip(values).all(|(&pos, &v)| {
            unify(
                join.store,
                &plan.head[pos],
                v,
                &mut join.bindings,
                &mut join.trail,
            )
        });
        join.spend_many(RULE_CALL_STEPS);
        if inputs_match {
            join.step(0);
        }
        if first_only && !out.is_empty() {
            break;
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

impl Join<'_> {
    fn range(&self, i: usize, rel: RelId) -> (u32, u32) {
        match self.ranges {
            Some(r) => r[i],
            None => (0, self.tables[rel].len()),
        }
    }

    /// Counts one join step, stopping the evaluation past the work limit.
    #[inline]
    fn spend(&mut self) {
        self.spend_many(1);
    }

    /// Counts `steps` join steps (each answer of a recursive call copied
    /// counts [`COPY_STEPS`]), stopping the evaluation past the work limit.
    #[inline]
    fn spend_many(&mut self, steps: usize) {
        self.cache.work += steps as u64;
        if self.cache.work > self.cache.work_limit {
            self.out_of_work();
        }
    }

    #[cold]
    fn out_of_work(&self) -> ! {
        exceeded(format!(
            "more than {} join steps in one evaluation (stopped in a rule for `{}`)",
            self.cache.work_limit,
            self.tables[self.plan.head_rel].name()
        ))
    }

    /// Stops the evaluation: the rule derived more facts than a relation may
    /// hold (before they reach its table, which checks the same limit).
    #[cold]
    fn too_many_facts(&self) -> ! {
        exceeded(format!(
            "more than {MAX_ROWS} facts of `{}`",
            self.tables[self.plan.head_rel].name()
        ))
    }

    fn step(&mut self, i: usize) {
        if self.witness_at == Some(i) {
            self.found = true;
            return;
        }
        match self.plan.witness_ends[..].get(i) {
            Some(&Some(end)) => self.witness(i, end),
            _ => self.step_here(i),
        }
    }

    /// Runs steps `i..end` until they find one witness, then the rest of
    /// the join once (the variables they bind are read no further).
    fn witness(&mut self, i: usize, end: usize) {
        let outer = (
            self.witness_at.replace(end),
            std::mem::take(&mut self.found),
        );
        self.step_here(i);
        let found = std::mem::replace(&mut self.found, outer.1);
        self.witness_at = outer.0;
        if found {
            self.step(end);
        }
    }

    /// Whether a loop over rows or answers stops: the join is done, or a
    /// witness was found.
    fn stopped(&self) -> bool {
        self.done || self.found
    }

    fn step_here(&mut self, i: usize) {
        self.spend();
        let Some(step) = self.plan.steps.get(i) else {
            let head: Box<[TermId]> = self
                .plan
                .head
                .iter()
                .map(|p| instantiate(self.store, p, &self.bindings))
                .collect();
            if self.out.len() >= MAX_ROWS {
                self.too_many_facts();
            }
            self.out.push(head);
            self.done = self.first_only || self.out.len() >= self.budget;
            return;
        };
        match step {
            Step::Check { rel, args } => {
                let (lo, hi) = self.range(i, *rel);
                if let Some(row) = self.lookup_row(args) {
                    if let Some(pos) = self.tables[*rel].position(&row) {
                        if pos >= lo && pos < hi {
                            self.step(i + 1);
                        }
                    }
                }
            }
            Step::Neg { rel, args } => {
                let present = self
                    .lookup_row(args)
                    .is_some_and(|row| self.tables[*rel].position(&row).is_some());
                if !present {
                    self.step(i + 1);
                }
            }
            Step::Distinct(a, b) => {
                let a = instantiate(self.store, a, &self.bindings);
                let b = instantiate(self.store, b, &self.bindings);
                if a != b {
                    self.step(i + 1);
                }
            }
            Step::Same(a, b) => {
                let a = instantiate(self.store, a, &self.bindings);
                let b = instantiate(self.store, b, &self.bindings);
                if a == b {
                    self.step(i + 1);
                }
            }
            Step::Scan {
                rel, args, index, ..
            } => {
                let (lo, hi) = self.range(i, *rel);
                let tables = self.tables;
                let table = &tables[*rel];
                match index {
                    Some((index, key_args)) => {
                        let mut key = std::mem::take(&mut self.key);
                        key.clear();
                        for k in key_args.iter() {
                            match k {
                                KeyArg::Functor(f) => key.push(*f),
                                KeyArg::Value(p) => match lookup(self.store, p, &self.bindings) {
                                    Some(t) => key.push(t),
                                    None => {
                                        self.key = key;
                                        return;
                                    }
                                },
                            }
                        }
                        let rows = table.lookup(*index, &key);
                        self.key = key;
                        let start = rows.partition_point(|&r| r < lo);
                        for &r in &rows[start..] {
                            if r >= hi || self.stopped() {
                                break;
                            }
                            self.try_row(i, args, table.row(r));
                        }
                    }
                    None => {
                        for r in lo..hi {
                            if self.stopped() {
                                break;
                            }
                            self.try_row(i, args, table.row(r));
                        }
                    }
                }
            }
            Step::Call {
                args,
                adornment,
                mode,
                ..
            } => self.call(i, args, *adornment, *mode),
        }
    }

    fn call(&mut self, i: usize, args: &[Pattern], form: usize, mode: CallMode) {
        let inputs = &self.demand.adornments[form].inputs;
        // Interned, not looked up: the called rules may build the term.
        let values: Box<[TermId]> = inputs
            .iter()
            .map(|&pos| instantiate(self.store, &args[pos], &self.bindings))
            .collect();
        if mode != CallMode::Scan && !self.demand.recursive[form] {
            let found = match self.cache.exists[form].get(&values) {
                Some(&found) => found,
                None => {
                    let saved_low = std::mem::replace(&mut self.cache.low, usize::MAX);
                    let found = !solve(
                        form,
                        &values,
                        true,
                        self.store,
                        self.tables,
                        self.demand,
                        self.cache,
                    )
                    .is_empty();
                    // Partial answers only prove existence, never absence.
                    if found || self.cache.low == usize::MAX {
                        self.cache.exists[form].insert(values, found);
                    }
                    self.cache.low = self.cache.low.min(saved_low);
                    found
                }
            };
            if found == (mode == CallMode::Exists) {
                self.step(i + 1);
            }
            return;
        }
        let answers = self.tabled(form, values);
        match mode {
            CallMode::Scan => {
                for row in answers.iter() {
                    if self.stopped() {
                        break;
                    }
                    self.try_row(i, args, row);
                }
            }
            CallMode::Exists | CallMode::Absent => {
                if answers.is_empty() == (mode == CallMode::Absent) {
                    self.step(i + 1);
                }
            }
        }
    }

    /// The answers of a call, memoized, tabled for recursive relations.
    fn tabled(&mut self, form: usize, values: Box<[TermId]>) -> Answers {
        if let Some(a) = self.cache.answers[form].get(&values) {
            return Arc::clone(a);
        }
        let key = (form, values);
        if let Some(&at) = self.cache.in_progress.get(&key) {
            self.cache.low = self.cache.low.min(at);
            let partial = self.cache.partial[form].get(&key.1).map_or(0, Vec::len);
            self.spend_many(partial * COPY_STEPS);
            return self.cache.partial[form]
                .get(&key.1)
                .map_or_else(|| Arc::from(Vec::new()), |v| Arc::from(v.clone()));
        }
        let depth = self.cache.depth;
        if depth >= MAX_CALL_DEPTH {
            exceeded(format!(
                "more than {MAX_CALL_DEPTH} nested calls of `{}`",
                self.tables[self.demand.adornments[form].rel].name()
            ));
        }
        self.cache.depth += 1;
        self.cache.in_progress.insert(key.clone(), depth);
        let saved_low = self.cache.low;
        let saved_grew = self.cache.grew;
        let (form, values) = key;
        let (answers, low) = loop {
            self.cache.low = usize::MAX;
            self.cache.grew = false;
            let found = solve(
                form,
                &values,
                false,
                self.store,
                self.tables,
                self.demand,
                self.cache,
            );
            let copied = self.cache.partial[form].get(&values).map_or(0, Vec::len);
            self.spend_many((copied + found.len()) * COPY_STEPS);
            let entry = self.cache.partial[form].entry(values.clone()).or_default();
            let before = entry.len();
            entry.extend(found);
            entry.sort_unstable();
            entry.dedup();
            self.cache.grew |= entry.len() > before;
            let low = self.cache.low;
            if low < depth {
                // Built on the partial answers of a caller still in progress,
                // which iterates until no partial answers grow.
                break (Arc::from(entry.clone()), low);
            }
            if low == depth && self.cache.grew {
                continue;
            }
            let complete: Answers =
                Arc::from(self.cache.partial[form].remove(&values).unwrap_or_default());
            self.cache.answers[form].insert(values.clone(), Arc::clone(&complete));
            break (complete, usize::MAX);
        };
        self.cache.grew |= saved_grew;
        self.cache.in_progress.remove(&(form, values));
        self.cache.depth -= 1;
        self.cache.low = saved_low.min(low);
        answers
    }

    fn try_row(&mut self, i: usize, args: &[Pattern], row: &[TermId]) {
        self.spend();
        let mark = self.trail.len();
        if args
            .iter()
            .zip(row)
            .all(|(p, &v)| unify(self.store, p, v, &mut self.bindings, &mut self.trail))
        {
            self.step(i + 1);
        }
        for v in self.trail.drain(mark..) {
            self.bindings[v as usize] = UNBOUND;
        }
    }

    fn lookup_row(&self, args: &[Pattern]) -> Option<Vec<TermId>> {
        args.iter()
            .map(|p| lookup(self.store, p, &self.bindings))
            .collect()
    }
}

/// Matches a pattern against a ground term, binding variables (recorded on
/// the trail so the caller can undo them).
fn unify(
    store: &TermStore,
    p: &Pattern,
    v: TermId,
    bindings: &mut [TermId],
    trail: &mut Vec<u16>,
) -> bool {
    match p {
        Pattern::Var(x) => {
            let b = &mut bindings[*x as usize];
            if *b == UNBOUND {
                *b = v;
                trail.push(*x);
                true
            } else {
                *b == v
            }
        }
        Pattern::Ground(t) => *t == v,
        Pattern::Func(sym, args) => match store.data(v) {
            TermData::Func(s, vals) if s == sym && vals.len() == args.len() => args
                .iter()
                .zip(vals.iter())
                .all(|(a, &w)| unify(store, a, w, bindings, trail)),
            _ => false,
        },
    }
}

/// The id of a bound pattern's value, `None` if that term was never interned
/// (so it occurs in no table).
fn lookup(store: &TermStore, p: &Pattern, bindings: &[TermId]) -> Option<TermId> {
    match p {
        Pattern::Var(x) => Some(bindings[*x as usize]).filter(|&t| t != UNBOUND),
        Pattern::Ground(t) => Some(*t),
        Pattern::Func(sym, args) => {
            let ids: Option<Vec<TermId>> =
                args.iter().map(|a| lookup(store, a, bindings)).collect();
            store.lookup(&TermData::Func(*sym, ids?.into()))
        }
    }
}

/// The value of a bound pattern, interning new terms.
fn instantiate(store: &mut TermStore, p: &Pattern, bindings: &[TermId]) -> TermId {
    match p {
        Pattern::Var(x) => bindings[*x as usize],
        Pattern::Ground(t) => *t,
        Pattern::Func(sym, args) => {
            let ids: Box<[TermId]> = args
                .iter()
                .map(|a| instantiate(store, a, bindings))
                .collect();
            store.intern(TermData::Func(*sym, ids))
        }
    }
}

/// The rules of one stratum: the plans, the relations they define and
/// whether those relations are recursive.
#[derive(Clone, Copy)]
pub struct StratumRef<'a> {
    /// The rule plans.
    pub plans: &'a [RulePlan],
    /// The relations defined.
    pub members: &'a [RelId],
    /// Whether they depend on themselves.
    pub recursive: bool,
}

/// Evaluates one stratum — the rules `plans` whose heads are the relations
/// `members` — to its fixpoint. Non-recursive strata take one pass; recursive
/// ones iterate semi-naively: each round, every recursive literal in turn
/// reads only the facts new in the previous round.
pub fn run_stratum(
    stratum: StratumRef<'_>,
    store: &mut TermStore,
    tables: &mut [Table],
    demand: &DemandPlans,
    cache: &mut DemandCache,
    budget: usize,
) -> bool {
    let mut run = StratumRun {
        store,
        tables,
        demand,
        cache,
        budget,
        derived: Vec::new(),
    };
    if stratum.recursive {
        run.semi_naive(stratum.plans, stratum.members)
    } else {
        run.single_pass(stratum.plans)
    }
}

/// The evaluation of one stratum: what its rules read and write.
struct StratumRun<'a> {
    store: &'a mut TermStore,
    tables: &'a mut [Table],
    demand: &'a DemandPlans,
    cache: &'a mut DemandCache,
    /// Most facts a relation (and most head tuples a rule) may reach.
    budget: usize,
    /// The head tuples of the rule run last, not yet added to the tables.
    derived: Vec<Tuple>,
}

impl StratumRun<'_> {
    /// Runs one rule plan, reading `ranges` of the relations it scans (all
    /// of them without), its head tuples into `derived`; `false` if it
    /// stopped at the budget.
    fn rule(&mut self, plan: &RulePlan, ranges: Option<&Ranges>) -> bool {
        let mut cx = Context {
            store: &mut *self.store,
            tables: &*self.tables,
            demand: self.demand,
            cache: &mut *self.cache,
            budget: self.budget,
        };
        run_rule(plan, &mut cx, ranges, &mut self.derived)
    }

    /// A non-recursive stratum: each rule once, its facts added before the
    /// next rule runs; `false` past the budget.
    fn single_pass(&mut self, plans: &[RulePlan]) -> bool {
        for plan in plans {
            let within = self.rule(plan, None);
            for row in self.derived.drain(..) {
                self.tables[plan.head_rel].insert(row, self.store);
            }
            if !within || self.tables[plan.head_rel].len() as usize > self.budget {
                return false;
            }
        }
        true
    }

    /// A recursive stratum, to its fixpoint: every rule over everything, then
    /// rounds over the facts new in the previous round until none is new;
    /// `false` past the budget.
    fn semi_naive(&mut self, plans: &[RulePlan], members: &[RelId]) -> bool {
        // Round 0: everything, from the facts of lower strata.
        let mut delta_start: Vec<u32> = members.iter().map(|&r| self.tables[r].len()).collect();
        let mut pending: Vec<(RelId, Tuple)> = Vec::new();
        for plan in plans {
            if !self.rule(plan, None) {
                return false;
            }
            pending.extend(self.derived.drain(..).map(|row| (plan.head_rel, row)));
        }
        loop {
            let mut grew = false;
            for (rel, row) in pending.drain(..) {
                grew |= self.tables[rel].insert(row, self.store);
            }
            if !grew {
                return true;
            }
            if members
                .iter()
                .any(|&r| self.tables[r].len() as usize > self.budget)
            {
                return false;
            }
            let end: Vec<u32> = members.iter().map(|&r| self.tables[r].len()).collect();
            let delta = Delta {
                members,
                start: &delta_start,
                end: &end,
            };
            if !self.delta_round(plans, &delta, &mut pending) {
                return false;
            }
            delta_start = end;
        }
    }

    /// One semi-naive round: every rule once per literal of a stratum
    /// relation that grew, that literal reading only the new facts, the
    /// head tuples into `pending`; `false` past the budget.
    fn delta_round(
        &mut self,
        plans: &[RulePlan],
        delta: &Delta<'_>,
        pending: &mut Vec<(RelId, Tuple)>,
    ) -> bool {
        for plan in plans {
            for (i, step) in plan.steps.iter().enumerate() {
                let (Step::Scan { rel, .. } | Step::Check { rel, .. }) = step else {
                    continue;
                };
                let Some(m) = delta.member(*rel) else {
                    continue;
                };
                if delta.start[m] == delta.end[m] {
                    continue;
                }
                let ranges = self.delta_ranges(plan, i, delta);
                if !self.rule(plan, Some(&ranges)) {
                    return false;
                }
                pending.extend(self.derived.drain(..).map(|row| (plan.head_rel, row)));
            }
        }
        true
    }

    /// The rows each step of `plan` reads when step `i` reads only the new
    /// facts: the other steps read every fact so far.
    fn delta_ranges(&self, plan: &RulePlan, i: usize, delta: &Delta<'_>) -> Vec<(u32, u32)> {
        plan.steps
            .iter()
            .enumerate()
            .map(|(j, s)| match s {
                Step::Scan { rel, .. } | Step::Check { rel, .. } => match delta.member(*rel) {
                    Some(n) if j == i => (delta.start[n], delta.end[n]),
                    Some(n) => (0, delta.end[n]),
                    None => (0, self.tables[*rel].len()),
                },
                _ => (0, 0),
            })
            .collect()
    }
}

/// The facts new in a round of a recursive stratum: of each member relation,
/// the rows from `start` to `end`.
struct Delta<'a> {
    members: &'a [RelId],
    start: &'a [u32],
    end: &'a [u32],
}

impl Delta<'_> {
    /// The position of `rel` among the stratum's relations, if it is one.
    fn member(&self, rel: RelId) -> Option<usize> {
        self.members.iter().position(|&m| m == rel)
    }
}
