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
//!
//! With GRAVE ([`grave`]), the selection also weighs what each move
//! scored wherever it was played below a well-visited ancestor. With
//! two-ply proofs ([`minimax`]), a node past a visit threshold is
//! searched for a win or a loss two moves away.
//!
//! In a game whose moves fall into factors that roles choose in at once
//! (two boards, each role moving on one of them at every step), a tree
//! per factor replaces the joint tree ([`factored`], [`Search`]).
//!
//! Playouts draw moves uniformly, or greedily ([`greedy`]: a win at once
//! taken, a move that gives the next chooser one left alone); where the
//! tree is given an evaluation found in the rules ([`heuristic`]), they
//! stop a few joint moves in and score its verdict (early playout
//! termination).

use gdl_runtime::Reasoner;
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

pub(crate) use draw::below;
use draw::values;
pub use factored::Factoring;
pub use heuristic::Evaluation;
pub use node::MoveStats;
use node::{Joint, Node};
pub use strategy::Search;

/// The exploration constant of UCB1, for values in `[0, 1]`.
const EXPLORATION: f64 = 0.7;

/// The techniques a search uses. By default the solver with two-ply
/// proofs, and the heuristic wherever the tree is given an evaluation
/// (greedy playouts and a tree per factor are tried at the start of a
/// match, `crate::workers`); MAST won knightThrough but lost
/// breakthrough, GRAVE lost connect four and dotsAndBoxes at a match's
/// budgets, and transpositions lost connect four and did not change
/// breakthrough, measured against the search without them
/// (docs/PLAYER.md), so these are off unless asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Techniques {
    /// Proven values (MCTS-Solver).
    pub solver: bool,
    /// Move-average sampling in the playouts ([`mast`]).
    pub mast: bool,
    /// One node per state, shared by every path that reaches it
    /// ([`graph`]).
    pub transpositions: bool,
    /// All-moves-as-first statistics in the selection ([`grave`]).
    pub grave: bool,
    /// With the solver, two-ply proofs at nodes past a visit threshold
    /// ([`minimax`]).
    pub minimax: bool,
    /// In a game whose moves fall into factors that roles choose in at
    /// once ([`factored`]), a tree per factor instead of the joint tree
    /// ([`Search`]).
    pub factoring: bool,
    /// Playouts cut short by the tree's evaluation ([`heuristic`]), when
    /// it is given one ([`Tree::set_evaluation`]: the player does where
    /// the evaluation won its trial, `crate::selfplay::heuristic_trial`).
    pub heuristic: bool,
    /// Greedy playouts: a win at once taken, a move that lets the next
    /// chooser win at once left alone ([`greedy`]).
    pub greedy: bool,
}

impl Default for Techniques {
    fn default() -> Self {
        Techniques {
            solver: true,
            mast: false,
            transpositions: false,
            grave: false,
            minimax: true,
            factoring: false,
            heuristic: true,
            greedy: false,
        }
    }
}

impl Techniques {
    /// The names [`Techniques::with`] takes.
    pub const NAMES: [&'static str; 8] = [
        "solver",
        "mast",
        "transpositions",
        "grave",
        "minimax",
        "factoring",
        "heuristic",
        "greedy",
    ];

    /// These techniques with the one named `name` turned on (`on`) or off;
    /// `None` for an unknown name.
    pub fn with(self, name: &str, on: bool) -> Option<Self> {
        let mut t = self;
        *match name {
            "solver" => &mut t.solver,
            "mast" => &mut t.mast,
            "transpositions" => &mut t.transpositions,
            "grave" => &mut t.grave,
            "minimax" => &mut t.minimax,
            "factoring" => &mut t.factoring,
            "heuristic" => &mut t.heuristic,
            "greedy" => &mut t.greedy,
            _ => return None,
        } = on;
        Some(t)
    }
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
    path: Vec<(usize, Joint)>,
    scratch: Vec<R::Move>,
    techniques: Techniques,
    mast: mast::Mast<R::Move>,
    /// What greedy playouts learn, and their buffers (boxed: most trees
    /// do not use them).
    greedy: Box<greedy::Greedy<R::Move>>,
    /// With transpositions, the node of each state, by its hash.
    table: FxHashMap<u64, usize>,
    /// The nodes a move left behind, freed a few per iteration
    /// ([`graph`]).
    graveyard: Vec<Vec<Option<Node<R>>>>,
    /// The evaluation that cuts playouts short, with `heuristic` on.
    evaluation: Option<Arc<Evaluation>>,
    /// With GRAVE, each role's moves in this iteration's playout.
    played: Vec<(u32, R::Move)>,
    /// With GRAVE, a buffer: the moves played below a node of the path.
    below: FxHashSet<(u32, R::Move)>,
}

impl<R: Reasoner> Tree<R> {
    /// A tree rooted at `state`, holding at most `max_nodes` nodes (past
    /// that, leaves are played out without being added).
    pub fn new(r: &mut R, state: R::State, max_nodes: usize, seed: u64) -> Self {
        let mut tree = Tree {
            nodes: Vec::new(),
            root: 0,
            max_nodes: max_nodes.clamp(1, node::MOST_NODES),
            random: r.random_role(),
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            iterations: 0,
            path: Vec::new(),
            scratch: Vec::new(),
            techniques: Techniques::default(),
            mast: mast::Mast::new(),
            greedy: Box::new(greedy::Greedy::new()),
            table: FxHashMap::default(),
            graveyard: Vec::new(),
            evaluation: None,
            played: Vec::new(),
            below: FxHashSet::default(),
        };
        let hash = r.state_hash(&state);
        let node = tree.node(r, state, hash);
        tree.nodes.push(node);
        tree.remember(hash, 0);
        tree
    }

    /// The node of `state`, whose hash is `hash`: its legal moves, or its
    /// goals when terminal.
    fn node(&mut self, r: &mut R, state: R::State, hash: u64) -> Node<R> {
        let roles = r.roles().len();
        let mut moves = Vec::new();
        let mut ends = Vec::with_capacity(roles);
        if !r.is_terminal(&state) {
            for role in 0..roles {
                r.legal_moves(&state, role, &mut self.scratch);
                if self.scratch.is_empty() {
                    break;
                }
                moves.extend_from_slice(&self.scratch);
                ends.push(moves.len() as u32);
            }
        }
        // A role without a legal move ends the game as a terminal state does.
        if ends.len() < roles {
            let goals = values(r, &state);
            return Node::new(state, hash, Vec::new(), Vec::new(), Some(goals));
        }
        Node::new(state, hash, moves, ends, None)
    }

    /// The tree searching with `techniques` only.
    pub fn with_techniques(mut self, techniques: Techniques) -> Self {
        self.techniques = techniques;
        if !techniques.solver {
            self.nodes[self.root].proven = None;
        }
        if techniques.transpositions {
            let hash = self.nodes[self.root].hash;
            self.remember(hash, self.root);
        } else {
            self.table.clear();
        }
        self
    }

    /// The tree cutting its playouts short with `evaluation` (with the
    /// `heuristic` technique on).
    pub fn with_evaluation(mut self, evaluation: Option<Arc<Evaluation>>) -> Self {
        self.set_evaluation(evaluation);
        self
    }

    /// From now on, playouts cut short with `evaluation` (with the
    /// `heuristic` technique on), or played to the end (`None`).
    pub fn set_evaluation(&mut self, evaluation: Option<Arc<Evaluation>>) {
        self.evaluation = evaluation;
    }

    /// From now on, plays greedy playouts ([`greedy`]) or uniform ones.
    pub fn set_greedy(&mut self, on: bool) {
        self.techniques.greedy = on;
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
        if role >= root.roles() {
            return Vec::new();
        }
        let stats = root.stats(role).iter().copied();
        root.moves(role).iter().copied().zip(stats).collect()
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

    /// One iteration: select by UCB1 down to a new joint move, add its node
    /// (or, with transpositions, go on from the node of the state it
    /// reaches, if the tree holds it), play out, and back the goals up the
    /// path.
    pub fn iterate(&mut self, r: &mut R) {
        if self.root_is_terminal() {
            return;
        }
        self.iterations += 1;
        self.bury();
        self.path.clear();
        let mut at = self.root;
        let values = loop {
            self.nodes[at].on_path = self.iterations;
            if self.techniques.minimax && self.techniques.solver {
                self.prove_ahead(r, at);
            }
            let node = &self.nodes[at];
            if let Some(goals) = &node.goals {
                break goals.clone();
            }
            if let Some(proven) = node.proven.as_ref().filter(|_| at != self.root) {
                break proven.clone();
            }
            let joint = self.select(at);
            self.path.push((at, joint));
            let child = match self.nodes[at].child(joint) {
                Some(child) => child,
                None => {
                    let next = self.next_state(r, at, joint);
                    match self.expand(r, at, joint, next) {
                        Ok(child) => child,
                        Err(next) => break self.playout(r, next),
                    }
                }
            };
            if self.nodes[child].on_path == self.iterations {
                // A cycle: this iteration has passed the node already.
                let state = self.nodes[child].state.clone();
                break self.playout(r, state);
            }
            at = child;
        };
        if self.techniques.mast {
            self.credit_path(&values);
        }
        if self.techniques.grave {
            self.credit_amaf(&values);
        }
        self.back_up(values);
        if self.techniques.solver {
            self.prove_path();
        }
    }

    /// The state the joint move `joint` reaches from `at`.
    fn next_state(&mut self, r: &mut R, at: usize, joint: Joint) -> R::State {
        let node = &self.nodes[at];
        self.scratch.clear();
        let moves = node
            .indices(joint)
            .enumerate()
            .map(|(role, i)| node.moves(role)[i]);
        self.scratch.extend(moves);
        r.next_state(&node.state, &self.scratch)
    }

    /// Links `at`'s joint move `joint` to the node of `next`: the tree's
    /// node of that state when it holds one (with transpositions), where
    /// the iteration goes on; else a new node, which is played out
    /// (`Err(next)`), as is `next` when the tree is full.
    fn expand(
        &mut self,
        r: &mut R,
        at: usize,
        joint: Joint,
        next: R::State,
    ) -> Result<usize, R::State> {
        let hash = self.hash(r, &next);
        if let Some(child) = self.transposition(hash, &next) {
            self.link(at, joint, child);
            return Ok(child);
        }
        if self.nodes.len() >= self.max_nodes {
            return Err(next);
        }
        let child = self.add(r, next.clone(), hash);
        self.link(at, joint, child);
        self.nodes[child].visits += 1;
        Err(next)
    }

    /// The hash of `state` with transpositions, which look states up by
    /// it; 0 without them, which do not pay for it.
    fn hash(&self, r: &R, state: &R::State) -> u64 {
        if self.techniques.transpositions {
            r.state_hash(state)
        } else {
            0
        }
    }

    /// Adds the node of `state`, whose hash is `hash`, unlinked; its index.
    fn add(&mut self, r: &mut R, state: R::State, hash: u64) -> usize {
        let node = self.node(r, state, hash);
        self.nodes.push(node);
        let at = self.nodes.len() - 1;
        self.remember(hash, at);
        at
    }

    /// Makes `child` the node `at`'s joint move `joint` leads to.
    fn link(&mut self, at: usize, joint: Joint, child: usize) {
        self.nodes[at].proven_children += usize::from(self.nodes[child].proven.is_some());
        self.nodes[at].set_child(joint, child);
        self.nodes[child].add_parent(at);
    }
}

mod draw;
pub mod factored;
mod graph;
mod grave;
mod greedy;
mod heuristic;
mod mast;
mod minimax;
mod node;
mod playout;
mod select;
mod solver;
mod strategy;

#[cfg(all(test, feature = "interpreter"))]
pub(crate) mod tests;
