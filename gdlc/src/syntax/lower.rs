//! Gives s-expressions their GDL meaning: rules, literals, atoms and terms.
//! Every problem found is collected as a diagnostic; lowering goes on past
//! errors so that one run reports them all.

use super::ast::{Atom, Description, Literal, Rule, Term};
use super::sexpr::SExpr;
use crate::diagnostics::{Diagnostic, Span};

/// Lowers the top-level s-expressions of a file.
pub fn lower(items: Vec<SExpr>, diagnostics: &mut Vec<Diagnostic>) -> Description {
    let items = unwrap_rule_list(items);
    let mut lowerer = Lowerer { diagnostics };
    let rules = items
        .iter()
        .filter_map(|item| lowerer.sentence(item))
        .collect();
    Description { rules }
}

/// The Stanford repository wraps the whole rule list in one extra pair of
/// parentheses: `((role a) (<= ...) ...)`. A file that is one list whose first
/// element is itself a list can only be that form.
fn unwrap_rule_list(mut items: Vec<SExpr>) -> Vec<SExpr> {
    if let [SExpr::List(inner, _)] = items.as_slice() {
        if matches!(inner.first(), Some(SExpr::List(..))) {
            let Some(SExpr::List(inner, _)) = items.pop() else {
                unreachable!("matched above")
            };
            return inner;
        }
    }
    items
}

struct Lowerer<'d> {
    diagnostics: &'d mut Vec<Diagnostic>,
}

impl Lowerer<'_> {
    fn error(&mut self, code: &'static str, message: String, span: Span, label: &str) {
        self.diagnostics
            .push(Diagnostic::error(code, message).at(span, label));
    }

    fn sentence(&mut self, item: &SExpr) -> Option<Rule> {
        if let SExpr::List(items, span) = item {
            if let Some(SExpr::Symbol(s, _)) = items.first() {
                if s == "<=" {
                    return self.rule(items, *span);
                }
            }
        }
        let head = self.atom(item, "a fact")?;
        Some(Rule {
            head,
            body: Vec::new(),
            span: item.span(),
        })
    }

    fn rule(&mut self, items: &[SExpr], span: Span) -> Option<Rule> {
        let Some(head) = items.get(1) else {
            self.error(
                "bad-rule",
                "rule has no head".into(),
                span,
                "expected `(<= head literal ...)`",
            );
            return None;
        };
        let head = self.atom(head, "a rule head");
        let body: Vec<Literal> = items[2..].iter().filter_map(|l| self.literal(l)).collect();
        if body.len() != items.len() - 2 {
            return None;
        }
        let head = head?;
        if body.is_empty() {
            self.diagnostics.push(
                Diagnostic::warning(
                    "zero-body-rule",
                    format!("rule `(<= {head})` has an empty body; read as the fact `{head}`"),
                )
                .at(span, "rule without body"),
            );
        }
        Some(Rule { head, body, span })
    }

    fn literal(&mut self, item: &SExpr) -> Option<Literal> {
        if let SExpr::List(items, span) = item {
            if let Some(SExpr::Symbol(s, _)) = items.first() {
                let span = *span;
                let args = &items[1..];
                match s.as_str() {
                    "not" => {
                        if args.len() != 1 {
                            self.error(
                                "bad-literal",
                                format!("`not` takes one literal, found {}", args.len()),
                                span,
                                "expected `(not literal)`",
                            );
                            return None;
                        }
                        let inner = self.literal(&args[0])?;
                        return Some(Literal::Not(Box::new(inner), span));
                    }
                    "distinct" => {
                        if args.len() != 2 {
                            self.error(
                                "bad-literal",
                                format!("`distinct` takes two terms, found {}", args.len()),
                                span,
                                "expected `(distinct term term)`",
                            );
                            return None;
                        }
                        let a = self.term(&args[0]);
                        let b = self.term(&args[1]);
                        return Some(Literal::Distinct(a?, b?, span));
                    }
                    "or" => {
                        let ls: Vec<Literal> =
                            args.iter().filter_map(|l| self.literal(l)).collect();
                        if ls.len() != args.len() {
                            return None;
                        }
                        if ls.is_empty() {
                            self.error(
                                "bad-literal",
                                "`or` needs at least one literal".into(),
                                span,
                                "empty disjunction",
                            );
                            return None;
                        }
                        return Some(Literal::Or(ls, span));
                    }
                    _ => {}
                }
            }
        }
        self.atom(item, "a literal").map(Literal::Atom)
    }

    fn atom(&mut self, item: &SExpr, what: &str) -> Option<Atom> {
        match item {
            SExpr::Symbol(name, span) => {
                self.reserved_name(name, *span);
                Some(Atom {
                    name: name.clone(),
                    args: Vec::new(),
                    span: *span,
                })
            }
            SExpr::Variable(v, span) => {
                self.error(
                    "bad-sentence",
                    format!("variable `{v}` cannot stand for {what}"),
                    *span,
                    "a relation symbol is needed here",
                );
                None
            }
            SExpr::List(items, span) => match items.first() {
                Some(SExpr::Symbol(name, _)) => {
                    self.reserved_name(name, *span);
                    if items.len() == 1 {
                        self.diagnostics.push(
                            Diagnostic::warning(
                                "parenthesised-constant",
                                format!("`({name})` written with parentheses; read as `{name}`"),
                            )
                            .at(*span, "zero-argument relation in parentheses"),
                        );
                    }
                    let args: Vec<Term> = items[1..].iter().filter_map(|t| self.term(t)).collect();
                    (args.len() == items.len() - 1).then(|| Atom {
                        name: name.clone(),
                        args,
                        span: *span,
                    })
                }
                Some(other) => {
                    self.error(
                        "bad-sentence",
                        format!("{what} must start with a relation symbol"),
                        other.span(),
                        "expected a symbol here",
                    );
                    None
                }
                None => {
                    self.error(
                        "bad-sentence",
                        format!("empty list `()` where {what} was expected"),
                        *span,
                        "empty list",
                    );
                    None
                }
            },
        }
    }

    fn reserved_name(&mut self, name: &str, span: Span) {
        if matches!(name, "<=" | "not" | "or" | "distinct") {
            self.error(
                "bad-sentence",
                format!("`{name}` cannot be used as a relation here"),
                span,
                "misplaced keyword",
            );
        }
    }

    fn term(&mut self, item: &SExpr) -> Option<Term> {
        match item {
            SExpr::Symbol(s, span) => Some(Term::Const(s.clone(), *span)),
            SExpr::Variable(v, span) => {
                if v == "?" {
                    self.error(
                        "bad-term",
                        "a variable needs a name after `?`".into(),
                        *span,
                        "nameless variable",
                    );
                    return None;
                }
                Some(Term::Var(v.clone(), *span))
            }
            SExpr::List(items, span) => match items.first() {
                Some(SExpr::Symbol(name, _)) => {
                    let args: Vec<Term> = items[1..].iter().filter_map(|t| self.term(t)).collect();
                    (args.len() == items.len() - 1).then(|| Term::Func(name.clone(), args, *span))
                }
                Some(other) => {
                    self.error(
                        "bad-term",
                        "a compound term must start with a function symbol".into(),
                        other.span(),
                        "expected a symbol here",
                    );
                    None
                }
                None => {
                    self.error(
                        "bad-term",
                        "empty list `()` is not a term".into(),
                        *span,
                        "empty list",
                    );
                    None
                }
            },
        }
    }
}
