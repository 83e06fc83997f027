//! The project's games (`games/*.kif`), compiled by gdlc when this crate
//! builds (see `build.rs`), for the benchmarks in `benches/reasoners.rs`
//! and the tests in `tests/`: each game with the default strategy (ground,
//! evaluated incrementally, for these small games but `maze`), as
//! `<game>_ground` with every state evaluated in full, and as
//! `<game>_relational` with the relational strategy; the GDL-II games of
//! `games/gdl-ii/` in those three and as `<game>_demand`.

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
gdl_runtime::include_reasoner!(montyhall);
gdl_runtime::include_reasoner!(montyhall_ground);
gdl_runtime::include_reasoner!(montyhall_relational);
gdl_runtime::include_reasoner!(montyhall_demand);
gdl_runtime::include_reasoner!(twodice);
gdl_runtime::include_reasoner!(twodice_ground);
gdl_runtime::include_reasoner!(twodice_relational);
gdl_runtime::include_reasoner!(twodice_demand);
gdl_runtime::include_reasoner!(blindtictactoe);
gdl_runtime::include_reasoner!(blindtictactoe_ground);
gdl_runtime::include_reasoner!(blindtictactoe_relational);
gdl_runtime::include_reasoner!(blindtictactoe_demand);
gdl_runtime::include_reasoner!(highcard);
gdl_runtime::include_reasoner!(highcard_ground);
gdl_runtime::include_reasoner!(highcard_relational);
gdl_runtime::include_reasoner!(highcard_demand);

/// The description of the project's game `name`, for the interpreter.
pub fn description(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../games")
        .join(format!("{name}.kif"))
}
