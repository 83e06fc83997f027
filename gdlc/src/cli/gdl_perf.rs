//! `gdlc gdl-perf`: the gdl-perf benchmark's engine protocol, answered by
//! [`gdlc::gdl_perf`].

use super::common::{Backend, Failure};
use clap::Args;
use gdlc::gdl_perf;
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `gdlc gdl-perf`, in the order gdl-perf passes them.
#[derive(Args)]
pub(crate) struct GdlPerfArgs {
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
}

impl GdlPerfArgs {
    /// Runs the test and writes its result (or its failure) to OUTPUT.
    pub(crate) fn run(self) -> Result<ExitCode, Failure> {
        let backend = match self.backend.unwrap_or(Backend::Compiled) {
            Backend::Interpreted => gdl_perf::Backend::Interpreted,
            Backend::Compiled => gdl_perf::Backend::Compiled,
            Backend::CompiledNative => gdl_perf::Backend::CompiledNative,
        };
        let test = gdl_perf::Test {
            game: self.game,
            output: self.output,
            backend,
            seed: self.seed,
        };
        test.run(&self.amount, self.correctness)
            .map(|()| ExitCode::SUCCESS)
            .map_err(|message| Failure(format!("error: {message}")))
    }
}
