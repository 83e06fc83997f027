//! The reference interpreter: stratified bottom-up evaluation of the checked
//! rules, implementing [`gdl_runtime::Reasoner`].
//!
//! Plain and obviously correct rather than fast: every relation is a table of
//! ground tuples, every rule a nested-loop join over hash indexes, every
//! stratum a fixpoint. Static relations are computed once; the relations that
//! depend on `true` are computed per state and those that depend on `does`
//! per joint move, each only for the phase (legal, next, terminal, goal) that
//! needs them. It is the oracle the compiled reasoners are tested against.

mod eval;
mod plan;
mod table;

use crate::graph::{Polarity, RelationGraph};
use crate::ir::limits::exceeded;
pub use crate::ir::limits::{catch_limit, quiet_resource_limits, ResourceLimit, MAX_TERMS};
use crate::ir::terms::{TermData, TermId, TermStore};
use crate::ir::written_name;
use crate::ir::{Class, Phase};
use crate::normal::NormalRule;
use crate::syntax::ast::{Relation, Term};
use crate::Loaded;
use eval::{DemandCache, DemandPlans};
use gdl_runtime::{kif, Reasoner};
use petgraph::visit::EdgeRef;
use plan::{call_inputs, Adornment, CallMode, Planner, RelId, RulePlan, Step};
use rustc_hash::FxHashMap;
use std::path::Path;
use table::Table;

/// Most facts one relation may hold before the interpreter gives up.
pub const MAX_ROWS: usize = 10_000_000;
/// Most facts of a static relation materialized at load time; a larger one
/// (a relation written for a top-down prover, such as a 10-ary
/// "exactly one of" table) is answered on demand instead.
const STATIC_BUDGET: usize = 2_000_000;

/// A strongly connected component of relations with the plans of its rules.
struct Stratum {
    members: Vec<RelId>,
    plans: Vec<RulePlan>,
    recursive: bool,
    class: Class,
}

impl Stratum {
    fn as_ref(&self) -> eval::StratumRef<'_> {
        eval::StratumRef {
            plans: &self.plans,
            members: &self.members,
            recursive: self.recursive,
        }
    }
}

/// A game state of the interpreter: the ids of its true fluents, sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State(Vec<TermId>);

/// A move of the interpreter: the id of its term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move(TermId);

/// The reference interpreter for one game description.
pub struct Interpreter {
    store: TermStore,
    tables: Vec<Table>,
    strata: Vec<Stratum>,
    evaluated: Vec<bool>,
    demand: DemandPlans,
    cache: DemandCache,
    /// The class of each called form's relation.
    form_class: Vec<Class>,
    /// Strata each phase needs, in evaluation order.
    phases: [Vec<usize>; 4],
    /// Relations each phase reads its answer from.
    answers: [Vec<RelId>; 4],
    true_rel: RelId,
    does_rel: RelId,
    roles: Vec<String>,
    role_terms: Vec<TermId>,
    initial: State,
    current: Option<State>,
    /// Every relation, by [`RelId`].
    relations: Vec<Relation>,
    /// What each relation depends on.
    classes: Vec<Class>,
    /// The stratum of each relation.
    component_of: Vec<usize>,
}

/// The facts of one static relation, as computed at load time.
pub struct StaticFacts {
    /// The relation (its name refined as in the checked rules).
    pub relation: Relation,
    /// Its ground tuples, or `None` when the relation is too large to
    /// materialize (the interpreter answers it on demand).
    pub rows: Option<Vec<Vec<kif::Term>>>,
}

impl Interpreter {
    /// Loads, checks and prepares the description at `path`.
    pub fn from_path(path: &Path) -> Result<Self, crate::Error> {
        Ok(Self::new(&crate::load_path(path)?))
    }

    /// Prepares a checked description.
    pub fn new(loaded: &Loaded) -> Self {
        Self::from_rules(&loaded.analysis.rules)
    }

    /// Prepares checked normal-form rules.
    pub fn from_rules(rules: &[NormalRule]) -> Self {
        let mut graph = RelationGraph::new(rules);
        let true_node = graph.add(Relation {
            name: "true".into(),
            arity: 1,
        });
        let does_node = graph.add(Relation {
            name: "does".into(),
            arity: 2,
        });
        let relations: Vec<Relation> = graph.graph.node_weights().cloned().collect();
        let keyword = |name: &str, arity: usize| -> Vec<RelId> {
            relations
                .iter()
                .enumerate()
                .filter(|(_, r)| written_name(&r.name) == name && r.arity == arity)
                .map(|(i, _)| i)
                .collect()
        };
        let answers = [
            keyword("legal", 2),
            keyword("next", 1),
            keyword("terminal", 0),
            keyword("goal", 2),
        ];
        let roles_rel = keyword("role", 1);
        let init_rel = keyword("init", 1);

        let mut store = TermStore::default();
        let mut tables: Vec<Table> = relations
            .iter()
            .map(|r| Table::new(r.to_string()))
            .collect();

        // Classes, in topological order of the components.
        let components = graph.components();
        let mut class = vec![Class::Static; relations.len()];
        class[true_node.index()] = Class::State;
        class[does_node.index()] = Class::Move;
        let mut component_of = vec![0; relations.len()];
        for (c, scc) in components.iter().enumerate() {
            let mut k = scc
                .iter()
                .map(|n| class[n.index()])
                .max()
                .unwrap_or(Class::Static);
            for &n in scc {
                component_of[n.index()] = c;
                for e in graph.graph.edges_directed(n, petgraph::Direction::Incoming) {
                    k = k.max(class[e.source().index()]);
                }
            }
            for &n in scc {
                class[n.index()] = k;
            }
        }

        let rel_of = |atom: &crate::syntax::ast::Atom| {
            graph
                .get(&atom.relation())
                .expect("every atom is a graph node")
                .index()
        };
        // Static strata needed by any phase, by the roles or the initial state.
        let mut roots: Vec<Relation> = answers
            .iter()
            .flatten()
            .map(|&r| relations[r].clone())
            .collect();
        roots.extend(
            roles_rel
                .iter()
                .chain(&init_rel)
                .map(|&r| relations[r].clone()),
        );
        let mut needed = vec![false; components.len()];
        for n in graph.cone(&roots) {
            needed[component_of[n.index()]] = true;
        }

        // Plan in topological order, evaluating each needed static stratum
        // at once, so that later plans know the sizes of the tables they read.
        let mut sizes = vec![plan::Size::Unknown; relations.len()];
        sizes[true_node.index()] = plan::Size::Fluents;
        sizes[does_node.index()] = plan::Size::Moves;
        let mut fluents: FxHashMap<u32, usize> = FxHashMap::default();
        let mut strata = Vec::with_capacity(components.len());
        let mut evaluated = vec![false; components.len()];
        let no_demand = DemandPlans::default();
        let mut no_cache = DemandCache::new(0);
        let mut distinct = FxHashMap::default();
        let mut keyword_rels: Vec<RelId> = answers.iter().flatten().copied().collect();
        keyword_rels.extend(&roles_rel);
        keyword_rels.extend(&init_rel);
        // Static relations too large to materialize (answered on demand
        // instead), and static strata evaluated only once the calls exist
        // because they read such relations.
        let mut static_on_demand = vec![false; relations.len()];
        let mut lazy = vec![false; relations.len()];
        let mut deferred: Vec<usize> = Vec::new();
        for (c, scc) in components.iter().enumerate() {
            let members: Vec<RelId> = scc.iter().map(|n| n.index()).collect();
            let recursive = members.len() > 1
                || graph
                    .graph
                    .edges_connecting(scc[0], scc[0])
                    .any(|e| matches!(e.weight(), Polarity::Positive | Polarity::Negative));
            let mut planner = Planner {
                store: &mut store,
                tables: &mut tables,
                rel_of: &rel_of,
                sizes: &sizes,
                fluents: &fluents,
                distinct: std::mem::take(&mut distinct),
            };
            let plans: Vec<RulePlan> = rules
                .iter()
                .filter(|r| members.contains(&rel_of(&r.head)))
                .map(|r| planner.plan(r))
                .collect();
            distinct = planner.distinct;
            let stratum = Stratum {
                class: class[members[0]],
                members,
                plans,
                recursive,
            };
            if stratum.class == Class::Static && needed[c] {
                let reads_lazy = stratum
                    .plans
                    .iter()
                    .flat_map(|p| &p.steps)
                    .filter_map(step_relation)
                    .any(|r| lazy[r]);
                let may_wait =
                    stratum.members.len() == 1 && !keyword_rels.contains(&stratum.members[0]);
                let budget = if may_wait { STATIC_BUDGET } else { usize::MAX };
                let complete = !reads_lazy
                    && eval::run_stratum(
                        stratum.as_ref(),
                        &mut store,
                        &mut tables,
                        &no_demand,
                        &mut no_cache,
                        budget,
                    );
                if complete {
                    evaluated[c] = true;
                    for &m in &stratum.members {
                        sizes[m] = plan::Size::Known;
                    }
                } else if reads_lazy && !may_wait {
                    deferred.push(c);
                    stratum.members.iter().for_each(|&m| lazy[m] = true);
                } else {
                    for &m in &stratum.members {
                        tables[m].clear();
                        lazy[m] = true;
                        static_on_demand[m] = true;
                    }
                }
                if init_rel.iter().any(|r| stratum.members.contains(r)) {
                    for &r in &init_rel {
                        for row in tables[r].rows() {
                            *fluents.entry(store.functor_of_term(row[0])).or_default() += 1;
                        }
                    }
                }
            }
            strata.push(stratum);
        }

        // Relations answered on demand: derived, non-recursive, not static, not
        // a keyword the phases read, and never read with no argument bound by
        // a bottom-up plan. Their rules run top-down for each binding a caller
        // asks about, instead of being materialized for every state.
        let mut on_demand = static_on_demand.clone();
        for stratum in &strata {
            if stratum.members.len() == 1
                && stratum.class != Class::Static
                && !stratum.plans.is_empty()
                && !keyword_rels.contains(&stratum.members[0])
            {
                on_demand[stratum.members[0]] = true;
            }
        }
        // Only the plans of materialized relations run bottom-up; excluding a
        // relation makes its own plan run, so repeat until nothing changes.
        loop {
            let mut changed = false;
            for stratum in &strata {
                if on_demand[stratum.members[0]] {
                    continue;
                }
                for step in stratum.plans.iter().flat_map(|p| &p.steps) {
                    if let Some(rel) = step_relation(step) {
                        if on_demand[rel] && !static_on_demand[rel] && call_inputs(step).is_none() {
                            on_demand[rel] = false;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut demand = DemandPlans::default();
        {
            let mut planner = Planner {
                store: &mut store,
                tables: &mut tables,
                rel_of: &rel_of,
                sizes: &sizes,
                fluents: &fluents,
                distinct,
            };
            let mut forms: FxHashMap<Adornment, usize> = FxHashMap::default();
            let mut pending: Vec<usize> = Vec::new();
            for stratum in &mut strata {
                for plan in &mut stratum.plans {
                    to_calls(plan, &on_demand, &mut forms, &mut demand, &mut pending);
                }
            }
            while let Some(form) = pending.pop() {
                let Adornment { rel, inputs } = demand.adornments[form].clone();
                let mut plans: Vec<RulePlan> = rules
                    .iter()
                    .filter(|r| rel_of(&r.head) == rel)
                    .map(|r| planner.plan_called(r, &inputs))
                    .collect();
                for plan in &mut plans {
                    to_calls(plan, &on_demand, &mut forms, &mut demand, &mut pending);
                }
                demand.plans[form] = plans;
            }
        }
        demand.recursive = demand
            .adornments
            .iter()
            .map(|a| strata[component_of[a.rel]].recursive)
            .collect();
        let form_class: Vec<Class> = demand.adornments.iter().map(|a| class[a.rel]).collect();

        let strata_of = |roots: &[RelId]| -> Vec<usize> {
            let roots: Vec<Relation> = roots.iter().map(|&r| relations[r].clone()).collect();
            let mut s: Vec<usize> = graph
                .cone(&roots)
                .iter()
                .filter(|n| !on_demand[n.index()])
                .map(|n| component_of[n.index()])
                .collect();
            s.sort_unstable();
            s.dedup();
            s
        };
        let phases = [
            strata_of(&answers[0]),
            strata_of(&answers[1]),
            strata_of(&answers[2]),
            strata_of(&answers[3]),
        ];

        let mut interpreter = Interpreter {
            store,
            tables,
            evaluated,
            strata,
            cache: DemandCache::new(demand.adornments.len()),
            demand,
            form_class,
            phases,
            answers,
            true_rel: true_node.index(),
            does_rel: does_node.index(),
            roles: Vec::new(),
            role_terms: Vec::new(),
            initial: State(Vec::new()),
            current: None,
            relations: relations.clone(),
            classes: class.clone(),
            component_of: component_of.clone(),
        };

        // Static strata that read relations answered on demand, now that
        // the calls are in place.
        interpreter.evaluate(&deferred);

        // Roles in declaration order: the role facts as written.
        for rule in rules
            .iter()
            .filter(|r| written_name(&r.head.name) == "role" && r.head.args.len() == 1)
        {
            let id = interpreter.ground(&rule.head.args[0]);
            if !interpreter.role_terms.contains(&id) {
                interpreter.role_terms.push(id);
                interpreter.roles.push(interpreter.store.text(id));
            }
        }
        let mut init: Vec<TermId> = init_rel
            .iter()
            .flat_map(|&r| {
                interpreter.tables[r]
                    .rows()
                    .map(|row| row[0])
                    .collect::<Vec<_>>()
            })
            .collect();
        init.sort_unstable();
        init.dedup();
        interpreter.initial = State(init);
        interpreter
    }

    /// Every static relation (depending on neither `true` nor `does`) that
    /// some phase, the roles or the initial state need, with its facts: the
    /// compiler keeps them as constant tables.
    pub fn static_facts(&self) -> Vec<StaticFacts> {
        (0..self.relations.len())
            .filter(|&r| self.classes[r] == Class::Static)
            .map(|r| StaticFacts {
                relation: self.relations[r].clone(),
                rows: self.evaluated[self.component_of[r]].then(|| {
                    self.tables[r]
                        .rows()
                        .map(|row| row.iter().map(|&t| self.store.kif(t)).collect())
                        .collect()
                }),
            })
            .collect()
    }

    /// The fluents of the initial state, as terms.
    pub fn initial_fluents(&self) -> Vec<kif::Term> {
        self.initial.0.iter().map(|&t| self.store.kif(t)).collect()
    }

    /// The role terms in declaration order.
    pub fn role_terms(&self) -> Vec<kif::Term> {
        self.role_terms.iter().map(|&t| self.store.kif(t)).collect()
    }

    fn ground(&mut self, term: &Term) -> TermId {
        match term {
            Term::Const(name, _) => self.store.constant(name),
            Term::Var(..) => unreachable!("role facts are ground (checked)"),
            Term::Func(name, args, _) => {
                let sym = self.store.symbol(name);
                let ids: Box<[TermId]> = args.iter().map(|a| self.ground(a)).collect();
                self.store.intern(TermData::Func(sym, ids))
            }
        }
    }

    /// Evaluates the strata in `order` that are not evaluated yet.
    fn evaluate(&mut self, order: &[usize]) {
        for &s in order {
            if self.evaluated[s] {
                continue;
            }
            let stratum = &self.strata[s];
            eval::run_stratum(
                stratum.as_ref(),
                &mut self.store,
                &mut self.tables,
                &self.demand,
                &mut self.cache,
                usize::MAX,
            );
            self.evaluated[s] = true;
        }
    }

    /// Makes `state` the state that `true` describes.
    fn load_state(&mut self, state: &State) {
        if self.current.as_ref() == Some(state) {
            return;
        }
        for (s, stratum) in self.strata.iter().enumerate() {
            if stratum.class != Class::Static {
                self.evaluated[s] = false;
                for &r in &stratum.members {
                    self.tables[r].clear();
                }
            }
        }
        self.tables[self.true_rel].clear();
        self.tables[self.does_rel].clear();
        for (form, &class) in self.form_class.iter().enumerate() {
            if class != Class::Static {
                self.cache.clear(form);
            }
        }
        for &f in &state.0 {
            self.tables[self.true_rel].insert(Box::new([f]), &self.store);
        }
        self.current = Some(state.clone());
    }

    /// Makes `joint` the moves that `does` describes (in the loaded state).
    fn load_moves(&mut self, joint: &[Move]) {
        for (s, stratum) in self.strata.iter().enumerate() {
            if stratum.class == Class::Move {
                self.evaluated[s] = false;
                for &r in &stratum.members {
                    self.tables[r].clear();
                }
            }
        }
        self.tables[self.does_rel].clear();
        for (form, &class) in self.form_class.iter().enumerate() {
            if class == Class::Move {
                self.cache.clear(form);
            }
        }
        for (&role, mv) in self.role_terms.iter().zip(joint) {
            self.tables[self.does_rel].insert(Box::new([role, mv.0]), &self.store);
        }
    }

    fn answer(&mut self, state: &State, phase: Phase) -> impl Iterator<Item = &[TermId]> {
        self.load_state(state);
        let order = std::mem::take(&mut self.phases[phase as usize]);
        self.evaluate(&order);
        self.phases[phase as usize] = order;
        self.answers[phase as usize]
            .iter()
            .flat_map(|&r| self.tables[r].rows())
    }
}

impl Reasoner for Interpreter {
    type State = State;
    type Move = Move;

    fn roles(&self) -> &[String] {
        &self.roles
    }

    fn initial_state(&mut self) -> State {
        self.initial.clone()
    }

    fn is_terminal(&mut self, state: &State) -> bool {
        self.answer(state, Phase::Terminal).next().is_some()
    }

    fn legal_moves(&mut self, state: &State, role: usize, out: &mut Vec<Move>) {
        out.clear();
        let who = self.role_terms[role];
        let rows: Vec<TermId> = self
            .answer(state, Phase::Legal)
            .filter(|row| row[0] == who)
            .map(|row| row[1])
            .collect();
        for m in rows {
            if !out.contains(&Move(m)) {
                out.push(Move(m));
            }
        }
    }

    fn next_state(&mut self, state: &State, joint: &[Move]) -> State {
        self.load_state(state);
        self.load_moves(joint);
        let mut next: Vec<TermId> = self.answer(state, Phase::Next).map(|row| row[0]).collect();
        next.sort_unstable();
        next.dedup();
        State(next)
    }

    fn goal(&mut self, state: &State, role: usize) -> Option<u32> {
        let who = self.role_terms[role];
        let mut values: Vec<TermId> = self
            .answer(state, Phase::Goal)
            .filter(|row| row[0] == who)
            .map(|row| row[1])
            .collect();
        values.sort_unstable();
        values.dedup();
        match values[..] {
            [v] => self.store.number(v),
            _ => None,
        }
    }

    fn move_text(&self, _role: usize, mv: Move) -> String {
        self.store.text(mv.0)
    }

    fn parse_move(&mut self, _role: usize, text: &str) -> Option<Move> {
        Some(Move(self.store.term(&kif::parse_term(text)?)))
    }

    fn fluents(&self, state: &State) -> Vec<String> {
        let mut texts: Vec<String> = state.0.iter().map(|&f| self.store.text(f)).collect();
        texts.sort();
        texts
    }

    fn state_hash(&self, state: &State) -> u64 {
        state
            .0
            .iter()
            .map(|&f| gdl_runtime::zobrist_key(&self.store.text(f)))
            .fold(0, |h, k| h ^ k)
    }
}

/// The relation a step reads, if any.
fn step_relation(step: &Step) -> Option<RelId> {
    match step {
        Step::Check { rel, .. }
        | Step::Scan { rel, .. }
        | Step::Neg { rel, .. }
        | Step::Call { rel, .. } => Some(*rel),
        Step::Distinct(..) | Step::Same(..) => None,
    }
}

/// Turns the steps of `plan` that read relations answered on demand into
/// calls, registering each new called form in `demand` and `pending`.
fn to_calls(
    plan: &mut RulePlan,
    on_demand: &[bool],
    forms: &mut FxHashMap<Adornment, usize>,
    demand: &mut DemandPlans,
    pending: &mut Vec<usize>,
) {
    for step in &mut plan.steps {
        let Some(rel) = step_relation(step) else {
            continue;
        };
        if !on_demand[rel] || matches!(step, Step::Call { .. }) {
            continue;
        }
        let (inputs, mode) = match call_inputs(step) {
            Some((_, inputs, mode)) => (inputs, mode),
            None => (Box::default(), CallMode::Scan),
        };
        let adornment = Adornment { rel, inputs };
        let form = *forms.entry(adornment.clone()).or_insert_with(|| {
            demand.adornments.push(adornment);
            demand.plans.push(Vec::new());
            demand.recursive.push(false);
            pending.push(demand.adornments.len() - 1);
            demand.adornments.len() - 1
        });
        let args = match step {
            Step::Check { args, .. } | Step::Scan { args, .. } | Step::Neg { args, .. } => {
                args.clone()
            }
            _ => unreachable!("calls and filters are skipped above"),
        };
        *step = Step::Call {
            rel,
            args,
            adornment: form,
            mode,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceFile;

    fn interpreter(text: &str) -> Interpreter {
        let loaded = crate::load_source(SourceFile {
            name: "t.kif".into(),
            text: text.into(),
        })
        .unwrap_or_else(|e| panic!("{e}"));
        Interpreter::new(&loaded)
    }

    fn legal(r: &mut Interpreter, s: &State) -> Vec<String> {
        let mut moves = Vec::new();
        r.legal_moves(s, 0, &mut moves);
        let mut t: Vec<String> = moves.iter().map(|&m| r.move_text(0, m)).collect();
        t.sort();
        t
    }

    /// A counter with a recursive `less` over a successor table, function
    /// terms in fluents, `init` with a body, `or` and `not`.
    const COUNTER: &str = "
        (role p)
        (succ 0 1) (succ 1 2) (succ 2 3)
        (<= (less ?x ?y) (succ ?x ?y))
        (<= (less ?x ?z) (succ ?x ?y) (less ?y ?z))
        (<= (init (count ?n)) (succ ?n 1))
        (<= (legal p (add ?k)) (true (count ?n)) (less ?n ?k) (not (true (count 2))))
        (<= (legal p stop) (or (true (count 2)) (true (count 3))))
        (<= (next (count ?k)) (does p (add ?k)))
        (<= (next (stopped (at ?n))) (does p stop) (true (count ?n)))
        (<= terminal (true (stopped ?x)))
        (<= (goal p ?n) (true (stopped (at ?n))) (succ ?n ?m))
        (<= (has_succ ?n) (succ ?n ?m))
        (<= (goal p 99) (true (stopped (at ?n))) (not (has_succ ?n)))";

    #[test]
    fn recursion_function_terms_and_negation() {
        let mut r = interpreter(COUNTER);
        let s0 = r.initial_state();
        assert_eq!(r.fluents(&s0), ["(count 0)"]);
        assert_eq!(legal(&mut r, &s0), ["(add 1)", "(add 2)", "(add 3)"]);
        let add2 = r.parse_move(0, "(add 2)").unwrap();
        let s1 = r.next_state(&s0, &[add2]);
        assert_eq!(r.fluents(&s1), ["(count 2)"]);
        assert_eq!(legal(&mut r, &s1), ["stop"]);
        let stop = r.parse_move(0, "stop").unwrap();
        let s2 = r.next_state(&s1, &[stop]);
        assert_eq!(r.fluents(&s2), ["(stopped (at 2))"]);
        assert!(r.is_terminal(&s2) && !r.is_terminal(&s1));
        assert_eq!(r.goal(&s2, 0), Some(2));
        // Going back to an earlier state gives the earlier answers.
        assert_eq!(legal(&mut r, &s0), ["(add 1)", "(add 2)", "(add 3)"]);
        let add3 = r.parse_move(0, "(add 3)").unwrap();
        let s3 = r.next_state(&s0, &[add3]);
        assert_eq!(legal(&mut r, &s3), ["stop"]);
        let s4 = r.next_state(&s3, &[stop]);
        assert_eq!(r.goal(&s4, 0), Some(99));
    }

    #[test]
    fn a_role_with_two_goal_values_has_none() {
        let mut r =
            interpreter("(role p) (goal p 10) (goal p 20) (legal p x) (<= terminal (true z))");
        let s0 = r.initial_state();
        assert_eq!(r.goal(&s0, 0), None);
    }

    #[test]
    fn relations_answered_on_demand_build_new_terms() {
        // `pair` is read only with its first argument bound, so it is
        // answered on demand; the answer `(pair 1 (wrap 1))` builds a term
        // that no table holds before the call.
        let mut r = interpreter(
            "(role p) (init (n 1)) (legal p go)
             (<= (pair ?x (wrap ?x)) (true (n ?x)))
             (<= (next (got ?w)) (true (n ?x)) (pair ?x ?w))
             (<= (next (checked)) (true (n ?x)) (pair ?x (wrap 1)))
             (<= terminal (true (got ?w)))
             (goal p 100)",
        );
        let s0 = r.initial_state();
        let go = r.parse_move(0, "go").unwrap();
        let s1 = r.next_state(&s0, &[go]);
        assert_eq!(r.fluents(&s1), ["(checked)", "(got (wrap 1))"]);
    }

    #[test]
    fn recursive_relations_on_demand_handle_cycles() {
        // `reach` is recursive and read with its first argument bound, so it
        // is answered on demand; the edges in the state form a cycle
        // a -> b -> c -> a, with an exit c -> d.
        let mut r = interpreter(
            "(role p)
             (init (edge a b)) (init (edge b c)) (init (edge c a)) (init (edge c d)) (init (at a))
             (<= (reach ?x ?y) (true (edge ?x ?y)))
             (<= (reach ?x ?z) (true (edge ?x ?y)) (reach ?y ?z))
             (<= (legal p (go ?y)) (true (at ?x)) (reach ?x ?y))
             (<= (legal p loop) (true (at ?x)) (reach ?x ?x))
             (<= (next (at ?y)) (does p (go ?y)))
             (<= (next (edge ?x ?y)) (true (edge ?x ?y)))
             (<= terminal (true (at d)))
             (goal p 100)",
        );
        let s0 = r.initial_state();
        assert_eq!(
            legal(&mut r, &s0),
            ["(go a)", "(go b)", "(go c)", "(go d)", "loop"]
        );
        let go_d = r.parse_move(0, "(go d)").unwrap();
        let s1 = r.next_state(&s0, &[go_d]);
        assert!(r.is_terminal(&s1));
        assert_eq!(legal(&mut r, &s1), Vec::<String>::new());
        let go_b = r.parse_move(0, "(go b)").unwrap();
        let s2 = r.next_state(&s0, &[go_b]);
        assert_eq!(
            legal(&mut r, &s2),
            ["(go a)", "(go b)", "(go c)", "(go d)", "loop"]
        );
    }

    #[test]
    fn mutually_recursive_calls_reach_their_fixpoint() {
        // `count` walks a 4x4 board row by row, wrapping with the cyclic
        // `after`; counting an empty board calls forms of `count` with
        // different bound arguments that depend on each other.
        let mut text = String::from(
            "(role p) (after 1 2) (after 2 3) (after 3 4) (after 4 1)
             (succ 0 1) (succ 1 2) (succ 2 3)
             (<= (number ?x) (succ ?x ?y)) (<= (number ?y) (succ ?x ?y))
             (<= (here ?x ?y ?i ?o) (true (cell ?x ?y o)) (succ ?i ?o))
             (<= (here ?x ?y ?i ?i) (true (cell ?x ?y ?c)) (distinct ?c o) (number ?i))
             (<= (count 4 4 ?n1 ?n) (here 4 4 ?n1 ?n))
             (<= (count ?x 4 ?n1 ?n) (after ?x ?x1) (distinct ?x 4) (here ?x 4 ?n1 ?n2) (count ?x1 1 ?n2 ?n))
             (<= (count ?x ?y ?n1 ?n) (after ?y ?y1) (distinct ?y 4) (here ?x ?y ?n1 ?n2) (count ?x ?y1 ?n2 ?n))
             (<= (goal p 100) (count 1 1 0 0))
             (<= (goal p 50) (count 1 1 0 ?n) (distinct ?n 0))
             (legal p noop) (<= terminal (true (cell 1 1 b)))",
        );
        for x in 1..=4 {
            for y in 1..=4 {
                let mark = if (x, y) == (2, 3) { "o" } else { "b" };
                text.push_str(&format!(" (init (cell {x} {y} {mark}))"));
            }
        }
        let mut r = interpreter(&text);
        let s0 = r.initial_state();
        assert_eq!(r.goal(&s0, 0), Some(50));
        let mut empty = interpreter(&text.replace("(cell 2 3 o)", "(cell 2 3 b)"));
        let s0 = empty.initial_state();
        assert_eq!(empty.goal(&s0, 0), Some(100));
    }

    #[test]
    fn a_static_relation_too_large_to_materialize_is_answered_on_demand() {
        // `big` has 8^7 (about 2.1 million) facts, more than the static
        // budget, so it is not materialized; its callers bind every argument.
        let mut r = interpreter(
            "(role p) (index 1) (index 2) (index 3) (index 4) (index 5) (index 6) (index 7) (index 8)
             (<= (big ?a ?b ?c ?d ?e ?f ?g)
                 (index ?a) (index ?b) (index ?c) (index ?d) (index ?e) (index ?f) (index ?g))
             (<= (legal p ok) (big 1 2 3 4 5 6 7))
             (<= (legal p no) (big 1 2 3 4 5 6 9))
             (<= (next done) (does p ok))
             (<= terminal (true done))
             (goal p 100)",
        );
        let s0 = r.initial_state();
        assert_eq!(legal(&mut r, &s0), ["ok"]);
        assert!(!r.tables.iter().any(|t| t.len() as usize > STATIC_BUDGET));
    }
}
