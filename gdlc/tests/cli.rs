//! The `gdlc` binary on bad input: every kind of problem gets its named
//! diagnostic with file, line and column, and the documented exit status
//! (1 for an invalid description or runtime error, 2 for a usage error);
//! never a panic or a hang.

mod common;

use common::{gdlc, gdlc_within, project_game, Run};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Writes `bytes` to a fresh file named `name` and returns its path.
fn file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("write test file");
    path
}

/// Runs `gdlc check` on `text` and returns the run and the file name shown.
fn check(text: &str) -> (Run, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "game.kif", text.as_bytes());
    let p = path.to_str().unwrap().to_string();
    (gdlc(&["check", &p]), p)
}

fn assert_error(text: &str, code: &str, line: usize, column: usize, message: &str) {
    let (run, path) = check(text);
    assert_eq!(
        run.code, 1,
        "exit status for {code}; stderr:\n{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("error[{code}]")),
        "no error[{code}] in:\n{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(message),
        "message {message:?} missing in:\n{}",
        run.stderr
    );
    let location = format!("{path}:{line}:{column}");
    assert!(
        run.stderr.contains(&location),
        "location {location} missing in:\n{}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

const GAME_TAIL: &str =
    "(<= (legal a go) (true p))\n(<= (next p) (does a go))\n(<= terminal (true q))\n(goal a 100)\n";

#[test]
fn syntax_error_positions() {
    // The end of the file is reported at the end of its last token.
    assert_error(
        "(role a)\n(init (p)\n",
        "syntax",
        2,
        10,
        "unexpected end of file",
    );
    assert_error("(role a))\n", "syntax", 1, 9, "unmatched `)`");
}

#[test]
fn keyword_discipline() {
    assert_error(
        &format!("(role a)\n(<= (true p) (r))\n(r)\n{GAME_TAIL}"),
        "true-in-head",
        2,
        5,
        "`true` cannot be the head",
    );
    assert_error(
        &format!("(role a)\n(<= (does a go) (r))\n(r)\n{GAME_TAIL}"),
        "does-in-head",
        2,
        5,
        "`does` cannot be the head",
    );
    assert_error(
        &format!("(role a)\n(<= (init p) (true q))\n{GAME_TAIL}"),
        "impure-init",
        2,
        1,
        "`init` depends on `true`",
    );
    let (run, path) = check(&format!("(init p)\n{GAME_TAIL}"));
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("error[no-roles]"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains(&format!("{path}: the description declares no role")),
        "{}",
        run.stderr
    );
    assert_error(
        &format!("(role a b)\n{GAME_TAIL}"),
        "keyword-arity",
        1,
        1,
        "`role` takes 1 argument, found 2",
    );
    assert_error(
        &format!("(role a)\n(<= (role ?x) (r ?x))\n(r b)\n{GAME_TAIL}"),
        "role-rule",
        2,
        1,
        "roles must be declared as ground facts",
    );
}

#[test]
fn two_arities_are_two_relations_with_a_warning() {
    let (run, path) = check(&format!("(role a)\n(init p)\n(f x)\n(f x y)\n{GAME_TAIL}"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("warning[arity-overload]"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("{path}:4:1")),
        "{}",
        run.stderr
    );
}

#[test]
fn safety() {
    assert_error(
        &format!("(role a)\n(<= (legal a ?m) (r ?x))\n(r b)\n{GAME_TAIL}"),
        "unsafe-variable",
        2,
        14,
        "variable `?m` in the head",
    );
    assert_error(
        &format!("(role a)\n(<= p (r ?x) (not (s ?y)))\n(r b)\n(s c)\n{GAME_TAIL}"),
        "unsafe-variable",
        2,
        22,
        "variable `?y` in a negated literal",
    );
    assert_error(
        &format!("(role a)\n(<= p (r ?x) (distinct ?x ?z))\n(r b)\n{GAME_TAIL}"),
        "unsafe-variable",
        2,
        27,
        "variable `?z` in `distinct`",
    );
}

#[test]
fn stratification_names_the_cycle() {
    assert_error(
        &format!(
            "(role a)\n(init p)\n(<= x (not y) (true p))\n(<= y (not x) (true p))\n{GAME_TAIL}"
        ),
        "negative-cycle",
        3,
        12,
        "`x/0`, `y/0` depend on each other through `not`",
    );
}

#[test]
fn recursion_restriction_names_the_rule() {
    assert_error(
        &format!("(role a)\n(n 0)\n(<= (n (s ?x)) (n ?x))\n{GAME_TAIL}"),
        "unbounded-recursion",
        3,
        19,
        "argument `?x` of recursive literal `(n ?x)` can grow without bound",
    );
}

#[test]
fn empty_and_comment_only_files() {
    for text in ["", "; only a comment\n;; and another\n"] {
        let (run, path) = check(text);
        assert_eq!(run.code, 1);
        assert!(
            run.stderr.contains("error[empty-description]"),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains(&path), "{}", run.stderr);
    }
}

#[test]
fn bytes_that_are_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(&dir, "bad.kif", b"(role a)\n(init \xff)\n");
    let run = gdlc(&["check", path.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("error[invalid-utf8]"), "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("{}:2:7", path.display())),
        "{}",
        run.stderr
    );
}

#[test]
fn deep_nesting_is_refused_not_a_stack_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let text = "(".repeat(100_000) + &")".repeat(100_000);
    let path = file(&dir, "deep.kif", text.as_bytes());
    let run = gdlc(&["check", path.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("error[nesting-too-deep]"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!(
            "{}:1:{}",
            path.display(),
            gdlc::syntax::MAX_NESTING + 1
        )),
        "{}",
        run.stderr
    );
}

/// Many published descriptions are one line of 10 000 characters or more:
/// a diagnostic shows a window of that line around the error, cut with
/// `...`, and still gives the real line and column.
#[test]
fn a_diagnostic_on_a_very_long_line_fits_a_screen() {
    let facts: Vec<String> = (0..700).map(|i| format!("(cell{i} x)")).collect();
    let facts = facts.join(" ");
    let rule = "(<= (legal a ?x) (true p))";
    let text = format!(
        "(role a) (init p) {facts} {rule} {facts} \
         (<= (next p) (true p)) (<= terminal (true p)) (goal a 0)"
    );
    assert!(text.len() > 10_000 && !text.contains('\n'));
    let column = text.find(rule).unwrap() + rule.find("?x").unwrap() + 1;
    let (run, path) = check(&text);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("{path}:1:{column}")),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("...(cell"), "{}", run.stderr);
    assert!(run.stderr.contains(rule), "{}", run.stderr);
    let longest = run.stderr.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(
        longest < 200,
        "a line of {longest} characters in:\n{}",
        run.stderr
    );
}

#[test]
fn missing_file() {
    let run = gdlc(&["check", "/nonexistent/game.kif"]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("cannot read `/nonexistent/game.kif`"),
        "{}",
        run.stderr
    );
    let run = gdlc(&["perft", "/nonexistent/game.kif", "--depth", "1"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("cannot read"), "{}", run.stderr);
}

#[test]
fn usage_errors_exit_2() {
    let game = project_game("tictactoe");
    assert_eq!(gdlc(&["perft", &game]).code, 2, "missing --depth");
    assert_eq!(
        gdlc(&["mc", &game]).code,
        2,
        "neither --seconds nor --playouts"
    );
    assert_eq!(
        gdlc(&["mc", &game, "--seconds", "1", "--playouts", "3"]).code,
        2
    );
    assert_eq!(gdlc(&["frobnicate"]).code, 2);
    assert_eq!(
        gdlc(&["perft", &game, "--depth", "1", "--backend", "quantum"]).code,
        2
    );
}

#[test]
fn compiled_backend_without_cargo_says_so() {
    let cache = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args(["perft", &project_game("tictactoe"), "--depth", "1"])
        .args(["--backend", "compiled"])
        .env("GDLC_CACHE_DIR", cache.path())
        .env("CARGO", "/nonexistent/cargo")
        .output()
        .expect("run gdlc");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the compiled backend needs cargo, but `/nonexistent/cargo` cannot be run"),
        "{stderr}"
    );
}

#[test]
fn lenient_forms_are_warnings() {
    let (run, _) = check(
        "(role a)\n(init p)\n(<= (legal a go))\n(<= (next p) (does a go) (not (distinct p p)))\n(<= (terminal) (true q))\n(goal a 100)\n",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    for code in ["zero-body-rule", "not-distinct", "parenthesised-constant"] {
        assert!(
            run.stderr.contains(&format!("warning[{code}]")),
            "{code} missing:\n{}",
            run.stderr
        );
    }
    assert!(
        run.stdout.contains("valid (0 errors, 3 warnings)"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_helper_safe_only_at_its_call_sites_works() {
    let dir = tempfile::tempdir().unwrap();
    // `differ` is unsafe on its own; every caller binds its arguments.
    let text = "(role a)\n(v 1)\n(v 2)\n(<= (differ ?x ?y) (distinct ?x ?y))\n\
                (<= (legal a (pick ?x ?y)) (v ?x) (v ?y) (differ ?x ?y))\n\
                (<= (next done) (does a ?m))\n(<= terminal (true done))\n(goal a 100)\n";
    let path = file(&dir, "helper.kif", text.as_bytes());
    let p = path.to_str().unwrap();
    let run = gdlc(&["check", p]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("warning[unfolded-helper]"),
        "{}",
        run.stderr
    );
    let run = gdlc(&["perft", p, "--depth", "1", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    // (pick 1 2) and (pick 2 1).
    assert_eq!(json["leaves"], 2, "{}", run.stdout);
}

/// A helper unsafe in its head cannot be unfolded into its callers when it
/// is recursive — directly, through a non-ground fact, or once another
/// helper was unfolded into it: unfolding would never end. It is reported
/// at once, where it is written.
#[test]
fn a_recursive_helper_unsafe_in_its_head_is_reported_not_unfolded_forever() {
    let cases = [
        (
            "(role a) (init p) (succ 0 1) (succ 1 2)\n\
             (<= (smaller ?v ?y) (succ ?x ?y))\n\
             (<= (smaller ?x ?y) (succ ?x ?z) (smaller ?z ?y))\n\
             (<= (legal a x) (true p) (smaller 0 2))\n\
             (<= (next p) (true p)) (<= terminal (not (true p))) (goal a 0)\n",
            "unsafe-variable",
            "2:14",
        ),
        (
            "(role r) (init (p 1)) (succ 0 1) (succ 1 2)\n\
             (sum ?x 0 ?x)\n\
             (<= (sum ?x ?y ?z) (succ ?x ?m) (succ ?n ?y) (sum ?m ?n ?z))\n\
             (<= (legal r a) (true (p 1))) (<= (next (p 1)) (sum 1 0 1))\n\
             (<= terminal (true (p 2))) (goal r 100)\n",
            "unsafe-variable",
            "2:6",
        ),
        (
            "(role a) (init p) (p 1)\n\
             (<= (h1 ?v ?y) (h2 ?w ?y))\n\
             (<= (h2 ?w ?y) (h1 ?v ?y) (p ?y))\n\
             (<= (legal a x) (true p) (h2 0 1))\n\
             (<= (next p) (true p)) (<= terminal (not (true p))) (goal a 0)\n",
            "unsafe-variable",
            "3:9",
        ),
    ];
    for (text, code, at) in cases {
        let dir = tempfile::tempdir().unwrap();
        let path = file(&dir, "game.kif", text.as_bytes());
        let p = path.to_str().unwrap();
        let run = gdlc_within(&["check", p], Duration::from_secs(60))
            .unwrap_or_else(|| panic!("gdlc check ran for over a minute on:\n{text}"));
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert!(
            run.stderr.contains(&format!("error[{code}]")),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr.contains(&format!("{p}:{at}")),
            "{at} in:\n{}",
            run.stderr
        );
        assert!(!run.stderr.contains(":1:1"), "{}", run.stderr);
    }
}

#[test]
fn no_legal_move_is_a_runtime_error() {
    let dir = tempfile::tempdir().unwrap();
    let text = "(role a)\n(init p)\n(<= (legal a go) (true q))\n(<= (next q) (true p))\n(<= terminal (true r))\n(goal a 100)\n";
    let path = file(&dir, "stuck.kif", text.as_bytes());
    let run = gdlc(&["perft", path.to_str().unwrap(), "--depth", "2"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("role `a` has no legal move in a non-terminal state"),
        "{}",
        run.stderr
    );
}

#[test]
fn json_outputs_carry_the_figures() {
    let game = project_game("tictactoe");
    let run = gdlc(&["perft", &game, "--depth", "2", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON object");
    assert_eq!(
        (v["nodes"].as_u64(), v["leaves"].as_u64()),
        (Some(82), Some(72))
    );
    assert!(v["nodes_per_sec"].as_f64().unwrap() > 0.0);
    let run = gdlc(&["mc", &game, "--playouts", "20", "--seed", "7", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON object");
    assert_eq!(v["playouts"].as_u64(), Some(20));
    assert_eq!(v["seed"].as_u64(), Some(7));
    // A tic-tac-toe playout visits 6 to 10 states (5 to 9 moves).
    let states = v["states"].as_u64().unwrap();
    assert!((120..=200).contains(&states), "{states}");
    for key in ["seconds", "playouts_per_sec", "states_per_sec"] {
        assert!(v[key].as_f64().is_some(), "{key} missing: {v}");
    }
    let goals = &v["mean_goals"];
    let sum = goals["xplayer"].as_f64().unwrap() + goals["oplayer"].as_f64().unwrap();
    // Every tic-tac-toe outcome gives the two players 100 in total.
    assert!((sum - 100.0).abs() < 1e-9, "{goals}");
}

/// A game whose `legal`, `terminal` and `goal` read `does` through the
/// helper `moved`: evaluated with no move being made, `moved` never holds,
/// so `c` is always legal and only the step counter ends the game.
const NO_MOVE_GAME: &str = "(role p)
(init (step 0))
(succ 0 1) (succ 1 2) (succ 2 3)
(legal p a)
(legal p b)
(<= (legal p c) (not moved))
(<= moved (does p ?m))
(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
(<= (next (pressed a)) (does p a))
(<= (next (pressed a)) (true (pressed a)))
(<= terminal moved)
(<= terminal (true (step 3)))
(<= (goal p 100) (true (pressed a)) (not moved))
(<= (goal p 0) (not (true (pressed a))))
";

#[test]
fn keywords_reading_does_are_evaluated_with_no_move_being_made() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("moved.kif");
    std::fs::write(&path, NO_MOVE_GAME).unwrap();
    let p = path.to_str().unwrap();
    let run = gdlc(&["check", p]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "warning[does-dependent]: `terminal` depends on `does` (terminal <- moved <- does)"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("moved.kif:11:1"), "{}", run.stderr);
    assert!(
        run.stderr.contains("`legal` depends on `does`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("`goal` depends on `does`"),
        "{}",
        run.stderr
    );
    // Three moves in every state (`c` too), three steps: 3, 9, 27 leaves.
    let perft = gdlc(&["perft", p, "--depth", "4", "--json"]).json();
    let leaves: Vec<u64> = perft["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["leaves"].as_u64().unwrap())
        .collect();
    assert_eq!(leaves, [1, 3, 9, 27], "{perft}");
    // Every playout visits the states of steps 0 to 3; a playout that
    // pressed `a` scores 100 (the helper does not hold when goals are asked).
    let mc = gdlc(&["mc", p, "--playouts", "50", "--json"]).json();
    assert_eq!(mc["states"], 200, "{mc}");
    let goal = mc["mean_goals"]["p"].as_f64().unwrap();
    assert!(goal > 0.0 && (goal / 2.0).fract() == 0.0, "{mc}");
}
