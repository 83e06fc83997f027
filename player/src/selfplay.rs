//! Self-play that measures one search technique on its own: in each match
//! one role searches with the default techniques and the one measured, the
//! others with the default techniques without it (with `baseline`, no side
//! uses it: the noise, and the time),
//! every tree given the same number of iterations per move; the measured
//! role goes round the roles match by match. Generic over the reasoner, so
//! that it runs on the interpreter (`examples/self_play.rs`) and on a
//! game's compiled reasoner (its search worker's `self-play` command,
//! [`crate::remote::worker_main`]).

use crate::search::{Techniques, Tree};
use gdl_runtime::Reasoner;
use std::time::Instant;

/// Nodes of one tree at most.
const MAX_NODES: usize = 1_000_000;

/// What to measure and how long.
#[derive(Clone, Debug)]
pub struct SelfPlay {
    /// The technique measured, one of [`Techniques::NAMES`].
    pub technique: String,
    /// Search iterations for each move.
    pub iterations: u64,
    /// Matches to play.
    pub matches: u64,
    /// The first match's seed; match `k` plays with `seed + k`.
    pub seed: u64,
    /// No side uses the technique.
    pub baseline: bool,
}

impl SelfPlay {
    /// Reads `--technique T --iterations N --matches N --seed N
    /// --baseline` from `args` (each optional; technique `solver`).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let mut o = SelfPlay {
            technique: "solver".into(),
            iterations: 1000,
            matches: 20,
            seed: 1,
            baseline: false,
        };
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let mut number = |name: &str| -> Result<u64, String> {
                let value = args.next().ok_or(format!("{name} needs a value"))?;
                value
                    .parse()
                    .map_err(|_| format!("{name}: `{value}` is not a number"))
            };
            match arg.as_str() {
                "--iterations" => o.iterations = number("--iterations")?,
                "--matches" => o.matches = number("--matches")?,
                "--seed" => o.seed = number("--seed")?,
                "--baseline" => o.baseline = true,
                "--technique" => o.technique = args.next().ok_or("--technique needs a name")?,
                _ => return Err(format!("unexpected argument `{arg}`")),
            }
        }
        Techniques::default()
            .with(&o.technique, true)
            .ok_or(format!(
                "unknown technique `{}` (known: {})",
                o.technique,
                Techniques::NAMES.join(", ")
            ))?;
        Ok(o)
    }

    /// Plays the matches on `r`, printing each one's goals and then the
    /// measured side's mean goal, wins, draws and losses, and the time.
    pub fn run<R: Reasoner>(&self, r: &mut R) {
        let roles = r.roles().len();
        let (mut total, mut record) = (0u64, [0u32; 3]);
        let start = Instant::now();
        for k in 0..self.matches {
            let measured = (k % roles as u64) as usize;
            let goals = self.play(r, measured, self.seed.wrapping_add(k));
            let own = goals[measured];
            let best_other = (0..roles)
                .filter(|&i| i != measured)
                .map(|i| goals[i])
                .max();
            record[match best_other.map(|b| own.cmp(&b)) {
                Some(std::cmp::Ordering::Greater) | None => 0,
                Some(std::cmp::Ordering::Equal) => 1,
                Some(std::cmp::Ordering::Less) => 2,
            }] += 1;
            total += u64::from(own);
            println!(
                "match {}: {} as {}: goals {goals:?}",
                k + 1,
                self.technique,
                r.roles()[measured]
            );
        }
        println!(
            "{}{}: mean goal {:.1} over {} matches ({} iterations a move): {} wins, {} draws, {} losses; {:.1} s",
            self.technique,
            if self.baseline { " (baseline: on neither side)" } else { " on one side" },
            total as f64 / self.matches.max(1) as f64,
            self.matches,
            self.iterations,
            record[0],
            record[1],
            record[2],
            start.elapsed().as_secs_f64()
        );
    }

    /// Plays one match, `measured` with the technique; the goals.
    fn play<R: Reasoner>(&self, r: &mut R, measured: usize, seed: u64) -> Vec<u32> {
        let with = |on| Techniques::default().with(&self.technique, on);
        let (all, without) = with(true).zip(with(false)).expect("checked by parse");
        let roles = r.roles().len();
        let mut state = r.initial_state();
        let mut moves = Vec::new();
        while !r.is_terminal(&state) {
            let mut joint = Vec::with_capacity(roles);
            for role in 0..roles {
                r.legal_moves(&state, role, &mut moves);
                if moves.len() <= 1 {
                    joint.extend(moves.first().copied());
                    continue;
                }
                let techniques = if role == measured && !self.baseline {
                    all
                } else {
                    without
                };
                let tree = Tree::new(r, state.clone(), MAX_NODES, seed ^ role as u64);
                let mut tree = tree.with_techniques(techniques);
                for _ in 0..self.iterations {
                    tree.iterate(r);
                }
                let best = tree
                    .root_moves(role)
                    .into_iter()
                    .max_by_key(|(_, s)| s.visits);
                joint.push(best.map_or(moves[0], |(m, _)| m));
            }
            if joint.len() < roles {
                break;
            }
            state = r.next_state(&state, &joint);
        }
        (0..roles)
            .map(|role| r.goal(&state, role).unwrap_or(0))
            .collect()
    }
}
