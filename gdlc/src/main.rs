//! The `gdlc` command line: check a GDL description, run perft, flat
//! Monte-Carlo or the conformance trace on it.

use clap::{Args, Parser, Subcommand, ValueEnum};
use gdl_runtime::{flat_monte_carlo, perft, McBudget, McReport, Reasoner};
use gdlc::diagnostics::summary;
use gdlc::interp::Interpreter;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// gdlc: a compiler and reasoner for GDL game descriptions.
#[derive(Parser)]
#[command(name = "gdlc", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a description: syntax, keywords, safety, stratification, recursion.
    Check {
        /// The description (.kif).
        game: PathBuf,
    },
    /// Count the game tree from the initial state (nodes and leaves per depth).
    Perft {
        /// The description (.kif).
        game: PathBuf,
        /// The depth to count to.
        #[arg(long)]
        depth: u32,
        #[command(flatten)]
        run: RunOptions,
    },
    /// Flat Monte-Carlo: uniformly random playouts; playouts/s and states/s.
    Mc {
        /// The description (.kif).
        game: PathBuf,
        /// Run for this many seconds.
        #[arg(
            long,
            conflicts_with = "playouts",
            required_unless_present = "playouts"
        )]
        seconds: Option<f64>,
        /// Run exactly this many playouts.
        #[arg(long)]
        playouts: Option<u64>,
        /// Seed of the random generator (xoshiro256++).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        run: RunOptions,
    },
    /// The conformance trace as JSON, in the schema of the oracle files.
    Trace {
        /// The description (.kif).
        game: PathBuf,
        /// Perft depth to reach.
        #[arg(long, default_value_t = 3)]
        depth: u32,
        /// Stop deepening perft after this many seconds.
        #[arg(long, default_value_t = 60.0)]
        seconds: f64,
        /// Stop each deterministic playout after this many steps.
        #[arg(long, default_value_t = gdlc::trace::PLAYOUT_STEPS)]
        max_steps: usize,
        /// Which reasoner runs the game.
        #[arg(long, value_enum)]
        backend: Option<Backend>,
    },
}

#[derive(Args)]
struct RunOptions {
    /// Print one JSON object with the figures instead of text.
    #[arg(long)]
    json: bool,
    /// Which reasoner runs the game (default: the fastest available).
    #[arg(long, value_enum)]
    backend: Option<Backend>,
}

/// The reasoners `gdlc` can run.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Backend {
    /// The reference interpreter.
    Interpreted,
    /// A reasoner compiled to Rust.
    Compiled,
}

impl Backend {
    fn name(self) -> &'static str {
        match self {
            Backend::Interpreted => "interpreted",
            Backend::Compiled => "compiled",
        }
    }
}

/// A failure to report on stderr with exit status 1.
struct Failure(String);

fn main() -> ExitCode {
    let cli = Cli::parse();
    gdlc::interp::quiet_resource_limits();
    let outcome = gdlc::interp::catch_limit(|| run(cli.command))
        .unwrap_or_else(|limit| Err(Failure(format!("error: {}", limit.0))));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(message)) => {
            eprintln!("{}", message.trim_end());
            ExitCode::from(1)
        }
    }
}

fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Check { game } => check(&game),
        Command::Perft { game, depth, run } => {
            let mut r = reasoner(&game, run.backend)?;
            run_perft(&mut r, &game, depth, &run)
        }
        Command::Mc {
            game,
            seconds,
            playouts,
            seed,
            run,
        } => {
            let budget = match (seconds, playouts) {
                (Some(s), _) if s.is_finite() && s >= 0.0 => {
                    McBudget::Time(Duration::from_secs_f64(s))
                }
                (Some(s), _) => {
                    return Err(Failure(format!(
                        "error: --seconds must be a non-negative number, not {s}"
                    )))
                }
                (None, Some(n)) => McBudget::Playouts(n),
                (None, None) => unreachable!("clap requires one of --seconds and --playouts"),
            };
            let mut r = reasoner(&game, run.backend)?;
            monte_carlo(&mut r, &game, budget, seed, &run)
        }
        Command::Trace {
            game,
            depth,
            seconds,
            max_steps,
            backend,
        } => {
            let mut r = reasoner(&game, backend)?;
            let deadline = Instant::now() + Duration::from_secs_f64(seconds.max(0.0));
            let trace = gdlc::trace::trace(&mut r, &stem(&game), depth, Some(deadline), max_steps)
                .map_err(|e| Failure(format!("error: {e}")))?;
            println!("{}", serde_json::to_string_pretty(&trace).expect("JSON"));
            Ok(())
        }
    }
}

fn check(game: &Path) -> Result<(), Failure> {
    match gdlc::load_path(game) {
        Ok(loaded) => {
            let diagnostics = &loaded.analysis.diagnostics;
            eprint!("{}", loaded.file.render(diagnostics));
            println!("{}: valid ({})", game.display(), summary(diagnostics));
            Ok(())
        }
        Err(gdlc::Error::Invalid { file, diagnostics }) => {
            eprint!("{}", file.render(&diagnostics));
            Err(Failure(format!(
                "{}: invalid description ({})",
                file.name,
                summary(&diagnostics)
            )))
        }
        Err(e) => Err(Failure(e.to_string())),
    }
}

fn reasoner(game: &Path, backend: Option<Backend>) -> Result<Interpreter, Failure> {
    if backend == Some(Backend::Compiled) {
        return Err(Failure(
            "error: the compiled backend is not available in this version of gdlc; use `--backend interpreted`".into(),
        ));
    }
    Interpreter::from_path(game).map_err(|e| Failure(e.to_string()))
}

fn stem(game: &Path) -> String {
    game.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// A spinner on stderr when stdout is a terminal and no JSON was asked for.
fn progress(json: bool) -> ProgressBar {
    if json || !std::io::stdout().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("template"));
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}

fn run_perft<R: Reasoner>(
    r: &mut R,
    game: &Path,
    depth: u32,
    run: &RunOptions,
) -> Result<(), Failure> {
    let bar = progress(run.json);
    bar.set_message(format!("perft to depth {depth}"));
    let start = Instant::now();
    let levels = perft(r, depth).map_err(|e| Failure(format!("error: {e}")))?;
    let pass_seconds = start.elapsed().as_secs_f64();
    bar.finish_and_clear();
    // Depths past the end of the tree add nothing.
    let end = levels.iter().rposition(|l| l.leaves > 0).unwrap_or(0);
    let levels = &levels[..=end];
    let last = levels[end];
    let nodes_per_sec = last.nodes as f64 / pass_seconds.max(1e-9);
    if run.json {
        let out = json!({
            "game": stem(game),
            "backend": backend_name(run.backend),
            "depth": last.depth,
            "nodes": last.nodes,
            "leaves": last.leaves,
            "levels": levels.iter().map(gdlc::trace::level_json).collect::<Vec<_>>(),
            "seconds": pass_seconds,
            "nodes_per_sec": nodes_per_sec,
        });
        println!("{out}");
    } else {
        for l in levels {
            println!(
                "depth {:>2}  nodes {:>14}  leaves {:>14}",
                l.depth, l.nodes, l.leaves
            );
        }
        if last.depth < depth {
            println!("(the tree ends at depth {})", last.depth);
        }
        println!(
            "{:.0} nodes/s ({} nodes in {:.3} s)",
            nodes_per_sec, last.nodes, pass_seconds
        );
    }
    Ok(())
}

fn backend_name(backend: Option<Backend>) -> &'static str {
    backend.unwrap_or(Backend::Interpreted).name()
}

fn monte_carlo<R: Reasoner>(
    r: &mut R,
    game: &Path,
    budget: McBudget,
    seed: u64,
    run: &RunOptions,
) -> Result<(), Failure> {
    let bar = progress(run.json);
    let mut last_update = Instant::now();
    let report = flat_monte_carlo(r, budget, seed, 1_000_000, &mut |rep: &McReport| {
        if last_update.elapsed() > Duration::from_millis(200) {
            last_update = Instant::now();
            bar.set_message(format!("{} playouts, {} states", rep.playouts, rep.states));
        }
    })
    .map_err(|e| Failure(format!("error: {e}")))?;
    bar.finish_and_clear();
    let roles = r.roles().to_vec();
    let mean = |i: usize| report.mean_goals.get(i).copied().unwrap_or(0.0);
    if run.json {
        let goals: serde_json::Map<String, serde_json::Value> = roles
            .iter()
            .enumerate()
            .map(|(i, role)| (role.clone(), json!(mean(i))))
            .collect();
        let out = json!({
            "game": stem(game),
            "backend": backend_name(run.backend),
            "seed": report.seed,
            "playouts": report.playouts,
            "states": report.states,
            "seconds": report.seconds,
            "playouts_per_sec": report.playouts_per_sec(),
            "states_per_sec": report.states_per_sec(),
            "mean_goals": goals,
            "truncated": report.truncated,
        });
        println!("{out}");
    } else {
        println!(
            "{} playouts, {} states in {:.3} s: {:.1} playouts/s, {:.1} states/s",
            report.playouts,
            report.states,
            report.seconds,
            report.playouts_per_sec(),
            report.states_per_sec()
        );
        for (i, role) in roles.iter().enumerate() {
            println!("mean goal of {role}: {:.2}", mean(i));
        }
        if report.truncated > 0 {
            println!(
                "{} playouts stopped at 1000000 steps without reaching a terminal state",
                report.truncated
            );
        }
    }
    Ok(())
}
