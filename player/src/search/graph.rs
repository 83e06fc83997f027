//! Transpositions (UCT on a directed graph, Childs, Brodeur and Kocsis
//! 2008): with them, the tree holds one node per state, found by the
//! state's hash ([`Reasoner::state_hash`], checked against the state
//! itself), and every joint move that reaches the state leads to that
//! node. The statistics of a move stay with the node it is chosen in, so
//! they are the statistics of the edge; the shared node's own visits count
//! every path's. An iteration that comes back to a node its path has
//! passed (a game whose states repeat) plays out from there.
//!
//! Also the re-rooting after a move: every node the new root reaches is
//! kept, the others dropped. Freeing a full tree's nodes at once took
//! 1.6 s (a million nodes of knightThrough), past a loaded machine's play
//! clock, so they are freed [`BURIED_PER_ITERATION`] at a time by the
//! iterations that follow.

use super::{Node, Tree};
use gdl_runtime::Reasoner;
use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;

/// Nodes left behind by a move that each iteration frees.
pub(super) const BURIED_PER_ITERATION: usize = 16;

impl<R: Reasoner> Tree<R> {
    /// The node of `state`, whose hash is `hash`, if the tree holds one
    /// and transpositions are on.
    pub(super) fn transposition(&self, hash: u64, state: &R::State) -> Option<usize> {
        if !self.techniques.transpositions {
            return None;
        }
        let &at = self.table.get(&hash)?;
        (self.nodes[at].state == *state).then_some(at)
    }

    /// Notes `at` as the node of its state, whose hash is `hash`, unless
    /// another state with that hash has one.
    pub(super) fn remember(&mut self, hash: u64, at: usize) {
        if self.techniques.transpositions {
            self.table.entry(hash).or_insert(at);
        }
    }

    /// Moves the root to the state reached by `joint` (one move per role),
    /// keeping every node that state's node reaches when the tree holds
    /// it.
    pub fn advance(&mut self, r: &mut R, joint: &[R::Move]) {
        let root = &self.nodes[self.root];
        let indices: Option<Vec<u32>> = (0..root.roles())
            .zip(joint)
            .map(|(role, m)| {
                root.moves(role)
                    .iter()
                    .position(|x| x == m)
                    .map(|i| i as u32)
            })
            .collect();
        let child = indices
            .filter(|i| i.len() == joint.len())
            .and_then(|i| root.child(root.joint(i.into_iter())));
        let child = match child {
            Some(child) => Some(child),
            None => {
                let next = r.next_state(&root.state, joint);
                let hash = r.state_hash(&next);
                let found = self.transposition(hash, &next);
                if found.is_none() {
                    let node = self.node(r, next, hash);
                    let old = std::mem::replace(&mut self.nodes, vec![node]);
                    self.graveyard.push(old.into_iter().map(Some).collect());
                    self.root = 0;
                }
                found
            }
        };
        if let Some(child) = child {
            self.keep_reachable(child);
        }
        if self.techniques.transpositions {
            self.table.clear();
            for at in 0..self.nodes.len() {
                let hash = self.nodes[at].hash;
                self.remember(hash, at);
            }
        }
    }

    /// Drops every node `new_root` does not reach; `new_root` becomes
    /// node 0.
    fn keep_reachable(&mut self, new_root: usize) {
        let mut old: Vec<Option<Node<R>>> = std::mem::take(&mut self.nodes)
            .into_iter()
            .map(Some)
            .collect();
        let mut index = FxHashMap::from_iter([(new_root, 0)]);
        let mut order = vec![new_root];
        let mut k = 0;
        while k < order.len() {
            if let Some(node) = &old[order[k]] {
                for child in node.children() {
                    if let Entry::Vacant(entry) = index.entry(child) {
                        entry.insert(order.len());
                        order.push(child);
                    }
                }
            }
            k += 1;
        }
        for &at in &order {
            let mut node = old[at].take().expect("each node is listed once");
            node.renumber_children(|child| index[&child]);
            node.renumber_parents(|parent| index.get(&parent).copied());
            self.nodes.push(node);
        }
        self.graveyard.push(old);
        self.root = 0;
    }

    /// Frees some of the nodes moves left behind.
    pub(super) fn bury(&mut self) {
        let mut freed = 0;
        while freed < BURIED_PER_ITERATION {
            let Some(batch) = self.graveyard.last_mut() else {
                return;
            };
            match batch.pop() {
                Some(node) => freed += usize::from(node.is_some()),
                None => {
                    self.graveyard.pop();
                }
            }
        }
    }
}
