//! The search's tests: small games whose best moves and values are known.

use super::graph::BURIED_PER_ITERATION;
use super::*;
use gdlc::interp::Interpreter;
use greedy::Ahead;
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::Duration;

/// gdlc's interpreter of the description `text`.
pub(crate) fn interpreter(text: &str) -> Interpreter {
    let loaded = gdlc::load_bytes("t.kif".into(), text.as_bytes().to_vec())
        .unwrap_or_else(|e| panic!("{e}"));
    Interpreter::new(&loaded)
}

/// A one-role puzzle of two steps: only `(pick b)` then `(pick a)`
/// scores 100.
const PUZZLE: &str = "(role p) (init (step 0)) (succ 0 1) (succ 1 2)
    (choice a) (choice b)
    (<= (legal p (pick ?c)) (choice ?c))
    (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
    (<= (next (first ?c)) (does p (pick ?c)) (true (step 0)))
    (<= (next (first ?c)) (true (first ?c)))
    (<= (next (second ?c)) (does p (pick ?c)) (true (step 1)))
    (<= terminal (true (step 2)))
    (<= (goal p 100) (true (first b)) (true (second a)))
    (<= (goal p 0) (not (true (first b))))
    (<= (goal p 0) (not (true (second a))))";

/// The interpreter of `text` and a tree of at most `nodes` nodes from
/// its initial state (seeded with `seed`), after `iterations`.
fn searched(
    text: &str,
    nodes: usize,
    seed: u64,
    iterations: usize,
) -> (Interpreter, Tree<Interpreter>) {
    searched_with(text, nodes, seed, iterations, true)
}

/// As [`searched`], with proven values or (`solver` false) without.
fn searched_with(
    text: &str,
    nodes: usize,
    seed: u64,
    iterations: usize,
    solver: bool,
) -> (Interpreter, Tree<Interpreter>) {
    let techniques = Techniques {
        solver,
        ..Techniques::default()
    };
    searched_as(text, nodes, seed, iterations, techniques)
}

/// As [`searched`], with transpositions.
fn searched_as_graph(
    text: &str,
    nodes: usize,
    seed: u64,
    iterations: usize,
) -> (Interpreter, Tree<Interpreter>) {
    let techniques = Techniques {
        transpositions: true,
        ..Techniques::default()
    };
    searched_as(text, nodes, seed, iterations, techniques)
}

/// As [`searched`], with `techniques`.
fn searched_as(
    text: &str,
    nodes: usize,
    seed: u64,
    iterations: usize,
    techniques: Techniques,
) -> (Interpreter, Tree<Interpreter>) {
    let mut r = interpreter(text);
    let initial = r.initial_state();
    let mut tree = Tree::new(&mut r, initial, nodes, seed).with_techniques(techniques);
    for _ in 0..iterations {
        tree.iterate(&mut r);
    }
    (r, tree)
}

fn most_visited<R: Reasoner>(r: &R, tree: &Tree<R>) -> String {
    let (m, _) = tree
        .root_moves(0)
        .into_iter()
        .max_by_key(|(_, s)| s.visits)
        .unwrap();
    r.move_text(0, m)
}

#[test]
fn finds_the_puzzles_solution_and_keeps_the_subtree() {
    // Without proven values, whose proof would stop the visits below.
    let (mut r, mut tree) = searched_with(PUZZLE, 1000, 1, 200, false);
    assert_eq!(most_visited(&r, &tree), "(pick b)");
    assert_eq!(tree.iterations(), 200);
    let b = r.parse_move(0, "(pick b)").unwrap();
    let before = tree.len();
    tree.advance(&mut r, &[b]);
    // The subtree below `(pick b)`: it and its two children.
    assert!(tree.len() == 3 && before == 7, "{before} -> {}", tree.len());
    let visits: u64 = tree.root_moves(0).iter().map(|(_, s)| s.visits).sum();
    assert!(visits > 50, "kept {visits} visits");
    assert_eq!(most_visited(&r, &tree), "(pick a)");
    let a = r.parse_move(0, "(pick a)").unwrap();
    tree.advance(&mut r, &[a]);
    assert!(tree.root_is_terminal());
}

/// The player gambles (random then makes it win or lose, evenly) or
/// plays safe for 40; random's goals are the player's reversed. As a
/// chance node, random makes the gamble worth 50; as an opponent, 0.
const GAMBLE: &str = "(role p) (role random)
    (<= (legal p gamble) (not (true chosen)))
    (<= (legal p safe) (not (true chosen)))
    (<= (legal p noop) (true chosen))
    (<= (legal random noop) (not (true chosen)))
    (<= (legal random (coin ?c)) (true chosen) (side ?c))
    (side heads) (side tails)
    (<= (next chosen) (not (true chosen)))
    (<= (next (took ?m)) (does p ?m) (distinct ?m noop))
    (<= (next (took ?m)) (true (took ?m)))
    (<= (next (landed ?c)) (does random (coin ?c)))
    (<= terminal (true (took safe)))
    (<= terminal (true (landed ?c)))
    (<= (won 100) (true (landed heads)))
    (<= (won 0) (true (landed tails)))
    (<= (won 40) (true (took safe)))
    (<= (goal p ?v) (won ?v))
    (<= (goal random 0) (won 100))
    (<= (goal random 100) (won 0))
    (<= (goal random 60) (won 40))";

#[test]
fn random_is_a_chance_node_not_an_opponent() {
    let (r, tree) = searched(GAMBLE, 1000, 3, 2000);
    assert_eq!(most_visited(&r, &tree), "gamble");
    let (_, gamble) = (tree.root_moves(0).into_iter())
        .find(|&(m, _)| r.move_text(0, m) == "gamble")
        .unwrap();
    let mean = gamble.value / gamble.visits as f64;
    assert!((mean - 0.5).abs() < 0.05, "the gamble is worth {mean}");
}

/// x plays `safe` (40 for x, the game ends) or `trap`, after which o
/// plays `take` (o wins) or `give` (x wins): a proven loss for x, that
/// random playouts score 50.
const TRAP: &str = "(role x) (role o)
    (<= (legal x safe) (not (true played)))
    (<= (legal x trap) (not (true played)))
    (<= (legal o noop) (not (true played)))
    (<= (legal x noop) (true played))
    (<= (legal o take) (true played))
    (<= (legal o give) (true played))
    (<= (next played) (does x trap))
    (<= (next (took safe)) (does x safe))
    (<= (next (took take)) (does o take))
    (<= (next (took give)) (does o give))
    (<= terminal (true (took ?m)))
    (<= (goal x 40) (true (took safe)))
    (<= (goal o 60) (true (took safe)))
    (<= (goal x 0) (true (took take)))
    (<= (goal o 100) (true (took take)))
    (<= (goal x 100) (true (took give)))
    (<= (goal o 0) (true (took give)))";

fn visits_of<R: Reasoner>(r: &R, tree: &Tree<R>, text: &str) -> u64 {
    let mut found = tree.root_moves(0).into_iter();
    let (_, stats) = found.find(|&(m, _)| r.move_text(0, m) == text).unwrap();
    stats.visits
}

#[test]
fn a_proven_loss_is_left_alone_and_the_root_is_proven() {
    let (r, tree) = searched(TRAP, 1000, 4, 300);
    assert_eq!(tree.root_proven(), Some(&[0.4, 0.6][..]));
    assert_eq!(most_visited(&r, &tree), "safe");
    // Proven after both of o's answers were tried: a handful of visits.
    assert!(
        visits_of(&r, &tree, "trap") <= 10,
        "{}",
        visits_of(&r, &tree, "trap")
    );
}

#[test]
fn without_the_solver_the_trap_draws_visits_and_nothing_is_proven() {
    let (r, tree) = searched_with(TRAP, 1000, 4, 300, false);
    assert_eq!(tree.root_proven(), None);
    assert!(
        visits_of(&r, &tree, "trap") > 10,
        "{}",
        visits_of(&r, &tree, "trap")
    );
}

/// [`TRAP`] where o has seven ways to give besides the one to take: found
/// by trying o's answers only after a few visits.
fn wide_trap() -> String {
    [
        (
            "(role o)",
            "(role o) (n 1) (n 2) (n 3) (n 4) (n 5) (n 6) (n 7)",
        ),
        (
            "(legal o give) (true played)",
            "(legal o (give ?n)) (true played) (n ?n)",
        ),
        ("(does o give)", "(does o (give ?n))"),
    ]
    .into_iter()
    .fold(TRAP.to_string(), |text, (from, to)| {
        assert!(text.contains(from), "{from}");
        text.replace(from, to)
    })
}

#[test]
fn two_ply_proofs_find_the_trap_once_the_root_has_the_visits() {
    let with = |minimax| Techniques {
        minimax,
        ..Techniques::default()
    };
    // The root (two moves) is searched two moves deep on its fifth
    // iteration: `trap` lets o take, `safe` is worth 40 to x.
    let wide_trap = wide_trap();
    let unproven_without = (0..10)
        .filter(|&seed| {
            let (_, tree) = searched_as(&wide_trap, 1000, seed, 5, with(true));
            assert_eq!(tree.root_proven(), Some(&[0.4, 0.6][..]), "seed {seed}");
            let (_, tree) = searched_as(&wide_trap, 1000, seed, 5, with(false));
            tree.root_proven().is_none()
        })
        .count();
    assert!(unproven_without > 0);
    // Not before: four iterations leave the root as it was.
    let (_, tree) = searched_as(&wide_trap, 1000, 4, 4, with(true));
    let (_, plain) = searched_as(&wide_trap, 1000, 4, 4, with(false));
    assert_eq!(tree.root_proven(), plain.root_proven());
}

/// x wins at once with `(pick 3)`; its other picks hand the turn to o,
/// and the game goes on (a random walk to 6 steps).
const QUICK_WIN: &str = "(role x) (role o) (init (control x)) (init (step 0))
    (n 1) (n 2) (n 3) (n 4) (n 5)
    (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
    (<= (legal ?r (pick ?n)) (true (control ?r)) (n ?n))
    (<= (legal x noop) (true (control o)))
    (<= (legal o noop) (true (control x)))
    (<= (next won) (does x (pick 3)))
    (<= (next (control o)) (true (control x)))
    (<= (next (control x)) (true (control o)))
    (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
    (<= terminal (true won))
    (<= terminal (true (step 6)))
    (<= (goal x 100) (true won))
    (<= (goal o 0) (true won))
    (<= (goal x 50) (not (true won)))
    (<= (goal o 50) (not (true won)))";

#[test]
fn a_proven_subtree_stays_proven_past_the_move_and_leads_the_search() {
    let (mut r, mut tree) = searched(PUZZLE, 1000, 1, 200);
    assert_eq!(tree.root_proven(), Some(&[1.0][..]));
    assert_eq!(most_visited(&r, &tree), "(pick b)");
    let b = r.parse_move(0, "(pick b)").unwrap();
    tree.advance(&mut r, &[b]);
    assert_eq!(tree.root_proven(), Some(&[1.0][..]));
    for _ in 0..20 {
        tree.iterate(&mut r);
    }
    assert_eq!(most_visited(&r, &tree), "(pick a)");
}

#[test]
fn a_proven_win_takes_every_visit_once_found() {
    let (r, tree) = searched(QUICK_WIN, 1000, 5, 200);
    assert_eq!(tree.root_proven(), Some(&[1.0, 0.0][..]));
    assert_eq!(most_visited(&r, &tree), "(pick 3)");
    // Every iteration after the proof goes to the win.
    assert!(visits_of(&r, &tree, "(pick 3)") >= 190);
}

/// A project game's description.
pub(crate) fn project_game(name: &str) -> String {
    let path = format!("{}/../games/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Iterates `tree` until its root is proven, at most `most` times;
/// the iterations it took.
fn iterate_until_proven<R: Reasoner>(r: &mut R, tree: &mut Tree<R>, most: usize) -> usize {
    let mut n = 0;
    while tree.root_proven().is_none() && n < most {
        tree.iterate(r);
        n += 1;
    }
    n
}

/// The state after `moves` of a two-player turn-taking game, the roles
/// taking turns from the first, the other playing `noop`.
fn after_turns<R: Reasoner>(r: &mut R, moves: &[String]) -> R::State {
    let mut state = r.initial_state();
    for (k, text) in moves.iter().enumerate() {
        let role = k % 2;
        let mover = r.parse_move(role, text).unwrap();
        let idle = r.parse_move(1 - role, "noop").unwrap();
        let joint = if role == 0 {
            [mover, idle]
        } else {
            [idle, mover]
        };
        state = r.next_state(&state, &joint);
    }
    state
}

/// The tic-tac-toe state after the marks `moves` (row, column), x first.
fn after_marks<R: Reasoner>(r: &mut R, moves: &[(u32, u32)]) -> R::State {
    let texts: Vec<String> = (moves.iter())
        .map(|(row, column)| format!("(mark {row} {column})"))
        .collect();
    after_turns(r, &texts)
}

/// The values / 100 of `state` under minimax, each role maximizing
/// its own goal where it alone has a choice: the oracle the solver's
/// proofs are checked against.
fn minimax<R: Reasoner>(r: &mut R, state: &R::State) -> Vec<f64> {
    if r.is_terminal(state) {
        return values(r, state);
    }
    let mut moves: Vec<Vec<R::Move>> = Vec::new();
    for role in 0..r.roles().len() {
        let mut legal = Vec::new();
        r.legal_moves(state, role, &mut legal);
        moves.push(legal);
    }
    let chooser = (0..moves.len()).find(|&k| moves[k].len() > 1).unwrap_or(0);
    let mut best: Option<Vec<f64>> = None;
    for &m in &moves[chooser] {
        let joint: Vec<R::Move> = (0..moves.len())
            .map(|k| if k == chooser { m } else { moves[k][0] })
            .collect();
        let next = r.next_state(state, &joint);
        let v = minimax(r, &next);
        if best.as_ref().is_none_or(|b| v[chooser] > b[chooser]) {
            best = Some(v);
        }
    }
    best.expect("a legal move")
}

#[test]
fn tic_tac_toe_positions_are_proven_with_their_minimax_values() {
    let mut r = interpreter(&project_game("tictactoe.kif"));
    // x in the centre: a draw, o to move. x in the centre and o in a
    // corner: a draw, x to move, seven plies left. Two marks each, x
    // to move: a draw, and a win for x (it blocks o's diagonal with a
    // fork). o to move with a line to complete: a win for o. Minimax
    // confirms each value.
    let (draw, x_wins, o_wins) = (vec![0.5, 0.5], vec![1.0, 0.0], vec![0.0, 1.0]);
    for (marks, known, seed) in [
        (&[(2, 2)][..], &draw, 10),
        (&[(2, 2), (1, 1)][..], &draw, 9),
        (&[(2, 2), (1, 1), (3, 3), (1, 3)][..], &draw, 6),
        (&[(1, 1), (2, 2), (3, 3), (1, 3)][..], &x_wins, 7),
        (&[(1, 2), (1, 1), (2, 1), (2, 2), (3, 2)][..], &o_wins, 8),
    ] {
        let state = after_marks(&mut r, marks);
        assert_eq!(&minimax(&mut r, &state), known, "after {marks:?}");
        let mut tree = Tree::new(&mut r, state, 100_000, seed);
        iterate_until_proven(&mut r, &mut tree, 100_000);
        assert_eq!(tree.root_proven(), Some(&known[..]), "after {marks:?}");
    }
}

#[test]
fn tic_tac_toe_is_proven_a_draw() {
    let mut r = interpreter(&project_game("tictactoe.kif"));
    let initial = r.initial_state();
    let mut tree = Tree::new(&mut r, initial.clone(), 200_000, 11);
    let alone = iterate_until_proven(&mut r, &mut tree, 200_000);
    assert_eq!(tree.root_proven(), Some(&[0.5, 0.5][..]));
    // Sooner with transpositions: each state's proof serves every path.
    let graph = Techniques {
        transpositions: true,
        ..Techniques::default()
    };
    let mut tree = Tree::new(&mut r, initial, 200_000, 11).with_techniques(graph);
    let shared = iterate_until_proven(&mut r, &mut tree, 200_000);
    assert_eq!(tree.root_proven(), Some(&[0.5, 0.5][..]));
    assert!(
        shared * 3 < alone,
        "{shared} iterations with transpositions, {alone} without"
    );
}

#[test]
fn a_won_connect_four_position_is_found_won() {
    let mut r = interpreter(&project_game("connectfour.kif"));
    // red 4, black 1, red 3, black 1: red holds (3 1) and (4 1), black
    // (1 1) and (1 2). Red's drop in column 5 makes three in a row
    // with both ends open at row 1 (columns 2 and 6): black blocks one,
    // red drops in the other. Black cannot make four in two moves.
    let drops: Vec<String> = [4, 1, 3, 1].map(|c| format!("(drop {c})")).to_vec();
    let state = after_turns(&mut r, &drops);
    let mut tree = Tree::new(&mut r, state, 100_000, 7);
    iterate_until_proven(&mut r, &mut tree, 100_000);
    assert_eq!(tree.root_proven(), Some(&[1.0, 0.0][..]));
    // A proven root gives its best child every visit from then on.
    for _ in 0..1_000 {
        tree.iterate(&mut r);
    }
    assert_eq!(most_visited(&r, &tree), "(drop 5)");
}

#[test]
fn a_tree_at_its_node_limit_still_searches() {
    let (mut r, mut tree) = searched(PUZZLE, 1, 2, 100);
    assert_eq!(tree.len(), 1);
    let visits: u64 = tree.root_moves(0).iter().map(|(_, s)| s.visits).sum();
    assert_eq!(visits, 100);
    // Moving past an unexpanded child rebuilds the root from the state.
    let b = r.parse_move(0, "(pick b)").unwrap();
    tree.advance(&mut r, &[b]);
    assert_eq!(tree.root_moves(0).len(), 2);
}

/// A game whose states repeat: a light toggled until the player stops;
/// stopping with the light on scores 100.
const LIGHT: &str = "(role p) (init (light off))
    (legal p toggle) (legal p stop)
    (<= (next (light on)) (does p toggle) (true (light off)))
    (<= (next (light off)) (does p toggle) (true (light on)))
    (<= (next stopped) (does p stop))
    (<= (next (light ?x)) (does p stop) (true (light ?x)))
    (<= terminal (true stopped))
    (<= (goal p 100) (true (light on)))
    (<= (goal p 0) (not (true (light on))))";

#[test]
fn a_game_whose_states_repeat_is_searched_as_a_graph() {
    let (r, tree) = searched_as_graph(LIGHT, 1_000, 3, 2_000);
    // Light off, light on, and stopped with either: a cycle of two nodes
    // and two terminal ones, the win proven through the cycle.
    assert_eq!(tree.len(), 4);
    assert_eq!(tree.root_proven(), Some(&[1.0][..]));
    assert_eq!(most_visited(&r, &tree), "toggle");
    // Unproven, the search goes round the cycle: back at the root's state,
    // it finds the root.
    let graph = Techniques {
        solver: false,
        transpositions: true,
        ..Techniques::default()
    };
    let (_, tree) = searched_as(LIGHT, 1_000, 3, 2_000, graph);
    assert_eq!(tree.len(), 4);
}

/// Whether two nodes of `tree` hold the same state, and the most parents
/// a node has.
fn duplicates_and_parents<R: Reasoner>(tree: &Tree<R>) -> (bool, usize) {
    let states: std::collections::HashSet<&R::State> =
        tree.nodes.iter().map(|n| &n.state).collect();
    let parents = tree.nodes.iter().map(|n| n.parents().count()).max();
    (states.len() < tree.len(), parents.unwrap_or(0))
}

#[test]
fn transposed_states_share_one_node() {
    let game = project_game("tictactoe.kif");
    let (_, tree) = searched_as_graph(&game, 100_000, 5, 3_000);
    let (duplicates, parents) = duplicates_and_parents(&tree);
    assert!(!duplicates);
    // Three marks in three orders (x, o, x) reach one state.
    assert!(parents >= 2, "{parents}");
    let (_, tree) = searched(&game, 100_000, 5, 3_000);
    assert_eq!(duplicates_and_parents(&tree), (true, 1));
}

/// Eight choices of `good` or `bad`; the goal is 100 times the share of
/// `good` ones: every `good` is better whatever the state.
const EIGHT_CHOICES: &str = "(role p) (init (step 0)) (init (score 0))
    (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
    (value 0 0) (value 1 12) (value 2 25) (value 3 37) (value 4 50)
    (value 5 62) (value 6 75) (value 7 87) (value 8 100)
    (legal p good) (legal p bad)
    (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
    (<= (next (score ?n)) (does p good) (true (score ?m)) (succ ?m ?n))
    (<= (next (score ?m)) (does p bad) (true (score ?m)))
    (<= terminal (true (step 8)))
    (<= (goal p ?g) (true (score ?s)) (value ?s ?g))";

/// Plain UCT: no technique.
const PLAIN: Techniques = Techniques {
    solver: false,
    mast: false,
    transpositions: false,
    grave: false,
    minimax: false,
    factoring: false,
    heuristic: false,
    greedy: false,
};

/// The mean value of the root's moves in [`EIGHT_CHOICES`] after
/// `iterations` with `techniques`, averaged over the seeds 0 to 9.
fn root_mean_over_ten_seeds(techniques: Techniques, iterations: usize) -> f64 {
    let root_mean = |seed| {
        let (_, tree) = searched_as(EIGHT_CHOICES, 100_000, seed, iterations, techniques);
        let (visits, value) = tree
            .root_moves(0)
            .iter()
            .fold((0, 0.0), |(n, v), (_, s)| (n + s.visits, v + s.value));
        value / visits as f64
    };
    (0..10).map(root_mean).sum::<f64>() / 10.0
}

#[test]
fn mast_playouts_learn_a_move_good_in_every_state() {
    // Uniform playouts from a new leaf average half the remaining
    // choices; MAST's draw `good` more often once its average leads:
    // Early, while playouts rather than the tree make the values; over
    // ten seeds (about 0.67 against 0.57 here).
    let mean = |mast| root_mean_over_ten_seeds(Techniques { mast, ..PLAIN }, 50);
    let (with, without) = (mean(true), mean(false));
    assert!(with > without + 0.05, "with MAST {with}, without {without}");
}

#[test]
fn grave_ranks_new_moves_by_what_they_scored_higher_up() {
    // Below the root's first visits, plain UCT tries `bad` as often as
    // `good` at every new node; with GRAVE, a node's untried moves are
    // ranked by the root's all-moves-as-first values, where `good` leads.
    let mean = |grave| root_mean_over_ten_seeds(Techniques { grave, ..PLAIN }, 300);
    let (with, without) = (mean(true), mean(false));
    assert!(
        with > without + 0.05,
        "with GRAVE {with}, without {without}"
    );
}

#[test]
fn grave_statistics_are_kept_where_a_node_has_the_visits() {
    let techniques = Techniques {
        grave: true,
        ..PLAIN
    };
    let (mut r, tree) = searched_as(EIGHT_CHOICES, 100_000, 3, 400, techniques);
    let good = r.parse_move(0, "good").unwrap();
    let kept: Vec<usize> = (0..tree.len())
        .filter(|&at| tree.nodes[at].amaf.is_some())
        .collect();
    assert!(kept.contains(&tree.root) && kept.len() > 2, "{kept:?}");
    for at in 0..tree.len() {
        let node = &tree.nodes[at];
        match &node.amaf {
            // Kept from the iteration that found the node with 50 visits
            // on: `good` was played below it in most of those.
            Some(amaf) => {
                let since = node.visits - grave::REFERENCE;
                let s = amaf[&(0, good)];
                assert!(s.visits <= since && s.visits * 2 > since, "{at}");
            }
            None => assert!(node.visits <= grave::REFERENCE, "{at}"),
        }
    }
}

#[test]
fn the_nodes_a_move_leaves_behind_are_freed_by_later_iterations() {
    let game = project_game("tictactoe.kif");
    let (mut r, mut tree) = searched(&game, 100_000, 5, 2_000);
    let before = tree.len();
    let corner = r.parse_move(0, "(mark 1 1)").unwrap();
    let noop = r.parse_move(1, "noop").unwrap();
    tree.advance(&mut r, &[corner, noop]);
    let buried = |tree: &Tree<Interpreter>| -> usize {
        tree.graveyard
            .iter()
            .flatten()
            .filter(|n| n.is_some())
            .count()
    };
    // Left for later: every node the new root does not reach.
    assert_eq!(buried(&tree), before - tree.len());
    assert!(buried(&tree) > 100, "{before} -> {}", tree.len());
    let iterations = buried(&tree).div_ceil(BURIED_PER_ITERATION);
    for _ in 0..iterations {
        tree.iterate(&mut r);
    }
    assert_eq!(buried(&tree), 0);
}

#[test]
fn the_evaluation_learns_what_a_state_is_worth_from_random_playouts() {
    let mut r = interpreter(EIGHT_CHOICES);
    let initial = r.initial_state();
    let e = Evaluation::learn(&mut r, &initial, Duration::from_millis(300), 1).unwrap();
    // A random playout from a state with `s` good choices at step `t`
    // scores (s + (8 - t) / 2) / 8 on average: linear in the fluents.
    assert!(e.fit > 0.3, "fit {}", e.fit);
    let after = |r: &mut Interpreter, choice: &str| {
        let m = r.parse_move(0, choice).unwrap();
        r.next_state(&initial, &[m])
    };
    let (good, bad) = (after(&mut r, "good"), after(&mut r, "bad"));
    let (good, bad) = (e.evaluate(&r, &good)[0], e.evaluate(&r, &bad)[0]);
    assert!((good - 0.5625).abs() < 0.05, "after good {good}");
    assert!((bad - 0.4375).abs() < 0.05, "after bad {bad}");
}

/// `x` calls the coin, then both roles wait ten steps (longer than a
/// playout before its cut); `x` wins if the call was `winning`.
pub(crate) fn coin(winning: &str) -> String {
    format!(
        "(role x) (role o) (init (step 0))
        (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7)
        (succ 7 8) (succ 8 9) (succ 9 10) (succ 10 11)
        (<= (legal x heads) (true (step 0))) (<= (legal x tails) (true (step 0)))
        (<= (legal x wait) (not (true (step 0)))) (legal o wait)
        (<= (next (coin heads)) (does x heads)) (<= (next (coin tails)) (does x tails))
        (<= (next (coin ?c)) (true (coin ?c)))
        (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
        (<= terminal (true (step 11)))
        (<= (goal x 100) (true (coin {winning}))) (<= (goal o 0) (true (coin {winning})))
        (<= (goal x 0) (not (true (coin {winning})))) (<= (goal o 100) (not (true (coin {winning}))))"
    )
}

#[test]
fn the_verdict_gives_the_win_to_the_role_rated_best() {
    let mut r = interpreter(&coin("heads"));
    let initial = r.initial_state();
    let e = Evaluation::learn(&mut r, &initial, Duration::from_millis(300), 1).unwrap();
    let called = r.parse_move(0, "heads").unwrap();
    let wait = r.parse_move(1, "wait").unwrap();
    let heads = r.next_state(&initial, &[called, wait]);
    assert_eq!(e.verdict(&r, &heads), vec![1.0, 0.0]);
    let tails = r.parse_move(0, "tails").unwrap();
    let tails = r.next_state(&initial, &[tails, wait]);
    assert_eq!(e.verdict(&r, &tails), vec![0.0, 1.0]);
}

#[test]
fn with_one_role_the_verdict_is_the_rating() {
    let mut r = interpreter(EIGHT_CHOICES);
    let initial = r.initial_state();
    let e = Evaluation::learn(&mut r, &initial, Duration::from_millis(100), 1).unwrap();
    assert_eq!(e.verdict(&r, &initial), e.evaluate(&r, &initial));
    assert!((e.verdict(&r, &initial)[0] - 0.5).abs() < 0.05);
}

#[test]
fn playouts_are_cut_short_by_the_evaluation() {
    // Learned where heads wins and searched where tails does: a playout
    // cut before the end believes the evaluation, one played out does not.
    let mut learned_on = interpreter(&coin("heads"));
    let initial = learned_on.initial_state();
    let e = Evaluation::learn(&mut learned_on, &initial, Duration::from_millis(300), 1);
    let e = Arc::new(e.unwrap());
    let called = |on: bool| {
        let techniques = Techniques {
            heuristic: on,
            solver: false,
            ..Techniques::default()
        };
        let mut r = interpreter(&coin("tails"));
        let initial = r.initial_state();
        // The root and its two children: every playout starts a step in.
        let mut tree = Tree::new(&mut r, initial, 3, 1)
            .with_techniques(techniques)
            .with_evaluation(Some(Arc::clone(&e)));
        for _ in 0..200 {
            tree.iterate(&mut r);
        }
        most_visited(&r, &tree)
    };
    assert_eq!(called(true), "heads");
    assert_eq!(called(false), "tails");
}

/// x opens one of seven ways, after which o can win at once, or closes,
/// after which o can only pass; the game ends after o's move, 50 each
/// unless o won.
const OPENING: &str = "(role x) (role o) (init (control x))
    (way a) (way b) (way c) (way d) (way e) (way f) (way g)
    (<= (legal x (open ?w)) (true (control x)) (way ?w))
    (<= (legal x close) (true (control x)))
    (<= (legal o noop) (true (control x)))
    (<= (legal o win) (true opened))
    (<= (legal o pass) (true (control o)))
    (<= (legal x noop) (true (control o)))
    (<= (next opened) (does x (open ?w)))
    (<= (next (control o)) (true (control x)))
    (<= (next ended) (true (control o)))
    (<= (next won) (does o win))
    (<= terminal (true ended))
    (<= (goal o 100) (true won))
    (<= (goal x 0) (true won))
    (<= (goal x 50) (not (true won)))
    (<= (goal o 50) (not (true won)))";

/// The mean of each role's value over 200 playouts from `state` in
/// `tree`, after 50 that teach greedy playouts the terminating moves.
fn playouts_mean(
    r: &mut Interpreter,
    tree: &mut Tree<Interpreter>,
    state: &<Interpreter as Reasoner>::State,
) -> Vec<f64> {
    for _ in 0..50 {
        tree.playout(r, state.clone());
    }
    let mut sum = [0.0; 2];
    for _ in 0..200 {
        for (s, v) in sum.iter_mut().zip(tree.playout(r, state.clone())) {
            *s += v;
        }
    }
    sum.iter().map(|s| s / 200.0).collect()
}

/// Checks greedy and uniform playouts on `game`, [`OPENING`] or a game
/// like it in which o plays `wait` while x opens; the interpreter and the
/// greedy tree.
fn greedy_and_uniform_on_opening(game: &str, wait: &str) -> (Interpreter, Tree<Interpreter>) {
    let mut r = interpreter(game);
    let initial = r.initial_state();
    let open = r.parse_move(0, "(open a)").unwrap();
    let wait = r.parse_move(1, wait).unwrap();
    let opened = r.next_state(&initial, &[open, wait]);
    let tree = |r: &mut Interpreter, greedy| {
        let state = r.initial_state();
        Tree::new(r, state, 1000, 7).with_techniques(Techniques { greedy, ..PLAIN })
    };
    let mut greedy = tree(&mut r, true);
    // x closes every time, and o, once x opened, wins every time.
    assert_eq!(playouts_mean(&mut r, &mut greedy, &initial), [0.5, 0.5]);
    assert_eq!(playouts_mean(&mut r, &mut greedy, &opened), [0.0, 1.0]);
    // Uniform playouts: x opens 7 times in 8, o wins half of those.
    let mut plain = tree(&mut r, false);
    let x = playouts_mean(&mut r, &mut plain, &initial)[0];
    assert!((0.2..0.36).contains(&x), "{x}");
    (r, greedy)
}

#[test]
fn greedy_playouts_take_a_win_at_once_and_leave_a_move_that_gives_one() {
    greedy_and_uniform_on_opening(OPENING, "noop");
}

/// [`OPENING`] with both roles choosing at every step: while x opens or
/// closes, o waits one of two ways, and while o wins or passes, x does.
const OPENING_AT_ONCE: &str = "(role x) (role o) (init (control x))
    (way a) (way b) (way c) (way d) (way e) (way f) (way g) (pick 1) (pick 2)
    (<= (legal x (open ?w)) (true (control x)) (way ?w))
    (<= (legal x close) (true (control x)))
    (<= (legal o (wait ?p)) (true (control x)) (pick ?p))
    (<= (legal o win) (true opened))
    (<= (legal o pass) (true (control o)))
    (<= (legal x (wait ?p)) (true (control o)) (pick ?p))
    (<= (next opened) (does x (open ?w)))
    (<= (next (control o)) (true (control x)))
    (<= (next ended) (true (control o)))
    (<= (next won) (does o win))
    (<= terminal (true ended))
    (<= (goal o 100) (true won))
    (<= (goal x 0) (true won))
    (<= (goal x 50) (not (true won)))
    (<= (goal o 50) (not (true won)))";

#[test]
fn greedy_playouts_where_roles_choose_at_once_take_a_win_and_leave_a_move_that_gives_one() {
    let (mut r, mut greedy) = greedy_and_uniform_on_opening(OPENING_AT_ONCE, "(wait 1)");
    let initial = r.initial_state();
    let open = r.parse_move(0, "(open a)").unwrap();
    let wait = r.parse_move(1, "(wait 1)").unwrap();
    // A role not free to choose (its move chosen by a factor's tree)
    // keeps its move: x opens.
    let close = r.parse_move(0, "close").unwrap();
    let mut legal = Vec::new();
    assert!(draw::all_legal(&mut r, &initial, &mut legal));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let mut step = |free: fn(usize) -> bool| {
        let mut joint = vec![open, wait];
        let g = &mut greedy.greedy;
        let from = (&initial, Ahead::Unknown);
        g.step(&mut r, &mut rng, from, &legal, &mut joint, free);
        joint[0]
    };
    assert_eq!(step(|role| role != 0), open);
    assert_eq!(step(|_| true), close);
}
