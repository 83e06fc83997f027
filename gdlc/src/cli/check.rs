//! `gdlc check`: checks a description and, with the compiled backend,
//! builds its reasoner.

use super::common::{compiled_binary, load, Backend, Failure};
use clap::Args;
use gdlc::diagnostics::summary;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The arguments of `gdlc check`.
#[derive(Args)]
pub(crate) struct CheckArgs {
    /// The description (.kif).
    game: PathBuf,
    /// With `compiled`, also generate the reasoner and build it.
    #[arg(long, value_enum)]
    backend: Option<Backend>,
}

impl CheckArgs {
    /// Checks the description and, with the compiled backend, builds its
    /// reasoner.
    pub(crate) fn run(self) -> Result<ExitCode, Failure> {
        check(&self.game)?;
        if let Some(native) = Backend::compiled(self.backend) {
            let binary = compiled_binary(&self.game, native)?;
            println!("{}: compiled ({})", self.game.display(), binary.display());
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// Loads the description and reports it valid, with its diagnostics' summary.
fn check(game: &Path) -> Result<(), Failure> {
    let loaded = load(game)?;
    println!(
        "{}: valid ({})",
        game.display(),
        summary(&loaded.analysis.diagnostics)
    );
    Ok(())
}
