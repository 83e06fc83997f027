//! Move-average sampling (MAST; Finnsson and Björnsson, CadiaPlayer,
//! 2008): every move a role plays in an iteration, in the tree or in the
//! playout, is credited with the value that role got at its end, whatever
//! state it was played in; playouts then draw each role's move by Gibbs
//! sampling over those averages, as CadiaPlayer does (its temperature 10
//! on goals of 0 to 100 is [`TEMPERATURE`] on values of 0 to 1). An
//! ε-greedy choice (the best average, or with odds 0.4 a uniform draw) was
//! measured too and lost connect four 3–27 against plain playouts at
//! 20 000 iterations a move: see docs/PLAYER.md.

use rand_xoshiro::rand_core::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::FxHashMap;
use std::hash::Hash;

/// The temperature of the Gibbs sampling, for values in `[0, 1]`.
const TEMPERATURE: f64 = 0.1;
/// The average a move not played yet is taken to have: tried first.
const UNSEEN: f64 = 1.0;

/// The average value of each role's moves, and the moves of the
/// iteration under way.
pub(super) struct Mast<M> {
    averages: FxHashMap<(u32, M), (f64, u32)>,
    played: Vec<(u32, M)>,
    /// The weights of the moves being chosen among.
    weights: Vec<f64>,
}

impl<M: Copy + Eq + Hash> Mast<M> {
    /// No move seen yet.
    pub(super) fn new() -> Self {
        Mast {
            averages: FxHashMap::default(),
            played: Vec::new(),
            weights: Vec::new(),
        }
    }

    /// Of `moves` (at least one), the index of the one `role` plays:
    /// drawn with odds `exp(average / TEMPERATURE)`.
    pub(super) fn choose(
        &mut self,
        rng: &mut Xoshiro256PlusPlus,
        role: usize,
        moves: &[M],
    ) -> usize {
        self.weights.clear();
        let mut total = 0.0;
        for m in moves {
            let average = match self.averages.get(&(role as u32, *m)) {
                Some(&(sum, n)) => sum / f64::from(n),
                None => UNSEEN,
            };
            // Relative to the best possible average, so that no weight
            // overflows; the odds are the same.
            let weight = ((average - 1.0) / TEMPERATURE).exp();
            total += weight;
            self.weights.push(weight);
        }
        let mut x = f64::from(rng.next_u32()) / 4_294_967_296.0 * total;
        for (i, &weight) in self.weights.iter().enumerate() {
            if x < weight {
                return i;
            }
            x -= weight;
        }
        moves.len() - 1
    }

    /// Notes that `role` played `m` in this iteration.
    pub(super) fn played(&mut self, role: usize, m: M) {
        self.played.push((role as u32, m));
    }

    /// Credits every move of this iteration with its role's value.
    pub(super) fn credit(&mut self, values: &[f64]) {
        for (role, m) in self.played.drain(..) {
            let entry = self.averages.entry((role, m)).or_insert((0.0, 0));
            entry.0 += values[role as usize];
            entry.1 += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Mast;
    use rand_xoshiro::rand_core::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn moves_are_drawn_with_odds_growing_with_their_average() {
        let mut mast = Mast::new();
        for (m, value) in [(10u32, 0.9), (11, 0.8), (12, 0.6), (12, 1.0), (13, 0.7)] {
            mast.played(0, m);
            mast.credit(&[value]);
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let moves = [10, 11, 12, 13];
        let mut counts = [0; 4];
        for _ in 0..20_000 {
            counts[mast.choose(&mut rng, 0, &moves)] += 1;
        }
        // Averages 0.9, 0.8, 0.8 and 0.7: weights e^-1, e^-2, e^-2, e^-3.
        let weights = [-1.0, -2.0, -2.0, -3.0].map(f64::exp);
        let total: f64 = weights.iter().sum();
        for (count, weight) in counts.iter().zip(weights) {
            let seen = f64::from(*count) / 20_000.0;
            assert!(
                (seen - weight / total).abs() < 0.01,
                "{counts:?} against {weights:?}"
            );
        }
        // A move not played yet weighs e^0: it is tried before the others.
        let mut fresh = [0; 2];
        for _ in 0..10_000 {
            fresh[mast.choose(&mut rng, 0, &[10, 14])] += 1;
        }
        assert!((7_000..7_600).contains(&fresh[1]), "{fresh:?}");
        // Another role's averages are its own: nothing seen, every move alike.
        let mut other = [0; 4];
        for _ in 0..4_000 {
            other[mast.choose(&mut rng, 1, &moves)] += 1;
        }
        assert!(
            other.iter().all(|&n| (850..1_150).contains(&n)),
            "{other:?}"
        );
    }
}
