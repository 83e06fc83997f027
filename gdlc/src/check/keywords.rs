//! Keyword discipline: the GDL keywords used with their arity and in their
//! place, roles declared, and the relations a game needs defined.

use crate::diagnostics::Diagnostic;
use crate::graph::RelationGraph;
use crate::normal::{NormalLiteral, NormalRule};
use crate::syntax::ast::{Atom, Description, Literal, Relation};
use rustc_hash::{FxHashMap, FxHashSet};

/// The arity each GDL keyword relation must have.
const KEYWORD_ARITY: &[(&str, usize)] = &[
    ("role", 1),
    ("init", 1),
    ("true", 1),
    ("does", 2),
    ("next", 1),
    ("legal", 2),
    ("goal", 2),
    ("terminal", 0),
    ("base", 1),
    ("input", 2),
    ("sees", 2),
];

/// The keywords that only declare a game's vocabulary: nothing a player
/// or a referee asks of a state reads them.
const DECLARATIONS: [&str; 2] = ["base", "input"];

/// `description` without its `base` and `input` facts and rules of the
/// wrong arity, with a warning for each: such a declaration (an older style
/// of `base`, as `(base cell 1 1 b)`) declares nothing gdlc can use, and
/// the reference prover never asks `base` or `input` to play a game.
pub fn without_misdeclarations(
    description: &Description,
    out: &mut Vec<Diagnostic>,
) -> Description {
    let mut rules = Vec::with_capacity(description.rules.len());
    for rule in &description.rules {
        let head = &rule.head;
        let arity = KEYWORD_ARITY
            .iter()
            .find(|(k, _)| *k == head.name)
            .map(|&(_, a)| a);
        match arity {
            Some(arity)
                if DECLARATIONS.contains(&head.name.as_str()) && head.args.len() != arity =>
            {
                out.push(
                    Diagnostic::warning(
                        "ignored-declaration",
                        format!(
                            "`{}` takes {arity} argument{}, found {}; this {} is ignored",
                            head.name,
                            if arity == 1 { "" } else { "s" },
                            head.args.len(),
                            if rule.body.is_empty() { "fact" } else { "rule" }
                        ),
                    )
                    .at(rule.span, "declaration of the wrong arity")
                    .note("`base` and `input` only declare fluents and moves; nothing gdlc or the reference prover plays reads them"),
                );
            }
            _ => rules.push(rule.clone()),
        }
    }
    Description { rules }
}

/// Checks on the written forms: keyword arities, keywords in heads, roles,
/// and the lenient forms that deserve a warning.
pub fn check_forms(description: &Description, out: &mut Vec<Diagnostic>) {
    let mut atoms: Vec<&Atom> = Vec::new();
    for rule in &description.rules {
        atoms.push(&rule.head);
        let body = atoms.len();
        for literal in &rule.body {
            collect_atoms(literal, &mut atoms, out);
        }
        check_sees_in_body(&atoms[body..], out);
        let head = &rule.head;
        if head.name == "true" || head.name == "does" {
            out.push(
                Diagnostic::error(
                    if head.name == "true" { "true-in-head" } else { "does-in-head" },
                    format!("`{}` cannot be the head of a rule", head.name),
                )
                .at(head.span, "keyword in a head")
                .note("`true` and `does` are given by the state and the moves; use `init` and `next` to define them"),
            );
        }
        if head.name == "role"
            && (!rule.body.is_empty() || head.args.iter().any(|a| !a.is_ground()))
        {
            out.push(
                Diagnostic::error("role-rule", "roles must be declared as ground facts")
                    .at(rule.span, "role defined by a rule"),
            );
        }
    }
    for atom in atoms {
        if let Some(&(_, arity)) = KEYWORD_ARITY.iter().find(|(k, _)| *k == atom.name) {
            if atom.args.len() != arity {
                out.push(
                    Diagnostic::error(
                        "keyword-arity",
                        format!(
                            "`{}` takes {arity} argument{}, found {}",
                            atom.name,
                            if arity == 1 { "" } else { "s" },
                            atom.args.len()
                        ),
                    )
                    .at(atom.span, "wrong number of arguments"),
                );
            }
        }
    }
    if !description.rules.iter().any(|r| r.head.name == "role") {
        out.push(
            Diagnostic::error("no-roles", "the description declares no role")
                .note("add a fact such as `(role white)` for each player"),
        );
    }
}

/// GDL-II's `sees`, like `next`, answers a question about a state and a
/// joint move; no rule may read it (`body`: the atoms of a rule's body).
fn check_sees_in_body(body: &[&Atom], out: &mut Vec<Diagnostic>) {
    for atom in body.iter().filter(|a| a.name == "sees") {
        out.push(
            Diagnostic::error("sees-in-body", "`sees` cannot be read by a rule")
                .at(atom.span, "`sees` in a body")
                .note("`sees` gives each role its percepts after a joint move (GDL-II); like `next`, it only appears in heads"),
        );
    }
}

fn collect_atoms<'a>(literal: &'a Literal, atoms: &mut Vec<&'a Atom>, out: &mut Vec<Diagnostic>) {
    match literal {
        Literal::Atom(a) => atoms.push(a),
        Literal::Not(inner, span) => {
            match inner.as_ref() {
                Literal::Distinct(..) => out.push(
                    Diagnostic::warning("not-distinct", "`(not (distinct ...))` read as equality")
                        .at(*span, "negated `distinct`"),
                ),
                Literal::Or(..) => out.push(
                    Diagnostic::warning(
                        "not-or",
                        "`(not (or ...))` read as a conjunction of negations",
                    )
                    .at(*span, "negated `or`"),
                ),
                Literal::Not(..) => out.push(
                    Diagnostic::warning("not-not", "double negation `(not (not ...))` cancelled")
                        .at(*span, "double negation"),
                ),
                Literal::Atom(_) => {}
            }
            collect_atoms(inner, atoms, out);
        }
        Literal::Or(ls, _) => ls.iter().for_each(|l| collect_atoms(l, atoms, out)),
        Literal::Distinct(..) => {}
    }
}

/// Checks on relations: what `init`, `role`, `legal`, `goal` and `terminal`
/// may depend on, names used with two arities, relations never defined, and
/// the relations every game needs.
pub fn check_relations(
    description: &Description,
    rules: &[NormalRule],
    graph: &RelationGraph,
    out: &mut Vec<Diagnostic>,
) {
    check_keyword_dependencies(rules, graph, out);
    check_arity_overloads(rules, out);
    check_undefined_relations(rules, out);
    check_missing_keywords(description, out);
}

/// `init` and `role` must not depend on `true` or `does` (`legal`, `goal`
/// and `terminal` may, with a warning: see `no_move`).
fn check_keyword_dependencies(
    rules: &[NormalRule],
    graph: &RelationGraph,
    out: &mut Vec<Diagnostic>,
) {
    for (keyword, forbidden, code) in [
        ("init", &["true", "does"][..], "impure-init"),
        ("role", &["true", "does"][..], "impure-init"),
    ] {
        let Some(&(_, arity)) = KEYWORD_ARITY.iter().find(|(k, _)| *k == keyword) else {
            continue;
        };
        let relation = Relation {
            name: keyword.to_string(),
            arity,
        };
        if let Some(source) = forbidden.iter().find(|s| graph.depends_on(&relation, &[s])) {
            let span = rules
                .iter()
                .find(|r| r.head.relation() == relation)
                .map(|r| r.span);
            let mut d = Diagnostic::error(
                code,
                format!("`{keyword}` depends on `{source}`, which it must not"),
            );
            if let Some(span) = span {
                d = d.at(span, format!("a rule for `{keyword}`"));
            }
            out.push(d);
        }
    }
}

/// Warns of each name used with two arities (two separate relations).
fn check_arity_overloads(rules: &[NormalRule], out: &mut Vec<Diagnostic>) {
    let mut arities: FxHashMap<&str, Vec<(usize, crate::diagnostics::Span)>> = FxHashMap::default();
    for rule in rules {
        let atoms = std::iter::once(&rule.head).chain(rule.body.iter().filter_map(|l| match l {
            NormalLiteral::Pos(a) | NormalLiteral::Neg(a) => Some(a),
            _ => None,
        }));
        for atom in atoms {
            let seen = arities.entry(atom.name.as_str()).or_default();
            if !seen.iter().any(|(n, _)| *n == atom.args.len()) {
                seen.push((atom.args.len(), atom.span));
            }
        }
    }
    let mut names: Vec<_> = arities.into_iter().filter(|(_, v)| v.len() > 1).collect();
    names.sort_by_key(|(_, v)| v[0].1);
    for (name, uses) in names {
        out.push(
            Diagnostic::warning(
                "arity-overload",
                format!(
                    "`{name}` is used with {} different arities; each arity is a separate relation",
                    uses.len()
                ),
            )
            .at(uses[1].1, format!("used with {} arguments here", uses[1].0))
            .also(uses[0].1, format!("used with {} arguments here", uses[0].0)),
        );
    }
}

/// Warns of each relation used in a body but defined by no rule.
fn check_undefined_relations(rules: &[NormalRule], out: &mut Vec<Diagnostic>) {
    let defined: FxHashSet<Relation> = rules.iter().map(|r| r.head.relation()).collect();
    let mut reported: FxHashSet<Relation> = FxHashSet::default();
    for rule in rules {
        for literal in &rule.body {
            if let NormalLiteral::Pos(a) | NormalLiteral::Neg(a) = literal {
                let relation = a.relation();
                if matches!(a.name.as_str(), "true" | "does") || defined.contains(&relation) {
                    continue;
                }
                if reported.insert(relation.clone()) {
                    out.push(
                        Diagnostic::warning(
                            "undefined-relation",
                            format!("relation `{relation}` is never defined; it is always false"),
                        )
                        .at(a.span, "used here"),
                    );
                }
            }
        }
    }
}

/// Warns of each of `legal`, `next`, `terminal` and `goal` that no rule
/// defines.
fn check_missing_keywords(description: &Description, out: &mut Vec<Diagnostic>) {
    for (keyword, what) in [
        ("legal", "no role has a legal move"),
        ("next", "every state after the first is empty"),
        ("terminal", "no state is terminal"),
        ("goal", "no role has a goal value"),
    ] {
        if !description.rules.iter().any(|r| r.head.name == keyword) {
            out.push(Diagnostic::warning(
                "missing-keyword",
                format!("no rule defines `{keyword}`: {what}"),
            ));
        }
    }
}
