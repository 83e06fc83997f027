//! Flat Monte-Carlo on several threads: each thread plays random playouts
//! on its own reasoner with its own random stream, and the counts are
//! added up.
//!
//! Thread `i` draws from the generator of the run's seed advanced by `i`
//! jumps of 2^128 steps (xoshiro256++'s `jump`), so the streams never
//! overlap and thread 0 plays exactly the playouts of a one-thread run.
//! A budget of `N` playouts is split between the threads (the first ones
//! take the remainder), so its report does not depend on timing; a time
//! budget runs every thread for that long. The reasoners are built first,
//! each on its own thread (a reasoner need not be `Send`), and the
//! playouts start together once all are ready.

use crate::drivers::mean_goals;
use crate::{DriverError, Kernels, McBudget, McReport, Reasoner};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Barrier;

/// The counts of one thread of a flat Monte-Carlo run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McThreadCounts {
    /// Playouts completed.
    pub playouts: u64,
    /// States visited, the initial and the terminal ones included.
    pub states: u64,
    /// Playouts stopped at the length limit.
    pub truncated: u64,
    /// Wall-clock time of the thread's playouts.
    pub seconds: f64,
}

/// A flat Monte-Carlo run on one or more threads.
#[derive(Clone, Debug, PartialEq)]
pub struct ParallelMcReport {
    /// The counts of all threads added up; `seconds` is the longest
    /// thread's time, so the rates are those of the whole machine.
    pub combined: McReport,
    /// Each thread's counts, thread 0 first.
    pub threads: Vec<McThreadCounts>,
}

/// Flat Monte-Carlo (as [`crate::flat_monte_carlo`]) on `threads` threads:
/// `first` plays on the calling thread and `build` makes the reasoner of
/// each other thread, on that thread. With one thread it is
/// [`crate::flat_monte_carlo`] itself.
///
/// `progress` is called on the calling thread, now and then, with the
/// playouts and states of all threads so far. A panic of another thread
/// (building its reasoner or playing) is resumed on the calling thread.
pub fn parallel_flat_monte_carlo<'a, R, F>(
    first: &mut R,
    build: F,
    threads: usize,
    budget: McBudget,
    seed: u64,
    max_length: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ParallelMcReport, DriverError>
where
    R: Reasoner + 'a,
    F: Fn() -> R + Sync,
{
    let build = || Box::new(build()) as Box<dyn Kernels + 'a>;
    parallel_playouts(first, &build, threads, budget, seed, max_length, progress)
}

/// [`parallel_flat_monte_carlo`] on the reasoners' [`Kernels`], so that
/// the threads are started and joined by code compiled once.
pub fn parallel_playouts<'a>(
    first: &mut dyn Kernels,
    build: &(dyn Fn() -> Box<dyn Kernels + 'a> + Sync),
    threads: usize,
    budget: McBudget,
    seed: u64,
    max_length: u64,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<ParallelMcReport, DriverError> {
    let threads = threads.max(1);
    let budgets = split(budget, threads);
    if threads == 1 {
        let mut report_progress = |r: &McReport| progress(r.playouts, r.states);
        let (report, sums) =
            first.random_playouts(budget, seed, 0, max_length, &mut report_progress)?;
        return Ok(combine(seed, vec![(report, sums)]));
    }
    let slots: Vec<Slot> = (0..threads).map(|_| Slot::default()).collect();
    let failed = AtomicBool::new(false);
    let ready = Barrier::new(threads);
    let outcomes = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads)
            .map(|i| {
                let (budget, slot) = (budgets[i], &slots[i]);
                let (failed, ready) = (&failed, &ready);
                scope.spawn(move || {
                    let built = catch_unwind(AssertUnwindSafe(build));
                    if built.is_err() {
                        failed.store(true, Ordering::SeqCst);
                    }
                    ready.wait();
                    let mut r = built.unwrap_or_else(|panic| resume_unwind(panic));
                    if failed.load(Ordering::SeqCst) {
                        return None;
                    }
                    let mut publish = |rep: &McReport| slot.publish(rep);
                    Some(r.random_playouts(budget, seed, i, max_length, &mut publish))
                })
            })
            .collect();
        ready.wait();
        let own = (!failed.load(Ordering::SeqCst)).then(|| {
            let mut publish = |rep: &McReport| {
                slots[0].publish(rep);
                if rep.playouts.is_multiple_of(PROGRESS_EVERY) {
                    let (playouts, states) = Slot::totals(&slots);
                    progress(playouts, states);
                }
            };
            first.random_playouts(budgets[0], seed, 0, max_length, &mut publish)
        });
        let mut outcomes = vec![own];
        for handle in handles {
            outcomes.push(handle.join().unwrap_or_else(|panic| resume_unwind(panic)));
        }
        outcomes
    });
    let done = outcomes
        .into_iter()
        .map(|o| o.expect("a thread stops early only when another one panicked"))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(combine(seed, done))
}

/// The most threads `mc` accepts (more is surely a typo, and would spend
/// the budget starting threads).
pub const MAX_THREADS: usize = 1024;

/// The number of threads `mc` runs by default: one per core the process
/// may use (`std::thread::available_parallelism`), 1 when that is unknown.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// The calling thread's playouts between two calls of `progress`.
const PROGRESS_EVERY: u64 = 16;

/// A thread's counts so far, read by the calling thread for `progress`;
/// on a cache line of its own, so that threads do not share one.
#[derive(Default)]
#[repr(align(64))]
struct Slot {
    playouts: AtomicU64,
    states: AtomicU64,
}

impl Slot {
    fn publish(&self, report: &McReport) {
        self.playouts.store(report.playouts, Ordering::Relaxed);
        self.states.store(report.states, Ordering::Relaxed);
    }

    fn totals(slots: &[Slot]) -> (u64, u64) {
        slots.iter().fold((0, 0), |(p, s), slot| {
            (
                p + slot.playouts.load(Ordering::Relaxed),
                s + slot.states.load(Ordering::Relaxed),
            )
        })
    }
}

/// Each thread's budget: a share of the playouts (the first threads take
/// the remainder), or the whole time.
fn split(budget: McBudget, threads: usize) -> Vec<McBudget> {
    let n = threads as u64;
    (0..n)
        .map(|i| match budget {
            McBudget::Playouts(total) => McBudget::Playouts(total / n + u64::from(i < total % n)),
            time => time,
        })
        .collect()
}

/// The combined report of the threads' reports and goal sums.
fn combine(seed: u64, done: Vec<(McReport, Vec<u64>)>) -> ParallelMcReport {
    if let [(report, _)] = done.as_slice() {
        return ParallelMcReport {
            combined: report.clone(),
            threads: vec![counts(report)],
        };
    }
    let roles = done.first().map_or(0, |(_, sums)| sums.len());
    let mut goal_sums = vec![0u64; roles];
    let mut combined = McReport {
        seed,
        playouts: 0,
        states: 0,
        joint_moves: 0,
        seconds: 0.0,
        mean_goals: Vec::new(),
        truncated: 0,
    };
    for (report, sums) in &done {
        combined.playouts += report.playouts;
        combined.states += report.states;
        combined.joint_moves += report.joint_moves;
        combined.truncated += report.truncated;
        combined.seconds = combined.seconds.max(report.seconds);
        for (total, sum) in goal_sums.iter_mut().zip(sums) {
            *total += sum;
        }
    }
    combined.mean_goals = mean_goals(&goal_sums, combined.playouts);
    ParallelMcReport {
        combined,
        threads: done.iter().map(|(report, _)| counts(report)).collect(),
    }
}

fn counts(report: &McReport) -> McThreadCounts {
    McThreadCounts {
        playouts: report.playouts,
        states: report.states,
        truncated: report.truncated,
        seconds: report.seconds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flat_monte_carlo;
    use std::time::Duration;

    /// One role choosing one of `n` numbers for `depth` rounds; the state
    /// is (round, sum of the choices) and the goal the sum, so the goals
    /// depend on every random draw.
    #[derive(Default)]
    struct Sums {
        roles: Vec<String>,
    }

    const N: u32 = 5;
    const DEPTH: u32 = 4;

    impl Reasoner for Sums {
        type State = (u32, u32);
        type Move = u32;
        fn roles(&self) -> &[String] {
            &self.roles
        }
        fn initial_state(&mut self) -> (u32, u32) {
            (0, 0)
        }
        fn is_terminal(&mut self, s: &(u32, u32)) -> bool {
            s.0 >= DEPTH
        }
        fn legal_moves(&mut self, _: &(u32, u32), _: usize, out: &mut Vec<u32>) {
            out.clear();
            out.extend(0..N);
        }
        fn next_state(&mut self, s: &(u32, u32), joint: &[u32]) -> (u32, u32) {
            (s.0 + 1, s.1 + joint[0])
        }
        fn goal(&mut self, s: &(u32, u32), _: usize) -> Option<u32> {
            Some(s.1)
        }
        fn move_text(&self, _: usize, m: u32) -> String {
            m.to_string()
        }
        fn parse_move(&mut self, _: usize, text: &str) -> Option<u32> {
            text.parse().ok()
        }
        fn fluents(&self, s: &(u32, u32)) -> Vec<String> {
            vec![format!("(at {} {})", s.0, s.1)]
        }
        fn state_from_fluents(&mut self, fluents: &[String]) -> Option<(u32, u32)> {
            let [f] = fluents else { return None };
            let (a, b) = f.strip_prefix("(at ")?.strip_suffix(')')?.split_once(' ')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        }
        fn state_hash(&self, s: &(u32, u32)) -> u64 {
            u64::from(s.0) << 32 | u64::from(s.1)
        }
    }

    fn sums() -> Sums {
        Sums {
            roles: vec!["a".into()],
        }
    }

    fn run(threads: usize, budget: McBudget, seed: u64) -> ParallelMcReport {
        parallel_flat_monte_carlo(
            &mut sums(),
            sums,
            threads,
            budget,
            seed,
            100,
            &mut |_, _| {},
        )
        .unwrap()
    }

    /// The report without its times, which differ from run to run.
    fn untimed(mut run: ParallelMcReport) -> ParallelMcReport {
        run.combined.seconds = 0.0;
        for t in &mut run.threads {
            t.seconds = 0.0;
        }
        run
    }

    #[test]
    fn one_thread_is_flat_monte_carlo() {
        let single = flat_monte_carlo(&mut sums(), McBudget::Playouts(40), 3, 100, &mut |_| {});
        let mut single = single.unwrap();
        let one = untimed(run(1, McBudget::Playouts(40), 3));
        single.seconds = 0.0;
        assert_eq!(one.combined, single);
        assert_eq!(one.threads.len(), 1);
    }

    #[test]
    fn playouts_are_split_and_the_report_depends_on_the_seed_only() {
        let three = untimed(run(3, McBudget::Playouts(10), 7));
        let shares: Vec<u64> = three.threads.iter().map(|t| t.playouts).collect();
        assert_eq!(shares, [4, 3, 3]);
        // Every playout visits DEPTH + 1 states.
        assert_eq!(three.combined.states, 10 * u64::from(DEPTH + 1));
        assert_eq!(three.combined.playouts, 10);
        assert_eq!(untimed(run(3, McBudget::Playouts(10), 7)), three);
        assert_ne!(untimed(run(3, McBudget::Playouts(10), 8)), three);
    }

    #[test]
    fn thread_zero_draws_the_one_thread_stream_and_thread_one_another() {
        let goal = |threads, playouts, seed| run(threads, McBudget::Playouts(playouts), seed);
        let mut other_stream = false;
        for seed in 0..8 {
            // With one playout, thread 1 plays none: thread 0's is the first
            // playout of a one-thread run.
            let first = goal(1, 1, seed).combined.mean_goals[0];
            assert_eq!(goal(2, 1, seed).combined.mean_goals[0], first);
            // With two, thread 1 plays one from its own stream, not the
            // second playout of the one-thread run.
            let second = 2.0 * goal(1, 2, seed).combined.mean_goals[0] - first;
            let thread_one = 2.0 * goal(2, 2, seed).combined.mean_goals[0] - first;
            other_stream |= thread_one != second;
        }
        assert!(other_stream);
    }

    #[test]
    fn goals_are_averaged_over_every_thread() {
        // The mean of many playouts nears the expected sum, 4 * 2 = 8.
        let many = run(2, McBudget::Playouts(20_000), 1).combined;
        assert!((many.mean_goals[0] - 8.0).abs() < 0.1, "{many:?}");
    }

    #[test]
    fn a_time_budget_runs_every_thread() {
        let timed = run(2, McBudget::Time(Duration::from_millis(50)), 0);
        assert!(timed
            .threads
            .iter()
            .all(|t| t.playouts > 0 && t.seconds >= 0.05));
        let states: u64 = timed.threads.iter().map(|t| t.states).sum();
        assert_eq!(timed.combined.states, states);
    }

    #[test]
    fn a_thread_that_cannot_build_its_reasoner_ends_the_run_with_its_panic() {
        let outcome = catch_unwind(|| {
            parallel_flat_monte_carlo(
                &mut sums(),
                || -> Sums { panic!("no reasoner") },
                2,
                McBudget::Time(Duration::from_secs(60)),
                0,
                100,
                &mut |_, _| {},
            )
        });
        let panic = outcome.expect_err("the panic is resumed");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"no reasoner"));
    }
}
