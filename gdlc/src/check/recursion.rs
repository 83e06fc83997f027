//! The recursion restriction of GDL, which keeps every relation finite: in a
//! rule whose head `p` is recursive with a body atom `q(s1 ... sk)`, each `sj`
//! must be ground, be one of the head's arguments, or have all its variables
//! bound by a positive body atom whose relation is not recursive with `p`.

use crate::diagnostics::Diagnostic;
use crate::graph::RelationGraph;
use crate::normal::{NormalLiteral, NormalRule};
use rustc_hash::FxHashSet;

/// Reports every argument of a recursive literal that breaks the restriction.
pub fn check(rules: &[NormalRule], graph: &RelationGraph, out: &mut Vec<Diagnostic>) {
    let components = graph.components();
    let mut component_of = vec![0usize; graph.graph.node_count()];
    for (i, scc) in components.iter().enumerate() {
        for n in scc {
            component_of[n.index()] = i;
        }
    }
    let component =
        |r: &crate::syntax::ast::Relation| graph.get(r).map(|n| component_of[n.index()]);
    for rule in rules {
        let head = component(&rule.head.relation());
        // Variables bound by positive literals outside the head's component.
        let mut anchored: FxHashSet<&str> = FxHashSet::default();
        for literal in &rule.body {
            if let NormalLiteral::Pos(a) = literal {
                if component(&a.relation()) != head {
                    a.for_each_var(&mut |v, _| {
                        anchored.insert(v);
                    });
                }
            }
        }
        for literal in &rule.body {
            let NormalLiteral::Pos(a) = literal else {
                continue;
            };
            if component(&a.relation()) != head {
                continue;
            }
            for arg in &a.args {
                let in_head = rule.head.args.iter().any(|h| same_term(h, arg));
                let mut all_anchored = true;
                arg.for_each_var(&mut |v, _| all_anchored &= anchored.contains(v));
                if in_head || all_anchored {
                    continue;
                }
                out.push(
                    Diagnostic::error(
                        "unbounded-recursion",
                        format!(
                            "recursion restriction broken: argument `{arg}` of recursive literal `{a}` can grow without bound"
                        ),
                    )
                    .at(arg.span(), "neither ground, nor a head argument, nor bound by a non-recursive literal")
                    .also(rule.span, format!("in this rule for `{}`", rule.head.relation())),
                );
            }
        }
    }
}

/// Structural equality of terms, ignoring spans.
fn same_term(a: &crate::syntax::ast::Term, b: &crate::syntax::ast::Term) -> bool {
    use crate::syntax::ast::Term::*;
    match (a, b) {
        (Const(x, _), Const(y, _)) | (Var(x, _), Var(y, _)) => x == y,
        (Func(f, xs, _), Func(g, ys, _)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same_term(x, y))
        }
        _ => false,
    }
}
