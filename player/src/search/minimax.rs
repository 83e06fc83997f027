//! Two-ply proofs in the tree (MCTS-MS, Baier and Winands 2013): when a
//! node where one role alone chooses has been visited twice as often as
//! its chooser has moves, every child is made and each child's moves that
//! end the game are linked to their terminal nodes, so that the solver
//! proves at once a child whose chooser can win in one move (a move to
//! leave alone) and the node itself when one of its moves wins at once or
//! every one loses. The random playouts' averages hide such tactics a few
//! moves deep; the threshold spends the cost (the chooser's moves times
//! the replies, in next states) only on nodes the search keeps coming
//! back to.

use super::Tree;
use gdl_runtime::Reasoner;

impl<R: Reasoner> Tree<R> {
    /// Searches `at` two moves deep when its visits reach the threshold.
    pub(super) fn prove_ahead(&mut self, r: &mut R, at: usize) {
        let node = &self.nodes[at];
        let Some(chooser) = self.chooser(at).filter(|_| node.proven.is_none()) else {
            return;
        };
        let n = node.moves(chooser).len();
        if node.visits != 2 * n as u64 {
            return;
        }
        for i in 0..n {
            let joint = self.nodes[at].joint_of(chooser, i);
            let child = match self.nodes[at].child(joint) {
                Some(child) => child,
                None => {
                    let next = self.next_state(r, at, joint);
                    let Some(child) = self.node_of(r, next) else {
                        return;
                    };
                    self.link(at, joint, child);
                    child
                }
            };
            if self.nodes[child].proven.is_none() && !self.link_endings(r, child) {
                return;
            }
            let proven = self.nodes[child].proven.as_deref();
            if proven.is_some_and(|values| values[chooser] >= 1.0) {
                break;
            }
        }
        if let Some(values) = self.proof(at) {
            self.prove(at, values);
        }
    }

    /// Links each move of `at`'s chooser that ends the game to its
    /// terminal node, and proves `at` where they prove it; `false` when
    /// the tree filled up first.
    fn link_endings(&mut self, r: &mut R, at: usize) -> bool {
        let Some(chooser) = self.chooser(at) else {
            return true;
        };
        for i in 0..self.nodes[at].moves(chooser).len() {
            let joint = self.nodes[at].joint_of(chooser, i);
            if self.nodes[at].child(joint).is_some() {
                continue;
            }
            let next = self.next_state(r, at, joint);
            if !r.is_terminal(&next) {
                continue;
            }
            let Some(child) = self.node_of(r, next) else {
                return false;
            };
            self.link(at, joint, child);
            let proven = self.nodes[child].proven.as_deref();
            if proven.is_some_and(|values| values[chooser] >= 1.0) {
                break;
            }
        }
        if let Some(values) = self.proof(at) {
            self.prove(at, values);
        }
        true
    }

    /// The node of `state`: the tree's own (with transpositions) or a new
    /// one; `None` when the tree is full.
    fn node_of(&mut self, r: &mut R, state: R::State) -> Option<usize> {
        let hash = self.hash(r, &state);
        if let Some(at) = self.transposition(hash, &state) {
            return Some(at);
        }
        (self.nodes.len() < self.max_nodes).then(|| self.add(r, state, hash))
    }
}
