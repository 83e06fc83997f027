//! What several commands share: the failure they report, the choice of
//! backend, loading a description, the compiled reasoner's binary, and the
//! progress spinner.

use clap::{Args, ValueEnum};
use gdlc::backend::Cache;
use gdlc::diagnostics::summary;
use gdlc::interp::Interpreter;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// The options of `gdlc perft` and `gdlc mc`: the output format and the
/// reasoner.
#[derive(Args)]
pub(crate) struct RunOptions {
    /// Print one JSON object with the figures instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Which reasoner runs the game (default: interpreted).
    #[arg(long, value_enum)]
    pub(crate) backend: Option<Backend>,
}

/// The reasoners `gdlc` can run.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Backend {
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
    pub(crate) fn compiled(backend: Option<Backend>) -> Option<bool> {
        match backend? {
            Backend::Interpreted => None,
            Backend::Compiled => Some(false),
            Backend::CompiledNative => Some(true),
        }
    }
}

/// The backend name in the reports of the interpreter.
pub(crate) const INTERPRETED: &str = "interpreted";

/// A failure to report on stderr with exit status 1.
pub(crate) struct Failure(pub(crate) String);

impl Failure {
    /// The failure of an error whose message says it all.
    pub(crate) fn of(e: impl std::fmt::Display) -> Self {
        Failure(e.to_string())
    }
}

/// The arguments of a command line, as owned strings.
pub(crate) fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Loads a description, printing its warnings, or every diagnostic and the
/// summary when it is invalid.
pub(crate) fn load(game: &Path) -> Result<gdlc::Loaded, Failure> {
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

/// The binary of the game's compiled reasoner, built if it is not up to date.
pub(crate) fn compiled_binary(game: &Path, native: bool) -> Result<PathBuf, Failure> {
    let loaded = gdlc::load_path(game).map_err(Failure::of)?;
    let cache = Cache::from_env().map_err(Failure::of)?.native(native);
    let prepared = cache.prepare(&loaded, &stem(game)).map_err(Failure::of)?;
    if !prepared.fresh {
        eprintln!(
            "gdlc: building the compiled reasoner in {} (cargo build --release: seconds \
             for most games, a minute or more for the first one, which builds gdlc's runtime)",
            prepared.dir.display()
        );
        let bar = spinner(std::io::stderr().is_terminal());
        bar.set_message("building");
        let built = prepared.build();
        bar.finish_and_clear();
        built.map_err(Failure::of)?;
    }
    Ok(prepared.binary)
}

/// Runs the compiled reasoner of `game` (built if needed) with `args`.
pub(crate) fn run_compiled(
    game: &Path,
    native: bool,
    args: Vec<String>,
) -> Result<ExitCode, Failure> {
    let binary = compiled_binary(game, native)?;
    gdlc::backend::run(&binary, &args).map_err(Failure::of)
}

/// The reference interpreter of the description at `game`.
pub(crate) fn interpreter(game: &Path) -> Result<Interpreter, Failure> {
    Interpreter::from_path(game).map_err(Failure::of)
}

/// The game's name in reports: the description's file name without its
/// extension.
pub(crate) fn stem(game: &Path) -> String {
    game.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// A spinner on stderr when stdout is a terminal and no JSON was asked for.
pub(crate) fn progress(json: bool) -> ProgressBar {
    spinner(!json && std::io::stdout().is_terminal())
}

/// A spinner on stderr showing its message and the time elapsed, if
/// `shown`; else a hidden one.
fn spinner(shown: bool) -> ProgressBar {
    if !shown {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("template"));
    bar.enable_steady_tick(Duration::from_millis(100));
    bar
}
