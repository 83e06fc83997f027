//! gdlc: an ahead-of-time compiler from GDL (the Stanford Game Description
//! Language) to specialized Rust, with a reference interpreter.
//!
//! The pipeline (see `docs/ARCHITECTURE.md`): [`syntax`] parses KIF into an
//! AST, [`check`] validates it on the [`normal`] form of its rules and the
//! relation [`graph`], and the reference interpreter [`interp`] evaluates it
//! behind the [`gdl_runtime::Reasoner`] trait.

pub mod backend;
pub mod boardgame;
pub mod builder;
pub mod check;
pub mod compile;
pub mod conformance;
pub mod diagnostics;
pub mod gdl_perf;
pub mod graph;
pub mod interp;
pub mod ir;
mod load;
pub mod normal;
pub mod output;
pub mod runtime_copy;
pub mod syntax;
pub mod trace;

pub use builder::{compile_game, Builder};
pub use load::{load_bytes, load_path, load_source, Error, Loaded};
