//! Descriptions built to exceed memory: every command ends with a clear
//! error naming the relation and the limit, under a 4 GiB address-space cap
//! (`prlimit --as`), within a minute — never an out-of-memory kill, an abort
//! or a hang. Skipped with a message where `prlimit` is missing.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The memory cap gdlc works within.
const CAP: &str = "--as=4294967296";

/// What a capped run gave: its exit code (`None` if killed by a signal)
/// and its standard error.
struct Capped {
    code: Option<i32>,
    stderr: String,
}

/// Runs `gdlc args` under the memory cap, killed after `limit`; `None`
/// when it ran that long, and a skip (`Some(None)`) without `prlimit`.
fn capped(args: &[&str], limit: Duration) -> Option<Option<Capped>> {
    let spawned = Command::new("prlimit")
        .arg(CAP)
        .arg(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = spawned else {
        eprintln!("skipped: prlimit is not installed");
        return Some(None);
    };
    let start = Instant::now();
    while child.try_wait().expect("wait for gdlc").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("gdlc's output");
    Some(Some(Capped {
        code: output.status.code(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }))
}

/// Runs each command on `description` under the cap and checks that it
/// ends with exit 1 within a minute, its message containing `expected`.
fn ends_with_a_clear_error(description: &str, commands: &[(&[&str], &str)]) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("explode.kif");
    std::fs::write(&path, description).unwrap();
    let p = path.to_str().unwrap();
    let out = dir.path().join("crate");
    for (command, expected) in commands {
        let mut args: Vec<&str> = command.to_vec();
        args.push(p);
        if args[0] == "-o" {
            args.insert(1, out.to_str().unwrap());
        }
        let Some(run) = capped(&args, Duration::from_secs(60)) else {
            panic!("gdlc {args:?} ran for over a minute under the cap");
        };
        let Some(run) = run else { return };
        assert_eq!(run.code, Some(1), "gdlc {args:?}:\n{}", run.stderr);
        assert!(
            run.stderr.contains(expected),
            "gdlc {args:?}: {expected:?} missing in:\n{}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
}

/// `gdlc check` accepts `description` (valid GDL: nothing is evaluated)
/// under the cap within a minute.
fn check_accepts(description: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("explode.kif");
    std::fs::write(&path, description).unwrap();
    let args = ["check", path.to_str().unwrap()];
    let Some(run) = capped(&args, Duration::from_secs(60)) else {
        panic!("gdlc check ran for over a minute under the cap");
    };
    if let Some(run) = run {
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
}

/// A static relation that is the product of four 100-value relations
/// (10^8 facts), read in full by `legal`: the compiler, which derives it
/// per state for lack of a table, finds the moves too many to number.
#[test]
fn a_static_product_of_four_successor_relations() {
    check_accepts(include_str!("resource_limits/static_product.kif"));
    ends_with_a_clear_error(
        include_str!("resource_limits/static_product.kif"),
        &[
            (&["perft", "--depth", "1"], "more than 10000000 facts of `quad/4`"),
            (
                &["-o"],
                "argument 2 of `legal/2` can take more than 1000000 values in the rule (<= (legal r (pick ?a ?b ?c ?d)) (true p) (quad ?a ?b ?c ?d))",
            ),
        ],
    );
}

/// A 6-ary fluent whose arguments each take 100 values (10^12 fluents and
/// as many moves).
#[test]
fn a_six_argument_fluent_over_a_hundred_values_each() {
    check_accepts(include_str!("resource_limits/wide_state.kif"));
    ends_with_a_clear_error(
        include_str!("resource_limits/wide_state.kif"),
        &[
            (
                &["perft", "--depth", "1"],
                "more than 10000000 facts of `legal/2`",
            ),
            (
                &["-o"],
                "argument 2 of `legal/2` can take more than 1000000 values",
            ),
        ],
    );
}

/// A recursive relation building ever deeper terms `(s (s ... 0))`: the
/// recursion restriction rejects it before anything is evaluated.
#[test]
fn a_recursion_building_ever_deeper_terms() {
    let unbounded = "argument `?x` of recursive literal `(nat ?x)` can grow without bound";
    ends_with_a_clear_error(
        include_str!("resource_limits/deep_terms.kif"),
        &[
            (&["check"], unbounded),
            (&["perft", "--depth", "1"], unbounded),
            (&["-o"], unbounded),
        ],
    );
}
