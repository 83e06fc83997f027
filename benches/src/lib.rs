//! The project's games (`games/*.kif`), compiled by gdlc when this crate
//! builds (see `build.rs`), for the benchmarks in `benches/reasoners.rs`
//! and the tests in `tests/`: each game with the default strategy (ground,
//! evaluated incrementally, for these small games but `maze`), as
//! `<game>_ground` with every state evaluated in full, and as
//! `<game>_relational` with the relational strategy.

use std::path::PathBuf;

gdl_runtime::include_reasoner!(tictactoe);
gdl_runtime::include_reasoner!(connectfour);
gdl_runtime::include_reasoner!(breakthrough);
gdl_runtime::include_reasoner!(simultaneous);
gdl_runtime::include_reasoner!(threeplayer);
gdl_runtime::include_reasoner!(maze);
gdl_runtime::include_reasoner!(tictactoe_ground);
gdl_runtime::include_reasoner!(connectfour_ground);
gdl_runtime::include_reasoner!(breakthrough_ground);
gdl_runtime::include_reasoner!(simultaneous_ground);
gdl_runtime::include_reasoner!(threeplayer_ground);
gdl_runtime::include_reasoner!(maze_ground);
gdl_runtime::include_reasoner!(tictactoe_relational);
gdl_runtime::include_reasoner!(connectfour_relational);
gdl_runtime::include_reasoner!(breakthrough_relational);
gdl_runtime::include_reasoner!(simultaneous_relational);
gdl_runtime::include_reasoner!(threeplayer_relational);
gdl_runtime::include_reasoner!(maze_relational);

/// The description of the project's game `name`, for the interpreter.
pub fn description(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../games")
        .join(format!("{name}.kif"))
}
