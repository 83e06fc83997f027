//! The project's games (`games/*.kif`), compiled by gdlc when this crate
//! builds (see `build.rs`), for the benchmarks in `benches/reasoners.rs`
//! and the allocation test in `tests/allocations.rs`.

use std::path::PathBuf;

gdl_runtime::include_reasoner!(tictactoe);
gdl_runtime::include_reasoner!(connectfour);
gdl_runtime::include_reasoner!(breakthrough);
gdl_runtime::include_reasoner!(simultaneous);
gdl_runtime::include_reasoner!(threeplayer);

/// The description of the project's game `name`, for the interpreter.
pub fn description(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../games")
        .join(format!("{name}.kif"))
}
