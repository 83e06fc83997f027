//! Monte-Carlo tree search (UCT), decoupled per role: in every node each
//! role keeps its own statistics per legal move and chooses by UCB1 on its
//! own goal, so simultaneous moves and any number of roles are searched the
//! same way as turn-taking (where the roles not in control have one move).
//! The role `random` (GDL-II) is a chance node, not a player: its move is
//! drawn uniformly at every visit, whatever goals the game gives it.
//! Generic over [`Reasoner`]; one tree per thread, re-rooted on the joint
//! move the game manager reports so that the work on it is kept.
//!
//! Proven values (MCTS-Solver, Winands et al. 2008): a terminal node is
//! proven with its goals, and a node where one role alone has a choice
//! (not `random`) is proven once a child gives that role 100, or once
//! every child is proven, with the values of the child best for that role
//! (each role taken to maximize its own goal: minimax in a two-player
//! zero-sum game). Below the root a proven node is played as a terminal
//! one; where some child is unproven, the proven ones are left out of the
//! selection (at the root every other iteration; else a proven child is
//! chosen by its value, without exploration, so a proven loss is left
//! alone), and the values backed up past a node are its chooser's best
//! proven child's when better for the chooser; a proven root chooses its
//! best child every time, so that move gets the visits.

use gdl_runtime::Reasoner;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::HashMap;

/// The exploration constant of UCB1, for values in `[0, 1]`.
const EXPLORATION: f64 = 0.7;
/// Longest random playout; a playout cut there scores the goals it reached.
const MAX_PLAYOUT: usize = 10_000;

/// Visits and summed value of one move of one role in one node.
#[derive(Clone, Copy, Debug, Default)]
pub struct MoveStats {
    /// How often the move was chosen.
    pub visits: u64,
    /// The sum of the role's values (goal / 100) over those visits.
    pub value: f64,
}

struct Node<R: Reasoner> {
    state: R::State,
    /// The goals / 100 of each role when terminal; `None` otherwise.
    goals: Option<Vec<f64>>,
    /// The values / 100 of each role under best play, once proven (see
    /// the module's documentation); the goals of a terminal node.
    proven: Option<Vec<f64>>,
    /// How many of its children are proven: none spares looking.
    proven_children: usize,
    /// Per role, its legal moves.
    moves: Vec<Vec<R::Move>>,
    /// Per role, per legal move, its statistics.
    stats: Vec<Vec<MoveStats>>,
    visits: u64,
    /// The children, by the index of each role's move.
    children: HashMap<Box<[u32]>, usize>,
}

/// A UCT search tree over the states of one game.
pub struct Tree<R: Reasoner> {
    nodes: Vec<Node<R>>,
    root: usize,
    max_nodes: usize,
    /// The role `random`, whose moves are drawn, not chosen.
    random: Option<usize>,
    rng: Xoshiro256PlusPlus,
    iterations: u64,
    path: Vec<(usize, Box<[u32]>)>,
    scratch: Vec<R::Move>,
    /// Whether values are proven (on unless measuring without it).
    solver: bool,
}

impl<R: Reasoner> Tree<R> {
    /// A tree rooted at `state`, holding at most `max_nodes` nodes (past
    /// that, leaves are played out without being added).
    pub fn new(r: &mut R, state: R::State, max_nodes: usize, seed: u64) -> Self {
        let mut tree = Tree {
            nodes: Vec::new(),
            root: 0,
            max_nodes: max_nodes.max(1),
            random: r.random_role(),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            iterations: 0,
            path: Vec::new(),
            scratch: Vec::new(),
            solver: true,
        };
        let node = tree.node(r, state);
        tree.nodes.push(node);
        tree
    }

    fn node(&mut self, r: &mut R, state: R::State) -> Node<R> {
        let roles = r.roles().len();
        let mut moves = Vec::with_capacity(roles);
        let mut goals = None;
        if !r.is_terminal(&state) {
            for role in 0..roles {
                r.legal_moves(&state, role, &mut self.scratch);
                moves.push(self.scratch.clone());
            }
        }
        // A role without a legal move ends the game as a terminal state does.
        if moves.len() < roles || moves.iter().any(Vec::is_empty) {
            moves.clear();
            goals = Some(values(r, &state));
        }
        Node {
            proven: goals.clone(),
            proven_children: 0,
            stats: moves
                .iter()
                .map(|m| vec![MoveStats::default(); m.len()])
                .collect(),
            state,
            goals,
            moves,
            visits: 0,
            children: HashMap::new(),
        }
    }

    /// The tree without proven values: plain UCT, to measure what they buy.
    pub fn without_solver(mut self) -> Self {
        self.solver = false;
        self.nodes[self.root].proven = None;
        self
    }

    /// The values / 100 of each role at the root under best play, once
    /// proven.
    pub fn root_proven(&self) -> Option<&[f64]> {
        self.nodes[self.root].proven.as_deref()
    }

    /// The state at the root.
    pub fn root_state(&self) -> &R::State {
        &self.nodes[self.root].state
    }

    /// Whether the root is terminal (nothing to search).
    pub fn root_is_terminal(&self) -> bool {
        self.nodes[self.root].goals.is_some()
    }

    /// The legal moves of `role` at the root with their statistics.
    pub fn root_moves(&self, role: usize) -> Vec<(R::Move, MoveStats)> {
        let root = &self.nodes[self.root];
        match root.moves.get(role) {
            Some(moves) => moves
                .iter()
                .copied()
                .zip(root.stats[role].iter().copied())
                .collect(),
            None => Vec::new(),
        }
    }

    /// Iterations (selection, expansion, playout, backup) run since the
    /// tree was made.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// Nodes in the tree.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree holds only its root.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// One iteration: select by UCB1 down to a new joint move, add its node,
    /// play out at random, and back the goals up the path.
    pub fn iterate(&mut self, r: &mut R) {
        if self.root_is_terminal() {
            return;
        }
        self.iterations += 1;
        self.path.clear();
        let mut at = self.root;
        let values = loop {
            let node = &self.nodes[at];
            if let Some(goals) = &node.goals {
                break goals.clone();
            }
            if let Some(proven) = node.proven.as_ref().filter(|_| at != self.root) {
                break proven.clone();
            }
            let joint = self.select(at);
            self.path.push((at, joint.clone()));
            if let Some(&child) = self.nodes[at].children.get(&joint) {
                at = child;
                continue;
            }
            let moves: Vec<R::Move> = self.nodes[at]
                .moves
                .iter()
                .zip(joint.iter())
                .map(|(m, &i)| m[i as usize])
                .collect();
            let next = r.next_state(&self.nodes[at].state, &moves);
            if self.nodes.len() < self.max_nodes {
                let node = self.node(r, next.clone());
                self.nodes[at].proven_children += usize::from(node.proven.is_some());
                self.nodes.push(node);
                let child = self.nodes.len() - 1;
                self.nodes[at].children.insert(joint, child);
                self.nodes[child].visits += 1;
            }
            break self.playout(r, next);
        };
        self.back_up(values);
        if self.solver {
            self.prove_path();
        }
    }

    /// Adds `values` to the statistics of the last path, from its end up.
    /// Above a node whose chooser has a proven child better for it than
    /// the values from below, that child's values go up instead: the
    /// chooser would take it (with the proven children left out of the
    /// selection, [`Tree::select`], the values from below come from the
    /// unproven ones).
    fn back_up(&mut self, mut values: Vec<f64>) {
        let path = std::mem::take(&mut self.path);
        for (at, joint) in path.iter().rev() {
            let node = &mut self.nodes[*at];
            node.visits += 1;
            for (role, &i) in joint.iter().enumerate() {
                let s = &mut node.stats[role][i as usize];
                s.visits += 1;
                s.value += values[role];
            }
            let chooser = self.chooser(*at).filter(|_| self.solver);
            if let Some((chooser, best)) =
                chooser.and_then(|c| Some((c, self.best_proven(*at, c)?)))
            {
                let proven = self.nodes[*at].children[&best];
                let proven = self.nodes[proven].proven.as_ref().expect("a proven child");
                if proven[chooser] > values[chooser] {
                    values.clone_from(proven);
                }
            }
        }
        self.path = path;
    }

    /// Proves the nodes of the last path that its end proved, from the end
    /// up, stopping at the first that stays unproven.
    fn prove_path(&mut self) {
        for k in (0..self.path.len()).rev() {
            let at = self.path[k].0;
            if self.nodes[at].proven.is_some() {
                continue;
            }
            match self.proof(at) {
                Some(values) => self.nodes[at].proven = Some(values),
                None => return,
            }
            if let Some(&(parent, _)) = k.checked_sub(1).and_then(|p| self.path.get(p)) {
                self.nodes[parent].proven_children += 1;
            }
        }
    }

    /// The role that alone has a choice at `at` (the first role that is
    /// not `random` when none has), unless that is `random` or several
    /// roles choose: the nodes whose values can be proven.
    fn chooser(&self, at: usize) -> Option<usize> {
        let moves = &self.nodes[at].moves;
        let mut choosing = (0..moves.len()).filter(|&role| moves[role].len() > 1);
        let chooser = match (choosing.next(), choosing.next()) {
            (Some(role), None) => role,
            (None, _) => (0..moves.len()).find(|&role| Some(role) != self.random)?,
            (Some(_), Some(_)) => return None,
        };
        (Some(chooser) != self.random).then_some(chooser)
    }

    /// The values proven for the child of `at` where the chooser plays
    /// its move `i` (the other roles their only one); `joint` is a buffer
    /// of one zero per role, left as it was.
    fn proven_child(
        &self,
        at: usize,
        joint: &mut [u32],
        chooser: usize,
        i: usize,
    ) -> Option<&[f64]> {
        joint[chooser] = i as u32;
        let child = self.nodes[at].children.get(&*joint).copied();
        joint[chooser] = 0;
        self.nodes[child?].proven.as_deref()
    }

    /// The values `at` is proven with, if its children prove it: those of
    /// a child that gives the chooser 100, else, when every child is
    /// proven, those of the best child for the chooser.
    fn proof(&self, at: usize) -> Option<Vec<f64>> {
        if self.nodes[at].proven_children == 0 {
            return None;
        }
        let chooser = self.chooser(at)?;
        let mut joint = vec![0; self.nodes[at].moves.len()];
        let mut best: Option<&[f64]> = None;
        let mut every = true;
        for i in 0..self.nodes[at].moves[chooser].len() {
            let Some(values) = self.proven_child(at, &mut joint, chooser, i) else {
                every = false;
                continue;
            };
            if values[chooser] >= 1.0 {
                return Some(values.to_vec());
            }
            if best.is_none_or(|b| values[chooser] > b[chooser]) {
                best = Some(values);
            }
        }
        best.filter(|_| every).map(<[f64]>::to_vec)
    }

    /// Each role's move at `at` by UCB1, an untried move first (at random);
    /// `random`'s drawn uniformly.
    fn select(&mut self, at: usize) -> Box<[u32]> {
        let solving = self.solver && self.nodes[at].proven_children > 0;
        let chooser = self.chooser(at).filter(|_| solving);
        if let Some(chooser) = chooser.filter(|_| self.nodes[at].proven.is_some()) {
            return self
                .best_proven(at, chooser)
                .expect("a proven node has a proven child");
        }
        // Where some child is unproven, the proven ones are left out (below
        // the root always, at the root every other iteration, so that a
        // proven best move there keeps the visits the player counts):
        // chosen by its value, a proven draw would take every visit once
        // its siblings' UCB fell below it, and those siblings, which must
        // be proven before the node is, would starve.
        let unproven =
            chooser.is_some_and(|c| self.nodes[at].proven_children < self.nodes[at].moves[c].len());
        let skip_proven = unproven && (at != self.root || self.iterations.is_multiple_of(2));
        let mut zeros = vec![0; chooser.map_or(0, |_| self.nodes[at].moves.len())];
        let node = &self.nodes[at];
        let log_n = (node.visits.max(1) as f64).ln();
        let mut joint = Vec::with_capacity(node.stats.len());
        for (role, stats) in node.stats.iter().enumerate() {
            let n = stats.len();
            let offset = below(&mut self.rng, n);
            if self.random == Some(role) {
                joint.push(offset as u32);
                continue;
            }
            let mut best = (f64::NEG_INFINITY, 0);
            for k in 0..n {
                let i = (offset + k) % n;
                let s = stats[i];
                let proven = (chooser == Some(role))
                    .then(|| self.proven_child(at, &mut zeros, role, i))
                    .flatten()
                    .map(|values| values[role]);
                let score = if let Some(value) = proven {
                    if skip_proven {
                        continue;
                    }
                    value
                } else if s.visits == 0 {
                    f64::INFINITY
                } else {
                    s.value / s.visits as f64 + EXPLORATION * (log_n / s.visits as f64).sqrt()
                };
                if score > best.0 {
                    best = (score, i);
                }
            }
            joint.push(best.1 as u32);
        }
        joint.into_boxed_slice()
    }

    /// The joint move of the chooser's best proven child at `at`, if any.
    fn best_proven(&self, at: usize, chooser: usize) -> Option<Box<[u32]>> {
        if self.nodes[at].proven_children == 0 {
            return None;
        }
        let n = self.nodes[at].moves[chooser].len();
        let mut joint = vec![0; self.nodes[at].moves.len()];
        let mut best: Option<(f64, usize)> = None;
        for i in 0..n {
            let value = self
                .proven_child(at, &mut joint, chooser, i)
                .map(|v| v[chooser]);
            if let Some(value) = value.filter(|&v| best.is_none_or(|(b, _)| v > b)) {
                best = Some((value, i));
            }
        }
        joint[chooser] = best?.1 as u32;
        Some(joint.into_boxed_slice())
    }

    /// Goals / 100 at the end of a uniformly random playout from `state`.
    fn playout(&mut self, r: &mut R, mut state: R::State) -> Vec<f64> {
        let roles = r.roles().len();
        let mut joint = Vec::with_capacity(roles);
        for _ in 0..MAX_PLAYOUT {
            if r.is_terminal(&state) {
                break;
            }
            joint.clear();
            for role in 0..roles {
                r.legal_moves(&state, role, &mut self.scratch);
                if self.scratch.is_empty() {
                    return values(r, &state);
                }
                let pick = below(&mut self.rng, self.scratch.len());
                joint.push(self.scratch[pick]);
            }
            state = r.next_state(&state, &joint);
        }
        values(r, &state)
    }

    /// Moves the root to the state reached by `joint` (one move per role),
    /// keeping the subtree below it when the tree holds that child.
    pub fn advance(&mut self, r: &mut R, joint: &[R::Move]) {
        let root = &self.nodes[self.root];
        let indices: Option<Box<[u32]>> = root
            .moves
            .iter()
            .zip(joint)
            .map(|(moves, m)| moves.iter().position(|x| x == m).map(|i| i as u32))
            .collect();
        let child = indices
            .filter(|i| i.len() == joint.len())
            .and_then(|i| root.children.get(&i).copied());
        match child {
            Some(child) => self.keep_subtree(child),
            None => {
                let next = r.next_state(&root.state, joint);
                let node = self.node(r, next);
                self.nodes = vec![node];
                self.root = 0;
            }
        }
    }

    /// Drops every node not below `new_root`.
    fn keep_subtree(&mut self, new_root: usize) {
        let mut old: Vec<Option<Node<R>>> = std::mem::take(&mut self.nodes)
            .into_iter()
            .map(Some)
            .collect();
        let mut index = HashMap::new();
        let mut order = vec![new_root];
        let mut k = 0;
        while k < order.len() {
            let at = order[k];
            index.insert(at, k);
            if let Some(node) = &old[at] {
                order.extend(node.children.values().copied());
            }
            k += 1;
        }
        for &at in &order {
            let mut node = old[at].take().expect("a tree has no shared children");
            for child in node.children.values_mut() {
                *child = index[child];
            }
            self.nodes.push(node);
        }
        self.root = 0;
    }
}

/// A uniformly random number below `n` (`n` at most 2^32).
pub(crate) fn below(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    ((u64::from(rng.next_u32()) * n as u64) >> 32) as usize
}

/// Each role's goal / 100 in `state`, 0 where the goal is undefined.
fn values<R: Reasoner>(r: &mut R, state: &R::State) -> Vec<f64> {
    (0..r.roles().len())
        .map(|role| f64::from(r.goal(state, role).unwrap_or(0).min(100)) / 100.0)
        .collect()
}

#[cfg(all(test, feature = "interpreter"))]
mod tests {
    use super::*;
    use gdlc::interp::Interpreter;

    fn interpreter(text: &str) -> Interpreter {
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
        let mut r = interpreter(text);
        let initial = r.initial_state();
        let mut tree = Tree::new(&mut r, initial, nodes, seed);
        if !solver {
            tree = tree.without_solver();
        }
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
    fn project_game(name: &str) -> String {
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

    /// The state after the marks `moves` (row, column), the roles taking
    /// turns from the first, the other playing `noop`.
    fn after_marks<R: Reasoner>(r: &mut R, moves: &[(u32, u32)]) -> R::State {
        let mut state = r.initial_state();
        for (k, (row, column)) in moves.iter().enumerate() {
            let role = k % 2;
            let mark = r
                .parse_move(role, &format!("(mark {row} {column})"))
                .unwrap();
            let idle = r.parse_move(1 - role, "noop").unwrap();
            let joint = if role == 0 {
                [mark, idle]
            } else {
                [idle, mark]
            };
            state = r.next_state(&state, &joint);
        }
        state
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
        let mut tree = Tree::new(&mut r, initial, 200_000, 11);
        iterate_until_proven(&mut r, &mut tree, 200_000);
        assert_eq!(tree.root_proven(), Some(&[0.5, 0.5][..]));
    }

    #[test]
    fn a_won_connect_four_position_is_found_won() {
        let mut r = interpreter(&project_game("connectfour.kif"));
        // red 4, black 1, red 3, black 1: red holds (3 1) and (4 1), black
        // (1 1) and (1 2). Red's drop in column 5 makes three in a row
        // with both ends open at row 1 (columns 2 and 6): black blocks one,
        // red drops in the other. Black cannot make four in two moves.
        let mut state = r.initial_state();
        for (role, column) in [(0, 4), (1, 1), (0, 3), (1, 1)] {
            let mover = r.parse_move(role, &format!("(drop {column})")).unwrap();
            let idle = r.parse_move(1 - role, "noop").unwrap();
            let joint = if role == 0 {
                [mover, idle]
            } else {
                [idle, mover]
            };
            state = r.next_state(&state, &joint);
        }
        let mut tree = Tree::new(&mut r, state, 100_000, 7);
        iterate_until_proven(&mut r, &mut tree, 100_000);
        assert_eq!(tree.root_proven(), Some(&[1.0, 0.0][..]));
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
}
