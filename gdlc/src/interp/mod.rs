//! The reference interpreter: stratified bottom-up evaluation of the checked
//! rules, implementing [`gdl_runtime::Reasoner`].
//!
//! Plain and obviously correct rather than fast: every relation is a table of
//! ground tuples, every rule a nested-loop join over hash indexes, every
//! stratum a fixpoint. Static relations are computed once; the relations that
//! depend on `true` are computed per state and those that depend on `does`
//! per joint move, each only for the phase (legal, next, terminal, goal) that
//! needs them. It is the oracle the compiled reasoners are tested against.

mod build;
mod eval;
mod plan;
mod table;

pub use crate::ir::limits::{
    catch_limit, quiet_resource_limits, ResourceLimit, MAX_ROWS, MAX_TERMS, MAX_WORK,
};
use crate::ir::terms::{TermId, TermStore};
use crate::ir::{Class, Phase, PHASES};
use crate::syntax::ast::Relation;
use crate::Loaded;
use eval::{DemandCache, DemandPlans};
use gdl_runtime::{kif, Reasoner};
use plan::{RelId, RulePlan};
use std::path::Path;
use table::Table;

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
    phases: [Vec<usize>; PHASES],
    /// Relations each phase reads its answer from.
    answers: [Vec<RelId>; PHASES],
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

    /// Evaluates the strata in `order` that are not evaluated yet.
    fn evaluate(&mut self, order: &[usize]) {
        self.cache.start_evaluation();
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

    fn state_from_fluents(&mut self, fluents: &[String]) -> Option<State> {
        let mut terms = fluents
            .iter()
            .map(|text| Some(self.store.term(&kif::parse_term(text)?)))
            .collect::<Option<Vec<TermId>>>()?;
        terms.sort_unstable();
        terms.dedup();
        Some(State(terms))
    }

    fn state_hash(&self, state: &State) -> u64 {
        state
            .0
            .iter()
            .map(|&f| gdl_runtime::zobrist_key(&self.store.text(f)))
            .fold(0, |h, k| h ^ k)
    }

    fn has_percepts(&self) -> bool {
        !self.answers[Phase::Sees as usize].is_empty()
    }

    /// Percept ids are the interpreter's term ids.
    fn sees(&mut self, state: &State, joint: &[Move], role: usize, out: &mut Vec<u32>) {
        self.load_state(state);
        self.load_moves(joint);
        let who = self.role_terms[role];
        out.extend(
            self.answer(state, Phase::Sees)
                .filter(|row| row[0] == who)
                .map(|row| row[1]),
        );
        out.sort_unstable();
        out.dedup();
    }

    fn percept_text(&self, percept: u32) -> Option<String> {
        ((percept as usize) < self.store.len()).then(|| self.store.text(percept))
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
        assert!(!r
            .tables
            .iter()
            .any(|t| t.len() as usize > build::STATIC_BUDGET));
    }

    #[test]
    fn a_recursion_through_ever_deeper_calls_stops_at_the_call_depth_limit() {
        // `(line x)` calls `(line (cell 1 1 x))` before its `true` literal
        // binds anything, and so on with ever deeper terms. On a thread
        // with a 1 MiB stack the calls nest far deeper than it holds (their
        // stack grows on the heap) until the limit stops them.
        let text = "(role x) (init (cell 1 2 x))
            (<= (line ?m) (line (cell 1 1 ?m)) (true (cell 1 2 ?m)))
            (<= (line ?m) (true (cell 3 3 ?m)))
            (legal x go) (<= (next (cell 1 2 x)) (does x go))
            (<= terminal (line x)) (goal x 100)";
        let stopped = std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || {
                let mut r = interpreter(text);
                let s0 = r.initial_state();
                catch_limit(|| r.is_terminal(&s0)).map_err(|limit| limit.0)
            })
            .unwrap()
            .join()
            .unwrap();
        let message = stopped.unwrap_err();
        assert!(message.contains("nested calls of `line/1`"), "{message}");
    }

    #[test]
    fn recursion_over_a_list_too_large_to_materialize_is_tabled_top_down() {
        // `islist` (lists of up to 7 of 9 nodes, about 5.4 million facts) is
        // too large to materialize, and `path`/`path2` carry a list of the
        // nodes visited, so they are called top-down with the list bound
        // and `append` is called with its first two arguments bound. The
        // edges 1-2, 2-3, 3-1, 3-4 and 5-1 in the state reach 1, 2, 3 and
        // 4 from 1 by paths that visit no node twice, and never 5.
        let mut lists = String::from("(islist nil)");
        for k in 1..=7 {
            let vars: Vec<String> = (1..=k).map(|i| format!("?e{i}")).collect();
            let list = vars
                .iter()
                .rev()
                .fold("nil".to_string(), |t, v| format!("(cons {v} {t})"));
            let body: Vec<String> = vars.iter().map(|v| format!("(node {v})")).collect();
            lists.push_str(&format!(" (<= (islist {list}) {})", body.join(" ")));
        }
        let edges: String = [(1, 2), (2, 3), (3, 1), (3, 4), (5, 1)]
            .iter()
            .map(|(a, b)| format!(" (init (edge {a} {b}))"))
            .collect();
        let mut r = interpreter(&format!(
            "(role p) (node 1) (node 2) (node 3) (node 4) (node 5) (node 6) (node 7) (node 8) (node 9)
             {lists} {edges}
             (<= (append ?e nil (cons ?e nil)) (node ?e))
             (<= (append ?e (cons ?h ?t) (cons ?h ?t2))
                 (node ?h) (distinct ?e ?h) (islist ?t) (append ?e ?t ?t2) (islist ?t2))
             (<= (path ?x ?y ?l) (append ?x ?l ?l2) (path2 ?x ?y ?l2))
             (<= (path2 ?x ?y ?l) (true (edge ?x ?y)) (islist ?l))
             (<= (path2 ?x ?y ?l) (true (edge ?x ?z)) (path ?z ?y ?l) (islist ?l))
             (<= (legal p (go ?y)) (path 1 ?y nil))
             (<= (next (edge ?x ?y)) (true (edge ?x ?y)))
             (<= terminal (true (edge 1 1)))
             (goal p 100)"
        ));
        let s0 = r.initial_state();
        assert_eq!(legal(&mut r, &s0), ["(go 1)", "(go 2)", "(go 3)", "(go 4)"]);
    }
}
