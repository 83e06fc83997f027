//! Stage 7c, incremental evaluation of a ground program: instead of
//! evaluating every instance again for each state, the reasoner can keep,
//! per instance, how many of its literals do not hold, and per atom, how
//! many of its instances fire (counting, as in differential propagation in
//! propositional networks). When a fluent (or a `does` atom) changes, only
//! the instances that read it are updated; an atom whose count crosses zero
//! changes in turn. Atoms are settled level by level (a head's level is one
//! more than its literals' highest), so each changes at most once per
//! update.
//!
//! Which is cheaper depends on the layer: the lines of connectFour change
//! little from state to state, while every legal move of ticTacToe flips
//! with the turn, and a `does` atom of ticTacToe is read by every cell's
//! frame rule. So the choice is made per layer, from a simulation of the
//! game ([`crate::compile::ground::simulate`]): a layer is incremental when that costs less
//! and every layer it reads is incremental too; the per-move layers are
//! chosen together. The others are evaluated in full when a phase needs
//! them ([`crate::compile::emit::ground`]'s layers).
//!
//! Counting is exact only when no ground atom depends on itself; a layer
//! with a cycle through its atoms is evaluated in full.

use crate::compile::analyse::layers::Layers;
use crate::compile::error::NotIncremental;
use crate::compile::ground::grounding::Ground;

use crate::compile::ground::simulate::{head_layers, Costs};

/// Most levels; deeper ground programs are evaluated in full.
const MAX_LEVELS: usize = u16::MAX as usize;

/// What an instance visited by a full evaluation costs, in literal updates
/// of an incremental one, as a fraction: a visit reads a table row and
/// tests several bits, an update changes one count. Calibrated by timing
/// the layer choices side by side on ticTacToe, connectFour and
/// breakthrough: this ratio picks the faster one on each.
const FULL_VISIT: (u64, u64) = (3, 2);

/// Whether `incremental` literal updates cost less than `full` visits.
fn cheaper(incremental: u64, full: u64) -> bool {
    incremental * FULL_VISIT.1 < full * FULL_VISIT.0
}

/// How the layers of a ground program are evaluated, and the tables the
/// incremental ones are driven by.
pub struct Incremental {
    /// Per layer: whether it is kept up to date incrementally (otherwise it
    /// is evaluated in full when a phase needs it).
    pub layers: Vec<bool>,
    /// Whether the per-move layers are incremental (all or none of them:
    /// they share the `next` block).
    pub moves: bool,
    /// The simulation the choice was made from.
    pub costs: Costs,
    /// Per incremental instance: its head's bit.
    pub heads: Vec<u32>,
    /// Per incremental instance: its positive literals (none holds in the
    /// empty state).
    pub positives: Vec<u32>,
    /// Per bit of the vector, and one past the last: where its occurrences
    /// start in [`Self::occurrences`].
    pub occurrence_starts: Vec<u32>,
    /// The literals by bit: `instance << 1 | negative`.
    pub occurrences: Vec<u32>,
    /// Per bit: its level (0 for the inputs: fluents, `does`, and the
    /// atoms of layers evaluated in full).
    pub level: Vec<u16>,
    /// Per level, and one past the last: where its atoms start in the queue
    /// of atoms to settle (as many places as the level has atoms).
    pub level_starts: Vec<u32>,
}

impl Incremental {
    /// Levels, the first (inputs) included.
    pub fn levels(&self) -> usize {
        self.level_starts.len() - 1
    }
}

/// Chooses, from a simulation of the game (`costs`, with `ground`'s
/// drivers chosen from it), which layers of `ground` are kept up to date
/// incrementally, and builds their tables; or says why none is.
pub fn plan(ground: &Ground, layers: &Layers, costs: Costs) -> Result<Incremental, NotIncremental> {
    let bits = ground.words * 64;
    let (chosen, moves) = choose(ground, layers, &costs);
    if !chosen.contains(&true) {
        return Err(NotIncremental::NotCheaper {
            states: costs.states,
        });
    }
    let (heads, positives, literals) = instances(ground, layers, &chosen);
    let (occurrence_starts, occurrences) = occurrence_lists(bits, literals);
    let level = levels(&heads, &positives, &occurrence_starts, &occurrences)
        .ok_or(NotIncremental::AtomCycle)?;
    let levels = level.iter().max().map_or(1, |&l| l as usize + 1);
    if levels > MAX_LEVELS {
        return Err(NotIncremental::TooManyLevels { limit: MAX_LEVELS });
    }
    let level_starts = level_starts(&heads, &level, levels);
    Ok(Incremental {
        layers: chosen,
        moves,
        costs,
        heads,
        positives,
        occurrence_starts,
        occurrences,
        level: level.into_iter().map(|l| l as u16).collect(),
        level_starts,
    })
}

/// Per layer, whether it is incremental: when that is cheaper, it reads
/// only incremental layers, and no atom of it depends on itself; and
/// whether the per-move layers are, which are chosen together.
fn choose(ground: &Ground, layers: &Layers, costs: &Costs) -> (Vec<bool>, bool) {
    let n = layers.layers.len();
    let reads = layer_reads(ground, layers);
    let mut chosen = vec![false; n];
    for l in 0..n {
        chosen[l] = !ground.per_move[l]
            && cheaper(costs.incremental[l], costs.full[l])
            && reads[l].iter().all(|&m| chosen[m])
            && (!layers.layers[l].recursive || acyclic(ground, layers, l));
    }
    let per_move: Vec<usize> = (0..n).filter(|&l| ground.per_move[l]).collect();
    let cost = |c: &[u64]| per_move.iter().map(|&l| c[l]).sum::<u64>();
    let moves = !per_move.is_empty()
        && cheaper(cost(&costs.incremental), cost(&costs.full))
        && per_move.iter().all(|&l| {
            reads[l].iter().all(|&m| chosen[m] || ground.per_move[m])
                && (!layers.layers[l].recursive || acyclic(ground, layers, l))
        });
    if moves {
        for &l in &per_move {
            chosen[l] = true;
        }
    }
    (chosen, moves)
}

/// Per layer: the other layers whose atoms it reads.
fn layer_reads(ground: &Ground, layers: &Layers) -> Vec<Vec<usize>> {
    let head_layer = head_layers(ground, layers);
    let mut reads = vec![Vec::new(); layers.layers.len()];
    for (l, layer) in layers.layers.iter().enumerate() {
        for g in layer.rules.iter().filter_map(|&r| ground.rules[r].as_ref()) {
            for row in &g.rows {
                for &b in &row[1..] {
                    if let Some(m) = head_layer[b as usize] {
                        if m != l && !reads[l].contains(&m) {
                            reads[l].push(m);
                        }
                    }
                }
            }
        }
    }
    reads
}

/// The instances of the `chosen` layers: per instance its head's bit and
/// its count of positive literals, and its literals as `(bit, instance <<
/// 1 | negative)` pairs.
fn instances(
    ground: &Ground,
    layers: &Layers,
    chosen: &[bool],
) -> (Vec<u32>, Vec<u32>, Vec<(u32, u32)>) {
    let never = (ground.words * 64 - 1) as u32;
    let mut heads = Vec::new();
    let mut positives = Vec::new();
    let mut literals: Vec<(u32, u32)> = Vec::new();
    let rows = layers
        .layers
        .iter()
        .zip(chosen)
        .filter(|&(_, &c)| c)
        .flat_map(|(layer, _)| &layer.rules)
        .filter_map(|&r| ground.rules[r].as_ref());
    for g in rows {
        for row in &g.rows {
            let instance = heads.len() as u32;
            heads.push(row[0]);
            // The padding (the one bit, the never-set bit) always holds.
            let pos = row[1..=g.pos].iter().filter(|&&b| b != ground.one);
            let neg = row[g.pos + 1..].iter().filter(|&&b| b != never);
            positives.push(pos.clone().count() as u32);
            literals.extend(pos.map(|&b| (b, instance << 1)));
            literals.extend(neg.map(|&b| (b, instance << 1 | 1)));
        }
    }
    (heads, positives, literals)
}

/// Per level of `level` (`levels` of them), and one past the last: where
/// its atoms, the bits some instance of `heads` sets, start in the queue
/// of atoms to settle.
fn level_starts(heads: &[u32], level: &[u32], levels: usize) -> Vec<u32> {
    let mut is_head = vec![false; level.len()];
    for &h in heads {
        is_head[h as usize] = true;
    }
    let mut level_starts = vec![0u32; levels + 1];
    for (b, &l) in level.iter().enumerate() {
        if is_head[b] {
            level_starts[l as usize + 1] += 1;
        }
    }
    for l in 0..levels {
        level_starts[l + 1] += level_starts[l];
    }
    level_starts
}

/// Whether no atom of recursive layer `l` depends on itself.
fn acyclic(ground: &Ground, layers: &Layers, l: usize) -> bool {
    let mut heads = Vec::new();
    let mut positives = Vec::new();
    let mut literals = Vec::new();
    for g in layers.layers[l]
        .rules
        .iter()
        .filter_map(|&r| ground.rules[r].as_ref())
    {
        for row in &g.rows {
            let instance = heads.len() as u32;
            heads.push(row[0]);
            positives.push(0);
            literals.extend(row[1..].iter().map(|&b| (b, instance << 1)));
        }
    }
    let (starts, occurrences) = occurrence_lists(ground.words * 64, literals);
    levels(&heads, &positives, &starts, &occurrences).is_some()
}

/// The `(bit, occurrence)` pairs `literals` as occurrence lists: per bit,
/// and one past the last, where its occurrences start; the occurrences,
/// by bit.
fn occurrence_lists(bits: usize, mut literals: Vec<(u32, u32)>) -> (Vec<u32>, Vec<u32>) {
    literals.sort_unstable();
    let mut starts = vec![0u32; bits + 1];
    for &(b, _) in &literals {
        starts[b as usize + 1] += 1;
    }
    for b in 0..bits {
        starts[b + 1] += starts[b];
    }
    (starts, literals.into_iter().map(|(_, o)| o).collect())
}

/// Per bit, its level: the longest path to it from a bit no instance sets,
/// in topological order (Kahn); `None` when some atom lies on a cycle.
fn levels(
    heads: &[u32],
    positives: &[u32],
    starts: &[u32],
    occurrences: &[u32],
) -> Option<Vec<u32>> {
    let bits = starts.len() - 1;
    let mut waiting = vec![0u32; bits];
    for &o in occurrences {
        waiting[heads[(o >> 1) as usize] as usize] += 1;
    }
    let mut level = vec![0u32; bits];
    for (i, &h) in heads.iter().enumerate() {
        if positives[i] == 0 && waiting[h as usize] == 0 {
            level[h as usize] = 1;
        }
    }
    let mut ready: Vec<u32> = (0..bits as u32)
        .filter(|&b| waiting[b as usize] == 0)
        .collect();
    let mut settled = 0;
    while let Some(a) = ready.pop() {
        settled += 1;
        let (lo, hi) = (starts[a as usize] as usize, starts[a as usize + 1] as usize);
        for &o in &occurrences[lo..hi] {
            let h = heads[(o >> 1) as usize] as usize;
            level[h] = level[h].max(level[a as usize] + 1);
            waiting[h] -= 1;
            if waiting[h] == 0 {
                ready.push(h as u32);
            }
        }
    }
    (settled == bits).then_some(level)
}

#[cfg(test)]
mod tests {
    use super::{acyclic, levels};
    use crate::compile::{analyze, Compiled};

    fn project_game(name: &str) -> Compiled {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../games")
            .join(format!("{name}.kif"));
        let loaded = crate::load_path(&path).expect("valid");
        analyze(&loaded).expect("compiles")
    }

    #[test]
    fn heads_sit_one_level_above_their_highest_literal() {
        // Bits 0..3 are inputs; instance 0: 3 <= 0, 1; instance 1: 4 <= 3, not 2;
        // instance 2: 5 <= (nothing).
        let heads = [3, 4, 5];
        let positives = [2, 1, 0];
        let occurrences = [0 << 1, 0 << 1, 1 << 1 | 1, 1 << 1];
        let starts = [0, 1, 2, 3, 4, 4, 4];
        let level = levels(&heads, &positives, &starts, &occurrences).expect("acyclic");
        assert_eq!(level, vec![0, 0, 0, 1, 2, 1]);
    }

    #[test]
    fn a_cycle_through_atoms_has_no_levels() {
        // 1 <= 0 and 0 <= 1.
        let level = levels(&[1, 0], &[1, 1], &[0, 1, 2], &[0 << 1, 1 << 1]);
        assert!(level.is_none());
        // maze's reachability over rooms linked both ways is such a cycle.
        let c = project_game("maze");
        let g = c.ground().expect("ground");
        let recursive: Vec<usize> = (0..c.layers.layers.len())
            .filter(|&l| c.layers.layers[l].recursive)
            .collect();
        assert!(!recursive.is_empty());
        assert!(recursive.iter().all(|&l| !acyclic(g, &c.layers, l)));
    }

    #[test]
    fn the_simulation_chooses_per_layer() {
        let c = project_game("connectfour");
        let p = c.incremental().expect("incremental");
        let layer = |name: &str| {
            c.layers
                .layers
                .iter()
                .position(|l| {
                    l.members
                        .iter()
                        .any(|&r| c.program.relations[r].name == name)
                })
                .expect(name)
        };
        // A disc changes a few lines; every legal move flips with the turn;
        // the frame rule of `next` is a couple of word copies.
        assert!(p.layers[layer("four")], "lines incremental");
        assert!(!p.moves, "next in full");
        assert!(!p.layers[layer("legal")], "legal moves in full");
        // breakthrough's frame rules test the moved pieces' cells one by
        // one: there `next` is incremental.
        let b = project_game("breakthrough");
        assert!(b.incremental().expect("incremental").moves);
        for l in 0..c.layers.layers.len() {
            let cheaper = super::cheaper(p.costs.incremental[l], p.costs.full[l]);
            assert!(!p.layers[l] || cheaper || p.moves, "layer {l}");
        }
        // Every instance of an incremental layer, and only those, is counted.
        let counted: usize = (0..c.layers.layers.len())
            .filter(|&l| p.layers[l])
            .flat_map(|l| &c.layers.layers[l].rules)
            .filter_map(|&r| c.ground().unwrap().rules[r].as_ref())
            .map(|g| g.rows.len())
            .sum();
        assert_eq!(p.heads.len(), counted);
        for (i, &h) in p.heads.iter().enumerate() {
            for (k, &o) in p.occurrences.iter().enumerate() {
                if (o >> 1) as usize == i {
                    let b = p.occurrence_starts.partition_point(|&s| s as usize <= k) - 1;
                    assert!(p.level[b] < p.level[h as usize]);
                }
            }
        }
    }
}
