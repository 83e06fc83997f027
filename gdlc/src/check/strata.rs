//! Stratified negation: no relation may depend on itself through `not`.

use crate::diagnostics::Diagnostic;
use crate::graph::{Polarity, RelationGraph};
use crate::normal::{refine, NormalLiteral, NormalRule};
use crate::syntax::ast::Relation;
use petgraph::visit::EdgeRef;

/// Components (as node lists) that contain a negative edge.
fn negative_components(graph: &RelationGraph) -> Vec<Vec<petgraph::graph::NodeIndex>> {
    graph
        .components()
        .into_iter()
        .filter(|scc| {
            scc.iter().any(|&n| {
                graph
                    .graph
                    .edges(n)
                    .any(|e| *e.weight() == Polarity::Negative && scc.contains(&e.target()))
            })
        })
        .collect()
}

/// Refines the relations of negative cycles by their constant arguments (see
/// [`refine`]) and returns the graph of the refined rules.
pub fn stratify(rules: &mut [NormalRule], graph: RelationGraph) -> RelationGraph {
    let cyclic: Vec<Relation> = negative_components(&graph)
        .into_iter()
        .flatten()
        .map(|n| graph.graph[n].clone())
        .collect();
    if cyclic.is_empty() {
        return graph;
    }
    refine(rules, &cyclic);
    RelationGraph::new(rules)
}

/// Reports every strongly connected component that contains a negative edge.
pub fn check(rules: &[NormalRule], graph: &RelationGraph, out: &mut Vec<Diagnostic>) {
    for scc in negative_components(graph) {
        let names: Vec<String> = scc
            .iter()
            .map(|&n| format!("`{}`", graph.graph[n]))
            .collect();
        let members: Vec<_> = scc.iter().map(|&n| &graph.graph[n]).collect();
        let mut d = Diagnostic::error(
            "negative-cycle",
            format!(
                "negation through recursion: {} depend on each other through `not`",
                names.join(", ")
            ),
        )
        .note("GDL requires stratified negation: no relation may depend on itself through `not`");
        'find: for rule in rules {
            if !members.contains(&&rule.head.relation()) {
                continue;
            }
            for literal in &rule.body {
                if let NormalLiteral::Neg(a) = literal {
                    if members.contains(&&a.relation()) {
                        d = d.at(a.span, "negated here").also(rule.span, "in this rule");
                        break 'find;
                    }
                }
            }
        }
        out.push(d);
    }
}
