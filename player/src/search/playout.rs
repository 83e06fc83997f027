//! Playouts: from a new leaf to the end of the game (or
//! [`MAX_PLAYOUT`] joint moves), each role's move drawn uniformly or, with
//! MAST, by its average ([`super::mast`]), or greedy
//! ([`super::greedy`]).

use super::draw::{all_legal, below, values};
use super::greedy::Ahead;
use super::Tree;
use gdl_runtime::Reasoner;

/// Longest playout; a playout cut there scores the goals it reached.
const MAX_PLAYOUT: usize = 10_000;
/// Joint moves a playout makes before the evaluation scores it, when the
/// tree has one and the heuristic is on.
const CUT_OFF: usize = 4;

impl<R: Reasoner> Tree<R> {
    /// Credits the moves of the last path and playout (MAST) with `values`.
    pub(super) fn credit_path(&mut self, values: &[f64]) {
        for &(at, joint) in &self.path {
            let node = &self.nodes[at];
            for (role, i) in node.indices(joint).enumerate() {
                if node.moves(role).len() > 1 {
                    self.mast.played(role, node.moves(role)[i]);
                }
            }
        }
        self.mast.credit(values);
    }

    /// Goals / 100 at the end of a playout from `state`, each move drawn
    /// uniformly or, with MAST, by its average; with the heuristic, the
    /// evaluation's verdict [`CUT_OFF`] joint moves in.
    pub(super) fn playout(&mut self, r: &mut R, mut state: R::State) -> Vec<f64> {
        if self.techniques.greedy {
            return self.greedy_playout(r, state);
        }
        let roles = r.roles().len();
        let mut joint = Vec::with_capacity(roles);
        for ply in 0..MAX_PLAYOUT {
            if r.is_terminal(&state) {
                break;
            }
            if ply == CUT_OFF && self.techniques.heuristic {
                if let Some(e) = &self.evaluation {
                    return e.verdict(r, &state);
                }
            }
            joint.clear();
            for role in 0..roles {
                r.legal_moves(&state, role, &mut self.scratch);
                if self.scratch.is_empty() {
                    return values(r, &state);
                }
                let pick = if self.techniques.mast && self.scratch.len() > 1 {
                    let pick = self.mast.choose(&mut self.rng, role, &self.scratch);
                    self.mast.played(role, self.scratch[pick]);
                    pick
                } else {
                    below(&mut self.rng, self.scratch.len())
                };
                if self.techniques.grave && self.scratch.len() > 1 {
                    self.played_out(role, self.scratch[pick]);
                }
                joint.push(self.scratch[pick]);
            }
            state = r.next_state(&state, &joint);
        }
        values(r, &state)
    }

    /// Goals / 100 at the end of a greedy playout from `state`
    /// ([`super::greedy`]); with the heuristic, the evaluation's verdict
    /// [`CUT_OFF`] joint moves in.
    fn greedy_playout(&mut self, r: &mut R, mut state: R::State) -> Vec<f64> {
        let mut legal = std::mem::take(&mut self.greedy.legal);
        let mut joint = Vec::with_capacity(r.roles().len());
        let mut ahead = Ahead::Unknown;
        for ply in 0..MAX_PLAYOUT {
            if ahead == Ahead::Unknown
                && (r.is_terminal(&state) || !all_legal(r, &state, &mut legal))
            {
                break;
            }
            if ply == CUT_OFF && self.techniques.heuristic {
                if let Some(e) = &self.evaluation {
                    self.greedy.legal = legal;
                    return e.verdict(r, &state);
                }
            }
            joint.clear();
            joint.extend(legal.iter().map(|m| m[below(&mut self.rng, m.len())]));
            let rng = &mut self.rng;
            (state, ahead) = self
                .greedy
                .step(r, rng, (&state, ahead), &legal, &mut joint, |_| true);
            self.played_all(&legal, &joint);
            if ahead != Ahead::Unknown {
                std::mem::swap(&mut legal, &mut self.greedy.ahead);
            }
        }
        self.greedy.legal = legal;
        values(r, &state)
    }

    /// With GRAVE, notes the moves of `joint` whose roles had a choice
    /// among `legal`.
    fn played_all(&mut self, legal: &[Vec<R::Move>], joint: &[R::Move]) {
        if self.techniques.grave {
            for (role, moves) in legal.iter().enumerate() {
                if moves.len() > 1 {
                    self.played_out(role, joint[role]);
                }
            }
        }
    }
}
