//! `gdlc explain`: the compiler's decisions on the bundled tic-tac-toe, the
//! relation graph as DOT, and the errors of the other commands.

use crate::common;

use common::{gdlc, project_game, shared};

#[test]
fn explain_says_a_small_game_is_ground() {
    let run = gdlc(&["explain", &project_game("tictactoe")]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // 9 cells * 3 marks + 2 `control` fluents are the possible `next` atoms;
    // `does`: each role marks one of 9 cells or plays noop.
    for expected in [
        "backend: ground: ",
        "next/1: 29 atoms",
        "does/2: 20 atoms",
        "29 bits of the ground bit vector",
    ] {
        assert!(
            run.stdout.contains(expected),
            "{expected:?} in:\n{}",
            run.stdout
        );
    }
    assert!(!run.stdout.contains("rule plans ("), "{}", run.stdout);
}

#[test]
fn explain_gives_the_state_size_the_plans_and_the_graph() {
    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("graph.dot");
    let run = gdlc(&[
        "explain",
        &project_game("tictactoe"),
        "--strategy",
        "relational",
        "--dot",
        dot.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Known independently of the code: 9 cells with 3 possible marks each
    // (x, o, b), and `control` of either role: 9 * 3 + 2 possible fluents,
    // one bit each, in one 64-bit word.
    let fluents = 9 * 3 + 2;
    let state =
        format!("{fluents} possible fluents = {fluents} bits, stored as [u64; 1] = 8 bytes");
    assert!(run.stdout.contains(&state), "{state:?} in:\n{}", run.stdout);
    assert!(run.stdout.contains("roles (2): xplayer oplayer"));
    // The plan of the first `legal` rule: the rule, then its steps.
    let legal = "(<= (legal ?p (mark ?r ?c)) (true (control ?p)) (true (cell ?r ?c b)))";
    let at = run
        .stdout
        .find(legal)
        .unwrap_or_else(|| panic!("no legal plan in:\n{}", run.stdout));
    let steps: Vec<&str> = run.stdout[at..].lines().skip(1).take(2).collect();
    assert!(
        steps[0].contains("1. loop  table T") && steps[0].contains("binds [?p]"),
        "{steps:?}"
    );
    assert!(steps[1].contains("binds [?r ?c]"), "{steps:?}");
    for section in [
        "domains: relaxed evaluation in ",
        "relations (",
        "layers (",
        "phases (",
        "rule plans (",
        "constant tables: ",
    ] {
        assert!(run.stdout.contains(section), "{section} missing");
    }
    let graph = std::fs::read_to_string(&dot).expect("the graph was written");
    assert!(graph.starts_with("digraph"), "{graph}");
    // `next` reads `marked` through `not`.
    assert!(graph.contains("[style=dashed]"), "{graph}");
    // The same description gives the same report.
    assert_eq!(
        gdlc(&[
            "explain",
            &project_game("tictactoe"),
            "--strategy",
            "relational"
        ])
        .stdout,
        run.stdout
    );
}

#[test]
fn explain_reports_errors_like_the_other_commands() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.kif");
    std::fs::write(&bad, "(role a)\n(<= (next ?y) (true ?x))\n").unwrap();
    let run = gdlc(&["explain", bad.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("error[unsafe-variable]"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("bad.kif:2:"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);

    let run = gdlc(&["explain", "/nonexistent/game.kif"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("cannot read"), "{}", run.stderr);

    let unwritable = dir.path().join("no/such/folder/graph.dot");
    let run = gdlc(&[
        "explain",
        &project_game("tictactoe"),
        "--dot",
        unwritable.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("cannot write the graph to"),
        "{}",
        run.stderr
    );

    assert_eq!(gdlc(&["explain"]).code, 2, "no game is a usage error");
}

/// By default a game that does not ground is compiled relation by
/// relation with the demand strategy's walks and searches (chess), unless
/// they would make much more code than deriving everything bottom-up
/// (alexChess, whose walks' callers are inlined into many large rules).
#[test]
fn the_default_walks_and_searches_unless_that_makes_much_more_code() {
    let Some(dir) = shared("games") else {
        println!("skipped: ../shared/games is absent");
        return;
    };
    let explain = |game: &str, strategy: &str| {
        let path = dir.join("games").join(format!("{game}.kif"));
        let run = gdlc(&["explain", path.to_str().unwrap(), "--strategy", strategy]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout
    };
    // The two compilations side by side: each takes most of this test's time.
    let (chess, alex) = std::thread::scope(|s| {
        let alex = s.spawn(|| explain("alexChess", "auto"));
        (explain("chess", "auto"), alex.join().expect("alexChess"))
    });
    assert!(
        chess.contains("searched top-down, first witness"),
        "{chess}"
    );
    assert!(chess.contains("walked by loops"), "{chess}");
    assert!(!chess.contains("declined"), "{chess}");
    assert!(alex.contains("top-down: declined"), "{alex}");
    assert!(!alex.contains("walked by loops"), "{alex}");
}

/// A `next` relation that no rule reads is not stored: each fact derived
/// sets its fluent's bit in the next state.
#[test]
fn next_goes_straight_into_the_next_states_bits() {
    let run = gdlc(&[
        "explain",
        &project_game("tictactoe"),
        "--strategy",
        "relational",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let next = run
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("next/1 "));
    let next = next.unwrap_or_else(|| panic!("no next/1 in:\n{}", run.stdout));
    assert!(next.contains("NextBits (streamed"), "{next}");
}

/// Amazons' moves are walked out from the amazons: no plan scans the
/// empty cells to walk back from each (the walk's estimate is a line's
/// squares, not every pair of them), nor starts `legalMove` from the
/// exits' `++` pairs, after which the walk lacks its column. Its rays
/// test `emptyCell`'s three `location` fluents as one board test.
#[test]
fn amazons_walks_out_from_the_amazons_over_a_board() {
    let Some(dir) = shared("games") else {
        println!("skipped: ../shared/games is absent");
        return;
    };
    let path = dir.join("games/amazons.kif");
    let run = gdlc(&["explain", path.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = &run.stdout;
    assert!(!out.contains("loop  scan emptycell"), "{out}");
    assert!(
        out.contains("board 0: location/3, content at arg 3 (arrow black white), squares 10 × 10 = 100; read by the walks' ray tables and 3 plan steps at a bound square"),
        "{out}"
    );
    assert!(out.contains("rule 93: a board test (board 0)"), "{out}");
    let legal_move = out.find("-> legalmove/1").expect("legalMove's plans");
    let first = out[legal_move..].lines().nth(2).expect("a first step");
    assert!(first.contains("walks the state's set bits"), "{first}");
}
