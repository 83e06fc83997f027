//! What the tree, its playouts and the heuristic's learning share: a
//! uniform draw, the roles' legal moves, and the values a state scores.

use gdl_runtime::Reasoner;
use rand_xoshiro::rand_core::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// A uniformly random number below `n` (`n` at most 2^32).
pub(crate) fn below(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    ((u64::from(rng.next_u32()) * n as u64) >> 32) as usize
}

/// Fills `out` with each role's legal moves in `state`; false where a role
/// has none (the game ends there).
pub(super) fn all_legal<R: Reasoner>(
    r: &mut R,
    state: &R::State,
    out: &mut Vec<Vec<R::Move>>,
) -> bool {
    let roles = r.roles().len();
    out.resize_with(roles, Vec::new);
    (0..roles).all(|role| {
        r.legal_moves(state, role, &mut out[role]);
        !out[role].is_empty()
    })
}

/// Each role's goal / 100 in `state`, 0 where the goal is undefined.
pub(super) fn values<R: Reasoner>(r: &mut R, state: &R::State) -> Vec<f64> {
    (0..r.roles().len())
        .map(|role| f64::from(r.goal(state, role).unwrap_or(0).min(100)) / 100.0)
        .collect()
}
