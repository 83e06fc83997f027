//! The conformance trace: what a reasoner says about a game, in exactly the
//! schema of the oracle files (`roles`, `init`, `init_terminal`, `perft`,
//! `playouts`), so that two reasoners or a reasoner and an oracle can be
//! compared field by field.

use gdl_runtime::{deterministic_playout, perft_with, DriverError, PerftLevel, Playout, Reasoner};
use serde_json::{json, Map, Value};
use std::time::Instant;

/// Steps after which a deterministic playout stops.
pub const PLAYOUT_STEPS: usize = 300;

/// The seeds of the two deterministic playouts.
pub const PLAYOUT_SEEDS: [u64; 2] = [0, 1];

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
    let roles = r.roles().to_vec();
    let initial = r.initial_state();
    let init = r.fluents(&initial);
    let init_terminal = r.is_terminal(&initial);
    let levels = perft_with(r, depth, deadline, &mut |_| {})?;
    let playouts: Vec<Value> = PLAYOUT_SEEDS
        .iter()
        .map(|&seed| deterministic_playout(r, seed, max_steps).map(|p| playout_json(&p, &roles)))
        .collect::<Result<_, _>>()?;
    Ok(json!({
        "game": game,
        "roles": roles,
        "init": init,
        "init_terminal": init_terminal,
        "perft": levels.iter().map(level_json).collect::<Vec<_>>(),
        "playouts": playouts,
    }))
}

/// One perft level as `{depth, nodes, leaves}`.
pub fn level_json(level: &PerftLevel) -> Value {
    json!({"depth": level.depth, "nodes": level.nodes, "leaves": level.leaves})
}

/// A playout in the oracle's schema.
pub fn playout_json(p: &Playout, roles: &[String]) -> Value {
    let by_role = |values: Vec<Value>| -> Value {
        Value::Object(roles.iter().cloned().zip(values).collect::<Map<_, _>>())
    };
    let steps: Vec<Value> = p
        .steps
        .iter()
        .map(|s| {
            json!({
                "legal": by_role(s.legal.iter().map(|m| json!(m)).collect()),
                "joint": by_role(s.joint.iter().map(|m| json!(m)).collect()),
                "state": s.state,
            })
        })
        .collect();
    match p.terminal_step {
        Some(t) => json!({
            "seed": p.seed,
            "steps": steps,
            "terminal_step": t,
            "goals": by_role(p.goals.iter().map(|g| json!(g)).collect()),
        }),
        None => json!({
            "seed": p.seed,
            "steps": steps,
            "truncated": true,
        }),
    }
}
