//! The corpus sweep: every description of `../shared/games` (and the edge
//! cases of `../shared/games-edge`) traced by the `gdlc` binary, each in its
//! own process with a time limit, and compared with its oracle.
//!
//! Long: run it with `cargo test --release -p gdlc --test integration -- --ignored --nocapture --exact corpus::corpus_agrees_with_oracles`.
//! Skipped with a message when `../shared` is absent. Set `GDLC_CORPUS_GAMES`
//! to a comma-separated list of game names to sweep only those, and
//! `GDLC_CORPUS_BACKEND=compiled` to trace with the compiled backend (each
//! game's build counts against its time limit; builds are cached).

use crate::common;
use common::{run_limited, shared};
use gdlc::conformance::{compare, needs};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Wall-clock limit of one game's trace.
const GAME_LIMIT: Duration = Duration::from_secs(60);
/// Part of that limit perft may use before it stops deepening.
const PERFT_SECONDS: f64 = 40.0;
/// Share of the games with a usable oracle that must agree.
const REQUIRED_AGREEMENT: f64 = 0.97;

#[derive(Debug)]
enum Outcome {
    Agrees,
    Differs(Vec<String>),
    Failed(String),
    TimedOut,
}

fn run_game(kif: &Path, oracle: &Value) -> Outcome {
    let (depth, steps) = needs(oracle);
    let mut command = Command::new(common::gdlc_binary());
    command
        .arg("trace")
        .arg(kif)
        .args([
            "--depth",
            &depth.to_string(),
            "--seconds",
            &PERFT_SECONDS.to_string(),
        ])
        .args(["--max-steps", &steps.to_string()])
        .args(
            std::env::var("GDLC_CORPUS_BACKEND")
                .map(|b| vec!["--backend".to_string(), b])
                .unwrap_or_default(),
        );
    let Some(output) = run_limited(&mut command, GAME_LIMIT) else {
        return Outcome::TimedOut;
    };
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        return Outcome::Failed(err.lines().next().unwrap_or("no message").to_string());
    }
    let ours: Value = match serde_json::from_slice(&output.stdout) {
        Ok(v) => v,
        Err(e) => return Outcome::Failed(format!("unreadable trace: {e}")),
    };
    let diffs = compare(&ours, oracle);
    if diffs.is_empty() {
        Outcome::Agrees
    } else {
        Outcome::Differs(diffs)
    }
}

fn sweep(games: &Path, oracles: &Path) -> Vec<(String, Outcome, f64)> {
    let only: Option<Vec<String>> = std::env::var("GDLC_CORPUS_GAMES")
        .ok()
        .map(|s| s.split(',').map(str::to_string).collect());
    let mut names: Vec<String> = std::fs::read_dir(games)
        .expect("games folder")
        .filter_map(|e| {
            let path = e.ok()?.path();
            let stem = path.file_stem()?.to_string_lossy().into_owned();
            (path.extension()? == "kif").then_some(stem)
        })
        .filter(|n| only.as_ref().is_none_or(|o| o.contains(n)))
        .collect();
    names.sort();
    let queue = Mutex::new(names.into_iter());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let Some(name) = queue.lock().unwrap().next() else {
                    break;
                };
                let oracle_path = oracles.join(format!("{name}.json"));
                let Ok(text) = std::fs::read_to_string(&oracle_path) else {
                    println!("{name}: no oracle, skipped");
                    continue;
                };
                let oracle: Value = serde_json::from_str(&text).expect("oracle JSON");
                if oracle.get("error").is_some() {
                    println!("{name}: the oracle reports an error, skipped");
                    continue;
                }
                let start = Instant::now();
                let outcome = run_game(&games.join(format!("{name}.kif")), &oracle);
                let seconds = start.elapsed().as_secs_f64();
                let line = match &outcome {
                    Outcome::Agrees => format!("{name}: agrees ({seconds:.1} s)"),
                    Outcome::Differs(d) => {
                        format!("{name}: DIFFERS ({seconds:.1} s): {}", d.join("; "))
                    }
                    Outcome::Failed(e) => format!("{name}: FAILED ({seconds:.1} s): {e}"),
                    Outcome::TimedOut => format!("{name}: TIMED OUT after {seconds:.0} s"),
                };
                println!("{line}");
                results.lock().unwrap().push((name, outcome, seconds));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    results
}

fn report(title: &str, results: &[(String, Outcome, f64)]) -> f64 {
    let agree = results
        .iter()
        .filter(|r| matches!(r.1, Outcome::Agrees))
        .count();
    println!(
        "\n== {title}: {agree} of {} agree with the oracle",
        results.len()
    );
    for (name, outcome, _) in results {
        if !matches!(outcome, Outcome::Agrees) {
            println!("   {name}: {outcome:?}");
        }
    }
    agree as f64 / results.len().max(1) as f64
}

#[test]
#[ignore = "the corpus sweep takes minutes; run it with --ignored"]
fn corpus_agrees_with_oracles() {
    let Some(shared) = shared("games") else {
        println!("skipped: ../shared (the public corpus) is not beside this checkout");
        return;
    };
    let results = sweep(&shared.join("games"), &shared.join("oracles"));
    let share = report("corpus", &results);
    assert!(
        share >= REQUIRED_AGREEMENT,
        "only {:.1}% of the corpus agrees with the oracles ({:.0}% required)",
        share * 100.0,
        REQUIRED_AGREEMENT * 100.0
    );
}
