//! A node of the search tree, laid out for the descent: every role's
//! legal moves in one slice and their statistics in another, the children
//! in an array indexed by the joint move's number (a hash map only where a
//! node has more joint moves than [`DENSE_CHILDREN`]), and the first
//! parent inline. A joint move is numbered in mixed radix, each role's
//! move index a digit: in a turn-taking game, the mover's move index.

use gdl_runtime::Reasoner;
use rustc_hash::FxHashMap;

/// Visits and summed value of one move of one role in one node.
#[derive(Clone, Copy, Debug, Default)]
pub struct MoveStats {
    /// How often the move was chosen.
    pub visits: u64,
    /// The sum of the role's values (goal / 100) over those visits.
    pub value: f64,
}

/// All-moves-as-first statistics of one node, by role and move
/// ([`super::grave`]).
pub(super) type Amaf<M> = FxHashMap<(u32, M), MoveStats>;

/// A joint move's number at a node.
pub(super) type Joint = u128;

/// Nodes with at most this many joint moves keep their children in an
/// array.
const DENSE_CHILDREN: Joint = 1024;
/// No child (in the array of children), or no parent.
const NONE: u32 = u32::MAX;
/// The most nodes a tree holds: their indices are kept as `u32`, below
/// [`NONE`].
pub(super) const MOST_NODES: usize = NONE as usize;

/// One state of the tree: its moves, their statistics, its links.
pub(super) struct Node<R: Reasoner> {
    pub state: R::State,
    /// The goals / 100 of each role when terminal; `None` otherwise.
    pub goals: Option<Vec<f64>>,
    /// The values / 100 of each role under best play, once proven (see
    /// the parent module's documentation); the goals of a terminal node.
    pub proven: Option<Vec<f64>>,
    /// How many of its children are proven: none spares looking.
    pub proven_children: usize,
    pub visits: u64,
    /// The state's hash ([`Reasoner::state_hash`]); 0 in a node added
    /// without transpositions.
    pub hash: u64,
    /// The last iteration whose path passed the node: a cycle ends there.
    pub on_path: u64,
    /// With GRAVE, once visited often enough, its all-moves-as-first
    /// statistics ([`super::grave`]).
    pub amaf: Option<Box<Amaf<R::Move>>>,
    /// Every role's legal moves, role after role.
    moves: Box<[R::Move]>,
    /// Each move's statistics, in the order of `moves`.
    stats: Box<[MoveStats]>,
    /// Where each role's moves end in `moves`.
    ends: Box<[u32]>,
    /// The children by joint move, [`NONE`] where there is none yet;
    /// allocated with the first child, left empty where `sparse` is used.
    dense: Box<[u32]>,
    /// The children by joint move, where the joint moves are too many for
    /// `dense`.
    sparse: FxHashMap<Joint, u32>,
    /// The first node with a joint move to this one ([`NONE`] for none).
    parent: u32,
    /// The others, once per such move (with transpositions).
    more_parents: Vec<u32>,
}

impl<R: Reasoner> Node<R> {
    /// A node of `state`: every role's legal moves `moves`, role after
    /// role, each role's ending where `ends` says (both empty when
    /// terminal), and its goals `goals` when terminal.
    pub fn new(
        state: R::State,
        hash: u64,
        moves: Vec<R::Move>,
        ends: Vec<u32>,
        goals: Option<Vec<f64>>,
    ) -> Self {
        Node {
            state,
            proven: goals.clone(),
            goals,
            proven_children: 0,
            visits: 0,
            hash,
            on_path: 0,
            amaf: None,
            stats: vec![MoveStats::default(); moves.len()].into_boxed_slice(),
            moves: moves.into_boxed_slice(),
            ends: ends.into_boxed_slice(),
            dense: Box::default(),
            sparse: FxHashMap::default(),
            parent: NONE,
            more_parents: Vec::new(),
        }
    }

    /// How many roles have moves here (none when terminal).
    pub fn roles(&self) -> usize {
        self.ends.len()
    }

    /// Where `role`'s moves start and end in the flat slices.
    fn span(&self, role: usize) -> std::ops::Range<usize> {
        let start = if role == 0 { 0 } else { self.ends[role - 1] };
        start as usize..self.ends[role] as usize
    }

    /// `role`'s legal moves.
    pub fn moves(&self, role: usize) -> &[R::Move] {
        &self.moves[self.span(role)]
    }

    /// The statistics of `role`'s moves.
    pub fn stats(&self, role: usize) -> &[MoveStats] {
        &self.stats[self.span(role)]
    }

    /// Counts a visit through the joint move `joint` that scored `values`
    /// (one per role).
    pub fn credit(&mut self, mut joint: Joint, values: &[f64]) {
        self.visits += 1;
        for (role, &value) in values.iter().enumerate().take(self.roles()) {
            let span = self.span(role);
            let n = span.len() as Joint;
            let s = &mut self.stats[span.start + (joint % n) as usize];
            joint /= n;
            s.visits += 1;
            s.value += value;
        }
    }

    /// The number of the joint move in which each role plays its move of
    /// index `indices[role]`.
    pub fn joint(&self, indices: impl DoubleEndedIterator<Item = u32>) -> Joint {
        let counts = (0..self.roles())
            .rev()
            .map(|role| self.span(role).len() as Joint);
        indices
            .rev()
            .zip(counts)
            .fold(0, |joint, (i, n)| joint * n + Joint::from(i))
    }

    /// The number of the joint move in which `role` plays its move of
    /// index `i` and every other role its first.
    pub fn joint_of(&self, role: usize, i: usize) -> Joint {
        let stride: Joint = (0..role).map(|q| self.span(q).len() as Joint).product();
        stride * i as Joint
    }

    /// Each role's move index in the joint move `joint`.
    pub fn indices(&self, mut joint: Joint) -> impl Iterator<Item = usize> + '_ {
        (0..self.roles()).map(move |role| {
            let n = self.span(role).len() as Joint;
            let i = joint % n;
            joint /= n;
            i as usize
        })
    }

    /// How many joint moves the node has.
    fn joints(&self) -> Joint {
        (0..self.roles())
            .map(|role| self.span(role).len() as Joint)
            .product()
    }

    /// The child the joint move `joint` leads to, if linked.
    pub fn child(&self, joint: Joint) -> Option<usize> {
        let child = match usize::try_from(joint).ok().and_then(|j| self.dense.get(j)) {
            Some(&child) => child,
            None => *self.sparse.get(&joint)?,
        };
        (child != NONE).then_some(child as usize)
    }

    /// Makes `child` the node the joint move `joint` leads to.
    pub fn set_child(&mut self, joint: Joint, child: usize) {
        let joints = self.joints();
        if joints > DENSE_CHILDREN {
            self.sparse.insert(joint, child as u32);
            return;
        }
        if self.dense.is_empty() {
            self.dense = vec![NONE; joints as usize].into_boxed_slice();
        }
        self.dense[joint as usize] = child as u32;
    }

    /// The children, each once per joint move leading to it.
    pub fn children(&self) -> impl Iterator<Item = usize> + '_ {
        let dense = self.dense.iter().filter(|&&c| c != NONE);
        dense.chain(self.sparse.values()).map(|&c| c as usize)
    }

    /// Renumbers the children by `renumber`.
    pub fn renumber_children(&mut self, renumber: impl Fn(usize) -> usize) {
        let dense = self.dense.iter_mut().filter(|c| **c != NONE);
        for child in dense.chain(self.sparse.values_mut()) {
            *child = renumber(*child as usize) as u32;
        }
    }

    /// The nodes with a joint move to this one, once per such move.
    pub fn parents(&self) -> impl Iterator<Item = usize> + '_ {
        let first = (self.parent != NONE).then_some(self.parent);
        first
            .into_iter()
            .chain(self.more_parents.iter().copied())
            .map(|p| p as usize)
    }

    /// Notes one more joint move of `parent` to this node.
    pub fn add_parent(&mut self, parent: usize) {
        if self.parent == NONE {
            self.parent = parent as u32;
        } else {
            self.more_parents.push(parent as u32);
        }
    }

    /// Keeps the parents `renumber` keeps, renumbered.
    pub fn renumber_parents(&mut self, renumber: impl Fn(usize) -> Option<usize>) {
        self.more_parents
            .retain_mut(|p| renumber(*p as usize).map(|kept| *p = kept as u32).is_some());
        let first = (self.parent != NONE)
            .then(|| renumber(self.parent as usize))
            .flatten();
        self.parent = match first {
            Some(kept) => kept as u32,
            None => self.more_parents.pop().unwrap_or(NONE),
        };
    }
}

#[cfg(all(test, feature = "interpreter"))]
mod tests {
    use super::{Joint, Node, DENSE_CHILDREN};
    use crate::search::tests::interpreter;
    use gdl_runtime::Reasoner;
    use gdlc::interp::Interpreter;

    /// A node of the initial state of a game where roles `a` and `b` each
    /// choose among `n` moves at once.
    fn node_of(n: usize) -> Node<Interpreter> {
        let numbers: String = (0..n).map(|k| format!("(n {k}) ")).collect();
        let text = format!(
            "(role a) (role b) {numbers} (init s) (<= (legal ?r (pick ?k)) (role ?r) (n ?k))
             (<= (next t) (true s)) (<= terminal (true t)) (goal a 0) (goal b 0)"
        );
        let mut r = interpreter(&text);
        let state = r.initial_state();
        let (mut moves, mut ends) = (Vec::new(), Vec::new());
        let mut scratch = Vec::new();
        for role in 0..2 {
            r.legal_moves(&state, role, &mut scratch);
            moves.extend_from_slice(&scratch);
            ends.push(moves.len() as u32);
        }
        Node::new(state, 0, moves, ends, None)
    }

    /// Links every joint move to a child numbered after it and checks
    /// that each is found again, with its moves.
    fn check_links(n: usize) {
        let mut node = node_of(n);
        assert_eq!(node.joints(), (n * n) as Joint);
        for i in 0..n as u32 {
            for j in 0..n as u32 {
                let joint = node.joint([i, j].into_iter());
                assert_eq!(
                    node.indices(joint).collect::<Vec<_>>(),
                    [i as usize, j as usize]
                );
                assert_eq!(node.child(joint), None);
                node.set_child(joint, (i * 1000 + j) as usize);
            }
        }
        for i in 0..n {
            assert_eq!(node.joint_of(1, i), node.joint([0, i as u32].into_iter()));
            for j in 0..n {
                let joint = node.joint([i as u32, j as u32].into_iter());
                assert_eq!(node.child(joint), Some(i * 1000 + j));
            }
        }
        assert_eq!(node.children().count(), n * n);
    }

    #[test]
    fn each_joint_move_leads_to_its_own_child_in_the_array() {
        assert!((5 * 5) as Joint <= DENSE_CHILDREN);
        check_links(5);
        assert!(!node_of(5).moves(1).is_empty());
    }

    #[test]
    fn each_joint_move_leads_to_its_own_child_in_the_map() {
        assert!((33 * 33) as Joint > DENSE_CHILDREN);
        check_links(33);
    }

    #[test]
    fn parents_are_kept_and_renumbered() {
        let mut node = node_of(2);
        assert_eq!(node.parents().count(), 0);
        for parent in [4, 7, 9] {
            node.add_parent(parent);
        }
        node.renumber_parents(|p| (p != 4).then_some(p * 10));
        let mut parents: Vec<usize> = node.parents().collect();
        parents.sort_unstable();
        assert_eq!(parents, [70, 90]);
    }
}
