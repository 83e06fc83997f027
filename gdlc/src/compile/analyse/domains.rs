//! Stage 4, domains: for every relation and argument position, a superset
//! of the ground terms that can occur there, computed as a fixpoint over the
//! rules with negation and `distinct` ignored (thesis 7.2.1; see
//! [`super::relaxed`]). Nested function terms are followed through their
//! patterns, so a variable inside `(cell ?x ?y ?p)` gets exactly the values
//! found at its place.
//!
//! Every term of these domains gets a small runtime id: the possible fluents
//! first (so that a state is a bitset indexed by fluent id), then every other
//! term (see [`super::term_ids`]).

use super::open::{self, OpenArgs};
use super::relaxed::{self, Limits};
use super::term_ids::{number_terms, renumber_fluents};
use crate::compile::error::CompileError;
use crate::compile::program::Program;
use crate::ir::terms::{SymId, TermId, TermStore};
use rustc_hash::FxHashMap;

pub use super::relaxed::{RelaxedWork, MAX_GROUND_INSTANCES};

/// Most possible fluents (bits of a state).
const MAX_FLUENTS: usize = 1_000_000;

/// The limits of [`compute`].
const LIMITS: Limits = Limits {
    rows: 400_000,
    join_work: 4_000_000,
};

/// The number of values the plans assume for an open argument.
pub const OPEN_VALUES: usize = 1_000;

/// The domains of every argument position, and the runtime term ids.
#[derive(Clone)]
pub struct Domains {
    /// Per relation, per argument position: the terms that can occur there
    /// (compile-time ids, sorted by runtime id); empty at an open argument.
    pub args: Vec<Vec<Vec<TermId>>>,
    /// Per relation, per argument position: whether its terms are built at
    /// run time (see [`open`]).
    pub open: OpenArgs,
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

impl Domains {
    /// Numbers the fluents of the symbols in `orders` by their arguments
    /// in the order given there (the others keep theirs): the fluents stay
    /// ids `0..fluents`, by symbol, then by the ids of their arguments.
    pub fn reorder_fluents(
        &mut self,
        store: &TermStore,
        orders: FxHashMap<(SymId, usize), Vec<usize>>,
    ) {
        renumber_fluents(
            store,
            &mut self.runtime_id,
            &mut self.texts,
            self.fluents,
            &orders,
        );
        let runtime_id = &self.runtime_id;
        for positions in &mut self.args {
            for values in positions {
                values.sort_unstable_by_key(|&t| runtime_id[t as usize]);
            }
        }
        self.fluent_orders = orders;
    }

    /// The number of values argument `pos` of relation `r` can take:
    /// [`OPEN_VALUES`] for an open one.
    pub fn size(&self, r: usize, pos: usize) -> usize {
        if self.open[r][pos] {
            OPEN_VALUES
        } else {
            self.args[r][pos].len()
        }
    }

    /// Whether some argument of relation `r` is open.
    pub fn has_open(&self, r: usize) -> bool {
        self.open[r].iter().any(|&o| o)
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
    let open = open::arguments(program)?;
    let top = open::first(&open).map(|_| program.store.constant(OPEN_PLACEHOLDER));
    let rules = match top {
        Some(top) => open::erase(&program.rules, &open, top),
        None => program.rules.clone(),
    };
    let original = std::mem::replace(&mut program.rules, rules);
    let relaxation = relaxed::evaluate(program, limits);
    program.rules = original;
    let mut relaxation = relaxation?;
    let mut dom = relaxation.domains;
    if dom[program.true_rel][0].len() > MAX_FLUENTS {
        return Err(CompileError::TooManyFluents { limit: MAX_FLUENTS });
    }
    if top.is_some() {
        forget_open(&open, &mut dom, &mut relaxation.rows);
        relaxation.instances = None;
    }
    let ids = number_terms(&program.store, &dom, program.true_rel, top);
    let runtime_id = ids.runtime_id;
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
        open,
        runtime_id,
        texts: ids.texts,
        fluents: ids.fluents,
        rows: relaxation.rows,
        instances: relaxation.instances,
        work: relaxation.work,
        fluent_orders: FxHashMap::default(),
    })
}

/// The name of the placeholder the relaxed evaluation sees at every open
/// argument: no description can spell it.
const OPEN_PLACEHOLDER: &str = "(built at run time)";

/// Empties the domains of the open arguments (they held only the
/// placeholder) and forgets the facts of the relations with one, which
/// are not enumerated.
fn forget_open(open: &OpenArgs, dom: &mut [Vec<relaxed::Domain>], rows: &mut [Option<usize>]) {
    for (r, positions) in open.iter().enumerate() {
        for (i, _) in positions.iter().enumerate().filter(|&(_, &o)| o) {
            dom[r][i].clear();
            rows[r] = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::analyze;

    /// The texts of the possible fluents of a description, by runtime id.
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
}
