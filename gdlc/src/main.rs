//! The `gdlc` command line: check a GDL description, compile it to a Rust
//! crate, and run perft, flat Monte-Carlo or the conformance trace on it with
//! the reference interpreter or the compiled reasoner; `explain` shows what
//! the compiler decided, `bench` compares the two reasoners' speeds, and
//! `gdl-perf` answers the gdl-perf benchmark's engine protocol.
//!
//! This file parses the arguments and dispatches to the command's module
//! under `cli/`.

mod cli;

use clap::{Parser, Subcommand};
use cli::common::Failure;
use cli::{bench, boardgame, check, emit, explain, gdl_perf, mc, perft, trace};
use std::process::ExitCode;

/// gdlc: a compiler and reasoner for GDL game descriptions.
///
/// `gdlc GAME.kif -o DIR` compiles a description to a Rust crate in DIR
/// (build it with `cargo build --release` there); the commands below check
/// or run a description.
#[derive(Parser)]
#[command(
    name = "gdlc",
    version,
    about,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    emit: emit::Emit,
}

#[derive(Subcommand)]
enum Command {
    /// Check a description: syntax, keywords, safety, stratification, recursion.
    Check(check::CheckArgs),
    /// Count the game tree from the initial state (nodes and leaves per depth).
    Perft(perft::PerftArgs),
    /// Flat Monte-Carlo: uniformly random playouts; playouts/s and states/s.
    Mc(mc::McArgs),
    /// What the compiler decided, to find out why a game is slow: state
    /// size, relations and their containers, layers, phases, rule plans.
    Explain(explain::ExplainArgs),
    /// Interpreted and compiled side by side: perft and flat Monte-Carlo
    /// speeds of each backend, and their ratios.
    Bench(bench::BenchArgs),
    /// The gdl-perf engine protocol (scripts/gdl-perf): random playouts
    /// for AMOUNT seconds on one thread, then OUTPUT holds `version`,
    /// `millisecondsTaken`, `numStateChanges` and `numRollouts` (or
    /// `version` and `errorMessage`); with --correctness, OUTPUT holds the
    /// record of random games (`!R!`, `!T!`, `!L!`, `!C!`, `!G!`, `!F!`, or
    /// `!E!` on error) until a game ends after more than AMOUNT joint moves.
    GdlPerf(gdl_perf::GdlPerfArgs),
    /// The conformance trace as JSON, in the schema of the oracle files.
    Trace(trace::TraceArgs),
    /// Write a random chess-like game (a Simplified Boardgame) as GDL.
    Boardgame(boardgame::BoardgameArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    gdlc::interp::quiet_resource_limits();
    let outcome = gdlc::interp::catch_limit(|| run(cli))
        .unwrap_or_else(|limit| Err(Failure(format!("error: {}", limit.0))));
    match outcome {
        Ok(code) => code,
        Err(Failure(message)) => {
            eprintln!("{}", message.trim_end());
            ExitCode::from(1)
        }
    }
}

/// Runs the command, or writes the crate when there is none.
fn run(cli: Cli) -> Result<ExitCode, Failure> {
    let Some(command) = cli.command else {
        return cli.emit.run();
    };
    match command {
        Command::Check(args) => args.run(),
        Command::Perft(args) => args.run(),
        Command::Mc(args) => args.run(),
        Command::Explain(args) => args.run(),
        Command::Bench(args) => args.run(),
        Command::GdlPerf(args) => args.run(),
        Command::Trace(args) => args.run(),
        Command::Boardgame(args) => args.run(),
    }
}
