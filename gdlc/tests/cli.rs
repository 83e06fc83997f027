//! The `gdlc` binary on bad input: every kind of problem gets its named
//! diagnostic with file, line and column, and the documented exit status
//! (1 for an invalid description or runtime error, 2 for a usage error);
//! never a panic or a hang.

use crate::common;

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
        &format!("(role a)\n(<= (r) (sees a p))\n(<= (sees a p) (true q))\n{GAME_TAIL}"),
        "sees-in-body",
        2,
        9,
        "`sees` cannot be read by a rule",
    );
    assert_error(
        &format!("(role a)\n(<= (sees a) (true q))\n{GAME_TAIL}"),
        "keyword-arity",
        2,
        5,
        "`sees` takes 2 arguments, found 1",
    );
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

/// A helper unsafe on its own, unfolded into a caller that leaves it
/// unsafe: the error names the helper's variable as written (not its
/// renamed copy) and the helper it comes from, at the helper's variable,
/// with the caller's rule.
#[test]
fn an_unsafe_unfolded_helper_names_its_variable_as_written() {
    let text = "(role a)\n(init p)\n(<= (helper ?x ?y) (true p))\n\
                (<= (legal a ?z) (helper 1 ?z) (true p))\n\
                (<= (next p) (true p))\n(<= terminal (not (true p)))\n(goal a 0)\n";
    assert_error(
        text,
        "unsafe-variable",
        3,
        16,
        "variable `?y` in the head is not bound by any positive literal of the rule for \
         `legal/2` (`?y` is written in `helper/2`, unfolded into that rule)",
    );
    let (run, path) = check(text);
    assert!(
        run.stderr
            .contains("4 | (<= (legal a ?z) (helper 1 ?z) (true p))"),
        "the caller's rule is not shown in:\n{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("{path}:3:16")),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("?y 1"), "{}", run.stderr);
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

#[test]
fn mc_on_one_thread_prints_what_it_printed_before_threads() {
    let game = project_game("tictactoe");
    let run = gdlc(&[
        "mc",
        &game,
        "--playouts",
        "1000",
        "--seed",
        "3",
        "--threads",
        "1",
        "--json",
    ]);
    let v = run.json();
    // The counts of `gdlc mc --playouts 1000 --seed 3` before --threads
    // existed (commit 4f73b6c): one thread plays the same playouts.
    assert_eq!(v["states"], 8605);
    assert_eq!(v["mean_goals"]["xplayer"], 66.3);
    assert!(
        v.get("threads").is_none() && v.get("per_thread").is_none(),
        "{v}"
    );
}

#[test]
fn mc_on_threads_splits_the_playouts_and_reports_each_thread() {
    let game = project_game("tictactoe");
    let mc = |threads: &str, playouts: &str| {
        let args = ["mc", &game, "--playouts", playouts, "--seed", "5"];
        gdlc(&[&args[..], &["--threads", threads, "--json"]].concat()).json()
    };
    let two = mc("2", "21");
    assert_eq!(
        (two["threads"].as_u64(), two["playouts"].as_u64()),
        (Some(2), Some(21))
    );
    let per_thread = two["per_thread"].as_array().unwrap();
    let field = |key: &str| -> Vec<u64> {
        per_thread
            .iter()
            .map(|t| t[key].as_u64().unwrap())
            .collect()
    };
    assert_eq!(field("playouts"), [11, 10]);
    assert_eq!(
        field("states").iter().sum::<u64>(),
        two["states"].as_u64().unwrap()
    );
    // A tic-tac-toe playout visits 6 to 10 states.
    assert!(
        (126..=210).contains(&two["states"].as_u64().unwrap()),
        "{two}"
    );
    // The same seed gives the same counts, however the threads ran.
    let again = mc("2", "21");
    assert_eq!(
        (&again["states"], &again["mean_goals"]),
        (&two["states"], &two["mean_goals"])
    );
    // Thread 0 draws what one thread draws: with one playout, thread 1 plays none.
    let (one, split) = (mc("1", "1"), mc("2", "1"));
    assert_eq!(
        (&split["states"], &split["mean_goals"]),
        (&one["states"], &one["mean_goals"])
    );
    let text = gdlc(&["mc", &game, "--playouts", "4", "--threads", "2"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains("thread 1: 2 playouts"),
        "{}",
        text.stdout
    );
    assert_eq!(
        gdlc(&["mc", &game, "--playouts", "4", "--threads", "0"]).code,
        2
    );
}

/// The tic-tac-toe of `games/tictactoe.kif`, written out by hand to check
/// gdl-perf correctness records against: xplayer moves first, the role not
/// in control plays `noop`, three in a line wins 100 (the other gets 0), a
/// full board without a line is 50 each.
struct TicTacToe {
    cells: [[char; 3]; 3],
    x_moves: bool,
}

impl TicTacToe {
    fn new() -> Self {
        TicTacToe {
            cells: [['b'; 3]; 3],
            x_moves: true,
        }
    }

    fn line(&self, m: char) -> bool {
        let c = &self.cells;
        (0..3).any(|i| (0..3).all(|j| c[i][j] == m) || (0..3).all(|j| c[j][i] == m))
            || (0..3).all(|i| c[i][i] == m)
            || (0..3).all(|i| c[i][2 - i] == m)
    }

    fn terminal(&self) -> bool {
        self.line('x') || self.line('o') || self.cells.iter().flatten().all(|&c| c != 'b')
    }

    /// The role's legal moves, sorted by text.
    fn legal(&self, role: usize) -> Vec<String> {
        if (role == 0) != self.x_moves {
            return vec!["noop".into()];
        }
        let empty = (0..9).filter(|i| self.cells[i / 3][i % 3] == 'b');
        empty
            .map(|i| format!("(mark {} {})", i / 3 + 1, i % 3 + 1))
            .collect()
    }

    fn play(&mut self, mark: &str) {
        let digits: Vec<usize> = mark
            .chars()
            .filter_map(|c| c.to_digit(10))
            .map(|d| d as usize)
            .collect();
        self.cells[digits[0] - 1][digits[1] - 1] = if self.x_moves { 'x' } else { 'o' };
        self.x_moves = !self.x_moves;
    }

    fn goals(&self) -> String {
        match (self.line('x'), self.line('o')) {
            (true, _) => "100,0".into(),
            (_, true) => "0,100".into(),
            _ => "50,50".into(),
        }
    }
}

/// Checks a gdl-perf correctness record of tic-tac-toe line by line, as
/// gdl-perf's validator reads it: the roles, then per state `!T!false`,
/// one `!L!` line per role (the legal moves, here in text order), the
/// `!C!` joint move; per game `!T!true` and `!G!`; `!F!` after the first
/// game that ends with more than `state_changes` joint moves played.
/// Returns the number of games.
fn check_tictactoe_record(record: &str, state_changes: u64) -> usize {
    let mut lines = record.lines();
    assert_eq!(lines.next(), Some("!R!xplayer,oplayer"));
    let (mut played, mut games) = (0, 0);
    loop {
        let mut game = TicTacToe::new();
        while !game.terminal() {
            assert_eq!(lines.next(), Some("!T!false"), "game {games}");
            let legal: Vec<Vec<String>> = (0..2).map(|role| game.legal(role)).collect();
            for moves in &legal {
                assert_eq!(
                    lines.next(),
                    Some(format!("!L!{}", moves.join(",")).as_str())
                );
            }
            let joint = lines
                .next()
                .and_then(|l| l.strip_prefix("!C!"))
                .expect("!C! line");
            let joint: Vec<&str> = joint.split(',').collect();
            assert_eq!(joint.len(), 2);
            for (moves, chosen) in legal.iter().zip(&joint) {
                assert!(moves.iter().any(|m| m == chosen), "{chosen} is not legal");
            }
            game.play(joint[if game.x_moves { 0 } else { 1 }]);
            played += 1;
        }
        assert_eq!(lines.next(), Some("!T!true"));
        assert_eq!(lines.next(), Some(format!("!G!{}", game.goals()).as_str()));
        games += 1;
        if played > state_changes {
            assert_eq!(lines.next(), Some("!F!"));
            assert_eq!(lines.next(), None);
            return games;
        }
    }
}

/// The ggp-base printed form of `games/tictactoe.kif` (one rule per line,
/// spaces inside the parentheses), as gdl-perf hands it to an engine.
fn ggp_base_tictactoe() -> String {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ggp-base/tictactoe.kif");
    path.to_str().unwrap().to_string()
}

#[test]
fn gdl_perf_correctness_record_follows_the_rules_of_tictactoe() {
    let dir = tempfile::tempdir().unwrap();
    let game = ggp_base_tictactoe();
    for seed in ["0", "7"] {
        let out = dir.path().join(format!("record-{seed}.txt"));
        let o = out.to_str().unwrap();
        let args = ["gdl-perf", &game, o, "30", "--correctness", "--seed", seed];
        let run = gdlc(&[&args[..], &["--backend", "interpreted"]].concat());
        assert_eq!(run.code, 0, "{}", run.stderr);
        let record = std::fs::read_to_string(&out).unwrap();
        // The first state: 9 marks for xplayer and noop for oplayer, the
        // 9 leaves of perft depth 1 (the oracle's ticTacToe.json too).
        assert!(record.starts_with("!R!xplayer,oplayer\n!T!false\n!L!(mark 1 1),(mark 1 2),(mark 1 3),(mark 2 1),(mark 2 2),(mark 2 3),(mark 3 1),(mark 3 2),(mark 3 3)\n!L!noop\n!C!"));
        // A game is 5 to 9 joint moves: more than 30 takes 4 to 7 games.
        assert!((4..=7).contains(&check_tictactoe_record(&record, 30)));
        // The check fails on a record with a legal move missing or
        // another game's end.
        let missing = record.replacen("!L!(mark 1 1),", "!L!", 1);
        let early_end = record.replacen("\n!F!", "", 1) + "!T!false\n!F!\n";
        for wrong in [missing, early_end] {
            let checked = std::panic::catch_unwind(|| check_tictactoe_record(&wrong, 30));
            assert!(checked.is_err());
        }
    }
}

#[test]
fn gdl_perf_performance_result_has_its_four_keys() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("result.txt");
    let o = out.to_str().unwrap();
    let run = gdlc(&[
        "gdl-perf",
        &ggp_base_tictactoe(),
        o,
        "1",
        "--backend",
        "interpreted",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<(&str, &str)> = text
        .lines()
        .map(|l| l.split_once(" = ").expect("key = value"))
        .collect();
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
        format!("gdlc {} interpreted", env!("CARGO_PKG_VERSION"))
    );
    let value = |i: usize| lines[i].1.parse::<u64>().unwrap();
    let (ms, changes, rollouts) = (value(1), value(2), value(3));
    assert!((1000..60_000).contains(&ms), "{text}");
    // Every rollout of tic-tac-toe is 5 to 9 joint moves.
    assert!(
        rollouts > 0 && (5 * rollouts..=9 * rollouts).contains(&changes),
        "{text}"
    );
}

#[test]
fn gdl_perf_failures_are_written_where_gdl_perf_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let bad = file(
        &dir,
        "bad.kif",
        b"( role a )\n( <= ( legal a go ) ( true ?x )\n",
    );
    let stuck = file(
        &dir,
        "stuck.kif",
        b"( role a )\n( init p )\n( <= ( legal a go ) ( true q ) )\n( <= ( next q ) ( true p ) )\n( <= terminal ( true r ) )\n( goal a 100 )\n",
    );
    let out = dir.path().join("out.txt");
    let o = out.to_str().unwrap();
    let read = || std::fs::read_to_string(&out).unwrap();
    let gdl_perf = |game: &PathBuf, extra: &[&str]| {
        let args = ["gdl-perf", game.to_str().unwrap(), o];
        gdlc(&[&args[..], extra, &["--backend", "interpreted"]].concat())
    };
    let run = gdl_perf(&bad, &["1"]);
    assert_eq!(run.code, 1);
    let text = read();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("version = gdlc "), "{text}");
    assert!(
        lines[1].starts_with("errorMessage = ") && lines[1].contains("never closed"),
        "{text}"
    );
    assert!(!lines[1].contains(';'));
    let run = gdl_perf(&bad, &["5", "--correctness"]);
    assert_eq!(run.code, 1);
    let text = read();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.len() == 2 && lines[0].starts_with("!E!") && lines[0].contains("never closed"),
        "{text}"
    );
    assert_eq!(lines[1], "!F!");
    let run = gdl_perf(&stuck, &["5", "--correctness"]);
    assert_eq!(run.code, 1);
    assert_eq!(
        read(),
        "!R!a\n!T!false\n!E!role `a` has no legal move in a non-terminal state\n!F!\n"
    );
    let run = gdl_perf(&stuck, &["1"]);
    assert_eq!(run.code, 1);
    assert!(
        read().contains("errorMessage = role `a` has no legal move"),
        "{}",
        read()
    );
    assert_eq!(gdl_perf(&stuck, &["1.5", "--correctness"]).code, 1);
    assert!(read().starts_with("!E!the number of state changes must be a whole number"));
}

#[test]
fn the_gdl_perf_scripts_call_gdlc_and_report_a_missing_one_in_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let scripts = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/gdl-perf");
    let out = dir.path().join("out.txt");
    let script = |name: &str, gdlc: &str, amount: &str| -> Run {
        Command::new("bash")
            .arg(scripts.join(name))
            .args([&ggp_base_tictactoe(), out.to_str().unwrap(), amount])
            .env("GDLC", gdlc)
            .env("GDLC_PERF_BACKEND", "interpreted")
            .env("GDLC_PERF_SEED", "3")
            .output()
            .expect("run bash")
            .into()
    };
    let read = || std::fs::read_to_string(&out).unwrap();
    let gdlc = env!("CARGO_BIN_EXE_gdlc");
    let run = script("start_perf_test.sh", gdlc, "1");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(read().contains("\nnumRollouts = "), "{}", read());
    let run = script("start_correctness_test.sh", gdlc, "12");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("start_correctness_test.sh: seed 3"),
        "{}",
        run.stderr
    );
    check_tictactoe_record(&read(), 12);
    let run = script("start_correctness_test.sh", "/nonexistent/gdlc", "12");
    assert_eq!(run.code, 1);
    assert!(read().starts_with("!E!gdlc not found") && read().ends_with("\n!F!\n"));
    let run = script("start_perf_test.sh", "/nonexistent/gdlc", "1");
    assert_eq!(run.code, 1);
    assert!(read().starts_with("version = unknown\nerrorMessage = gdlc not found"));
}
