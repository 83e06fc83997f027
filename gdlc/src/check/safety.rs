//! Safety: every variable of a head, of a negated literal or of a `distinct`
//! must be bound by a positive literal of the same body.
//!
//! Runs after `helpers`, which unfolds relations that are safe only at their
//! call sites into their callers, so what is reported here has no binding
//! anywhere.

use crate::diagnostics::{Diagnostic, Span};
use crate::normal::{NormalLiteral, NormalRule};
use crate::syntax::ast::Relation;
use rustc_hash::FxHashSet;

/// The variables bound by the positive literals of a body.
pub fn bound_variables(rule: &NormalRule) -> FxHashSet<&str> {
    let mut bound = FxHashSet::default();
    for literal in &rule.body {
        if let NormalLiteral::Pos(a) = literal {
            a.for_each_var(&mut |v, _| {
                bound.insert(v);
            });
        }
    }
    bound
}

/// The first unbound variable occurrences of a rule: (name, span, where).
pub fn unsafe_variables(rule: &NormalRule) -> Vec<(&str, Span, &'static str)> {
    let bound = bound_variables(rule);
    let mut found: Vec<(&str, Span, &'static str)> = Vec::new();
    let mut push = |v, s, place| {
        if !bound.contains(v) && !found.iter().any(|(w, _, _)| *w == v) {
            found.push((v, s, place));
        }
    };
    rule.head.for_each_var(&mut |v, s| push(v, s, "the head"));
    for literal in &rule.body {
        let place = match literal {
            NormalLiteral::Pos(_) => continue,
            NormalLiteral::Neg(_) => "a negated literal",
            NormalLiteral::Distinct(..) => "`distinct`",
            NormalLiteral::Same(..) => "`(not (distinct ...))`",
        };
        literal.for_each_var(&mut |v, s| push(v, s, place));
    }
    found
}

/// The name of variable `var` of a rule of `helper` renamed apart (the
/// `fresh`-th copy) to be unfolded into a caller: a space never occurs in a
/// written variable, so the name is fresh, and it keeps what a diagnostic
/// needs to show the variable as written.
pub fn renamed_variable(var: &str, fresh: usize, helper: &Relation) -> String {
    format!("{var} {fresh} {helper}")
}

/// A variable as written, and the helper it was written in when it was
/// renamed by [`renamed_variable`] (the first helper, if renamed again).
fn written_variable(var: &str) -> (&str, Option<&str>) {
    let mut parts = var.split(' ');
    let written = parts.next().unwrap_or(var);
    (written, parts.nth(1))
}

/// Reports unsafe rules.
pub fn check(rules: &[NormalRule], out: &mut Vec<Diagnostic>) {
    let mut reported: FxHashSet<(Span, String)> = FxHashSet::default();
    for rule in rules {
        for (var, span, place) in unsafe_variables(rule) {
            if !reported.insert((span, var.to_string())) {
                continue;
            }
            let relation: Relation = rule.head.relation();
            let (written, helper) = written_variable(var);
            let origin = helper.map_or_else(String::new, |h| {
                format!(" (`{written}` is written in `{h}`, unfolded into that rule)")
            });
            let mut d = Diagnostic::error(
                "unsafe-variable",
                format!("variable `{written}` in {place} is not bound by any positive literal of the rule for `{relation}`{origin}"),
            )
            .at(span, "unbound variable")
            .also(rule.span, "in this rule");
            if place != "the head" {
                d = d.note(
                    "the reference prover ignores such a literal, as if it always held, which is rarely what was meant",
                );
            }
            if place == "a negated literal" {
                d = d.note(format!(
                    "to say that no value of `{written}` makes it hold, negate a relation of its own that binds `{written}`, \
                     as `(<= some (p {written}))` with `(not some)`"
                ));
            }
            out.push(d);
        }
    }
}
