//! The commands of the `gdlc` binary, one module each, as `main.rs`
//! dispatches them: each holds its command's arguments (a clap `Args`
//! struct) and the code that runs it; `common` holds what several share.

pub(crate) mod bench;
pub(crate) mod boardgame;
pub(crate) mod check;
pub(crate) mod common;
pub(crate) mod emit;
pub(crate) mod explain;
pub(crate) mod gdl_perf;
pub(crate) mod mc;
pub(crate) mod perft;
pub(crate) mod trace;
