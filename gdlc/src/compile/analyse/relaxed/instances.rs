//! The ground instances of the rules, listed from the relaxed evaluation's
//! facts for the ground backend: every binding of each rule's body.

use super::join::{Join, Mode};
use super::state::RelaxedEvaluation;
use crate::compile::program::Rule;
use crate::ir::terms::TermId;

/// Most ground rule instances enumerated for the ground backend; past it
/// the game is compiled relation by relation.
pub const MAX_GROUND_INSTANCES: usize = 60_000;

impl RelaxedEvaluation<'_> {
    /// Every binding of every rule over the relaxed facts, or `None` when
    /// a relation is known only argument by argument or there are more
    /// than [`MAX_GROUND_INSTANCES`].
    pub(super) fn instances(&mut self, rules: &[Rule]) -> Option<Vec<Vec<Vec<TermId>>>> {
        if !self.too_large.is_empty() || self.tuples.iter().any(Option::is_none) {
            return None;
        }
        let mut all = Vec::with_capacity(rules.len());
        let mut total = 0usize;
        for rule in rules {
            let mut found: Vec<Vec<TermId>> = Vec::new();
            let mut over = false;
            let mut join = Join::new(rule, None, (0..rule.body.len()).collect(), 0);
            self.join(&mut join, Mode::All, &mut |b: &[Option<TermId>]| {
                if total + found.len() >= MAX_GROUND_INSTANCES {
                    over = true;
                } else {
                    found.push(b.iter().map(|t| t.expect("variables are bound")).collect());
                }
            })
            .ok()?;
            if over {
                return None;
            }
            total += found.len();
            all.push(found);
        }
        Some(all)
    }
}
