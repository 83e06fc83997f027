//! Greedy playouts (Sancho's greedy rollouts): where one role alone
//! chooses, it plays a move that wins at once, and leaves alone a move
//! after which the next chooser wins at once. Only the moves that have
//! ended a playout before (the terminating moves, learned as the playouts
//! go) are tried as wins, so a step costs a few next states more, not one
//! per legal move: in breakthrough the moves onto the last row. Where
//! several roles choose at once, each takes a win at once, and while one
//! can win at once after the joint move the others redraw theirs. Moves
//! are otherwise drawn uniformly (MAST's averages are not used). The
//! playouts are the tree's and the factors' trees' ([`super::Tree`],
//! `playout.rs`; `factored/mod.rs`); this module holds what they learn
//! and their steps.

use super::draw::{all_legal, below};
use gdl_runtime::Reasoner;
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::FxHashSet;
use std::hash::Hash;

/// What a greedy step knows of the state it reached.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Ahead {
    /// Nothing (the state may be terminal).
    Unknown,
    /// The roles' legal moves, in [`Greedy::ahead`].
    Legal,
    /// The roles' legal moves, and that no role has a terminating move
    /// that wins at once there.
    NoWin,
}

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
    /// The joint move each chooser's win at once is tried against.
    against: Vec<M>,
    /// Where several roles choose at once, each free role's moves not yet
    /// found to let another win at once.
    left: Vec<Vec<M>>,
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
            against: Vec::new(),
            left: Vec::new(),
        }
    }

    /// The state after one greedy step from `from` (a state and what the
    /// step that reached it found there), whose legal moves are `legal`,
    /// from the uniform draw `joint` (each role's move, changed where the
    /// step chooses otherwise), and what is known of it. Only the roles
    /// `free` to choose choose; wins at once are looked for unless the
    /// step before found none.
    pub(super) fn step<R: Reasoner<Move = M>>(
        &mut self,
        r: &mut R,
        rng: &mut Xoshiro256PlusPlus,
        from: (&R::State, Ahead),
        legal: &[Vec<M>],
        joint: &mut [M],
        free: impl Fn(usize) -> bool + Copy,
    ) -> (R::State, Ahead) {
        let (state, ahead) = from;
        let may_win = ahead != Ahead::NoWin;
        if let Some(chooser) = sole_chooser(legal).filter(|&c| free(c)) {
            let moves = &legal[chooser];
            if let Some(won) = may_win
                .then(|| self.winning_move(r, state, moves, joint, chooser))
                .flatten()
            {
                return (won, Ahead::Unknown);
            }
            return self.safe_step(r, rng, state, moves, joint, chooser);
        }
        let choosing = (0..legal.len()).any(|role| free(role) && legal[role].len() > 1);
        if !choosing || (may_win && self.winning_moves(r, state, legal, joint, free)) {
            return (r.next_state(state, joint), Ahead::Unknown);
        }
        self.safe_joint_step(r, rng, state, legal, joint, free)
    }

    /// The state after the terminating move of `chooser` among `moves`
    /// that gives it 100 at once, if one does (left in `joint`).
    fn winning_move<R: Reasoner<Move = M>>(
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
    fn safe_step<R: Reasoner<Move = M>>(
        &mut self,
        r: &mut R,
        rng: &mut Xoshiro256PlusPlus,
        state: &R::State,
        moves: &[M],
        joint: &mut [M],
        chooser: usize,
    ) -> (R::State, Ahead) {
        self.choices.clear();
        self.choices.extend_from_slice(moves);
        loop {
            let i = below(rng, self.choices.len());
            joint[chooser] = self.choices[i];
            let next = r.next_state(state, joint);
            if r.is_terminal(&next) {
                self.terminating.insert((chooser as u32, joint[chooser]));
                return (next, Ahead::Unknown);
            }
            let mut ahead = std::mem::take(&mut self.ahead);
            if !all_legal(r, &next, &mut ahead) {
                self.ahead = ahead;
                return (next, Ahead::Unknown);
            }
            let next_chooser = sole_chooser(&ahead);
            let loses = next_chooser.is_some_and(|c| self.can_win(r, &next, &ahead, c));
            self.ahead = ahead;
            if !loses {
                let found = if next_chooser.is_some() {
                    Ahead::NoWin
                } else {
                    Ahead::Legal
                };
                return (next, found);
            }
            if self.choices.len() == 1 {
                return (next, Ahead::Legal);
            }
            self.choices.swap_remove(i);
        }
    }

    /// Whether `role` has a terminating move among its moves in `legal`
    /// that gives it 100 at once in `state`, every other role playing its
    /// first move.
    fn can_win<R: Reasoner<Move = M>>(
        &mut self,
        r: &mut R,
        state: &R::State,
        legal: &[Vec<M>],
        role: usize,
    ) -> bool {
        self.reply.clear();
        self.reply.extend(legal.iter().map(|m| m[0]));
        for &m in &legal[role] {
            if self.terminating.contains(&(role as u32, m)) {
                self.reply[role] = m;
                let next = r.next_state(state, &self.reply);
                if wins(r, &next, role) {
                    return true;
                }
            }
        }
        false
    }

    /// Where several roles choose at once: each role `free` to choose
    /// (with more than one move in `legal`) plays a terminating move that
    /// gives it 100 at once against the others' moves in `joint`, if it
    /// has one. Whether one did (its move left in `joint`).
    fn winning_moves<R: Reasoner<Move = M>>(
        &mut self,
        r: &mut R,
        state: &R::State,
        legal: &[Vec<M>],
        joint: &mut [M],
        free: impl Fn(usize) -> bool,
    ) -> bool {
        let mut against = std::mem::take(&mut self.against);
        against.clear();
        against.extend_from_slice(joint);
        let mut won = false;
        for (role, moves) in legal.iter().enumerate() {
            if free(role) && moves.len() > 1 {
                let drawn = against[role];
                if self
                    .winning_move(r, state, moves, &mut against, role)
                    .is_some()
                {
                    joint[role] = against[role];
                    won = true;
                }
                against[role] = drawn;
            }
        }
        self.against = against;
        won
    }

    /// Where several roles choose at once: the state after `joint`, in
    /// which, while a role can win at once after it, every other role
    /// `free` to choose redraws its move (while it has moves left not
    /// found to lose so), and whether the roles' legal moves there are
    /// known (in [`Greedy::ahead`]). A winner's move that ends the game
    /// is learned as terminating.
    fn safe_joint_step<R: Reasoner<Move = M>>(
        &mut self,
        r: &mut R,
        rng: &mut Xoshiro256PlusPlus,
        state: &R::State,
        legal: &[Vec<M>],
        joint: &mut [M],
        free: impl Fn(usize) -> bool,
    ) -> (R::State, Ahead) {
        let mut left = std::mem::take(&mut self.left);
        left.resize_with(legal.len(), Vec::new);
        for (role, moves) in legal.iter().enumerate() {
            left[role].clear();
            if free(role) {
                left[role].extend_from_slice(moves);
            }
        }
        let step = loop {
            let next = r.next_state(state, joint);
            if r.is_terminal(&next) {
                self.learn_winners(r, &next, legal, joint);
                break (next, Ahead::Unknown);
            }
            let mut ahead = std::mem::take(&mut self.ahead);
            let known = all_legal(r, &next, &mut ahead);
            let winner = (0..ahead.len())
                .filter(|_| known)
                .find(|&role| ahead[role].len() > 1 && self.can_win(r, &next, &ahead, role));
            self.ahead = ahead;
            let Some(winner) = winner else {
                break (next, if known { Ahead::NoWin } else { Ahead::Unknown });
            };
            let mut redrawn = false;
            for (role, moves) in left.iter_mut().enumerate() {
                if role != winner && moves.len() > 1 {
                    if let Some(i) = moves.iter().position(|m| *m == joint[role]) {
                        moves.swap_remove(i);
                        joint[role] = moves[below(rng, moves.len())];
                        redrawn = true;
                    }
                }
            }
            if !redrawn {
                break (next, Ahead::Legal);
            }
        };
        self.left = left;
        step
    }

    /// Learns as terminating the moves in `joint` of the roles that have
    /// 100 in `end`, the terminal state it reached.
    fn learn_winners<R: Reasoner<Move = M>>(
        &mut self,
        r: &mut R,
        end: &R::State,
        legal: &[Vec<M>],
        joint: &[M],
    ) {
        for (role, moves) in legal.iter().enumerate() {
            if moves.len() > 1 && r.goal(end, role) == Some(100) {
                self.terminating.insert((role as u32, joint[role]));
            }
        }
    }
}
