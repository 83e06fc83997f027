//! The relation dependency graph: an edge from each body relation to the head
//! relation of the rule, marked negative when the body literal is negated.

use crate::ir::Class;
use crate::normal::{NormalLiteral, NormalRule};
use crate::syntax::ast::Relation;
use petgraph::graph::{DiGraph, NodeIndex};
use rustc_hash::FxHashMap;

/// Whether a dependency goes through negation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Polarity {
    /// Through a positive literal.
    Positive,
    /// Through `not`.
    Negative,
}

/// Relations and their dependencies.
#[derive(Clone)]
pub struct RelationGraph {
    /// Nodes are relations; an edge `a -> b` says a rule for `b` uses `a`.
    pub graph: DiGraph<Relation, Polarity>,
    index: FxHashMap<Relation, NodeIndex>,
}

impl RelationGraph {
    /// The graph of `rules`. Every head and body relation becomes a node, in
    /// order of first appearance, so the graph is deterministic.
    pub fn new(rules: &[NormalRule]) -> Self {
        let mut g = RelationGraph {
            graph: DiGraph::new(),
            index: FxHashMap::default(),
        };
        for rule in rules {
            let head = g.node(rule.head.relation());
            for literal in &rule.body {
                let (atom, polarity) = match literal {
                    NormalLiteral::Pos(a) => (a, Polarity::Positive),
                    NormalLiteral::Neg(a) => (a, Polarity::Negative),
                    _ => continue,
                };
                let body = g.node(atom.relation());
                if !g
                    .graph
                    .edges_connecting(body, head)
                    .any(|e| *e.weight() == polarity)
                {
                    g.graph.add_edge(body, head, polarity);
                }
            }
        }
        g
    }

    fn node(&mut self, relation: Relation) -> NodeIndex {
        if let Some(&n) = self.index.get(&relation) {
            return n;
        }
        let n = self.graph.add_node(relation.clone());
        self.index.insert(relation, n);
        n
    }

    /// The node of a relation, if it occurs.
    pub fn get(&self, relation: &Relation) -> Option<NodeIndex> {
        self.index.get(relation).copied()
    }

    /// Strongly connected components in topological order (dependencies first).
    pub fn components(&self) -> Vec<Vec<NodeIndex>> {
        let mut sccs = petgraph::algo::tarjan_scc(&self.graph);
        // tarjan_scc yields reverse topological order.
        sccs.reverse();
        for scc in &mut sccs {
            scc.sort();
        }
        sccs
    }

    /// The index (in [`RelationGraph::components`]' order) of each node's
    /// component, by node index.
    pub fn component_of(&self) -> Vec<usize> {
        let mut component = vec![0; self.graph.node_count()];
        for (i, scc) in self.components().iter().enumerate() {
            for n in scc {
                component[n.index()] = i;
            }
        }
        component
    }

    /// What each relation depends on, by node index: the class of
    /// `true_node` is `State`, that of `does_node` `Move`, and every other
    /// relation takes the greatest class of its component and of what the
    /// component reads (components in topological order), `Static` when it
    /// depends on neither.
    pub fn classes(&self, true_node: NodeIndex, does_node: NodeIndex) -> Vec<Class> {
        let mut class = vec![Class::Static; self.graph.node_count()];
        class[true_node.index()] = Class::State;
        class[does_node.index()] = Class::Move;
        for scc in self.components() {
            let mut k = scc
                .iter()
                .map(|n| class[n.index()])
                .max()
                .unwrap_or(Class::Static);
            for &n in &scc {
                for m in self
                    .graph
                    .neighbors_directed(n, petgraph::Direction::Incoming)
                {
                    k = k.max(class[m.index()]);
                }
            }
            for &n in &scc {
                class[n.index()] = k;
            }
        }
        class
    }

    /// Every relation that `roots` depend on, the roots included.
    pub fn cone(&self, roots: &[Relation]) -> Vec<NodeIndex> {
        let mut seen = vec![false; self.graph.node_count()];
        let mut stack: Vec<NodeIndex> = roots.iter().filter_map(|r| self.get(r)).collect();
        let mut out = Vec::new();
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut seen[n.index()], true) {
                continue;
            }
            out.push(n);
            stack.extend(
                self.graph
                    .neighbors_directed(n, petgraph::Direction::Incoming),
            );
        }
        out.sort();
        out
    }

    /// Whether `relation` depends (transitively, or is) one of `sources`.
    pub fn depends_on(&self, relation: &Relation, sources: &[&str]) -> bool {
        self.cone(std::slice::from_ref(relation))
            .into_iter()
            .any(|n| sources.contains(&self.graph[n].name.as_str()))
    }
}

impl RelationGraph {
    /// The graph with node `i` for `relations[i]` and the given edges
    /// `(body, head, polarity)` (by index).
    pub fn from_parts(relations: Vec<Relation>, edges: &[(usize, usize, Polarity)]) -> Self {
        let mut g = RelationGraph {
            graph: DiGraph::new(),
            index: FxHashMap::default(),
        };
        for relation in relations {
            g.node(relation);
        }
        for &(body, head, polarity) in edges {
            g.graph
                .add_edge(NodeIndex::new(body), NodeIndex::new(head), polarity);
        }
        g
    }

    /// The graph of `rules` with the nodes `true/1` and `does/2` added
    /// (last, when no rule reads them), and those two nodes: the graph both
    /// evaluators classify relations by.
    pub fn with_inputs(rules: &[NormalRule]) -> (Self, NodeIndex, NodeIndex) {
        let mut graph = RelationGraph::new(rules);
        let true_node = graph.add(Relation {
            name: "true".into(),
            arity: 1,
        });
        let does_node = graph.add(Relation {
            name: "does".into(),
            arity: 2,
        });
        (graph, true_node, does_node)
    }

    /// Adds a relation that no rule mentions (if it is not there yet).
    pub fn add(&mut self, relation: Relation) -> NodeIndex {
        self.node(relation)
    }
}
