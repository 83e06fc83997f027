//! Normal form of rules: `or` split into separate rules and `not` pushed down
//! to atoms, so that a body is a plain conjunction of positive atoms, negated
//! atoms, `distinct` and its negation `same`.

use crate::diagnostics::Span;
use crate::ir::REFINED;
use crate::syntax::ast::{Atom, Literal, Rule, Term};

/// A literal of a normalized body.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NormalLiteral {
    /// The atom holds.
    Pos(Atom),
    /// The atom does not hold.
    Neg(Atom),
    /// The two terms differ.
    Distinct(Term, Term, Span),
    /// The two terms are equal (written `(not (distinct s t))`).
    Same(Term, Term, Span),
}

impl NormalLiteral {
    /// The source span.
    pub fn span(&self) -> Span {
        match self {
            NormalLiteral::Pos(a) | NormalLiteral::Neg(a) => a.span,
            NormalLiteral::Distinct(_, _, s) | NormalLiteral::Same(_, _, s) => *s,
        }
    }

    /// Calls `f` on every variable occurrence.
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a str, Span)) {
        match self {
            NormalLiteral::Pos(a) | NormalLiteral::Neg(a) => a.for_each_var(f),
            NormalLiteral::Distinct(a, b, _) | NormalLiteral::Same(a, b, _) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
        }
    }
}

/// A rule in normal form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NormalRule {
    /// The head.
    pub head: Atom,
    /// The body, a conjunction.
    pub body: Vec<NormalLiteral>,
    /// The span of the source rule.
    pub span: Span,
}

/// The normal-form rules equivalent to `rule`: one per way of choosing a
/// disjunct of each `or`.
pub fn normalize(rule: &Rule) -> Vec<NormalRule> {
    conjunction(rule.body.iter().map(|l| dnf(l, false)))
        .into_iter()
        .map(|body| NormalRule {
            head: rule.head.clone(),
            body,
            span: rule.span,
        })
        .collect()
}

/// Disjunctive normal form of a literal (negated when `negated`): a list of
/// alternatives, each a conjunction.
fn dnf(literal: &Literal, negated: bool) -> Vec<Vec<NormalLiteral>> {
    match (literal, negated) {
        (Literal::Atom(a), false) => vec![vec![NormalLiteral::Pos(a.clone())]],
        (Literal::Atom(a), true) => vec![vec![NormalLiteral::Neg(a.clone())]],
        (Literal::Distinct(a, b, s), false) => {
            vec![vec![NormalLiteral::Distinct(a.clone(), b.clone(), *s)]]
        }
        (Literal::Distinct(a, b, s), true) => {
            vec![vec![NormalLiteral::Same(a.clone(), b.clone(), *s)]]
        }
        (Literal::Not(inner, _), _) => dnf(inner, !negated),
        (Literal::Or(ls, _), false) => ls.iter().flat_map(|l| dnf(l, false)).collect(),
        // not (a or b) = (not a) and (not b)
        (Literal::Or(ls, _), true) => conjunction(ls.iter().map(|l| dnf(l, true))),
    }
}

/// The disjunctive normal form of a conjunction of parts, each given in
/// disjunctive normal form: one alternative per choice of an alternative of
/// each part.
fn conjunction(parts: impl Iterator<Item = Vec<Vec<NormalLiteral>>>) -> Vec<Vec<NormalLiteral>> {
    let mut result: Vec<Vec<NormalLiteral>> = vec![Vec::new()];
    for alternatives in parts {
        result = result
            .iter()
            .flat_map(|conj| {
                alternatives.iter().map(move |alt| {
                    let mut c = conj.clone();
                    c.extend(alt.iter().cloned());
                    c
                })
            })
            .collect();
    }
    result
}

/// Refines the relations in `relations` by their constant arguments, so that
/// negation that is stratified on ground atoms becomes stratified on
/// relations: when every occurrence of a relation has a constant at position
/// `i`, each constant names a relation of its own.
///
/// `(<= (goal robot 100) (not (goal robot 0)))` is the common case: `goal`
/// depends on itself through `not`, but `goal robot 100` does not depend on
/// itself. The refined names keep the written name before a space, and
/// atoms keep all their arguments.
pub fn refine(rules: &mut [NormalRule], relations: &[crate::syntax::ast::Relation]) {
    for relation in relations {
        let mut constant = vec![true; relation.arity];
        let mut visit = |atom: &Atom| {
            if atom.relation() == *relation {
                for (i, arg) in atom.args.iter().enumerate() {
                    constant[i] &= matches!(arg, Term::Const(..));
                }
            }
        };
        for rule in rules.iter() {
            visit(&rule.head);
            for literal in &rule.body {
                if let NormalLiteral::Pos(a) | NormalLiteral::Neg(a) = literal {
                    visit(a);
                }
            }
        }
        if !constant.contains(&true) {
            continue;
        }
        let rename = |atom: &mut Atom| {
            if atom.relation() != *relation {
                return;
            }
            let mut name = atom.name.clone();
            for (i, arg) in atom.args.iter().enumerate() {
                if let (true, Term::Const(c, _)) = (constant[i], arg) {
                    name.push(REFINED);
                    name.push_str(&format!("{i}={c}"));
                }
            }
            atom.name = name;
        };
        for rule in rules.iter_mut() {
            rename(&mut rule.head);
            for literal in &mut rule.body {
                if let NormalLiteral::Pos(a) | NormalLiteral::Neg(a) = literal {
                    rename(a);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceFile;
    use crate::ir::written_name;

    fn normal_texts(rule: &str) -> Vec<String> {
        let file = SourceFile {
            name: "t.kif".into(),
            text: rule.into(),
        };
        let (d, _) = crate::syntax::parse(&file);
        normalize(&d.unwrap().rules[0])
            .iter()
            .map(|r| {
                let body: Vec<String> = r
                    .body
                    .iter()
                    .map(|l| match l {
                        NormalLiteral::Pos(a) => a.to_string(),
                        NormalLiteral::Neg(a) => format!("-{a}"),
                        NormalLiteral::Distinct(a, b, _) => format!("{a}!={b}"),
                        NormalLiteral::Same(a, b, _) => format!("{a}=={b}"),
                    })
                    .collect();
                body.join(" ")
            })
            .collect()
    }

    #[test]
    fn or_is_split_and_not_pushed_down() {
        assert_eq!(normal_texts("(<= p (or a b) c)"), ["a c", "b c"]);
        assert_eq!(normal_texts("(<= p (not (or a (not b))))"), ["-a b"]);
        assert_eq!(
            normal_texts("(<= p (r ?x ?y) (not (distinct ?x ?y)))"),
            ["(r ?x ?y) ?x==?y"]
        );
        assert_eq!(normal_texts("(<= p (or a (or b c)))"), ["a", "b", "c"]);
    }

    #[test]
    fn refinement_splits_constant_positions() {
        let file = SourceFile {
            name: "t.kif".into(),
            text: "(<= (goal r 100) (not (goal r 0)))\n(<= (goal r 0) (true x))".into(),
        };
        let (d, _) = crate::syntax::parse(&file);
        let mut rules: Vec<NormalRule> = d.unwrap().rules.iter().flat_map(normalize).collect();
        let goal = crate::syntax::ast::Relation {
            name: "goal".into(),
            arity: 2,
        };
        refine(&mut rules, &[goal]);
        assert_eq!(rules[0].head.name, "goal 0=r 1=100");
        assert_eq!(written_name(&rules[0].head.name), "goal");
        let NormalLiteral::Neg(a) = &rules[0].body[0] else {
            panic!()
        };
        assert_eq!(a.name, "goal 0=r 1=0");
    }
}
