//! Self-play that measures one search technique on its own: in each match
//! one role searches with the default techniques and the one measured, the
//! others with the default techniques without it (with `baseline`, no side
//! uses it: the noise, and the time),
//! every tree given the same number of iterations per move; the measured
//! role goes round the roles match by match. Generic over the reasoner, so
//! that it runs on the interpreter (`examples/self_play.rs`) and on a
//! game's compiled reasoner (its search worker's `self-play` command,
//! [`crate::remote::worker_main`]).

use crate::search::{factored, Evaluation, Factoring, Search, Techniques};
use gdl_runtime::Reasoner;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Nodes of one tree at most.
const MAX_NODES: usize = 1_000_000;
/// How long the heuristic's evaluation learns before the matches.
const LEARNING: Duration = Duration::from_secs(2);

/// What the analysis of the game found, given to every search.
struct Given<'a, M> {
    /// The heuristic's evaluation, with the heuristic measured.
    evaluation: &'a Option<Arc<Evaluation>>,
    /// The game's factors, where it falls into some ([`factored::find`]).
    factoring: &'a Option<Arc<Factoring<M>>>,
}

/// The measured side's results over some matches.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Record {
    /// Matches played.
    pub matches: u64,
    /// The measured side's goals, summed.
    pub total: u64,
    /// Its wins, draws and losses (against the best other role).
    pub outcomes: [u32; 3],
    /// Iterations searched and moves searched, by the measured side
    /// (`[0]`) and the others (`[1]`).
    pub searched: [(u64, u64); 2],
}

impl Record {
    /// The measured side's mean goal; 0 without a match.
    pub fn mean(&self) -> f64 {
        self.total as f64 / self.matches.max(1) as f64
    }

    /// The mean iterations a move of the measured side (`side` 0) or the
    /// others (1).
    pub fn iterations_a_move(&self, side: usize) -> u64 {
        let (iterations, moves) = self.searched[side];
        iterations / moves.max(1)
    }
}

/// What to measure and how long.
#[derive(Clone, Debug)]
pub struct SelfPlay {
    /// The technique measured, one of [`Techniques::NAMES`].
    pub technique: String,
    /// Search iterations for each move.
    pub iterations: u64,
    /// Search time for each move instead, in milliseconds, if not 0.
    pub millis: u64,
    /// Matches to play.
    pub matches: u64,
    /// The first match's seed; match `k` plays with `seed + k`.
    pub seed: u64,
    /// No side uses the technique.
    pub baseline: bool,
    /// The techniques every side searches with besides the one measured:
    /// the defaults, or in a trial those the trials before it kept.
    pub base: Techniques,
}

impl SelfPlay {
    /// Reads `--technique T --iterations N --millis N --matches N --seed N
    /// --baseline --on T...` from `args` (each optional; technique
    /// `solver`; `--on` turns a technique on for every side).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Self, String> {
        let o = Self::read(args).map_err(|e| e.to_string())?;
        Techniques::default()
            .with(&o.technique, true)
            .ok_or(format!(
                "unknown technique `{}` (known: {})",
                o.technique,
                Techniques::NAMES.join(", ")
            ))?;
        Ok(o)
    }

    fn read(args: impl IntoIterator<Item = String>) -> Result<Self, lexopt::Error> {
        use lexopt::prelude::*;
        let mut o = SelfPlay {
            technique: "solver".into(),
            iterations: 1000,
            millis: 0,
            matches: 20,
            seed: 1,
            baseline: false,
            base: Techniques::default(),
        };
        let mut parser = lexopt::Parser::from_args(args);
        while let Some(arg) = parser.next()? {
            match arg {
                Long("iterations") => o.iterations = parser.value()?.parse()?,
                Long("millis") => o.millis = parser.value()?.parse()?,
                Long("matches") => o.matches = parser.value()?.parse()?,
                Long("seed") => o.seed = parser.value()?.parse()?,
                Long("baseline") => o.baseline = true,
                Long("technique") => o.technique = parser.value()?.string()?,
                Long("on") => {
                    let t = parser.value()?.string()?;
                    o.base = o
                        .base
                        .with(&t, true)
                        .ok_or(format!("unknown technique `{t}`"))?;
                }
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(o)
    }

    /// Plays the matches on `r`, printing each one's goals and then the
    /// measured side's mean goal, wins, draws and losses, and the time.
    pub fn run<R: Reasoner>(&self, r: &mut R) {
        let evaluation = self.evaluation(r);
        let start = Instant::now();
        let record = self.measure(r, &evaluation, None, true);
        let budget = if self.millis > 0 {
            format!("{} ms", self.millis)
        } else {
            format!("{} iterations", self.iterations)
        };
        println!(
            "{}{}: mean goal {:.1} over {} matches ({budget} a move): {} wins, {} draws, {} losses; \
             {} and {} iterations a move; {:.1} s",
            self.technique,
            if self.baseline { " (baseline: on neither side)" } else { " on one side" },
            record.mean(),
            record.matches,
            record.outcomes[0],
            record.outcomes[1],
            record.outcomes[2],
            record.iterations_a_move(0),
            record.iterations_a_move(1),
            start.elapsed().as_secs_f64()
        );
    }

    /// Plays the matches on `r` (those ended before `until`, if given),
    /// printing each one's goals with `print`; the measured side's record.
    pub fn measure<R: Reasoner>(
        &self,
        r: &mut R,
        evaluation: &Option<Arc<Evaluation>>,
        until: Option<Instant>,
        print: bool,
    ) -> Record {
        let roles = r.roles().len();
        let mut record = Record::default();
        let initial = r.initial_state();
        let factoring = self
            .base
            .with(&self.technique, true)
            .is_some_and(|t| t.factoring)
            .then(|| factored::find(r, &initial, self.seed).map(Arc::new))
            .flatten();
        let given = Given {
            evaluation,
            factoring: &factoring,
        };
        for k in 0..self.matches {
            let measured = (k % roles as u64) as usize;
            let seed = self.seed.wrapping_add(k);
            let Some(goals) = self.play(r, measured, seed, &given, until, &mut record) else {
                break;
            };
            let own = goals[measured];
            let best_other = (0..roles)
                .filter(|&i| i != measured)
                .map(|i| goals[i])
                .max();
            record.outcomes[match best_other.map(|b| own.cmp(&b)) {
                Some(std::cmp::Ordering::Greater) | None => 0,
                Some(std::cmp::Ordering::Equal) => 1,
                Some(std::cmp::Ordering::Less) => 2,
            }] += 1;
            record.total += u64::from(own);
            record.matches += 1;
            if print {
                println!(
                    "match {}: {} as {}: goals {goals:?}",
                    k + 1,
                    self.technique,
                    r.roles()[measured]
                );
            }
        }
        record
    }

    /// With the heuristic measured, its evaluation, learned from the
    /// initial state (its fit printed).
    fn evaluation<R: Reasoner>(&self, r: &mut R) -> Option<Arc<Evaluation>> {
        if self.technique != "heuristic" {
            return None;
        }
        let initial = r.initial_state();
        let start = Instant::now();
        let evaluation = Evaluation::learn(r, &initial, LEARNING, self.seed)?;
        println!(
            "evaluation: fit (held-out R²) {:.3} from {} playouts in {:.1} s",
            evaluation.fit,
            evaluation.playouts,
            start.elapsed().as_secs_f64()
        );
        Some(Arc::new(evaluation))
    }

    /// The techniques of the measured side and of the others: `base` with
    /// the measured technique on and off.
    fn sides(&self) -> (Techniques, Techniques) {
        let with = |on| self.base.with(&self.technique, on);
        with(true).zip(with(false)).expect("checked by parse")
    }

    /// Plays one match, `measured` with the technique, the searches
    /// `given` what the game's analysis found; the goals, or `None` if
    /// `until` came first. Adds the iterations searched to `record`.
    fn play<R: Reasoner>(
        &self,
        r: &mut R,
        measured: usize,
        seed: u64,
        given: &Given<R::Move>,
        until: Option<Instant>,
        record: &mut Record,
    ) -> Option<Vec<u32>> {
        let (all, without) = self.sides();
        let roles = r.roles().len();
        let mut state = r.initial_state();
        let mut moves = Vec::new();
        while !r.is_terminal(&state) {
            if until.is_some_and(|t| Instant::now() >= t) {
                return None;
            }
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
                let seed = seed ^ role as u64;
                let factoring = given.factoring.as_ref();
                let mut tree =
                    Search::new(r, state.clone(), MAX_NODES, seed, techniques, factoring);
                tree.set_evaluation(given.evaluation.clone());
                self.search(r, &mut tree);
                let searched = &mut record.searched[usize::from(role != measured)];
                searched.0 += tree.iterations();
                searched.1 += 1;
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
        Some(
            (0..roles)
                .map(|role| r.goal(&state, role).unwrap_or(0))
                .collect(),
        )
    }

    /// Searches one move: `millis` milliseconds if set, else `iterations`.
    fn search<R: Reasoner>(&self, r: &mut R, tree: &mut Search<R>) {
        if self.millis == 0 {
            for _ in 0..self.iterations {
                tree.iterate(r);
            }
            return;
        }
        let deadline = Instant::now() + Duration::from_millis(self.millis);
        while Instant::now() < deadline {
            for _ in 0..16 {
                tree.iterate(r);
            }
        }
    }
}

/// How long the start-clock trial learns the evaluation, of its budget.
const TRIAL_LEARNING: f64 = 0.15;
/// Search time per move in the trial's matches, in milliseconds.
const TRIAL_MILLIS: u64 = 25;
/// Matches the trial plays at most.
const TRIAL_MATCHES: u64 = 24;
/// Matches a trial needs to keep a technique.
const TRIAL_DECIDES: u64 = 4;
/// How sure a trial must be that the technique's side is better: the
/// standard deviations of its mean goal (50 a match for a win or loss
/// alike) above the 50 of no effect, one-sided: 1.28 leaves a technique
/// that changes nothing in one game in ten.
const TRIAL_CONFIDENCE: f64 = 1.28;

/// Whether a trial whose technique's side made `record` keeps it: at
/// least [`TRIAL_DECIDES`] matches, and a mean goal [`TRIAL_CONFIDENCE`]
/// standard deviations above 50 (over 12 matches, 68.5; over 4, 82).
fn wins_trial(record: &Record) -> bool {
    let bar = 50.0 + TRIAL_CONFIDENCE * 50.0 / (record.matches as f64).sqrt();
    record.matches >= TRIAL_DECIDES && record.mean() >= bar
}

/// Whether a trial of a technique kept where it does not lose keeps it:
/// at least [`TRIAL_DECIDES`] matches, and a mean goal of 50 or more.
fn evens_trial(record: &Record) -> bool {
    record.matches >= TRIAL_DECIDES && record.mean() >= 50.0
}

/// Whether a trial of a technique kept unless it loses keeps it: fewer
/// than [`TRIAL_DECIDES`] matches, or a mean goal less than
/// [`TRIAL_CONFIDENCE`] standard deviations below 50 (over 12 matches,
/// above 31.5; over 6, above 23.9).
fn survives_trial(record: &Record) -> bool {
    let bar = 50.0 - TRIAL_CONFIDENCE * 50.0 / (record.matches.max(1) as f64).sqrt();
    record.matches < TRIAL_DECIDES || record.mean() > bar
}

/// The heuristic tried at the start of a match on `r`, within `budget`,
/// as Sancho and CadiaPlayer try theirs: an evaluation learned from
/// random playouts, then fast self-play in which one side cuts its
/// playouts short with it and the others do not, every side with `base`
/// (greedy playouts where their trial kept them: beside them the
/// heuristic loses breakthrough, docs/PLAYER.md). The evaluation if its
/// side won the trial ([`wins_trial`]); `None` otherwise, and in a game
/// with fewer than two choosing roles (nothing to play against). Says
/// what it found on the standard error.
pub fn heuristic_trial<R: Reasoner>(
    r: &mut R,
    budget: Duration,
    seed: u64,
    base: Techniques,
) -> Option<Arc<Evaluation>> {
    let until = Instant::now() + budget;
    if !has_opponents(r) {
        return None;
    }
    let initial = r.initial_state();
    let evaluation = Evaluation::learn(r, &initial, budget.mul_f64(TRIAL_LEARNING), seed)?;
    let evaluation = Some(Arc::new(evaluation));
    let fit = format!(
        "against plain playouts (fit {:.3})",
        evaluation.as_ref().map_or(0.0, |e| e.fit)
    );
    let trial = SelfPlay::trial("heuristic", seed, base);
    let kept = tried(r, &trial, &evaluation, until, &fit, wins_trial);
    evaluation.filter(|_| kept)
}

/// Greedy playouts tried at the start of a match on `r`, within
/// `budget`, as the heuristic is ([`heuristic_trial`]): fast self-play in
/// which one side plays greedy playouts and the others uniform ones.
/// Unlike the heuristic, kept where its side takes half the points or
/// more ([`evens_trial`]): they cost few iterations, and at the trial's
/// 25 ms a move they took 79 and 83 points in connectFour and
/// nineBoardTicTacToe, 54 in breakthrough (60 and 70 at 200 ms a move),
/// and 35 and 29 in pentago and sheepAndWolf, which they lose at 200 ms
/// too (docs/PLAYER.md). `false` in a game with fewer than two choosing
/// roles. Says what it found on the standard error.
pub fn greedy_trial<R: Reasoner>(r: &mut R, budget: Duration, seed: u64) -> bool {
    let until = Instant::now() + budget;
    let against = "against uniform playouts";
    let trial = SelfPlay::trial("greedy", seed, Techniques::default());
    has_opponents(r) && tried(r, &trial, &None, until, against, evens_trial)
}

/// A tree per factor tried at the start of a match on `r`, in a game
/// that falls into factors ([`crate::search::factored`]), within
/// `budget`: fast self-play in which one side searches a tree per factor
/// and the others the joint tree. Unlike the others, kept unless its side
/// loses the trial ([`survives_trial`]): at the trial's few milliseconds
/// a move the factors' trees, each iteration replaying the game from the
/// root, search three times fewer iterations and take about half the
/// points in connectFourSimultaneous, where at 200 ms a move they take 80
/// (docs/PLAYER.md); in chinook they lose at every budget. Says what it
/// found on the standard error.
pub fn factoring_trial<R: Reasoner>(r: &mut R, budget: Duration, seed: u64) -> bool {
    let until = Instant::now() + budget;
    let against = "against the joint tree";
    let trial = SelfPlay::trial("factoring", seed, Techniques::default());
    has_opponents(r) && tried(r, &trial, &None, until, against, survives_trial)
}

/// Whether at least two roles other than `random` choose in `r`'s game:
/// a trial needs a side to play against.
fn has_opponents<R: Reasoner>(r: &R) -> bool {
    r.roles().len() - usize::from(r.random_role().is_some()) >= 2
}

impl SelfPlay {
    /// A start-of-match trial's matches of `technique`, every side with
    /// `base` besides: [`TRIAL_MATCHES`] at most, [`TRIAL_MILLIS`] a move.
    fn trial(technique: &str, seed: u64, base: Techniques) -> Self {
        SelfPlay {
            technique: technique.into(),
            iterations: 0,
            millis: TRIAL_MILLIS,
            matches: TRIAL_MATCHES,
            seed,
            baseline: false,
            base,
        }
    }
}

/// Whether `trial`'s technique passes its trial: its matches until
/// `until`, kept where its side's record passes `rule`. Logs the outcome,
/// the opponent named by `against`.
fn tried<R: Reasoner>(
    r: &mut R,
    trial: &SelfPlay,
    evaluation: &Option<Arc<Evaluation>>,
    until: Instant,
    against: &str,
    rule: fn(&Record) -> bool,
) -> bool {
    let record = trial.measure(r, evaluation, Some(until), false);
    let kept = rule(&record);
    let technique = &trial.technique;
    eprintln!(
        "gdlc-player: {technique} {}: {:.0} points a match over {} trial matches {against}",
        if kept { "kept" } else { "left out" },
        record.mean(),
        record.matches,
    );
    kept
}

#[cfg(all(test, feature = "interpreter"))]
mod tests {
    use super::{
        evens_trial, greedy_trial, heuristic_trial, survives_trial, wins_trial, Record, SelfPlay,
    };
    use crate::search::tests::{coin, interpreter};
    use crate::search::Techniques;
    use std::time::{Duration, Instant};

    #[test]
    fn the_trial_leaves_out_a_heuristic_that_wins_nothing() {
        // `x` calls heads and wins, whoever cuts playouts short: the side
        // with the heuristic wins as `x` and loses as `o`, half the points.
        let mut r = interpreter(&coin("heads"));
        let start = Instant::now();
        assert!(
            heuristic_trial(&mut r, Duration::from_secs(2), 1, Techniques::default()).is_none()
        );
        assert!(start.elapsed() < Duration::from_secs(4));
    }

    #[test]
    fn options_are_read_and_bad_ones_said() {
        let args = |a: &str| a.split_whitespace().map(String::from).collect::<Vec<_>>();
        let o = SelfPlay::parse(args(
            "--technique heuristic --millis 25 --matches 4 --baseline --on greedy --on factoring",
        ))
        .unwrap();
        assert_eq!(
            (o.technique.as_str(), o.millis, o.matches),
            ("heuristic", 25, 4)
        );
        assert!(o.baseline);
        assert!(o.base.greedy && o.base.factoring && !o.base.grave);
        let error = |a: &str| SelfPlay::parse(args(a)).unwrap_err();
        assert!(
            error("--matches many").contains("many"),
            "{}",
            error("--matches many")
        );
        assert!(error("--seed").contains("--seed"), "{}", error("--seed"));
        assert!(
            error("--speed 3").contains("--speed"),
            "{}",
            error("--speed 3")
        );
        assert!(error("--technique telepathy").contains("unknown technique `telepathy`"));
        assert!(error("--on telepathy").contains("unknown technique `telepathy`"));
    }

    #[test]
    fn a_game_of_one_role_has_no_trial() {
        let mut r = interpreter(
            "(role p) (init (step 0)) (legal p go) (next (step 1))
            (<= terminal (true (step 1))) (goal p 100)",
        );
        assert!(
            heuristic_trial(&mut r, Duration::from_secs(60), 1, Techniques::default()).is_none()
        );
        assert!(!greedy_trial(&mut r, Duration::from_secs(60), 1));
    }

    /// A trial's record of `wins` over `matches`, the others lost.
    fn record(matches: u64, wins: u64) -> Record {
        Record {
            matches,
            total: 100 * wins,
            ..Record::default()
        }
    }

    #[test]
    fn a_trial_keeps_a_technique_only_where_its_side_is_surely_better() {
        // Over 10 matches the bar is 70.2: 7 wins fall just short.
        assert!(!wins_trial(&record(10, 7)));
        assert!(wins_trial(&record(10, 8)));
        // 9 of 12 (75) keeps, 8 (66.7) does not; 3 of 3 decides nothing.
        assert!(wins_trial(&record(12, 9)));
        assert!(!wins_trial(&record(12, 8)));
        assert!(!wins_trial(&record(3, 3)));
        assert!(wins_trial(&record(4, 4)));
        assert!(!wins_trial(&record(4, 3)));
    }

    #[test]
    fn a_trial_of_what_is_kept_unless_it_loses_leaves_it_out_only_where_it_surely_loses() {
        // Over 12 matches the bar is 31.5: 4 wins (33.3) keep, 3 do not.
        assert!(survives_trial(&record(12, 4)));
        assert!(!survives_trial(&record(12, 3)));
        // Half the points keep; 3 matches decide nothing.
        assert!(survives_trial(&record(16, 8)));
        assert!(survives_trial(&record(3, 0)));
        assert!(!survives_trial(&record(4, 0)));
    }

    #[test]
    fn a_trial_of_what_is_kept_where_it_does_not_lose_needs_half_the_points() {
        assert!(evens_trial(&record(4, 2)));
        assert!(evens_trial(&record(12, 7)));
        assert!(!evens_trial(&record(12, 5)));
        // 3 matches decide nothing.
        assert!(!evens_trial(&record(3, 3)));
    }

    #[test]
    fn a_trial_measures_its_technique_on_top_of_what_was_kept_on_every_side() {
        let base = Techniques {
            greedy: true,
            ..Techniques::default()
        };
        let (measured, others) = SelfPlay::trial("heuristic", 1, base).sides();
        assert!(measured.heuristic && measured.greedy);
        assert!(!others.heuristic && others.greedy);
        let (measured, others) = SelfPlay::trial("greedy", 1, Techniques::default()).sides();
        assert!(measured.greedy && !others.greedy);
    }
}
