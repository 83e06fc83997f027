//! Rules whose body falls apart into parts that share no variable: each
//! part is joined on its own, and when the product of the parts is more
//! than the head's relation keeps, the head's domains come from the
//! parts' projections without enumerating the product.

use super::join::{Delta, Halt, Join, Mode};
use super::state::RelaxedEvaluation;
use crate::compile::program::{Lit, Rule};
use crate::ir::terms::TermId;

/// The bindings of the head's variables found in one part of a body: the
/// variables, their values one binding after the other, and how many
/// bindings.
type Projection = (Vec<usize>, Vec<TermId>, usize);

impl RelaxedEvaluation<'_> {
    /// Joins each part of a body that falls apart (see [`parts`]) on its
    /// own. The head's facts are the product of the parts' projections on
    /// the head's variables: when that product is more than a relation
    /// keeps (or the relation keeps only its domains), the head's domains
    /// come from the projections, and the product is never enumerated
    /// (`Ok(Some(changed))`); otherwise `Ok(None)`, and the rule is joined
    /// as a whole.
    pub(super) fn join_parts(
        &mut self,
        rule: &Rule,
        delta: Option<Delta>,
        parts: &[Vec<usize>],
        head_vars: &[usize],
    ) -> Result<Option<bool>, Halt> {
        // The work of every join here counts together.
        let mut work = 0usize;
        // No head without a binding of every part.
        if !self.every_part_binds(rule, delta, parts, &mut work)? {
            return Ok(Some(false));
        }
        let mut projections: Vec<Projection> = Vec::new();
        let mut product = 1usize;
        for part in parts {
            let mut in_part: Vec<usize> = Vec::new();
            for &i in part {
                in_part.extend(rule.body[i].vars());
            }
            let vars: Vec<usize> = head_vars
                .iter()
                .copied()
                .filter(|v| in_part.contains(v))
                .collect();
            let mut join = Join::new(rule, delta, part.clone(), work);
            let (heads, found) = self.join_bindings(&mut join, &vars, Mode::Heads(&vars))?;
            work = join.work;
            if found == 0 {
                return Ok(Some(false));
            }
            let k = vars.len().max(1);
            let mut distinct: Vec<&[TermId]> = heads.chunks(k).collect();
            distinct.sort_unstable();
            distinct.dedup();
            product = product.saturating_mul(distinct.len().max(1));
            projections.push((vars, heads, found));
        }
        let r = rule.head.rel;
        if self.tuples[r].is_some() && product <= self.limits.rows {
            return Ok(None);
        }
        // Past the limit: its readers see it argument by argument.
        let mut changed = false;
        if self.tuples[r].take().is_some() {
            self.grew[r] = true;
            changed = true;
        }
        for (vars, heads, found) in &projections {
            changed |= self.add_head_domains(rule, vars, heads, *found);
        }
        Ok(Some(changed))
    }

    /// Whether each of the `parts` of `rule`'s body has a binding (`work`:
    /// the work of the joins so far, and after).
    fn every_part_binds(
        &mut self,
        rule: &Rule,
        delta: Option<Delta>,
        parts: &[Vec<usize>],
        work: &mut usize,
    ) -> Result<bool, Halt> {
        for part in parts {
            let mut found = false;
            let mut join = Join::new(rule, delta, part.clone(), *work);
            let result = self.join(&mut join, Mode::First, &mut |_| found = true);
            *work = join.work;
            match result {
                Err(Halt::TooLarge) => return Err(Halt::TooLarge),
                _ if !found => return Ok(false),
                _ => {}
            }
        }
        Ok(true)
    }
}

/// The parts of a rule's body that share no variable (positive literals
/// and filters, linked by their variables; negative literals are dropped
/// in the relaxed evaluation), as lists of literal indices, when there are
/// several and each argument of the head takes its variables from one.
/// `(threatened ?x ?y ?ix ?iy) :- (attack ?x ?y) (coordinate ?ix)
/// (coordinate ?iy)` has three: its facts are a product.
pub(super) fn parts(rule: &Rule) -> Option<Vec<Vec<usize>>> {
    let mut root: Vec<usize> = (0..rule.vars.len()).collect();
    fn find(root: &mut [usize], v: usize) -> usize {
        let mut r = v;
        while root[r] != r {
            r = root[r];
        }
        root[v] = r;
        r
    }
    let linked: Vec<(usize, Vec<usize>)> = rule
        .body
        .iter()
        .enumerate()
        .filter(|(_, l)| !matches!(l, Lit::Neg(_)))
        .map(|(i, l)| (i, l.vars()))
        .collect();
    for (_, vars) in &linked {
        for w in vars.windows(2) {
            let (a, b) = (find(&mut root, w[0]), find(&mut root, w[1]));
            root[a] = b;
        }
    }
    let mut parts: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
    for (i, vars) in &linked {
        let part = vars.first().map(|&v| find(&mut root, v));
        match parts.iter_mut().find(|(p, _)| part.is_some() && *p == part) {
            Some((_, literals)) => literals.push(*i),
            None => parts.push((part, vec![*i])),
        }
    }
    if parts.len() < 2 {
        return None;
    }
    for arg in &rule.head.args {
        let vars = arg.vars();
        let first = vars.first().map(|&v| find(&mut root, v));
        if vars.iter().any(|&v| Some(find(&mut root, v)) != first) {
            return None;
        }
    }
    Some(parts.into_iter().map(|(_, literals)| literals).collect())
}
