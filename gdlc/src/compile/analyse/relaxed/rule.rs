//! One evaluation of one rule in the relaxed evaluation: by its parts when
//! its body falls apart, else by a join of its whole body, adding the head
//! facts found (or only the head's domains); argument by argument when the
//! join is too large.

use super::join::{Delta, Halt, Join, Mode};
use super::parts::parts;
use super::state::RelaxedEvaluation;
use crate::compile::error::CompileError;
use crate::compile::program::Rule;

impl RelaxedEvaluation<'_> {
    /// Evaluates one rule (its literal `delta.0` restricted to the rows
    /// `delta.1..delta.2`), adding the head facts; `true` if something grew.
    pub(super) fn evaluate_rule(
        &mut self,
        rule_index: usize,
        rule: &Rule,
        delta: Option<Delta>,
    ) -> Result<bool, CompileError> {
        let head_vars = rule.head.vars();
        let r = rule.head.rel;
        let too_large = self.too_large.contains(&rule_index);
        let parts = if too_large { None } else { parts(rule) };
        // A body that falls apart: its parts first (a product too large to
        // keep, or a relation that keeps only its domains, needs only their
        // projections).
        let by_parts = match &parts {
            Some(parts) => self.join_parts(rule, delta, parts, &head_vars),
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
                let mode = if self.tuples[r].is_some() {
                    Mode::Heads(&head_vars)
                } else {
                    Mode::Domains(&head_vars)
                };
                let mut join = Join::new(rule, delta, (0..rule.body.len()).collect(), 0);
                self.join_bindings(&mut join, &head_vars, mode)
            }
        };
        match outcome {
            Ok((heads, found)) if self.tuples[r].is_none() => {
                Ok(self.add_head_domains(rule, &head_vars, &heads, found))
            }
            Ok((heads, found)) => Ok(self.add_head_facts(rule, &head_vars, &heads, found)),
            Err(_) => self.evaluate_by_argument(rule_index, rule),
        }
    }
}
