//! GDL-II (chance and imperfect information) through the reference
//! interpreter: the role `random`, the percepts `sees` gives, the errors for
//! what cannot be asked; and the compiled backend's traces, percepts
//! included, equal to the interpreter's.
//!
//! Every expected number is derived by hand from the rules of the game
//! (Monty Hall: switching wins 2/3 of the time, staying 1/3), never
//! obtained by running gdlc.

use crate::common;

use common::{project_game, project_game_path};
use gdl_runtime::{flat_monte_carlo, perft, McBudget, PerceptError, Reasoner};
use gdlc::interp::Interpreter;

type Move = <Interpreter as Reasoner>::Move;

/// The interpreter of the project's game `games/NAME.kif`.
fn load(name: &str) -> Interpreter {
    let path = project_game_path(name);
    Interpreter::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The leaves of each perft depth of `r` up to `depth`.
fn leaves(r: &mut Interpreter, depth: u32) -> Vec<u64> {
    perft(r, depth).unwrap().iter().map(|l| l.leaves).collect()
}

fn monty_hall() -> Interpreter {
    load("gdl-ii/montyhall")
}

/// The joint move of the texts, one per role in declaration order.
fn joint(r: &mut Interpreter, texts: &[&str]) -> Vec<Move> {
    (0..texts.len())
        .map(|role| r.parse_move(role, texts[role]).expect("a move"))
        .collect()
}

/// The first role's percepts after `joint` in `state`, as text.
fn seen(
    r: &mut Interpreter,
    state: &<Interpreter as Reasoner>::State,
    joint: &[Move],
) -> Vec<String> {
    seen_by(r, state, joint, 0)
}

/// The percepts of `role` after `joint` in `state`, as sorted text.
fn seen_by(
    r: &mut Interpreter,
    state: &<Interpreter as Reasoner>::State,
    joint: &[Move],
    role: usize,
) -> Vec<String> {
    gdl_runtime::percept_texts(r, state, joint, role).expect("the role perceives")
}

#[test]
fn monty_hall_declares_random_and_the_candidate_sees_the_opened_door() {
    let mut r = monty_hall();
    assert_eq!(r.roles(), ["candidate", "random"]);
    assert_eq!(r.random_role(), Some(1));
    // The car behind door 1, the candidate on door 2: the only door the
    // host may open is 3, and the candidate sees "3" and nothing else.
    let s0 = r.initial_state();
    let j1 = joint(&mut r, &["(choose 2)", "(hide_car 1)"]);
    assert_eq!(
        seen(&mut r, &s0, &j1),
        Vec::<String>::new(),
        "hiding the car is unseen"
    );
    let s1 = r.next_state(&s0, &j1);
    let mut opens = Vec::new();
    r.legal_moves(&s1, 1, &mut opens);
    let opens: Vec<String> = opens.iter().map(|&m| r.move_text(1, m)).collect();
    assert_eq!(opens, ["(open_door 3)"]);
    let j2 = joint(&mut r, &["noop", "(open_door 3)"]);
    assert_eq!(seen(&mut r, &s1, &j2), ["3"]);
    let s2 = r.next_state(&s1, &j2);
    let j3 = joint(&mut r, &["switch", "noop"]);
    assert_eq!(seen(&mut r, &s2, &j3), Vec::<String>::new());
    let s3 = r.next_state(&s2, &j3);
    assert!(r.is_terminal(&s3));
    assert_eq!(
        r.goal(&s3, 0),
        Some(100),
        "switching from 2 lands on the car at 1"
    );
}

#[test]
fn percepts_of_random_of_no_role_or_of_a_short_joint_move_are_refused() {
    let mut r = monty_hall();
    let s0 = r.initial_state();
    let j1 = joint(&mut r, &["(choose 2)", "(hide_car 1)"]);
    let mut out = vec![7];
    assert_eq!(
        r.percepts(&s0, &j1, 1, &mut out),
        Err(PerceptError::RandomRole)
    );
    assert!(out.is_empty(), "out is cleared even when refused");
    assert_eq!(
        r.percepts(&s0, &j1, 2, &mut out),
        Err(PerceptError::NoSuchRole { role: 2, roles: 2 })
    );
    assert_eq!(
        r.percepts(&s0, &j1[..1], 0, &mut out),
        Err(PerceptError::JointMoveLength { moves: 1, roles: 2 })
    );
    assert!(PerceptError::RandomRole.to_string().contains("`random`"));
}

/// A splitmix64 stream: the playouts' fixed-seed draws.
struct Draws(u64);

impl Draws {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

#[test]
fn in_random_playouts_switching_wins_two_thirds_and_staying_one_third() {
    let mut r = monty_hall();
    let mut draws = Draws(2026);
    // [stayed, switched] × [playouts, wins]
    let mut tally = [[0u32; 2]; 2];
    let mut legal = Vec::new();
    for _ in 0..3000 {
        let mut state = r.initial_state();
        let mut switched = false;
        while !r.is_terminal(&state) {
            let mut moves = Vec::new();
            for role in 0..2 {
                r.legal_moves(&state, role, &mut legal);
                let m = legal[draws.below(legal.len())];
                switched |= r.move_text(role, m) == "switch";
                moves.push(m);
            }
            state = r.next_state(&state, &moves);
        }
        let t = &mut tally[usize::from(switched)];
        t[0] += 1;
        t[1] += u32::from(r.goal(&state, 0) == Some(100));
    }
    let rate = |t: [u32; 2]| f64::from(t[1]) / f64::from(t[0]);
    // About 1 500 playouts each: a standard deviation near 0.012, and the
    // bounds 3.5 of them away.
    assert!(tally[0][0] > 1300 && tally[1][0] > 1300, "{tally:?}");
    let (stay, switch) = (rate(tally[0]), rate(tally[1]));
    eprintln!(
        "switching won {switch:.3} of {} playouts, staying {stay:.3} of {}",
        tally[1][0], tally[0][0]
    );
    assert!(
        (0.625..=0.709).contains(&switch),
        "switching won {switch:.3}"
    );
    assert!((0.291..=0.375).contains(&stay), "staying won {stay:.3}");
}

#[test]
fn a_gdl_game_has_no_random_role_and_no_percepts() {
    let mut r = load("tictactoe");
    assert_eq!(r.random_role(), None);
    let s0 = r.initial_state();
    let mut legal = Vec::new();
    let j: Vec<Move> = (0..2)
        .map(|role| {
            r.legal_moves(&s0, role, &mut legal);
            legal[0]
        })
        .collect();
    let mut out = Vec::new();
    assert_eq!(r.percepts(&s0, &j, 0, &mut out), Ok(()));
    assert!(out.is_empty());
}

#[test]
fn the_compiled_backend_traces_percepts_as_the_interpreter() {
    let Some(_) = common::cargo() else { return };
    for game in ["gdl-ii/montyhall", "gdl-ii/highcard"] {
        let path = project_game(game);
        let args = ["trace", &path, "--depth", "2", "--max-steps", "40"];
        let interpreted = common::gdlc_cached(&args).json();
        let compiled = common::gdlc_cached(&[&args[..], &["--backend", "compiled"]].concat());
        assert_eq!(compiled.code, 0, "{}", compiled.stderr);
        assert_eq!(compiled.json(), interpreted, "{game}");
        let steps = &interpreted["playouts"][0]["steps"];
        assert!(steps[0].get("sees").is_some(), "{game}: {steps}");
    }
}

/// The percepts of each step of a trace's playout, by step, for `role`.
fn trace_percepts(trace: &serde_json::Value, playout: usize, role: &str) -> Vec<Vec<String>> {
    trace["playouts"][playout]["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .map(|step| {
            let seen = step["sees"][role].as_array().expect("a percept list");
            seen.iter()
                .map(|p| p.as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn a_trace_records_each_roles_percepts_in_a_gdl_ii_game_only() {
    // The conformance playouts take, at step t, role i's sorted legal move
    // (7t + 13i + 5·seed) mod count. Seed 0: the candidate chooses 1, the
    // car goes behind 2, the host must open 3, the candidate stays: 0.
    // Seed 1: it chooses 3, the car goes behind 1, the host opens 2, the
    // candidate switches to 1: 100.
    let mut r = monty_hall();
    let trace = gdlc::trace::trace(&mut r, "montyhall", 1, None, 10).expect("a trace");
    let none = Vec::<String>::new();
    assert_eq!(
        trace_percepts(&trace, 0, "candidate"),
        [none.clone(), vec!["3".into()], none.clone()]
    );
    assert_eq!(
        trace_percepts(&trace, 1, "candidate"),
        [none.clone(), vec!["2".into()], none]
    );
    assert_eq!(trace["playouts"][0]["goals"]["candidate"], 0);
    assert_eq!(trace["playouts"][1]["goals"]["candidate"], 100);
    let step = &trace["playouts"][0]["steps"][1]["sees"];
    assert!(
        step.get("random").is_none(),
        "random perceives nothing: {step}"
    );

    let mut ttt = load("tictactoe");
    let trace = gdlc::trace::trace(&mut ttt, "tictactoe", 1, None, 10).expect("a trace");
    assert!(trace["playouts"][0]["steps"][0].get("sees").is_none());
}

fn two_dice() -> Interpreter {
    load("gdl-ii/twodice")
}

#[test]
fn perft_counts_the_moves_of_random_as_branches() {
    // Three bets times six faces, then one wait times six faces.
    assert_eq!(leaves(&mut two_dice(), 3), [1, 18, 108, 0]);
}

#[test]
fn flat_monte_carlo_draws_random_uniformly_as_the_game_manager_does() {
    // Bets drawn uniformly, fair dice: the bettor wins
    // (15/36 + 6/36 + 15/36) / 3 = 1/3 of the playouts. A random role
    // played as an opponent, or dice drawn unevenly, would move this.
    let report = flat_monte_carlo(
        &mut two_dice(),
        McBudget::Playouts(6000),
        7,
        10,
        &mut |_| {},
    )
    .expect("playouts");
    // The standard deviation of the mean is about 0.61 points; the bounds
    // are 4 of them away.
    let mean = report.mean_goals[0];
    assert!(
        (30.9..=35.8).contains(&mean),
        "the bettor's mean goal {mean:.2}"
    );
}

#[test]
fn the_bettor_sees_each_roll_as_it_is_made() {
    let mut r = two_dice();
    let s0 = r.initial_state();
    let j1 = joint(&mut r, &["(bet seven)", "(roll 3)"]);
    assert_eq!(seen(&mut r, &s0, &j1), ["(die 1 3)"]);
    let s1 = r.next_state(&s0, &j1);
    let j2 = joint(&mut r, &["wait", "(roll 4)"]);
    assert_eq!(seen(&mut r, &s1, &j2), ["(die 2 4)"]);
    let s2 = r.next_state(&s1, &j2);
    assert!(r.is_terminal(&s2));
    assert_eq!(r.goal(&s2, 0), Some(100), "3 + 4 = 7");
}

fn blind_tic_tac_toe() -> Interpreter {
    load("gdl-ii/blindtictactoe")
}

#[test]
fn blind_tic_tac_toe_branches_on_what_each_player_knows() {
    // x tries any of 9 cells, o any of 9 (it does not see x's mark), then
    // each tries one of the 8 cells it has not tried.
    assert_eq!(leaves(&mut blind_tic_tac_toe(), 4), [1, 9, 81, 648, 5184]);
}

#[test]
fn in_blind_tic_tac_toe_only_the_mover_sees_whether_its_mark_was_placed() {
    let mut r = blind_tic_tac_toe();
    assert_eq!(r.random_role(), None);
    let s0 = r.initial_state();
    let j1 = joint(&mut r, &["(mark 2 2)", "noop"]);
    let mut o_sees = Vec::new();
    assert_eq!(seen(&mut r, &s0, &j1), ["(placed yes)"]);
    r.percepts(&s0, &j1, 1, &mut o_sees).unwrap();
    assert!(o_sees.is_empty(), "o sees nothing of x's move");
    let s1 = r.next_state(&s0, &j1);
    // o tries the cell x holds: the attempt is lost, and o learns it.
    let j2 = joint(&mut r, &["noop", "(mark 2 2)"]);
    r.percepts(&s1, &j2, 1, &mut o_sees).unwrap();
    let texts: Vec<String> = o_sees.iter().map(|&p| r.percept_text(p).unwrap()).collect();
    assert_eq!(texts, ["(placed no)"]);
    assert_eq!(
        seen(&mut r, &s1, &j2),
        Vec::<String>::new(),
        "x sees nothing"
    );
    let s2 = r.next_state(&s1, &j2);
    assert!(r.fluents(&s2).contains(&"(cell 2 2 x)".to_string()));
    // Back to x, then o may not try (2 2) again: 8 cells left to try.
    let j3 = joint(&mut r, &["(mark 1 1)", "noop"]);
    let s3 = r.next_state(&s2, &j3);
    let mut legal = Vec::new();
    r.legal_moves(&s3, 1, &mut legal);
    assert_eq!(legal.len(), 8);
}

fn high_card() -> Interpreter {
    load("gdl-ii/highcard")
}

#[test]
fn high_card_shuffles_every_order_then_branches_on_the_players_only() {
    // The dealer's shuffle: 4, 4·3, 4·3·2 and 4! orders; the deal adds no
    // branch; then keep or swap for player1, then for player2.
    assert_eq!(
        leaves(&mut high_card(), 8),
        [1, 4, 12, 24, 24, 24, 48, 96, 0]
    );
}

#[test]
fn in_high_card_a_player_sees_its_own_hand_and_everyone_sees_the_actions() {
    let mut r = high_card();
    assert_eq!(r.random_role(), Some(2));
    let mut state = r.initial_state();
    // The deck, top to bottom: c3, c1, c4, c2.
    for card in ["c3", "c1", "c4", "c2"] {
        let j = joint(&mut r, &["noop", "noop", &format!("(shuffle {card})")]);
        assert!(
            seen_by(&mut r, &state, &j, 0).is_empty(),
            "the shuffle is unseen"
        );
        state = r.next_state(&state, &j);
    }
    let deal = joint(&mut r, &["noop", "noop", "deal"]);
    assert_eq!(seen_by(&mut r, &state, &deal, 0), ["(hand c3)"]);
    assert_eq!(seen_by(&mut r, &state, &deal, 1), ["(hand c1)"]);
    state = r.next_state(&state, &deal);
    let swap = joint(&mut r, &["swap", "noop", "noop"]);
    assert_eq!(
        seen_by(&mut r, &state, &swap, 0),
        ["(did player1 swap)", "(hand c4)"]
    );
    assert_eq!(seen_by(&mut r, &state, &swap, 1), ["(did player1 swap)"]);
    state = r.next_state(&state, &swap);
    let keep = joint(&mut r, &["noop", "keep", "noop"]);
    assert_eq!(seen_by(&mut r, &state, &keep, 0), ["(did player2 keep)"]);
    state = r.next_state(&state, &keep);
    assert!(r.is_terminal(&state));
    // c4 (4) against c1 (1).
    assert_eq!((r.goal(&state, 0), r.goal(&state, 1)), (Some(100), Some(0)));
}

#[test]
fn random_without_a_legal_move_is_a_clear_error_not_a_panic() {
    // random may roll only once; the second step has no legal move for it.
    let text = "(role p) (role random) (init (round 1))
        (<= (legal p go) (true (round ?r)))
        (<= (legal random roll) (true (round 1)))
        (<= (next (round 2)) (true (round 1)))
        (<= terminal (true (round 3)))
        (goal p 0) (goal random 0)";
    let file = gdlc::diagnostics::SourceFile {
        name: "stuck.kif".into(),
        text: text.into(),
    };
    let mut r = Interpreter::new(&gdlc::load_source(file).expect("valid GDL-II"));
    let refused = flat_monte_carlo(&mut r, McBudget::Playouts(1), 1, 10, &mut |_| {});
    let why = refused.expect_err("random has no legal move in round 2");
    assert!(
        why.to_string().contains("role `random` has no legal move"),
        "{why}"
    );
}
