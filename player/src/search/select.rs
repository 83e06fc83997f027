//! Selection: each role's move at a node by UCB1 on its own goal, proven
//! children chosen by their values (see the parent module's
//! documentation), `random`'s move drawn uniformly.

use super::draw::below;
use super::grave;
use super::node::{Amaf, Joint};
use super::{Tree, EXPLORATION};
use gdl_runtime::Reasoner;

impl<R: Reasoner> Tree<R> {
    /// Each role's move at `at` by UCB1, an untried move first (at random);
    /// `random`'s drawn uniformly.
    pub(super) fn select(&mut self, at: usize) -> Joint {
        let solving = self.techniques.solver && self.nodes[at].proven_children > 0;
        let chooser = self.chooser(at).filter(|_| solving);
        if let Some(chooser) = chooser.filter(|_| self.nodes[at].proven.is_some()) {
            return self
                .best_proven(at, chooser)
                .expect("a proven node has a proven child");
        }
        // Where some child is unproven, the proven ones are left out (below
        // the root always, at the root every other iteration, so that a
        // proven best move there keeps the visits the player counts):
        // chosen by its value, a proven draw would take every visit once
        // its siblings' UCB fell below it, and those siblings, which must
        // be proven before the node is, would starve.
        let unproven =
            chooser.is_some_and(|c| self.nodes[at].proven_children < self.nodes[at].moves(c).len());
        let skip_proven = unproven && (at != self.root || self.iterations.is_multiple_of(2));
        let reference = self
            .techniques
            .grave
            .then(|| self.reference(at))
            .flatten()
            .and_then(|r| self.nodes[r].amaf.as_deref());
        let node = &self.nodes[at];
        let log_n = (node.visits.max(1) as f64).ln();
        let (mut joint, mut stride): (Joint, Joint) = (0, 1);
        for role in 0..node.roles() {
            let n = node.stats(role).len();
            let offset = below(&mut self.rng, n);
            let choice = if self.random == Some(role) {
                offset
            } else {
                let proving = (chooser == Some(role)).then_some(skip_proven);
                self.best_move(at, role, offset, proving, reference, log_n)
            };
            joint += choice as Joint * stride;
            stride *= n as Joint;
        }
        joint
    }

    /// The index of `role`'s move at `at` with the best score, looked at
    /// from index `offset` on (ties go to the first); where `role` is the
    /// chooser whose proven children count (`proving`, with whether they
    /// are left out), a proven child scores its value.
    fn best_move(
        &self,
        at: usize,
        role: usize,
        offset: usize,
        proving: Option<bool>,
        reference: Option<&Amaf<R::Move>>,
        log_n: f64,
    ) -> usize {
        let node = &self.nodes[at];
        let stats = node.stats(role);
        let n = stats.len();
        let mut best = (f64::NEG_INFINITY, 0);
        // The best proven child, taken when every child is proven but
        // the count of proven ones lags (with transpositions a child
        // can be proven through another parent).
        let mut best_skipped = (f64::NEG_INFINITY, 0);
        for k in 0..n {
            let i = (offset + k) % n;
            let s = stats[i];
            let proven = proving
                .and_then(|_| self.proven_child(at, role, i))
                .map(|values| values[role]);
            let score = if let Some(value) = proven {
                if proving == Some(true) {
                    if value > best_skipped.0 {
                        best_skipped = (value, i);
                    }
                    continue;
                }
                value
            } else if let Some(amaf) = reference {
                grave::score(s, amaf.get(&(role as u32, node.moves(role)[i])), log_n)
            } else if s.visits == 0 {
                f64::INFINITY
            } else {
                s.value / s.visits as f64 + EXPLORATION * (log_n / s.visits as f64).sqrt()
            };
            if score > best.0 {
                best = (score, i);
            }
        }
        if best.0 == f64::NEG_INFINITY {
            best = best_skipped;
        }
        best.1
    }
}
