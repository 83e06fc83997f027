//! Facts about the project's own game descriptions in `games/`, checked through
//! the reference interpreter.
//!
//! Every expected number and outcome here is known independently of this code
//! base: it is either a well-known published figure or derived by hand from the
//! rules of the game (the derivation is written next to each number). None of
//! them was obtained by running `gdlc`.

use crate::common;

use common::project_game_path;

use gdl_runtime::{perft, play, PerftLevel, Reasoner};
use gdlc::interp::Interpreter;

type State = <Interpreter as Reasoner>::State;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn load(name: &str) -> Interpreter {
    let path = project_game_path(name);
    Interpreter::from_path(&path).unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()))
}

/// Checks a perft result against the expected per-depth leaf counts
/// (`expected_leaves[d]` = number of tree nodes at depth exactly `d`, with
/// `expected_leaves[0] == 1` for the root); node counts are the running sums.
fn check_perft(levels: &[PerftLevel], expected_leaves: &[u64]) {
    let depths: Vec<u32> = levels.iter().map(|l| l.depth).collect();
    let want_depths: Vec<u32> = (0..expected_leaves.len() as u32).collect();
    assert_eq!(depths, want_depths, "perft depths");
    let leaves: Vec<u64> = levels.iter().map(|l| l.leaves).collect();
    assert_eq!(leaves, expected_leaves, "perft leaves per depth");
    let nodes: Vec<u64> = levels.iter().map(|l| l.nodes).collect();
    let want_nodes: Vec<u64> = expected_leaves
        .iter()
        .scan(0u64, |acc, &n| {
            *acc += n;
            Some(*acc)
        })
        .collect();
    assert_eq!(nodes, want_nodes, "perft cumulative nodes");
}

/// The legal moves of `role` in `state`, as sorted canonical KIF text.
fn legal_texts<R: Reasoner>(r: &mut R, state: &R::State, role: usize) -> Vec<String> {
    let mut out = Vec::new();
    r.legal_moves(state, role, &mut out);
    let mut texts: Vec<String> = out.iter().map(|&m| r.move_text(role, m)).collect();
    texts.sort();
    texts
}

fn goals<R: Reasoner>(r: &mut R, state: &R::State) -> Vec<Option<u32>> {
    (0..r.roles().len()).map(|i| r.goal(state, i)).collect()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

/// Plays the given joint moves (one KIF text per role) from the initial state
/// and returns every state visited, the initial state first.
fn run_joint(r: &mut Interpreter, line: &[Vec<String>]) -> Vec<State> {
    let mut states = vec![r.initial_state()];
    for (ply, joint) in line.iter().enumerate() {
        let joint_refs: Vec<&str> = joint.iter().map(|s| s.as_str()).collect();
        let current = states.last().unwrap().clone();
        assert!(
            !r.is_terminal(&current),
            "state before ply {} ({joint:?}) is unexpectedly terminal",
            ply + 1
        );
        let next = play(&mut *r, &current, joint_refs.as_slice())
            .unwrap_or_else(|e| panic!("ply {} {joint:?} rejected: {e:?}", ply + 1));
        states.push(next);
    }
    states
}

/// Turn-taking games: the `i`-th move (0-based) is made by role `i % n_roles`
/// while all other roles play `noop`.
fn alternating(moves: &[&str], n_roles: usize) -> Vec<Vec<String>> {
    moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            (0..n_roles)
                .map(|role| {
                    if role == i % n_roles {
                        m.to_string()
                    } else {
                        "noop".to_string()
                    }
                })
                .collect()
        })
        .collect()
}

fn run_alternating(r: &mut Interpreter, moves: &[&str], n_roles: usize) -> Vec<State> {
    run_joint(r, &alternating(moves, n_roles))
}

/// Asserts that only the last state of `states` is terminal.
fn assert_terminal_only_at_end(r: &mut Interpreter, states: &[State]) {
    let flags: Vec<bool> = states.iter().map(|s| r.is_terminal(s)).collect();
    let mut want = vec![false; states.len()];
    *want.last_mut().unwrap() = true;
    assert_eq!(
        flags, want,
        "terminal flags along the line (initial state first)"
    );
}

fn joint_is_rejected(r: &mut Interpreter, state: &State, joint: &[&str]) -> bool {
    play(&mut *r, state, joint).is_err()
}

// ---------------------------------------------------------------------------
// Tic-tac-toe
// ---------------------------------------------------------------------------

#[test]
fn tictactoe_initial_state() {
    let mut r = load("tictactoe");
    assert_eq!(r.roles(), &strings(&["xplayer", "oplayer"])[..]);
    let s0 = r.initial_state();
    // Nine blank cells plus the control fluent, sorted bytewise
    // ("(cell" < "(control" because 'e' < 'o').
    assert_eq!(
        r.fluents(&s0),
        strings(&[
            "(cell 1 1 b)",
            "(cell 1 2 b)",
            "(cell 1 3 b)",
            "(cell 2 1 b)",
            "(cell 2 2 b)",
            "(cell 2 3 b)",
            "(cell 3 1 b)",
            "(cell 3 2 b)",
            "(cell 3 3 b)",
            "(control xplayer)",
        ])
    );
    assert!(!r.is_terminal(&s0));
    // No goal rule fires on an open board without a line.
    assert_eq!(goals(&mut r, &s0), vec![None, None]);
    // xplayer may mark any of the 9 cells; oplayer can only wait.
    let mut all_marks = Vec::new();
    for row in 1..=3 {
        for col in 1..=3 {
            all_marks.push(format!("(mark {row} {col})"));
        }
    }
    assert_eq!(legal_texts(&mut r, &s0, 0), all_marks);
    assert_eq!(legal_texts(&mut r, &s0, 1), strings(&["noop"]));
}

#[test]
fn tictactoe_perft() {
    let mut r = load("tictactoe");
    // Nobody can complete a line before ply 5 (x needs 3 marks), so the tree
    // is a plain permutation tree up to depth 5: 9, 9*8, 9*8*7, 9*8*7*6,
    // 9*8*7*6*5 (the well-known counts; depth-5 nodes are counted even though
    // some of them are wins for x).
    let levels = perft(&mut r, 5).expect("perft");
    check_perft(&levels, &[1, 9, 72, 504, 3024, 15120]);
}

#[test]
fn tictactoe_x_wins_on_the_main_diagonal() {
    let mut r = load("tictactoe");
    // x: (1,1) (2,2) (3,3); o: (1,2) (1,3) -- x completes the diagonal on ply 5.
    let states = run_alternating(
        &mut r,
        &[
            "(mark 1 1)",
            "(mark 1 2)",
            "(mark 2 2)",
            "(mark 1 3)",
            "(mark 3 3)",
        ],
        2,
    );
    assert_terminal_only_at_end(&mut r, &states);
    let last = states.last().unwrap();
    assert_eq!(goals(&mut r, last), vec![Some(100), Some(0)]);
    assert_eq!(
        r.fluents(last),
        strings(&[
            "(cell 1 1 x)",
            "(cell 1 2 o)",
            "(cell 1 3 o)",
            "(cell 2 1 b)",
            "(cell 2 2 x)",
            "(cell 2 3 b)",
            "(cell 3 1 b)",
            "(cell 3 2 b)",
            "(cell 3 3 x)",
            "(control oplayer)",
        ])
    );
    // Before the winning move there is no goal yet.
    let before = &states[states.len() - 2];
    assert_eq!(goals(&mut r, before), vec![None, None]);
}

#[test]
fn tictactoe_o_wins_the_middle_row() {
    let mut r = load("tictactoe");
    // x: (1,1) (1,2) (3,3) -- no line; o: (2,1) (2,2) (2,3) -- row 2 on ply 6.
    let states = run_alternating(
        &mut r,
        &[
            "(mark 1 1)",
            "(mark 2 1)",
            "(mark 1 2)",
            "(mark 2 2)",
            "(mark 3 3)",
            "(mark 2 3)",
        ],
        2,
    );
    assert_terminal_only_at_end(&mut r, &states);
    assert_eq!(
        goals(&mut r, states.last().unwrap()),
        vec![Some(0), Some(100)]
    );
}

#[test]
fn tictactoe_draw() {
    let mut r = load("tictactoe");
    // Final board (row 1 on top):
    //   x o x
    //   x o o
    //   o x x
    // Rows xox/xoo/oxx, columns xxo/oox/xox, diagonals xox/xoo: no line, so no
    // earlier position had one either (lines only grow). Full board => draw.
    let states = run_alternating(
        &mut r,
        &[
            "(mark 1 1)",
            "(mark 1 2)",
            "(mark 1 3)",
            "(mark 2 2)",
            "(mark 2 1)",
            "(mark 2 3)",
            "(mark 3 2)",
            "(mark 3 1)",
            "(mark 3 3)",
        ],
        2,
    );
    assert_terminal_only_at_end(&mut r, &states);
    assert_eq!(
        goals(&mut r, states.last().unwrap()),
        vec![Some(50), Some(50)]
    );
    assert_eq!(goals(&mut r, &states[8]), vec![None, None]);
}

#[test]
fn tictactoe_illegal_moves_are_rejected() {
    let mut r = load("tictactoe");
    let s0 = r.initial_state();
    let s1 = play(&mut r, &s0, &["(mark 1 1)", "noop"]).expect("first move");
    // It is oplayer's turn: marking the occupied cell is illegal ...
    assert!(joint_is_rejected(&mut r, &s1, &["noop", "(mark 1 1)"]));
    // ... and xplayer may not move twice in a row.
    assert!(joint_is_rejected(&mut r, &s1, &["(mark 1 2)", "noop"]));
    // oplayer's legal moves are the 8 blank cells, xplayer can only noop.
    assert_eq!(legal_texts(&mut r, &s1, 0), strings(&["noop"]));
    let o_moves = legal_texts(&mut r, &s1, 1);
    assert_eq!(o_moves.len(), 8);
    assert!(!o_moves.contains(&"(mark 1 1)".to_string()));
    // Move text round trip.
    let mv = r.parse_move(1, "(mark 2 3)").expect("known move");
    assert_eq!(r.move_text(1, mv), "(mark 2 3)");
}

// ---------------------------------------------------------------------------
// Connect Four
// ---------------------------------------------------------------------------

fn drops(columns: &[u32]) -> Vec<String> {
    columns.iter().map(|c| format!("(drop {c})")).collect()
}

fn run_drops(r: &mut Interpreter, columns: &[u32]) -> Vec<State> {
    let moves = drops(columns);
    let refs: Vec<&str> = moves.iter().map(|s| s.as_str()).collect();
    run_alternating(r, &refs, 2)
}

#[test]
fn connectfour_initial_state_and_perft() {
    let mut r = load("connectfour");
    assert_eq!(r.roles(), &strings(&["red", "black"])[..]);
    let s0 = r.initial_state();
    assert!(!r.is_terminal(&s0));
    assert_eq!(r.fluents(&s0), strings(&["(control red)"]));
    assert_eq!(legal_texts(&mut r, &s0, 0), drops(&[1, 2, 3, 4, 5, 6, 7]));
    assert_eq!(legal_texts(&mut r, &s0, 1), strings(&["noop"]));
    // With at most 4 discs on the board no column is full (6 rows) and nobody
    // can have four in a row (needs 4 discs of one colour, i.e. ply >= 7), so
    // every position has 7 children: 7, 7^2, 7^3, 7^4.
    let levels = perft(&mut r, 4).expect("perft");
    check_perft(&levels, &[1, 7, 49, 343, 2401]);
}

#[test]
fn connectfour_vertical_four() {
    let mut r = load("connectfour");
    // red stacks column 1, black stacks column 2 (only three discs);
    // red's 4th disc in column 1 (ply 7) makes a vertical four.
    let states = run_drops(&mut r, &[1, 2, 1, 2, 1, 2, 1]);
    assert_terminal_only_at_end(&mut r, &states);
    assert_eq!(
        goals(&mut r, states.last().unwrap()),
        vec![Some(100), Some(0)]
    );
}

#[test]
fn connectfour_horizontal_four() {
    let mut r = load("connectfour");
    // red fills row 1 in columns 1-4, black answers on top of each red disc
    // (row 2, columns 1-3 only: three in a row).
    let states = run_drops(&mut r, &[1, 1, 2, 2, 3, 3, 4]);
    assert_terminal_only_at_end(&mut r, &states);
    assert_eq!(
        goals(&mut r, states.last().unwrap()),
        vec![Some(100), Some(0)]
    );
}

#[test]
fn connectfour_rising_diagonal() {
    let mut r = load("connectfour");
    // Landing squares (column,row): R(1,1) B(2,1) R(2,2) B(3,1) R(4,1) B(3,2)
    // R(3,3) B(4,2) R(4,3) B(6,1) R(4,4): red holds (1,1) (2,2) (3,3) (4,4).
    // Before that red has (1,1)(2,2)(4,1)(3,3)(4,3) and black
    // (2,1)(3,1)(3,2)(4,2)(6,1): no four for either.
    let states = run_drops(&mut r, &[1, 2, 2, 3, 4, 3, 3, 4, 4, 6, 4]);
    assert_terminal_only_at_end(&mut r, &states);
    let last = states.last().unwrap();
    assert_eq!(goals(&mut r, last), vec![Some(100), Some(0)]);
    assert!(r.fluents(last).contains(&"(cell 4 4 red)".to_string()));
}

#[test]
fn connectfour_falling_diagonal_for_black() {
    let mut r = load("connectfour");
    // The previous line mirrored (column c -> 8-c) with the colours swapped,
    // after a waiting red disc in column 1. Landing squares:
    // R(1,1) B(7,1) R(6,1) B(6,2) R(5,1) B(4,1) R(5,2) B(5,3) R(4,2) B(4,3)
    // R(2,1) B(4,4): black holds (4,4) (5,3) (6,2) (7,1). Red's discs
    // (1,1)(6,1)(5,1)(5,2)(4,2)(2,1) contain no four.
    let states = run_drops(&mut r, &[1, 7, 6, 6, 5, 4, 5, 5, 4, 4, 2, 4]);
    assert_terminal_only_at_end(&mut r, &states);
    assert_eq!(
        goals(&mut r, states.last().unwrap()),
        vec![Some(0), Some(100)]
    );
}

#[test]
fn connectfour_full_column_is_not_playable() {
    let mut r = load("connectfour");
    // Six alternating discs fill column 1 (red, black, red, ...): no four.
    let states = run_drops(&mut r, &[1, 1, 1, 1, 1, 1]);
    let full = states.last().unwrap();
    assert!(!r.is_terminal(full));
    assert_eq!(
        r.fluents(full),
        strings(&[
            "(cell 1 1 red)",
            "(cell 1 2 black)",
            "(cell 1 3 red)",
            "(cell 1 4 black)",
            "(cell 1 5 red)",
            "(cell 1 6 black)",
            "(control red)",
        ])
    );
    assert_eq!(legal_texts(&mut r, full, 0), drops(&[2, 3, 4, 5, 6, 7]));
    assert!(joint_is_rejected(&mut r, full, &["(drop 1)", "noop"]));
}

#[test]
fn connectfour_full_board_draw() {
    let mut r = load("connectfour");
    // Target board, colour(c, r) = R iff g(c) xor h(r) == 0 with
    // g = 0101010 (columns 1..7) and h = 001101 (rows 1..6):
    //   row 6  B R B R B R B
    //   row 5  R B R B R B R
    //   row 4  B R B R B R B
    //   row 3  B R B R B R B
    //   row 2  R B R B R B R
    //   row 1  R B R B R B R
    // Rows alternate colours; columns have runs of at most 2; along any
    // diagonal the colour stays the same exactly where h changes between
    // consecutive rows (rows 2-3, 4-5, 5-6), never three steps in a row, so
    // no diagonal four either. 21 discs of each colour. The order below fills
    // every column bottom-up with colours alternating red/black; as the final
    // board has no four, no intermediate position has one.
    let order = [
        1, 2, 1, 1, 3, 1, 1, 1, 3, 2, 2, 3, 2, 2, 2, 3, 3, 3, 5, 4, 5, 4, 4, 5, 4, 4, 4, 5, 5, 5,
        7, 6, 7, 6, 6, 7, 6, 6, 6, 7, 7, 7,
    ];
    assert_eq!(order.len(), 42);
    let states = run_drops(&mut r, &order);
    assert_terminal_only_at_end(&mut r, &states);
    let last = states.last().unwrap();
    assert_eq!(goals(&mut r, last), vec![Some(50), Some(50)]);
    let fluents = r.fluents(last);
    assert_eq!(fluents.len(), 43, "42 discs plus control");
    for (text, want) in [
        ("(cell 1 1 red)", true),
        ("(cell 1 3 black)", true),
        ("(cell 2 1 black)", true),
        ("(cell 7 6 black)", true),
        ("(cell 4 5 black)", true),
        ("(control red)", true),
    ] {
        assert_eq!(fluents.contains(&text.to_string()), want, "{text}");
    }
}

// ---------------------------------------------------------------------------
// Breakthrough
// ---------------------------------------------------------------------------

fn count_pieces(r: &Interpreter, state: &State, colour: &str) -> usize {
    let suffix = format!(" {colour})");
    r.fluents(state)
        .iter()
        .filter(|f| f.starts_with("(cell ") && f.ends_with(&suffix))
        .count()
}

#[test]
fn breakthrough_initial_state() {
    let mut r = load("breakthrough");
    assert_eq!(r.roles(), &strings(&["white", "black"])[..]);
    let s0 = r.initial_state();
    assert!(!r.is_terminal(&s0));
    assert_eq!(r.fluents(&s0).len(), 33, "32 pieces plus control");
    assert_eq!(count_pieces(&r, &s0, "white"), 16);
    assert_eq!(count_pieces(&r, &s0, "black"), 16);
    assert_eq!(goals(&mut r, &s0), vec![None, None]);
    // Only the 8 pawns on row 2 can move (row 1 is blocked by own pieces);
    // each has straight + 2 diagonals, the edge pawns only one diagonal:
    // 6*3 + 2*2 = 22.
    let white = legal_texts(&mut r, &s0, 0);
    assert_eq!(white.len(), 22);
    for m in [
        "(move 1 2 1 3)",
        "(move 1 2 2 3)",
        "(move 5 2 4 3)",
        "(move 8 2 7 3)",
    ] {
        assert!(white.contains(&m.to_string()), "{m} should be legal");
    }
    for m in ["(move 1 1 1 2)", "(move 2 1 1 2)", "(move 1 2 0 3)"] {
        assert!(!white.contains(&m.to_string()), "{m} should not be legal");
    }
    assert_eq!(legal_texts(&mut r, &s0, 1), strings(&["noop"]));
}

#[test]
fn breakthrough_perft() {
    let mut r = load("breakthrough");
    // depth 1: 22 (see above); depth 2: black has the mirror-image 22 replies
    // whatever white did (the armies are 4 rows apart), 22*22 = 484;
    // depth 3: 11132, the published perft figure for 8x8 Breakthrough.
    let levels = perft(&mut r, 3).expect("perft");
    check_perft(&levels, &[1, 22, 484, 11132]);
}

#[test]
fn breakthrough_race_to_the_last_row() {
    let mut r = load("breakthrough");
    // The white a-pawn walks up column 1 while black shuffles on the far
    // side; from (1,6) the straight step is blocked by black's (1,7), so it
    // captures diagonally on (2,7) and then again on (1,8), the last row.
    let line = [
        "(move 1 2 1 3)", // W
        "(move 8 7 8 6)", // B
        "(move 1 3 1 4)", // W
        "(move 7 7 7 6)", // B
        "(move 1 4 1 5)", // W
        "(move 8 6 8 5)", // B
        "(move 1 5 1 6)", // W
        "(move 7 6 7 5)", // B
        "(move 1 6 2 7)", // W captures
        "(move 6 7 6 6)", // B
        "(move 2 7 1 8)", // W captures on the last row
    ];
    let states = run_alternating(&mut r, &line, 2);
    assert_terminal_only_at_end(&mut r, &states);

    // White to move with the pawn on (1,6): straight ahead is occupied by
    // black, so only the diagonal capture (1,6)->(2,7) is available for it.
    let at_16 = &states[8];
    let pawn_moves: Vec<String> = legal_texts(&mut r, at_16, 0)
        .into_iter()
        .filter(|m| m.starts_with("(move 1 6 "))
        .collect();
    assert_eq!(pawn_moves, strings(&["(move 1 6 2 7)"]));

    assert_eq!(count_pieces(&r, &states[9], "black"), 15);
    assert_eq!(count_pieces(&r, &states[9], "white"), 16);
    let last = states.last().unwrap();
    assert_eq!(count_pieces(&r, last, "black"), 14);
    assert_eq!(count_pieces(&r, last, "white"), 16);
    let fluents = r.fluents(last);
    assert!(fluents.contains(&"(cell 1 8 white)".to_string()));
    assert!(!fluents.contains(&"(cell 2 7 white)".to_string()));
    assert!(!fluents.contains(&"(cell 1 2 white)".to_string()));
    assert_eq!(goals(&mut r, last), vec![Some(100), Some(0)]);
}

#[test]
fn breakthrough_black_captures_diagonally() {
    let mut r = load("breakthrough");
    let line = [
        "(move 1 2 1 3)", // W
        "(move 2 7 2 6)", // B
        "(move 1 3 1 4)", // W
        "(move 8 7 8 6)", // B
        "(move 1 4 1 5)", // W: now diagonally in front of black's (2,6)
    ];
    let states = run_alternating(&mut r, &line, 2);
    let s = states.last().unwrap();
    // Black's (2,6) may go straight to the empty (2,5) or diagonally to the
    // empty (3,5) or onto white's (1,5).
    let from_26: Vec<String> = legal_texts(&mut r, s, 1)
        .into_iter()
        .filter(|m| m.starts_with("(move 2 6 "))
        .collect();
    assert_eq!(
        from_26,
        strings(&["(move 2 6 1 5)", "(move 2 6 2 5)", "(move 2 6 3 5)"])
    );
    let after = play(&mut r, s, &["noop", "(move 2 6 1 5)"]).expect("capture");
    assert!(!r.is_terminal(&after));
    assert_eq!(count_pieces(&r, &after, "white"), 15);
    assert_eq!(count_pieces(&r, &after, "black"), 16);
    let fluents = r.fluents(&after);
    assert!(fluents.contains(&"(cell 1 5 black)".to_string()));
    assert!(!fluents.contains(&"(cell 1 5 white)".to_string()));
    assert!(fluents.contains(&"(control white)".to_string()));
}

// ---------------------------------------------------------------------------
// Simultaneous: rock-paper-scissors, first to 2 round wins, at most 3 rounds
// ---------------------------------------------------------------------------

fn rounds(pairs: &[(&str, &str)]) -> Vec<Vec<String>> {
    pairs
        .iter()
        .map(|(l, r)| vec![l.to_string(), r.to_string()])
        .collect()
}

#[test]
fn simultaneous_initial_state_and_perft() {
    let mut r = load("simultaneous");
    assert_eq!(r.roles(), &strings(&["left", "right"])[..]);
    let s0 = r.initial_state();
    assert!(!r.is_terminal(&s0));
    assert_eq!(
        r.fluents(&s0),
        strings(&["(round 0)", "(score left 0)", "(score right 0)"])
    );
    // Level scores: 50 each.
    assert_eq!(goals(&mut r, &s0), vec![Some(50), Some(50)]);
    let weapons = strings(&["paper", "rock", "scissors"]);
    assert_eq!(legal_texts(&mut r, &s0, 0), weapons);
    assert_eq!(legal_texts(&mut r, &s0, 1), weapons);
    // Each round has 3*3 = 9 joint moves: 3 won by left, 3 by right, 3 ties.
    // depth 1: 9; depth 2: 81.  After two rounds the game is over iff one
    // player won both: 3*3 (left) + 3*3 (right) = 18 of the 81 positions, so
    // depth 3: (81 - 18) * 9 = 567.  Every depth-3 position has played 3
    // rounds and is terminal: depth 4: 0.
    let levels = perft(&mut r, 4).expect("perft");
    check_perft(&levels, &[1, 9, 81, 567, 0]);
}

#[test]
fn simultaneous_two_straight_wins_end_the_game() {
    let mut r = load("simultaneous");
    let states = run_joint(&mut r, &rounds(&[("rock", "scissors"), ("paper", "rock")]));
    assert_terminal_only_at_end(&mut r, &states);
    // Goals follow the running score: left leads 1-0 after round 1.
    assert_eq!(goals(&mut r, &states[1]), vec![Some(100), Some(0)]);
    let last = states.last().unwrap();
    assert_eq!(
        r.fluents(last),
        strings(&["(round 2)", "(score left 2)", "(score right 0)"])
    );
    assert_eq!(goals(&mut r, last), vec![Some(100), Some(0)]);
}

#[test]
fn simultaneous_one_all_after_three_rounds_is_a_draw() {
    let mut r = load("simultaneous");
    // right wins (paper > rock), left wins (scissors > paper), tie.
    let states = run_joint(
        &mut r,
        &rounds(&[("rock", "paper"), ("scissors", "paper"), ("paper", "paper")]),
    );
    assert_terminal_only_at_end(&mut r, &states);
    assert_eq!(goals(&mut r, &states[1]), vec![Some(0), Some(100)]);
    assert_eq!(goals(&mut r, &states[2]), vec![Some(50), Some(50)]);
    let last = states.last().unwrap();
    assert_eq!(
        r.fluents(last),
        strings(&["(round 3)", "(score left 1)", "(score right 1)"])
    );
    assert_eq!(goals(&mut r, last), vec![Some(50), Some(50)]);
}

#[test]
fn simultaneous_three_ties() {
    let mut r = load("simultaneous");
    let states = run_joint(
        &mut r,
        &rounds(&[
            ("rock", "rock"),
            ("paper", "paper"),
            ("scissors", "scissors"),
        ]),
    );
    assert_terminal_only_at_end(&mut r, &states);
    let last = states.last().unwrap();
    assert_eq!(
        r.fluents(last),
        strings(&["(round 3)", "(score left 0)", "(score right 0)"])
    );
    assert_eq!(goals(&mut r, last), vec![Some(50), Some(50)]);
}

#[test]
fn simultaneous_right_wins_two_to_one() {
    let mut r = load("simultaneous");
    // right (rock > scissors), left (rock > scissors), right (scissors > paper).
    let states = run_joint(
        &mut r,
        &rounds(&[
            ("scissors", "rock"),
            ("rock", "scissors"),
            ("paper", "scissors"),
        ]),
    );
    assert_terminal_only_at_end(&mut r, &states);
    let last = states.last().unwrap();
    assert_eq!(
        r.fluents(last),
        strings(&["(round 3)", "(score left 1)", "(score right 2)"])
    );
    assert_eq!(goals(&mut r, last), vec![Some(0), Some(100)]);
}

#[test]
fn simultaneous_one_nil_after_three_rounds() {
    let mut r = load("simultaneous");
    // left wins round 1, then two ties: only the round limit ends the game.
    let states = run_joint(
        &mut r,
        &rounds(&[("rock", "scissors"), ("rock", "rock"), ("paper", "paper")]),
    );
    assert_terminal_only_at_end(&mut r, &states);
    assert_eq!(
        goals(&mut r, states.last().unwrap()),
        vec![Some(100), Some(0)]
    );
}

// ---------------------------------------------------------------------------
// Three-player Nim: pile of 5, take 1 or 2, turn order alice, bob, carol;
// taking the last stone wins.
// ---------------------------------------------------------------------------

#[test]
fn threeplayer_initial_state_and_perft() {
    let mut r = load("threeplayer");
    assert_eq!(r.roles(), &strings(&["alice", "bob", "carol"])[..]);
    let s0 = r.initial_state();
    assert!(!r.is_terminal(&s0));
    assert_eq!(r.fluents(&s0), strings(&["(control alice)", "(pile 5)"]));
    assert_eq!(
        legal_texts(&mut r, &s0, 0),
        strings(&["(take 1)", "(take 2)"])
    );
    assert_eq!(legal_texts(&mut r, &s0, 1), strings(&["noop"]));
    assert_eq!(legal_texts(&mut r, &s0, 2), strings(&["noop"]));
    assert_eq!(goals(&mut r, &s0), vec![None, None, None]);
    // Nodes at depth d = sequences of d takes (1 or 2 each, never more than
    // the pile) whose first d-1 takes leave stones. Piles after each depth:
    //   d1: 4 3                       -> 2
    //   d2: 3 2 | 2 1                 -> 4
    //   d3: 2 1 | 1 0 | 1 0 | 0       -> 7  (3 empty piles: terminal)
    //   d4: from 2,1,1,1: 1 0 | 0 | 0 | 0   -> 5  (4 terminal)
    //   d5: from the pile of 1: 0     -> 1
    //   d6: nothing left to expand    -> 0
    // (3 + 4 + 1 = 8 finished games = the 8 ordered ways to write 5 as 1s and 2s.)
    let levels = perft(&mut r, 6).expect("perft");
    check_perft(&levels, &[1, 2, 4, 7, 5, 1, 0]);
}

#[test]
fn threeplayer_carol_takes_the_last_stone() {
    let mut r = load("threeplayer");
    // 5 -2-> 3 -2-> 1 -1-> 0: alice, bob, carol; carol emptied the pile.
    let states = run_alternating(&mut r, &["(take 2)", "(take 2)", "(take 1)"], 3);
    assert_terminal_only_at_end(&mut r, &states);
    let last = states.last().unwrap();
    assert!(r.fluents(last).contains(&"(pile 0)".to_string()));
    assert_eq!(goals(&mut r, last), vec![Some(0), Some(0), Some(100)]);
}

#[test]
fn threeplayer_bob_wins_when_everyone_takes_one() {
    let mut r = load("threeplayer");
    // Takes of 1 by alice, bob, carol, alice leave 1 stone with bob to move.
    let states = run_alternating(&mut r, &["(take 1)"; 4], 3);
    let s4 = states.last().unwrap().clone();
    assert!(!r.is_terminal(&s4));
    assert!(r.fluents(&s4).contains(&"(pile 1)".to_string()));
    assert!(r.fluents(&s4).contains(&"(control bob)".to_string()));
    assert_eq!(legal_texts(&mut r, &s4, 0), strings(&["noop"]));
    assert_eq!(legal_texts(&mut r, &s4, 1), strings(&["(take 1)"]));
    assert_eq!(legal_texts(&mut r, &s4, 2), strings(&["noop"]));
    // Taking two from a pile of one is illegal; so is a move out of turn.
    assert!(joint_is_rejected(
        &mut r,
        &s4,
        &["noop", "(take 2)", "noop"]
    ));
    assert!(joint_is_rejected(
        &mut r,
        &s4,
        &["(take 1)", "noop", "noop"]
    ));
    let s5 = play(&mut r, &s4, &["noop", "(take 1)", "noop"]).expect("last stone");
    assert!(r.is_terminal(&s5));
    assert_eq!(goals(&mut r, &s5), vec![Some(0), Some(100), Some(0)]);
}

#[test]
fn threeplayer_alice_wins_on_her_second_turn() {
    let mut r = load("threeplayer");
    // 5 -1-> 4 -1-> 3 -2-> 1 -1-> 0: alice, bob, carol, alice.
    let states = run_alternating(&mut r, &["(take 1)", "(take 1)", "(take 2)", "(take 1)"], 3);
    assert_terminal_only_at_end(&mut r, &states);
    assert_eq!(
        goals(&mut r, states.last().unwrap()),
        vec![Some(100), Some(0), Some(0)]
    );
}

// ---------------------------------------------------------------------------
// maze
// ---------------------------------------------------------------------------

#[test]
fn maze_reach_follows_open_rooms_only() {
    let mut r = load("maze");
    let start = r.initial_state();
    // From room 1 (itself closed): 1→2, then 2→3 and 2→5, 3→4, 5→6; every
    // other room is reachable through open rooms.
    assert_eq!(
        legal_texts(&mut r, &start, 0),
        strings(&["(go 2)", "(go 3)", "(go 4)", "(go 5)", "(go 6)"])
    );
    // After jumping to 2, rooms 1 and 2 are closed: 2→3 and 2→5, then 3→4
    // and 5→6 (3→1 and 4→2 end at closed rooms): rooms 3 to 6.
    let states = run_joint(&mut r, &[strings(&["(go 2)"])]);
    assert_eq!(
        legal_texts(&mut r, &states[1], 0),
        strings(&["(go 3)", "(go 4)", "(go 5)", "(go 6)"])
    );
    // Jumping straight to 6 wins at once.
    let states = run_joint(&mut r, &[strings(&["(go 6)"])]);
    assert!(r.is_terminal(&states[1]));
    assert_eq!(goals(&mut r, &states[1]), vec![Some(100)]);
}
