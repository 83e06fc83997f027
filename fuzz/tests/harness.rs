//! Fuzzing harnesses in bolero's form. Under `cargo test` each runs as an
//! ordinary test on stable Rust, with a bounded number of random inputs
//! (`BOLERO_RANDOM_ITERATIONS` and `BOLERO_RANDOM_TEST_TIME_MS` raise the
//! bounds); under `cargo bolero test` (a nightly toolchain and
//! cargo-bolero) the same targets run with libFuzzer's or AFL's
//! coverage-guided engine. Every input must end in an accepted description
//! or a rejection with an error diagnostic, never a panic; a played one
//! must stop within the interpreter's work limit (`GDLC_MAX_WORK`, set low
//! here unless it is set already).

use bolero::check;
use gdlc_fuzz::mutant_worker::run_mutant;
use gdlc_fuzz::mutate::mutant;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Join steps one evaluation of a played description may take here: a
/// mutant that needs more is reported as a resource limit, quickly, and
/// before the interpreter's recursive calls can fill [`STACK`] (a
/// recursion that builds ever deeper calls, as `(<= (line ?m) (line (cell
/// 1 1 ?m)) (true (cell 1 2 ?m)))` does, is stopped by this limit only).
const WORK_LIMIT: &str = "20000";

/// The stack each description is checked and played on: 64 MiB, eight
/// times the main thread's, so that [`WORK_LIMIT`] stops a runaway
/// recursion first.
const STACK: usize = 64 << 20;

/// Longest each harness runs under `cargo test`.
const TEST_TIME: Duration = Duration::from_secs(8);

/// The small real descriptions the structured harness mutates.
const GAMES: [&str; 4] = [
    include_str!("../../games/tictactoe.kif"),
    include_str!("../../games/maze.kif"),
    include_str!("../../games/simultaneous.kif"),
    include_str!("../../games/threeplayer.kif"),
];

/// The GDL vocabulary the token harness writes descriptions with.
const TOKENS: [&str; 32] = [
    "(",
    "(",
    "(",
    ")",
    ")",
    ")",
    "<=",
    "not",
    "or",
    "distinct",
    "role",
    "init",
    "true",
    "does",
    "next",
    "legal",
    "goal",
    "terminal",
    "base",
    "input",
    "?x",
    "?y",
    "?z",
    "a",
    "b",
    "p",
    "q",
    "(role r)",
    "(init (c a))",
    "(legal r a)",
    "0",
    "100",
];

/// Lowers the interpreter's work limit for this process, once, unless the
/// caller chose one; every harness calls it first, so the limit is set
/// before any evaluation reads it.
fn low_work_limit() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("GDLC_MAX_WORK").is_none() {
            std::env::set_var("GDLC_MAX_WORK", WORK_LIMIT);
        }
    });
}

/// The worker's answer for `bytes` (`accepted`, `rejected`, `limit ...` or
/// `bug ...`), computed on a thread with a [`STACK`]-sized stack.
fn on_big_stack(bytes: Vec<u8>) -> String {
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || run_mutant(bytes))
        .expect("start a thread")
        .join()
        .expect("run_mutant catches panics")
}

/// Checks `bytes` and, when they are accepted, plays them, counting them
/// in `played`; panics with the description when that goes wrong (a
/// panic, a rejection without an error, an empty rendering).
fn check_and_play(bytes: Vec<u8>, played: &AtomicUsize) {
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let answer = on_big_stack(bytes);
    assert!(
        !answer.starts_with("bug"),
        "{answer}\n--- input ---\n{text}"
    );
    if answer == "accepted" {
        played.fetch_add(1, Ordering::Relaxed);
    }
}

/// Any bytes through the front end (parse and check): accepted, or
/// rejected with an error diagnostic that renders.
#[test]
fn front_end_takes_any_bytes() {
    low_work_limit();
    check!()
        .with_test_time(TEST_TIME)
        .with_iterations(20_000)
        .for_each(
            |bytes: &[u8]| match gdlc::load_bytes("fuzz.kif".into(), bytes.to_vec()) {
                Ok(loaded) => {
                    let _ = loaded.file.render(&loaded.analysis.diagnostics);
                }
                Err(gdlc::Error::Invalid { file, diagnostics }) => {
                    assert!(diagnostics.iter().any(|d| d.is_error()), "{diagnostics:?}");
                    assert!(!file.render(&diagnostics).trim().is_empty());
                }
                Err(e) => panic!("unexpected error: {e}"),
            },
        );
}

/// Descriptions written from GDL's own tokens, which get past the parser
/// far more often than raw bytes: checked, and played when accepted.
#[test]
fn gdl_token_sequences_are_checked_and_played() {
    low_work_limit();
    let played = AtomicUsize::new(0);
    check!()
        .with_test_time(TEST_TIME)
        .with_iterations(50_000)
        .with_max_len(400)
        .for_each(|picks: &[u8]| {
            let words: Vec<&str> = picks
                .iter()
                .map(|&b| TOKENS[usize::from(b) % TOKENS.len()])
                .collect();
            check_and_play(words.join(" ").into_bytes(), &played);
        });
    assert!(played.into_inner() > 0, "no input got past the checks");
}

/// Mutants of the project's small games (`mutate::mutant`, chosen by a
/// game index and a seed): checked and, when accepted, played for a few
/// random steps under the work limit.
#[test]
fn mutants_of_real_games_are_checked_and_played() {
    low_work_limit();
    let played = AtomicUsize::new(0);
    check!()
        .with_type::<(u8, u64)>()
        .with_test_time(TEST_TIME)
        .with_iterations(20_000)
        .for_each(|&(game, seed)| {
            let text = GAMES[usize::from(game) % GAMES.len()];
            let (bytes, _) = mutant(text, &mut StdRng::seed_from_u64(seed));
            check_and_play(bytes, &played);
        });
    assert!(played.into_inner() > 0, "no mutant got past the checks");
}

/// A mutant of tic-tac-toe, shrunk by hand, that overflowed the stack: the
/// interpreter asks `(line x)` on demand, whose rule asks `(line (cell 1 1
/// x))` before its `true` literal binds anything, and so on with ever
/// deeper terms. Within the work limit it stops with a resource limit.
#[test]
fn a_recursion_through_ever_deeper_terms_stops_at_the_work_limit() {
    low_work_limit();
    let text = "(role x) (init (cell 1 2 x))
        (<= (line ?m) (line (cell 1 1 ?m)) (true (cell 1 2 ?m)))
        (<= (line ?m) (true (cell 3 3 ?m)))
        (legal x go) (<= (next (cell 1 2 x)) (does x go))
        (<= terminal (line x)) (goal x 100)";
    let answer = on_big_stack(text.as_bytes().to_vec());
    assert!(answer.starts_with("limit "), "{answer}");
    assert!(answer.contains("`line/1`"), "{answer}");
}
