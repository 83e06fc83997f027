//! Each ground rule's driver, chosen from what the simulation measured.

use crate::compile::analyse::layers::Layers;
use crate::compile::ground::grounding::{spans, Ground};
use crate::compile::ground::simulate::Costs;

/// Picks each rule's driver from what a simulation measured: the
/// positive column (not a guard) whose set bits the rows would be
/// visited from least often, or none when visiting every row is as
/// cheap; then fills in [`Costs::full`] per layer with those drivers.
pub fn choose_drivers(ground: &mut Ground, layers: &Layers, costs: &mut Costs) {
    let mut chosen = vec![0u64; ground.rules.len()];
    for g in ground.rules.iter_mut().flatten() {
        let visits = &costs.drivers[g.rule];
        let mut best = 0;
        for k in 1..=g.pos {
            if !g.guards.contains(&k) && visits[k] < visits[best] && spans(&g.rows, k) {
                best = k;
            }
        }
        g.driven = best > 0;
        if best > 1 {
            for row in &mut g.rows {
                row.swap(1, best);
            }
            for guard in &mut g.guards {
                if *guard == 1 {
                    *guard = best;
                }
            }
        }
        g.rows
            .sort_unstable_by(|a, b| a[1..].cmp(&b[1..]).then(a[0].cmp(&b[0])));
        // Word copies visit words, not instances: scale the visits.
        // (visits[0] counts every instance of each evaluation).
        let rows = g.rows.len() as u64;
        chosen[g.rule] = match g.word_copies() {
            Some(c) if c.by_driver => (visits[best] * c.words.len() as u64).div_ceil(rows),
            Some(c) => (visits[0] * c.words.len() as u64).div_ceil(rows),
            None => visits[best],
        };
        // A projection tests each of its words per evaluation: taken
        // when that is less than a walk, which reads the words of its
        // driver's masks and visits the rows of their set bits
        // (`anyLegalMove` over the many legal moves set), not when the
        // driver's bits are seldom set (nineBoardTicTacToe's `line`).
        if let Some(p) = g.projection_shape() {
            let tested = (visits[0] * p.words() as u64).div_ceil(rows);
            let walked = if g.driven {
                let driver_words = g.driver_masks().1.len() as u64;
                chosen[g.rule] + (visits[0] * driver_words).div_ceil(rows)
            } else {
                chosen[g.rule]
            };
            if tested < walked {
                g.projected = true;
                chosen[g.rule] = tested;
            }
        }
    }
    costs.full = layers
        .layers
        .iter()
        .map(|l| l.rules.iter().map(|&r| chosen[r]).sum())
        .collect();
}
