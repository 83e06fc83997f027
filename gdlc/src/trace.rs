//! The conformance trace: what a reasoner says about a game, in exactly the
//! schema of the oracle files (`roles`, `init`, `init_terminal`, `perft`,
//! `playouts`), so that two reasoners or a reasoner and an oracle can be
//! compared field by field.
//!
//! The trace is built by [`gdl_runtime::report::trace`], which every backend
//! prints through, as a `serde_json` value.

use gdl_runtime::{DriverError, Reasoner};
use serde_json::Value;
use std::time::Instant;

pub use gdl_runtime::report::{PLAYOUT_SEEDS, PLAYOUT_STEPS};

/// Builds the trace of `game`: perft to `depth` (by iterative deepening,
/// stopping at `deadline`) and the two deterministic playouts of at most
/// `max_steps` steps.
pub fn trace<R: Reasoner>(
    r: &mut R,
    game: &str,
    depth: u32,
    deadline: Option<Instant>,
    max_steps: usize,
) -> Result<Value, DriverError> {
    gdl_runtime::report::trace(r, game, depth, deadline, max_steps)
}
