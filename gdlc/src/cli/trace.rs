//! `gdlc trace`: the conformance trace as JSON, in the schema of the oracle
//! files, from the chosen backend.

use super::common::{interpreter, run_compiled, stem, Backend, Failure};
use clap::Args;
use gdl_runtime::report::{deadline_after, trace};
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `gdlc trace`.
#[derive(Args)]
pub(crate) struct TraceArgs {
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
}

impl TraceArgs {
    /// Prints the conformance trace of the chosen backend.
    pub(crate) fn run(self) -> Result<ExitCode, Failure> {
        let Self {
            game,
            depth,
            seconds,
            max_steps,
            backend,
        } = self;
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
            return run_compiled(&game, native, args.to_vec());
        }
        let mut r = interpreter(&game)?;
        let t = trace(
            &mut r,
            &stem(&game),
            depth,
            deadline_after(seconds),
            max_steps,
        )
        .map_err(|e| Failure(format!("error: {e}")))?;
        println!("{t:#}");
        Ok(ExitCode::SUCCESS)
    }
}
