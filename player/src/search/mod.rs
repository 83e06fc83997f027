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

mod solver;

#[cfg(all(test, feature = "interpreter"))]
mod tests;
