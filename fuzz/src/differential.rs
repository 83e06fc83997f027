//! The differential test: each game is traced by the interpreter (in this
//! process) and by the code of both compiled strategies, and the traces —
//! roles, initial state, perft to a small depth, two seeded playouts with
//! their legal moves, joint moves, states, terminal step and goals — must
//! be equal.
//!
//! The compiled side is slow to build, so a batch of games becomes one
//! crate, every game and strategy a module of it, built once with cargo
//! into one binary that runs any of them by name (as the compiled corpus
//! test does). A module that does not build is left out and the crate
//! built again, its game reported.

use crate::limits::run_limited;
use gdlc::compile::strategy::Strategy;
use gdlc::interp::{catch_limit, Interpreter};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The compiled strategies every game is run under: `auto` (ground with
/// incremental layers, where the game is small enough), `ground` (every
/// state in full), `relational` (every relation bottom-up) and `demand`
/// (relations asked with every argument bound answered by a search).
pub const STRATEGIES: [Strategy; 4] = [
    Strategy::Auto,
    Strategy::Ground,
    Strategy::Relational,
    Strategy::Demand,
];

/// Time the interpreter's perft may take per game; the depth it reaches is
/// the depth of the comparison (at most [`MAX_DEPTH`]).
const PERFT_SECONDS: f64 = 2.0;
/// The deepest perft compared.
pub const MAX_DEPTH: u32 = 3;
/// Playout length compared (generated games end sooner).
const STEPS: usize = 40;
/// Wall-clock limit of one compiled trace.
const TRACE_LIMIT: Duration = Duration::from_secs(60);

/// A game to compare: a name (a Rust identifier) and its description.
#[derive(Clone, Debug)]
pub struct Case {
    /// Module name of the game, e.g. `s17`.
    pub name: String,
    /// The description.
    pub kif: String,
}

/// What became of one game under one compiled strategy, or of the game
/// itself before any strategy ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The traces are equal.
    Agrees,
    /// `gdlc` rejects the description (a generator bug).
    Invalid(String),
    /// The interpreter failed or panicked on it.
    InterpreterFailed(String),
    /// The compiler refused the strategy with an error.
    Refused(String),
    /// The compiler panicked.
    CompilerPanicked(String),
    /// The generated module did not build.
    BuildFailed(String),
    /// The compiled binary failed, or ran past its time.
    RunFailed(String),
    /// The traces differ.
    Differs(Vec<String>),
}

impl Outcome {
    /// Whether this outcome is a bug of gdlc (not an agreement and not a
    /// documented refusal).
    pub fn is_failure(&self) -> bool {
        !matches!(self, Outcome::Agrees | Outcome::Refused(_))
    }

    /// The outcome's kind, for the shrinker: a smaller game must fail the
    /// same way.
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Agrees => "agrees",
            Outcome::Invalid(_) => "invalid",
            Outcome::InterpreterFailed(_) => "interpreter failed",
            Outcome::Refused(_) => "refused",
            Outcome::CompilerPanicked(_) => "compiler panicked",
            Outcome::BuildFailed(_) => "build failed",
            Outcome::RunFailed(_) => "run failed",
            Outcome::Differs(_) => "differs",
        }
    }
}

impl Outcome {
    /// What a smaller game must share with this outcome to fail "the same
    /// way": the kind, and for a rejection its first error code, for a
    /// panic or a failure of the interpreter its first line.
    pub fn signature(&self) -> String {
        match self {
            Outcome::Invalid(m) => {
                let code = m
                    .lines()
                    .find_map(|l| l.strip_prefix("error[")?.split(']').next())
                    .unwrap_or("");
                format!("invalid {code}")
            }
            Outcome::InterpreterFailed(m) | Outcome::CompilerPanicked(m) => {
                format!("{} {}", self.kind(), m.lines().next().unwrap_or(""))
            }
            _ => self.kind().to_string(),
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Agrees => write!(f, "agrees"),
            Outcome::Differs(d) => write!(f, "differs: {}", d.join("; ")),
            Outcome::Invalid(m)
            | Outcome::InterpreterFailed(m)
            | Outcome::Refused(m)
            | Outcome::CompilerPanicked(m)
            | Outcome::BuildFailed(m)
            | Outcome::RunFailed(m) => write!(f, "{}: {m}", self.kind()),
        }
    }
}

/// The result of one game of a batch.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// The game.
    pub case: Case,
    /// The game's own outcome (`Agrees` when it loaded and interpreted),
    /// then one per strategy of [`STRATEGIES`] (empty when the game itself
    /// failed).
    pub game: Outcome,
    /// Per strategy, in the order of the strategies asked for.
    pub strategies: Vec<(Strategy, Outcome)>,
}

impl Verdict {
    /// The first failure, with the strategy it came from.
    pub fn failure(&self) -> Option<(Option<Strategy>, &Outcome)> {
        if self.game.is_failure() {
            return Some((None, &self.game));
        }
        self.strategies
            .iter()
            .find(|(_, o)| o.is_failure())
            .map(|(s, o)| (Some(*s), o))
    }
}

/// Where batches are built: a crate folder and its cargo target folder.
pub struct Workspace {
    /// The folder holding `batch/` (the crate) and `target/`.
    pub dir: PathBuf,
    /// The runtime crate the batch depends on.
    pub runtime: PathBuf,
}

/// The panic message of a payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".to_string())
}

/// The interpreter's trace of `kif`, and the perft depth it reached.
fn interpreted(case: &Case) -> Result<(gdlc::Loaded, Value, u32), Outcome> {
    let loaded = gdlc::load_bytes(format!("{}.kif", case.name), case.kif.clone().into_bytes())
        .map_err(|e| Outcome::Invalid(e.to_string()))?;
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        catch_limit(|| {
            let mut r = Interpreter::new(&loaded);
            let deadline = Instant::now() + Duration::from_secs_f64(PERFT_SECONDS);
            gdlc::trace::trace(&mut r, &case.name, MAX_DEPTH, Some(deadline), STEPS)
        })
    }));
    let trace = match run {
        Err(payload) => return Err(Outcome::InterpreterFailed(panic_message(&*payload))),
        Ok(Err(limit)) => return Err(Outcome::InterpreterFailed(limit.0)),
        Ok(Ok(Err(e))) => return Err(Outcome::InterpreterFailed(e.to_string())),
        Ok(Ok(Ok(trace))) => trace,
    };
    let depth = trace["perft"]
        .as_array()
        .map_or(1, |l| l.len())
        .saturating_sub(1) as u32;
    Ok((loaded, trace, depth))
}

/// The generated module of `loaded` under `strategy`. The fuzzer's games
/// are far too small for a module with a data file (see
/// `gdlc::compile::generate`); one that needs it is refused.
fn module(loaded: &gdlc::Loaded, strategy: Strategy) -> Result<String, Outcome> {
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        gdlc::compile::generate_with(loaded, strategy, "tables.bin")
    }));
    match run {
        Err(payload) => Err(Outcome::CompilerPanicked(panic_message(&*payload))),
        Ok(Err(e)) => Err(Outcome::Refused(e.to_string())),
        Ok(Ok(generated)) if !generated.data.is_empty() => Err(Outcome::Refused(
            "the module keeps tables in a data file, which the fuzzer's crates do not write".into(),
        )),
        Ok(Ok(generated)) => Ok(generated.code),
    }
}

fn module_name(case: &Case, strategy: Strategy) -> String {
    format!("{}_{}", case.name, strategy_name(strategy))
}

/// The strategy's name as `--strategy` spells it.
pub fn strategy_name(strategy: Strategy) -> &'static str {
    match strategy {
        Strategy::Ground => "ground",
        Strategy::Relational => "relational",
        Strategy::Auto => "auto",
        Strategy::Demand => "demand",
    }
}

/// A game ready for the compiled side.
struct Prepared {
    trace: Value,
    depth: u32,
    /// Per strategy: the module's source, or why there is none.
    modules: Vec<(Strategy, Result<String, Outcome>)>,
}

/// Runs a batch: every game interpreted, compiled under `strategies`,
/// built as one crate, and compared.
pub fn run_batch(ws: &Workspace, cases: &[Case], strategies: &[Strategy]) -> Vec<Verdict> {
    let prepared: Vec<Result<Prepared, Outcome>> = cases
        .iter()
        .map(|case| {
            let (loaded, trace, depth) = interpreted(case)?;
            let modules = strategies
                .iter()
                .map(|&s| (s, module(&loaded, s)))
                .collect();
            Ok(Prepared {
                trace,
                depth,
                modules,
            })
        })
        .collect();
    let mut built: Vec<String> = Vec::new();
    for (case, p) in cases.iter().zip(&prepared) {
        for (s, m) in p.iter().flat_map(|p| &p.modules) {
            if m.is_ok() {
                built.push(module_name(case, *s));
            }
        }
    }
    let sources = |name: &str| -> &str {
        cases
            .iter()
            .zip(&prepared)
            .filter_map(|(c, p)| Some((c, p.as_ref().ok()?)))
            .flat_map(|(c, p)| p.modules.iter().map(move |(s, m)| (module_name(c, *s), m)))
            .find(|(n, _)| n == name)
            .and_then(|(_, m)| m.as_deref().ok())
            .expect("a module of the batch")
    };
    let (binary, build_failures) = build(ws, &built, sources);
    cases
        .iter()
        .zip(prepared)
        .map(|(case, p)| match p {
            Err(outcome) => Verdict {
                case: case.clone(),
                game: outcome,
                strategies: Vec::new(),
            },
            Ok(p) => Verdict {
                case: case.clone(),
                game: Outcome::Agrees,
                strategies: p
                    .modules
                    .into_iter()
                    .map(|(s, m)| {
                        let name = module_name(case, s);
                        let outcome = match (m, build_failures.iter().find(|f| f.0 == name)) {
                            (Err(o), _) => o,
                            (Ok(_), Some(f)) => Outcome::BuildFailed(f.1.clone()),
                            (Ok(_), None) => {
                                compare_compiled(binary.as_deref(), &name, &p.trace, p.depth)
                            }
                        };
                        (s, outcome)
                    })
                    .collect(),
            },
        })
        .collect()
}

/// Runs module `name` of the batch binary and compares its trace with the
/// interpreter's.
fn compare_compiled(binary: Option<&Path>, name: &str, interpreted: &Value, depth: u32) -> Outcome {
    let Some(binary) = binary else {
        return Outcome::BuildFailed("the batch did not build".into());
    };
    let mut cmd = Command::new(binary);
    cmd.arg(name).args([
        "trace",
        "--depth",
        &depth.to_string(),
        "--max-steps",
        &STEPS.to_string(),
    ]);
    let Some(output) = run_limited(&mut cmd, TRACE_LIMIT) else {
        return Outcome::RunFailed(format!("ran past {} s", TRACE_LIMIT.as_secs()));
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Outcome::RunFailed(format!("{}: {}", output.status, stderr.trim()));
    }
    let compiled: Value = match serde_json::from_slice(&output.stdout) {
        Ok(v) => v,
        Err(e) => return Outcome::RunFailed(format!("unreadable trace: {e}")),
    };
    let diffs = gdlc::conformance::compare(&compiled, interpreted);
    if diffs.is_empty() {
        Outcome::Agrees
    } else {
        Outcome::Differs(diffs)
    }
}

/// Writes the batch crate of `modules` (their sources from `source`) and
/// builds it, leaving out modules that do not compile; returns the binary
/// (if any module built) and the modules left out with the compiler's
/// first error.
fn build<'a>(
    ws: &Workspace,
    modules: &[String],
    source: impl Fn(&str) -> &'a str,
) -> (Option<PathBuf>, Vec<(String, String)>) {
    let dir = ws.dir.join("batch");
    let mut included: Vec<String> = modules.to_vec();
    let mut failed: Vec<(String, String)> = Vec::new();
    let _ = std::fs::remove_dir_all(dir.join("src"));
    for m in modules {
        write(&dir.join("src").join(format!("{m}.rs")), source(m));
    }
    while !included.is_empty() {
        write(&dir.join("Cargo.toml"), &manifest(&ws.runtime));
        write(&dir.join("src/main.rs"), &main_rs(&included));
        let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--release", "--quiet", "--message-format=short"])
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", ws.dir.join("target"))
            .output();
        let output = match output {
            Ok(o) => o,
            Err(e) => {
                let all = included.iter().map(|m| (m.clone(), format!("cargo: {e}")));
                failed.extend(all);
                return (None, failed);
            }
        };
        if output.status.success() {
            return (Some(ws.dir.join("target/release/gdlc-fuzz-batch")), failed);
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let broken: Vec<(String, String)> = included
            .iter()
            .filter_map(|m| {
                let prefix = format!("src/{m}.rs:");
                let line = stderr.lines().find(|l| l.starts_with(&prefix))?;
                Some((m.clone(), line.to_string()))
            })
            .collect();
        if broken.is_empty() {
            let all = included
                .iter()
                .map(|m| (m.clone(), stderr.trim().to_string()));
            failed.extend(all);
            return (None, failed);
        }
        included.retain(|m| !broken.iter().any(|b| &b.0 == m));
        failed.extend(broken);
    }
    (None, failed)
}

fn write(path: &Path, content: &str) {
    gdlc::output::write_if_changed(path, content.as_bytes())
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

fn manifest(runtime: &Path) -> String {
    format!(
        "[package]\nname = \"gdlc-fuzz-batch\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\ngdl-runtime = {{ path = {:?} }}\n\n\
         [profile.release]\nopt-level = 1\ndebug = false\ncodegen-units = 16\nincremental = false\n\n[workspace]\n",
        runtime.display().to_string()
    )
}

fn main_rs(modules: &[String]) -> String {
    let mut main = String::from(
        "#![allow(missing_docs, unused, non_snake_case, non_camel_case_types, non_upper_case_globals)]\n\n",
    );
    for m in modules {
        writeln!(main, "mod {m};").unwrap();
    }
    main.push_str(
        "\nfn main() -> std::process::ExitCode {\n    let mut args = std::env::args().skip(1);\n    let game = args.next().unwrap_or_default();\n    match game.as_str() {\n",
    );
    for m in modules {
        writeln!(
            main,
            "        {m:?} => gdl_runtime::cli::run({m}::Game::new(), {m:?}, args),"
        )
        .unwrap();
    }
    main.push_str("        _ => std::process::ExitCode::from(2),\n    }\n}\n");
    main
}
