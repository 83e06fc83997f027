//! Finding a game's factors by trying its moves. At states reached by
//! random play, each choosing role's legal moves are tried one at a time,
//! the other roles' moves kept, and the fluents in which the next states
//! differ are joined into one group with the moves tried (union-find over
//! the fluents' texts, petgraph's). Moves whose effects never meet fall into separate
//! groups: the factors, as the two boards of connectFourSimultaneous,
//! where every step each role drops a disc on a board of its own.
//!
//! A factoring is kept only where it pays: where at some state two roles
//! choose and their moves lie in different factors (Sancho's
//! "pseudo-simultaneous" games), and every factor is a game between two
//! roles or more. There a tree per factor gives each role's choice its
//! own node where the joint tree has the product.

use super::super::draw::{all_legal, below};
use gdl_runtime::Reasoner;
use petgraph::unionfind::UnionFind;
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::{FxHashMap, FxHashSet};
use std::hash::Hash;
use std::time::{Duration, Instant};

/// States tried at most.
const SAMPLES: usize = 200;
/// The most time the trying takes.
const BUDGET: Duration = Duration::from_millis(500);

/// Which factor each move of the game falls into.
#[derive(Debug)]
pub struct Factoring<M> {
    /// The factor of every move tried, by role.
    factor: FxHashMap<(usize, M), usize>,
    /// How many factors.
    count: usize,
}

impl<M: Copy + Eq + Hash> Factoring<M> {
    /// How many factors the game falls into.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The factor every one of `role`'s `moves` lies in; `None` where one
    /// was never tried or they lie in several.
    pub fn factor_of(&self, role: usize, moves: &[M]) -> Option<usize> {
        let first = *self.factor.get(&(role, *moves.first()?))?;
        moves[1..]
            .iter()
            .all(|&m| self.factor.get(&(role, m)) == Some(&first))
            .then_some(first)
    }
}

/// The factors of the game from `state`, found by trying moves (seeded
/// with `seed`); `None` where the game does not fall into factors that
/// two roles choose in at once.
pub fn find<R: Reasoner>(r: &mut R, state: &R::State, seed: u64) -> Option<Factoring<R::Move>> {
    let mut trying = Trying::new(seed);
    let deadline = Instant::now() + BUDGET;
    while trying.samples < SAMPLES && Instant::now() < deadline {
        trying.play_from(r, state.clone(), deadline);
    }
    trying.factoring()
}

/// The fluents of `state`.
fn fluent_set<R: Reasoner>(r: &R, state: &R::State) -> FxHashSet<String> {
    r.fluents(state).into_iter().collect()
}

/// The fluents that the joint move `joint` adds to or takes from
/// `state`, whose fluents are `fluents`.
fn change<R: Reasoner>(
    r: &mut R,
    state: &R::State,
    fluents: &FxHashSet<String>,
    joint: &[R::Move],
) -> FxHashSet<String> {
    let next = r.next_state(state, joint);
    let next = fluent_set(r, &next);
    next.symmetric_difference(fluents).cloned().collect()
}

/// Whether `joint` is legal at `state`: `Some(None)` if it is, `Some(Some
/// (role))` if `role`'s move is not (while it has others), `None` where
/// `state` is terminal or a role has no legal move.
fn illegal_in<R: Reasoner>(
    r: &mut R,
    state: &R::State,
    joint: &[R::Move],
) -> Option<Option<usize>> {
    if r.is_terminal(state) {
        return None;
    }
    let mut moves = Vec::new();
    let mut illegal = None;
    for (role, m) in joint.iter().enumerate() {
        r.legal_moves(state, role, &mut moves);
        if moves.is_empty() {
            return None;
        }
        if illegal.is_none() && !moves.contains(m) {
            illegal = Some(role);
        }
    }
    Some(illegal)
}

/// What trying moves has found so far.
struct Trying<M> {
    rng: Xoshiro256PlusPlus,
    /// Each fluent's text, numbered.
    fluents: FxHashMap<String, usize>,
    /// The fluents' groups, by number.
    groups: UnionFind<usize>,
    /// A fluent of each move's group, by role and move.
    moves: FxHashMap<(usize, M), usize>,
    /// At each state tried, each choosing role with one of its moves.
    choosers: Vec<Vec<(usize, M)>>,
    samples: usize,
}

impl<M: Copy + Eq + Hash> Trying<M> {
    fn new(seed: u64) -> Self {
        Trying {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            fluents: FxHashMap::default(),
            groups: UnionFind::new(0),
            moves: FxHashMap::default(),
            choosers: Vec::new(),
            samples: 0,
        }
    }

    /// Tries the moves at every state of one random playout from `state`.
    fn play_from<R: Reasoner<Move = M>>(&mut self, r: &mut R, mut state: R::State, until: Instant) {
        let mut legal = Vec::new();
        while self.samples < SAMPLES && Instant::now() < until && !r.is_terminal(&state) {
            if !all_legal(r, &state, &mut legal) {
                return;
            }
            let joint: Vec<M> = legal
                .iter()
                .map(|moves| moves[below(&mut self.rng, moves.len())])
                .collect();
            self.try_moves(r, &state, &legal, &joint, until);
            self.samples += 1;
            state = r.next_state(&state, &joint);
        }
    }

    /// At `state`, tries each choosing role's `legal` moves in place of
    /// its move in `joint`: joins the fluents in which the next states
    /// differ, and those in which one random joint move after them changes
    /// them differently (a disc dropped on a disc another role's move put
    /// there); a move after them legal in one only goes in the same group.
    /// Stops at `until`.
    fn try_moves<R: Reasoner<Move = M>>(
        &mut self,
        r: &mut R,
        state: &R::State,
        legal: &[Vec<M>],
        joint: &[M],
        until: Instant,
    ) {
        let after = r.next_state(state, joint);
        let base = fluent_set(r, &after);
        let then = self.random_joint(r, &after);
        let base_change = then.as_ref().map(|k| change(r, &after, &base, k));
        let mut choosers = Vec::new();
        for (role, moves) in legal.iter().enumerate() {
            if moves.len() < 2 || r.random_role() == Some(role) {
                continue;
            }
            choosers.push((role, moves[0]));
            let mut anchor = None;
            for &m in moves.iter().filter(|&&m| m != joint[role]) {
                if Instant::now() >= until {
                    break;
                }
                let mut other = joint.to_vec();
                other[role] = m;
                let next = r.next_state(state, &other);
                let set = fluent_set(r, &next);
                let mut differ: Vec<usize> = set
                    .symmetric_difference(&base)
                    .map(|f| self.fluent(f))
                    .collect();
                let mut illegal = None;
                if let (Some(k), Some(base_change)) = (&then, &base_change) {
                    match illegal_in(r, &next, k) {
                        Some(None) => {
                            let change = change(r, &next, &set, k);
                            let f = change.symmetric_difference(base_change);
                            differ.extend(f.map(|f| self.fluent(f)));
                        }
                        Some(Some(other_role)) => illegal = Some((other_role, k[other_role])),
                        None => {}
                    }
                }
                for &f in &differ {
                    let a = *anchor.get_or_insert(f);
                    self.groups.union(a, f);
                }
                if let (Some((other_role, k)), Some(a)) = (illegal, anchor) {
                    self.place(other_role, k, a);
                }
            }
            if let Some(a) = anchor {
                for &m in moves {
                    self.place(role, m, a);
                }
            }
        }
        self.choosers.push(choosers);
    }

    /// A random joint move at `state`; `None` where it is terminal or a
    /// role has no legal move.
    fn random_joint<R: Reasoner<Move = M>>(
        &mut self,
        r: &mut R,
        state: &R::State,
    ) -> Option<Vec<M>> {
        if r.is_terminal(state) {
            return None;
        }
        let mut moves = Vec::new();
        let mut joint = Vec::new();
        for role in 0..r.roles().len() {
            r.legal_moves(state, role, &mut moves);
            if moves.is_empty() {
                return None;
            }
            joint.push(moves[below(&mut self.rng, moves.len())]);
        }
        Some(joint)
    }

    /// The number of the fluent `text`.
    fn fluent(&mut self, text: &str) -> usize {
        if let Some(&f) = self.fluents.get(text) {
            return f;
        }
        let f = self.groups.new_set();
        self.fluents.insert(text.to_string(), f);
        f
    }

    /// Puts `role`'s move `m` in the group of fluent `f` (joining that
    /// with its group from other states).
    fn place(&mut self, role: usize, m: M, f: usize) {
        match self.moves.get(&(role, m)) {
            Some(&g) => {
                self.groups.union(g, f);
            }
            None => {
                self.moves.insert((role, m), f);
            }
        }
    }

    /// The factoring found: the moves' groups numbered in order of their
    /// roots; `None` unless two roles chose in different groups at once
    /// and every group holds moves of two roles or more. A group of one
    /// role's moves is that role's own part of the state: its tree would
    /// branch on that role's moves alone, blind to what the others did
    /// (open-loop), and in racer, two cars each on its own track, such
    /// trees lost 8 of 10 matches to the joint tree.
    fn factoring(mut self) -> Option<Factoring<M>> {
        let placed: Vec<((usize, M), usize)> = self.moves.iter().map(|(&k, &f)| (k, f)).collect();
        let mut roots: Vec<usize> = placed
            .iter()
            .map(|&(_, f)| self.groups.find_mut(f))
            .collect();
        roots.sort_unstable();
        roots.dedup();
        let mut factor = FxHashMap::default();
        for (key, f) in placed {
            let root = self.groups.find_mut(f);
            factor.insert(key, roots.binary_search(&root).expect("every root listed"));
        }
        let factoring = Factoring {
            factor,
            count: roots.len(),
        };
        let apart = self.choosers.iter().any(|choosers| {
            let factors: FxHashSet<usize> = choosers
                .iter()
                .filter_map(|&(role, m)| factoring.factor_of(role, &[m]))
                .collect();
            factors.len() >= 2
        });
        let mut roles = vec![FxHashSet::default(); factoring.count];
        for (&(role, _), &f) in &factoring.factor {
            roles[f].insert(role);
        }
        let contested = roles.iter().all(|r| r.len() >= 2);
        (factoring.count >= 2 && apart && contested).then_some(factoring)
    }
}
