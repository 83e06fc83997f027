//! The vocabulary the interpreter and the compiler share: relation ids,
//! relation classes, the four phases, relation names, the term store and
//! the resource limits of evaluation.

pub mod limits;
pub mod terms;

/// Index of a relation (in the interpreter's tables, or in
/// [`crate::compile::program::Program::relations`]).
pub type RelId = usize;

/// What a relation's facts depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Neither `true` nor `does`: computed once (a compile-time table).
    Static,
    /// `true` but not `does`: computed per state.
    State,
    /// `does`: computed per joint move.
    Move,
}

/// The questions a reasoner answers, in the order of the arrays indexed by
/// phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// `legal/2`.
    Legal = 0,
    /// `next/1`.
    Next = 1,
    /// `terminal/0`.
    Terminal = 2,
    /// `goal/2`.
    Goal = 3,
    /// `sees/2` (GDL-II percepts), read in a state with a joint move.
    Sees = 4,
}

/// How many [`Phase`]s there are.
pub const PHASES: usize = 5;

/// Separator between a relation's name and the constant arguments that refine
/// it (see [`crate::normal::refine`]); a space can never occur in a KIF
/// symbol.
pub const REFINED: char = ' ';

/// The relation name as written, without the refinement of
/// [`crate::normal::refine`].
pub fn written_name(name: &str) -> &str {
    name.split(REFINED).next().unwrap_or(name)
}
