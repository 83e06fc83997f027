//! The factors found in small games and in the corpus's
//! connectFourSimultaneous, and the factored search's choices.

use super::*;
use crate::search::tests::interpreter;
use gdlc::interp::{Interpreter, Move};

/// Two races side by side: each board's count starts at 0, and each step
/// red adds 1 or 2 on one board while black does on the other (the boards
/// swap every step, as in connectFourSimultaneous). Whoever brings a
/// board's count to 4 or more wins; both at once draw. On each board the
/// first mover wins by adding 1 (the other then leaves 2 or 3), and loses
/// by adding 2 (the other then reaches 4). Who reached 4 is kept per
/// board: a fluent that moves on both boards change joins them.
const RACES: &str = "(role red) (role black)
    (init (control red 1)) (init (control black 2))
    (init (count 1 0)) (init (count 2 0))
    (add 0 1 1) (add 0 2 2) (add 1 1 2) (add 1 2 3) (add 2 1 3) (add 2 2 4)
    (add 3 1 4) (add 3 2 5)
    (big 4) (big 5)
    (<= (legal ?r (step ?k ?b)) (true (control ?r ?b)) (add 0 ?k ?k))
    (<= (next (count ?b ?m)) (does ?r (step ?k ?b)) (true (count ?b ?n)) (add ?n ?k ?m))
    (<= (next (reached ?r ?b)) (does ?r (step ?k ?b)) (true (count ?b ?n)) (add ?n ?k ?m)
        (big ?m))
    (<= (won ?r) (true (reached ?r ?b)))
    (<= (next (control red ?b)) (true (control black ?b)))
    (<= (next (control black ?b)) (true (control red ?b)))
    (<= terminal (won ?r))
    (<= (goal red 100) (won red) (not (won black)))
    (<= (goal red 50) (won red) (won black))
    (<= (goal red 0) (not (won red)))
    (<= (goal black 100) (won black) (not (won red)))
    (<= (goal black 50) (won red) (won black))
    (<= (goal black 0) (not (won black)))";

/// The factors of `text` from its initial state, and its interpreter.
fn factors_of(text: &str) -> (Interpreter, Option<Factoring<Move>>) {
    let mut r = interpreter(text);
    let initial = r.initial_state();
    let found = find(&mut r, &initial, 7);
    (r, found)
}

/// `role`'s move `text`.
fn mv(r: &mut Interpreter, role: usize, text: &str) -> Move {
    r.parse_move(role, text)
        .unwrap_or_else(|| panic!("no move {text}"))
}

#[test]
fn two_races_fall_into_their_two_boards() {
    let (mut r, found) = factors_of(RACES);
    let found = found.expect("two factors");
    assert_eq!(found.count(), 2);
    let red_on_1 = mv(&mut r, 0, "(step 1 1)");
    let black_on_1 = mv(&mut r, 1, "(step 2 1)");
    let red_on_2 = mv(&mut r, 0, "(step 1 2)");
    let board_1 = found.factor_of(0, &[red_on_1]);
    assert!(board_1.is_some());
    assert_eq!(found.factor_of(1, &[black_on_1]), board_1);
    assert_ne!(found.factor_of(0, &[red_on_2]), board_1);
    assert_eq!(found.factor_of(0, &[red_on_1, red_on_2]), None);
}

#[test]
fn races_on_boards_of_their_own_are_left_to_the_joint_tree() {
    // Red always on board 1 and black on board 2: each board's factor
    // holds one role's moves.
    let swap = "(<= (next (control red ?b)) (true (control black ?b)))
    (<= (next (control black ?b)) (true (control red ?b)))";
    assert!(RACES.contains(swap));
    let own = RACES.replace(swap, "(<= (next (control ?r ?b)) (true (control ?r ?b)))");
    assert!(factors_of(&own).1.is_none());
}

#[test]
fn turn_taking_and_truly_simultaneous_games_do_not_fall_into_factors() {
    for game in ["tictactoe.kif", "simultaneous.kif"] {
        let text = crate::search::tests::project_game(game);
        assert!(factors_of(&text).1.is_none(), "{game}");
    }
}

#[test]
fn connect_four_simultaneous_falls_into_its_two_boards() {
    let path = format!(
        "{}/../../shared/games/connectFourSimultaneous.kif",
        env!("CARGO_MANIFEST_DIR")
    );
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped: {path} is absent");
        return;
    };
    let (mut r, found) = factors_of(&text);
    let found = found.expect("two factors");
    assert_eq!(found.count(), 2);
    let (red, black) = (0, 1);
    let on_1 = found.factor_of(red, &[mv(&mut r, red, "(drop 4 1)")]);
    assert!(on_1.is_some());
    assert_eq!(
        found.factor_of(black, &[mv(&mut r, black, "(drop 3 1)")]),
        on_1
    );
    assert_ne!(
        found.factor_of(black, &[mv(&mut r, black, "(drop 3 2)")]),
        on_1
    );
}

/// The factored search of [`RACES`] after `iterations` (seeded with
/// `seed`), and its interpreter.
fn races_searched(iterations: usize, seed: u64) -> (Interpreter, Factored<Interpreter>) {
    let (mut r, found) = factors_of(RACES);
    let initial = r.initial_state();
    let found = Arc::new(found.expect("two factors"));
    let mut trees = Factored::new(&mut r, initial, found, 100_000, seed);
    for _ in 0..iterations {
        trees.iterate(&mut r);
    }
    (r, trees)
}

/// `role`'s most visited move at the root, as text.
fn most_visited(r: &Interpreter, trees: &Factored<Interpreter>, role: usize) -> String {
    let moves = trees.root_moves(role);
    let (m, _) = moves.iter().max_by_key(|(_, s)| s.visits).expect("moves");
    r.move_text(role, *m)
}

#[test]
fn each_role_chooses_its_winning_first_move_in_its_own_tree() {
    for seed in 0..5 {
        let (r, trees) = races_searched(3_000, seed);
        assert_eq!(most_visited(&r, &trees, 0), "(step 1 1)", "seed {seed}");
        assert_eq!(most_visited(&r, &trees, 1), "(step 1 2)", "seed {seed}");
        // Each tree branches on one role's two moves a step, the joint
        // tree on both roles' four joint moves: at most 2 + 4 + 8 + 16
        // nodes below each root in the four steps a race lasts.
        assert!(trees.len() <= 2 * 31, "seed {seed}: {} nodes", trees.len());
        assert_eq!(trees.iterations(), 3_000);
    }
}

#[test]
fn the_trees_keep_what_lies_below_the_move_played() {
    let (mut r, mut trees) = races_searched(2_000, 1);
    let joint = [mv(&mut r, 0, "(step 1 1)"), mv(&mut r, 1, "(step 1 2)")];
    trees.advance(&mut r, &joint);
    // Black now moves on board 1 and red on board 2, each as second
    // mover: adding 2 there reaches 3, adding 1 reaches 2; the other
    // then wins either way, but these roots were searched already.
    let visits: u64 = (0..2)
        .flat_map(|role| trees.root_moves(role))
        .map(|(_, s)| s.visits)
        .sum();
    assert!(visits > 100, "{visits} visits kept");
    assert!(!trees.root_is_terminal());
    assert!(!trees.is_empty());
    let before = trees.len();
    trees.iterate(&mut r);
    assert!(trees.len() <= before + 2);
}
