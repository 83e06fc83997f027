//! `gdlc gdl-perf`: gdlc as an engine of gdl-perf, the cross-engine
//! benchmark of GDL reasoners (`scripts/gdl-perf/` holds the commands it
//! calls). A [`Test`] runs one game on the compiled reasoner (or the
//! interpreter) and writes the output file that gdl-perf reads, in the
//! formats of [`gdl_runtime::gdl_perf`]; a failure is written there too.
//!
//! The performance test is one-thread flat Monte-Carlo, as gdl-perf's own
//! engines run; the correctness record of the compiled reasoner is written
//! by its binary (`gdl-perf-record`) straight into the output file, as it
//! is made.

use crate::backend::Cache;
use crate::interp::{catch_limit, Interpreter};
use crate::Loaded;
use gdl_runtime::gdl_perf::{correctness_record, error_record, error_result, performance_result};
use gdl_runtime::report::{time_budget, MC_MAX_LENGTH};
use gdl_runtime::{flat_monte_carlo, McReport};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The name under which a game's compiled reasoner is cached: gdl-perf
/// passes each test a new temporary file, and one name for all of them
/// makes the same rules hit the same crate.
const CACHED_NAME: &str = "gdl-perf";

/// Which reasoner plays the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The reference interpreter.
    Interpreted,
    /// The compiled reasoner, built into the compiled backend's cache.
    Compiled,
    /// The same, built for this machine's processor only.
    CompiledNative,
}

/// A test of one game.
#[derive(Clone, Debug)]
pub struct Test {
    /// The description, as gdl-perf passes it (ggp-base's printed form).
    pub game: PathBuf,
    /// The file to write the result to.
    pub output: PathBuf,
    /// Which reasoner plays.
    pub backend: Backend,
    /// The seed of the random moves.
    pub seed: u64,
}

/// Why a test failed, and whether the output file says so already.
struct Failure {
    message: String,
    recorded: bool,
}

/// A failure that the output file does not show yet.
fn unrecorded(message: impl std::fmt::Display) -> Failure {
    Failure {
        message: message.to_string(),
        recorded: false,
    }
}

impl Test {
    /// Runs a performance test of `amount` seconds, or with `correctness`
    /// the correctness record of `amount` state changes, and writes the
    /// output file; on failure, writes the error there (unless the record
    /// ends with it already) and returns it.
    pub fn run(&self, amount: &str, correctness: bool) -> Result<(), String> {
        let outcome = catch_limit(|| match correctness {
            true => self.correctness(amount),
            false => self.performance(amount),
        })
        .unwrap_or_else(|limit| Err(unrecorded(limit.0)));
        let Err(failure) = outcome else {
            return Ok(());
        };
        let message = failure.message.trim_end().trim_start_matches("error: ");
        if !failure.recorded {
            let text = match correctness {
                true => error_record(message),
                false => error_result(&self.version(), message),
            };
            std::fs::write(&self.output, text).map_err(|e| self.cannot_write(e).message)?;
        }
        Err(message.to_string())
    }

    /// The engine's version in the result files: gdlc's and the backend's.
    fn version(&self) -> String {
        let backend = match self.backend {
            Backend::Interpreted => "interpreted",
            Backend::Compiled => "compiled",
            Backend::CompiledNative => "compiled-native",
        };
        format!("gdlc {} {backend}", env!("CARGO_PKG_VERSION"))
    }

    fn cannot_write(&self, e: std::io::Error) -> Failure {
        unrecorded(format!("cannot write `{}`: {e}", self.output.display()))
    }

    fn load(&self) -> Result<Loaded, Failure> {
        crate::load_path(&self.game).map_err(unrecorded)
    }

    /// Random playouts for `amount` seconds on one thread; the result file.
    fn performance(&self, amount: &str) -> Result<(), Failure> {
        let budget = amount
            .parse::<f64>()
            .map_err(|_| format!("the test length must be a number of seconds, not `{amount}`"))
            .and_then(time_budget)
            .map_err(unrecorded)?;
        let loaded = self.load()?;
        let report = match self.backend {
            Backend::Interpreted => {
                let mut r = Interpreter::new(&loaded);
                flat_monte_carlo(&mut r, budget, self.seed, MC_MAX_LENGTH, &mut |_| {})
                    .map_err(unrecorded)?
            }
            Backend::Compiled | Backend::CompiledNative => {
                let seed = self.seed.to_string();
                let args = [
                    "mc",
                    "--seconds",
                    amount,
                    "--seed",
                    &seed,
                    "--threads",
                    "1",
                    "--json",
                ];
                let binary = compiled_binary(&loaded, self.backend)?;
                mc_report(&report_of(&binary, &args)?)?
            }
        };
        let text = performance_result(&self.version(), &report);
        std::fs::write(&self.output, text).map_err(|e| self.cannot_write(e))
    }

    /// The correctness record of `amount` state changes, written to the
    /// output file as it is made.
    fn correctness(&self, amount: &str) -> Result<(), Failure> {
        let state_changes: u64 = amount.parse().map_err(|_| {
            unrecorded(format!(
                "the number of state changes must be a whole number, not `{amount}`"
            ))
        })?;
        let loaded = self.load()?;
        if self.backend == Backend::Interpreted {
            return self.interpreted_record(&loaded, state_changes);
        }
        let binary = compiled_binary(&loaded, self.backend)?;
        let file = std::fs::File::create(&self.output).map_err(|e| self.cannot_write(e))?;
        let status = Command::new(&binary)
            .args(["gdl-perf-record", "--state-changes", amount, "--seed"])
            .arg(self.seed.to_string())
            .stdin(Stdio::null())
            .stdout(file)
            .status()
            .map_err(|e| unrecorded(cannot_start(&binary, e)))?;
        if status.success() {
            return Ok(());
        }
        let message = format!("the compiled reasoner stopped with {status}");
        if !ends_the_record(&self.output) {
            std::fs::OpenOptions::new()
                .append(true)
                .open(&self.output)
                .and_then(|mut f| f.write_all(error_record(&message).as_bytes()))
                .map_err(|e| self.cannot_write(e))?;
        }
        Err(Failure {
            message,
            recorded: true,
        })
    }

    /// The correctness record of the interpreter; a resource limit ends it
    /// with `!E!`.
    fn interpreted_record(&self, loaded: &Loaded, state_changes: u64) -> Result<(), Failure> {
        let mut r = Interpreter::new(loaded);
        let file = std::fs::File::create(&self.output).map_err(|e| self.cannot_write(e))?;
        let mut out = std::io::BufWriter::new(file);
        let written =
            catch_limit(|| correctness_record(&mut r, state_changes, self.seed, &mut out))
                .unwrap_or_else(|limit| {
                    out.write_all(error_record(&limit.0).as_bytes())
                        .map(|()| Some(limit.0))
                });
        match written.and_then(|recorded| out.flush().map(|()| recorded)) {
            Ok(None) => Ok(()),
            Ok(Some(message)) => Err(Failure {
                message,
                recorded: true,
            }),
            Err(e) => Err(self.cannot_write(e)),
        }
    }
}

/// The binary of the compiled reasoner of `loaded` (for this machine's
/// processor with [`Backend::CompiledNative`]), built if it is not up to
/// date.
fn compiled_binary(loaded: &Loaded, backend: Backend) -> Result<PathBuf, Failure> {
    let native = backend == Backend::CompiledNative;
    let cache = Cache::from_env().map_err(unrecorded)?.native(native);
    let prepared = cache.prepare(loaded, CACHED_NAME).map_err(unrecorded)?;
    if !prepared.fresh {
        prepared.build().map_err(unrecorded)?;
    }
    Ok(prepared.binary)
}

fn cannot_start(binary: &Path, e: std::io::Error) -> String {
    format!(
        "the compiled reasoner `{}` cannot be started: {e}",
        binary.display()
    )
}

/// The JSON report that the compiled reasoner `binary` prints when run
/// with `args`; when it fails, what it printed on stderr is the error.
fn report_of(binary: &Path, args: &[&str]) -> Result<serde_json::Value, Failure> {
    let output = Command::new(binary)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| unrecorded(cannot_start(binary, e)))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let why = stderr.trim().trim_start_matches("error: ");
        let status = output.status;
        return Err(unrecorded(format!(
            "the compiled reasoner stopped with {status}: {why}"
        )));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| {
        unrecorded(format!(
            "the compiled reasoner's report is not the JSON expected: {e}"
        ))
    })
}

/// Whether the record in `path` ends with `!F!`.
fn ends_the_record(path: &Path) -> bool {
    let mut last = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| {
            f.seek(std::io::SeekFrom::End(-4))?;
            f.read_exact(&mut last)
        })
        .is_ok_and(|()| &last == b"!F!\n")
}

/// The counts of a Monte-Carlo report printed by a compiled reasoner.
fn mc_report(json: &serde_json::Value) -> Result<McReport, Failure> {
    let count = |key: &str| {
        json[key].as_u64().ok_or_else(|| {
            unrecorded(format!(
                "the compiled reasoner's report has no `{key}`: {json}"
            ))
        })
    };
    Ok(McReport {
        seed: count("seed")?,
        playouts: count("playouts")?,
        states: count("states")?,
        joint_moves: count("joint_moves")?,
        seconds: json["seconds"].as_f64().unwrap_or(0.0),
        mean_goals: Vec::new(),
        truncated: count("truncated")?,
    })
}
