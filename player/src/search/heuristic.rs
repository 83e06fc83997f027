//! An evaluation found in the rules' own play: a linear function of a
//! state's fluents, fitted by least squares to the goals that random
//! playouts reach from states along them. Its features are each fluent
//! (where a piece stands: a piece-square table), and, for each argument of
//! a fluent, how many true fluents of that relation hold that value there
//! (`(cell ? ? wp)` counted: material; `(cell 3 ? ?)`: a file's
//! occupancy). It is what a random playout from the state would score, in
//! expectation, without the noise of one playout; the search cuts its
//! playouts short with it (`super::playout`). Whether it predicts anything
//! is measured on playouts it was not fitted to ([`Evaluation::fit`]).

use super::draw::{below, values};
use gdl_runtime::Reasoner;
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

/// Features kept at most: those whose presence varies most.
const MAX_FEATURES: usize = 768;
/// States sampled from each playout.
const SAMPLES_PER_PLAYOUT: usize = 4;
/// Playouts at most.
const MAX_PLAYOUTS: usize = 20_000;
/// Longest playout while learning.
const MAX_PLAYOUT: usize = 2_000;
/// The ridge penalty, per sample.
const RIDGE: f64 = 1e-3;
/// One playout in this many is held out to measure the fit.
const HOLD_OUT_EVERY: usize = 5;
/// Ratings closer than this are a tie: the verdict is the ratings.
const TIE: f64 = 0.01;

/// A learned linear evaluation of states, per role.
#[derive(Debug)]
pub struct Evaluation {
    /// The feature indices of each fluent text seen while learning.
    features: FxHashMap<String, Box<[u32]>>,
    /// Per role: the constant term, then one weight per feature.
    weights: Vec<Vec<f64>>,
    /// The role `random`, which takes no part in a verdict.
    random: Option<usize>,
    /// The share of the goals' variance the evaluation explains on the
    /// held-out playouts (R², the mean over the roles that choose).
    pub fit: f64,
    /// Playouts learned from.
    pub playouts: usize,
}

/// One sampled state: its feature indices, its playout's goals / 100, and
/// whether it is held out.
struct Sample {
    features: Vec<u32>,
    goals: Vec<f64>,
    held_out: bool,
}

impl Evaluation {
    /// Learns from random playouts from `from` for about `budget` (at
    /// least 10, at most [`MAX_PLAYOUTS`]); `None` when no feature varies.
    pub fn learn<R: Reasoner>(
        r: &mut R,
        from: &R::State,
        budget: Duration,
        seed: u64,
    ) -> Option<Self> {
        let start = Instant::now();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut names = Names::default();
        let mut samples = Vec::new();
        let mut playouts = 0;
        while playouts < MAX_PLAYOUTS && (playouts < 10 || start.elapsed() < budget) {
            let (states, goals) = random_playout(r, from, &mut rng);
            for _ in 0..SAMPLES_PER_PLAYOUT.min(states.len()) {
                let state = &states[below(&mut rng, states.len())];
                samples.push(Sample {
                    features: names.of_state(&r.fluents(state)),
                    goals: goals.clone(),
                    held_out: playouts % HOLD_OUT_EVERY == 0,
                });
            }
            playouts += 1;
        }
        let kept = names.most_varied(&samples);
        if kept.is_empty() {
            return None;
        }
        let roles = r.roles().len();
        let weights: Vec<Vec<f64>> = (0..roles)
            .map(|role| ridge(&samples, &kept.remap, kept.len(), role))
            .collect();
        let mut evaluation = Evaluation {
            features: names.restricted(&kept.remap),
            weights,
            random: r.random_role(),
            fit: 0.0,
            playouts,
        };
        let choosing: Vec<usize> = (0..roles).filter(|&i| r.random_role() != Some(i)).collect();
        evaluation.fit = choosing
            .iter()
            .map(|&role| evaluation.held_out_r2(&samples, &kept.remap, role))
            .sum::<f64>()
            / choosing.len().max(1) as f64;
        Some(evaluation)
    }

    /// The verdict on `state` for a playout cut there: 1 for each role
    /// rated best, 0 for the others; the ratings themselves where the
    /// choosing roles' are within [`TIE`] of one another (`random` keeps
    /// its rating).
    pub fn verdict<R: Reasoner>(&self, r: &R, state: &R::State) -> Vec<f64> {
        let mut ratings = self.evaluate(r, state);
        let choosing = |role: &usize| Some(*role) != self.random;
        let rated = || {
            (0..ratings.len())
                .filter(choosing)
                .map(|role| ratings[role])
        };
        let best = rated().fold(f64::NEG_INFINITY, f64::max);
        let worst = rated().fold(f64::INFINITY, f64::min);
        if best - worst > TIE {
            for role in (0..ratings.len()).filter(choosing) {
                ratings[role] = if ratings[role] > best - TIE / 2.0 {
                    1.0
                } else {
                    0.0
                };
            }
        }
        ratings
    }

    /// Each role's evaluation of `state`, in `[0, 1]`.
    pub fn evaluate<R: Reasoner>(&self, r: &R, state: &R::State) -> Vec<f64> {
        let fluents = r.fluents(state);
        self.weights
            .iter()
            .map(|w| {
                let mut v = w[0];
                for f in &fluents {
                    if let Some(indices) = self.features.get(f) {
                        v += indices.iter().map(|&i| w[i as usize + 1]).sum::<f64>();
                    }
                }
                v.clamp(0.0, 1.0)
            })
            .collect()
    }

    /// R² of `role`'s predictions on the held-out samples.
    fn held_out_r2(&self, samples: &[Sample], remap: &[Option<u32>], role: usize) -> f64 {
        let held: Vec<&Sample> = samples.iter().filter(|s| s.held_out).collect();
        if held.is_empty() {
            return 0.0;
        }
        let mean = held.iter().map(|s| s.goals[role]).sum::<f64>() / held.len() as f64;
        let (mut residual, mut total) = (0.0, 0.0);
        for s in &held {
            let w = &self.weights[role];
            let predicted = (w[0]
                + s.features
                    .iter()
                    .filter_map(|&f| remap[f as usize])
                    .map(|i| w[i as usize + 1])
                    .sum::<f64>())
            .clamp(0.0, 1.0);
            residual += (s.goals[role] - predicted).powi(2);
            total += (s.goals[role] - mean).powi(2);
        }
        if total <= 0.0 {
            0.0
        } else {
            1.0 - residual / total
        }
    }
}

/// The states of one random playout from `from` (the terminal one
/// excluded) and each role's goal / 100 at its end.
fn random_playout<R: Reasoner>(
    r: &mut R,
    from: &R::State,
    rng: &mut Xoshiro256PlusPlus,
) -> (Vec<R::State>, Vec<f64>) {
    let roles = r.roles().len();
    let mut states = Vec::new();
    let mut state = from.clone();
    let mut moves = Vec::new();
    let mut joint = Vec::with_capacity(roles);
    'play: while states.len() < MAX_PLAYOUT && !r.is_terminal(&state) {
        joint.clear();
        for role in 0..roles {
            r.legal_moves(&state, role, &mut moves);
            if moves.is_empty() {
                break 'play;
            }
            joint.push(moves[below(rng, moves.len())]);
        }
        let next = r.next_state(&state, &joint);
        states.push(std::mem::replace(&mut state, next));
    }
    let goals = values(r, &state);
    (states, goals)
}

/// The features met so far, by name.
#[derive(Default)]
struct Names {
    index: FxHashMap<String, u32>,
    /// Per fluent text, its features.
    of_fluent: FxHashMap<String, Box<[u32]>>,
}

/// The features kept: each feature's new index, if kept.
struct Kept {
    remap: Vec<Option<u32>>,
    len: usize,
}

impl Kept {
    fn len(&self) -> usize {
        self.len
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Names {
    /// The features of a state whose true fluents are `fluents`, each
    /// once per occurrence (counts repeat an index).
    fn of_state(&mut self, fluents: &[String]) -> Vec<u32> {
        let mut features = Vec::new();
        for f in fluents {
            if !self.of_fluent.contains_key(f) {
                let names = feature_names(f);
                let ids: Box<[u32]> = names.into_iter().map(|n| self.id(n)).collect();
                self.of_fluent.insert(f.clone(), ids);
            }
            features.extend_from_slice(&self.of_fluent[f]);
        }
        features
    }

    fn id(&mut self, name: String) -> u32 {
        let next = self.index.len() as u32;
        *self.index.entry(name).or_insert(next)
    }

    /// The features kept: of those whose value (presence, or count)
    /// varies from sample to sample, the [`MAX_FEATURES`] that vary most.
    fn most_varied(&self, samples: &[Sample]) -> Kept {
        let n = samples.len().max(1) as f64;
        let (mut sum, mut squares) = (vec![0.0; self.index.len()], vec![0.0; self.index.len()]);
        for s in samples {
            for (f, c) in counted(&s.features) {
                sum[f as usize] += c;
                squares[f as usize] += c * c;
            }
        }
        let mut varied: Vec<(f64, u32)> = (0..self.index.len())
            .map(|f| (squares[f] / n - (sum[f] / n).powi(2), f as u32))
            .filter(|&(variance, _)| variance > 1e-9)
            .collect();
        varied.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        varied.truncate(MAX_FEATURES);
        varied.sort_by_key(|&(_, f)| f);
        let mut remap = vec![None; self.index.len()];
        for (k, &(_, f)) in varied.iter().enumerate() {
            remap[f as usize] = Some(k as u32);
        }
        Kept {
            remap,
            len: varied.len(),
        }
    }

    /// Each fluent's kept features, renumbered.
    fn restricted(&self, remap: &[Option<u32>]) -> FxHashMap<String, Box<[u32]>> {
        self.of_fluent
            .iter()
            .map(|(f, ids)| {
                let kept: Box<[u32]> = ids.iter().filter_map(|&i| remap[i as usize]).collect();
                (f.clone(), kept)
            })
            .filter(|(_, kept)| !kept.is_empty())
            .collect()
    }
}

/// The names of a fluent's features: the fluent itself, and per argument
/// the relation with that argument alone kept (`cell#3=wp`).
fn feature_names(fluent: &str) -> Vec<String> {
    let mut names = vec![fluent.to_string()];
    let parts = top_level(fluent);
    if let Some((relation, arguments)) = parts.split_first() {
        if arguments.len() > 1 {
            for (k, a) in arguments.iter().enumerate() {
                names.push(format!("{relation}#{k}={a}"));
            }
        }
    }
    names
}

/// The top-level items of a term's text: `(cell 1 (a b) x)` gives `cell`,
/// `1`, `(a b)`, `x`; a constant gives itself.
fn top_level(term: &str) -> Vec<&str> {
    let Some(inner) = term
        .trim()
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
    else {
        return vec![term.trim()];
    };
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, None);
    for (k, c) in inner.char_indices() {
        match c {
            '(' => {
                depth += 1;
                start.get_or_insert(k);
            }
            ')' => depth = depth.saturating_sub(1),
            c if c.is_whitespace() && depth == 0 => {
                if let Some(s) = start.take() {
                    items.push(&inner[s..k]);
                }
            }
            _ => {
                start.get_or_insert(k);
            }
        }
    }
    if let Some(s) = start {
        items.push(&inner[s..]);
    }
    items
}

/// Each feature of `features` (indices, repeated for a count) once,
/// with its count, in the order of the indices.
fn counted(features: &[u32]) -> Vec<(u32, f64)> {
    let mut sorted = features.to_vec();
    sorted.sort_unstable();
    let mut out: Vec<(u32, f64)> = Vec::new();
    for f in sorted {
        match out.last_mut() {
            Some((last, c)) if *last == f => *c += 1.0,
            _ => out.push((f, 1.0)),
        }
    }
    out
}

/// Ridge regression of `role`'s goals on the kept features of the samples
/// not held out: the constant term, then the weights.
fn ridge(samples: &[Sample], remap: &[Option<u32>], d: usize, role: usize) -> Vec<f64> {
    let train: Vec<(Vec<(u32, f64)>, f64)> = samples
        .iter()
        .filter(|s| !s.held_out)
        .map(|s| {
            let kept: Vec<u32> = s
                .features
                .iter()
                .filter_map(|&f| remap[f as usize])
                .collect();
            (counted(&kept), s.goals[role])
        })
        .collect();
    let n = train.len().max(1) as f64;
    // Centred: the means of the features and of the goals.
    let mut mean_x = vec![0.0; d];
    let mut mean_y = 0.0;
    for (f, y) in &train {
        for &(i, c) in f {
            mean_x[i as usize] += c / n;
        }
        mean_y += y / n;
    }
    // X'X and X'y on the raw features; centred below.
    let mut a = vec![0.0; d * d];
    let mut b = vec![0.0; d];
    for (f, y) in &train {
        for &(i, ci) in f {
            b[i as usize] += ci * y;
            for &(j, cj) in f {
                a[i as usize * d + j as usize] += ci * cj;
            }
        }
    }
    for i in 0..d {
        b[i] -= n * mean_x[i] * mean_y;
        for j in 0..d {
            a[i * d + j] -= n * mean_x[i] * mean_x[j];
        }
        a[i * d + i] += RIDGE * n;
    }
    let w = cholesky_solve(&mut a, &b, d);
    let constant = mean_y - w.iter().zip(&mean_x).map(|(w, x)| w * x).sum::<f64>();
    std::iter::once(constant).chain(w).collect()
}

/// The solution of `a x = b`, `a` (`d`×`d`, row-major) symmetric positive
/// definite, overwritten with its Cholesky factor.
fn cholesky_solve(a: &mut [f64], b: &[f64], d: usize) -> Vec<f64> {
    for j in 0..d {
        let mut s = a[j * d + j];
        for k in 0..j {
            s -= a[j * d + k] * a[j * d + k];
        }
        let pivot = s.max(1e-12).sqrt();
        a[j * d + j] = pivot;
        for i in j + 1..d {
            let mut s = a[i * d + j];
            for k in 0..j {
                s -= a[i * d + k] * a[j * d + k];
            }
            a[i * d + j] = s / pivot;
        }
    }
    let mut y = b.to_vec();
    for i in 0..d {
        for k in 0..i {
            y[i] -= a[i * d + k] * y[k];
        }
        y[i] /= a[i * d + i];
    }
    for i in (0..d).rev() {
        for k in i + 1..d {
            y[i] -= a[k * d + i] * y[k];
        }
        y[i] /= a[i * d + i];
    }
    y
}

#[cfg(test)]
mod tests {
    use super::{counted, feature_names, top_level};

    #[test]
    fn a_fluent_names_itself_and_each_argument_alone() {
        assert_eq!(top_level("(cell 1 (a b) x)"), ["cell", "1", "(a b)", "x"]);
        assert_eq!(top_level("  open "), ["open"]);
        assert_eq!(
            feature_names("(cell 3 4 wp)"),
            ["(cell 3 4 wp)", "cell#0=3", "cell#1=4", "cell#2=wp"]
        );
        // One argument: the fluent itself is its only feature.
        assert_eq!(feature_names("(control white)"), ["(control white)"]);
    }

    #[test]
    fn repeated_features_are_counted() {
        assert_eq!(counted(&[3, 1, 3, 3]), [(1, 1.0), (3, 3.0)]);
    }
}
