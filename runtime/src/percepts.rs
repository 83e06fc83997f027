//! GDL-II: what a role perceives. A description is GDL-II when it declares
//! the role `random` (whose move the game manager draws uniformly from its
//! legal moves) or defines `sees`; `(sees ?r ?p)`, evaluated like `next` in
//! a state together with a joint move, gives each role other than `random`
//! its percepts. [`Reasoner::percepts`](crate::Reasoner::percepts) answers
//! them; a GDL game has none.

use crate::Reasoner;
use std::fmt;

/// The name of the role whose moves are chance (GDL-II).
pub const RANDOM_ROLE: &str = "random";

/// Why a role's percepts cannot be asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerceptError {
    /// The role is `random`, which perceives nothing.
    RandomRole,
    /// The role's index is not below the number of roles.
    NoSuchRole {
        /// The index asked.
        role: usize,
        /// The number of roles.
        roles: usize,
    },
    /// The joint move does not hold one move per role.
    JointMoveLength {
        /// The moves given.
        moves: usize,
        /// The number of roles.
        roles: usize,
    },
}

impl fmt::Display for PerceptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PerceptError::RandomRole => {
                write!(
                    f,
                    "the role `random` has no percepts (it is chance, not a player)"
                )
            }
            PerceptError::NoSuchRole { role, roles } => {
                write!(f, "no role {role}: the game has {roles} roles")
            }
            PerceptError::JointMoveLength { moves, roles } => write!(
                f,
                "a joint move needs one move per role: {moves} given, {roles} roles"
            ),
        }
    }
}

impl std::error::Error for PerceptError {}

/// The percepts of `role` when `joint` is played in `state`, as canonical
/// KIF text, sorted: [`Reasoner::percepts`] with each id's
/// [`Reasoner::percept_text`].
pub fn percept_texts<R: Reasoner + ?Sized>(
    r: &mut R,
    state: &R::State,
    joint: &[R::Move],
    role: usize,
) -> Result<Vec<String>, PerceptError> {
    let mut ids = Vec::new();
    r.percepts(state, joint, role, &mut ids)?;
    let mut texts: Vec<String> = ids.iter().filter_map(|&p| r.percept_text(p)).collect();
    texts.sort();
    Ok(texts)
}
