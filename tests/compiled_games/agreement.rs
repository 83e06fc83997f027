//! Every compiled strategy against the reference interpreter on every
//! game of the project: the same perft counts, and along random playouts
//! the same legal moves, terminality and goals in every state.

use crate::common;
use gdl_runtime::{perft, Reasoner};
use gdlc::interp::Interpreter;
use gdlc_benches::{
    breakthrough, breakthrough_ground, breakthrough_relational, connectfour, connectfour_ground,
    connectfour_relational, description, maze, maze_ground, maze_relational, simultaneous,
    simultaneous_ground, simultaneous_relational, threeplayer, threeplayer_ground,
    threeplayer_relational, tictactoe, tictactoe_ground, tictactoe_relational,
};

/// Compares `c` with the interpreter on the game `name`.
fn agrees<C: Reasoner>(name: &str, mut c: C, depth: u32, playouts: usize) {
    let mut i = Interpreter::from_path(&description(name)).expect("the game loads");
    let counts = |levels: Vec<gdl_runtime::PerftLevel>| -> Vec<(u64, u64)> {
        levels.iter().map(|l| (l.nodes, l.leaves)).collect()
    };
    assert_eq!(
        counts(perft(&mut c, depth).expect("perft")),
        counts(perft(&mut i, depth).expect("perft")),
        "{name}: perft"
    );
    let roles = c.roles().len();
    let (mut moves, mut reference) = (Vec::new(), Vec::new());
    common::lockstep(
        &mut c,
        &mut i,
        playouts,
        300,
        0x9e37_79b9_7f4a_7c15,
        |c, s, i, t| {
            assert_eq!(c.fluents(s), i.fluents(t), "{name}: state");
            assert_eq!(
                c.is_terminal(s),
                i.is_terminal(t),
                "{name}: terminal in {:?}",
                c.fluents(s)
            );
            for role in 0..roles {
                assert_eq!(c.goal(s, role), i.goal(t, role), "{name}: goal of {role}");
                c.legal_moves(s, role, &mut moves);
                i.legal_moves(t, role, &mut reference);
                let mut mine: Vec<String> = moves.iter().map(|&m| c.move_text(role, m)).collect();
                let mut theirs: Vec<String> =
                    reference.iter().map(|&m| i.move_text(role, m)).collect();
                mine.sort();
                theirs.sort();
                assert_eq!(
                    mine,
                    theirs,
                    "{name}: legal moves of {role} in {:?}",
                    c.fluents(s)
                );
            }
        },
    );
}

#[test]
fn the_compiled_reasoners_agree_with_the_interpreter() {
    agrees("tictactoe", tictactoe::Game::new(), 4, 20);
    agrees("tictactoe", tictactoe_ground::Game::new(), 4, 20);
    agrees("tictactoe", tictactoe_relational::Game::new(), 4, 20);
    agrees("connectfour", connectfour::Game::new(), 3, 5);
    agrees("connectfour", connectfour_ground::Game::new(), 3, 5);
    agrees("connectfour", connectfour_relational::Game::new(), 3, 5);
    agrees("breakthrough", breakthrough::Game::new(), 2, 2);
    agrees("breakthrough", breakthrough_ground::Game::new(), 2, 2);
    agrees("breakthrough", breakthrough_relational::Game::new(), 2, 2);
    agrees("simultaneous", simultaneous::Game::new(), 3, 20);
    agrees("simultaneous", simultaneous_ground::Game::new(), 3, 20);
    agrees("simultaneous", simultaneous_relational::Game::new(), 3, 20);
    agrees("threeplayer", threeplayer::Game::new(), 5, 20);
    agrees("threeplayer", threeplayer_ground::Game::new(), 5, 20);
    agrees("threeplayer", threeplayer_relational::Game::new(), 5, 20);
    agrees("maze", maze::Game::new(), 6, 30);
    agrees("maze", maze_ground::Game::new(), 6, 30);
    agrees("maze", maze_relational::Game::new(), 6, 30);
}
