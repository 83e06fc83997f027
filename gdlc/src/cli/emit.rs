//! `gdlc GAME.kif -o DIR`: compiles a description to the crate of its
//! reasoner; also the `--strategy` values that `gdlc explain` shares.

use super::common::{load, stem, Failure};
use clap::{Args, ValueEnum};
use gdlc::compile::Strategy;
use gdlc::output;
use std::path::PathBuf;
use std::process::ExitCode;

/// The options of `gdlc GAME.kif -o DIR`.
#[derive(Args)]
pub(crate) struct Emit {
    /// The description (.kif) to compile to a crate.
    #[arg(required = true)]
    game: Option<PathBuf>,
    /// The folder of the crate to write (created if needed).
    #[arg(short, long, value_name = "DIR", required = true)]
    output: Option<PathBuf>,
    /// The folder of a runtime crate (gdl-runtime) for the crate to depend
    /// on by absolute path, so that crates built in one target folder share
    /// one build of it [default: the crate carries its own copy in
    /// `DIR/gdl-runtime/`, and builds wherever it is moved].
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
pub(crate) enum StrategyArg {
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

impl Emit {
    /// Writes the crate of the game's reasoner to the `-o` folder.
    pub(crate) fn run(self) -> Result<ExitCode, Failure> {
        let (Some(game), Some(dir)) = (self.game, self.output) else {
            unreachable!("clap requires GAME and -o without a command")
        };
        let loaded = load(&game)?;
        let shared = match self.runtime_path {
            Some(path) => Some(gdlc::runtime_copy::runtime_path(Some(&path)).map_err(Failure::of)?),
            None => None,
        };
        let runtime = shared
            .as_deref()
            .map_or(output::Runtime::Carried, output::Runtime::At);
        let name = stem(&game);
        let mut files = output::crate_files(
            &loaded,
            &output::package_name(&name),
            &name,
            runtime,
            self.strategy.into(),
        )
        .map_err(Failure::of)?;
        if self.native {
            let config = output::NATIVE_CONFIG.as_bytes().to_vec();
            files.files.push((".cargo/config.toml".to_string(), config));
        }
        let changed = output::write_crate(&dir, &files).map_err(Failure::of)?;
        println!(
            "{}: wrote crate `{}` to {} ({changed} of {} files changed)",
            game.display(),
            files.package,
            dir.display(),
            files.files.len()
        );
        Ok(ExitCode::SUCCESS)
    }
}
