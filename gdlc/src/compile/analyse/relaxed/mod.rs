//! The relaxed evaluation of a program: every rule with its negative
//! literals dropped, `true` holding every fluent `init` or `next` can
//! produce and `does` every move `legal` can, evaluated to a fixpoint. Its
//! facts are a superset of every fact of every reachable state, so the
//! values found at each argument position are sound domains (see
//! `state::RelaxedEvaluation`). Relations with too many facts keep only
//! their domains, and rules whose joins are too large are evaluated
//! argument by argument.
//!
//! The modules: `state` (what the evaluation holds, and how a fact is
//! added), `table` (the facts of a relation and their indexes), `fixpoint`
//! (the rounds), `rule` (one evaluation of one rule), `join` and `keys`
//! (the joins), `parts` (bodies that fall apart), `heads` (adding what a
//! join found), `saturation` (rules that can add nothing more),
//! `by_argument` (the fallback argument by argument) and `instances` (the
//! ground instances).

mod by_argument;
mod fixpoint;
mod heads;
mod instances;
mod join;
mod keys;
mod parts;
mod rule;
mod saturation;
mod state;
mod table;
#[cfg(test)]
mod tests;

use crate::compile::error::CompileError;
use crate::compile::program::Program;
use crate::ir::terms::TermId;
use state::RelaxedEvaluation;

pub use instances::MAX_GROUND_INSTANCES;
pub use state::{Limits, RelaxedWork};
pub use table::Domain;

/// What the relaxed evaluation found.
pub struct Relaxation {
    /// Per relation, per argument position, the values found there.
    pub domains: Vec<Vec<Domain>>,
    /// Per relation, its number of facts, when it was small enough to
    /// enumerate.
    pub rows: Vec<Option<usize>>,
    /// Per rule, every binding of its variables over the facts (by
    /// variable number), when there are at most [`MAX_GROUND_INSTANCES`].
    pub instances: Option<Vec<Vec<Vec<TermId>>>>,
    /// What the evaluation took.
    pub work: RelaxedWork,
}

/// Evaluates `program` relaxed, within `limits`.
pub fn evaluate(program: &mut Program, limits: Limits) -> Result<Relaxation, CompileError> {
    let mut evaluation = RelaxedEvaluation::new(program, limits);
    let n = evaluation.program.relations.len();
    let rules = std::mem::take(&mut evaluation.program.rules);
    let result = evaluation.fixpoint(&rules, n);
    let instances = match result {
        Ok(()) => evaluation.instances(&rules),
        Err(_) => None,
    };
    evaluation.program.rules = rules;
    result?;
    let rows = evaluation
        .tuples
        .iter()
        .map(|t| t.as_ref().map(|t| t.rows.len()))
        .collect();
    Ok(Relaxation {
        domains: evaluation.dom,
        rows,
        instances,
        work: evaluation.work,
    })
}
