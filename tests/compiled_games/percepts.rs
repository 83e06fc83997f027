//! GDL-II percepts compiled: along random playouts of the GDL-II games of
//! `games/gdl-ii/`, every compiled strategy answers each role's percepts
//! for a random joint move in each state as the interpreter does (as
//! text), refuses the percepts of `random` as it does, and finds the same
//! random role.

use crate::common;
use gdl_runtime::{percept_texts, PerceptError, Reasoner};
use gdlc::interp::Interpreter;
use gdlc_benches::{
    blindtictactoe, blindtictactoe_demand, blindtictactoe_ground, blindtictactoe_relational,
    description, highcard, highcard_demand, highcard_ground, highcard_relational, montyhall,
    montyhall_demand, montyhall_ground, montyhall_relational, twodice, twodice_demand,
    twodice_ground, twodice_relational,
};

/// Walks `playouts` random playouts of GDL-II game `name` with the
/// compiled reasoner `c` and the interpreter in lockstep; in every state,
/// draws a joint move and compares each role's percepts. Returns how many
/// percepts were compared.
fn same_percepts<C: Reasoner>(name: &str, mut c: C, playouts: usize) -> usize {
    let path = description(&format!("gdl-ii/{name}"));
    let mut i = Interpreter::from_path(&path).expect("the game loads");
    assert!(c.has_percepts() && i.has_percepts(), "{name}");
    assert_eq!(c.random_role(), i.random_role(), "{name}");
    let roles = c.roles().len();
    let mut rng: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut compared = 0;
    let mut legal = Vec::new();
    common::lockstep(&mut c, &mut i, playouts, 100, 7, |c, s, i, t| {
        if c.is_terminal(s) {
            return;
        }
        let (mut joint, mut replayed) = (Vec::new(), Vec::new());
        for role in 0..roles {
            c.legal_moves(s, role, &mut legal);
            rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let m = legal[((rng >> 33) % legal.len() as u64) as usize];
            let text = c.move_text(role, m);
            replayed.push(i.parse_move(role, &text).expect("a move it knows"));
            joint.push(m);
        }
        for role in 0..roles {
            let ours = percept_texts(c, s, &joint, role);
            let reference = percept_texts(i, t, &replayed, role);
            assert_eq!(ours, reference, "{name}: role {role} in {:?}", c.fluents(s));
            if let Ok(p) = &ours {
                compared += p.len();
            }
        }
    });
    if let Some(random) = c.random_role() {
        let s = c.initial_state();
        let joint: Vec<C::Move> = (0..roles)
            .map(|role| {
                c.legal_moves(&s, role, &mut legal);
                legal[0]
            })
            .collect();
        let mut out = Vec::new();
        assert_eq!(
            c.percepts(&s, &joint, random, &mut out),
            Err(PerceptError::RandomRole),
            "{name}"
        );
    }
    compared
}

#[test]
fn every_strategy_answers_percepts_as_the_interpreter() {
    let counts = [
        same_percepts("montyhall", montyhall::Game::new(), 20),
        same_percepts("montyhall", montyhall_ground::Game::new(), 20),
        same_percepts("montyhall", montyhall_relational::Game::new(), 20),
        same_percepts("montyhall", montyhall_demand::Game::new(), 20),
        same_percepts("twodice", twodice::Game::new(), 20),
        same_percepts("twodice", twodice_ground::Game::new(), 20),
        same_percepts("twodice", twodice_relational::Game::new(), 20),
        same_percepts("twodice", twodice_demand::Game::new(), 20),
        same_percepts("blindtictactoe", blindtictactoe::Game::new(), 10),
        same_percepts("blindtictactoe", blindtictactoe_ground::Game::new(), 10),
        same_percepts("blindtictactoe", blindtictactoe_relational::Game::new(), 10),
        same_percepts("blindtictactoe", blindtictactoe_demand::Game::new(), 10),
        same_percepts("highcard", highcard::Game::new(), 10),
        same_percepts("highcard", highcard_ground::Game::new(), 10),
        same_percepts("highcard", highcard_relational::Game::new(), 10),
        same_percepts("highcard", highcard_demand::Game::new(), 10),
    ];
    // Every game has percepts to compare along its playouts.
    assert!(counts.iter().all(|&n| n > 10), "{counts:?}");
}
