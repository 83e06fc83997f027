//! Drivers written once against [`Reasoner`]: perft, the deterministic playout
//! of the conformance suite, flat Monte-Carlo and move application from text.

use crate::{percept_texts, Reasoner};
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::{Duration, Instant};

/// Why a driver could not go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DriverError {
    /// A role has no legal move in a state that is not terminal.
    NoLegalMoves {
        /// The role's name.
        role: String,
        /// The fluents of the state, canonical text.
        state: Vec<String>,
    },
    /// A move given as text could not be parsed or is not legal.
    IllegalMove {
        /// The role's name.
        role: String,
        /// The text of the move.
        text: String,
    },
    /// A joint move had the wrong number of moves.
    WrongArity {
        /// Number of roles.
        expected: usize,
        /// Number of moves given.
        found: usize,
    },
}

impl std::fmt::Display for DriverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DriverError::NoLegalMoves { role, state } => write!(
                f,
                "role `{role}` has no legal move in a non-terminal state: {{{}}}",
                state.join(" ")
            ),
            DriverError::IllegalMove { role, text } => {
                write!(f, "`{text}` is not a legal move of role `{role}`")
            }
            DriverError::WrongArity { expected, found } => write!(
                f,
                "a joint move needs one move per role: {expected} expected, {found} given"
            ),
        }
    }
}

impl std::error::Error for DriverError {}

/// Counts of one perft depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PerftLevel {
    /// The depth.
    pub depth: u32,
    /// Tree nodes at depth `<= depth`, the root counted.
    pub nodes: u64,
    /// Tree nodes at exactly `depth`.
    pub leaves: u64,
}

/// Scratch space of one level of the perft recursion.
struct PerftFrame<R: Reasoner> {
    legal: Vec<Vec<R::Move>>,
    joint: Vec<R::Move>,
    children: Vec<R::State>,
}

/// Perft from the initial state to `depth`, in one pass: the levels `0..=depth`.
///
/// Children of a non-terminal state are the cartesian product of the roles'
/// legal moves; terminal states are not expanded. The last level is counted
/// without computing the states in it. In a GDL-II game the moves of the
/// role `random` are branches like any other role's (the tree of every
/// outcome, not weighted by chance).
pub fn perft<R: Reasoner>(r: &mut R, depth: u32) -> Result<Vec<PerftLevel>, DriverError> {
    let root = r.initial_state();
    perft_from(r, &root, depth)
}

/// [`perft`] from `root` instead of the initial state (a subtree, as a
/// perft split over several processes counts it).
pub fn perft_from<R: Reasoner>(
    r: &mut R,
    root: &R::State,
    depth: u32,
) -> Result<Vec<PerftLevel>, DriverError> {
    perft_pass(r, root, depth, None).map(|levels| levels.expect("no deadline"))
}

/// Perft by iterative deepening up to `max_depth`, stopping at `deadline`:
/// the levels of every depth completed in time (depth 0 always is).
///
/// `on_level` is called as each depth completes.
pub fn perft_with<R: Reasoner>(
    r: &mut R,
    max_depth: u32,
    deadline: Option<Instant>,
    on_level: &mut dyn FnMut(&PerftLevel),
) -> Result<Vec<PerftLevel>, DriverError> {
    let mut done: Vec<PerftLevel> = Vec::new();
    let root = r.initial_state();
    for depth in 0..=max_depth {
        if depth > 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        match perft_pass(r, &root, depth, deadline)? {
            Some(levels) => {
                let level = levels[depth as usize];
                on_level(&level);
                done.push(level);
                if level.leaves == 0 {
                    break;
                }
            }
            None => break,
        }
    }
    Ok(done)
}

/// One perft pass from `root` to `depth`; `None` when the deadline passed
/// first.
fn perft_pass<R: Reasoner>(
    r: &mut R,
    root: &R::State,
    depth: u32,
    deadline: Option<Instant>,
) -> Result<Option<Vec<PerftLevel>>, DriverError> {
    let roles = r.roles().len();
    let mut frames: Vec<PerftFrame<R>> = (0..depth)
        .map(|_| PerftFrame {
            legal: vec![Vec::new(); roles],
            joint: Vec::with_capacity(roles),
            children: Vec::new(),
        })
        .collect();
    let mut leaves = vec![0u64; depth as usize + 1];
    let mut clock = Clock { deadline, ticks: 0 };
    if !perft_node(r, root, 0, &mut frames, &mut leaves, &mut clock)? {
        return Ok(None);
    }
    Ok(Some(levels(&leaves)))
}

/// The perft levels of the leaf counts per depth (nodes: the leaves of
/// every depth up to a level's, added up).
pub(crate) fn levels(leaves: &[u64]) -> Vec<PerftLevel> {
    let mut nodes = 0;
    leaves
        .iter()
        .enumerate()
        .map(|(d, &l)| {
            nodes += l;
            PerftLevel {
                depth: d as u32,
                nodes,
                leaves: l,
            }
        })
        .collect()
}

/// Checks a deadline every few hundred calls.
struct Clock {
    deadline: Option<Instant>,
    ticks: u32,
}

impl Clock {
    fn expired(&mut self) -> bool {
        self.ticks = self.ticks.wrapping_add(1);
        self.ticks.is_multiple_of(256) && self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// Counts `state` at `level` and its subtree; `false` when the deadline passed.
fn perft_node<R: Reasoner>(
    r: &mut R,
    state: &R::State,
    level: usize,
    frames: &mut [PerftFrame<R>],
    leaves: &mut [u64],
    clock: &mut Clock,
) -> Result<bool, DriverError> {
    leaves[level] += 1;
    let Some((frame, deeper)) = frames.split_first_mut() else {
        return Ok(true);
    };
    if clock.expired() {
        return Ok(false);
    }
    if r.is_terminal(state) {
        return Ok(true);
    }
    let mut product: u64 = 1;
    for (role, moves) in frame.legal.iter_mut().enumerate() {
        r.legal_moves(state, role, moves);
        product *= moves.len() as u64;
    }
    if product == 0 {
        return Err(no_legal_moves(r, state, &frame.legal));
    }
    if deeper.is_empty() {
        leaves[level + 1] += product;
        return Ok(true);
    }
    let mut odometer = JointMoves::new(&frame.legal);
    let mut children = std::mem::take(&mut frame.children);
    let mut more = true;
    while more {
        children.clear();
        while children.len() < MAX_CHILDREN_AT_ONCE {
            if !odometer.fill(&frame.legal, &mut frame.joint) {
                more = false;
                break;
            }
            if clock.expired() {
                return Ok(false);
            }
            children.push(r.next_state(state, &frame.joint));
            odometer.advance(&frame.legal);
        }
        for child in &children {
            if !perft_node(r, child, level + 1, deeper, leaves, clock)? {
                return Ok(false);
            }
        }
    }
    frame.children = children;
    Ok(true)
}

/// Most children of a perft node computed before descending into them. A
/// node's children are computed together, so that a reasoner caching its
/// last state evaluates the node once; a node with more joint moves (four
/// players choosing among 101 numbers: 104 million) is expanded in batches
/// of this many, in bounded memory.
pub(crate) const MAX_CHILDREN_AT_ONCE: usize = 1 << 14;

/// The error of a state where some role of `legal` has no legal move.
pub(crate) fn no_legal_moves<R: Reasoner>(
    r: &mut R,
    state: &R::State,
    legal: &[Vec<R::Move>],
) -> DriverError {
    let role = legal.iter().position(|m| m.is_empty()).unwrap_or(0);
    DriverError::NoLegalMoves {
        role: r.roles()[role].clone(),
        state: r.fluents(state),
    }
}

/// Enumerates the cartesian product of the roles' legal moves, in order
/// (the last role varies fastest), without allocating per joint move.
struct JointMoves {
    index: Vec<usize>,
    done: bool,
}

impl JointMoves {
    fn new<M>(legal: &[Vec<M>]) -> Self {
        JointMoves {
            index: vec![0; legal.len()],
            done: legal.iter().any(|m| m.is_empty()),
        }
    }

    fn fill<M: Copy>(&self, legal: &[Vec<M>], joint: &mut Vec<M>) -> bool {
        if self.done {
            return false;
        }
        joint.clear();
        joint.extend(self.index.iter().zip(legal).map(|(&i, m)| m[i]));
        true
    }

    fn advance<M>(&mut self, legal: &[Vec<M>]) {
        for role in (0..legal.len()).rev() {
            self.index[role] += 1;
            if self.index[role] < legal[role].len() {
                return;
            }
            self.index[role] = 0;
        }
        self.done = true;
    }
}

/// One step of a recorded playout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayoutStep {
    /// Each role's legal moves, canonical text, sorted.
    pub legal: Vec<Vec<String>>,
    /// The move each role took.
    pub joint: Vec<String>,
    /// The fluents of the state reached, canonical text, sorted.
    pub state: Vec<String>,
    /// In a game with percepts ([`Reasoner::has_percepts`]), what each role
    /// perceived of the joint move, canonical text, sorted (the role
    /// `random`'s list empty).
    pub sees: Option<Vec<Vec<String>>>,
}

/// A recorded deterministic playout (see [`deterministic_playout`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Playout {
    /// The seed that chose the moves.
    pub seed: u64,
    /// The steps taken.
    pub steps: Vec<PlayoutStep>,
    /// The number of steps after which a terminal state was reached, if one was.
    pub terminal_step: Option<usize>,
    /// Each role's goal in the terminal state (`None` when not exactly one);
    /// empty when the playout was truncated.
    pub goals: Vec<Option<u32>>,
}

/// The deterministic playout of the conformance suite: at step `t`, role `i`
/// sorts its legal moves by canonical text and takes index
/// `(t*7 + i*13 + seed*5) mod count`; the playout stops at a terminal state or
/// after `max_steps` steps.
pub fn deterministic_playout<R: Reasoner>(
    r: &mut R,
    seed: u64,
    max_steps: usize,
) -> Result<Playout, DriverError> {
    let roles = r.roles().len();
    let mut state = r.initial_state();
    let mut steps = Vec::new();
    let mut moves = Vec::new();
    let mut joint = Vec::with_capacity(roles);
    for t in 0..=max_steps {
        if r.is_terminal(&state) {
            let goals = (0..roles).map(|i| r.goal(&state, i)).collect();
            return Ok(Playout {
                seed,
                steps,
                terminal_step: Some(t),
                goals,
            });
        }
        if t == max_steps {
            break;
        }
        joint.clear();
        let mut legal_texts = Vec::with_capacity(roles);
        let mut joint_texts = Vec::with_capacity(roles);
        for i in 0..roles {
            r.legal_moves(&state, i, &mut moves);
            let (texts, order) = sorted_by_text(moves.iter().map(|&m| r.move_text(i, m)).collect());
            if texts.is_empty() {
                return Err(DriverError::NoLegalMoves {
                    role: r.roles()[i].clone(),
                    state: r.fluents(&state),
                });
            }
            let pick = ((t as u64 * 7 + i as u64 * 13 + seed * 5) % texts.len() as u64) as usize;
            joint.push(moves[order[pick]]);
            joint_texts.push(texts[pick].clone());
            legal_texts.push(texts);
        }
        let sees = r.has_percepts().then(|| {
            // The role `random` perceives nothing: an empty list.
            (0..roles)
                .map(|role| percept_texts(r, &state, &joint, role).unwrap_or_default())
                .collect()
        });
        state = r.next_state(&state, &joint);
        steps.push(PlayoutStep {
            legal: legal_texts,
            joint: joint_texts,
            state: r.fluents(&state),
            sees,
        });
    }
    Ok(Playout {
        seed,
        steps,
        terminal_step: None,
        goals: Vec::new(),
    })
}

/// Applies a joint move given as KIF text (one move per role, in declaration
/// order) to `state`, checking that each move is legal.
pub fn play<R: Reasoner>(
    r: &mut R,
    state: &R::State,
    joint_text: &[&str],
) -> Result<R::State, DriverError> {
    let roles = r.roles().len();
    if joint_text.len() != roles {
        return Err(DriverError::WrongArity {
            expected: roles,
            found: joint_text.len(),
        });
    }
    let mut joint = Vec::with_capacity(roles);
    let mut legal = Vec::new();
    for (i, text) in joint_text.iter().enumerate() {
        let illegal = DriverError::IllegalMove {
            role: r.roles()[i].clone(),
            text: text.to_string(),
        };
        let Some(mv) = r.parse_move(i, text) else {
            return Err(illegal);
        };
        r.legal_moves(state, i, &mut legal);
        if !legal.contains(&mv) {
            return Err(illegal);
        }
        joint.push(mv);
    }
    Ok(r.next_state(state, &joint))
}

/// How long a flat Monte-Carlo run goes on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum McBudget {
    /// Exactly this many playouts.
    Playouts(u64),
    /// Playouts until this much time has passed; a playout still running
    /// then stops there (its states count, the playout does not).
    Time(Duration),
}

/// The figures of a flat Monte-Carlo run.
#[derive(Clone, Debug, PartialEq)]
pub struct McReport {
    /// The seed of the random generator (xoshiro256++ seeded by SplitMix64).
    pub seed: u64,
    /// Playouts completed.
    pub playouts: u64,
    /// States visited, the initial and the terminal ones included.
    pub states: u64,
    /// Joint moves played (state changes), those of a playout the deadline
    /// cut short included.
    pub joint_moves: u64,
    /// Wall-clock time of the run.
    pub seconds: f64,
    /// Mean goal of each role over the playouts (a missing goal counts as 0).
    pub mean_goals: Vec<f64>,
    /// Playouts stopped at the length limit before reaching a terminal state.
    pub truncated: u64,
}

impl McReport {
    /// Playouts per second.
    pub fn playouts_per_sec(&self) -> f64 {
        self.playouts as f64 / self.seconds.max(1e-9)
    }
    /// States per second.
    pub fn states_per_sec(&self) -> f64 {
        self.states as f64 / self.seconds.max(1e-9)
    }
}

/// Flat Monte-Carlo: uniformly random playouts from the initial state, each
/// stopped at a terminal state (or after `max_length` joint moves). Every
/// role's move is drawn uniformly from its legal moves, which is also how a
/// GDL-II game manager draws the moves of the role `random`, so the mean
/// goals are those of uniformly random players against the game's chance.
///
/// `progress` is called after every playout with the report so far.
pub fn flat_monte_carlo<R: Reasoner>(
    r: &mut R,
    budget: McBudget,
    seed: u64,
    max_length: u64,
    progress: &mut dyn FnMut(&McReport),
) -> Result<McReport, DriverError> {
    let rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    random_playouts(r, budget, rng, seed, max_length, progress).map(|(report, _)| report)
}

/// The playouts of [`flat_monte_carlo`] with the generator `rng` (`seed` is
/// the one the report names): the report and each role's sum of goals.
/// Nothing is allocated once the scratch vectors are made.
pub(crate) fn random_playouts<R: Reasoner>(
    r: &mut R,
    budget: McBudget,
    mut rng: Xoshiro256PlusPlus,
    seed: u64,
    max_length: u64,
    progress: &mut dyn FnMut(&McReport),
) -> Result<(McReport, Vec<u64>), DriverError> {
    let roles = r.roles().len();
    let mut report = McReport {
        seed,
        playouts: 0,
        states: 0,
        joint_moves: 0,
        seconds: 0.0,
        mean_goals: vec![0.0; roles],
        truncated: 0,
    };
    let mut goal_sums = vec![0u64; roles];
    let mut moves = Vec::new();
    let mut joint = Vec::with_capacity(roles);
    let initial = r.initial_state();
    let start = Instant::now();
    loop {
        match budget {
            McBudget::Playouts(n) if report.playouts >= n => break,
            McBudget::Time(t) if start.elapsed() >= t => break,
            _ => {}
        }
        let mut state = initial.clone();
        let mut length = 0;
        report.states += 1;
        loop {
            if r.is_terminal(&state) {
                for (role, sum) in goal_sums.iter_mut().enumerate() {
                    *sum += u64::from(r.goal(&state, role).unwrap_or(0));
                }
                break;
            }
            if length == max_length {
                report.truncated += 1;
                break;
            }
            joint.clear();
            for role in 0..roles {
                r.legal_moves(&state, role, &mut moves);
                if moves.is_empty() {
                    return Err(DriverError::NoLegalMoves {
                        role: r.roles()[role].clone(),
                        state: r.fluents(&state),
                    });
                }
                joint.push(moves[pick(&mut rng, moves.len())]);
            }
            state = r.next_state(&state, &joint);
            length += 1;
            report.states += 1;
            if out_of_time(budget, start, report.states) {
                // A playout cut short by the deadline counts its states,
                // not itself (a chess playout of the interpreter takes
                // seconds); its joint moves are one fewer than its states.
                report.joint_moves = report.states - report.playouts - 1;
                report.seconds = start.elapsed().as_secs_f64();
                report.mean_goals = mean_goals(&goal_sums, report.playouts);
                return Ok((report, goal_sums));
            }
        }
        report.playouts += 1;
        report.seconds = start.elapsed().as_secs_f64();
        progress(&report);
    }
    // Every playout counted its initial state and one state per joint move.
    report.joint_moves = report.states - report.playouts;
    report.seconds = start.elapsed().as_secs_f64();
    report.mean_goals = mean_goals(&goal_sums, report.playouts);
    Ok((report, goal_sums))
}

/// Whether a time budget has run out, looked at every 64 states (reading
/// the clock costs as much as a state of the fastest games).
fn out_of_time(budget: McBudget, start: Instant, states: u64) -> bool {
    matches!(budget, McBudget::Time(t) if states.is_multiple_of(64) && start.elapsed() >= t)
}

/// `texts` sorted (stably), and where each came from in `texts`: the
/// drivers' text work, compiled once rather than per game.
pub(crate) fn sorted_by_text(texts: Vec<String>) -> (Vec<String>, Vec<usize>) {
    let mut pairs: Vec<(String, usize)> = texts.into_iter().zip(0..).collect();
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    pairs.into_iter().unzip()
}

/// A uniformly random index below `count` (at most 2^32), from the top
/// bits of one 32-bit draw.
pub(crate) fn pick(rng: &mut Xoshiro256PlusPlus, count: usize) -> usize {
    ((u64::from(rng.next_u32()) * count as u64) >> 32) as usize
}

/// Each role's mean goal over `playouts` playouts from its sum (0 without
/// playouts).
pub(crate) fn mean_goals(goal_sums: &[u64], playouts: u64) -> Vec<f64> {
    let done = playouts.max(1) as f64;
    goal_sums.iter().map(|&s| s as f64 / done).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two roles moving at once; role 0 has `n` moves, role 1 two; the game
    /// ends after `depth` rounds. States are the round number.
    struct Toy {
        roles: Vec<String>,
        n: u32,
        depth: u32,
        /// Next states computed so far.
        nexts: u64,
    }

    impl Reasoner for Toy {
        type State = u32;
        type Move = u32;
        fn roles(&self) -> &[String] {
            &self.roles
        }
        fn initial_state(&mut self) -> u32 {
            0
        }
        fn is_terminal(&mut self, s: &u32) -> bool {
            *s >= self.depth
        }
        fn legal_moves(&mut self, _: &u32, role: usize, out: &mut Vec<u32>) {
            out.clear();
            out.extend(0..if role == 0 { self.n } else { 2 });
        }
        fn next_state(&mut self, s: &u32, joint: &[u32]) -> u32 {
            assert_eq!(joint.len(), 2);
            self.nexts += 1;
            s + 1
        }
        fn goal(&mut self, s: &u32, role: usize) -> Option<u32> {
            Some(s * 10 + role as u32)
        }
        fn move_text(&self, _: usize, m: u32) -> String {
            format!("(m {m})")
        }
        fn parse_move(&mut self, _: usize, text: &str) -> Option<u32> {
            text.strip_prefix("(m ")?.strip_suffix(')')?.parse().ok()
        }
        fn fluents(&self, s: &u32) -> Vec<String> {
            vec![format!("(round {s})")]
        }
        fn state_from_fluents(&mut self, fluents: &[String]) -> Option<u32> {
            match fluents {
                [f] => f.strip_prefix("(round ")?.strip_suffix(')')?.parse().ok(),
                _ => None,
            }
        }

        fn state_hash(&self, s: &u32) -> u64 {
            crate::zobrist_key(&format!("(round {s})"))
        }
    }

    fn toy() -> Toy {
        Toy {
            roles: vec!["a".into(), "b".into()],
            n: 3,
            depth: 2,
            nexts: 0,
        }
    }

    #[test]
    fn a_node_with_many_joint_moves_is_expanded_in_batches_and_stops_at_the_deadline() {
        // 50 000 × 2 joint moves at the root: several batches.
        let mut wide = Toy { n: 50_000, ..toy() };
        let levels = perft(&mut wide, 2).unwrap();
        let leaves: Vec<u64> = levels.iter().map(|l| l.leaves).collect();
        assert_eq!(leaves, [1, 100_000, 10_000_000_000]);
        assert_eq!(wide.nexts, 100_000);
        // A deadline already passed stops the root's expansion within a
        // few hundred next states.
        let mut late = Toy { n: 50_000, ..toy() };
        let pass = perft_pass(&mut late, &0, 2, Some(Instant::now())).unwrap();
        assert!(pass.is_none());
        assert!(late.nexts < 256, "{} next states", late.nexts);
    }

    #[test]
    fn perft_counts_joint_moves_and_stops_at_terminal_states() {
        let levels = perft(&mut toy(), 4).unwrap();
        let leaves: Vec<u64> = levels.iter().map(|l| l.leaves).collect();
        assert_eq!(leaves, [1, 6, 36, 0, 0]);
        assert_eq!(levels[2].nodes, 43);
        let deepened = perft_with(&mut toy(), 4, None, &mut |_| {}).unwrap();
        assert_eq!(deepened, levels[..4].to_vec());
        // From round 1 one round is left: 6 joint moves, then the end.
        let from = perft_from(&mut toy(), &1, 3).unwrap();
        let leaves: Vec<u64> = from.iter().map(|l| l.leaves).collect();
        assert_eq!(leaves, [1, 6, 0, 0]);
    }

    #[test]
    fn deterministic_playout_follows_the_formula() {
        let p = deterministic_playout(&mut toy(), 1, 300).unwrap();
        // t=0: a takes (0+0+5)%3 = 2, b takes (0+13+5)%2 = 0; t=1: a (7+5)%3=0, b (7+13+5)%2=1.
        let joints: Vec<Vec<String>> = p.steps.iter().map(|s| s.joint.clone()).collect();
        assert_eq!(joints, [["(m 2)", "(m 0)"], ["(m 0)", "(m 1)"]]);
        assert_eq!(p.terminal_step, Some(2));
        assert_eq!(p.goals, [Some(20), Some(21)]);
        let short = deterministic_playout(&mut toy(), 1, 1).unwrap();
        assert_eq!((short.steps.len(), short.terminal_step), (1, None));
    }

    #[test]
    fn a_playout_cut_short_by_the_deadline_counts_its_joint_moves_not_itself() {
        // Playouts that never end: the deadline cuts the first one short.
        let mut endless = Toy {
            depth: u32::MAX,
            ..toy()
        };
        let budget = McBudget::Time(Duration::from_millis(20));
        let report = flat_monte_carlo(&mut endless, budget, 1, u64::MAX, &mut |_| {}).unwrap();
        assert_eq!(report.playouts, 0);
        assert!(report.joint_moves > 0);
        assert_eq!(report.joint_moves, endless.nexts);
        assert_eq!(
            report.states,
            report.joint_moves + 1,
            "its initial state too"
        );
    }

    #[test]
    fn flat_monte_carlo_counts_states_and_is_seeded() {
        let a = flat_monte_carlo(&mut toy(), McBudget::Playouts(50), 9, 1000, &mut |_| {}).unwrap();
        assert_eq!((a.playouts, a.states), (50, 150));
        assert_eq!(a.mean_goals, [20.0, 21.0]);
        let b = flat_monte_carlo(&mut toy(), McBudget::Playouts(50), 9, 1000, &mut |_| {}).unwrap();
        assert_eq!((a.states, a.truncated), (b.states, b.truncated));
        let capped =
            flat_monte_carlo(&mut toy(), McBudget::Playouts(5), 9, 1, &mut |_| {}).unwrap();
        assert_eq!(capped.truncated, 5);
    }

    #[test]
    fn a_time_budget_stops_a_playout_that_runs_past_it() {
        // Never terminal: the one playout would take 50 million steps.
        let mut endless = Toy {
            depth: u32::MAX,
            ..toy()
        };
        let budget = McBudget::Time(Duration::from_millis(1));
        let report = flat_monte_carlo(&mut endless, budget, 9, 50_000_000, &mut |_| {}).unwrap();
        assert_eq!((report.playouts, report.truncated), (0, 0));
        assert!(
            report.states > 0 && report.states < 50_000_000,
            "{report:?}"
        );
    }

    #[test]
    fn play_checks_legality() {
        let mut t = toy();
        assert_eq!(play(&mut t, &0, &["(m 2)", "(m 1)"]), Ok(1));
        assert!(matches!(
            play(&mut t, &0, &["(m 5)", "(m 1)"]),
            Err(DriverError::IllegalMove { .. })
        ));
        assert!(matches!(
            play(&mut t, &0, &["(m 1)"]),
            Err(DriverError::WrongArity { .. })
        ));
    }
}
