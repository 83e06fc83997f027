//! What a search thread runs: the joint tree ([`Tree`]) or, in a game
//! found to fall into factors that roles choose in at once, a tree per
//! factor ([`Factored`]).

use super::factored::{Factored, Factoring};
use super::{Evaluation, MoveStats, Techniques, Tree};
use gdl_runtime::Reasoner;
use std::sync::Arc;

/// One search over the game from its root state.
pub enum Search<R: Reasoner> {
    /// The joint tree, with every technique it was given.
    Joint(Tree<R>),
    /// A tree per factor.
    Factored(Factored<R>),
}

impl<R: Reasoner> Search<R> {
    /// The search from `state` with `techniques`, at most `max_nodes`
    /// nodes, seeded with `seed`: a tree per factor with the `factoring`
    /// technique on and a `factoring` given, else the joint tree.
    pub fn new(
        r: &mut R,
        state: R::State,
        max_nodes: usize,
        seed: u64,
        techniques: Techniques,
        factoring: Option<&Arc<Factoring<R::Move>>>,
    ) -> Self {
        match factoring.filter(|_| techniques.factoring) {
            Some(f) => {
                let mut trees = Factored::new(r, state, Arc::clone(f), max_nodes, seed);
                trees.set_greedy(techniques.greedy);
                Search::Factored(trees)
            }
            None => Search::Joint(Tree::new(r, state, max_nodes, seed).with_techniques(techniques)),
        }
    }

    /// One iteration of the search.
    pub fn iterate(&mut self, r: &mut R) {
        match self {
            Search::Joint(tree) => tree.iterate(r),
            Search::Factored(trees) => trees.iterate(r),
        }
    }

    /// Re-roots the search on the joint move `joint` played at its root.
    pub fn advance(&mut self, r: &mut R, joint: &[R::Move]) {
        match self {
            Search::Joint(tree) => tree.advance(r, joint),
            Search::Factored(trees) => trees.advance(r, joint),
        }
    }

    /// The legal moves of `role` at the root with their statistics.
    pub fn root_moves(&self, role: usize) -> Vec<(R::Move, MoveStats)> {
        match self {
            Search::Joint(tree) => tree.root_moves(role),
            Search::Factored(trees) => trees.root_moves(role),
        }
    }

    /// The state at the root.
    pub fn root_state(&self) -> &R::State {
        match self {
            Search::Joint(tree) => tree.root_state(),
            Search::Factored(trees) => trees.root_state(),
        }
    }

    /// Iterations run since the search began.
    pub fn iterations(&self) -> u64 {
        match self {
            Search::Joint(tree) => tree.iterations(),
            Search::Factored(trees) => trees.iterations(),
        }
    }

    /// Whether the root is terminal (nothing to search).
    pub fn root_is_terminal(&self) -> bool {
        match self {
            Search::Joint(tree) => tree.root_is_terminal(),
            Search::Factored(trees) => trees.root_is_terminal(),
        }
    }

    /// From now on, the joint tree's playouts cut short with `evaluation`
    /// ([`Tree::set_evaluation`]); the factors' trees play out to the end.
    pub fn set_evaluation(&mut self, evaluation: Option<Arc<Evaluation>>) {
        if let Search::Joint(tree) = self {
            tree.set_evaluation(evaluation);
        }
    }

    /// From now on, plays greedy playouts or uniform ones
    /// ([`Tree::set_greedy`], [`Factored::set_greedy`]).
    pub fn set_greedy(&mut self, on: bool) {
        match self {
            Search::Joint(tree) => tree.set_greedy(on),
            Search::Factored(trees) => trees.set_greedy(on),
        }
    }
}
