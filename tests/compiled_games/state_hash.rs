//! `Reasoner::state_hash` is the same Zobrist hash in every backend: along
//! random playouts of the project's games, the compiled reasoners (every
//! strategy) hash each state as the interpreter does, equal states hash
//! equally and the distinct states met get distinct hashes; and every
//! backend builds each state back from its fluents
//! (`Reasoner::state_from_fluents`).

use crate::common;
use gdl_runtime::Reasoner;
use gdlc::interp::Interpreter;
use gdlc_benches::{
    breakthrough, breakthrough_ground, breakthrough_relational, connectfour, connectfour_ground,
    connectfour_relational, description, simultaneous, simultaneous_ground,
    simultaneous_relational, threeplayer, threeplayer_ground, threeplayer_relational, tictactoe,
    tictactoe_ground, tictactoe_relational,
};
use std::collections::HashMap;

/// Plays `playouts` random playouts with the compiled reasoner `c` and
/// replays them in the interpreter, comparing the hashes state by state.
fn same_hashes<C: Reasoner>(name: &str, mut c: C, playouts: usize) {
    let mut i = Interpreter::from_path(&description(name)).expect("the game loads");
    let mut seen: HashMap<u64, Vec<String>> = HashMap::new();
    common::lockstep(
        &mut c,
        &mut i,
        playouts,
        200,
        0x2545_f491_4f6c_dd1d,
        |c, s, i, t| {
            let hash = c.state_hash(s);
            assert_eq!(hash, i.state_hash(t), "{name}: {:?}", c.fluents(s));
            let fluents = c.fluents(s);
            assert_eq!(c.state_from_fluents(&fluents).as_ref(), Some(s), "{name}");
            assert_eq!(i.state_from_fluents(&fluents).as_ref(), Some(t), "{name}");
            let earlier = seen.entry(hash).or_insert_with(|| fluents.clone());
            assert_eq!(
                *earlier, fluents,
                "{name}: two states share the hash {hash:x}"
            );
        },
    );
    assert!(seen.len() > 5, "{name}: only {} states", seen.len());
    let unknown = ["(not_a_fluent_of_any_game 1)".to_string()];
    assert_eq!(c.state_from_fluents(&unknown), None, "{name}");
    let unreadable = ["(cell 1".to_string()];
    assert_eq!(c.state_from_fluents(&unreadable), None, "{name}");
    assert_eq!(i.state_from_fluents(&unreadable), None, "{name}");
}

#[test]
fn every_backend_hashes_a_state_alike() {
    same_hashes("tictactoe", tictactoe::Game::new(), 20);
    same_hashes("tictactoe", tictactoe_ground::Game::new(), 20);
    same_hashes("tictactoe", tictactoe_relational::Game::new(), 20);
    same_hashes("connectfour", connectfour::Game::new(), 5);
    same_hashes("connectfour", connectfour_ground::Game::new(), 5);
    same_hashes("connectfour", connectfour_relational::Game::new(), 5);
    same_hashes("breakthrough", breakthrough::Game::new(), 2);
    same_hashes("breakthrough", breakthrough_ground::Game::new(), 2);
    same_hashes("breakthrough", breakthrough_relational::Game::new(), 2);
    same_hashes("simultaneous", simultaneous::Game::new(), 20);
    same_hashes("simultaneous", simultaneous_ground::Game::new(), 20);
    same_hashes("simultaneous", simultaneous_relational::Game::new(), 20);
    same_hashes("threeplayer", threeplayer::Game::new(), 20);
    same_hashes("threeplayer", threeplayer_ground::Game::new(), 20);
    same_hashes("threeplayer", threeplayer_relational::Game::new(), 20);
}
