//! Generated crates and the compiled backend, end to end: `gdlc GAME -o DIR`
//! writes a crate that builds and counts like the interpreter, and
//! `--backend compiled` prints what the interpreter prints.
//!
//! The tests that build need cargo (`$CARGO`, set by `cargo test`, else
//! `cargo` on the `PATH`) and are skipped with a message without it. Builds
//! go to one cache beside the test binaries (`<target>/gdlc-test-cache`),
//! shared by the tests and kept between runs, so the runtime is compiled
//! once.

use crate::common;

use common::{cargo, gdlc_cached, gdlc_with, project_game, project_game_path, test_cache, Run};
use gdlc::backend::{Cache, Prepared};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

/// Builds the emitted crate in `dir` (binary `name`) with `cargo` into the
/// tests' cache; the path of its binary.
fn build(cargo: &str, dir: &Path, name: &str) -> PathBuf {
    let build = Command::new(cargo)
        .args(["build", "--release", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", test_cache().join("target"))
        .envs(common::TEST_RELEASE_PROFILE)
        .output()
        .expect("run cargo");
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    test_cache()
        .join("target/release")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// Runs the compiled `binary`'s perft to `depth` and checks its counts
/// against the interpreter's on `game`; the interpreter's report.
fn perft_like_interpreter(binary: &Path, game: &str, depth: &str) -> serde_json::Value {
    let ours: Run = Command::new(binary)
        .args(["perft", "--depth", depth, "--json"])
        .output()
        .expect("run the generated binary")
        .into();
    assert_eq!(ours.code, 0, "{}", ours.stderr);
    let reference = gdlc_cached(&["perft", game, "--depth", depth, "--json"]).json();
    assert_eq!(ours.json()["levels"], reference["levels"], "{game}");
    reference
}

/// The perft text without its last line, which has the time.
fn counts(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    lines[..lines.len().saturating_sub(1)].to_vec()
}

/// `gdlc GAME -o DIR` with its arguments `args` after the game and the
/// folder, the crate depending on the checkout's runtime, so that the
/// crates the tests build share one build of it.
fn emit_sharing_the_runtime(game: &str, dir: &Path, args: &[&str]) -> Run {
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
    let (dir, runtime) = (dir.to_str().unwrap(), runtime.to_str().unwrap());
    let mut all = vec![game, "-o", dir, "--runtime-path", runtime];
    all.extend_from_slice(args);
    gdlc_cached(&all)
}

/// By default the crate carries the runtime (`gdl-runtime/`) and names no
/// path outside its folder: moved elsewhere, it builds and counts like the
/// interpreter. It is built inside the gdlc workspace's folder: it must be
/// its own workspace.
#[test]
fn an_emitted_crate_stands_alone_and_counts_like_the_interpreter() {
    let Some(cargo) = cargo() else { return };
    // A fixed place, so that each run replaces the runtime build of the
    // last in the tests' shared target folder.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/standalone-crate");
    let (written, out) = (root.join("written"), root.join("moved"));
    for dir in [&written, &out] {
        let _ = std::fs::remove_dir_all(dir);
    }
    let run = gdlc_cached(&[&project_game("tictactoe")]);
    assert_eq!(run.code, 2, "GAME without -o is a usage error");
    let run = gdlc_cached(&[&project_game("tictactoe"), "-o", written.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("crate `tictactoe`"), "{}", run.stdout);
    std::fs::rename(&written, &out).unwrap();
    let manifest = std::fs::read_to_string(out.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("gdl-runtime = { path = \"gdl-runtime\" }"),
        "{manifest}"
    );
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    for file in ["Cargo.toml", "gdl-runtime/Cargo.toml"] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(!text.contains(checkout.to_str().unwrap()), "{file}: {text}");
    }
    let binary = build(&cargo, &out, "tictactoe");
    let ours: Run = Command::new(&binary)
        .args(["perft", "--depth", "5", "--json"])
        .output()
        .expect("run the generated binary")
        .into();
    let ours = ours.json();
    let reference = gdlc_cached(&[
        "perft",
        &project_game("tictactoe"),
        "--depth",
        "5",
        "--json",
    ])
    .json();
    assert_eq!(ours["levels"], reference["levels"]);
    assert_eq!(
        (&ours["game"], &ours["backend"]),
        (&"tictactoe".into(), &"compiled".into())
    );
    let usage: Run = Command::new(&binary).arg("perft").output().unwrap().into();
    assert_eq!(usage.code, 2, "{}", usage.stderr);
    assert!(
        usage.stderr.contains("needs `--depth D`"),
        "{}",
        usage.stderr
    );
}

#[test]
fn the_compiled_backend_prints_what_the_interpreter_prints() {
    if cargo().is_none() {
        return;
    }
    let g = project_game("tictactoe");
    let both = |args: &[&str]| {
        let compiled: Vec<&str> = args
            .iter()
            .copied()
            .chain(["--backend", "compiled"])
            .collect();
        (gdlc_cached(args), gdlc_cached(&compiled))
    };
    let (interpreted, compiled) = both(&["perft", &g, "--depth", "5"]);
    assert_eq!(compiled.code, 0, "{}", compiled.stderr);
    assert_eq!(counts(&compiled.stdout), counts(&interpreted.stdout));
    let (interpreted, compiled) = both(&["perft", &g, "--depth", "4", "--json"]);
    let (i, c) = (interpreted.json(), compiled.json());
    for key in ["game", "depth", "nodes", "leaves", "levels"] {
        assert_eq!(c[key], i[key], "{key}");
    }
    assert_eq!(
        (&i["backend"], &c["backend"]),
        (&"interpreted".into(), &"compiled".into())
    );
    // The trace has no timing and no backend name: byte for byte the same.
    let (interpreted, compiled) = both(&["trace", &g, "--depth", "3", "--max-steps", "20"]);
    assert_eq!(compiled.code, 0, "{}", compiled.stderr);
    assert_eq!(compiled.stdout, interpreted.stdout);
    let (interpreted, compiled) = both(&["mc", &g, "--playouts", "30", "--seed", "4", "--json"]);
    let (i, c) = (interpreted.json(), compiled.json());
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&c), keys(&i));
    assert_eq!(c["playouts"], 30);
    let run = gdlc_cached(&["check", &g, "--backend", "compiled"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("valid (0 errors"), "{}", run.stdout);
    assert!(run.stdout.contains(": compiled ("), "{}", run.stdout);
}

#[test]
fn runtime_errors_of_the_compiled_reasoner_pass_through() {
    if cargo().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stuck.kif");
    std::fs::write(
        &path,
        "(role a)\n(init p)\n(<= (legal a go) (true q))\n(<= (next q) (true p))\n(<= terminal (true r))\n(goal a 100)\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let run = gdlc_cached(&["perft", p, "--depth", "2", "--backend", "compiled"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("role `a` has no legal move in a non-terminal state"),
        "{}",
        run.stderr
    );
}

#[cfg(unix)]
#[test]
fn a_failed_build_names_the_generated_source() {
    let cache = tempfile::tempdir().unwrap();
    let run = gdlc_with(
        &[
            "perft",
            &project_game("tictactoe"),
            "--depth",
            "1",
            "--backend",
            "compiled",
        ],
        cache.path(),
        &[("CARGO", "false")],
    );
    assert_eq!(run.code, 1, "{}", run.stdout);
    // The build says what it does first, terminal or not.
    assert!(
        run.stderr
            .starts_with("gdlc: building the compiled reasoner in "),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("building the compiled reasoner failed"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("src/lib.rs`"), "{}", run.stderr);
}

/// Puts a file at the binary of `prepared`, modified at `when`, as a build
/// would (only its time matters to the cache).
fn fake_build(prepared: &Prepared, when: SystemTime) {
    std::fs::create_dir_all(prepared.binary.parent().unwrap()).unwrap();
    let file = std::fs::File::create(&prepared.binary).unwrap();
    file.set_modified(when).unwrap();
}

#[test]
fn a_game_seen_before_is_not_generated_again() {
    let root = tempfile::tempdir().unwrap();
    let cache = Cache::new(root.path());
    let loaded = gdlc::load_path(&project_game_path("tictactoe")).unwrap();
    let prepare = || cache.prepare(&loaded, "tictactoe").unwrap();
    let first = prepare();
    assert!(first.generated && !first.fresh);
    let unbuilt = prepare();
    assert!(
        !unbuilt.generated && !unbuilt.fresh,
        "no binary: built, not generated"
    );
    fake_build(&first, SystemTime::now() + Duration::from_secs(60));
    let warm = prepare();
    assert!(!warm.generated && warm.fresh, "built: used as it is");
    let record = first.dir.join(".gdlc-generated");
    let text = std::fs::read_to_string(&record).unwrap();
    let exe = std::env::current_exe().unwrap();
    assert!(
        text.contains(&format!("\ngenerator {}\n", exe.display())),
        "{text}"
    );
    // Another build of gdlc: its record has another size.
    std::fs::write(&record, text.replacen("\nsize ", "\nsize 1", 1)).unwrap();
    let other = prepare();
    assert!(
        other.generated && other.fresh,
        "the same files: the binary stays fresh"
    );
    assert_eq!(std::fs::read_to_string(&record).unwrap(), text);
    assert!(
        !prepare().generated,
        "the record names this executable again"
    );
    // A file edited since: generated again, and the edit undone.
    let lib = std::fs::read_to_string(first.source()).unwrap();
    std::fs::write(first.source(), format!("{lib}\n")).unwrap();
    assert!(prepare().generated, "a changed file");
    assert_eq!(std::fs::read_to_string(first.source()).unwrap(), lib);
    std::fs::remove_file(first.dir.join("src/main.rs")).unwrap();
    assert!(prepare().generated, "a missing file");
    std::fs::remove_file(&record).unwrap();
    assert!(prepare().generated, "no record");
    assert!(!prepare().generated, "the record is written again");
    fake_build(&first, SystemTime::UNIX_EPOCH + Duration::from_secs(1));
    let stale = prepare();
    assert!(
        !stale.generated && !stale.fresh,
        "a binary older than its sources"
    );
}

#[test]
fn emitting_twice_gives_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for out in [&a, &b, &a] {
        let run = gdlc_cached(&[&project_game("connectfour"), "-o", out.to_str().unwrap()]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let carried = gdlc::output::runtime_files();
    let runtime = carried.iter().map(|(f, _)| format!("gdl-runtime/{f}"));
    let files: Vec<String> = ["Cargo.toml", "src/lib.rs", "src/main.rs"]
        .map(String::from)
        .into_iter()
        .chain(runtime)
        .collect();
    for file in &files {
        let read = |d: &Path| std::fs::read(d.join(file)).unwrap();
        assert!(read(&a) == read(&b), "{file} differs between two runs");
    }
    let before = std::fs::metadata(a.join("src/lib.rs"))
        .unwrap()
        .modified()
        .unwrap();
    let run = gdlc_cached(&[&project_game("connectfour"), "-o", a.to_str().unwrap()]);
    let unchanged = format!("(0 of {} files changed)", files.len());
    assert!(run.stdout.contains(&unchanged), "{}", run.stdout);
    let after = std::fs::metadata(a.join("src/lib.rs"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after, "an unchanged file is not rewritten");
    let header = std::fs::read_to_string(a.join("src/lib.rs")).unwrap();
    assert!(
        header.starts_with("// @generated by gdlc ")
            && header
                .lines()
                .next()
                .unwrap()
                .contains("from connectfour.kif, fnv1a64 "),
        "{}",
        header.lines().next().unwrap()
    );
}

#[test]
fn no_generated_code_uses_unsafe() {
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games");
    let mut seen = 0;
    for entry in std::fs::read_dir(&games).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "kif") {
            continue;
        }
        let loaded = gdlc::load_path(&path).unwrap_or_else(|e| panic!("{e}"));
        let code = gdlc::output::module_source(&loaded, gdlc::compile::Strategy::Auto, "t.bin")
            .unwrap_or_else(|e| panic!("{e}"))
            .code;
        assert!(!code.contains("unsafe"), "{} uses unsafe", path.display());
        seen += 1;
    }
    assert!(seen >= 5, "only {seen} games in {}", games.display());
}

/// A one-dimensional amazons on 30 cells: the piece slides right over open
/// cells, then shoots an arrow along the line, either way, over open cells
/// and the cell it left. `walk` is a right-linear recursion that passes its
/// end on unchanged, called with its start bound (the arrows to the right)
/// and with its end bound (those to the left).
fn line_game() -> String {
    let mut text = String::from("(role a)\n(init (at 1))\n");
    for x in 2..=30 {
        if x % 13 != 0 {
            text += &format!("(init (open {x}))\n");
        }
    }
    for x in 1..30 {
        text += &format!("(succ {x} {})\n", x + 1);
    }
    for x in 1..=30 {
        text += &format!("(cell {x})\n");
    }
    text += "(<= (free ?x) (true (open ?x)))\n\
        (<= (ray ?x1 ?x3) (succ ?x1 ?x2) (free ?x2) (ray ?x2 ?x3))\n\
        (<= (ray ?x1 ?x2) (succ ?x1 ?x2))\n\
        (<= (walk ?ig ?x1 ?x3) (succ ?x1 ?x2) (free ?x2) (walk ?ig ?x2 ?x3))\n\
        (<= (walk ?x2 ?x1 ?x3) (succ ?x1 ?x2) (walk ?x2 ?x2 ?x3))\n\
        (<= (walk ?ig ?x1 ?x2) (succ ?x1 ?x2) (cell ?ig))\n\
        (<= (shot ?ig ?x1 ?x2) (walk ?ig ?x1 ?x2))\n\
        (<= (shot ?ig ?x1 ?x2) (walk ?ig ?x2 ?x1))\n\
        (<= (legal a (play ?x1 ?x2 ?x3)) (true (at ?x1)) (ray ?x1 ?x2) (free ?x2) \
            (shot ?x1 ?x2 ?x3) (free ?x3))\n\
        (<= (legal a (play ?x1 ?x2 ?x1)) (true (at ?x1)) (ray ?x1 ?x2) (free ?x2))\n\
        (<= (next (at ?x2)) (does a (play ?x1 ?x2 ?x3)))\n\
        (<= (next (open ?x)) (true (open ?x)) (does a (play ?x1 ?x2 ?x3)) \
            (distinct ?x ?x2) (distinct ?x ?x3))\n\
        (<= (next (open ?x1)) (does a (play ?x1 ?x2 ?x3)) (distinct ?x1 ?x3))\n\
        (<= canmove (true (at ?x1)) (ray ?x1 ?x2) (free ?x2))\n\
        (<= terminal (not canmove))\n\
        (<= (goal a 100) (true (at 30)))\n\
        (<= (goal a 0) (not (true (at 30))))\n";
    text
}

#[test]
fn a_factored_walk_counts_like_the_interpreter() {
    let Some(cargo) = cargo() else { return };
    let parent = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&parent).unwrap();
    let dir = tempfile::tempdir_in(&parent).unwrap();
    let path = dir.path().join("line.kif");
    std::fs::write(&path, line_game()).unwrap();
    let p = path.to_str().unwrap();
    let explain = gdlc_cached(&["explain", p, "--strategy", "relational"]);
    assert_eq!(explain.code, 0, "{}", explain.stderr);
    assert!(
        explain.stdout.contains(
            "walk/3 called `bbf` -> walk/3[bbf] (bindings in walk/2[magic bbf]), right-linear"
        ),
        "{}",
        explain.stdout
    );
    let out = dir.path().join("crate");
    let run = emit_sharing_the_runtime(p, &out, &["--strategy", "relational"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let binary = build(&cargo, &out, "line");
    let reference = perft_like_interpreter(&binary, p, "3");
    // Not a tree too small to tell: 29 073 positions three plies deep.
    assert!(reference["leaves"].as_u64() > Some(20_000), "{reference}");
}

/// A `next` rule that never fires (no legal move is `(m1 1)`), whose
/// ground head is therefore no possible fluent: its fluent id, a
/// constant past the state's words, must not be written into them (the
/// crate did not build: the fuzzer's seed 5210, shrunk).
#[test]
fn a_next_rule_that_never_fires_builds_and_counts_like_the_interpreter() {
    let Some(cargo) = cargo() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("never.kif");
    let text = "(role white) (val 0) (val 1) (val 2) (val 3)
        (<= (legal ?r (m0 (p ?a ?b) ?c)) (role ?r) (val ?a) (val ?b) (val ?c))
        (<= (next (f0 (p 0 0) 2)) (does ?r (m1 1)))
        (<= (next (f0 (p 1 1) 3)) (does ?r (m0 (p 1 1) 3)))
        (<= terminal (true (f0 (p 1 1) 3)))
        (<= (goal white 100) (true (f0 (p 1 1) 3)))
        (<= (goal white 0) (not (true (f0 (p 1 1) 3))))";
    std::fs::write(&path, text).unwrap();
    let p = path.to_str().unwrap();
    for strategy in ["relational", "demand"] {
        let out = dir.path().join(strategy);
        let run = emit_sharing_the_runtime(p, &out, &["--strategy", strategy]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let binary = build(&cargo, &out, "never");
        perft_like_interpreter(&binary, p, "3");
    }
}

/// A one-role counter of 20 001 fluents: its generated source would be
/// over a megabyte with its term texts and Zobrist keys written out, so
/// they are in the crate's data file.
fn counter_game() -> String {
    let mut text = String::from(
        "(role a) (init (count 0)) (legal a tick)
         (<= (next (count ?y)) (true (count ?x)) (succ ?x ?y))
         (<= terminal (true (count 20000))) (goal a 100)",
    );
    for i in 0..20_000 {
        text += &format!(" (succ {i} {})", i + 1);
    }
    text
}

#[test]
fn a_crate_with_a_data_file_builds_and_plays() {
    let Some(cargo) = cargo() else { return };
    let parent = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&parent).unwrap();
    let dir = tempfile::tempdir_in(&parent).unwrap();
    let path = dir.path().join("counter.kif");
    std::fs::write(&path, counter_game()).unwrap();
    let out = dir.path().join("crate");
    let run = emit_sharing_the_runtime(path.to_str().unwrap(), &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(out.join("src/tables.bin").exists());
    let binary = build(&cargo, &out, "counter");
    let run = |args: &[&str]| -> Run { Command::new(&binary).args(args).output().unwrap().into() };
    let perft = run(&["perft", "--depth", "3", "--json"]).json();
    assert_eq!(perft["levels"][3]["leaves"], 1, "{perft}");
    assert_eq!(perft["nodes"], 4, "{perft}");
    // One playout: the 20 001 states of the counter, then goal 100.
    let mc = run(&["mc", "--playouts", "1", "--threads", "1", "--json"]).json();
    assert_eq!(mc["states"], 20_001, "{mc}");
    assert_eq!(mc["mean_goals"]["a"], 100.0, "{mc}");
}

#[test]
fn mc_on_threads_counts_like_the_interpreter() {
    if cargo().is_none() {
        return;
    }
    let g = project_game("tictactoe");
    let args = [
        "mc",
        &g,
        "--playouts",
        "41",
        "--seed",
        "9",
        "--threads",
        "2",
        "--json",
    ];
    let interpreted = gdlc_cached(&args).json();
    let compiled = gdlc_cached(&[&args[..], &["--backend", "compiled"]].concat()).json();
    assert_eq!(compiled["backend"], "compiled");
    for key in ["playouts", "states", "mean_goals", "threads", "truncated"] {
        assert_eq!(compiled[key], interpreted[key], "{key}");
    }
    let counts = |v: &serde_json::Value| -> Vec<(u64, u64)> {
        let threads = v["per_thread"].as_array().expect("per_thread");
        threads
            .iter()
            .map(|t| {
                (
                    t["playouts"].as_u64().unwrap(),
                    t["states"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(counts(&compiled), counts(&interpreted));
    assert_eq!(counts(&compiled).len(), 2);
}

/// `tests/ggp-base/tictactoe.kif`: `games/tictactoe.kif` in ggp-base's
/// printed form, as gdl-perf hands it to an engine.
fn ggp_base_tictactoe() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ggp-base/tictactoe.kif");
    path.to_str().unwrap().to_string()
}

#[test]
fn gdl_perf_runs_the_compiled_reasoner() {
    if cargo().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let game = ggp_base_tictactoe();
    let out = dir.path().join("out.txt");
    let o = out.to_str().unwrap();
    let read = || std::fs::read_to_string(&out).unwrap();
    let run = gdlc_cached(&["gdl-perf", &game, o, "1"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = read();
    let lines: Vec<(&str, &str)> = text.lines().map(|l| l.split_once(" = ").unwrap()).collect();
    let keys: Vec<&str> = lines.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        keys,
        [
            "version",
            "millisecondsTaken",
            "numStateChanges",
            "numRollouts"
        ]
    );
    assert_eq!(
        lines[0].1,
        format!("gdlc {} compiled", env!("CARGO_PKG_VERSION"))
    );
    let (changes, rollouts): (u64, u64) =
        (lines[2].1.parse().unwrap(), lines[3].1.parse().unwrap());
    // Every rollout of tic-tac-toe is 5 to 9 joint moves.
    assert!(
        rollouts > 0 && (5 * rollouts..=9 * rollouts).contains(&changes),
        "{text}"
    );
    // The record of the compiled reasoner is the interpreter's, which
    // `cli.rs` checks against the rules of tic-tac-toe.
    for seed in ["0", "7"] {
        let record = |backend: &str| {
            let args = ["gdl-perf", &game, o, "30", "--correctness", "--seed", seed];
            let run = gdlc_cached(&[&args[..], &["--backend", backend]].concat());
            assert_eq!(run.code, 0, "{}", run.stderr);
            read()
        };
        let compiled = record("compiled");
        assert!(
            compiled.starts_with("!R!xplayer,oplayer\n!T!false\n") && compiled.ends_with("\n!F!\n")
        );
        assert_eq!(compiled, record("interpreted"), "seed {seed}");
    }
    let stuck = dir.path().join("stuck.kif");
    std::fs::write(
        &stuck,
        "( role a )\n( init p )\n( <= ( legal a go ) ( true q ) )\n( <= ( next q ) ( true p ) )\n( <= terminal ( true r ) )\n( goal a 100 )\n",
    )
    .unwrap();
    let s = stuck.to_str().unwrap();
    let run = gdlc_cached(&["gdl-perf", s, o, "1"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(read().contains("\nerrorMessage = the compiled reasoner stopped with exit status: 1: role `a` has no legal move"), "{}", read());
    let run = gdlc_cached(&["gdl-perf", s, o, "1", "--correctness"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(
        read(),
        "!R!a\n!T!false\n!E!role `a` has no legal move in a non-terminal state\n!F!\n"
    );
}

/// `big` has 8^7 (about 2.1 million) facts, more than the compiler
/// tabulates: allowed squares 1, 3 and 9 in the state, each move takes one
/// whose `big` fact holds (not 9, outside `index`).
fn big_static_game() -> String {
    let index: String = (1..=8).map(|i| format!(" (index {i})")).collect();
    format!(
        "(role p) {index}
         (<= (big ?a ?b ?c ?d ?e ?f ?g)
             (index ?a) (index ?b) (index ?c) (index ?d) (index ?e) (index ?f) (index ?g))
         (init (allowed 1)) (init (allowed 3)) (init (allowed 9))
         (<= (legal p (go ?x)) (true (allowed ?x)) (big ?x 2 3 4 5 6 7))
         (<= (next (allowed ?y)) (true (allowed ?y)) (does p (go ?x)) (distinct ?x ?y))
         (<= has_move (true (allowed ?x)) (big ?x 2 3 4 5 6 7))
         (<= terminal (not has_move))
         (goal p 100)"
    )
}

#[test]
fn a_static_relation_too_large_to_tabulate_is_compiled_on_demand() {
    if cargo().is_none() {
        return;
    }
    let parent = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&parent).unwrap();
    let dir = tempfile::tempdir_in(&parent).unwrap();
    let path = dir.path().join("big_static.kif");
    std::fs::write(&path, big_static_game()).unwrap();
    let run = gdlc_cached(&[
        "perft",
        path.to_str().unwrap(),
        "--depth",
        "3",
        "--json",
        "--backend",
        "compiled",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let perft = run.json();
    // (go 1) or (go 3); then the other one; then only 9 is left: terminal,
    // so the tree ends at depth 2.
    let leaves: Vec<u64> = (0..=2)
        .map(|d| perft["levels"][d]["leaves"].as_u64().unwrap())
        .collect();
    assert_eq!(leaves, [1, 2, 2], "{perft}");
    assert_eq!(perft["depth"], 2, "{perft}");
}

#[test]
fn native_builds_count_like_portable_ones_and_are_cached_apart() {
    if cargo().is_none() {
        return;
    }
    let g = project_game("tictactoe");
    let perft = |backend: &str| {
        let run = gdlc_cached(&["perft", &g, "--depth", "4", "--backend", backend]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    assert_eq!(
        counts(&perft("compiled-native")),
        counts(&perft("compiled"))
    );
    let check = gdlc_cached(&["check", &g, "--backend", "compiled-native"]);
    assert!(
        check.stdout.contains("target-native"),
        "built into a target folder of its own: {}",
        check.stdout
    );
    // `-o DIR --native` writes the cargo configuration beside the crate.
    let dir = tempfile::tempdir().unwrap();
    let run = gdlc_cached(&[&g, "-o", dir.path().to_str().unwrap(), "--native"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let config = std::fs::read_to_string(dir.path().join(".cargo/config.toml")).unwrap();
    assert!(
        config.contains(r#"rustflags = ["-C", "target-cpu=native"]"#),
        "{config}"
    );
}

/// Paths over the marked cells of a small graph (1-2, 2-3, 1-3, 3-4,
/// 4-5), each carried as the list of the cells visited, which `notin`
/// checks: `seq`, the lists of up to nine cells, has about 2.4 million
/// facts, more than the compiler tabulates, so `notin` and `path` build
/// their lists at run time. One role marks a cell or passes, four times;
/// the game ends when a path links cell 1 to cell 5.
fn paths_game() -> String {
    let mut text = String::from(
        "(role p) (init (marked 1)) (init (step 0))
         (cell 1) (cell 2) (cell 3) (cell 4) (cell 5)
         (adj 1 2) (adj 2 1) (adj 2 3) (adj 3 2) (adj 1 3) (adj 3 1)
         (adj 3 4) (adj 4 3) (adj 4 5) (adj 5 4)
         (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
         (<= (legal p (mark ?x)) (cell ?x) (not (true (marked ?x))))
         (<= (legal p pass) (true (step ?s)))
         (<= (next (marked ?x)) (does p (mark ?x)))
         (<= (next (marked ?x)) (true (marked ?x)))
         (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
         (<= (notin ?y nil) (cell ?y))
         (<= (notin ?y (c ?h ?t)) (cell ?h) (distinct ?y ?h) (seq ?t) (notin ?y ?t))
         (<= (path ?x ?x ?v) (true (marked ?x)) (notin ?x ?v))
         (<= (path ?x ?z ?v) (true (marked ?x)) (notin ?x ?v) (adj ?x ?y)
             (path ?y ?z (c ?x ?v)))
         (<= connected (path 1 5 nil))
         (<= (goal p 100) connected) (<= (goal p 0) (not connected))
         (<= terminal connected) (<= terminal (true (step 4)))
         (seq nil)",
    );
    for n in 1..=9 {
        let list = (1..=n)
            .rev()
            .fold("nil".to_string(), |t, i| format!("(c ?a{i} {t})"));
        let cells: String = (1..=n).map(|i| format!(" (cell ?a{i})")).collect();
        text += &format!("\n(<= (seq {list}){cells})");
    }
    text
}

#[test]
fn lists_built_at_run_time_count_as_by_hand_and_trace_like_the_interpreter() {
    let Some(cargo) = cargo() else { return };
    let parent = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&parent).unwrap();
    let dir = tempfile::tempdir_in(&parent).unwrap();
    let path = dir.path().join("paths.kif");
    std::fs::write(&path, paths_game()).unwrap();
    let p = path.to_str().unwrap();
    let out = dir.path().join("crate");
    let run = emit_sharing_the_runtime(p, &out, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let binary = build(&cargo, &out, "paths");
    let run = |args: &[&str]| -> Run { Command::new(&binary).args(args).output().unwrap().into() };
    let perft = run(&["perft", "--depth", "4", "--json"]).json();
    // Marks of cells 2-5 and a pass: 5 moves, then one fewer per cell
    // marked. Three plies deep, the 6 orders of marking 3, 4 and 5 link 1
    // to 5 and end the game; the other 67 positions have 2 to 5 moves:
    // 18 * 2 + 36 * 3 + 12 * 4 + 1 * 5 = 197.
    let leaves: Vec<u64> = (0..=4)
        .map(|d| perft["levels"][d]["leaves"].as_u64().unwrap())
        .collect();
    assert_eq!(leaves, [1, 5, 21, 73, 197], "{perft}");
    let ours = run(&["trace", "--depth", "4"]).json();
    let reference = gdlc_cached(&["trace", p, "--depth", "4"]).json();
    assert_eq!(ours, reference);
}

#[test]
fn lists_asked_for_with_a_free_argument_are_refused_by_name() {
    let parent = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&parent).unwrap();
    let dir = tempfile::tempdir_in(&parent).unwrap();
    let path = dir.path().join("paths_free.kif");
    // With the visited list free, `notin` is asked for every list of cells.
    let text = paths_game().replace("(path 1 5 nil)", "(path 1 5 ?v)");
    std::fs::write(&path, text).unwrap();
    let out = dir.path().join("crate");
    let run = gdlc_cached(&[path.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("`notin/2` builds terms at run time, and its rule (<= (notin ?y (c ?h ?t))")
            && run
                .stderr
                .contains("would build them for every value of its variables"),
        "{}",
        run.stderr
    );
}

/// Away from its checkout gdlc writes the runtime's sources it carries
/// into its cache (`runtime_copy`), and a crate generated against that
/// copy builds and runs like one against the checkout's runtime.
#[test]
fn a_crate_builds_against_the_runtime_copy_gdlc_carries() {
    let Some(cargo) = cargo() else { return };
    let runtime = gdlc::runtime_copy::write_runtime(&test_cache().join("runtime-copy")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("crate");
    let (game, runtime) = (project_game("tictactoe"), runtime.to_str().unwrap());
    let run = gdlc_cached(&[
        &game,
        "-o",
        out.to_str().unwrap(),
        "--runtime-path",
        runtime,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let manifest = std::fs::read_to_string(out.join("Cargo.toml")).unwrap();
    assert!(manifest.contains(runtime), "{manifest}");
    let binary = build(&cargo, &out, "tictactoe");
    perft_like_interpreter(&binary, &game, "4");
}
