//! Stage 7b, cost estimation for a ground program: the compiler plays a few
//! random playouts of the game itself, evaluating the instances in full
//! over a bit vector exactly as the generated code does, and counts per
//! layer what each way of evaluating it would cost per state:
//!
//! - in full: the instances visited with each possible driver (those whose
//!   driver bit is set, or all of them without a driver; none when a guard
//!   fails), for the layers the reasoner evaluates in that state (the cones
//!   of `terminal` and `legal`, plus `next` when a move is played, `goal`
//!   when the state is terminal);
//! - incrementally: the literal occurrences of the atoms that changed since
//!   the state (or joint move) before, plus one per changed atom of the
//!   layer (settling it).
//!
//! [`crate::compile::ground::drivers::choose_drivers`] and [`crate::compile::ground::incremental`] choose with these
//! figures. The playouts are deterministic (a fixed seed), so the choices
//! and the generated code are.

use crate::compile::analyse::layers::{Layer, Layers};
use crate::compile::ground::grounding::Ground;

/// Most instances the simulation may look at (it stops after the state
/// that crosses this), so that it stays well under a second.
const WORK: u64 = 30_000_000;
/// Most states simulated.
const STATES: usize = 3_000;
/// Joint moves after which a playout stops.
const MAX_LENGTH: usize = 500;

/// What the simulation measured.
pub struct Costs {
    /// States simulated.
    pub states: usize,
    /// Per layer: instance visits of its full evaluations (with the drivers
    /// [`crate::compile::ground::drivers::choose_drivers`] picks from [`Self::drivers`]).
    pub full: Vec<u64>,
    /// Per rule with instances: the instances its full evaluations would
    /// visit with no driver (index 0) and driven by each positive column
    /// (index k: the rows whose column k is set); 0 when a guard fails.
    pub drivers: Vec<Vec<u64>>,
    /// Per layer: literal updates and settled atoms had it been incremental.
    pub incremental: Vec<u64>,
}

/// Plays random playouts of `ground` and returns the costs of each layer
/// (but [`Costs::full`], which [`crate::compile::ground::drivers::choose_drivers`] fills in).
pub fn simulate(ground: &Ground, layers: &Layers) -> Costs {
    let mut sim = Simulation::new(ground, layers);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let rows: u64 = ground
        .rules
        .iter()
        .flatten()
        .map(|g| g.rows.len() as u64)
        .sum();
    let mut work = 0u64;
    'playouts: loop {
        let mut state = ground.initial.clone();
        for _ in 0..MAX_LENGTH {
            if sim.costs.states >= STATES || work >= WORK {
                break 'playouts;
            }
            sim.costs.states += 1;
            let terminal = sim.state_layers(&state);
            work += rows;
            if terminal {
                break;
            }
            if !sim.joint_move(&mut rng) {
                break 'playouts;
            }
            sim.move_layers(&mut state);
        }
        if sim.costs.states >= STATES || work >= WORK {
            break;
        }
    }
    sim.costs
}

/// The deterministic pseudo-random numbers of the playouts (splitmix64).
struct Rng(u64);

impl Rng {
    /// A number below `k`.
    fn below(&mut self, k: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((u128::from(z) * k as u128) >> 64) as usize
    }
}

/// A playout in progress: the bit vector, what was measured so far, and
/// what measuring needs.
struct Simulation<'a> {
    /// The ground program played.
    ground: &'a Ground,
    /// Its layers.
    layers: &'a Layers,
    /// Per bit: (layer, occurrences) of the instances that read it.
    readers: Vec<Vec<(usize, u32)>>,
    /// Per bit: the layer whose instances set it, if any.
    head_layer: Vec<Option<usize>>,
    /// Per phase (`legal`, `next`, `terminal`, `goal`): per layer, whether
    /// the phase evaluates it.
    cones: [Vec<bool>; 4],
    /// What was measured so far.
    costs: Costs,
    /// The candidates' visits of the current state (or joint move).
    visits: Vec<Vec<u64>>,
    /// The vectors after the last state's and the last joint move's layers.
    last_state: Vec<u64>,
    last_move: Vec<u64>,
    /// The bit vector.
    v: Vec<u64>,
}

impl<'a> Simulation<'a> {
    /// A simulation of `ground`, nothing measured yet.
    fn new(ground: &'a Ground, layers: &'a Layers) -> Self {
        let n = layers.layers.len();
        let words = ground.words;
        let in_phase = |p: usize| {
            let mut v = vec![false; n];
            for &l in &layers.phases[p] {
                v[l] = true;
            }
            v
        };
        let drivers: Vec<Vec<u64>> = ground
            .rules
            .iter()
            .map(|g| vec![0; g.as_ref().map_or(0, |g| g.pos + 1)])
            .collect();
        Simulation {
            ground,
            layers,
            readers: readers(ground, layers),
            head_layer: head_layers(ground, layers),
            cones: [in_phase(0), in_phase(1), in_phase(2), in_phase(3)],
            costs: Costs {
                states: 0,
                full: vec![0; n],
                drivers: drivers.clone(),
                incremental: vec![0; n],
            },
            visits: drivers,
            last_state: vec![0u64; words],
            last_move: vec![0u64; words],
            v: vec![0u64; words],
        }
    }

    /// Evaluates the per-state layers of `state`, counting what the
    /// reasoner would visit; whether `state` is terminal.
    fn state_layers(&mut self, state: &[u64]) -> bool {
        let (ground, layers) = (self.ground, self.layers);
        let [legal_cone, next_cone, terminal_cone, goal_cone] = &self.cones;
        let v = &mut self.v;
        v.iter_mut().for_each(|w| *w = 0);
        v[..state.len()].copy_from_slice(state);
        set(v, ground.one);
        for (l, layer) in layers.layers.iter().enumerate() {
            if !ground.per_move[l] {
                evaluate(ground, layer, v, &mut self.visits);
            }
        }
        let terminal = ground.terminal.iter().any(|&b| bit(v, b));
        for l in 0..layers.layers.len() {
            let used = terminal_cone[l]
                || legal_cone[l]
                || (terminal && goal_cone[l])
                || (!terminal && next_cone[l]);
            if !ground.per_move[l] {
                take(
                    &layers.layers[l],
                    used,
                    &mut self.visits,
                    &mut self.costs.drivers,
                );
            }
        }
        let per_state = |l: usize| !ground.per_move[l];
        changes(
            &self.last_state,
            v,
            &self.readers,
            &self.head_layer,
            per_state,
            &mut self.costs.incremental,
        );
        self.last_state.copy_from_slice(v);
        terminal
    }

    /// Sets the `does` bits of a random joint move; false when some role
    /// has no legal move.
    fn joint_move(&mut self, rng: &mut Rng) -> bool {
        for (role, legal) in self.ground.legal.iter().enumerate() {
            let moves: Vec<u32> = legal
                .iter()
                .filter(|&&(b, _)| bit(&self.v, b))
                .map(|&(_, m)| m)
                .collect();
            if moves.is_empty() {
                return false;
            }
            let m = moves[rng.below(moves.len())];
            let does = &self.ground.does[role];
            if let Ok(i) = does.binary_search_by_key(&m, |&(m, _)| m) {
                set(&mut self.v, does[i].1);
            }
        }
        true
    }

    /// Evaluates the per-move layers of the joint move set, counting what
    /// the reasoner would visit, and moves `state` to the next state.
    fn move_layers(&mut self, state: &mut [u64]) {
        let (ground, layers) = (self.ground, self.layers);
        let next_cone = &self.cones[1];
        let v = &mut self.v;
        for (l, layer) in layers.layers.iter().enumerate() {
            if ground.per_move[l] {
                evaluate(ground, layer, v, &mut self.visits);
                take(
                    layer,
                    next_cone[l],
                    &mut self.visits,
                    &mut self.costs.drivers,
                );
            }
        }
        let per_move = |l: usize| ground.per_move[l];
        changes(
            &self.last_move,
            v,
            &self.readers,
            &self.head_layer,
            per_move,
            &mut self.costs.incremental,
        );
        self.last_move.copy_from_slice(v);
        let base = ground.move_word;
        let k = state.len();
        state.copy_from_slice(&v[base..base + k]);
        // Clear the per-move part for the next state.
        for w in &mut v[base..] {
            *w = 0;
        }
    }
}

/// Per bit of `ground`'s vector: (layer, occurrences) of the instances
/// that read it (the padding bits excluded).
fn readers(ground: &Ground, layers: &Layers) -> Vec<Vec<(usize, u32)>> {
    let words = ground.words;
    let mut readers: Vec<Vec<(usize, u32)>> = vec![Vec::new(); words * 64];
    let never = (words * 64 - 1) as u32;
    for (l, layer) in layers.layers.iter().enumerate() {
        for g in layer.rules.iter().filter_map(|&r| ground.rules[r].as_ref()) {
            for row in &g.rows {
                for &b in row[1..].iter().filter(|&&b| b != ground.one && b != never) {
                    let list = &mut readers[b as usize];
                    match list.iter_mut().find(|(m, _)| *m == l) {
                        Some((_, c)) => *c += 1,
                        None => list.push((l, 1)),
                    }
                }
            }
        }
    }
    readers
}

/// Adds to `incremental` what updating the atoms that differ between `old`
/// and `new` costs each layer that `counted` picks: the occurrences read,
/// one per atom settled.
fn changes(
    old: &[u64],
    new: &[u64],
    readers: &[Vec<(usize, u32)>],
    head_layer: &[Option<usize>],
    counted: impl Fn(usize) -> bool,
    incremental: &mut [u64],
) {
    for (w, (&a, &b)) in old.iter().zip(new).enumerate() {
        let mut d = a ^ b;
        while d != 0 {
            let bit = w * 64 + d.trailing_zeros() as usize;
            d &= d - 1;
            for &(l, c) in &readers[bit] {
                if counted(l) {
                    incremental[l] += u64::from(c);
                }
            }
            if let Some(l) = head_layer[bit].filter(|&l| counted(l)) {
                incremental[l] += 1;
            }
        }
    }
}

/// Per bit of `ground`'s vector: the layer whose instances set it, if any.
pub fn head_layers(ground: &Ground, layers: &Layers) -> Vec<Option<usize>> {
    let mut head_layer = vec![None; ground.words * 64];
    for (l, layer) in layers.layers.iter().enumerate() {
        for g in layer.rules.iter().filter_map(|&r| ground.rules[r].as_ref()) {
            for row in &g.rows {
                head_layer[row[0] as usize] = Some(l);
            }
        }
    }
    head_layer
}

/// Moves the visits of `layer`'s rules into `total` if the reasoner
/// evaluates it (`used`), and clears them.
fn take(layer: &Layer, used: bool, visits: &mut [Vec<u64>], total: &mut [Vec<u64>]) {
    for &r in &layer.rules {
        for (t, x) in total[r].iter_mut().zip(visits[r].iter_mut()) {
            if used {
                *t += *x;
            }
            *x = 0;
        }
    }
}

/// Evaluates `layer` in full over `v`, adding to `visits` what each rule
/// would visit with each driver.
fn evaluate(ground: &Ground, layer: &Layer, v: &mut [u64], visits: &mut [Vec<u64>]) {
    loop {
        let mut changed = false;
        for g in layer.rules.iter().filter_map(|&r| ground.rules[r].as_ref()) {
            let guard = |&k: &usize| bit(v, g.rows[0][k]) == (k <= g.pos);
            if !g.guards.iter().all(guard) {
                continue;
            }
            let visits = &mut visits[g.rule];
            visits[0] += g.rows.len() as u64;
            for row in &g.rows {
                for k in 1..=g.pos {
                    if bit(v, row[k]) {
                        visits[k] += 1;
                    }
                }
                if bit(v, row[0]) {
                    continue;
                }
                let holds = row[1..=g.pos].iter().all(|&b| bit(v, b))
                    && row[g.pos + 1..].iter().all(|&b| !bit(v, b));
                if holds {
                    set(v, row[0]);
                    changed = true;
                }
            }
        }
        if !layer.recursive || !changed {
            return;
        }
    }
}

fn bit(v: &[u64], b: u32) -> bool {
    v[(b / 64) as usize] >> (b % 64) & 1 != 0
}

fn set(v: &mut [u64], b: u32) {
    v[(b / 64) as usize] |= 1 << (b % 64);
}
