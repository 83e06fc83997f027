//! Runtime support for GDL reasoners.
//!
//! Every reasoner — the reference interpreter in `gdlc` and every reasoner that
//! `gdlc` generates — implements [`Reasoner`]. The drivers in this crate
//! ([`perft`], [`flat_monte_carlo`], [`deterministic_playout`], [`play`]) are
//! written once against the trait, so that both backends can be run, compared
//! and benchmarked through the same code.

mod drivers;
pub mod kif;

pub use drivers::{
    deterministic_playout, flat_monte_carlo, perft, perft_with, play, DriverError, McBudget,
    McReport, PerftLevel, Playout, PlayoutStep,
};

/// A GDL game reasoner: answers the questions a game player asks about states.
///
/// Methods take `&mut self` so that a reasoner can keep scratch space and caches
/// between calls without allocating; clone or rebuild one reasoner per thread.
pub trait Reasoner {
    /// A game state (the set of true base fluents).
    type State: Clone + Eq + std::hash::Hash + std::fmt::Debug;
    /// A move of one role; cheap to copy.
    type Move: Copy + Eq + std::hash::Hash + std::fmt::Debug;

    /// Role names in declaration order, as canonical KIF text.
    fn roles(&self) -> &[String];
    /// The initial state.
    fn initial_state(&mut self) -> Self::State;
    /// Whether `state` is terminal.
    fn is_terminal(&mut self, state: &Self::State) -> bool;
    /// Clears `out` and fills it with the legal moves of role `role` in `state`.
    fn legal_moves(&mut self, state: &Self::State, role: usize, out: &mut Vec<Self::Move>);
    /// The state reached from `state` by the joint move `joint` (one move per role,
    /// in declaration order).
    fn next_state(&mut self, state: &Self::State, joint: &[Self::Move]) -> Self::State;
    /// The goal value of role `role` in `state`: `None` unless the role has exactly
    /// one goal value there (and it is a natural number).
    fn goal(&mut self, state: &Self::State, role: usize) -> Option<u32>;
    /// The canonical KIF text of a move of role `role`, e.g. `(mark 1 2)`.
    fn move_text(&self, role: usize, mv: Self::Move) -> String;
    /// Parses a move of role `role` from KIF text; `None` if the text names no
    /// move this reasoner knows for that role. Legality is not checked.
    fn parse_move(&mut self, role: usize, text: &str) -> Option<Self::Move>;
    /// The fluents true in `state`, as canonical KIF text, sorted bytewise.
    fn fluents(&self, state: &Self::State) -> Vec<String>;
}
