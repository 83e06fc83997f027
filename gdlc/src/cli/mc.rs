//! `gdlc mc`: flat Monte-Carlo (uniformly random playouts) for a time or a
//! number of playouts, with the chosen backend, on one or more threads.

use super::common::{
    progress, run_compiled, stem, strings, Backend, Failure, RunOptions, INTERPRETED,
};
use clap::Args;
use gdl_runtime::report::{parallel_mc_json, parallel_mc_text, time_budget, MC_MAX_LENGTH};
use gdl_runtime::{default_threads, parallel_flat_monte_carlo, McBudget, Reasoner, MAX_THREADS};
use gdlc::interp::Interpreter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The arguments of `gdlc mc`.
#[derive(Args)]
pub(crate) struct McArgs {
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
}

impl McArgs {
    /// Runs flat Monte-Carlo with the chosen backend and prints its figures.
    pub(crate) fn run(self) -> Result<ExitCode, Failure> {
        let Self {
            game,
            seconds,
            playouts,
            seed,
            threads,
            run,
        } = self;
        let threads = threads.map_or_else(default_threads, |n| n as usize);
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
            return run_compiled(&game, native, args);
        }
        let loaded = gdlc::load_path(&game).map_err(Failure::of)?;
        let mut r = Interpreter::new(&loaded);
        let more = || Interpreter::new(&loaded);
        monte_carlo(&mut r, more, threads, &game, budget, seed, run.json)?;
        Ok(ExitCode::SUCCESS)
    }
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
