//! Right-linear recursions, factored for magic sets (Naughton, Ramakrishnan,
//! Sagiv and Ullman's argument reduction by factoring). A relation such as
//!
//! ```text
//! (<= (ray ?x1 ?y ?x3 ?y) (succ ?x1 ?x2) (empty ?x2 ?y) (ray ?x2 ?y ?x3 ?y))
//! (<= (ray ?x1 ?y ?x2 ?y) (succ ?x1 ?x2) (index ?y))
//! ```
//!
//! walks from its first arguments (`?x1`: they change from head to
//! recursive call) and passes its last one on unchanged (`?x3`). Called
//! with the walk's start bound, magic sets evaluate it for every square of
//! the walk, each with all the squares after it: quadratic in the length
//! of the ray. Yet an answer for the start is an answer of an exit rule at
//! any square the walk reaches, so the relation is rewritten for such calls
//! into the squares reachable from the start (a left-linear recursion,
//! whose magic relation is the start alone) and its exit rules applied
//! there: linear.
//!
//! For a relation `p` whose recursive rules are `p(c, u) :- B, p(c', u)`
//! (`c` the changing positions, `u` the unchanged ones: the same variable
//! in the head and the call), with `u = (k, o)`: `k` the unchanged
//! positions some step reads, `o` the ones only passed on:
//!
//! ```text
//! reach(c, k, c') :- B                              (one per recursive rule)
//! reach(x, k, c') :- reach(x, k, w), B[c := w]      (one per recursive rule)
//! p(c, u) :- E                                      (the exit rules, as they are)
//! p(x, u) :- reach(x, k, c), E                      (one per exit rule)
//! ```

use crate::compile::program::{Atom, Lit, Pat, Program, RelId, Rule};
use crate::compile::relational::plan::occurrences;

/// The shape of a right-linear recursion.
#[derive(Clone, Debug)]
pub struct Linear {
    /// The positions the recursion changes.
    pub changing: Vec<usize>,
    /// The unchanged positions a step reads (kept in the reach relation).
    pub kept: Vec<usize>,
    /// The unchanged positions a step never reads: answers of the exit
    /// rules, passed on.
    pub passed: Vec<usize>,
    /// The kept positions no step binds: a factored call must bind them.
    pub unbound_kept: Vec<usize>,
}

impl Linear {
    /// Whether a call with `bound` arguments is worth factoring (the
    /// walk's start is bound and some passed-on answer is asked for) and
    /// can be (the kept arguments no step binds are bound).
    pub fn factors(&self, bound: &[bool]) -> bool {
        self.changing.iter().all(|&i| bound[i])
            && self.unbound_kept.iter().all(|&i| bound[i])
            && self.passed.iter().any(|&i| !bound[i])
    }

    /// The positions of `p` the reach relation's arguments hold: the
    /// start, the kept positions, the square reached.
    pub fn reach_positions(&self) -> Vec<usize> {
        let mut out = self.changing.clone();
        out.extend(&self.kept);
        out.extend(&self.changing);
        out
    }
}

/// The index of the one positive call of `p` in a recursive rule of `p`;
/// `None` for an exit rule; `Err` when the rule calls `p` more than once
/// or through `not`.
fn recursive_call(rule: &Rule, p: RelId) -> Result<Option<usize>, ()> {
    let mut call = None;
    for (i, lit) in rule.body.iter().enumerate() {
        match lit {
            Lit::Pos(a) if a.rel == p => {
                if call.is_some() {
                    return Err(());
                }
                call = Some(i);
            }
            Lit::Neg(a) if a.rel == p => return Err(()),
            _ => {}
        }
    }
    Ok(call)
}

/// The shape of `p` when it is a right-linear recursion worth factoring:
/// recursive only through itself, with at least one exit rule, its
/// recursive rules calling it once, their changing head arguments distinct
/// variables that the steps bind (with the call's), and some argument
/// passed on unchanged that no step reads.
pub fn shape(program: &Program, component: &[usize], p: RelId) -> Option<Linear> {
    let alone = component.iter().filter(|&&c| c == component[p]).count() == 1;
    if !alone {
        return None;
    }
    let rules: Vec<&Rule> = program.rules.iter().filter(|r| r.head.rel == p).collect();
    let mut recursive: Vec<(&Rule, usize)> = Vec::new();
    let mut exits = 0;
    for rule in &rules {
        match recursive_call(rule, p).ok()? {
            Some(i) => recursive.push((rule, i)),
            None => exits += 1,
        }
    }
    if recursive.is_empty() || exits == 0 {
        return None;
    }
    let arity = program.relations[p].arity;
    let call_args = |rule: &Rule, i: usize| match &rule.body[i] {
        Lit::Pos(a) => a.args.clone(),
        _ => unreachable!("the recursive call is positive"),
    };
    let unchanged: Vec<bool> = (0..arity)
        .map(|k| {
            recursive.iter().all(|&(rule, i)| {
                matches!((&rule.head.args[k], &call_args(rule, i)[k]),
                    (Pat::Var(a), Pat::Var(b)) if a == b)
            })
        })
        .collect();
    let changing: Vec<usize> = (0..arity).filter(|&k| !unchanged[k]).collect();
    if changing.is_empty() {
        return None;
    }
    // The changing head arguments: distinct variables (a step renames them).
    for &(rule, _) in &recursive {
        let mut seen = Vec::new();
        for &k in &changing {
            match rule.head.args[k] {
                Pat::Var(v) if !seen.contains(&v) => seen.push(v),
                _ => return None,
            }
        }
    }
    // Passed on: a variable found once in the head, once in the call (at
    // the same position), and nowhere else in the rule.
    let passed_in = |rule: &Rule, k: usize| match rule.head.args[k] {
        Pat::Var(v) => occurrences(rule, v) == 2,
        _ => false,
    };
    let (passed, kept): (Vec<usize>, Vec<usize>) = (0..arity)
        .filter(|&k| unchanged[k])
        .partition(|&k| recursive.iter().all(|&(rule, _)| passed_in(rule, k)));
    if passed.is_empty() {
        return None;
    }
    // A step must bind the head's changing arguments and the call's (the
    // reach relation's start and square) from the positive literals
    // besides the recursive call; a kept argument it does not bind (a
    // variable found in the head and the call alone) must be bound by the
    // caller, else a reach rule would be unsafe.
    let mut unbound_kept = Vec::new();
    for &(rule, i) in &recursive {
        let mut bound = Vec::new();
        for (j, lit) in rule.body.iter().enumerate() {
            if let (Lit::Pos(a), true) = (lit, j != i) {
                bound.extend(a.vars());
            }
        }
        let call = call_args(rule, i);
        let walk = changing
            .iter()
            .flat_map(|&k| rule.head.args[k].vars().into_iter().chain(call[k].vars()));
        if walk.into_iter().any(|v| !bound.contains(&v)) {
            return None;
        }
        for &k in &kept {
            if rule.head.args[k].vars().iter().any(|v| !bound.contains(v))
                && !unbound_kept.contains(&k)
            {
                unbound_kept.push(k);
            }
        }
    }
    unbound_kept.sort_unstable();
    Some(Linear {
        changing,
        kept,
        passed,
        unbound_kept,
    })
}

/// The rules of the reach relation `reach` of `p` (named `name`, shape
/// `shape`, defined by its rules among `rules`).
pub fn reach_rules(
    rules: &[Rule],
    name: &str,
    p: RelId,
    shape: &Linear,
    reach: RelId,
) -> Vec<Rule> {
    let mut out = Vec::new();
    for rule in rules.iter().filter(|r| r.head.rel == p) {
        let Ok(Some(i)) = recursive_call(rule, p) else {
            continue;
        };
        let Lit::Pos(call) = &rule.body[i] else {
            unreachable!("the recursive call is positive")
        };
        let step = step_rule(
            rule,
            i,
            shape,
            reach,
            &format!("steps of `{name}` from its start"),
        );
        let steps = step.body.clone();
        out.push(step);
        let pick = |args: &[Pat], positions: &[usize]| -> Vec<Pat> {
            positions.iter().map(|&k| args[k].clone()).collect()
        };
        // A step from a square reached: the head's changing variables
        // renamed to fresh ones (`w`), the start a fresh `x`.
        let mut vars = rule.vars.clone();
        let fresh = |vars: &mut Vec<String>, name: &str| {
            vars.push(name.to_string());
            vars.len() - 1
        };
        let renamed: Vec<(usize, usize)> = shape
            .changing
            .iter()
            .map(|&k| {
                let Pat::Var(v) = rule.head.args[k] else {
                    unreachable!("changing head arguments are variables")
                };
                let name = format!("{}'", rule.vars[v]);
                (v, fresh(&mut vars, &name))
            })
            .collect();
        let starts: Vec<Pat> = shape
            .changing
            .iter()
            .map(|&k| {
                let name = format!("{}_start", name_of(&rule.head.args[k], &rule.vars));
                Pat::Var(fresh(&mut vars, &name))
            })
            .collect();
        let rename = |p: &Pat| rename_vars(p, &renamed);
        let kept: Vec<Pat> = pick(&rule.head.args, &shape.kept)
            .iter()
            .map(rename)
            .collect();
        let mut head = starts.clone();
        head.extend(kept.iter().cloned());
        head.extend(pick(&call.args, &shape.changing).iter().map(rename));
        let mut from = starts;
        from.extend(kept);
        from.extend(pick(&rule.head.args, &shape.changing).iter().map(rename));
        let mut body = vec![Lit::Pos(Atom {
            rel: reach,
            args: from,
        })];
        body.extend(steps.iter().map(|l| rename_lit(l, &renamed)));
        out.push(Rule {
            head: Atom {
                rel: reach,
                args: head,
            },
            body,
            vars,
            text: format!("{} [steps of `{name}` from a square reached]", rule.text),
        });
    }
    out
}

/// One step of recursive rule `rule` (calling itself at literal `i`) as a
/// rule of `rel`: from the head's square and kept arguments to the call's
/// square, its body the rule's without the call; `what` for its text.
fn step_rule(rule: &Rule, i: usize, shape: &Linear, rel: RelId, what: &str) -> Rule {
    let Lit::Pos(call) = &rule.body[i] else {
        unreachable!("the recursive call is positive")
    };
    let pick = |args: &[Pat], positions: &[usize]| -> Vec<Pat> {
        positions.iter().map(|&k| args[k].clone()).collect()
    };
    let mut args = pick(&rule.head.args, &shape.changing);
    args.extend(pick(&rule.head.args, &shape.kept));
    args.extend(pick(&call.args, &shape.changing));
    Rule {
        head: Atom { rel, args },
        body: (rule.body.iter().enumerate())
            .filter(|&(j, _)| j != i)
            .map(|(_, l)| l.clone())
            .collect(),
        vars: rule.vars.clone(),
        text: format!("{} [{what}]", rule.text),
    }
}

/// The rules of relation `step` (named after `p`, `name`, defined by its
/// rules among `rules`): one per recursive rule, a step from the head's
/// square and kept arguments to the call's.
pub fn step_rules(rules: &[Rule], name: &str, p: RelId, shape: &Linear, step: RelId) -> Vec<Rule> {
    (rules.iter().filter(|r| r.head.rel == p))
        .filter_map(|rule| Some((rule, recursive_call(rule, p).ok()??)))
        .map(|(rule, i)| step_rule(rule, i, shape, step, &format!("a step of `{name}`")))
        .collect()
}

/// The rules of `p` (named `name`, defined by its rules among `rules`) for
/// a factored call: its exit rules as they are, and each again at every
/// square reached from the start.
pub fn factored_rules(
    rules: &[Rule],
    name: &str,
    p: RelId,
    shape: &Linear,
    reach: RelId,
) -> Vec<Rule> {
    let mut out = Vec::new();
    for rule in rules.iter().filter(|r| r.head.rel == p) {
        if !matches!(recursive_call(rule, p), Ok(None)) {
            continue;
        }
        out.push(rule.clone());
        let mut vars = rule.vars.clone();
        let mut head = rule.head.args.clone();
        let mut args = Vec::new();
        for &k in &shape.changing {
            vars.push(format!("{}_start", name_of(&rule.head.args[k], &rule.vars)));
            let x = Pat::Var(vars.len() - 1);
            head[k] = x.clone();
            args.push(x);
        }
        args.extend(shape.kept.iter().map(|&k| rule.head.args[k].clone()));
        args.extend(shape.changing.iter().map(|&k| rule.head.args[k].clone()));
        let mut body = vec![Lit::Pos(Atom { rel: reach, args })];
        body.extend(rule.body.iter().cloned());
        out.push(Rule {
            head: Atom { rel: p, args: head },
            body,
            vars,
            text: format!("{} [at a square `{name}` reaches]", rule.text),
        });
    }
    out
}

/// A name for a fresh variable standing for `pat`.
fn name_of(pat: &Pat, vars: &[String]) -> String {
    match pat {
        Pat::Var(v) => vars[*v].clone(),
        _ => "?start".into(),
    }
}

/// `pat` with the variables of `renamed` (from, to) renamed.
fn rename_vars(pat: &Pat, renamed: &[(usize, usize)]) -> Pat {
    match pat {
        Pat::Var(v) => Pat::Var(
            renamed
                .iter()
                .find(|(from, _)| from == v)
                .map_or(*v, |&(_, to)| to),
        ),
        Pat::Ground(t) => Pat::Ground(*t),
        Pat::Func(f, args) => Pat::Func(*f, args.iter().map(|a| rename_vars(a, renamed)).collect()),
    }
}

/// `lit` with the variables of `renamed` renamed.
fn rename_lit(lit: &Lit, renamed: &[(usize, usize)]) -> Lit {
    let atom = |a: &Atom| Atom {
        rel: a.rel,
        args: a.args.iter().map(|p| rename_vars(p, renamed)).collect(),
    };
    match lit {
        Lit::Pos(a) => Lit::Pos(atom(a)),
        Lit::Neg(a) => Lit::Neg(atom(a)),
        Lit::Distinct(x, y) => Lit::Distinct(rename_vars(x, renamed), rename_vars(y, renamed)),
        Lit::Same(x, y) => Lit::Same(rename_vars(x, renamed), rename_vars(y, renamed)),
    }
}
