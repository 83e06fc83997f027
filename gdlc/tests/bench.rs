//! `gdlc bench` and `perft --seconds`: both backends side by side on the
//! bundled tic-tac-toe, counting the same tree.
//!
//! The tests need cargo (`$CARGO`, set by `cargo test`, else `cargo` on
//! the `PATH`) and are skipped with a message without it. They build in
//! the cache of `compiled_cli.rs` (`<target>/gdlc-test-cache`).

use crate::common;

use common::{cargo, gdlc_cached, project_game};

/// The leaves of every depth of tic-tac-toe (see `examples/tictactoe-perft`).
const LEAVES: [u64; 10] = [1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872];

#[test]
fn bench_runs_both_backends_on_the_same_tree() {
    if cargo().is_none() {
        return;
    }
    let v = gdlc_cached(&[
        "bench",
        &project_game("tictactoe"),
        "--seconds",
        "2",
        "--json",
    ])
    .json();
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
    if cargo().is_none() {
        return;
    }
    let run = gdlc_cached(&["bench", &project_game("tictactoe"), "--seconds", "0.4"]);
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
        let run = gdlc_cached(&[
            "bench",
            &project_game("tictactoe"),
            &format!("--seconds={bad}"),
        ]);
        assert_eq!(run.code, 2, "--seconds {bad}: {}", run.stderr);
        assert!(run.stderr.contains("positive number"), "{}", run.stderr);
    }
}

#[test]
fn perft_with_seconds_deepens_on_both_backends() {
    if cargo().is_none() {
        return;
    }
    for backend in ["interpreted", "compiled"] {
        let v = gdlc_cached(&[
            "perft",
            &project_game("tictactoe"),
            "--seconds",
            "0.3",
            "--depth",
            "3",
            "--json",
            "--backend",
            backend,
        ])
        .json();
        // Depth 3 takes far less than 0.3 s: the cap stops the deepening.
        assert_eq!(v["depth"], 3, "{backend}: {v}");
        assert_eq!(v["leaves"], LEAVES[3], "{backend}: {v}");
        let run = gdlc_cached(&[
            "perft",
            &project_game("tictactoe"),
            "--seconds=-1",
            "--backend",
            backend,
        ]);
        assert_eq!(run.code, 1, "{backend}: {}", run.stderr);
        assert!(run.stderr.contains("non-negative"), "{}", run.stderr);
    }
}
