//! `gdlc perft`: counts the game tree from the initial state with the
//! chosen backend, to a depth or for a time.

use super::common::{
    interpreter, progress, run_compiled, stem, strings, Backend, Failure, RunOptions, INTERPRETED,
};
use clap::Args;
use gdl_runtime::report::{deadline_after, deepening_perft, time_budget, timed_perft};
use gdl_runtime::Reasoner;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The arguments of `gdlc perft`.
#[derive(Args)]
pub(crate) struct PerftArgs {
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
}

impl PerftArgs {
    /// Counts the game tree with the chosen backend.
    pub(crate) fn run(self) -> Result<ExitCode, Failure> {
        let Self {
            game,
            depth,
            seconds,
            run,
        } = self;
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
            return run_compiled(&game, native, args);
        }
        let mut r = interpreter(&game)?;
        run_perft(&mut r, &game, depth, seconds, run.json)?;
        Ok(ExitCode::SUCCESS)
    }
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

/// Perft with `r` to `depth`, or deepening while `seconds` last, printed
/// as text or JSON.
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
