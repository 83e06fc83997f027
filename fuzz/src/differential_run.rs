//! The differential fuzzer's driver: batches of generated games run by
//! [`crate::differential::run_batch`], statistics of what they exercised,
//! and every failure shrunk ([`crate::shrink`]) and saved.

use crate::differential::{
    run_batch, strategy_name, Case, Outcome, Verdict, Workspace, STRATEGIES,
};
use crate::game::Game;
use crate::generate;
use gdlc::compile::strategy::Strategy;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How many games, from which seed, for how long.
pub struct Plan {
    /// The first game's seed; the others follow.
    pub seed: u64,
    /// Games per batch (one cargo build each).
    pub batch: usize,
    /// Most batches.
    pub batches: usize,
    /// No batch starts after this.
    pub until: Instant,
    /// Time allowed to shrink one failure.
    pub shrink_time: Duration,
}

/// A failure: the game, what went wrong, and the shrunk game.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The seed of the game.
    pub seed: u64,
    /// The strategy it came from, or `None` for the game itself.
    pub strategy: Option<Strategy>,
    /// What happened.
    pub outcome: Outcome,
    /// The shrunk description.
    pub minimal: String,
}

/// Counts of a run.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Games generated.
    pub games: usize,
    /// Games `gdlc` rejected (generator bugs).
    pub invalid: usize,
    /// Games with a recursive relation.
    pub recursion: usize,
    /// Games with recursion through `succ`.
    pub successor_recursion: usize,
    /// Games with `not`.
    pub negation: usize,
    /// Games with function terms below a relation's arguments.
    pub functions: usize,
    /// Games where several roles move at once.
    pub simultaneous: usize,
    /// Games with `or`.
    pub disjunction: usize,
    /// Games with `distinct`.
    pub distinct: usize,
    /// Games with a role `random`.
    pub chance: usize,
    /// Games with `sees`.
    pub percepts: usize,
    /// Per strategy: games compared and found equal.
    pub agreed: Vec<(Strategy, usize)>,
    /// Per strategy: games the compiler refused.
    pub refused: Vec<(Strategy, usize)>,
    /// Deepest perft compared, summed over games (for the mean).
    pub depth_sum: u64,
    /// Every failure.
    pub failures: Vec<Failure>,
}

impl Stats {
    fn count(&mut self, game: &Game) {
        let f = game.features();
        self.games += 1;
        self.recursion += usize::from(f.recursion);
        self.successor_recursion += usize::from(f.successor_recursion);
        self.negation += usize::from(f.negation);
        self.functions += usize::from(f.functions);
        self.simultaneous += usize::from(f.simultaneous);
        self.disjunction += usize::from(f.disjunction);
        self.distinct += usize::from(f.distinct);
        self.chance += usize::from(f.chance);
        self.percepts += usize::from(f.percepts);
    }

    fn bump(list: &mut Vec<(Strategy, usize)>, s: Strategy) {
        match list.iter_mut().find(|e| e.0 == s) {
            Some(e) => e.1 += 1,
            None => list.push((s, 1)),
        }
    }

    /// The statistics as text.
    pub fn report(&self) -> String {
        let mut out = String::new();
        let per = |list: &[(Strategy, usize)]| {
            STRATEGIES
                .iter()
                .map(|&s| {
                    let n = list.iter().find(|e| e.0 == s).map_or(0, |e| e.1);
                    format!("{} {n}", strategy_name(s))
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            out,
            "differential: {} games generated, {} invalid (generator bugs); recursion {}, \
             successor recursion {}, negation {}, functions {}, simultaneous moves {}, or {}, distinct {}, \
             random {}, sees {}",
            self.games,
            self.invalid,
            self.recursion,
            self.successor_recursion,
            self.negation,
            self.functions,
            self.simultaneous,
            self.disjunction,
            self.distinct,
            self.chance,
            self.percepts
        );
        let _ = writeln!(
            out,
            "differential: agreed with the interpreter: {}; refused: {}; failures: {}",
            per(&self.agreed),
            per(&self.refused),
            self.failures.len()
        );
        for f in &self.failures {
            let s = f.strategy.map_or("the game", strategy_name);
            let _ = writeln!(out, "  seed {} ({s}): {}\n{}", f.seed, f.outcome, f.minimal);
        }
        out
    }
}

/// Runs batches of generated games until the plan ends; failures are
/// shrunk and saved under `out`.
pub fn run(
    plan: &Plan,
    ws: &Workspace,
    out: Option<&Path>,
    mut progress: impl FnMut(&Stats),
) -> Stats {
    let mut stats = Stats::default();
    let mut seed = plan.seed;
    for _ in 0..plan.batches {
        if Instant::now() >= plan.until {
            break;
        }
        let games: Vec<(u64, Game)> = (seed..seed + plan.batch as u64)
            .map(|s| (s, generate::game(s)))
            .collect();
        seed += plan.batch as u64;
        let cases: Vec<Case> = games
            .iter()
            .map(|(s, g)| Case {
                name: format!("s{s}"),
                kif: g.kif(),
            })
            .collect();
        let verdicts = run_batch(ws, &cases, &STRATEGIES);
        for ((s, game), verdict) in games.iter().zip(&verdicts) {
            stats.count(game);
            tally(&mut stats, verdict);
            if let Some((strategy, outcome)) = verdict.failure() {
                let failure =
                    shrink_failure(ws, *s, game, strategy, outcome.clone(), plan.shrink_time);
                if let Some(out) = out {
                    save(out, &failure, game);
                }
                stats.failures.push(failure);
            }
        }
        progress(&stats);
    }
    stats
}

fn tally(stats: &mut Stats, verdict: &Verdict) {
    if matches!(verdict.game, Outcome::Invalid(_)) {
        stats.invalid += 1;
    }
    for (s, o) in &verdict.strategies {
        match o {
            Outcome::Agrees => Stats::bump(&mut stats.agreed, *s),
            Outcome::Refused(_) => Stats::bump(&mut stats.refused, *s),
            _ => {}
        }
    }
}

/// Shrinks a failing game: candidates are run (under the failing strategy
/// only) and kept while they fail the same way.
fn shrink_failure(
    ws: &Workspace,
    seed: u64,
    game: &Game,
    strategy: Option<Strategy>,
    outcome: Outcome,
    time: Duration,
) -> Failure {
    let signature = outcome.signature();
    let strategies: Vec<Strategy> = strategy.into_iter().collect();
    let minimal = crate::shrink::shrink(game, Instant::now() + time, |candidates| {
        let cases: Vec<Case> = candidates
            .iter()
            .enumerate()
            .map(|(i, g)| Case {
                name: format!("c{i}"),
                kif: g.kif(),
            })
            .collect();
        run_batch(ws, &cases, &strategies)
            .iter()
            .map(|v| {
                v.failure()
                    .is_some_and(|(s, o)| s == strategy && o.signature() == signature)
            })
            .collect()
    });
    Failure {
        seed,
        strategy,
        outcome,
        minimal: minimal.kif(),
    }
}

fn save(out: &Path, failure: &Failure, original: &Game) {
    let s = failure.strategy.map_or("game", strategy_name);
    let dir: PathBuf = out.join(format!("game-s{}-{s}", failure.seed));
    let report = format!(
        "seed: {}\nstrategy: {s}\noutcome: {}\nreproduce: gdlc-fuzz generate --seed {}\n",
        failure.seed, failure.outcome, failure.seed
    );
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(dir.join("original.kif"), original.kif()))
        .and_then(|()| std::fs::write(dir.join("minimal.kif"), &failure.minimal))
        .and_then(|()| std::fs::write(dir.join("report.txt"), report));
    if let Err(e) = written {
        eprintln!("cannot save a failure under {}: {e}", dir.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Atom, Literal, Rule, Term};

    /// A game made invalid by one unsafe rule shrinks to a description
    /// that still has it and little else (the game-level path: nothing is
    /// built, so no cargo run).
    #[test]
    fn an_invalid_game_shrinks_to_its_unsafe_rule() {
        let mut game = generate::game(3);
        let unsafe_rule = Rule {
            head: Atom::new("legal", vec![Term::c("white"), Term::v("free")]),
            body: vec![Literal::Pos(Atom::new(
                "true",
                vec![Term::f("step", vec![Term::c("1")])],
            ))],
        };
        game.rules.insert(game.rules.len() / 2, unsafe_rule.clone());
        let ws = Workspace {
            dir: std::env::temp_dir().join("gdlc-fuzz-shrink-test"),
            runtime: PathBuf::from("unused"),
        };
        let outcome = run_batch(
            &ws,
            &[Case {
                name: "s3".into(),
                kif: game.kif(),
            }],
            &[],
        )[0]
        .game
        .clone();
        assert_eq!(outcome.kind(), "invalid", "{outcome}");
        let failure = shrink_failure(&ws, 3, &game, None, outcome, Duration::from_secs(60));
        assert!(
            failure.minimal.contains("(legal white ?free)"),
            "{}",
            failure.minimal
        );
        assert!(
            failure.minimal.lines().count() <= 4,
            "{} lines left of {}:\n{}",
            failure.minimal.lines().count(),
            game.kif().lines().count(),
            failure.minimal
        );
    }
}
