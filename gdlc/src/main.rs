//! The `gdlc` command line: check a GDL description, compile it to a Rust
//! crate, and run perft, flat Monte-Carlo or the conformance trace on it with
//! the reference interpreter or the compiled reasoner; `explain` shows what
//! the compiler decided, `bench` compares the two reasoners' speeds, and
//! `gdl-perf` answers the gdl-perf benchmark's engine protocol.

use clap::{Args, Parser, Subcommand, ValueEnum};
use gdl_runtime::report::{
    deadline_after, deepening_perft, mc_json, parallel_mc_json, parallel_mc_text, time_budget,
    timed_perft, trace, MC_MAX_LENGTH,
};
use gdl_runtime::{
    default_threads, flat_monte_carlo, parallel_flat_monte_carlo, McBudget, Reasoner, MAX_THREADS,
};
use gdlc::backend::Cache;
use gdlc::compile::Strategy;
use gdlc::diagnostics::summary;
use gdlc::gdl_perf;
use gdlc::interp::Interpreter;
use gdlc::output;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

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
    emit: Emit,
}

/// The options of `gdlc GAME.kif -o DIR`.
#[derive(Args)]
struct Emit {
    /// The description (.kif) to compile to a crate.
    #[arg(required = true)]
    game: Option<PathBuf>,
    /// The folder of the crate to write (created if needed).
    #[arg(short, long, value_name = "DIR", required = true)]
    output: Option<PathBuf>,
    /// The runtime crate (gdl-runtime) the crate depends on [default: the
    /// runtime of the checkout this gdlc was built from].
    #[arg(long, value_name = "P")]
    runtime_path: Option<PathBuf>,
    /// How the generated code evaluates the rules.
    #[arg(long, value_enum, default_value = "auto")]
    strategy: StrategyArg,
    /// Also write `.cargo/config.toml`, so that `cargo build` in DIR makes
    /// code for this machine's processor only (`-C target-cpu=native`): for
    /// measurements, not for a crate meant to run elsewhere.
    #[arg(long)]
    native: bool,
}

/// The values of `--strategy` (see [`gdlc::compile::Strategy`]).
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum StrategyArg {
    /// Ground instances over a bit vector when the game has few enough of
    /// them (updated incrementally unless a ground atom depends on itself),
    /// relation by relation otherwise, as `demand`.
    Auto,
    /// Ground instances when the game has few enough of them, every state
    /// evaluated in full; relation by relation otherwise.
    Ground,
    /// Relation by relation (joins over containers) whatever the game,
    /// every derived relation evaluated bottom-up.
    Relational,
    /// Relation by relation whatever the game, rays walked by loops and
    /// relations asked only with every argument bound answered by a
    /// top-down search (unless that makes much more code).
    Demand,
}

impl From<StrategyArg> for Strategy {
    fn from(s: StrategyArg) -> Strategy {
        match s {
            StrategyArg::Auto => Strategy::Auto,
            StrategyArg::Ground => Strategy::Ground,
            StrategyArg::Relational => Strategy::Relational,
            StrategyArg::Demand => Strategy::Demand,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Check a description: syntax, keywords, safety, stratification, recursion.
    Check {
        /// The description (.kif).
        game: PathBuf,
        /// With `compiled`, also generate the reasoner and build it.
        #[arg(long, value_enum)]
        backend: Option<Backend>,
    },
    /// Count the game tree from the initial state (nodes and leaves per depth).
    Perft {
        /// The description (.kif).
        game: PathBuf,
        /// The depth to count to (with --seconds, the deepest to try).
        #[arg(long, required_unless_present = "seconds")]
        depth: Option<u32>,
        /// Deepen one depth at a time while this many seconds last; report
        /// the deepest depth completed, timed on its own pass.
        #[arg(long)]
        seconds: Option<f64>,
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
        /// Seed of the random generator (xoshiro256++); thread i draws
        /// from its stream advanced by i jumps of 2^128, so thread 0 plays
        /// the playouts of one thread.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Threads, each with its own reasoner and random stream (a
        /// number of playouts is split between them) [default: one per
        /// core].
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS as i64))]
        threads: Option<u32>,
        #[command(flatten)]
        run: RunOptions,
    },
    /// What the compiler decided, to find out why a game is slow: state
    /// size, relations and their containers, layers, phases, rule plans.
    Explain {
        /// The description (.kif).
        game: PathBuf,
        /// Also write the relation dependency graph to FILE (Graphviz DOT).
        #[arg(long, value_name = "FILE")]
        dot: Option<PathBuf>,
        /// The strategy to explain.
        #[arg(long, value_enum, default_value = "auto")]
        strategy: StrategyArg,
    },
    /// Interpreted and compiled side by side: perft and flat Monte-Carlo
    /// speeds of each backend, and their ratios.
    Bench {
        /// The description (.kif).
        game: PathBuf,
        /// The whole budget: a quarter each for the perft and the
        /// Monte-Carlo of each backend (building the compiled reasoner not
        /// counted).
        #[arg(long, default_value_t = 20.0, value_parser = positive_seconds)]
        seconds: f64,
        /// Print one JSON object with the figures instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// The gdl-perf engine protocol (scripts/gdl-perf): random playouts
    /// for AMOUNT seconds on one thread, then OUTPUT holds `version`,
    /// `millisecondsTaken`, `numStateChanges` and `numRollouts` (or
    /// `version` and `errorMessage`); with --correctness, OUTPUT holds the
    /// record of random games (`!R!`, `!T!`, `!L!`, `!C!`, `!G!`, `!F!`, or
    /// `!E!` on error) until a game ends after more than AMOUNT joint moves.
    GdlPerf {
        /// The description (.kif), e.g. in ggp-base's printed form.
        game: PathBuf,
        /// The file to write the result to.
        output: PathBuf,
        /// Seconds of playouts; with --correctness, joint moves to record.
        amount: String,
        /// Write the correctness record instead of timing playouts.
        #[arg(long)]
        correctness: bool,
        /// Seed of the random generator of the playouts or the record.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Which reasoner runs the game (default: compiled).
        #[arg(long, value_enum)]
        backend: Option<Backend>,
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
        /// Which reasoner runs the game (default: interpreted).
        #[arg(long, value_enum)]
        backend: Option<Backend>,
    },
    /// Write a random chess-like game (a Simplified Boardgame) as GDL.
    Boardgame {
        /// Seed of the generator: the same seed and options, the same text.
        #[arg(long)]
        seed: u64,
        /// Board size, columns x rows (3 to 20; at least 4 rows).
        #[arg(long, default_value = "8x8", value_parser = board_size)]
        size: (u32, u32),
        /// Number of piece types.
        #[arg(long, default_value_t = 5)]
        pieces: usize,
        /// How the state stores the position.
        #[arg(long, value_enum, default_value = "board")]
        encoding: EncodingArg,
        /// Write the description to FILE instead of stdout.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

/// The values of `--encoding` (see [`gdlc::boardgame::Encoding`]).
#[derive(Clone, Copy, ValueEnum)]
enum EncodingArg {
    /// One board predicate (cell ?x ?y ?piece), every square.
    Board,
    /// One position predicate per piece, the occupied squares only.
    Pieces,
}

/// A `--size` value of `gdlc boardgame`.
fn board_size(text: &str) -> Result<(u32, u32), String> {
    gdlc::boardgame::parse_size(text).map_err(|e| e.to_string())
}

#[derive(Args)]
struct RunOptions {
    /// Print one JSON object with the figures instead of text.
    #[arg(long)]
    json: bool,
    /// Which reasoner runs the game (default: interpreted).
    #[arg(long, value_enum)]
    backend: Option<Backend>,
}

/// The reasoners `gdlc` can run.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Backend {
    /// The reference interpreter.
    Interpreted,
    /// The reasoner compiled to Rust, built with cargo (cached).
    Compiled,
    /// The same, built for this machine's processor only (`-C
    /// target-cpu=native`; cached apart).
    CompiledNative,
}

impl Backend {
    /// `Some(native)` for a compiled backend, `None` for the interpreter.
    fn compiled(backend: Option<Backend>) -> Option<bool> {
        match backend? {
            Backend::Interpreted => None,
            Backend::Compiled => Some(false),
            Backend::CompiledNative => Some(true),
        }
    }
}

/// The backend name in the reports of the interpreter.
const INTERPRETED: &str = "interpreted";

/// A failure to report on stderr with exit status 1.
struct Failure(String);

impl Failure {
    /// The failure of an error whose message says it all.
    fn of(e: impl std::fmt::Display) -> Self {
        Failure(e.to_string())
    }
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

fn run(cli: Cli) -> Result<ExitCode, Failure> {
    let Some(command) = cli.command else {
        let (Some(game), Some(dir)) = (cli.emit.game, cli.emit.output) else {
            unreachable!("clap requires GAME and -o without a command")
        };
        return emit(
            &game,
            &dir,
            cli.emit.runtime_path.as_deref(),
            cli.emit.strategy.into(),
            cli.emit.native,
        );
    };
    match command {
        Command::Check { game, backend } => check_command(&game, backend),
        Command::Perft {
            game,
            depth,
            seconds,
            run,
        } => perft_command(&game, depth, seconds, &run),
        Command::Mc {
            game,
            seconds,
            playouts,
            seed,
            threads,
            run,
        } => {
            let threads = threads.map_or_else(default_threads, |n| n as usize);
            mc_command(&game, seconds, playouts, seed, threads, &run)
        }
        Command::GdlPerf {
            game,
            output,
            amount,
            correctness,
            seed,
            backend,
        } => {
            let backend = match backend.unwrap_or(Backend::Compiled) {
                Backend::Interpreted => gdl_perf::Backend::Interpreted,
                Backend::Compiled => gdl_perf::Backend::Compiled,
                Backend::CompiledNative => gdl_perf::Backend::CompiledNative,
            };
            let test = gdl_perf::Test {
                game,
                output,
                backend,
                seed,
            };
            test.run(&amount, correctness)
                .map(|()| ExitCode::SUCCESS)
                .map_err(|message| Failure(format!("error: {message}")))
        }
        Command::Explain {
            game,
            dot,
            strategy,
        } => explain(&game, dot.as_deref(), strategy.into()),
        Command::Bench {
            game,
            seconds,
            json,
        } => bench(&game, seconds, json),
        Command::Trace {
            game,
            depth,
            seconds,
            max_steps,
            backend,
        } => trace_command(&game, depth, seconds, max_steps, backend),
        Command::Boardgame {
            seed,
            size: (width, height),
            pieces,
            encoding,
            output,
        } => {
            let options = gdlc::boardgame::Options {
                width,
                height,
                pieces,
            };
            let encoding = match encoding {
                EncodingArg::Board => gdlc::boardgame::Encoding::Board,
                EncodingArg::Pieces => gdlc::boardgame::Encoding::PiecePositions,
            };
            boardgame(seed, &options, encoding, output.as_deref())
        }
    }
}

/// `gdlc boardgame`: writes the generated game's description; options out
/// of range are a usage error (exit 2).
fn boardgame(
    seed: u64,
    options: &gdlc::boardgame::Options,
    encoding: gdlc::boardgame::Encoding,
    output: Option<&Path>,
) -> Result<ExitCode, Failure> {
    let text = match gdlc::boardgame::description(seed, options, encoding) {
        Ok(text) => text,
        Err(e) => {
            eprintln!(
                "error: {e}\n\nUsage: gdlc boardgame --seed N [--size WxH] [--pieces K] [--encoding E] [-o FILE]"
            );
            return Ok(ExitCode::from(2));
        }
    };
    match output {
        None => print!("{text}"),
        Some(path) => std::fs::write(path, text)
            .map_err(|e| Failure(format!("error: cannot write `{}`: {e}", path.display())))?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs the compiled reasoner of `game` (built if needed) with `args`.
fn run_compiled(game: &Path, native: bool, args: Vec<String>) -> Result<ExitCode, Failure> {
    let binary = compiled_binary(game, native)?;
    gdlc::backend::run(&binary, &args).map_err(Failure::of)
}

/// `gdlc check`: checks the description and, with the compiled backend,
/// builds its reasoner.
fn check_command(game: &Path, backend: Option<Backend>) -> Result<ExitCode, Failure> {
    check(game)?;
    if let Some(native) = Backend::compiled(backend) {
        let binary = compiled_binary(game, native)?;
        println!("{}: compiled ({})", game.display(), binary.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `gdlc perft`: counts the game tree with the chosen backend.
fn perft_command(
    game: &Path,
    depth: Option<u32>,
    seconds: Option<f64>,
    run: &RunOptions,
) -> Result<ExitCode, Failure> {
    if let Some(s) = seconds {
        perft_deadline(s)?;
    }
    if let Some(native) = Backend::compiled(run.backend) {
        let mut args = vec!["perft".to_string()];
        if let Some(d) = depth {
            args.extend(strings(&["--depth", &d.to_string()]));
        }
        if let Some(s) = seconds {
            args.extend(strings(&["--seconds", &s.to_string()]));
        }
        args.extend(run.json.then(|| "--json".to_string()));
        return run_compiled(game, native, args);
    }
    let mut r = interpreter(game)?;
    run_perft(&mut r, game, depth, seconds, run.json)?;
    Ok(ExitCode::SUCCESS)
}

/// `gdlc mc`: flat Monte-Carlo for a time or a number of playouts with the
/// chosen backend, on `threads` threads.
fn mc_command(
    game: &Path,
    seconds: Option<f64>,
    playouts: Option<u64>,
    seed: u64,
    threads: usize,
    run: &RunOptions,
) -> Result<ExitCode, Failure> {
    let (budget, limit) = match (seconds, playouts) {
        (Some(s), _) => (
            time_budget(s).map_err(|e| Failure(format!("error: {e}")))?,
            ["--seconds", &s.to_string()].map(String::from),
        ),
        (None, Some(n)) => (
            McBudget::Playouts(n),
            ["--playouts", &n.to_string()].map(String::from),
        ),
        (None, None) => unreachable!("clap requires one of --seconds and --playouts"),
    };
    if let Some(native) = Backend::compiled(run.backend) {
        let mut args = vec!["mc".to_string()];
        args.extend(limit);
        args.extend(strings(&["--seed", &seed.to_string()]));
        args.extend(strings(&["--threads", &threads.to_string()]));
        args.extend(run.json.then(|| "--json".to_string()));
        return run_compiled(game, native, args);
    }
    let loaded = gdlc::load_path(game).map_err(Failure::of)?;
    let mut r = Interpreter::new(&loaded);
    let more = || Interpreter::new(&loaded);
    monte_carlo(&mut r, more, threads, game, budget, seed, run.json)?;
    Ok(ExitCode::SUCCESS)
}

/// `gdlc trace`: prints the conformance trace of the chosen backend.
fn trace_command(
    game: &Path,
    depth: u32,
    seconds: f64,
    max_steps: usize,
    backend: Option<Backend>,
) -> Result<ExitCode, Failure> {
    if let Some(native) = Backend::compiled(backend) {
        let args = [
            "trace".to_string(),
            "--depth".into(),
            depth.to_string(),
            "--seconds".into(),
            seconds.to_string(),
            "--max-steps".into(),
            max_steps.to_string(),
        ];
        return run_compiled(game, native, args.to_vec());
    }
    let mut r = interpreter(game)?;
    let t = trace(
        &mut r,
        &stem(game),
        depth,
        deadline_after(seconds),
        max_steps,
    )
    .map_err(|e| Failure(format!("error: {e}")))?;
    println!("{t:#}");
    Ok(ExitCode::SUCCESS)
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Loads a description, printing its warnings, or every diagnostic and the
/// summary when it is invalid.
fn load(game: &Path) -> Result<gdlc::Loaded, Failure> {
    match gdlc::load_path(game) {
        Ok(loaded) => {
            eprint!("{}", loaded.file.render(&loaded.analysis.diagnostics));
            Ok(loaded)
        }
        Err(gdlc::Error::Invalid { file, diagnostics }) => {
            eprint!("{}", file.render(&diagnostics));
            Err(Failure(format!(
                "{}: invalid description ({})",
                file.name,
                summary(&diagnostics)
            )))
        }
        Err(e) => Err(Failure::of(e)),
    }
}

fn check(game: &Path) -> Result<(), Failure> {
    let loaded = load(game)?;
    println!(
        "{}: valid ({})",
        game.display(),
        summary(&loaded.analysis.diagnostics)
    );
    Ok(())
}

/// `gdlc GAME.kif -o DIR`: writes the crate of the game's reasoner.
fn emit(
    game: &Path,
    dir: &Path,
    runtime: Option<&Path>,
    strategy: Strategy,
    native: bool,
) -> Result<ExitCode, Failure> {
    let loaded = load(game)?;
    let runtime = gdlc::runtime_copy::runtime_path(runtime).map_err(Failure::of)?;
    let name = stem(game);
    let mut files = output::crate_files(
        &loaded,
        &output::package_name(&name),
        &name,
        &runtime,
        strategy,
    )
    .map_err(Failure::of)?;
    if native {
        let config = output::NATIVE_CONFIG.as_bytes().to_vec();
        files.files.push((".cargo/config.toml", config));
    }
    let changed = output::write_crate(dir, &files).map_err(Failure::of)?;
    println!(
        "{}: wrote crate `{}` to {} ({changed} of {} files changed)",
        game.display(),
        files.package,
        dir.display(),
        files.files.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// The binary of the game's compiled reasoner, built if it is not up to date.
fn compiled_binary(game: &Path, native: bool) -> Result<PathBuf, Failure> {
    let loaded = gdlc::load_path(game).map_err(Failure::of)?;
    let cache = Cache::from_env().map_err(Failure::of)?.native(native);
    let prepared = cache.prepare(&loaded, &stem(game)).map_err(Failure::of)?;
    if !prepared.fresh {
        if std::io::stderr().is_terminal() {
            eprintln!(
                "gdlc: building the compiled reasoner in {} (cargo build --release)",
                prepared.dir.display()
            );
        }
        prepared.build().map_err(Failure::of)?;
    }
    Ok(prepared.binary)
}

fn interpreter(game: &Path) -> Result<Interpreter, Failure> {
    Interpreter::from_path(game).map_err(Failure::of)
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

/// Checks that `--seconds` of perft gives a deadline.
fn perft_deadline(seconds: f64) -> Result<(), Failure> {
    let invalid = || {
        Failure(format!(
            "error: --seconds must be a non-negative number of seconds, not {seconds}"
        ))
    };
    time_budget(seconds).map_err(|_| invalid())?;
    deadline_after(seconds).map(|_| ()).ok_or_else(invalid)
}

fn run_perft<R: Reasoner>(
    r: &mut R,
    game: &Path,
    depth: Option<u32>,
    seconds: Option<f64>,
    json: bool,
) -> Result<(), Failure> {
    let bar = progress(json);
    let run = match (depth, seconds) {
        (Some(depth), None) => {
            bar.set_message(format!("perft to depth {depth}"));
            timed_perft(r, depth)
        }
        (depth, Some(seconds)) => {
            bar.set_message(format!("perft for {seconds} s"));
            deepening_perft(r, depth.unwrap_or(u32::MAX), seconds)
        }
        (None, None) => unreachable!("clap requires --depth or --seconds"),
    }
    .map_err(|e| Failure(format!("error: {e}")))?;
    bar.finish_and_clear();
    if json {
        println!("{}", run.json(&stem(game), INTERPRETED));
    } else {
        print!("{}", run.text());
    }
    Ok(())
}

/// Flat Monte-Carlo on `threads` threads: `r` on this one, a reasoner
/// made by `more` on each other one.
fn monte_carlo<R: Reasoner>(
    r: &mut R,
    more: impl Fn() -> R + Sync,
    threads: usize,
    game: &Path,
    budget: McBudget,
    seed: u64,
    json: bool,
) -> Result<(), Failure> {
    let bar = progress(json);
    let mut last_update = Instant::now();
    let mut show = |playouts, states| {
        if last_update.elapsed() > Duration::from_millis(200) {
            last_update = Instant::now();
            bar.set_message(format!("{playouts} playouts, {states} states"));
        }
    };
    let report =
        parallel_flat_monte_carlo(r, more, threads, budget, seed, MC_MAX_LENGTH, &mut show)
            .map_err(|e| Failure(format!("error: {e}")))?;
    bar.finish_and_clear();
    if json {
        let name = stem(game);
        println!(
            "{}",
            parallel_mc_json(&report, r.roles(), &name, INTERPRETED)
        );
    } else {
        print!("{}", parallel_mc_text(&report, r.roles()));
    }
    Ok(())
}

/// `gdlc explain GAME.kif [--dot FILE]`: the compiler's decisions as text,
/// and the relation graph as DOT.
fn explain(game: &Path, dot: Option<&Path>, strategy: Strategy) -> Result<ExitCode, Failure> {
    let loaded = load(game)?;
    let compiled = gdlc::compile::analyze_with(&loaded, strategy).map_err(Failure::of)?;
    let name = stem(game);
    if let Some(path) = dot {
        std::fs::write(path, gdlc::compile::explain::dot(&compiled, &name)).map_err(|e| {
            Failure(format!(
                "error: cannot write the graph to `{}`: {e}",
                path.display()
            ))
        })?;
        eprintln!("wrote the relation graph to {}", path.display());
    }
    print!("{}", gdlc::compile::explain::report(&compiled, &name));
    Ok(ExitCode::SUCCESS)
}

/// A `--seconds` value of `gdlc bench`: a positive number of seconds.
fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s > 0.0 && time_budget(s).is_ok() && deadline_after(s).is_some() => Ok(s),
        _ => Err(format!("`{text}` is not a positive number of seconds")),
    }
}

/// `gdlc bench GAME.kif [--seconds S] [--json]`: perft (the deepest depth
/// completed in S/4 seconds) and S/4 seconds of flat Monte-Carlo, with the
/// interpreter and with the compiled reasoner, and their ratios.
fn bench(game: &Path, seconds: f64, json: bool) -> Result<ExitCode, Failure> {
    let quarter = seconds / 4.0;
    let name = stem(game);
    let binary = compiled_binary(game, false)?;
    let mut r = interpreter(game)?;
    let bar = progress(json);
    let error = |e: gdl_runtime::DriverError| Failure(format!("error: {e}"));
    bar.set_message("interpreted: perft");
    let perft = deepening_perft(&mut r, u32::MAX, quarter).map_err(error)?;
    let interpreted_perft = perft.json(&name, INTERPRETED);
    bar.set_message("interpreted: Monte-Carlo");
    let budget = time_budget(quarter).map_err(|e| Failure(format!("error: {e}")))?;
    let mc = flat_monte_carlo(&mut r, budget, 0, MC_MAX_LENGTH, &mut |_| {}).map_err(error)?;
    let interpreted_mc = mc_json(&mc, r.roles(), &name, INTERPRETED);
    let quarter_arg = quarter.to_string();
    let report = |what: &str, args: &[&str]| {
        bar.set_message(format!("compiled: {what}"));
        let out = gdlc::backend::output(&binary, &strings(args)).map_err(Failure::of)?;
        reparse(&out)
    };
    let compiled_perft = report("perft", &["perft", "--seconds", &quarter_arg, "--json"])?;
    let compiled_mc = report(
        "Monte-Carlo",
        &["mc", "--seconds", &quarter_arg, "--threads", "1", "--json"],
    )?;
    bar.finish_and_clear();
    let backend = |perft: serde_json::Value, mut mc: serde_json::Value| {
        let (states, playouts) = (number(&mc, "states"), number(&mc, "playouts"));
        mc["mean_length"] = ratio(states, playouts).into();
        serde_json::json!({ "perft": perft, "mc": mc })
    };
    let figures = serde_json::json!({
        "game": name,
        "seconds": seconds,
        "interpreted": backend(interpreted_perft, interpreted_mc),
        "compiled": backend(compiled_perft, compiled_mc),
    });
    let speedup = |section: &str, key: &str| {
        ratio(
            number(&figures["compiled"][section], key),
            number(&figures["interpreted"][section], key),
        )
    };
    let ratios = serde_json::json!({
        "perft_nodes_per_sec": speedup("perft", "nodes_per_sec"),
        "mc_playouts_per_sec": speedup("mc", "playouts_per_sec"),
        "mc_states_per_sec": speedup("mc", "states_per_sec"),
    });
    if json {
        let mut figures = figures;
        figures["ratios"] = ratios;
        println!("{figures}");
    } else {
        print!("{}", bench_table(&figures, &ratios, quarter));
    }
    Ok(ExitCode::SUCCESS)
}

/// A report that a compiled binary printed as JSON, read back.
fn reparse(json: &str) -> Result<serde_json::Value, Failure> {
    serde_json::from_str(json).map_err(|e| {
        Failure(format!(
            "error: a report is not the JSON expected ({e}): {json}"
        ))
    })
}

/// A number of a report (0 when missing).
fn number(report: &serde_json::Value, key: &str) -> f64 {
    report[key].as_f64().unwrap_or(0.0)
}

/// `a / b`, or `None` when `b` is 0.
fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| a / b)
}

/// The figures of `gdlc bench` as a table: one column per backend, then
/// the ratio compiled / interpreted.
fn bench_table(figures: &serde_json::Value, ratios: &serde_json::Value, quarter: f64) -> String {
    let rows = [
        ("perft depth", "perft", "depth", None),
        (
            "perft nodes/s",
            "perft",
            "nodes_per_sec",
            Some("perft_nodes_per_sec"),
        ),
        (
            "mc playouts/s",
            "mc",
            "playouts_per_sec",
            Some("mc_playouts_per_sec"),
        ),
        (
            "mc states/s",
            "mc",
            "states_per_sec",
            Some("mc_states_per_sec"),
        ),
        ("mean playout length", "mc", "mean_length", None),
    ];
    let mut out = format!(
        "{}: {quarter} s for each perft (the deepest depth completed) and each Monte-Carlo run\n",
        figures["game"].as_str().unwrap_or_default()
    );
    let mut line = |cells: [&str; 4]| {
        let [label, a, b, r] = cells;
        let text = format!("{label:<20} {a:>14} {b:>14} {r:>22}");
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(["", "interpreted", "compiled", "compiled/interpreted"]);
    for (label, section, key, ratio) in rows {
        let cell = |backend: &str| {
            let v = &figures[backend][section][key];
            match (v.as_u64(), v.as_f64()) {
                (Some(n), _) => n.to_string(),
                (None, Some(x)) if key == "mean_length" => format!("{x:.1}"),
                (None, Some(x)) => format!("{x:.0}"),
                _ => "-".to_string(),
            }
        };
        let r = ratio
            .and_then(|k| ratios[k].as_f64())
            .map_or_else(String::new, |x| format!("{x:.1}x"));
        line([label, &cell("interpreted"), &cell("compiled"), &r]);
    }
    out
}
