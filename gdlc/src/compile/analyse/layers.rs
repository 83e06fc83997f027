//! Stage 5, layers: the dynamic relations (those that depend on `true` or
//! `does`) grouped into the strongly connected components of the relation
//! graph, in an order where every component comes after those it reads;
//! acyclic layers run each rule once, cyclic ones iterate to a fixpoint.
//! Each phase (legal, next, terminal, goal, sees) evaluates only the layers
//! in the cone of the relations that answer it.

use crate::compile::program::{Class, Lit, Program, RelId};
use crate::ir::PHASES;

/// One layer: a strongly connected component of dynamic relations.
pub struct Layer {
    /// The relations it defines.
    pub members: Vec<RelId>,
    /// The rules of those relations (indexes into [`Program::rules`]).
    pub rules: Vec<usize>,
    /// Whether a rule reads a relation of the same layer.
    pub recursive: bool,
    /// Per state, or per joint move.
    pub class: Class,
}

/// The layers and the phases' evaluation orders.
pub struct Layers {
    /// Every layer, dependencies first.
    pub layers: Vec<Layer>,
    /// Per phase (legal, next, terminal, goal, sees): the layers it
    /// evaluates, in order.
    pub phases: [Vec<usize>; PHASES],
}

/// Builds the layers of `program`.
pub fn build(program: &Program) -> Layers {
    build_without(program, &[])
}

/// Builds the layers of `program` but for the relations `excluded` marks
/// (answered by a search, with no layer of their own).
pub fn build_without(program: &Program, excluded: &[bool]) -> Layers {
    let mut layers = Vec::new();
    let mut layer_of = vec![usize::MAX; program.relations.len()];
    for scc in program.graph.components() {
        let mut members: Vec<RelId> = scc.iter().map(|n| n.index()).collect();
        members
            .retain(|&r| program.class[r] != Class::Static && !excluded.get(r).is_some_and(|&e| e));
        let rules: Vec<usize> = (0..program.rules.len())
            .filter(|&i| members.contains(&program.rules[i].head.rel))
            .collect();
        if rules.is_empty() {
            continue;
        }
        let recursive = rules.iter().any(|&i| {
            program.rules[i].body.iter().any(|l| match l {
                Lit::Pos(a) | Lit::Neg(a) => members.contains(&a.rel),
                _ => false,
            })
        });
        let class = members
            .iter()
            .map(|&r| program.class[r])
            .max()
            .unwrap_or(Class::State);
        for &m in &members {
            layer_of[m] = layers.len();
        }
        layers.push(Layer {
            members,
            rules,
            recursive,
            class,
        });
    }
    let phases = program.answers.clone().map(|roots| {
        let roots: Vec<_> = roots
            .iter()
            .map(|&r| program.relations[r].clone())
            .collect();
        let mut order: Vec<usize> = program
            .graph
            .cone(&roots)
            .iter()
            .map(|n| layer_of[n.index()])
            .filter(|&l| l != usize::MAX)
            .collect();
        order.sort_unstable();
        order.dedup();
        order
    });
    Layers { layers, phases }
}
