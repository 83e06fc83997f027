//! GRAVE (Generalized Rapid Action Value Estimation, Cazenave 2015):
//! all-moves-as-first statistics. A node visited [`REFERENCE`] times or
//! more keeps, per role and move, the values of the iterations in which
//! that role played that move anywhere below the node, in the tree or in
//! the playout (once an iteration however often it was played). The
//! selection at any node blends each move's own mean with those
//! statistics of the nearest node on the path that keeps them (the node
//! itself once it has the visits): with `n` visits of its own and `a` of
//! all-moves-as-first, the weight of the latter is
//! `a / (a + n + BIAS · a · n)`, which leaves the move's own mean in
//! charge as its visits grow. The exploration term is
//! [`EXPLORATION`]`·√(ln N / (n + 1))`, so a move not tried yet is ranked
//! by its all-moves-as-first value rather than first by default; one
//! without any is tried first.

use super::node::MoveStats;
use super::Tree;
use gdl_runtime::Reasoner;

/// Visits from which a node keeps all-moves-as-first statistics and is
/// the reference of the nodes below it (Cazenave's `ref`).
pub(super) const REFERENCE: u64 = 50;
/// How slowly a move's own mean takes over (Cazenave's `bias`).
const BIAS: f64 = 1e-3;
/// The exploration constant with GRAVE: the all-moves-as-first values
/// explore already, so less than plain UCB1's.
const EXPLORATION: f64 = 0.2;

/// The selection score of a move whose own statistics are `own` and whose
/// reference's all-moves-as-first statistics are `amaf`, at a node
/// visited `e^log_n` times.
pub(super) fn score(own: MoveStats, amaf: Option<&MoveStats>, log_n: f64) -> f64 {
    let n = own.visits as f64;
    let mean = match amaf.filter(|a| a.visits > 0) {
        Some(a) => {
            let an = a.visits as f64;
            let beta = an / (an + n + BIAS * an * n);
            let own_mean = if own.visits == 0 { 0.0 } else { own.value / n };
            (1.0 - beta) * own_mean + beta * a.value / an
        }
        None if own.visits == 0 => return f64::INFINITY,
        None => own.value / n,
    };
    mean + EXPLORATION * (log_n / (n + 1.0)).sqrt()
}

impl<R: Reasoner> Tree<R> {
    /// The nearest node keeping all-moves-as-first statistics, from `at`
    /// up the path that reached it.
    pub(super) fn reference(&self, at: usize) -> Option<usize> {
        std::iter::once(at)
            .chain(self.path.iter().rev().map(|&(node, _)| node))
            .find(|&node| self.nodes[node].amaf.is_some())
    }

    /// Notes that `role` played `m` in this iteration's playout.
    pub(super) fn played_out(&mut self, role: usize, m: R::Move) {
        self.played.push((role as u32, m));
    }

    /// Credits every node on the last path that keeps all-moves-as-first
    /// statistics (starting to keep them at a node with [`REFERENCE`]
    /// visits) with `values`, for each move played below it.
    pub(super) fn credit_amaf(&mut self, values: &[f64]) {
        self.below.clear();
        self.below.extend(self.played.drain(..));
        for &(at, joint) in self.path.iter().rev() {
            let node = &mut self.nodes[at];
            for (role, i) in node.indices(joint).enumerate() {
                if node.moves(role).len() > 1 {
                    self.below.insert((role as u32, node.moves(role)[i]));
                }
            }
            if node.amaf.is_none() && node.visits >= REFERENCE {
                node.amaf = Some(Box::default());
            }
            let Some(amaf) = node.amaf.as_mut() else {
                continue;
            };
            for &(role, m) in &self.below {
                let s = amaf.entry((role, m)).or_default();
                s.visits += 1;
                s.value += values[role as usize];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{score, MoveStats};

    fn stats(visits: u64, value: f64) -> MoveStats {
        MoveStats { visits, value }
    }

    #[test]
    fn a_move_not_tried_is_ranked_by_its_amaf_value() {
        let log_n = 10f64.ln();
        let good = score(stats(0, 0.0), Some(&stats(20, 16.0)), log_n);
        let bad = score(stats(0, 0.0), Some(&stats(20, 4.0)), log_n);
        assert!(good > bad && good.is_finite());
        assert_eq!(score(stats(0, 0.0), None, log_n), f64::INFINITY);
    }

    #[test]
    fn the_own_mean_takes_over_as_visits_grow() {
        // AMAF says 0.9, the move's own playouts 0.1.
        let amaf = stats(1_000, 900.0);
        let few = score(stats(10, 1.0), Some(&amaf), 0.0);
        let many = score(stats(100_000, 10_000.0), Some(&amaf), 0.0);
        assert!(few > 0.85, "{few}");
        assert!((many - 0.1).abs() < 0.05, "{many}");
    }
}
