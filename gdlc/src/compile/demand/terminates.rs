//! Whether a search of a relation recursive through itself ends: every
//! call it makes of itself moves one argument a step along a static
//! relation without cycles (a ray's `next_file`, a counter's `succ`), so
//! every chain of calls is at most as long as the longest path of those
//! steps, which must be short enough for the stack.

use crate::compile::program::{Class, Lit, Pat, Program, RelId, Rule};
use crate::ir::terms::TermId;
use rustc_hash::FxHashMap;

/// The longest chain of calls a search may nest.
pub const MAX_DEPTH: usize = 256;

/// Whether some argument position of `r` measures its recursion: in every
/// rule of `r`, every call of `r` has at that position a variable that a
/// static literal of the rule relates to the head's variable there, its
/// other arguments ground (`(next_file ?u ?u2)` from head `?u` to call
/// `?u2`, `(plus 1 ?u ?u2)`, or the reverse), and the steps of all those
/// literals together form no cycle and no path longer than [`MAX_DEPTH`].
pub fn measured(program: &Program, r: RelId) -> bool {
    let rules: Vec<&Rule> = program.rules.iter().filter(|x| x.head.rel == r).collect();
    (0..program.relations[r].arity).any(|p| measures(program, &rules, r, p))
}

/// Whether position `p` measures the recursion of `rules` (of `r`).
fn measures(program: &Program, rules: &[&Rule], r: RelId, p: usize) -> bool {
    let mut steps: Vec<(TermId, TermId)> = Vec::new();
    for rule in rules {
        for lit in &rule.body {
            let call = match lit {
                Lit::Pos(a) if a.rel == r => a,
                Lit::Neg(a) if a.rel == r => return false,
                _ => continue,
            };
            let (Pat::Var(from), Pat::Var(to)) = (&rule.head.args[p], &call.args[p]) else {
                return false;
            };
            let Some(edges) = step(program, rule, *from, *to) else {
                return false;
            };
            steps.extend(edges);
        }
    }
    longest_path(&steps).is_some_and(|n| n <= MAX_DEPTH)
}

/// The steps from `from` to `to` that a static literal of `rule` allows:
/// a literal with `from` and `to` as two of its arguments and every other
/// argument ground, read as the edges of its facts that match the ground
/// arguments.
fn step(program: &Program, rule: &Rule, from: usize, to: usize) -> Option<Vec<(TermId, TermId)>> {
    if from == to {
        return None;
    }
    rule.body.iter().find_map(|lit| {
        let Lit::Pos(a) = lit else { return None };
        if program.class[a.rel] != Class::Static {
            return None;
        }
        let at = |v: usize| (a.args.iter()).position(|p| *p == Pat::Var(v));
        let (i, j) = (at(from)?, at(to)?);
        let ground = |k: usize| k == i || k == j || matches!(a.args[k], Pat::Ground(_));
        if !(0..a.args.len()).all(ground) {
            return None;
        }
        let matching = program.facts[a.rel].iter().filter(|f| {
            (a.args.iter().zip(f.iter())).all(|(p, &t)| !matches!(p, Pat::Ground(g) if *g != t))
        });
        Some(matching.map(|f| (f[i], f[j])).collect())
    })
}

/// The number of edges of the longest path of the graph of `edges`, or
/// `None` when it has a cycle.
fn longest_path(edges: &[(TermId, TermId)]) -> Option<usize> {
    let mut index: FxHashMap<TermId, usize> = FxHashMap::default();
    for &(a, b) in edges {
        for t in [a, b] {
            let n = index.len();
            index.entry(t).or_insert(n);
        }
    }
    let n = index.len();
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut into = vec![0usize; n];
    for &(a, b) in edges {
        out[index[&a]].push(index[&b]);
        into[index[&b]] += 1;
    }
    // Kahn's order; `depth` is the longest path ending at each node.
    let mut ready: Vec<usize> = (0..n).filter(|&v| into[v] == 0).collect();
    let mut depth = vec![0usize; n];
    let mut seen = 0;
    while let Some(v) = ready.pop() {
        seen += 1;
        for &w in &out[v] {
            depth[w] = depth[w].max(depth[v] + 1);
            into[w] -= 1;
            if into[w] == 0 {
                ready.push(w);
            }
        }
    }
    (seen == n).then(|| depth.into_iter().max().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::longest_path;
    use crate::ir::terms::TermId;

    fn t(n: u32) -> TermId {
        n
    }

    #[test]
    fn a_chain_is_measured_by_its_length_and_a_cycle_not_at_all() {
        assert_eq!(longest_path(&[]), Some(0));
        assert_eq!(longest_path(&[(t(1), t(2)), (t(2), t(3))]), Some(2));
        assert_eq!(
            longest_path(&[(t(1), t(2)), (t(1), t(3)), (t(3), t(2))]),
            Some(2)
        );
        assert_eq!(longest_path(&[(t(1), t(2)), (t(2), t(1))]), None);
        assert_eq!(longest_path(&[(t(1), t(1))]), None);
    }
}
