//! Building the interpreter from checked rules: the relations and their
//! classes, the rule plans in topological order (each needed static stratum
//! evaluated as soon as it is planned, so that later plans know its size),
//! the relations answered on demand and the plans of their called forms, the
//! strata each phase needs, the roles and the initial state.

use super::eval::{self, DemandCache, DemandPlans};
use super::plan::{self, call_inputs, Adornment, CallMode, Planner, RelId, RulePlan, Step};
use super::table::Table;
use super::{Interpreter, State, Stratum};
use crate::graph::{Polarity, RelationGraph};
use crate::ir::terms::{TermData, TermId, TermStore};
use crate::ir::{written_name, Class, PHASES};
use crate::normal::NormalRule;
use crate::syntax::ast::{Atom, Relation, Term};
use petgraph::graph::NodeIndex;
use rustc_hash::FxHashMap;

impl Interpreter {
    /// Prepares checked normal-form rules.
    pub fn from_rules(rules: &[NormalRule]) -> Self {
        Builder::new(rules).build()
    }
}

/// Most facts of a static relation materialized at load time; a larger one
/// (a relation written for a top-down prover, such as a 10-ary
/// "exactly one of" table) is answered on demand instead.
pub(super) const STATIC_BUDGET: usize = 2_000_000;

/// An interpreter in the making: the relations, and the tables and strata
/// that planning and the evaluation of static strata fill in.
pub(super) struct Builder<'r> {
    rules: &'r [NormalRule],
    graph: RelationGraph,
    /// Every relation, by [`RelId`] (the order of the graph's nodes).
    relations: Vec<Relation>,
    true_rel: RelId,
    does_rel: RelId,
    /// Relations each phase reads its answer from.
    answers: [Vec<RelId>; PHASES],
    /// The `init` relations.
    init_rel: Vec<RelId>,
    /// The relations the phases, the roles and the initial state read.
    keyword_rels: Vec<RelId>,
    /// The strongly connected components of the graph, in topological order.
    components: Vec<Vec<NodeIndex>>,
    /// What each relation depends on.
    class: Vec<Class>,
    /// The component (and stratum) of each relation.
    component_of: Vec<usize>,
    store: TermStore,
    tables: Vec<Table>,
    /// What the planner knows of each relation's size.
    sizes: Vec<plan::Size>,
    /// How many initial fluents have each functor.
    fluents: FxHashMap<u32, usize>,
    /// The planner's counts of distinct values, kept from plan to plan.
    distinct: FxHashMap<(RelId, usize), usize>,
    /// The strata planned so far, one per component.
    strata: Vec<Stratum>,
    /// Whether each stratum's tables are complete.
    evaluated: Vec<bool>,
    /// Static relations too large to materialize (answered on demand).
    static_on_demand: Vec<bool>,
    /// Relations whose tables are not filled at load time.
    lazy: Vec<bool>,
    /// Static strata evaluated only once the calls exist, because they read
    /// relations answered on demand.
    deferred: Vec<usize>,
}

impl<'r> Builder<'r> {
    /// The relations of `rules` (with `true` and `does`), their classes and
    /// components, and empty tables.
    pub(super) fn new(rules: &'r [NormalRule]) -> Self {
        let (graph, true_node, does_node) = RelationGraph::with_inputs(rules);
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
            keyword("sees", 2),
        ];
        let roles_rel = keyword("role", 1);
        let init_rel = keyword("init", 1);
        let mut keyword_rels: Vec<RelId> = answers.iter().flatten().copied().collect();
        keyword_rels.extend(&roles_rel);
        keyword_rels.extend(&init_rel);
        let tables = relations
            .iter()
            .map(|r| Table::new(r.to_string()))
            .collect();
        let components = graph.components();
        let mut sizes = vec![plan::Size::Unknown; relations.len()];
        sizes[true_node.index()] = plan::Size::Fluents;
        sizes[does_node.index()] = plan::Size::Moves;
        Builder {
            rules,
            class: graph.classes(true_node, does_node),
            component_of: graph.component_of(),
            true_rel: true_node.index(),
            does_rel: does_node.index(),
            answers,
            init_rel,
            keyword_rels,
            store: TermStore::default(),
            tables,
            sizes,
            fluents: FxHashMap::default(),
            distinct: FxHashMap::default(),
            strata: Vec::with_capacity(components.len()),
            evaluated: vec![false; components.len()],
            static_on_demand: vec![false; relations.len()],
            lazy: vec![false; relations.len()],
            deferred: Vec::new(),
            components,
            relations,
            graph,
        }
    }

    /// The interpreter of the rules.
    pub(super) fn build(mut self) -> Interpreter {
        self.plan_strata();
        let on_demand = self.on_demand();
        let demand = self.plan_calls(&on_demand);
        self.finish(demand, &on_demand)
    }

    /// Plans every stratum in topological order, evaluating each needed
    /// static stratum at once, so that later plans know the sizes of the
    /// tables they read.
    fn plan_strata(&mut self) {
        let needed = self.needed_components();
        for (c, needed) in needed.into_iter().enumerate() {
            let stratum = self.plan_stratum(c);
            if stratum.class == Class::Static && needed {
                self.evaluate_static(c, &stratum);
            }
            self.strata.push(stratum);
        }
    }

    /// Whether each component is needed by a phase, by the roles or by the
    /// initial state.
    fn needed_components(&self) -> Vec<bool> {
        let roots: Vec<Relation> = self
            .keyword_rels
            .iter()
            .map(|&r| self.relations[r].clone())
            .collect();
        let mut needed = vec![false; self.components.len()];
        for n in self.graph.cone(&roots) {
            needed[self.component_of[n.index()]] = true;
        }
        needed
    }

    /// The stratum of component `c`, its rules planned bottom-up.
    fn plan_stratum(&mut self, c: usize) -> Stratum {
        let scc = &self.components[c];
        let members: Vec<RelId> = scc.iter().map(|n| n.index()).collect();
        let recursive = members.len() > 1
            || self
                .graph
                .graph
                .edges_connecting(scc[0], scc[0])
                .any(|e| matches!(e.weight(), Polarity::Positive | Polarity::Negative));
        let graph = &self.graph;
        let rel_of = |atom: &Atom| relation_id(graph, atom);
        let mut planner = Planner {
            store: &mut self.store,
            tables: &mut self.tables,
            rel_of: &rel_of,
            sizes: &self.sizes,
            fluents: &self.fluents,
            distinct: std::mem::take(&mut self.distinct),
        };
        let plans: Vec<RulePlan> = self
            .rules
            .iter()
            .filter(|r| members.contains(&rel_of(&r.head)))
            .map(|r| planner.plan(r))
            .collect();
        self.distinct = planner.distinct;
        Stratum {
            class: self.class[members[0]],
            members,
            plans,
            recursive,
        }
    }

    /// Evaluates the needed static stratum `c`. A relation alone in its
    /// stratum and not read by the phases, the roles or the initial state
    /// may wait: evaluated within the static budget, it is answered on
    /// demand when larger. A stratum that reads relations not materialized
    /// is answered on demand when it may wait, and evaluated once the calls
    /// exist when not. Once `init` is known, its fluents are counted for the
    /// planner.
    fn evaluate_static(&mut self, c: usize, stratum: &Stratum) {
        let reads_lazy = stratum
            .plans
            .iter()
            .flat_map(|p| &p.steps)
            .filter_map(step_relation)
            .any(|r| self.lazy[r]);
        let may_wait =
            stratum.members.len() == 1 && !self.keyword_rels.contains(&stratum.members[0]);
        let budget = if may_wait { STATIC_BUDGET } else { usize::MAX };
        let complete = !reads_lazy
            && eval::run_stratum(
                stratum.as_ref(),
                &mut self.store,
                &mut self.tables,
                &DemandPlans::default(),
                &mut DemandCache::new(0),
                budget,
            );
        if complete {
            self.evaluated[c] = true;
            for &m in &stratum.members {
                self.sizes[m] = plan::Size::Known;
            }
        } else if reads_lazy && !may_wait {
            self.deferred.push(c);
            stratum.members.iter().for_each(|&m| self.lazy[m] = true);
        } else {
            for &m in &stratum.members {
                self.tables[m].clear();
                self.lazy[m] = true;
                self.static_on_demand[m] = true;
            }
        }
        if self.init_rel.iter().any(|r| stratum.members.contains(r)) {
            for &r in &self.init_rel {
                for row in self.tables[r].rows() {
                    *self
                        .fluents
                        .entry(self.store.functor_of_term(row[0]))
                        .or_default() += 1;
                }
            }
        }
    }

    /// Which relations are answered on demand: the static ones too large to
    /// materialize, and the derived, non-static ones that are not a keyword
    /// the phases read, unless a bottom-up plan reads them with no argument
    /// bound. Their rules run top-down for each binding a caller asks about,
    /// instead of being materialized for every state. A component of
    /// several relations is answered on demand only when it reads a static
    /// relation answered on demand (which cannot be scanned whole), its
    /// relations tabled together, or all materialized.
    fn on_demand(&self) -> Vec<bool> {
        let mut on_demand = self.static_on_demand.clone();
        for stratum in &self.strata {
            if stratum.class != Class::Static
                && !stratum.plans.is_empty()
                && (stratum.members.len() == 1 || self.reads_static_on_demand(stratum))
                && !stratum
                    .members
                    .iter()
                    .any(|m| self.keyword_rels.contains(m))
            {
                stratum.members.iter().for_each(|&m| on_demand[m] = true);
            }
        }
        self.materialize_scanned(&mut on_demand);
        on_demand
    }

    /// Whether the rules of `stratum` read a static relation answered on
    /// demand.
    fn reads_static_on_demand(&self, stratum: &Stratum) -> bool {
        let mut steps = stratum.plans.iter().flat_map(|p| &p.steps);
        steps.any(|s| step_relation(s).is_some_and(|r| self.static_on_demand[r]))
    }

    /// Takes out of `on_demand` the relations a bottom-up plan reads with no
    /// argument bound, with the rest of their component. Only the plans of
    /// materialized relations run bottom-up; excluding a relation makes its
    /// own plan run, so this repeats until nothing changes.
    fn materialize_scanned(&self, on_demand: &mut [bool]) {
        loop {
            let mut changed = false;
            for stratum in &self.strata {
                if on_demand[stratum.members[0]] {
                    continue;
                }
                for step in stratum.plans.iter().flat_map(|p| &p.steps) {
                    if let Some(rel) = step_relation(step) {
                        if on_demand[rel]
                            && !self.static_on_demand[rel]
                            && call_inputs(step).is_none()
                        {
                            let component = &self.strata[self.component_of[rel]].members;
                            component.iter().for_each(|&m| on_demand[m] = false);
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Turns the reads of relations answered on demand into calls, in the
    /// strata's plans and then in the plans of each called form, planning
    /// every called form for its bound arguments.
    fn plan_calls(&mut self, on_demand: &[bool]) -> DemandPlans {
        self.mark_unbounded(on_demand);
        let mut demand = DemandPlans::default();
        let graph = &self.graph;
        let rel_of = |atom: &Atom| relation_id(graph, atom);
        let mut planner = Planner {
            store: &mut self.store,
            tables: &mut self.tables,
            rel_of: &rel_of,
            sizes: &self.sizes,
            fluents: &self.fluents,
            distinct: std::mem::take(&mut self.distinct),
        };
        let mut forms: FxHashMap<Adornment, usize> = FxHashMap::default();
        let mut pending: Vec<usize> = Vec::new();
        for stratum in &mut self.strata {
            for plan in &mut stratum.plans {
                to_calls(plan, on_demand, &mut forms, &mut demand, &mut pending);
            }
        }
        while let Some(form) = pending.pop() {
            let Adornment { rel, inputs } = demand.adornments[form].clone();
            let mut plans: Vec<RulePlan> = self
                .rules
                .iter()
                .filter(|r| rel_of(&r.head) == rel)
                .map(|r| planner.plan_called(r, &inputs))
                .collect();
            for plan in &mut plans {
                to_calls(plan, on_demand, &mut forms, &mut demand, &mut pending);
            }
            demand.plans[form] = plans;
        }
        demand.recursive = demand
            .adornments
            .iter()
            .map(|a| self.strata[self.component_of[a.rel]].recursive)
            .collect();
        demand
    }

    /// Marks as [`plan::Size::Unbounded`] the relations answered on demand
    /// that read, directly or not, a static relation answered on demand.
    fn mark_unbounded(&mut self, on_demand: &[bool]) {
        let mut unbounded = self.static_on_demand.clone();
        let mut changed = true;
        while changed {
            changed = false;
            for stratum in &self.strata {
                let mut steps = stratum.plans.iter().flat_map(|p| &p.steps);
                if on_demand[stratum.members[0]]
                    && !unbounded[stratum.members[0]]
                    && steps.any(|s| step_relation(s).is_some_and(|r| unbounded[r]))
                {
                    stratum.members.iter().for_each(|&m| unbounded[m] = true);
                    changed = true;
                }
            }
        }
        for (size, _) in self.sizes.iter_mut().zip(&unbounded).filter(|(_, &u)| u) {
            *size = plan::Size::Unbounded;
        }
    }

    /// The strata each phase needs, in evaluation order: those of the
    /// materialized relations its answers depend on.
    fn phases(&self, on_demand: &[bool]) -> [Vec<usize>; PHASES] {
        let strata_of = |roots: &[RelId]| -> Vec<usize> {
            let roots: Vec<Relation> = roots.iter().map(|&r| self.relations[r].clone()).collect();
            let mut s: Vec<usize> = self
                .graph
                .cone(&roots)
                .iter()
                .filter(|n| !on_demand[n.index()])
                .map(|n| self.component_of[n.index()])
                .collect();
            s.sort_unstable();
            s.dedup();
            s
        };
        std::array::from_fn(|phase| strata_of(&self.answers[phase]))
    }

    /// The interpreter, once the static strata that read relations answered
    /// on demand are evaluated, with its roles and initial state.
    fn finish(self, demand: DemandPlans, on_demand: &[bool]) -> Interpreter {
        let phases = self.phases(on_demand);
        let form_class: Vec<Class> = demand
            .adornments
            .iter()
            .map(|a| self.class[a.rel])
            .collect();
        let mut interpreter = Interpreter {
            store: self.store,
            tables: self.tables,
            evaluated: self.evaluated,
            strata: self.strata,
            cache: DemandCache::new(demand.adornments.len()),
            demand,
            form_class,
            phases,
            answers: self.answers,
            true_rel: self.true_rel,
            does_rel: self.does_rel,
            roles: Vec::new(),
            role_terms: Vec::new(),
            initial: State(Vec::new()),
            current: None,
            relations: self.relations,
            classes: self.class,
            component_of: self.component_of,
        };
        interpreter.evaluate(&self.deferred);
        interpreter.read_roles(self.rules);
        interpreter.initial = interpreter.initial_state_of(&self.init_rel);
        interpreter
    }
}

impl Interpreter {
    /// Reads the roles in declaration order: the role facts as written.
    fn read_roles(&mut self, rules: &[NormalRule]) {
        for rule in rules
            .iter()
            .filter(|r| written_name(&r.head.name) == "role" && r.head.args.len() == 1)
        {
            let id = self.ground(&rule.head.args[0]);
            if !self.role_terms.contains(&id) {
                self.role_terms.push(id);
                self.roles.push(self.store.text(id));
            }
        }
    }

    /// The initial state: the facts of the relations `init_rel`.
    fn initial_state_of(&self, init_rel: &[RelId]) -> State {
        let mut init: Vec<TermId> = init_rel
            .iter()
            .flat_map(|&r| self.tables[r].rows().map(|row| row[0]).collect::<Vec<_>>())
            .collect();
        init.sort_unstable();
        init.dedup();
        State(init)
    }

    /// The id of a ground term.
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
}

/// The relation id of an atom's relation: its node in `graph`.
fn relation_id(graph: &RelationGraph, atom: &Atom) -> RelId {
    graph
        .get(&atom.relation())
        .expect("every atom is a graph node")
        .index()
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
