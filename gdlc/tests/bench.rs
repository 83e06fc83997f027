//! `gdlc bench` and `perft --seconds`: both backends side by side on the
//! bundled tic-tac-toe, counting the same tree.
//!
//! The tests need cargo (`$CARGO`, set by `cargo test`, else `cargo` on
//! the `PATH`) and are skipped with a message without it. They build in
//! the cache of `compiled_cli.rs` (`<target>/gdlc-test-cache`).

use std::path::{Path, PathBuf};
use std::process::Command;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn gdlc(args: &[&str]) -> Run {
    let bin = Path::new(env!("CARGO_BIN_EXE_gdlc"));
    let cache: PathBuf = bin.ancestors().nth(2).unwrap().join("gdlc-test-cache");
    let output = Command::new(bin)
        .args(args)
        .env("GDLC_CACHE_DIR", cache)
        .output()
        .expect("run gdlc");
    Run {
        code: output.status.code().expect("exited normally"),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Whether cargo can be run; otherwise prints why the test is skipped.
fn have_cargo() -> bool {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let works = Command::new(&cargo)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !works {
        println!("skipped: `{cargo}` cannot be run (the compiled backend needs cargo)");
    }
    works
}

fn tictactoe() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../games/tictactoe.kif")
        .to_str()
        .unwrap()
        .to_string()
}

fn json(run: &Run) -> serde_json::Value {
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

/// The leaves of every depth of tic-tac-toe (see `examples/tictactoe-perft`).
const LEAVES: [u64; 10] = [1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872];

#[test]
fn bench_runs_both_backends_on_the_same_tree() {
    if !have_cargo() {
        return;
    }
    let v = json(&gdlc(&["bench", &tictactoe(), "--seconds", "2", "--json"]));
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        keys(&v),
        ["compiled", "game", "interpreted", "ratios", "seconds"]
    );
    assert_eq!(
        (&v["game"], v["seconds"].as_f64()),
        (&"tictactoe".into(), Some(2.0))
    );
    for backend in ["interpreted", "compiled"] {
        let b = &v[backend];
        assert_eq!(keys(b), ["mc", "perft"], "{backend}");
        assert_eq!(b["perft"]["backend"], backend);
        for key in [
            "depth",
            "nodes",
            "leaves",
            "levels",
            "seconds",
            "nodes_per_sec",
        ] {
            assert!(!b["perft"][key].is_null(), "{backend} perft {key}: {b}");
        }
        for key in [
            "playouts",
            "states",
            "seconds",
            "playouts_per_sec",
            "states_per_sec",
            "mean_length",
        ] {
            assert!(!b["mc"][key].is_null(), "{backend} mc {key}: {b}");
        }
        // 5 to 9 moves, so 6 to 10 states, the initial one counted.
        let length = b["mc"]["mean_length"].as_f64().unwrap();
        assert!((6.0..=10.0).contains(&length), "{backend}: {length}");
        let leaves: Vec<u64> = b["perft"]["levels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["leaves"].as_u64().unwrap())
            .collect();
        assert!(leaves.len() >= 2, "{backend} reached depth 1 at least");
        assert_eq!(leaves, LEAVES[..leaves.len()], "{backend}");
    }
    // Both count the same tree: equal levels up to the shallower depth.
    let depth = |b: &str| v[b]["perft"]["depth"].as_u64().unwrap() as usize;
    let common = depth("interpreted").min(depth("compiled"));
    let levels = |b: &str| v[b]["perft"]["levels"].as_array().unwrap()[..=common].to_vec();
    assert_eq!(levels("interpreted"), levels("compiled"));
    for key in [
        "perft_nodes_per_sec",
        "mc_playouts_per_sec",
        "mc_states_per_sec",
    ] {
        assert!(
            v["ratios"][key].as_f64().unwrap() > 0.0,
            "{key}: {}",
            v["ratios"]
        );
    }
}

#[test]
fn bench_prints_a_table_and_refuses_bad_budgets() {
    if !have_cargo() {
        return;
    }
    let run = gdlc(&["bench", &tictactoe(), "--seconds", "0.4"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for row in [
        "interpreted",
        "compiled/interpreted",
        "perft nodes/s",
        "mc states/s",
    ] {
        assert!(
            run.stdout.contains(row),
            "{row} missing in:\n{}",
            run.stdout
        );
    }
    for bad in ["0", "-1", "x", "inf"] {
        let run = gdlc(&["bench", &tictactoe(), &format!("--seconds={bad}")]);
        assert_eq!(run.code, 2, "--seconds {bad}: {}", run.stderr);
        assert!(run.stderr.contains("positive number"), "{}", run.stderr);
    }
}

#[test]
fn perft_with_seconds_deepens_on_both_backends() {
    if !have_cargo() {
        return;
    }
    for backend in ["interpreted", "compiled"] {
        let v = json(&gdlc(&[
            "perft",
            &tictactoe(),
            "--seconds",
            "0.3",
            "--depth",
            "3",
            "--json",
            "--backend",
            backend,
        ]));
        // Depth 3 takes far less than 0.3 s: the cap stops the deepening.
        assert_eq!(v["depth"], 3, "{backend}: {v}");
        assert_eq!(v["leaves"], LEAVES[3], "{backend}: {v}");
        let run = gdlc(&["perft", &tictactoe(), "--seconds=-1", "--backend", backend]);
        assert_eq!(run.code, 1, "{backend}: {}", run.stderr);
        assert!(run.stderr.contains("non-negative"), "{}", run.stderr);
    }
}
