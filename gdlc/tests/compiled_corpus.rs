//! The compiled backend over the whole corpus: every description of
//! `../shared/games` (and the project's `games/`) is compiled with
//! `gdlc GAME.kif -o DIR`, all the generated crates are built at once into
//! one binary, and each game's compiled trace is compared with the
//! interpreted one (perft to a small depth and both deterministic playouts)
//! and, where there is one, with the oracle. A generated source over 1 MB
//! fails the sweep.
//!
//! Long: run it with
//! `cargo test --release -p gdlc --test integration -- --ignored --nocapture --exact compiled_corpus::compiled_agrees_with_interpreter_and_oracles`.
//! Skipped with a message when `../shared` is absent. `GDLC_CORPUS_GAMES`
//! restricts it to a comma-separated list of games.

use crate::common;
use common::{run_limited, shared};
use gdlc::conformance::{compare, needs};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Wall-clock limit of `gdlc GAME.kif -o DIR` for one game.
const GENERATE_LIMIT: Duration = Duration::from_secs(60);
/// Largest generated source: a game whose `src/lib.rs` is larger fails the
/// sweep unbuilt (a large module keeps its largest tables in `tables.bin`,
/// and a source this size builds in seconds).
const MAX_SOURCE_BYTES: u64 = 1_000_000;
/// Wall-clock limit of one trace (compiled or interpreted).
const TRACE_LIMIT: Duration = Duration::from_secs(45);
/// Perft depth of the compiled-against-interpreted comparison.
const SMALL_DEPTH: u32 = 2;
/// Playout length of the compiled-against-interpreted comparison.
const SMALL_STEPS: usize = 60;
/// Share of the games compared whose compiled trace must agree with both
/// the interpreter and the oracle.
const REQUIRED_AGREEMENT: f64 = 0.93;

/// Runs `f` on every item with two workers; results in the items' order.
fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                results.lock().unwrap().push((i, r));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.0);
    results.into_iter().map(|r| r.1).collect()
}

fn first_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no message")
        .to_string()
}

/// One game of the sweep.
struct Game {
    name: String,
    kif: PathBuf,
    oracle: Option<Value>,
}

/// What became of a game.
enum Outcome {
    Agrees,
    Differs(String),
    Unsupported(String),
    TooLarge(u64),
    BuildFailed,
    /// Agrees, but perft reached only depth `.0` of the oracle's `.1`.
    Slow(usize, usize),
    Failed(String),
    TimedOut(&'static str),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Agrees => write!(f, "agrees"),
            Outcome::Differs(d) => write!(f, "DIFFERS {d}"),
            Outcome::Unsupported(m) => write!(f, "not compiled: {m}"),
            Outcome::TooLarge(n) => {
                write!(
                    f,
                    "TOO LARGE: a generated source of {n} bytes (at most {MAX_SOURCE_BYTES})"
                )
            }
            Outcome::BuildFailed => write!(f, "BUILD FAILED"),
            Outcome::Slow(reached, wanted) => write!(
                f,
                "agrees, but perft reached depth {reached} of the oracle's {wanted} in its time"
            ),
            Outcome::Failed(m) => write!(f, "FAILED {m}"),
            Outcome::TimedOut(w) => write!(f, "timed out ({w})"),
        }
    }
}

fn trace_args(depth: u32, steps: usize) -> Vec<String> {
    vec![
        "--depth".into(),
        depth.to_string(),
        "--seconds".into(),
        "30".into(),
        "--max-steps".into(),
        steps.to_string(),
    ]
}

fn read_trace(output: Option<Output>, what: &'static str) -> Result<Value, Outcome> {
    let output = output.ok_or(Outcome::TimedOut(what))?;
    if !output.status.success() {
        return Err(Outcome::Failed(format!(
            "{what}: {}",
            first_line(&output.stderr)
        )));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|e| Outcome::Failed(format!("{what}: unreadable trace: {e}")))
}

#[test]
#[ignore = "the compiled corpus sweep takes minutes; run it with --ignored"]
fn compiled_agrees_with_interpreter_and_oracles() {
    let Some(shared) = shared("games") else {
        println!("skipped: ../shared (the public corpus) is not beside this checkout");
        return;
    };
    let only: Option<Vec<String>> = std::env::var("GDLC_CORPUS_GAMES")
        .ok()
        .map(|s| s.split(',').map(str::to_string).collect());
    let project_games = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games");
    let mut games = Vec::new();
    for (dir, oracles) in [
        (shared.join("games"), Some(shared.join("oracles"))),
        (project_games, None),
    ] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("games folder")
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "kif"))
            .collect();
        found.sort();
        for kif in found {
            let name = kif.file_stem().unwrap().to_string_lossy().into_owned();
            if only.as_ref().is_some_and(|o| !o.contains(&name)) {
                continue;
            }
            let oracle = oracles
                .as_ref()
                .and_then(|o| std::fs::read_to_string(o.join(format!("{name}.json"))).ok())
                .map(|t| serde_json::from_str::<Value>(&t).expect("oracle JSON"))
                .filter(|o| o.get("error").is_none());
            let name = if oracles.is_some() {
                name
            } else {
                format!("project-{name}")
            };
            games.push(Game { name, kif, oracle });
        }
    }

    let work = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/compiled-sweep");
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
    let gdlc = &common::gdlc_binary();

    // 1. Generate every crate.
    let start = Instant::now();
    let generated: Vec<Result<String, Outcome>> = parallel(&games, |g| {
        let dir = work.join("games").join(&g.name);
        let out = run_limited(
            Command::new(gdlc)
                .arg(&g.kif)
                .arg("-o")
                .arg(&dir)
                .arg("--runtime-path")
                .arg(&runtime),
            GENERATE_LIMIT,
        );
        match out {
            None => Err(Outcome::TimedOut("gdlc -o")),
            Some(o) if !o.status.success() => Err(Outcome::Unsupported(first_line(&o.stderr))),
            Some(_) => {
                let size = std::fs::metadata(dir.join("src/lib.rs")).map_or(0, |m| m.len());
                if size > MAX_SOURCE_BYTES {
                    return Err(Outcome::TooLarge(size));
                }
                // Package names are the games' names, which may clash
                // between the corpus and the project: give each its own.
                let path = dir.join("Cargo.toml");
                let toml = std::fs::read_to_string(&path).expect("Cargo.toml");
                let package = format!("sweep-{}", g.name.to_lowercase());
                let toml: String = toml
                    .lines()
                    .map(|l| {
                        if l.starts_with("name = ") {
                            format!("name = {package:?}\n")
                        } else {
                            format!("{l}\n")
                        }
                    })
                    .collect();
                std::fs::write(&path, toml).expect("write Cargo.toml");
                Ok(package.replace('-', "_"))
            }
        }
    });
    println!(
        "generated {} of {} crates in {:.0} s",
        generated.iter().filter(|g| g.is_ok()).count(),
        games.len(),
        start.elapsed().as_secs_f64()
    );

    // 2. Build them all into one binary; a crate that fails to build is
    // left out and the binary built again without it.
    let sweep = work.join("sweep");
    let mut included: Vec<usize> = (0..games.len()).filter(|&i| generated[i].is_ok()).collect();
    let mut build_failed: Vec<usize> = Vec::new();
    let start = Instant::now();
    let binary = loop {
        let mut toml = String::from(
            "[package]\nname = \"gdlc-compiled-sweep\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\n",
        );
        writeln!(
            toml,
            "gdl-runtime = {{ path = {:?} }}",
            runtime.display().to_string()
        )
        .unwrap();
        let mut main = String::from(
            "fn main() -> std::process::ExitCode {\n    let mut args = std::env::args().skip(1);\n    let game = args.next().unwrap_or_default();\n    match game.as_str() {\n",
        );
        for &i in &included {
            let dir = work.join("games").join(&games[i].name);
            writeln!(
                toml,
                "g{i} = {{ path = {:?}, package = \"sweep-{}\" }}",
                dir.display().to_string(),
                games[i].name.to_lowercase()
            )
            .unwrap();
            writeln!(
                main,
                "        {:?} => gdl_runtime::cli::run(g{i}::Game::new(), {:?}, args),",
                games[i].name, games[i].name
            )
            .unwrap();
        }
        main.push_str("        _ => std::process::ExitCode::from(2),\n    }\n}\n");
        toml.push_str(
            "\n[profile.release]\nopt-level = 1\ndebug = false\ncodegen-units = 16\nincremental = false\n\n[workspace]\n",
        );
        std::fs::create_dir_all(sweep.join("src")).unwrap();
        for (path, content) in [("Cargo.toml", &toml), ("src/main.rs", &main)] {
            let path = sweep.join(path);
            if std::fs::read_to_string(&path).ok().as_ref() != Some(content) {
                std::fs::write(&path, content).unwrap();
            }
        }
        let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--release", "--keep-going"])
            .current_dir(&sweep)
            .env("CARGO_TARGET_DIR", work.join("target"))
            .output()
            .expect("run cargo");
        if output.status.success() {
            break sweep.join("../target/release/gdlc-compiled-sweep");
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let failed: Vec<usize> = included
            .iter()
            .copied()
            .filter(|&i| {
                let package = format!("sweep-{}", games[i].name.to_lowercase());
                stderr.contains(&format!("could not compile `{package}`"))
            })
            .collect();
        assert!(
            !failed.is_empty(),
            "the sweep binary failed to build:\n{stderr}"
        );
        for i in &failed {
            println!("{}: BUILD FAILED", games[*i].name);
        }
        included.retain(|i| !failed.contains(i));
        build_failed.extend(failed);
    };
    println!(
        "built {} crates in {:.0} s",
        included.len(),
        start.elapsed().as_secs_f64()
    );

    // 3. Compare: compiled against interpreted on a small trace, and
    // against the oracle on everything the oracle has.
    let outcomes: Vec<Outcome> = parallel(&(0..games.len()).collect::<Vec<_>>(), |&i| {
        let g = &games[i];
        match &generated[i] {
            Err(Outcome::Unsupported(m)) => return Outcome::Unsupported(m.clone()),
            Err(Outcome::TooLarge(n)) => return Outcome::TooLarge(*n),
            Err(Outcome::TimedOut(w)) => return Outcome::TimedOut(w),
            Err(_) => unreachable!("generation fails in these ways only"),
            Ok(_) if build_failed.contains(&i) => return Outcome::BuildFailed,
            Ok(_) => {}
        }
        let small = trace_args(SMALL_DEPTH, SMALL_STEPS);
        let compiled = run_limited(
            Command::new(&binary).arg(&g.name).arg("trace").args(&small),
            TRACE_LIMIT,
        );
        let interpreted = run_limited(
            Command::new(gdlc).arg("trace").arg(&g.kif).args(&small),
            TRACE_LIMIT,
        );
        let interpreted = match read_trace(interpreted, "interpreted") {
            Ok(v) => v,
            Err(o) => return o,
        };
        let compiled = match read_trace(compiled, "compiled") {
            Ok(v) => v,
            Err(o) => return o,
        };
        let diffs = compare(&compiled, &interpreted);
        if !diffs.is_empty() {
            return Outcome::Differs(format!("against interpreted: {}", diffs.join("; ")));
        }
        let Some(oracle) = &g.oracle else {
            return Outcome::Agrees;
        };
        let (depth, steps) = needs(oracle);
        let full = run_limited(
            Command::new(&binary)
                .arg(&g.name)
                .arg("trace")
                .args(trace_args(depth, steps)),
            TRACE_LIMIT,
        );
        let full = match read_trace(full, "compiled") {
            Ok(v) => v,
            Err(o) => return o,
        };
        // A perft the compiled reasoner did not finish in its time is
        // compared over the depths it did finish.
        let reached = full["perft"].as_array().map_or(0, Vec::len);
        let mut oracle = oracle.clone();
        let wanted = oracle["perft"].as_array().map_or(0, Vec::len);
        if reached < wanted {
            if let Some(levels) = oracle["perft"].as_array_mut() {
                levels.truncate(reached);
            }
        }
        let diffs = compare(&full, &oracle);
        if !diffs.is_empty() {
            Outcome::Differs(format!("against the oracle: {}", diffs.join("; ")))
        } else if reached < wanted {
            Outcome::Slow(reached.saturating_sub(1), wanted - 1)
        } else {
            Outcome::Agrees
        }
    });

    let mut agree = 0;
    let mut differs = Vec::new();
    let mut too_large = Vec::new();
    println!("\n== compiled sweep");
    for (g, outcome) in games.iter().zip(&outcomes) {
        match outcome {
            Outcome::Agrees => agree += 1,
            Outcome::Differs(_) => {
                differs.push(g.name.clone());
                println!("   {}: {outcome}", g.name);
            }
            Outcome::TooLarge(_) => {
                too_large.push(g.name.clone());
                println!("   {}: {outcome}", g.name);
            }
            _ => println!("   {}: {outcome}", g.name),
        }
    }
    let share = agree as f64 / games.len().max(1) as f64;
    println!(
        "== {agree} of {} games agree (compiled = interpreted at depth {SMALL_DEPTH} and = oracle); {} differ",
        games.len(),
        differs.len()
    );
    assert!(
        differs.is_empty(),
        "the compiled reasoner gives different answers on {differs:?}"
    );
    assert!(
        too_large.is_empty(),
        "generated sources over {MAX_SOURCE_BYTES} bytes: {too_large:?}"
    );
    assert!(
        share >= REQUIRED_AGREEMENT,
        "only {:.1}% of the games agree ({:.0}% required)",
        share * 100.0,
        REQUIRED_AGREEMENT * 100.0
    );
}
