//! The quick part of the fuzzers, run by `cargo test --workspace`: the
//! generator's games are valid and playable, they exercise every feature,
//! and mutants of the project's games never panic, hang or abort.

use gdl_runtime::Reasoner;
use gdlc::interp::Interpreter;
use gdlc_fuzz::generate;
use gdlc_fuzz::mutation_run::{self, Plan, Worker};
use proptest::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// Plays every line of `game` up to `depth` moves, checking that every role
/// has a legal move in every non-terminal state and a goal in every
/// terminal one (but `random`, which may have none); returns the number of
/// states visited.
fn explore(r: &mut Interpreter, state: &gdlc::interp::State, depth: usize) -> usize {
    let roles = r.roles().len();
    if r.is_terminal(state) {
        let random = r.random_role();
        for role in (0..roles).filter(|&role| random != Some(role)) {
            assert!(r.goal(state, role).is_some(), "role {role} has no goal");
        }
        return 1;
    }
    assert!(depth > 0, "the game did not end within its step counter");
    let mut moves: Vec<Vec<gdlc::interp::Move>> = Vec::new();
    for role in 0..roles {
        let mut out = Vec::new();
        r.legal_moves(state, role, &mut out);
        assert!(!out.is_empty(), "role {role} has no legal move");
        moves.push(out);
    }
    // The first joint move and one other, so the tree stays small.
    let joint_first: Vec<_> = moves.iter().map(|m| m[0]).collect();
    let joint_last: Vec<_> = moves.iter().map(|m| m[m.len() - 1]).collect();
    let mut visited = 1;
    for joint in [joint_first, joint_last] {
        let next = r.next_state(state, &joint);
        visited += explore(r, &next, depth - 1);
    }
    visited
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 50, ..ProptestConfig::default() })]

    /// Every generated game passes `gdlc check` without an error and is
    /// playable: a legal move for every role until it ends, within its
    /// step counter (at most 8 steps), and a goal for every role but `random`
    /// at the end.
    #[test]
    fn generated_games_are_valid_and_playable(seed in any::<u64>()) {
        let game = generate::game(seed);
        let kif = game.kif();
        let loaded = gdlc::load_bytes(format!("s{seed}.kif"), kif.clone().into_bytes())
            .unwrap_or_else(|e| panic!("seed {seed}: generator bug, invalid game:\n{e}\n{kif}"));
        let mut r = Interpreter::new(&loaded);
        let initial = r.initial_state();
        prop_assert!(explore(&mut r, &initial, 9) >= 1);
    }
}

/// Whether the demand strategy walks some ray of generated game `seed`
/// (its description `kif`) by a loop.
fn walks_a_ray(seed: u64, kif: String) -> bool {
    let loaded = gdlc::load_bytes(format!("s{seed}.kif"), kif.into_bytes()).expect("valid");
    let c = gdlc::compile::analyze_with(&loaded, gdlc::compile::Strategy::Demand);
    c.ok().and_then(|c| {
        let relational = c.relational()?;
        Some(relational.top_down.walks.iter().any(Option::is_some))
    }) == Some(true)
}

/// Some generated games have a ray the demand strategy walks by loops
/// (`compile::demand::walks`), so that the differential fuzzing compares
/// the walks with the interpreter.
#[test]
fn some_games_have_rays_the_demand_strategy_walks() {
    let walked = (0..100u64)
        .filter(|&seed| {
            let kif = generate::game(seed).kif();
            walks_a_ray(seed, kif)
        })
        .count();
    assert!(walked >= 10, "{walked} of 100 games take a walk");
}

/// Some generated rays step by `(plus ?x 1 ?y)`, a static relation of
/// three arguments with a constant (as skirmish's), and are walked too.
#[test]
fn some_rays_step_by_a_static_literal_with_a_constant_and_are_walked() {
    let walked = (0..1000u64)
        .filter(|&seed| {
            let kif = generate::game(seed).kif();
            if !kif.contains("(plus ?x 1 ?y)") && !kif.contains("(plus ?y 1 ?x)") {
                return false;
            }
            walks_a_ray(seed, kif)
        })
        .count();
    assert!(walked >= 10, "{walked} of 1000 games walk a ray along plus");
}

#[test]
fn the_games_exercise_every_feature() {
    let mut counts = [0usize; 9];
    for seed in 0..200 {
        let f = generate::game(seed).features();
        let flags = [
            f.recursion,
            f.successor_recursion,
            f.negation,
            f.functions,
            f.simultaneous,
            f.disjunction,
            f.distinct,
            f.chance,
            f.percepts,
        ];
        for (c, flag) in counts.iter_mut().zip(flags) {
            *c += usize::from(flag);
        }
    }
    // recursion, successor recursion, negation, functions, simultaneous, or,
    // distinct, random, sees
    assert!(counts.iter().all(|&c| c >= 20), "{counts:?} of 200 games");
    assert!(counts[2] > 150, "negation in {} of 200 games", counts[2]);
}

#[test]
fn the_same_seed_gives_the_same_game() {
    assert_eq!(generate::game(7).kif(), generate::game(7).kif());
    assert_ne!(generate::game(7).kif(), generate::game(8).kif());
}

#[test]
fn mutants_of_the_project_games_never_panic_hang_or_abort() {
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games");
    let mut files: Vec<_> = std::fs::read_dir(&games)
        .expect("games/")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "kif"))
        .collect();
    files.sort();
    let plan = Plan {
        files,
        seed: 0,
        mutants: Some(300),
        until: Instant::now() + Duration::from_secs(120),
        limit: Duration::from_secs(20),
        shrink_time: Duration::from_secs(30),
    };
    let mut worker = Worker::new(env!("CARGO_BIN_EXE_gdlc-fuzz").into(), 4 << 30);
    let stats = mutation_run::run(&plan, &mut worker, None);
    assert_eq!(stats.mutants, 300, "{}", stats.report(6));
    assert!(stats.findings.is_empty(), "{}", stats.report(6));
    assert!(stats.skipped.is_empty(), "{}", stats.report(6));
    // Both sides are exercised: mutants accepted and played, and rejected.
    assert!(
        stats.accepted > 20 && stats.rejected > 100,
        "{}",
        stats.report(6)
    );
}

#[test]
fn the_worker_answers_a_valid_and_an_invalid_description() {
    let mut worker = Worker::new(env!("CARGO_BIN_EXE_gdlc-fuzz").into(), 4 << 30);
    let limit = Duration::from_secs(20);
    let valid = generate::game(1).kif();
    assert_eq!(
        worker.ask(valid.as_bytes(), limit),
        mutation_run::Answer::Accepted
    );
    assert_eq!(worker.ask(b"(role", limit), mutation_run::Answer::Rejected);
    assert_eq!(
        worker.ask(b"(role r) (<= p (not p))", limit),
        mutation_run::Answer::Rejected
    );
}
