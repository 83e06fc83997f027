//! gdlc's integration tests, one module per subject, built as one test
//! binary: one link instead of one per file, and every file's tests run
//! side by side. Most run the `gdlc` binary (hence `required-features`).
//! One subject: `cargo test -p gdlc --test integration golden::`. The
//! long sweeps (`corpus`, `compiled_corpus`, and `boardgame`'s
//! differential) are `#[ignore]`d: CI runs them in release, each by its
//! exact name.

mod architecture;
mod bench;
mod boardgame;
mod check_decisions;
mod cli;
mod common;
mod compiled_cli;
mod compiled_corpus;
mod corpus;
mod edge;
mod explain;
mod fuzz_regressions;
mod games;
mod gdl_ii;
mod golden;
mod resource_limits;
