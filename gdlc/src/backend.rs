//! The compiled backend of the command line: a game's reasoner is generated
//! as a crate in a cache folder, built with `cargo build --release`, and
//! its binary runs the command (`perft`, `mc`, `trace`; see
//! [`gdl_runtime::cli`]), printing to this process's streams ([`run`]) or
//! to a string ([`output`]).
//!
//! The cache (`$GDLC_CACHE_DIR`, else `$XDG_CACHE_HOME/gdlc`, else
//! `$HOME/.cache/gdlc`) holds one crate per game, named `gdlc-game-<hash>`
//! after the hash of gdlc's version, the game's name and its text, and one
//! target folder that all of them share, so the runtime is compiled once
//! (`target-native` for the builds for this machine's processor only).
//! A binary newer than its crate's files and the runtime's is used as it is.
//!
//! A game seen before is not generated again: beside the crate's files,
//! `.gdlc-generated` records what generated them — the running executable
//! (path, size, modification time: a development build of gdlc generates
//! other code under the same version number), the runtime's folder, and
//! each file's name and FNV-1a hash. When the record names this executable
//! and runtime and every file it lists still has its hash, the files are
//! what this executable would write (the folder's name fixes the text), so
//! [`Cache::prepare`] only checks the binary's freshness, without running
//! the compiler, which takes seconds on a large game (chess: 6 s, against
//! 0.04 s for the whole warm run). The player, which builds a worker crate
//! beside the game's and never its binary, relies on this too. Anything
//! else (no record, another generator, a file missing or changed, an
//! executable whose metadata cannot be read) generates the crate again,
//! rewriting only the files whose content changed, so an unchanged binary
//! stays fresh. Only the header's comment can differ from a new
//! generation: it names the file the text was first read from.

use crate::compile::Strategy;
use crate::output::{
    crate_files, fnv1a64, write_crate, write_if_changed, CrateFiles, Error as OutputError, Runtime,
    VERSION,
};
use crate::Loaded;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

/// The flags of a build for this machine's processor only.
pub const NATIVE_RUSTFLAGS: &str = "-C target-cpu=native";

/// Lines of cargo's error output shown when a build fails.
const STDERR_TAIL: usize = 40;

/// The file in a game's crate folder that records what generated the crate.
const RECORD: &str = ".gdlc-generated";

/// Why the compiled backend could not run a command.
pub enum Error {
    /// The crate could not be generated or written.
    Output(OutputError),
    /// No cache folder: none of its variables is set.
    NoCache,
    /// Cargo could not be started.
    NoCargo {
        /// The program tried.
        cargo: String,
        /// The cause.
        source: std::io::Error,
    },
    /// `cargo build` failed.
    Build {
        /// The generated source.
        source: PathBuf,
        /// How cargo ended.
        status: String,
        /// The last lines of cargo's error output.
        stderr_tail: String,
    },
    /// The built binary could not be started or did not exit normally.
    Run {
        /// The binary.
        binary: PathBuf,
        /// What went wrong.
        message: String,
    },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Output(e) => write!(f, "{e}"),
            Error::NoCache => write!(
                f,
                "error: no folder for the compiled backend's cache: set GDLC_CACHE_DIR (or XDG_CACHE_HOME or HOME)"
            ),
            Error::NoCargo { cargo, source } => write!(
                f,
                "error: the compiled backend needs cargo, but `{cargo}` cannot be run: {source}\n\
                 (install a Rust toolchain, e.g. with rustup, or set CARGO to cargo's path)"
            ),
            Error::Build {
                source,
                status,
                stderr_tail,
            } => write!(
                f,
                "error: building the compiled reasoner failed ({status}); the generated source is `{}`\n{stderr_tail}",
                source.display()
            ),
            Error::Run { binary, message } => {
                write!(f, "error: the compiled reasoner `{}` {message}", binary.display())
            }
        }
    }
}

/// Shows the message, like [`OutputError`].
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {}

impl From<OutputError> for Error {
    fn from(e: OutputError) -> Self {
        Error::Output(e)
    }
}

/// The cache of compiled games.
#[derive(Clone, Debug)]
pub struct Cache {
    root: PathBuf,
    native: bool,
}

/// A game's crate in the cache, written and possibly built.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The crate's package name, also the name of its folder.
    pub package: String,
    /// The crate's folder.
    pub dir: PathBuf,
    /// The binary that `cargo build --release` makes.
    pub binary: PathBuf,
    /// Whether the binary is there and newer than every file it is built
    /// from, so that no build is needed.
    pub fresh: bool,
    /// Whether this call generated the crate's files; not when this same
    /// executable had generated them already.
    pub generated: bool,
    target: PathBuf,
    native: bool,
}

impl Cache {
    /// The cache at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Cache {
            root: root.into(),
            native: false,
        }
    }

    /// This cache, building for this machine's processor only when
    /// `native` ([`NATIVE_RUSTFLAGS`], into a target folder of their own, so
    /// that the portable builds stay fresh).
    pub fn native(self, native: bool) -> Self {
        Cache { native, ..self }
    }

    /// The cache named by the environment: `$GDLC_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/gdlc`, else `$HOME/.cache/gdlc`.
    pub fn from_env() -> Result<Self, Error> {
        crate::runtime_copy::cache_root()
            .map(Cache::new)
            .ok_or(Error::NoCache)
    }

    /// Writes the crate of `loaded` (reported as `game`) into the cache,
    /// rewriting only the files whose content changed; a crate this same
    /// executable generated is left as it is (see the module's
    /// documentation).
    pub fn prepare(&self, loaded: &Loaded, game: &str) -> Result<Prepared, Error> {
        let mut key = format!("{VERSION}\0{game}\0").into_bytes();
        key.extend_from_slice(loaded.file.text.as_bytes());
        let package = format!("gdlc-game-{:016x}", fnv1a64(&key));
        let runtime = crate::runtime_copy::runtime_path(None)?;
        let dir = self.root.join(&package);
        let target = self.root.join(if self.native {
            "target-native"
        } else {
            "target"
        });
        let binary = target
            .join("release")
            .join(format!("{package}{}", std::env::consts::EXE_SUFFIX));
        let mut runtime_files = vec![runtime.join("Cargo.toml")];
        sources_under(&runtime.join("src"), &mut runtime_files);
        let generator = generator_head(&runtime);
        let recorded = generator
            .as_deref()
            .and_then(|head| recorded_files(&dir, head));
        let (files, generated) = match recorded {
            Some(files) => (files, false),
            None => {
                let files = crate_files(
                    loaded,
                    &package,
                    game,
                    Runtime::At(&runtime),
                    Strategy::Auto,
                )?;
                write_crate(&dir, &files)?;
                if let Some(head) = generator {
                    write_if_changed(&dir.join(RECORD), record(head, &files).as_bytes())?;
                }
                (files.files.iter().map(|(f, _)| dir.join(f)).collect(), true)
            }
        };
        let fresh = is_fresh(&binary, files.iter().chain(&runtime_files));
        Ok(Prepared {
            package,
            dir,
            binary,
            fresh,
            generated,
            target,
            native: self.native,
        })
    }
}

/// The first lines of the record this executable writes with the runtime
/// at `runtime`; `None` when the executable's metadata cannot be read
/// (e.g. it was replaced while running).
fn generator_head(runtime: &Path) -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let metadata = std::fs::metadata(&exe).ok()?;
    let since = metadata.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some(format!(
        "gdlc {VERSION}\ngenerator {}\nsize {}\nmodified {}.{:09}\nruntime {}\n",
        exe.display(),
        metadata.len(),
        since.as_secs(),
        since.subsec_nanos(),
        runtime.display()
    ))
}

/// The record of `files` generated by the generator of `head`: `head`,
/// then a line `file HASH NAME` per file.
fn record(mut head: String, files: &CrateFiles) -> String {
    for (name, content) in &files.files {
        head.push_str(&format!("file {:016x} {name}\n", fnv1a64(content)));
    }
    head
}

/// The files of the crate in `dir` when its record begins with `head` and
/// every file it lists has its recorded hash; else `None`.
fn recorded_files(dir: &Path, head: &str) -> Option<Vec<PathBuf>> {
    let record = std::fs::read_to_string(dir.join(RECORD)).ok()?;
    let mut files = Vec::new();
    for line in record.strip_prefix(head)?.lines() {
        let (hash, name) = line.strip_prefix("file ")?.split_once(' ')?;
        let path = dir.join(name);
        let content = std::fs::read(&path).ok()?;
        if format!("{:016x}", fnv1a64(&content)) != hash {
            return None;
        }
        files.push(path);
    }
    (!files.is_empty()).then_some(files)
}

/// Whether `binary` is there and newer than every one of `inputs`.
fn is_fresh<'a>(binary: &Path, mut inputs: impl Iterator<Item = &'a PathBuf>) -> bool {
    modified(binary).is_some_and(|built| inputs.all(|i| modified(i).is_some_and(|m| m < built)))
}

impl Prepared {
    /// The generated reasoner's source.
    pub fn source(&self) -> PathBuf {
        self.dir.join("src/lib.rs")
    }

    /// The lines a crate building this one as a dependency adds to its
    /// `Cargo.toml`, so that this crate keeps its own profile
    /// ([`crate::output::package_profile`], read off its source).
    pub fn package_profile(&self) -> Result<String, String> {
        let source = self.source();
        let code =
            std::fs::read_to_string(&source).map_err(|e| format!("`{}`: {e}", source.display()))?;
        Ok(crate::output::package_profile(&self.package, &code))
    }

    /// The folder of the release artifacts of the cache's shared target
    /// folder, where [`Prepared::build_beside`] puts a crate's.
    pub fn release_dir(&self) -> PathBuf {
        self.target.join("release")
    }

    /// Builds another crate, at `dir`, that depends on this game's crate
    /// (the player's search worker, the Python package's extension module)
    /// with `cargo build --release` into the cache's shared target folder,
    /// `vars` added to cargo's environment; on failure, cargo's status and
    /// the end of its error output.
    pub fn build_beside(&self, dir: &Path, vars: &[(&str, &str)]) -> Result<(), String> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let output = Command::new(&cargo)
            .args(["build", "--release", "--quiet", "--manifest-path"])
            .arg(dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("CARGO_BUILD_TARGET")
            .envs(vars.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("cannot run `{cargo}`: {e}"))?;
        if output.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        Err(format!(
            "`cargo build --release` of `{}` {}:\n{}",
            dir.display(),
            output.status,
            lines[lines.len().saturating_sub(STDERR_TAIL)..].join("\n")
        ))
    }

    /// Builds the crate with `cargo build --release` (cargo is `$CARGO`, else
    /// `cargo` on the `PATH`) into the cache's shared target folder.
    pub fn build(&self) -> Result<(), Error> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut command = Command::new(&cargo);
        command
            .args(["build", "--release", "--manifest-path"])
            .arg(self.dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("CARGO_BUILD_TARGET");
        if self.native {
            command
                .env("RUSTFLAGS", NATIVE_RUSTFLAGS)
                .env_remove("CARGO_ENCODED_RUSTFLAGS");
        }
        let output = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|source| Error::NoCargo {
                cargo: cargo.clone(),
                source,
            })?;
        if output.status.success() && self.binary.is_file() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        // Cargo's progress lines (`Compiling ...`) say nothing about the failure.
        let progress = [
            "Compiling ",
            "Blocking ",
            "Updating ",
            "Locking ",
            "Download",
        ];
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|l| !progress.iter().any(|p| l.trim_start().starts_with(p)))
            .collect();
        let tail = lines[lines.len().saturating_sub(STDERR_TAIL)..].join("\n");
        let status = if output.status.success() {
            format!("cargo made no `{}`", self.binary.display())
        } else {
            format!("`{cargo} build --release` {}", output.status)
        };
        Err(Error::Build {
            source: self.source(),
            status,
            stderr_tail: tail,
        })
    }
}

/// Runs `binary` with `args`, its standard streams those of this process,
/// and returns its exit status.
pub fn run(binary: &Path, args: &[String]) -> Result<ExitCode, Error> {
    let failure = |message: String| Error::Run {
        binary: binary.to_path_buf(),
        message,
    };
    let status = Command::new(binary)
        .args(args)
        .status()
        .map_err(|e| failure(format!("cannot be started: {e}")))?;
    match status.code().and_then(|c| u8::try_from(c).ok()) {
        Some(code) => Ok(ExitCode::from(code)),
        None => Err(failure(format!("stopped abnormally ({status})"))),
    }
}

/// Runs `binary` with `args`, its standard error that of this process, and
/// returns what it printed on its standard output; an exit status other
/// than 0 is an error (the binary has said why on standard error).
pub fn output(binary: &Path, args: &[String]) -> Result<String, Error> {
    let failure = |message: String| Error::Run {
        binary: binary.to_path_buf(),
        message,
    };
    let output = Command::new(binary)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| failure(format!("cannot be started: {e}")))?;
    if !output.status.success() {
        return Err(failure(format!(
            "failed ({}) running `{}`",
            output.status,
            args.join(" ")
        )));
    }
    String::from_utf8(output.stdout).map_err(|_| failure("printed bytes that are not UTF-8".into()))
}

/// Adds the files under `dir` (recursively) to `out`.
fn sources_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}
