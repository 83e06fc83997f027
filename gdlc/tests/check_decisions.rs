//! The decisions of `docs/CHECKS.md`: what `gdlc check` accepts with a
//! warning (and how the game then plays, counted by hand and, where a
//! build is cheap, through `--backend compiled` too), and what it keeps
//! rejecting, with the message that says why.
//!
//! The expected moves and counts below are worked out by hand from the
//! descriptions.

use crate::common;

use common::{cargo, gdlc, gdlc_cached};
use std::path::{Path, PathBuf};

/// Writes `text` to a file of this test run named `name`; its path.
fn description(name: &str, text: &str) -> PathBuf {
    let dir = common::target_dir().join("check-decisions");
    std::fs::create_dir_all(&dir).expect("create the test folder");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write the description");
    path
}

/// The codes of the diagnostics `text` gets (errors and warnings), and
/// whether it was accepted.
fn codes(text: &str) -> (bool, Vec<&'static str>) {
    match gdlc::load_bytes("t.kif".into(), text.as_bytes().to_vec()) {
        Ok(loaded) => (
            true,
            loaded.analysis.diagnostics.iter().map(|d| d.code).collect(),
        ),
        Err(gdlc::Error::Invalid { diagnostics, .. }) => {
            (false, diagnostics.iter().map(|d| d.code).collect())
        }
        Err(e) => panic!("{e}"),
    }
}

/// `(leaves, nodes)` per depth of `gdlc perft` on `path`, with `extra`
/// arguments (a backend).
fn perft(path: &Path, depth: u32, extra: &[&str]) -> Vec<(u64, u64)> {
    let depth = depth.to_string();
    let mut args = vec!["perft", path.to_str().unwrap(), "--depth", &depth, "--json"];
    args.extend_from_slice(extra);
    let run = if extra.is_empty() {
        gdlc(&args)
    } else {
        gdlc_cached(&args)
    };
    let json = run.json();
    json["levels"]
        .as_array()
        .expect("levels")
        .iter()
        .map(|l| (l["leaves"].as_u64().unwrap(), l["nodes"].as_u64().unwrap()))
        .collect()
}

/// The legal moves of the first role in the initial state, from
/// `gdlc trace` (sorted, canonical text).
fn initial_legal(path: &Path) -> Vec<String> {
    let json = gdlc(&["trace", path.to_str().unwrap(), "--depth", "1"]).json();
    let legal = &json["playouts"][0]["steps"][0]["legal"];
    let role = legal
        .as_object()
        .expect("legal moves by role")
        .values()
        .next()
        .unwrap();
    role.as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

/// One role, one fluent `cell`: `go` makes it `b`, which ends the game.
const FRAME: &str = "
(role you)
(init (cell a))
(<= (next (cell b)) (does you go))
(<= terminal (true (cell b)))
(goal you 100)
";

const WRONG_ARITY_DECLARATIONS: &str = "
(base cell a 1)
(base (cell a))
(base (cell b))
(<= (base cell ?x) (init (cell ?x)))
(input go)
(input you go)
(legal you go)
";

#[test]
fn base_and_input_of_the_wrong_arity_are_ignored_with_a_warning() {
    let text = format!("{FRAME}{WRONG_ARITY_DECLARATIONS}");
    let (accepted, found) = codes(&text);
    assert!(accepted, "{found:?}");
    assert_eq!(found, ["ignored-declaration"; 3]);
    let path = description("wrong-arity-base.kif", &text);
    let run = gdlc(&["check", path.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for expected in [
        "warning[ignored-declaration]: `base` takes 1 argument, found 3; this fact is ignored",
        "warning[ignored-declaration]: `base` takes 1 argument, found 2; this rule is ignored",
        "warning[ignored-declaration]: `input` takes 2 arguments, found 1; this fact is ignored",
        "wrong-arity-base.kif:8:1",
    ] {
        assert!(run.stderr.contains(expected), "{expected}\n{}", run.stderr);
    }
    // `go` is the only move and ends the game.
    assert_eq!(perft(&path, 2, &[]), [(1, 1), (1, 2)]);
    assert_eq!(initial_legal(&path), ["go"]);
}

#[test]
fn keywords_other_than_declarations_keep_their_arity() {
    // A `base` read in a body with the wrong arity has nothing to read.
    let (accepted, found) = codes(&format!(
        "{FRAME}(legal you go) (<= (legal you stay) (base a b))"
    ));
    assert!(!accepted);
    assert_eq!(found, ["keyword-arity", "undefined-relation"]);
    // The prover would unify `(legal you go now)` with `(legal ?r ?m)` on a
    // prefix (a wrong move) or index past its end (a crash).
    let (accepted, found) = codes(&format!("{FRAME}(legal you go now)"));
    assert!(!accepted);
    assert!(found.contains(&"keyword-arity"), "{found:?}");
}

/// `q` holds for `b` only and `r` for nothing; each negated literal (and
/// the `distinct`) has a variable bound nowhere. The reference prover
/// ignores those literals (`go b`, `wait` and `stay b` legal); read as
/// "there is no `?z` with `(q ?z)`", `wait` would not be. gdlc rejects them.
const UNBINDABLE: &str = "
(q b)
(<= (legal you (go ?x)) (q ?x) (not (r ?y)))
(<= (legal you wait) (not (q ?z)))
(<= (legal you (stay ?x)) (q ?x) (distinct ?x ?w))
(<= (next (cell b)) (does you (go ?x)))
(<= (next (cell b)) (does you (stay ?x)) (not (distinct ?v c)))
";

#[test]
fn variables_bound_nowhere_in_negations_and_distincts_stay_errors() {
    let text = format!("{FRAME}{UNBINDABLE}");
    let (accepted, found) = codes(&text);
    assert!(!accepted);
    let errors: Vec<_> = found.iter().filter(|c| **c == "unsafe-variable").collect();
    assert_eq!(errors.len(), 4, "{found:?}");
    let path = description("unbindable.kif", &text);
    let run = gdlc(&["check", path.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    for expected in [
        "error[unsafe-variable]: variable `?z` in a negated literal is not bound by any positive literal of the rule for `legal/2`",
        "unbindable.kif:10:30",
        "the reference prover ignores such a literal, as if it always held",
        "to say that no value of `?z` makes it hold, negate a relation of its own that binds `?z`",
        "variable `?w` in `distinct`",
        "variable `?v` in `(not (distinct ...))`",
    ] {
        assert!(run.stderr.contains(expected), "{expected}\n{}", run.stderr);
    }
}

#[test]
fn the_compiled_backend_ignores_the_same_declarations() {
    if cargo().is_none() {
        return;
    }
    let path = description(
        "declarations-compiled.kif",
        &format!(
            "{FRAME}{WRONG_ARITY_DECLARATIONS}
             (<= (legal you wait) (true (cell a)))
             (<= (next (cell a)) (does you wait))"
        ),
    );
    // `go` ends the game; `wait` keeps the state, where both are legal.
    let expected = [(1, 1), (2, 3), (2, 5), (2, 7)];
    assert_eq!(perft(&path, 3, &[]), expected);
    assert_eq!(perft(&path, 3, &["--backend", "compiled"]), expected);
}

#[test]
fn variables_a_caller_could_bind_stay_unsafe() {
    // `?x` is in the head: not ignored, and a `legal` rule is no helper.
    let (accepted, found) = codes(&format!(
        "{FRAME}(q b) (<= (legal you (go ?x)) (not (q ?x)))"
    ));
    assert!(!accepted);
    assert_eq!(found, ["unsafe-variable"]);
    // A helper unsafe in its head is unfolded where it is called, so
    // `differ` keeps its meaning: `(go a a)` and `(go b b)` are not legal.
    let text = format!(
        "{FRAME}(q a) (q b) (<= (differ ?x ?y) (distinct ?x ?y))
         (<= (legal you (go ?x ?y)) (q ?x) (q ?y) (differ ?x ?y))"
    );
    let (accepted, found) = codes(&text);
    assert!(accepted, "{found:?}");
    assert_eq!(found, ["unfolded-helper"]);
    let path = description("helper.kif", &text);
    assert_eq!(initial_legal(&path), ["(go a b)", "(go b a)"]);
}

/// Descriptions each error is kept for (see `docs/CHECKS.md`): the code of
/// the first error each one gets.
const KEPT_ERRORS: &[(&str, &str)] = &[
    ("(role you) (<= (legal you go) (not a b))", "bad-literal"),
    ("(role you) (<= (legal you go) (or))", "bad-literal"),
    ("(role you) (<= (legal you go) (distinct a))", "bad-literal"),
    ("(role you) (<= (legal you go) (?r a))", "bad-sentence"),
    ("(role you) (<= (legal you go) (p ()))", "bad-term"),
    ("(role you) (<=)", "bad-rule"),
    ("(role you) (<= (true (cell a)) (p))", "true-in-head"),
    ("(role you) (<= (does you go) (p))", "does-in-head"),
    ("(role you) (<= (role me) (p))", "role-rule"),
    ("(init (cell a))", "no-roles"),
    (
        "(role you) (<= (init (cell a)) (true (cell b)))",
        "impure-init",
    ),
    (
        "(role you) (p a) (<= (legal you (go ?x)) (p ?y))",
        "unsafe-variable",
    ),
    (
        "(role you) (p a) (<= (q ?x) (p ?x) (not (q ?x)))",
        "negative-cycle",
    ),
    (
        "(role you) (n 0) (<= (n (s ?x)) (n ?x))",
        "unbounded-recursion",
    ),
];

#[test]
fn the_kept_errors_are_errors() {
    for (text, code) in KEPT_ERRORS {
        let (accepted, found) = codes(text);
        assert!(!accepted, "{text}: accepted, {found:?}");
        assert!(found.contains(code), "{text}: {found:?}, expected {code}");
    }
}
