//! Greedy playouts (Sancho's greedy rollouts): where one role alone
//! chooses, it plays a move that wins at once, and leaves alone a move
//! after which the next chooser wins at once. Only the moves that have
//! ended a playout before (the terminating moves, learned as the playouts
//! go) are tried as wins, so a step costs a few next states more, not one
//! per legal move: in breakthrough the moves onto the last row. Moves are
//! otherwise drawn uniformly (MAST's averages are not used). The playout
//! itself is the tree's ([`super::Tree`], `playout.rs`); this module holds
//! what it learns and its steps.

use super::draw::{all_legal, below};
use gdl_runtime::Reasoner;
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::FxHashSet;
use std::hash::Hash;

/// What greedy playouts learn and the buffers they step with.
pub(super) struct Greedy<M> {
    /// The moves (with their role) that have ended a playout.
    terminating: FxHashSet<(u32, M)>,
    /// Each role's legal moves in the playout's state.
    pub(super) legal: Vec<Vec<M>>,
    /// Each role's legal moves in the state the last step reached, where
    /// [`Greedy::safe_step`] says they are known.
    pub(super) ahead: Vec<Vec<M>>,
    /// The chooser's moves not yet found to lose at once.
    choices: Vec<M>,
    /// A joint move in the state looked ahead to.
    reply: Vec<M>,
}

/// The one role with more than one move in `legal`, if exactly one has.
pub(super) fn sole_chooser<M>(legal: &[Vec<M>]) -> Option<usize> {
    let mut choosers = legal.iter().enumerate().filter(|(_, m)| m.len() > 1);
    match (choosers.next(), choosers.next()) {
        (Some((role, _)), None) => Some(role),
        _ => None,
    }
}

/// Whether `role` has 100 in `state`, a terminal state.
fn wins<R: Reasoner>(r: &mut R, state: &R::State, role: usize) -> bool {
    r.is_terminal(state) && r.goal(state, role) == Some(100)
}

impl<M: Copy + Eq + Hash> Greedy<M> {
    /// Nothing learned yet.
    pub(super) fn new() -> Self {
        Greedy {
            terminating: FxHashSet::default(),
            legal: Vec::new(),
            ahead: Vec::new(),
            choices: Vec::new(),
            reply: Vec::new(),
        }
    }

    /// The state after the terminating move of `chooser` among `moves`
    /// that gives it 100 at once, if one does (left in `joint`).
    pub(super) fn winning_move<R: Reasoner<Move = M>>(
        &self,
        r: &mut R,
        state: &R::State,
        moves: &[M],
        joint: &mut [M],
        chooser: usize,
    ) -> Option<R::State> {
        for &m in moves {
            if self.terminating.contains(&(chooser as u32, m)) {
                joint[chooser] = m;
                let next = r.next_state(state, joint);
                if wins(r, &next, chooser) {
                    return Some(next);
                }
            }
        }
        None
    }

    /// The state after a move of `chooser` drawn among `moves` (left in
    /// `joint`), redrawn while the next chooser can win at once after it
    /// (unless it is the last left), and whether the roles' legal moves
    /// there are known (in [`Greedy::ahead`]). A move that ends the game
    /// is learned as terminating.
    pub(super) fn safe_step<R: Reasoner<Move = M>>(
        &mut self,
        r: &mut R,
        rng: &mut Xoshiro256PlusPlus,
        state: &R::State,
        moves: &[M],
        joint: &mut [M],
        chooser: usize,
    ) -> (R::State, bool) {
        self.choices.clear();
        self.choices.extend_from_slice(moves);
        loop {
            let i = below(rng, self.choices.len());
            joint[chooser] = self.choices[i];
            let next = r.next_state(state, joint);
            if r.is_terminal(&next) {
                self.terminating.insert((chooser as u32, joint[chooser]));
                return (next, false);
            }
            let mut ahead = std::mem::take(&mut self.ahead);
            let known = all_legal(r, &next, &mut ahead);
            let loses = known && self.wins_at_once(r, &next, &ahead);
            self.ahead = ahead;
            if !loses || self.choices.len() == 1 {
                return (next, known);
            }
            self.choices.swap_remove(i);
        }
    }

    /// Whether the sole chooser in `state` (whose legal moves are `legal`)
    /// has a terminating move that gives it 100 at once.
    fn wins_at_once<R: Reasoner<Move = M>>(
        &mut self,
        r: &mut R,
        state: &R::State,
        legal: &[Vec<M>],
    ) -> bool {
        let Some(chooser) = sole_chooser(legal) else {
            return false;
        };
        self.reply.clear();
        self.reply.extend(legal.iter().map(|m| m[0]));
        for &m in &legal[chooser] {
            if self.terminating.contains(&(chooser as u32, m)) {
                self.reply[chooser] = m;
                let next = r.next_state(state, &self.reply);
                if wins(r, &next, chooser) {
                    return true;
                }
            }
        }
        false
    }
}
