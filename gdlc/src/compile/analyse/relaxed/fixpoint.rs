//! The rounds of the relaxed evaluation, semi-naive: each round evaluates
//! every rule over the facts new since the last round, once per literal
//! that has new facts, the literals before it reading only the facts from
//! before the round, so that a binding with new facts at two literals is
//! found once (a rule evaluated argument by argument again only when a
//! domain it reads gained a value its pattern matches), then carries what
//! `init`, `next` and `legal` produce over to `true` and `does`, until
//! nothing grows.

use super::join::Delta;
use super::state::RelaxedEvaluation;
use super::table::Domain;
use crate::compile::error::CompileError;
use crate::compile::program::{matches, Lit, RelId, Rule};
use crate::ir::terms::TermId;

/// Most distinct ground terms the compiler creates.
const MAX_TERMS: usize = 4_000_000;

/// What is new in a round: the rows `seen[r]..now[r]` of each relation are
/// new since the last round, and so are the values
/// `dom_seen[r][p]..dom_now[r][p]` of each domain.
struct Round<'s> {
    /// Whether this is the first round (every rule is joined whole).
    first: bool,
    seen: &'s [usize],
    now: &'s [usize],
    dom_seen: &'s [Vec<usize>],
    dom_now: &'s [Vec<usize>],
}

/// How much of what the relations of `init`, `next` and `legal` answer has
/// been carried over to `true` and `does`, per relation: its rows, or,
/// once it is known only by its domains, the values of the argument
/// carried over.
struct Bridged {
    rows: Vec<usize>,
    values: Vec<usize>,
}

impl RelaxedEvaluation<'_> {
    /// Evaluates `rules` (of a program of `n` relations) round after round
    /// until nothing grows.
    pub(super) fn fixpoint(&mut self, rules: &[Rule], n: usize) -> Result<(), CompileError> {
        let mut seen = vec![0usize; n];
        let mut dom_seen: Vec<Vec<usize>> = self.dom.iter().map(|d| vec![0; d.len()]).collect();
        let mut bridged = Bridged {
            rows: vec![0; n],
            values: vec![0; n],
        };
        let mut first = true;
        loop {
            let now: Vec<usize> = (0..n).map(|r| self.len(r)).collect();
            let dom_now: Vec<Vec<usize>> = self
                .dom
                .iter()
                .map(|d| d.iter().map(Domain::len).collect())
                .collect();
            self.grew = vec![false; n];
            self.old_rows.clone_from(&seen);
            let round = Round {
                first,
                seen: &seen,
                now: &now,
                dom_seen: &dom_seen,
                dom_now: &dom_now,
            };
            let mut changed = false;
            for (rule_index, rule) in rules.iter().enumerate() {
                changed |= self.evaluate_in_round(rule_index, rule, &round)?;
            }
            for (target, row) in self.bridged_rows(&mut bridged) {
                changed |= self.add(target, &row);
            }
            self.check_size()?;
            seen = now;
            dom_seen = dom_now;
            first = false;
            self.work.rounds += 1;
            if !changed && self.grew.iter().all(|g| !g) {
                return Ok(());
            }
        }
    }

    /// Evaluates `rule` in `round` over what it reads that is new; `true`
    /// if something grew.
    fn evaluate_in_round(
        &mut self,
        rule_index: usize,
        rule: &Rule,
        round: &Round<'_>,
    ) -> Result<bool, CompileError> {
        let positive: Vec<(usize, RelId)> = rule
            .body
            .iter()
            .enumerate()
            .filter_map(|(i, l)| match l {
                Lit::Pos(a) => Some((i, a.rel)),
                _ => None,
            })
            .collect();
        // A rule whose joins were too large, or that reads a relation known
        // only argument by argument, is evaluated argument by argument:
        // again only when a domain it reads gained a value its pattern
        // there matches (new rows alone change nothing).
        if self.too_large.contains(&rule_index)
            || positive.iter().any(|&(_, r)| self.tuples[r].is_none())
        {
            let newly = self.too_large.insert(rule_index);
            if round.first || newly || self.gained_matching(rule, round.dom_seen, round.dom_now) {
                return self.evaluate_rule(rule_index, rule, None);
            }
            return Ok(false);
        }
        // A head known only by its domains gains nothing from a rule whose
        // every argument can only produce values it has.
        if !round.first && self.tuples[rule.head.rel].is_none() && self.saturated(rule_index, rule)
        {
            return Ok(false);
        }
        let runs: Vec<Option<Delta>> = if round.first {
            vec![None]
        } else {
            positive
                .iter()
                .filter(|&&(_, r)| self.tuples[r].is_some() && round.now[r] > round.seen[r])
                .map(|&(i, r)| Some((i, round.seen[r], round.now[r])))
                .collect()
        };
        let mut changed = false;
        for delta in runs {
            changed |= self.evaluate_rule(rule_index, rule, delta)?;
        }
        Ok(changed)
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

    /// The facts `true` and `does` gain in a round: `true` ranges over what
    /// `init` and `next` produce, `does` over what `legal` produces, here
    /// the facts new since the last round (`bridged`: how much was carried
    /// over before, and after).
    fn bridged_rows(&self, bridged: &mut Bridged) -> Vec<(RelId, Box<[TermId]>)> {
        let true_rel = self.program.true_rel;
        let does_rel = self.program.does_rel;
        let mut bridged_rows: Vec<(RelId, Box<[TermId]>)> = Vec::new();
        for (keyword, target) in [(1, true_rel), (0, does_rel)] {
            for &r in &self.program.answers[keyword] {
                match &self.tuples[r] {
                    Some(t) => {
                        for row in t.rows.from(bridged.rows[r]) {
                            let row = if keyword == 1 {
                                Box::from([row[0]])
                            } else {
                                row.into()
                            };
                            bridged_rows.push((target, row));
                        }
                        bridged.rows[r] = t.rows.len();
                    }
                    None if keyword == 1 => {
                        let values = &self.dom[r][0];
                        for &t in values.iter().skip(bridged.values[r]) {
                            bridged_rows.push((target, Box::from([t])));
                        }
                        bridged.values[r] = values.len();
                    }
                    None => {
                        let values = &self.dom[r][1];
                        for &m in values.iter().skip(bridged.values[r]) {
                            for &role in &self.program.roles {
                                bridged_rows.push((target, Box::from([role, m])));
                            }
                        }
                        bridged.values[r] = values.len();
                    }
                }
            }
        }
        bridged_rows
    }

    /// Fails when the possible fluents are more than a relation keeps, or
    /// the terms created more than [`MAX_TERMS`].
    fn check_size(&self) -> Result<(), CompileError> {
        if self.tuples[self.program.true_rel].is_none() {
            return Err(CompileError::TooManyFluents {
                limit: self.limits.rows,
            });
        }
        if self.program.store.len() > MAX_TERMS {
            return Err(CompileError::TooManyTerms { limit: MAX_TERMS });
        }
        Ok(())
    }
}
