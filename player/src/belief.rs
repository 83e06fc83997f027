//! What a player of a GDL-II game knows: a sample of the states consistent
//! with its own moves and everything it has perceived, kept as particles.
//!
//! Each step every particle draws the other roles' moves uniformly (the
//! role `random` as the game manager draws it; the opponents as random
//! players), plays this player's own move, and survives only if this
//! player would have perceived exactly what it did. Survivors are then
//! redrawn with replacement back to the sample's size, so a state stays in
//! the sample in proportion to how likely the percepts made it (in Monty
//! Hall, the car behind the other door survives the host's opening twice
//! as often as the car behind the chosen one). When too few survive, the
//! sample is refilled by replaying the whole history from the initial
//! state. The move is chosen by determinized UCT over the sample, among the
//! moves legal in every sampled state.

use crate::search::{below, Techniques, Tree};
use gdl_runtime::kif::canonical;
use gdl_runtime::{percept_texts, PerceptError, Reasoner};
use rand_xoshiro::rand_core::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::Instant;

/// A step of the history: this player's move and what it perceived.
type Step<R> = (<R as Reasoner>::Move, Option<Vec<String>>);

/// States kept in the sample.
pub const PARTICLES: usize = 256;
/// Tries at replaying the history per state missing from the sample.
const REFILL_TRIES: usize = 64;
/// Sampled states the move choice searches, a UCT tree rooted at each.
const DETERMINIZATIONS: usize = 64;
/// Nodes of the move choice's trees together.
const MAX_NODES: usize = 256 * 1024;

/// This player's knowledge of the state of a GDL-II match.
pub struct Beliefs<R: Reasoner> {
    /// The player's role.
    role: usize,
    initial: R::State,
    /// The sample: states consistent with the history.
    particles: Vec<R::State>,
    /// Each step's own move and the percepts received after it (canonical,
    /// sorted; `None` once no state explained them).
    history: Vec<Step<R>>,
    /// The last move choice's trees, kept to be freed off the clock
    /// ([`Beliefs::take_spent`]): freeing them takes a tenth of a second.
    spent: Vec<Tree<R>>,
}

impl<R: Reasoner> Beliefs<R> {
    /// Knowledge at the start: the initial state, which every player knows.
    pub fn new(r: &mut R, role: usize) -> Self {
        let initial = r.initial_state();
        Beliefs {
            role,
            particles: vec![initial.clone(); PARTICLES],
            initial,
            history: Vec::new(),
            spent: Vec::new(),
        }
    }

    /// The states in the sample.
    pub fn states(&self) -> &[R::State] {
        &self.particles
    }

    /// Takes in a step: this player's move `mine` and the percepts it
    /// received (as sent). `Err` when no state is consistent with the
    /// history any more: the sample then goes on by this player's move
    /// alone, the percepts set aside (or stays as it was, if that move is
    /// legal in none of its states).
    pub fn advance(
        &mut self,
        r: &mut R,
        mine: R::Move,
        percepts: &[String],
        rng: &mut Xoshiro256PlusPlus,
    ) -> Result<(), String> {
        let mut seen: Vec<String> = percepts.iter().map(|p| normal(p)).collect();
        seen.sort();
        let step = (mine, Some(seen));
        let mut survivors: Vec<R::State> = Vec::new();
        for state in &self.particles {
            if let Some(next) = sample_step(r, self.role, state, &step, rng) {
                survivors.push(next);
            }
        }
        self.history.push(step);
        if survivors.len() < PARTICLES / 8 {
            survivors.extend(self.replay(r, PARTICLES - survivors.len(), rng));
        }
        let consistent = !survivors.is_empty();
        if !consistent {
            let blind = (mine, None);
            survivors = (self.particles.iter())
                .filter_map(|s| sample_step(r, self.role, s, &blind, rng))
                .collect();
            self.history.pop();
            self.history.push(blind);
        }
        if !survivors.is_empty() {
            self.particles = (0..PARTICLES)
                .map(|_| survivors[below(rng, survivors.len())].clone())
                .collect();
        }
        match consistent {
            true => Ok(()),
            false => Err(format!(
                "no state is consistent with the {} steps perceived; going on by this player's own moves",
                self.history.len()
            )),
        }
    }

    /// Up to `wanted` states drawn by replaying the whole history from the
    /// initial state.
    fn replay(&self, r: &mut R, wanted: usize, rng: &mut Xoshiro256PlusPlus) -> Vec<R::State> {
        let mut found = Vec::new();
        for _ in 0..wanted * REFILL_TRIES {
            if found.len() == wanted {
                break;
            }
            let mut state = Some(self.initial.clone());
            for step in &self.history {
                state = state.and_then(|s| sample_step(r, self.role, &s, step, rng));
            }
            found.extend(state);
        }
        found
    }

    /// This player's move by [`Beliefs::choose`] among those legal in every
    /// sampled state (those legal in the first if none is, said on the
    /// standard error), searched until `deadline`; with its value and
    /// iterations. `Err` when every sampled state is terminal or the player
    /// has no legal move.
    pub fn decide(
        &mut self,
        r: &mut R,
        deadline: Instant,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Result<(R::Move, f64, u64), String> {
        if self.particles.iter().all(|s| r.is_terminal(s)) {
            return Err(
                "the game is over: every state this player thinks possible is terminal".into(),
            );
        }
        let mut candidates = self.legal_everywhere(r);
        if candidates.is_empty() {
            eprintln!(
                "gdlc-player: step {}: no move is legal in every state kept; one legal in the first",
                self.history.len() + 1
            );
            r.legal_moves(&self.particles[0], self.role, &mut candidates);
        }
        self.choose(r, &candidates, deadline, rng)
            .ok_or_else(|| "this player has no legal move here".into())
    }

    /// The last move choice's trees, to be freed once its move is
    /// answered, off the clock.
    pub fn take_spent(&mut self) -> Vec<Tree<R>> {
        std::mem::take(&mut self.spent)
    }

    /// This player's moves legal in every sampled state, in the order of
    /// the first.
    pub fn legal_everywhere(&self, r: &mut R) -> Vec<R::Move> {
        let mut legal = Vec::new();
        r.legal_moves(&self.particles[0], self.role, &mut legal);
        let mut other = Vec::new();
        for state in &self.particles[1..] {
            r.legal_moves(state, self.role, &mut other);
            legal.retain(|m| other.contains(m));
        }
        legal
    }

    /// The move of `candidates` by determinized UCT: a search tree is
    /// rooted at each of up to `DETERMINIZATIONS` states drawn from the
    /// sample (as likely as the sample makes them), the trees are iterated
    /// in turn until `deadline` (`random` a chance node in each), and the
    /// move with the best mean over the trees of its value at their roots
    /// wins. Each tree weighs alike, so a move's value is its expected
    /// value over the states the player thinks possible. With that value
    /// (0-100) and the iterations that tried the move.
    pub fn choose(
        &mut self,
        r: &mut R,
        candidates: &[R::Move],
        deadline: Instant,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Option<(R::Move, f64, u64)> {
        let mut trees: Vec<Tree<R>> = Vec::new();
        if candidates.len() > 1 {
            let mut k = 0;
            while Instant::now() < deadline {
                if k == trees.len() {
                    let state = self.particles[below(rng, self.particles.len())].clone();
                    let nodes = MAX_NODES / DETERMINIZATIONS;
                    // A proof would hold in one sampled world only.
                    let tree = Tree::new(r, state, nodes, rng.next_u64());
                    trees.push(tree.with_techniques(Techniques {
                        solver: false,
                        ..Techniques::default()
                    }));
                }
                trees[k].iterate(r);
                k = (k + 1) % DETERMINIZATIONS;
            }
        }
        // Per candidate: the sum of the trees' means, the trees that tried
        // it, and its iterations.
        let mut totals = vec![(0.0, 0u32, 0u64); candidates.len()];
        for tree in &trees {
            for (m, s) in tree.root_moves(self.role) {
                let Some(k) = candidates.iter().position(|&c| c == m) else {
                    continue;
                };
                if s.visits > 0 {
                    totals[k].0 += s.value / s.visits as f64;
                    totals[k].1 += 1;
                    totals[k].2 += s.visits;
                }
            }
        }
        self.spent = trees;
        let mean = |(sum, trees, _): (f64, u32, u64)| 100.0 * sum / f64::from(trees.max(1));
        (0..candidates.len())
            .max_by(|&a, &b| mean(totals[a]).total_cmp(&mean(totals[b])))
            .map(|k| (candidates[k], mean(totals[k]), totals[k].2))
    }
}

/// The successor of `state` under this player's move of `step` and the
/// others' moves drawn uniformly, if it is legal and this player would have
/// perceived exactly the percepts of `step` (if they are known).
fn sample_step<R: Reasoner>(
    r: &mut R,
    role: usize,
    state: &R::State,
    step: &Step<R>,
    rng: &mut Xoshiro256PlusPlus,
) -> Option<R::State> {
    let joint = random_joint(r, state, role, Some(step.0), rng)?;
    let Some(perceived) = &step.1 else {
        return Some(r.next_state(state, &joint));
    };
    // The role `random`, should this player be given it, perceives nothing.
    let texts = match percept_texts(r, state, &joint, role) {
        Ok(texts) => texts,
        Err(PerceptError::RandomRole) => Vec::new(),
        Err(_) => return None,
    };
    (texts == *perceived).then(|| r.next_state(state, &joint))
}

/// A joint move with `mine` for `role` (a uniformly drawn one if `None`)
/// and every other role's drawn uniformly; `None` if `mine` is not legal
/// or a role has no legal move.
fn random_joint<R: Reasoner>(
    r: &mut R,
    state: &R::State,
    role: usize,
    mine: Option<R::Move>,
    rng: &mut Xoshiro256PlusPlus,
) -> Option<Vec<R::Move>> {
    let mut legal = Vec::new();
    let mut joint = Vec::with_capacity(r.roles().len());
    for who in 0..r.roles().len() {
        r.legal_moves(state, who, &mut legal);
        let m = match mine {
            Some(m) if who == role => legal.contains(&m).then_some(m)?,
            _ => *legal.get(below(rng, legal.len()))?,
        };
        joint.push(m);
    }
    Some(joint)
}

/// A received percept's text as a reasoner prints it: canonical, lower
/// case.
pub(crate) fn normal(text: &str) -> String {
    let lower = text.to_lowercase();
    canonical(&lower).unwrap_or(lower)
}

#[cfg(all(test, feature = "interpreter"))]
mod tests {
    use super::*;
    use rand_xoshiro::rand_core::SeedableRng;
    use std::time::Duration;

    type State = <gdlc::interp::Interpreter as Reasoner>::State;

    const MONTY_HALL: &str = include_str!("../../games/gdl-ii/montyhall.kif");

    fn monty_hall() -> gdlc::interp::Interpreter {
        let file = gdlc::diagnostics::SourceFile {
            name: "montyhall.kif".into(),
            text: MONTY_HALL.into(),
        };
        gdlc::interp::Interpreter::new(&gdlc::load_source(file).expect("loads"))
    }

    /// The sample after choosing door 1 and seeing the host open door 3.
    fn after_the_host_opened_3(
        r: &mut gdlc::interp::Interpreter,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Beliefs<gdlc::interp::Interpreter> {
        let mut beliefs = Beliefs::new(r, 0);
        let choose = r.parse_move(0, "(choose 1)").unwrap();
        beliefs.advance(r, choose, &[], rng).unwrap();
        let noop = r.parse_move(0, "noop").unwrap();
        // Sent as the Dresden server sends it.
        beliefs.advance(r, noop, &["3".into()], rng).unwrap();
        beliefs
    }

    #[test]
    fn after_the_host_opens_a_door_the_car_is_behind_the_other_closed_door_two_times_in_three() {
        let mut r = monty_hall();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        fn behind(r: &gdlc::interp::Interpreter, s: &State, d: &str) -> bool {
            r.fluents(s).contains(&format!("(car {d})"))
        }
        // By hand: the car is behind 1, 2 or 3 alike; the host opens 3
        // with odds 1/2, 1 and 0. So given that, behind 2 with odds 2/3.
        let mut other = 0;
        let samples = 20;
        for _ in 0..samples {
            let beliefs = after_the_host_opened_3(&mut r, &mut rng);
            assert!(beliefs.states().iter().all(|s| !behind(&r, s, "3")));
            other += beliefs
                .states()
                .iter()
                .filter(|s| behind(&r, s, "2"))
                .count();
        }
        // One sample's share has a standard deviation near 0.05 (the
        // draws of three stages); 20 samples' near 0.011.
        let share = other as f64 / (samples * PARTICLES) as f64;
        assert!(
            (0.62..=0.71).contains(&share),
            "behind the other door: {share:.3}"
        );
    }

    #[test]
    fn the_sample_says_switch() {
        let mut r = monty_hall();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
        let mut beliefs = after_the_host_opened_3(&mut r, &mut rng);
        let legal = beliefs.legal_everywhere(&mut r);
        let texts: Vec<String> = legal.iter().map(|&m| r.move_text(0, m)).collect();
        assert_eq!(texts, ["noop", "switch"]);
        let deadline = Instant::now() + Duration::from_millis(200);
        let (best, ..) = beliefs.choose(&mut r, &legal, deadline, &mut rng).unwrap();
        assert_eq!(r.move_text(0, best), "switch");
    }

    #[test]
    fn percepts_no_state_explains_are_set_aside_and_the_sample_goes_on_by_the_own_move() {
        let mut r = monty_hall();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut beliefs = Beliefs::new(&mut r, 0);
        let choose = r.parse_move(0, "(choose 1)").unwrap();
        beliefs.advance(&mut r, choose, &[], &mut rng).unwrap();
        let noop = r.parse_move(0, "noop").unwrap();
        // The host never opens the chosen door.
        let refused = beliefs.advance(&mut r, noop, &["1".into()], &mut rng);
        assert!(refused.is_err());
        assert_eq!(beliefs.states().len(), PARTICLES);
        let legal = beliefs.legal_everywhere(&mut r);
        let texts: Vec<String> = legal.iter().map(|&m| r.move_text(0, m)).collect();
        assert_eq!(texts, ["noop", "switch"], "the third step's moves");
    }
}
