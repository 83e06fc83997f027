//! Whether a rule can still make the domains of a head that keeps only its
//! domains grow: from the values each variable can take at its occurrences
//! in the body, without joining it.

use super::by_argument::product;
use super::state::{Occurrence, RelaxedEvaluation};
use crate::compile::program::{lookup, matches, Lit, Pat, Rule};
use crate::ir::terms::TermId;
use rustc_hash::FxHashSet;

/// Most values of a compound head argument
/// [`RelaxedEvaluation::saturated`] checks.
const SATURATION_CHECK: usize = 4096;

impl RelaxedEvaluation<'_> {
    /// Whether evaluating `rule` cannot make a domain of its head grow:
    /// every value each argument of the head could take is in that
    /// argument's domain already, each variable ranging over the values it
    /// can take at every argument of the body's positive literals where it
    /// occurs (see [`Occurrence`]). A compound argument is checked value by
    /// value when it has at most [`SATURATION_CHECK`] of them.
    pub(super) fn saturated(&mut self, rule_index: usize, rule: &Rule) -> bool {
        let mut occurrences = self
            .occurrences
            .remove(&rule_index)
            .unwrap_or_else(|| occurrences_of(rule));
        self.match_new_values(rule, &mut occurrences);
        let answer =
            (0..rule.head.args.len()).all(|i| self.argument_saturated(rule, i, &occurrences));
        self.occurrences.insert(rule_index, occurrences);
        answer
    }

    /// Brings `occurrences` (of `rule`) up to date with the values new in
    /// their domains since the last check.
    fn match_new_values(&self, rule: &Rule, occurrences: &mut [Occurrence]) {
        let mut binding = vec![None; rule.vars.len()];
        for o in occurrences {
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
    }

    /// Whether every value head argument `i` of `rule` can take, its
    /// variables ranging over their values at every occurrence, is in its
    /// domain already.
    fn argument_saturated(&self, rule: &Rule, i: usize, occurrences: &[Occurrence]) -> bool {
        let arg = &rule.head.args[i];
        let domain = &self.dom[rule.head.rel][i];
        let bound = |v: usize| values_everywhere(occurrences, v);
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
                    all &= lookup(&self.program.store, arg, b).is_some_and(|t| domain.contains(&t));
                });
                all
            }
        }
    }
}

/// Every argument of a positive literal of `rule` that holds variables, no
/// value matched yet.
fn occurrences_of(rule: &Rule) -> Vec<Occurrence> {
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
}

/// The values of variable `v`: those of its smallest occurrence that every
/// other occurrence has too (`None` without an occurrence).
fn values_everywhere(occurrences: &[Occurrence], v: usize) -> Option<Vec<TermId>> {
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
}
