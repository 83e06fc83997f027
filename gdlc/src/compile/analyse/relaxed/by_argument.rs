//! The fallback of the relaxed evaluation for a rule whose join is too
//! large, or that reads a relation known only argument by argument: each
//! head argument's domain is the product of the values its variables can
//! take, each variable's values found argument by argument.

use super::state::RelaxedEvaluation;
use super::table::Domain;
use crate::compile::error::CompileError;
use crate::compile::program::{instantiate, matches, Class, Lit, Pat, Program, Rule};
use crate::ir::terms::TermId;
use rustc_hash::FxHashSet;

/// Most values one head argument may produce in one rule's step of the
/// fixpoint before the compiler gives up.
const MAX_INSTANCES: usize = 1_000_000;

impl RelaxedEvaluation<'_> {
    /// Evaluates `rule` argument by argument, from now on: each head
    /// argument from the product of its variables' values; `true` if a
    /// domain grew.
    pub(super) fn evaluate_by_argument(
        &mut self,
        rule_index: usize,
        rule: &Rule,
    ) -> Result<bool, CompileError> {
        self.work.by_argument += 1;
        self.too_large.insert(rule_index);
        let r = rule.head.rel;
        if self.tuples[r].take().is_some() {
            self.grew[r] = true;
        }
        let Some(values) = variable_values(self.program, &self.dom, rule.vars.len(), &rule.body)
        else {
            return Ok(false);
        };
        let mut changed = false;
        for i in self.arguments_to_evaluate(rule_index, rule, &values) {
            changed |= self.add_argument_values(rule, i, &values)?;
        }
        Ok(changed)
    }

    /// The head arguments of `rule` whose variables have more values than
    /// when it was last evaluated argument by argument (`values`: by
    /// variable), and those without variables.
    fn arguments_to_evaluate(
        &mut self,
        rule_index: usize,
        rule: &Rule,
        values: &[Vec<TermId>],
    ) -> Vec<usize> {
        let seen = self.by_argument.entry(rule_index).or_default();
        seen.resize(rule.head.args.len(), Vec::new());
        let mut todo: Vec<usize> = Vec::new();
        for (i, arg) in rule.head.args.iter().enumerate() {
            // Values only grow: as many as last time are the same.
            let counts: Vec<usize> = arg.vars().iter().map(|&v| values[v].len()).collect();
            if seen[i] != counts || counts.is_empty() {
                seen[i] = counts;
                todo.push(i);
            }
        }
        todo
    }

    /// Adds to the domain of head argument `i` of `rule` every value of it
    /// under the product of its variables' `values`; `true` if it grew.
    fn add_argument_values(
        &mut self,
        rule: &Rule,
        i: usize,
        values: &[Vec<TermId>],
    ) -> Result<bool, CompileError> {
        let r = rule.head.rel;
        let arg = &rule.head.args[i];
        let vars = arg.vars();
        let count = vars
            .iter()
            .map(|&v| values[v].len())
            .try_fold(1usize, |acc, k| acc.checked_mul(k))
            .unwrap_or(usize::MAX);
        if count > MAX_INSTANCES {
            return Err(CompileError::ArgumentTooLarge {
                argument: i + 1,
                relation: self.program.relations[r].to_string(),
                rule: rule.text.clone(),
                limit: MAX_INSTANCES,
            });
        }
        let mut b = vec![0; rule.vars.len()];
        let mut produced = Vec::with_capacity(count);
        product(&vars, values, &mut b, 0, &mut |b| {
            produced.push(instantiate(&mut self.program.store, arg, b));
        });
        let mut changed = false;
        for t in produced {
            let grew = self.dom[r][i].insert(t);
            self.grew[r] |= grew;
            changed |= grew;
        }
        Ok(changed)
    }
}

/// The values each variable of a body can take, from its positive literals
/// (each argument matched on its own, static relations row by row); `None`
/// when some positive literal can match nothing.
fn variable_values(
    program: &Program,
    dom: &[Vec<Domain>],
    nvars: usize,
    body: &[Lit],
) -> Option<Vec<Vec<TermId>>> {
    let mut values: Vec<Option<FxHashSet<TermId>>> = vec![None; nvars];
    let mut narrow = |v: usize, found: FxHashSet<TermId>| {
        values[v] = Some(match values[v].take() {
            None => found,
            Some(old) => old.intersection(&found).copied().collect(),
        });
    };
    for lit in body {
        let Lit::Pos(atom) = lit else { continue };
        // Static relations are matched row by row (their facts are exact),
        // the others argument by argument over their domains.
        let found = if program.class[atom.rel] == Class::Static {
            let args: Vec<&Pat> = atom.args.iter().collect();
            let rows = program.facts[atom.rel].iter().map(Vec::as_slice);
            vec![values_matching(program, &args, rows, nvars)?]
        } else {
            atom.args
                .iter()
                .enumerate()
                .map(|(i, arg)| {
                    let rows = dom[atom.rel][i].iter().map(std::slice::from_ref);
                    values_matching(program, &[arg], rows, nvars)
                })
                .collect::<Option<Vec<_>>>()?
        };
        for (vars, sets) in found {
            for (v, set) in vars.into_iter().zip(sets) {
                narrow(v, set);
            }
        }
    }
    let mut out = Vec::with_capacity(nvars);
    for v in values {
        let mut v: Vec<TermId> = v?.into_iter().collect();
        if v.is_empty() {
            return None;
        }
        v.sort_unstable();
        out.push(v);
    }
    Some(out)
}

/// The variables of `pats` and, for each, the values it takes in the rows
/// that match `pats` jointly; `None` when no row matches.
#[allow(clippy::type_complexity)]
fn values_matching<'r>(
    program: &Program,
    pats: &[&Pat],
    rows: impl Iterator<Item = &'r [TermId]>,
    nvars: usize,
) -> Option<(Vec<usize>, Vec<FxHashSet<TermId>>)> {
    let mut vars: Vec<usize> = Vec::new();
    for p in pats {
        for v in p.vars() {
            if !vars.contains(&v) {
                vars.push(v);
            }
        }
    }
    let mut found: Vec<FxHashSet<TermId>> = vec![FxHashSet::default(); vars.len()];
    let mut binding = vec![None; nvars];
    let mut any = false;
    for row in rows {
        binding.iter_mut().for_each(|b| *b = None);
        if pats
            .iter()
            .zip(row)
            .all(|(p, &t)| matches(&program.store, p, t, &mut binding))
        {
            any = true;
            for (k, &v) in vars.iter().enumerate() {
                found[k].insert(binding[v].expect("matched variables are bound"));
            }
        }
    }
    any.then_some((vars, found))
}

/// Calls `f` with every assignment of `values` to `vars` (the cartesian
/// product), written into `binding`.
pub(super) fn product(
    vars: &[usize],
    values: &[Vec<TermId>],
    binding: &mut [TermId],
    k: usize,
    f: &mut impl FnMut(&[TermId]),
) {
    if k == vars.len() {
        f(binding);
        return;
    }
    for &t in &values[vars[k]] {
        binding[vars[k]] = t;
        product(vars, values, binding, k + 1, f);
    }
}
