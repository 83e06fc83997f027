//! `gdlc explain`: what the compiler decided, as text, and the relation
//! dependency graph as Graphviz DOT.

use super::common::{load, stem, Failure};
use super::emit::StrategyArg;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `gdlc explain`.
#[derive(Args)]
pub(crate) struct ExplainArgs {
    /// The description (.kif).
    game: PathBuf,
    /// Also write the relation dependency graph to FILE (Graphviz DOT).
    #[arg(long, value_name = "FILE")]
    dot: Option<PathBuf>,
    /// The strategy to explain.
    #[arg(long, value_enum, default_value = "auto")]
    strategy: StrategyArg,
}

impl ExplainArgs {
    /// Prints the compiler's decisions and writes the graph to `--dot`.
    pub(crate) fn run(self) -> Result<ExitCode, Failure> {
        let game = &self.game;
        let loaded = load(game)?;
        let compiled =
            gdlc::compile::analyze_with(&loaded, self.strategy.into()).map_err(Failure::of)?;
        let name = stem(game);
        if let Some(path) = &self.dot {
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
}
