//! Whole matches over HTTP on 127.0.0.1 between the player (interpreter,
//! two search threads, 1 s play clock) and a game manager in the test that
//! moves the other roles uniformly at random: every PLAY is answered with
//! a legal move within the play clock, in the game's own case.

use crate::common;

use common::{game, play_match, spawn_player};

#[test]
fn turn_taking_match_in_the_games_own_case() {
    // The manager keeps the description's case, as ggp-base's server does.
    let description = game("tictactoe.kif")
        .replace("mark", "MarK")
        .replace("noop", "NoOp")
        .replace("xplayer", "xPlayer");
    let port = spawn_player(2);
    for role in 0..2 {
        let outcome = play_match(port, &format!("ttt.{role}"), &description, role, 1);
        assert!(!outcome.moves.is_empty());
        for m in &outcome.moves {
            assert!(
                m.starts_with("(MarK ") || m == "NoOp",
                "move {m} not in the game's case"
            );
        }
        // Against random moves, search does not lose tic-tac-toe.
        assert!(outcome.goals[role] >= 50, "goals {:?}", outcome.goals);
    }
}

#[test]
fn simultaneous_move_match() {
    let port = spawn_player(2);
    let outcome = play_match(port, "rps.1", &game("simultaneous.kif"), 1, 1);
    assert!(!outcome.moves.is_empty());
    assert_eq!(outcome.goals.len(), 2);
}

#[test]
fn three_role_match() {
    let port = spawn_player(2);
    let outcome = play_match(port, "nim.1", &game("threeplayer.kif"), 1, 1);
    assert!(!outcome.moves.is_empty());
    assert_eq!(outcome.goals.len(), 3);
}
