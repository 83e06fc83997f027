//! The search of a game that falls into factors ([`detect`]): one tree
//! per factor, walked side by side. A factor's tree branches on the moves
//! of the roles that choose in that factor only; its nodes stand for the
//! factor's part of the state, reached by the factor's own moves whatever
//! the other factors did meanwhile. In connectFourSimultaneous each step
//! has 7 × 7 joint moves, and a joint tree a node for each; each board's
//! tree has 7, and its statistics gather every iteration that played
//! there, whatever the other board saw.
//!
//! An iteration plays the real game from the root state: at each step
//! each factor's tree, while the iteration is still inside it, chooses
//! the moves of its choosers by UCB1 (decoupled, each role on its own
//! goal); a role whose factor's tree was left, or whose moves lie in no
//! factor, moves at random. A factor's tree is left past the node it
//! adds, or where the state's legal moves are not the ones its node
//! holds (a factoring the trying got wrong costs the tree, not the
//! move's legality). The goals at the end are backed up along every
//! factor's path. With greedy playouts on, the roles whose move no tree
//! chose move as in the joint tree's greedy playouts ([`Greedy`]): a win
//! at once taken, a move after which another role wins at once redrawn.
//! Proofs, transpositions, MAST, GRAVE and the heuristic belong to the
//! joint tree and are not used here: a factor's node is not a state, so
//! a value proven in it would not hold.

mod detect;

pub use detect::{find, Factoring};

use super::draw::{all_legal, below, values};
use super::greedy::{Ahead, Greedy};
use super::{MoveStats, EXPLORATION};
use gdl_runtime::Reasoner;
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::sync::Arc;

/// No child.
const NONE: u32 = u32::MAX;
/// Nodes with more joint moves than this have no children: they choose,
/// but the iteration leaves the factor's tree there.
const MOST_CHILDREN: usize = 4096;
/// Longest iteration, in joint moves; one cut there scores the goals it
/// reached.
const MAX_PLAYOUT: usize = 10_000;

/// A node of one factor's tree: the roles choosing in the factor there,
/// their moves and statistics, and the children by the choosers' joint
/// move (numbered in mixed radix, each chooser's move index a digit).
struct Node<M> {
    /// Each choosing role with the end of its moves in `moves`.
    choosers: Vec<(usize, usize)>,
    moves: Vec<M>,
    stats: Vec<MoveStats>,
    children: Vec<u32>,
    visits: u64,
    /// Whether the choosers are known: a node is made before the state
    /// reaching it is seen.
    filled: bool,
}

impl<M> Default for Node<M> {
    fn default() -> Self {
        Node {
            choosers: Vec::new(),
            moves: Vec::new(),
            stats: Vec::new(),
            children: Vec::new(),
            visits: 0,
            filled: false,
        }
    }
}

impl<M: Copy + Eq> Node<M> {
    /// Each chooser with its moves' range.
    fn ranges(&self) -> impl Iterator<Item = (usize, std::ops::Range<usize>)> + '_ {
        let starts = std::iter::once(0).chain(self.choosers.iter().map(|&(_, end)| end));
        self.choosers
            .iter()
            .zip(starts)
            .map(|(&(role, end), start)| (role, start..end))
    }

    /// The number of the joint move in which each chooser plays its move
    /// in `joint`; `None` if one is not among its moves here.
    fn joint_of(&self, joint: &[M]) -> Option<usize> {
        let (mut number, mut stride) = (0, 1);
        for (role, range) in self.ranges() {
            let i = self.moves[range.clone()]
                .iter()
                .position(|m| *m == joint[role])?;
            number += i * stride;
            stride *= range.len();
        }
        Some(number)
    }
}

/// One tree per factor over the game from one state.
pub struct Factored<R: Reasoner> {
    factoring: Arc<Factoring<R::Move>>,
    /// Each factor's nodes; its root is the first.
    trees: Vec<Vec<Node<R::Move>>>,
    state: R::State,
    terminal: bool,
    max_nodes: usize,
    rng: Xoshiro256PlusPlus,
    iterations: u64,
    /// Each role's legal moves at the iteration's state.
    legal: Vec<Vec<R::Move>>,
    /// Each role's move index chosen in a tree at this step.
    picks: Vec<Option<usize>>,
    joint: Vec<R::Move>,
    /// Where the iteration is in each factor's tree, while inside it.
    at: Vec<Option<u32>>,
    /// The iteration's path: factor, node, joint move's number.
    path: Vec<(usize, u32, usize)>,
    /// With greedy playouts, what they learned.
    greedy: Option<Box<Greedy<R::Move>>>,
}

impl<R: Reasoner> Factored<R> {
    /// The trees of `factoring`'s factors from `state`, holding at most
    /// `max_nodes` nodes in all.
    pub fn new(
        r: &mut R,
        state: R::State,
        factoring: Arc<Factoring<R::Move>>,
        max_nodes: usize,
        seed: u64,
    ) -> Self {
        let roles = r.roles().len();
        Factored {
            trees: (0..factoring.count()).map(|_| fresh()).collect(),
            at: vec![None; factoring.count()],
            factoring,
            terminal: r.is_terminal(&state),
            state,
            max_nodes: max_nodes.max(1),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            iterations: 0,
            legal: vec![Vec::new(); roles],
            picks: vec![None; roles],
            joint: Vec::with_capacity(roles),
            path: Vec::new(),
            greedy: None,
        }
    }

    /// The state at the root.
    pub fn root_state(&self) -> &R::State {
        &self.state
    }

    /// Whether the root is terminal (nothing to search).
    pub fn root_is_terminal(&self) -> bool {
        self.terminal
    }

    /// Iterations run since the trees were made.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// Nodes in all the trees.
    pub fn len(&self) -> usize {
        self.trees.iter().map(Vec::len).sum()
    }

    /// Whether every tree holds only its root.
    pub fn is_empty(&self) -> bool {
        self.trees.iter().all(|tree| tree.len() <= 1)
    }

    /// The legal moves of `role` at the root with their statistics, from
    /// the tree of the factor it chooses in; none before that tree's root
    /// has been searched, or where `role` chooses in no tree.
    pub fn root_moves(&self, role: usize) -> Vec<(R::Move, MoveStats)> {
        for tree in &self.trees {
            let root = &tree[0];
            if let Some((_, range)) = root.ranges().find(|&(chooser, _)| chooser == role) {
                let moves = root.moves[range.clone()].iter().copied();
                return moves.zip(root.stats[range].iter().copied()).collect();
            }
        }
        Vec::new()
    }

    /// One iteration: the game played from the root state, each factor's
    /// tree choosing its choosers' moves while the iteration is inside it,
    /// the goals backed up along every tree's path.
    pub fn iterate(&mut self, r: &mut R) {
        if self.terminal {
            return;
        }
        self.iterations += 1;
        self.path.clear();
        self.at.fill(Some(0));
        let mut state = self.state.clone();
        let mut ahead = Ahead::Unknown;
        for _ in 0..MAX_PLAYOUT {
            let unknown = ahead == Ahead::Unknown;
            if unknown && (r.is_terminal(&state) || !all_legal(r, &state, &mut self.legal)) {
                break;
            }
            self.picks.fill(None);
            for factor in 0..self.trees.len() {
                self.choose_in(factor);
            }
            self.joint.clear();
            for (role, moves) in self.legal.iter().enumerate() {
                let pick = self.picks[role].unwrap_or_else(|| below(&mut self.rng, moves.len()));
                self.joint.push(moves[pick]);
            }
            (state, ahead) = self.step(r, &state, ahead);
        }
        let values = values(r, &state);
        self.back_up(&values);
    }

    /// The state after the step's joint move and what is known of it;
    /// with greedy playouts, the moves of the roles no tree chose made
    /// greedy ([`Greedy::step`]; the legal moves there, where known, then
    /// in `legal`).
    fn step(&mut self, r: &mut R, state: &R::State, ahead: Ahead) -> (R::State, Ahead) {
        let Some(greedy) = &mut self.greedy else {
            return (r.next_state(state, &self.joint), Ahead::Unknown);
        };
        let picks = &self.picks;
        let free = |role: usize| picks[role].is_none();
        let rng = &mut self.rng;
        let from = (state, ahead);
        let step = greedy.step(r, rng, from, &self.legal, &mut self.joint, free);
        if step.1 != Ahead::Unknown {
            std::mem::swap(&mut self.legal, &mut greedy.ahead);
        }
        step
    }

    /// From now on, plays greedy playouts past the trees ([`Greedy`]) or
    /// uniform ones.
    pub fn set_greedy(&mut self, on: bool) {
        if on != self.greedy.is_some() {
            self.greedy = on.then(|| Box::new(Greedy::new()));
        }
    }

    /// Chooses the moves of `factor`'s choosers by UCB1 at the node the
    /// iteration is at in its tree, and goes on to that joint move's child
    /// (made if new, the tree then left).
    fn choose_in(&mut self, factor: usize) {
        let Some(at) = self.at[factor] else {
            return;
        };
        let node = &self.trees[factor][at as usize];
        if !node.filled {
            self.fill(factor, at);
        } else if !self.holds(factor, at) {
            self.at[factor] = None;
            return;
        }
        let joint = self.select(factor, at);
        self.path.push((factor, at, joint));
        self.at[factor] = self.descend(factor, at, joint);
    }

    /// Whether `role` chooses in `factor` at this step.
    fn chooses_in(&self, role: usize, factor: usize) -> bool {
        let moves = &self.legal[role];
        moves.len() > 1 && self.factoring.factor_of(role, moves) == Some(factor)
    }

    /// Makes node `at` of `factor`'s tree hold the roles choosing in the
    /// factor at this step, with their moves.
    fn fill(&mut self, factor: usize, at: u32) {
        let mut node = Node {
            filled: true,
            ..Node::default()
        };
        for role in 0..self.legal.len() {
            if self.chooses_in(role, factor) {
                node.moves.extend_from_slice(&self.legal[role]);
                node.choosers.push((role, node.moves.len()));
            }
        }
        node.stats = vec![MoveStats::default(); node.moves.len()];
        let product = node
            .ranges()
            .try_fold(1usize, |p, (_, range)| p.checked_mul(range.len()))
            .filter(|&p| p <= MOST_CHILDREN);
        node.children = vec![NONE; product.unwrap_or(0)];
        self.trees[factor][at as usize] = node;
    }

    /// Whether node `at` of `factor`'s tree holds exactly the roles
    /// choosing in the factor at this step, with their legal moves.
    fn holds(&self, factor: usize, at: u32) -> bool {
        let node = &self.trees[factor][at as usize];
        let mut ranges = node.ranges();
        for role in 0..self.legal.len() {
            if !self.chooses_in(role, factor) {
                continue;
            }
            match ranges.next() {
                Some((chooser, range)) if chooser == role => {
                    if node.moves[range] != self.legal[role][..] {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        ranges.next().is_none()
    }

    /// Each chooser's move at node `at` of `factor`'s tree by UCB1 (an
    /// untried move first, at random), recorded in `picks`; the joint
    /// move's number.
    fn select(&mut self, factor: usize, at: u32) -> usize {
        let node = &self.trees[factor][at as usize];
        let log_n = (node.visits.max(1) as f64).ln();
        let (mut joint, mut stride) = (0, 1);
        for (role, range) in node.ranges() {
            let stats = &node.stats[range];
            let n = stats.len();
            let offset = below(&mut self.rng, n);
            let mut best = (f64::NEG_INFINITY, 0);
            for k in 0..n {
                let i = (offset + k) % n;
                let s = stats[i];
                let score = if s.visits == 0 {
                    f64::INFINITY
                } else {
                    s.value / s.visits as f64 + EXPLORATION * (log_n / s.visits as f64).sqrt()
                };
                if score > best.0 {
                    best = (score, i);
                }
            }
            self.picks[role] = Some(best.1);
            joint += best.1 * stride;
            stride *= n;
        }
        joint
    }

    /// The child of node `at` of `factor`'s tree by joint move `joint`, if
    /// it is there; else `None`, after making it if there is room.
    fn descend(&mut self, factor: usize, at: u32, joint: usize) -> Option<u32> {
        let child = *self.trees[factor][at as usize].children.get(joint)?;
        if child != NONE {
            return Some(child);
        }
        if self.len() < self.max_nodes {
            let tree = &mut self.trees[factor];
            tree.push(Node::default());
            let child = (tree.len() - 1) as u32;
            tree[at as usize].children[joint] = child;
        }
        None
    }

    /// Adds `values` to every node and chosen move of the iteration's path.
    fn back_up(&mut self, values: &[f64]) {
        for &(factor, at, mut joint) in &self.path {
            let node = &mut self.trees[factor][at as usize];
            node.visits += 1;
            let mut start = 0;
            for &(role, end) in &node.choosers {
                let i = start + joint % (end - start);
                joint /= end - start;
                node.stats[i].visits += 1;
                node.stats[i].value += values[role];
                start = end;
            }
        }
    }

    /// Re-roots every tree on the joint move `joint` played at the root,
    /// keeping what lies below it.
    pub fn advance(&mut self, r: &mut R, joint: &[R::Move]) {
        for tree in &mut self.trees {
            let root = &tree[0];
            let child = root
                .joint_of(joint)
                .and_then(|j| root.children.get(j).copied())
                .filter(|&c| c != NONE && root.filled);
            *tree = match child {
                Some(child) => keep_below(std::mem::take(tree), child),
                None => fresh(),
            };
        }
        self.state = r.next_state(&self.state, joint);
        self.terminal = r.is_terminal(&self.state);
    }
}

/// A tree of one unsearched root.
fn fresh<M>() -> Vec<Node<M>> {
    vec![Node::default()]
}

/// The nodes of `tree` below `root` (`root` first), renumbered.
fn keep_below<M>(mut tree: Vec<Node<M>>, root: u32) -> Vec<Node<M>> {
    let mut number = vec![NONE; tree.len()];
    let mut order = vec![root];
    number[root as usize] = 0;
    let mut k = 0;
    while let Some(&at) = order.get(k) {
        k += 1;
        for &child in &tree[at as usize].children {
            if child != NONE && number[child as usize] == NONE {
                number[child as usize] = order.len() as u32;
                order.push(child);
            }
        }
    }
    order
        .into_iter()
        .map(|at| {
            let mut node = std::mem::take(&mut tree[at as usize]);
            for child in &mut node.children {
                if *child != NONE {
                    *child = number[*child as usize];
                }
            }
            node
        })
        .collect()
}

#[cfg(all(test, feature = "interpreter"))]
mod tests;
