//! Match-time compilation through [`Engines`]: a build that fails leaves
//! the interpreter searching; a build that succeeds (ignored by default:
//! a cold cache builds the worker in release, minutes on two cores; run
//! with `cargo test --release -p gdlc-e2e --test match_time_compilation -- --ignored`) hands the
//! search to the compiled worker, which follows the joint moves played;
//! and a GDL-II game's worker chooses from the steps it was told.

use gdlc_player::engines::Engines;
use gdlc_player::unseen::Unseen;
use gdlc_player::workers::Workers;
use gdlc_player::{default_settings, InterpreterLoader, Loader};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn tictactoe() -> String {
    let path = format!("{}/../games/tictactoe.kif", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

fn engines(loader: &InterpreterLoader, compile: Option<gdlc_player::Compile>) -> Engines {
    let factory = loader.load(&tictactoe()).unwrap();
    let settings = default_settings(1);
    let stop = Arc::new(AtomicBool::new(false));
    let workers = Workers::start(&factory, 0, 1, 10_000, stop, false);
    Engines::new(workers, compile, 0, settings)
}

/// Polls until `done` or `limit` passes.
fn wait(engines: &mut Engines, limit: Duration, done: impl Fn(&Engines) -> bool) {
    let started = Instant::now();
    while !done(engines) && started.elapsed() < limit {
        engines.poll();
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_failed_build_leaves_the_interpreter_searching() {
    let loader = InterpreterLoader::default();
    let mut engines = engines(&loader, Some(Box::new(|| Err("no cargo here".into()))));
    // Stops as soon as the interpreter has searched; the limit is for a
    // loaded machine.
    let visits = |e: &Engines| -> u64 { e.merged(0).iter().map(|m| m.1).sum() };
    wait(&mut engines, Duration::from_secs(30), |e| visits(e) > 0);
    engines.poll();
    assert!(!engines.compiled_in_use());
    assert!(visits(&engines) > 0);
}

/// The cache the compiled tests build in.
fn cache() -> gdlc::backend::Cache {
    let cache = std::env::var_os("GDLC_CACHE_DIR").map_or_else(
        || format!("{}/../target/player-test-cache", env!("CARGO_MANIFEST_DIR")).into(),
        std::path::PathBuf::from,
    );
    gdlc::backend::Cache::new(cache)
}

#[test]
#[ignore]
fn a_built_worker_takes_over_the_search() {
    let loader = InterpreterLoader {
        cache: Some(cache()),
    };
    let compile = loader.compiler(&tictactoe());
    assert!(compile.is_some());
    let mut engines = engines(&loader, compile);
    // One joint move before the worker exists: it is replayed to it.
    engines.advance(vec!["(mark 2 2)".into(), "noop".into()]);
    wait(
        &mut engines,
        Duration::from_secs(1200),
        Engines::compiled_in_use,
    );
    assert!(engines.compiled_in_use(), "no switch within 20 minutes");
    engines.advance(vec!["noop".into(), "(mark 1 1)".into()]);
    wait(&mut engines, Duration::from_secs(5), |e| {
        !e.merged(2).is_empty()
    });
    let merged = engines.merged(2);
    // xplayer to move, with 7 free squares, none of them the two marked.
    assert_eq!(merged.len(), 7, "{merged:?}");
    assert!(merged
        .iter()
        .all(|m| m.0 != "(mark 2 2)" && m.0 != "(mark 1 1)"));
}

#[test]
#[ignore]
fn the_warm_up_builds_and_a_worker_measures_a_technique() {
    let cache = cache();
    gdlc_player::compile::warm_up(&cache).unwrap();
    let worker = gdlc_player::compile::build_worker(&cache, &tictactoe()).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(&worker)
            .arg("self-play")
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&[
        "--technique",
        "mast",
        "--iterations",
        "300",
        "--matches",
        "2",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("match 2: mast as oplayer: goals ["), "{text}");
    let summary = text.lines().last().unwrap();
    assert!(
        summary.starts_with("mast on one side: mean goal "),
        "{summary}"
    );
    assert!(
        summary.contains("over 2 matches (300 iterations a move)"),
        "{summary}"
    );
    let out = run(&["--technique", "telepathy"]);
    assert_eq!(out.status.code(), Some(2));
    let error = String::from_utf8(out.stderr).unwrap();
    assert!(
        error.contains(
            "unknown technique `telepathy` (known: solver, mast, transpositions, grave, minimax, factoring, heuristic, greedy)"
        ),
        "{error}"
    );
}

#[test]
#[ignore]
fn a_gdl_ii_worker_searches_on_the_compiled_reasoner() {
    let path = format!(
        "{}/../games/gdl-ii/montyhall.kif",
        env!("CARGO_MANIFEST_DIR")
    );
    let description = std::fs::read_to_string(path).unwrap();
    let worker = gdlc_player::compile::build_worker(&cache(), &description).unwrap();
    let (built, pending) = std::sync::mpsc::channel();
    let mut unseen = Unseen::new(pending, 0);
    // A step taken in before the worker runs is replayed to it.
    unseen.seen("(choose 1)".into(), Vec::new());
    assert!(unseen.choose(Instant::now()).is_none(), "no worker yet");
    built.send(Ok(worker)).unwrap();
    unseen.poll();
    unseen.seen("noop".into(), vec!["3".into()]);
    let deadline = Instant::now() + Duration::from_millis(500);
    let (text, value, iterations) = unseen.choose(deadline).expect("a move in time");
    assert!(Instant::now() <= deadline + Duration::from_millis(50));
    assert_eq!(text, "switch");
    assert!(
        value > 50.0 && iterations > 1000,
        "{value} over {iterations}"
    );
}
