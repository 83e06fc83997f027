//! Bugs the mutation fuzzer (`gdlc-fuzz mutate`) found, each pinned with
//! its shrunk description.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A byte that is not UTF-8 on a line longer than the diagnostic window:
/// the diagnostic's span ended inside the replacement character, and the
/// window cut the line there (a panic on a char boundary).
#[test]
fn invalid_utf8_on_a_long_line_is_a_diagnostic() {
    let mut bytes = b"(role robot) ".repeat(20);
    bytes.push(0xff);
    bytes.extend(b"(init (cell 1)) ".repeat(20));
    let error = match gdlc::load_bytes("long.kif".into(), bytes) {
        Ok(_) => panic!("a description that is not UTF-8 was accepted"),
        Err(e) => e.to_string(),
    };
    assert!(error.contains("not valid UTF-8"), "{error}");
    assert!(error.contains("long.kif:1:261"), "{error}");
    assert!(error.lines().all(|l| l.chars().count() < 200), "{error}");
}

/// Runs `gdlc` with `args` and the work limit `GDLC_MAX_WORK=max_work`,
/// killed after `limit`: `None` when it ran that long.
fn gdlc_with_work_limit(args: &[&str], max_work: u64, limit: Duration) -> Option<(i32, String)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .env("GDLC_MAX_WORK", max_work.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gdlc");
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
    let code = output
        .status
        .code()
        .expect("exited normally, not by a signal");
    Some((code, String::from_utf8_lossy(&output.stderr).into_owned()))
}

/// A mutant the fuzzer found running without end (each of its evaluations
/// a long recursion over a successor relation made cyclic, or a join over
/// a variable left unbound) ends with the work-limit error naming the rule
/// it stopped in. The limit is lowered so that an unoptimized build reaches
/// it in seconds; without a work limit the run goes on past the deadline.
fn stops_at_the_work_limit(description: &str, relation: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mutant.kif");
    std::fs::write(&path, description).unwrap();
    let p = path.to_str().unwrap();
    let args = ["mc", p, "--playouts", "1", "--threads", "1", "--seed", "1"];
    let (code, stderr) = gdlc_with_work_limit(&args, 20_000_000, Duration::from_secs(120))
        .unwrap_or_else(|| panic!("gdlc mc ran for over two minutes on {relation}'s mutant"));
    assert_eq!(code, 1, "{stderr}");
    let expected = format!(
        "more than 20000000 join steps in one evaluation (stopped in a rule for `{relation}`)"
    );
    assert!(
        stderr.contains(&expected),
        "{expected:?} missing in:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// hitori with two successor facts replaced so that `succ` has a cycle
/// (17 → 0): the counts of `count_hor`/`diff_aux` recurse around it.
#[test]
fn hitori_with_a_cyclic_successor_stops_at_the_work_limit() {
    stops_at_the_work_limit(
        include_str!("fuzz_regressions/hitori_cyclic_succ.kif"),
        "diff_aux/3",
    );
}

/// gt_two_thirds_4p with `(succ 174 54)` closing a cycle, and guesses in
/// the initial state (so that `goal` is asked at once): `absDiff` recurses
/// around the cycle.
#[test]
fn two_thirds_with_a_cyclic_successor_stops_at_the_work_limit() {
    stops_at_the_work_limit(
        include_str!("fuzz_regressions/gt_two_thirds_4p_cyclic_succ.kif"),
        "absdiff/3",
    );
}

/// wargame01 with an argument of `type` unbound: the joins of
/// `intendedLocation` cross large relations.
#[test]
fn wargame_with_an_unbound_type_stops_at_the_work_limit() {
    stops_at_the_work_limit(
        include_str!("fuzz_regressions/wargame01_unbound_type.kif"),
        "intendedlocation/3",
    );
}

/// god with `?x` of `(true (cell ?x ?y ?c))` renamed in the second rule of
/// `countifalive`, a helper that `countneighbours` calls eight times: the
/// renamed variable, unfolded into the caller, is read by nothing but its
/// own literal, and enumerating each of its values multiplied the work of
/// every later call (over 100 M join steps in one evaluation; the fuzzer's
/// 60 s limit passed first). One witness of such a literal is enough: a
/// playout stays under 2 M steps per evaluation.
#[test]
fn a_literal_whose_variables_nothing_reads_needs_one_witness() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mutant.kif");
    std::fs::write(&path, include_str!("fuzz_regressions/god_unbound_cell.kif")).unwrap();
    let p = path.to_str().unwrap();
    let args = ["mc", p, "--playouts", "1", "--threads", "1", "--seed", "1"];
    let (code, stderr) = gdlc_with_work_limit(&args, 2_000_000, Duration::from_secs(120))
        .expect("gdlc mc ran for over two minutes");
    assert_eq!(code, 0, "{stderr}");
}

/// hitori with two tokens swapped (the terminal rule reads `(diff)`, a
/// relation without rules, after its `diff` calls), shrunk: its recursive
/// helpers, answered on demand, make millions of calls of a rule or two
/// each. Counting only the rows they try, the default work limit took over
/// 60 s to reach; each rule a call runs now counts as the join it allocates.
#[test]
fn hitori_with_swapped_tokens_stops_at_the_work_limit() {
    stops_at_the_work_limit(
        include_str!("fuzz_regressions/hitori_swapped_tokens.kif"),
        "diff_aux/3",
    );
}
