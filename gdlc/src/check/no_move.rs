//! `legal`, `goal` and `terminal` that depend on `does`. GDL forbids it,
//! but tournament games do it through helper relations, and the reference
//! prover plays them: it asks those three of a state in which no move is
//! being made, so `does` holds for no move there. Such a description is
//! accepted with a warning naming the keyword and its path to `does`, and
//! rewritten so that every reasoner evaluates it that way: each helper
//! between the keyword and `does` gets a copy in which `does` is empty (a
//! rule with a positive `does` literal is dropped, a negative one holds),
//! and the keyword's rules read the copies. `next` keeps reading the
//! helpers themselves, which see the joint move.

use crate::diagnostics::Diagnostic;
use crate::graph::RelationGraph;
use crate::ir::REFINED;
use crate::normal::{NormalLiteral, NormalRule};
use crate::syntax::ast::{Atom, Relation};
use petgraph::graph::NodeIndex;
use petgraph::Direction;
use rustc_hash::FxHashSet;

/// The keywords a reasoner asks of a state with no move being made.
const ASKED_WITHOUT_MOVE: [(&str, usize); 3] = [("legal", 2), ("goal", 2), ("terminal", 0)];

/// What the name of a helper's copy without `does` adds to its name.
const NO_MOVE: &str = "no-move";

/// Warns of each keyword of [`ASKED_WITHOUT_MOVE`] that depends on `does`
/// and rewrites its rules to read copies of its helpers in which `does` is
/// empty (see the module's documentation).
pub fn without_does(
    rules: Vec<NormalRule>,
    graph: &RelationGraph,
    out: &mut Vec<Diagnostic>,
) -> Vec<NormalRule> {
    let does = Relation {
        name: "does".into(),
        arity: 2,
    };
    let Some(does_node) = graph.get(&does) else {
        return rules;
    };
    let mut keywords: FxHashSet<Relation> = FxHashSet::default();
    for (name, arity) in ASKED_WITHOUT_MOVE {
        let keyword = Relation {
            name: name.into(),
            arity,
        };
        let Some(path) = path_between(graph, does_node, &keyword) else {
            continue;
        };
        out.push(warning(&rules, &keyword, &path));
        keywords.insert(keyword);
    }
    if keywords.is_empty() {
        return rules;
    }
    let roots: Vec<Relation> = keywords.iter().cloned().collect();
    let moving: FxHashSet<Relation> = graph
        .cone(&roots)
        .into_iter()
        .filter(|&n| graph.depends_on(&graph.graph[n], &["does"]))
        .map(|n| graph.graph[n].clone())
        .filter(|r| *r != does && !keywords.contains(r))
        .collect();
    rewrite(rules, &keywords, &moving)
}

/// The relations from `does` to `keyword` (both included), following the
/// graph's edges; `None` if `keyword` does not depend on `does`.
fn path_between(graph: &RelationGraph, does: NodeIndex, keyword: &Relation) -> Option<Vec<String>> {
    let target = graph.get(keyword)?;
    let mut came_from: Vec<Option<NodeIndex>> = vec![None; graph.graph.node_count()];
    let mut queue = std::collections::VecDeque::from([does]);
    came_from[does.index()] = Some(does);
    while let Some(n) = queue.pop_front() {
        if n == target {
            let mut path = vec![graph.graph[n].name.clone()];
            let mut at = n;
            while at != does {
                at = came_from[at.index()].expect("reached");
                path.push(graph.graph[at].name.clone());
            }
            return Some(path);
        }
        for next in graph.graph.neighbors_directed(n, Direction::Outgoing) {
            if came_from[next.index()].is_none() {
                came_from[next.index()] = Some(n);
                queue.push_back(next);
            }
        }
    }
    None
}

/// The warning for `keyword`, with its `path` to `does`, at its first rule
/// that reads the next relation of the path.
fn warning(rules: &[NormalRule], keyword: &Relation, path: &[String]) -> Diagnostic {
    let reads_next = |r: &NormalRule| {
        r.body.iter().any(|l| match l {
            NormalLiteral::Pos(a) | NormalLiteral::Neg(a) => path.get(1) == Some(&a.name),
            _ => false,
        })
    };
    let d = Diagnostic::warning(
        "does-dependent",
        format!(
            "`{}` depends on `does` ({}); it is evaluated as the reference prover does, \
             in a state where no move is being made: there `does` holds for no move",
            keyword.name,
            path.join(" <- ")
        ),
    );
    match rules
        .iter()
        .find(|r| r.head.relation() == *keyword && reads_next(r))
    {
        Some(rule) => d.at(rule.span, format!("a rule for `{}`", keyword.name)),
        None => d,
    }
}

/// `rules` with the keywords' rules reading the copies without `does` of
/// the `moving` relations, and those copies added.
fn rewrite(
    rules: Vec<NormalRule>,
    keywords: &FxHashSet<Relation>,
    moving: &FxHashSet<Relation>,
) -> Vec<NormalRule> {
    let copies: Vec<NormalRule> = rules
        .iter()
        .filter(|r| moving.contains(&r.head.relation()))
        .filter_map(|r| without_move(r, moving))
        .map(|mut r| {
            r.head.name = copy_name(&r.head.name);
            r
        })
        .collect();
    let mut out: Vec<NormalRule> = rules
        .into_iter()
        .filter_map(|r| {
            if keywords.contains(&r.head.relation()) {
                without_move(&r, moving)
            } else {
                Some(r)
            }
        })
        .collect();
    out.extend(copies);
    out
}

/// `rule` where no move is being made: `None` if it needs one (a positive
/// `does` literal); else without its negative `does` literals, reading the
/// copies of the `moving` relations.
fn without_move(rule: &NormalRule, moving: &FxHashSet<Relation>) -> Option<NormalRule> {
    let is_does = |a: &Atom| a.name == "does" && a.args.len() == 2;
    let mut body = Vec::with_capacity(rule.body.len());
    for literal in &rule.body {
        match literal {
            NormalLiteral::Pos(a) if is_does(a) => return None,
            NormalLiteral::Neg(a) if is_does(a) => {}
            NormalLiteral::Pos(a) | NormalLiteral::Neg(a) if moving.contains(&a.relation()) => {
                let mut copy = a.clone();
                copy.name = copy_name(&a.name);
                body.push(match literal {
                    NormalLiteral::Pos(_) => NormalLiteral::Pos(copy),
                    _ => NormalLiteral::Neg(copy),
                });
            }
            other => body.push(other.clone()),
        }
    }
    Some(NormalRule {
        head: rule.head.clone(),
        body,
        span: rule.span,
    })
}

/// The name of a relation's copy without `does`: the written name is kept
/// (see [`crate::ir::written_name`]).
fn copy_name(name: &str) -> String {
    format!("{name}{REFINED}{NO_MOVE}")
}
