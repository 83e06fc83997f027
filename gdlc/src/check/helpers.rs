//! Leniency for rules that are safe only where they are used.
//!
//! - `legal` and `goal` rules whose role argument is a variable bound by no
//!   literal, as in `(<= (legal ?p noop) ...)`: the game manager asks them for
//!   each role, so the variable ranges over the roles; `(role ?p)` is added.
//! - Helper relations unsafe only in head variables, such as
//!   `(<= (differ ?x ?y) (distinct ?x ?y))`: unused ones are dropped, and
//!   positive uses are unfolded (the helper's body replaces the call, with
//!   the call's arguments unified into it), which makes the callers safe
//!   when they bind those arguments.

use super::safety::{bound_variables, renamed_variable, unsafe_variables};
use crate::diagnostics::Diagnostic;
use crate::ir::written_name;
use crate::normal::{NormalLiteral, NormalRule};
use crate::syntax::ast::{Atom, Relation, Term};
use rustc_hash::{FxHashMap, FxHashSet};

/// Rules produced by unfolding before gdlc gives up on a description.
const MAX_UNFOLDED: usize = 100_000;

/// Adds `(role ?p)` to `legal` and `goal` rules whose role variable is free.
pub fn bind_role_variables(rules: &mut [NormalRule], out: &mut Vec<Diagnostic>) {
    let mut warned: FxHashSet<crate::diagnostics::Span> = FxHashSet::default();
    for rule in rules.iter_mut() {
        let name = written_name(&rule.head.name);
        if !matches!(name, "legal" | "goal") || rule.head.args.len() != 2 {
            continue;
        }
        let Term::Var(var, span) = &rule.head.args[0] else {
            continue;
        };
        if bound_variables(rule).contains(var.as_str()) {
            continue;
        }
        let (var, span) = (var.clone(), *span);
        if warned.insert(rule.span) {
            out.push(
                Diagnostic::warning(
                    "role-variable",
                    format!("role variable `{var}` of `{name}` is bound by no literal; it ranges over the roles"),
                )
                .at(span, "read as if `(role ...)` bound it"),
            );
        }
        rule.body.push(NormalLiteral::Pos(Atom {
            name: "role".into(),
            args: vec![Term::Var(var, span)],
            span,
        }));
    }
}

/// Drops unused unsafe helpers and unfolds the positive uses of the others.
pub fn unfold_helpers(rules: Vec<NormalRule>, out: &mut Vec<Diagnostic>) -> Vec<NormalRule> {
    let helpers = helper_relations(&rules);
    if helpers.is_empty() {
        return rules;
    }
    let uses = |rules: &[NormalRule], h: &Relation, negated: bool| {
        rules.iter().any(|r| {
            r.body.iter().any(|l| match l {
                NormalLiteral::Pos(a) => !negated && a.relation() == *h,
                NormalLiteral::Neg(a) => negated && a.relation() == *h,
                _ => false,
            })
        })
    };
    let mut rules = rules;
    for helper in &helpers {
        if uses(&rules, helper, true) {
            // Left in place: the safety check reports it.
            continue;
        }
        let definitions: Vec<NormalRule> = rules
            .iter()
            .filter(|r| r.head.relation() == *helper)
            .cloned()
            .collect();
        if definitions.iter().any(|d| calls(d, helper)) {
            // Unfolding a relation into its own rules would never end (an
            // earlier unfolding can make a helper recursive): left in
            // place, the safety check reports it.
            continue;
        }
        let span = definitions[0].span;
        out.push(helper_warning(helper, uses(&rules, helper, false), span));
        rules.retain(|r| r.head.relation() != *helper);
        let mut fresh = 0usize;
        let mut done: Vec<NormalRule> = Vec::new();
        let mut work: Vec<NormalRule> = rules;
        while let Some(rule) = work.pop() {
            let Some(at) = rule
                .body
                .iter()
                .position(|l| matches!(l, NormalLiteral::Pos(a) if a.relation() == *helper))
            else {
                done.push(rule);
                continue;
            };
            let NormalLiteral::Pos(call) = &rule.body[at] else {
                unreachable!("matched above")
            };
            for def in &definitions {
                fresh += 1;
                let def = rename(def, fresh, helper);
                let mut subst = FxHashMap::default();
                if !call
                    .args
                    .iter()
                    .zip(&def.head.args)
                    .all(|(a, b)| unify(a, b, &mut subst))
                {
                    continue;
                }
                let mut body: Vec<NormalLiteral> = rule.body[..at].to_vec();
                body.extend(def.body.iter().cloned());
                body.extend(rule.body[at + 1..].iter().cloned());
                let mut unfolded = NormalRule {
                    head: rule.head.clone(),
                    body,
                    span: rule.span,
                };
                apply_rule(&mut unfolded, &subst);
                work.push(unfolded);
            }
            if done.len() + work.len() > MAX_UNFOLDED {
                out.push(
                    Diagnostic::error(
                        "unfolding-too-large",
                        format!("unfolding `{helper}` into its callers makes more than {MAX_UNFOLDED} rules"),
                    )
                    .at(span, "helper safe only where it is used"),
                );
                return done.into_iter().chain(work).collect();
            }
        }
        done.reverse();
        rules = done;
    }
    rules
}

/// The warning that `helper`'s rules are unfolded into its callers (when
/// `used`) or ignored.
fn helper_warning(helper: &Relation, used: bool, span: crate::diagnostics::Span) -> Diagnostic {
    if used {
        Diagnostic::warning(
            "unfolded-helper",
            format!("`{helper}` is safe only where it is used; its rules are unfolded into their callers"),
        )
        .at(span, "unsafe on its own")
    } else {
        Diagnostic::warning(
            "unused-unsafe-rule",
            format!("`{helper}` is unsafe and never used; its rules are ignored"),
        )
        .at(span, "unsafe and unused")
    }
}

/// Whether a literal of `rule`'s body is over `relation`.
fn calls(rule: &NormalRule, relation: &Relation) -> bool {
    rule.body.iter().any(|l| match l {
        NormalLiteral::Pos(a) | NormalLiteral::Neg(a) => a.relation() == *relation,
        _ => false,
    })
}

/// Non-keyword relations with unsafe rules whose unsafe variables all occur
/// in the head, none of whose rules calls the relation itself.
fn helper_relations(rules: &[NormalRule]) -> Vec<Relation> {
    let mut candidates: Vec<Relation> = Vec::new();
    let mut excluded: FxHashSet<Relation> = FxHashSet::default();
    let recursive: FxHashSet<Relation> = rules
        .iter()
        .filter(|r| calls(r, &r.head.relation()))
        .map(|r| r.head.relation())
        .collect();
    for rule in rules {
        let relation = rule.head.relation();
        let unsafe_vars = unsafe_variables(rule);
        if unsafe_vars.is_empty() {
            continue;
        }
        let mut head_vars = FxHashSet::default();
        rule.head.for_each_var(&mut |v, _| {
            head_vars.insert(v);
        });
        let keyword = matches!(
            written_name(&relation.name),
            "role"
                | "init"
                | "true"
                | "does"
                | "next"
                | "sees"
                | "legal"
                | "goal"
                | "terminal"
                | "base"
                | "input"
        );
        if keyword
            || recursive.contains(&relation)
            || !unsafe_vars.iter().all(|(v, _, _)| head_vars.contains(v))
        {
            excluded.insert(relation);
        } else if !candidates.contains(&relation) {
            candidates.push(relation);
        }
    }
    candidates.retain(|r| !excluded.contains(r));
    candidates
}

/// A rule of `helper` with every variable renamed apart
/// ([`renamed_variable`]), each keeping the span of its first occurrence,
/// so that a diagnostic about an unfolded rule points into the helper as
/// written and names the variable as written.
fn rename(rule: &NormalRule, fresh: usize, helper: &Relation) -> NormalRule {
    let mut subst: FxHashMap<String, Term> = FxHashMap::default();
    let mut add = |v: &str, span| {
        subst
            .entry(v.to_string())
            .or_insert_with(|| Term::Var(renamed_variable(v, fresh, helper), span));
    };
    rule.head.for_each_var(&mut add);
    for l in &rule.body {
        l.for_each_var(&mut add);
    }
    let mut renamed = rule.clone();
    apply_rule(&mut renamed, &subst);
    renamed
}

fn resolve<'a>(t: &'a Term, subst: &'a FxHashMap<String, Term>) -> &'a Term {
    let mut t = t;
    while let Term::Var(v, _) = t {
        match subst.get(v) {
            Some(next) => t = next,
            None => break,
        }
    }
    t
}

/// Whether variable `var` occurs in `t` under `subst`.
fn occurs(var: &str, t: &Term, subst: &FxHashMap<String, Term>) -> bool {
    match resolve(t, subst) {
        Term::Var(v, _) => v == var,
        Term::Const(..) => false,
        Term::Func(_, args, _) => args.iter().any(|a| occurs(var, a, subst)),
    }
}

/// Unifies `a` and `b`, extending `subst`; with the occurs check, so a
/// variable is never bound to a term containing it (GDL's terms are
/// finite: `?x` and `(f ?x)` do not unify).
fn unify(a: &Term, b: &Term, subst: &mut FxHashMap<String, Term>) -> bool {
    let a = resolve(a, subst).clone();
    let b = resolve(b, subst).clone();
    match (&a, &b) {
        (Term::Var(x, _), Term::Var(y, _)) if x == y => true,
        (Term::Var(x, _), _) => {
            if occurs(x, &b, subst) {
                return false;
            }
            subst.insert(x.clone(), b);
            true
        }
        (_, Term::Var(y, _)) => {
            if occurs(y, &a, subst) {
                return false;
            }
            subst.insert(y.clone(), a);
            true
        }
        (Term::Const(x, _), Term::Const(y, _)) => x == y,
        (Term::Func(f, xs, _), Term::Func(g, ys, _)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| unify(x, y, subst))
        }
        _ => false,
    }
}

fn apply_term(t: &mut Term, subst: &FxHashMap<String, Term>) {
    match t {
        Term::Var(..) => {
            let resolved = resolve(t, subst).clone();
            *t = resolved;
            if let Term::Func(..) = t {
                apply_term(t, subst);
            }
        }
        Term::Const(..) => {}
        Term::Func(_, args, _) => args.iter_mut().for_each(|a| apply_term(a, subst)),
    }
}

fn apply_atom(a: &mut Atom, subst: &FxHashMap<String, Term>) {
    a.args.iter_mut().for_each(|t| apply_term(t, subst));
}

fn apply_rule(rule: &mut NormalRule, subst: &FxHashMap<String, Term>) {
    apply_atom(&mut rule.head, subst);
    for l in &mut rule.body {
        match l {
            NormalLiteral::Pos(a) | NormalLiteral::Neg(a) => apply_atom(a, subst),
            NormalLiteral::Distinct(x, y, _) | NormalLiteral::Same(x, y, _) => {
                apply_term(x, subst);
                apply_term(y, subst);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostics::SourceFile;

    /// A call that would bind a variable to a term containing it matches
    /// no rule of the helper: `(h ?y ?y)` needs `?y = (f ?y)`. Unifying
    /// without the occurs check built a cyclic substitution and overflowed
    /// the stack (found by the fuzzing harness).
    #[test]
    fn a_call_needing_an_infinite_term_matches_nothing() {
        let text = "(role you) (q a) (<= (h ?x (f ?x)) (distinct ?x b))
            (<= (legal you go) (q ?y) (h ?y ?y))
            (<= (legal you stay) (q ?y) (h ?y (f ?y)))";
        let file = SourceFile {
            name: "t.kif".into(),
            text: text.into(),
        };
        let loaded = crate::load_source(file).expect("valid");
        let legal: Vec<String> = loaded
            .analysis
            .rules
            .iter()
            .filter(|r| r.head.name == "legal")
            .map(|r| r.head.to_string())
            .collect();
        assert_eq!(legal, ["(legal you stay)"]);
    }
}
