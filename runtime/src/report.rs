//! The reports of the drivers, as text and as JSON, written once for every
//! backend: `gdlc` and every binary it generates print through this module,
//! so their outputs agree byte for byte.
//!
//! The JSON reports are [`serde_json::Value`]s, their objects' keys in
//! sorted order: print one with `{}` (compact, as `--json` does) or `{:#}`
//! (pretty, as `trace` does). The module is there with the `cli` feature.

use crate::{DriverError, Kernels, McBudget, McReport, ParallelMcReport, PerftLevel, Playout};
use serde_json::Value;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// Steps after which a deterministic playout of the trace stops.
pub const PLAYOUT_STEPS: usize = 300;

/// The seeds of the trace's two deterministic playouts.
pub const PLAYOUT_SEEDS: [u64; 2] = [0, 1];

/// Joint moves after which a flat Monte-Carlo playout is cut short.
pub const MC_MAX_LENGTH: u64 = 1_000_000;

/// A JSON object from key–value pairs, its keys in sorted order (what the
/// reports print) whether or not a crate in the build turns on
/// `serde_json`'s `preserve_order`, which keeps an object's insertion order.
fn object<K: Into<String>>(pairs: impl IntoIterator<Item = (K, Value)>) -> Value {
    sorted_object(pairs.into_iter().map(|(k, v)| (k.into(), v)).collect())
}

/// The object of `pairs` sorted by key (one copy of the code for every
/// caller of [`object`]).
fn sorted_object(mut pairs: Vec<(String, Value)>) -> Value {
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    Value::Object(pairs.into_iter().collect())
}

/// A timed perft run: the levels up to the last non-empty one.
#[derive(Clone, Debug, PartialEq)]
pub struct PerftRun {
    /// The depth asked for.
    pub depth: u32,
    /// The levels `0..=d`, where `d` is the asked depth or the depth at which
    /// the tree ends, if it ends before.
    pub levels: Vec<PerftLevel>,
    /// Wall-clock time of the pass.
    pub seconds: f64,
}

/// Perft to `depth` in one pass, timed.
pub fn timed_perft(r: &mut dyn Kernels, depth: u32) -> Result<PerftRun, DriverError> {
    let start = Instant::now();
    let mut levels = r.perft_levels(depth)?;
    let seconds = start.elapsed().as_secs_f64();
    // Depths past the end of the tree add nothing.
    let end = levels.iter().rposition(|l| l.leaves > 0).unwrap_or(0);
    levels.truncate(end + 1);
    Ok(PerftRun {
        depth,
        levels,
        seconds,
    })
}

/// Perft by iterative deepening (up to `max_depth`) for about `seconds`
/// seconds: the levels of the deepest depth that completed in time, and
/// the time of that depth's own pass. Its `depth` is the deepest depth
/// completed, so the text says so when the tree ends before it.
pub fn deepening_perft(
    r: &mut dyn Kernels,
    max_depth: u32,
    seconds: f64,
) -> Result<PerftRun, DriverError> {
    let deadline = deadline_after(seconds);
    // Each pass starts when the one before it ends.
    let mut finished = vec![Instant::now()];
    let levels = r.deepening_levels(max_depth, deadline, &mut |_| {
        finished.push(Instant::now());
    })?;
    let depth = levels.last().map_or(0, |l| l.depth);
    let end = levels.iter().rposition(|l| l.leaves > 0).unwrap_or(0);
    Ok(PerftRun {
        depth,
        levels: levels[..=end].to_vec(),
        seconds: (finished[end + 1] - finished[end]).as_secs_f64(),
    })
}

impl PerftRun {
    /// The deepest level counted.
    pub fn last(&self) -> PerftLevel {
        self.levels.last().copied().unwrap_or(PerftLevel {
            depth: 0,
            nodes: 0,
            leaves: 0,
        })
    }

    /// Nodes (of the whole tree counted) per second.
    pub fn nodes_per_sec(&self) -> f64 {
        self.last().nodes as f64 / self.seconds.max(1e-9)
    }

    /// The report as JSON: `game`, `backend`, `depth`, `nodes`, `leaves`,
    /// `levels`, `seconds`, `nodes_per_sec`.
    pub fn json(&self, game: &str, backend: &str) -> Value {
        let last = self.last();
        object([
            ("game", Value::from(game)),
            ("backend", backend.into()),
            ("depth", last.depth.into()),
            ("nodes", last.nodes.into()),
            ("leaves", last.leaves.into()),
            (
                "levels",
                Value::Array(self.levels.iter().map(level_json).collect()),
            ),
            ("seconds", self.seconds.into()),
            ("nodes_per_sec", self.nodes_per_sec().into()),
        ])
    }

    /// The report as lines of text: one per depth, then the speed.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for l in &self.levels {
            let _ = writeln!(
                out,
                "depth {:>2}  nodes {:>14}  leaves {:>14}",
                l.depth, l.nodes, l.leaves
            );
        }
        let last = self.last();
        if last.depth < self.depth {
            let _ = writeln!(out, "(the tree ends at depth {})", last.depth);
        }
        let _ = writeln!(
            out,
            "{:.0} nodes/s ({} nodes in {:.3} s)",
            self.nodes_per_sec(),
            last.nodes,
            self.seconds
        );
        out
    }
}

/// The time budget of a flat Monte-Carlo run of `seconds` seconds, or why
/// there is none.
pub fn time_budget(seconds: f64) -> Result<McBudget, String> {
    if seconds.is_finite() && seconds >= 0.0 {
        if let Ok(d) = Duration::try_from_secs_f64(seconds) {
            return Ok(McBudget::Time(d));
        }
    }
    Err(format!(
        "--seconds must be a non-negative number of seconds, not {seconds}"
    ))
}

/// The deadline `seconds` from now (a negative or NaN number counts as 0);
/// `None` when it is too far away to represent.
pub fn deadline_after(seconds: f64) -> Option<Instant> {
    let delay = Duration::try_from_secs_f64(seconds.max(0.0)).ok()?;
    Instant::now().checked_add(delay)
}

/// A flat Monte-Carlo report as JSON: `game`, `backend`, `seed`, `playouts`,
/// `states`, `seconds`, `playouts_per_sec`, `states_per_sec`, `mean_goals`
/// (by role name), `truncated`.
pub fn mc_json(report: &McReport, roles: &[String], game: &str, backend: &str) -> Value {
    let goals = roles
        .iter()
        .enumerate()
        .map(|(i, role)| (role.clone(), Value::from(mean_goal(report, i))));
    object([
        ("game", Value::from(game)),
        ("backend", backend.into()),
        ("seed", report.seed.into()),
        ("playouts", report.playouts.into()),
        ("states", report.states.into()),
        ("joint_moves", report.joint_moves.into()),
        ("seconds", report.seconds.into()),
        ("playouts_per_sec", report.playouts_per_sec().into()),
        ("states_per_sec", report.states_per_sec().into()),
        ("mean_goals", object(goals)),
        ("truncated", report.truncated.into()),
    ])
}

/// A flat Monte-Carlo report as lines of text.
pub fn mc_text(report: &McReport, roles: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} playouts, {} states in {:.3} s: {:.1} playouts/s, {:.1} states/s",
        report.playouts,
        report.states,
        report.seconds,
        report.playouts_per_sec(),
        report.states_per_sec()
    );
    for (i, role) in roles.iter().enumerate() {
        let _ = writeln!(out, "mean goal of {role}: {:.2}", mean_goal(report, i));
    }
    if report.truncated > 0 {
        let _ = writeln!(
            out,
            "{} playouts stopped at {MC_MAX_LENGTH} steps without reaching a terminal state",
            report.truncated
        );
    }
    out
}

/// The report of a flat Monte-Carlo run on one or more threads as JSON:
/// [`mc_json`] of the combined counts, and with more than one thread
/// `threads` (their number) and `per_thread` (each thread's `playouts`,
/// `states`, `truncated` and `seconds`), so that a one-thread run prints
/// what [`mc_json`] prints.
pub fn parallel_mc_json(
    run: &ParallelMcReport,
    roles: &[String],
    game: &str,
    backend: &str,
) -> Value {
    let Value::Object(combined) = mc_json(&run.combined, roles, game, backend) else {
        unreachable!("mc_json makes an object")
    };
    let mut pairs: Vec<(String, Value)> = combined.into_iter().collect();
    if run.threads.len() > 1 {
        let per_thread = run.threads.iter().map(|t| {
            object([
                ("playouts", Value::from(t.playouts)),
                ("states", t.states.into()),
                ("truncated", t.truncated.into()),
                ("seconds", t.seconds.into()),
            ])
        });
        pairs.push(("threads".into(), run.threads.len().into()));
        pairs.push(("per_thread".into(), Value::Array(per_thread.collect())));
    }
    sorted_object(pairs)
}

/// The report of a flat Monte-Carlo run on one or more threads as text:
/// [`mc_text`] of the combined counts, then with more than one thread a
/// line per thread.
pub fn parallel_mc_text(run: &ParallelMcReport, roles: &[String]) -> String {
    let mut out = mc_text(&run.combined, roles);
    if run.threads.len() > 1 {
        for (i, t) in run.threads.iter().enumerate() {
            let _ = writeln!(
                out,
                "thread {i}: {} playouts, {} states in {:.3} s",
                t.playouts, t.states, t.seconds
            );
        }
    }
    out
}

fn mean_goal(report: &McReport, role: usize) -> f64 {
    report.mean_goals.get(role).copied().unwrap_or(0.0)
}

/// The conformance trace of `game`, in the schema of the oracle files:
/// `game`, `roles`, `init`, `init_terminal`, `perft` (by iterative
/// deepening to `depth`, stopping at `deadline`) and `playouts` (the two
/// deterministic playouts of at most `max_steps` steps).
pub fn trace(
    r: &mut dyn Kernels,
    game: &str,
    depth: u32,
    deadline: Option<Instant>,
    max_steps: usize,
) -> Result<Value, DriverError> {
    let roles = r.role_names().to_vec();
    let (init, init_terminal) = r.initial_fluents();
    let levels = r.deepening_levels(depth, deadline, &mut |_| {})?;
    let playouts = PLAYOUT_SEEDS
        .iter()
        .map(|&seed| r.playout(seed, max_steps).map(|p| playout_json(&p, &roles)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(object([
        ("game", Value::from(game)),
        ("roles", roles.into()),
        ("init", init.into()),
        ("init_terminal", init_terminal.into()),
        (
            "perft",
            Value::Array(levels.iter().map(level_json).collect()),
        ),
        ("playouts", Value::Array(playouts)),
    ]))
}

/// One perft level as `{depth, nodes, leaves}`.
pub fn level_json(level: &PerftLevel) -> Value {
    object([
        ("depth", Value::from(level.depth)),
        ("nodes", level.nodes.into()),
        ("leaves", level.leaves.into()),
    ])
}

/// A playout in the oracle's schema: `seed`, `steps` (each with `legal` and
/// `joint` by role name, and `state`; in a GDL-II game with percepts also
/// `sees`, each role's percepts by role name, the role `random` left out),
/// then `terminal_step` and `goals` by role name, or `truncated: true`.
pub fn playout_json(p: &Playout, roles: &[String]) -> Value {
    let by_role = |values: Vec<Value>| object(roles.iter().cloned().zip(values));
    let steps = p
        .steps
        .iter()
        .map(|s| {
            let mut step = object([
                (
                    "legal",
                    by_role(s.legal.iter().map(|m| m.clone().into()).collect()),
                ),
                (
                    "joint",
                    by_role(s.joint.iter().map(|m| m.as_str().into()).collect()),
                ),
                ("state", s.state.clone().into()),
            ]);
            if let (Some(sees), Value::Object(fields)) = (&s.sees, &mut step) {
                let seen = roles
                    .iter()
                    .zip(sees)
                    .filter(|(role, _)| *role != crate::RANDOM_ROLE)
                    .map(|(role, texts)| (role.clone(), Value::from(texts.clone())));
                fields.insert("sees".into(), object(seen));
            }
            step
        })
        .collect();
    match p.terminal_step {
        Some(t) => object([
            ("seed", Value::from(p.seed)),
            ("steps", Value::Array(steps)),
            ("terminal_step", t.into()),
            (
                "goals",
                by_role(p.goals.iter().map(|&g| g.into()).collect()),
            ),
        ]),
        None => object([
            ("seed", Value::from(p.seed)),
            ("steps", Value::Array(steps)),
            ("truncated", true.into()),
        ]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(x: f64) -> String {
        Value::from(x).to_string()
    }

    /// The numbers of the reports print as they did when the runtime wrote
    /// its JSON by hand (and as the oracle files have them).
    #[test]
    fn floats_print_in_the_shortest_exact_form() {
        assert_eq!(float(0.0), "0.0");
        assert_eq!(float(-0.0), "-0.0");
        assert_eq!(float(3.0), "3.0");
        assert_eq!(float(65.0), "65.0");
        assert_eq!(float(1206868.85495743), "1206868.85495743");
        assert_eq!(float(0.000485554), "0.000485554");
        assert_eq!(float(0.00001234), "0.00001234");
        assert_eq!(float(0.000001234), "1.234e-6");
        assert_eq!(float(1e15), "1000000000000000.0");
        assert_eq!(float(1e16), "1e+16");
        assert_eq!(float(1.5e300), "1.5e+300");
        assert_eq!(float(-2.5), "-2.5");
        assert_eq!(float(f64::NAN), "null");
    }

    #[test]
    fn compact_and_pretty_layouts_with_sorted_keys() {
        let v = object([
            ("b", Value::from(vec![1u64, 2])),
            ("a", Value::from("x\"\n\u{1}é")),
            ("c", Value::Array(Vec::new())),
            ("d", object(Vec::<(String, Value)>::new())),
            ("e", Value::from(None::<u32>)),
        ]);
        assert_eq!(
            v.to_string(),
            r#"{"a":"x\"\n\u0001é","b":[1,2],"c":[],"d":{},"e":null}"#
        );
        assert_eq!(
            format!("{v:#}"),
            "{\n  \"a\": \"x\\\"\\n\\u0001é\",\n  \"b\": [\n    1,\n    2\n  ],\n  \"c\": [],\n  \"d\": {},\n  \"e\": null\n}"
        );
    }

    #[test]
    fn a_perft_report_in_json_and_text() {
        let run = PerftRun {
            depth: 2,
            levels: vec![
                PerftLevel {
                    depth: 0,
                    nodes: 1,
                    leaves: 1,
                },
                PerftLevel {
                    depth: 1,
                    nodes: 10,
                    leaves: 9,
                },
            ],
            seconds: 0.5,
        };
        assert_eq!(
            run.json("g", "compiled").to_string(),
            r#"{"backend":"compiled","depth":1,"game":"g","leaves":9,"levels":[{"depth":0,"leaves":1,"nodes":1},{"depth":1,"leaves":9,"nodes":10}],"nodes":10,"nodes_per_sec":20.0,"seconds":0.5}"#
        );
        assert_eq!(
            run.text(),
            "depth  0  nodes              1  leaves              1\n\
             depth  1  nodes             10  leaves              9\n\
             (the tree ends at depth 1)\n\
             20 nodes/s (10 nodes in 0.500 s)\n"
        );
    }

    #[test]
    fn a_run_on_threads_adds_its_per_thread_counts_to_the_report() {
        let report = |playouts, states| McReport {
            seed: 1,
            playouts,
            states,
            joint_moves: states - playouts,
            seconds: 0.5,
            mean_goals: vec![25.0],
            truncated: 0,
        };
        let counts = |playouts, states| crate::McThreadCounts {
            playouts,
            states,
            truncated: 0,
            seconds: 0.5,
        };
        let roles = ["r".to_string()];
        let one = ParallelMcReport {
            combined: report(2, 6),
            threads: vec![counts(2, 6)],
        };
        assert_eq!(
            parallel_mc_json(&one, &roles, "g", "compiled"),
            mc_json(&one.combined, &roles, "g", "compiled")
        );
        assert_eq!(
            parallel_mc_text(&one, &roles),
            mc_text(&one.combined, &roles)
        );
        let two = ParallelMcReport {
            combined: report(5, 15),
            threads: vec![counts(3, 9), counts(2, 6)],
        };
        assert_eq!(
            parallel_mc_json(&two, &roles, "g", "compiled").to_string(),
            r#"{"backend":"compiled","game":"g","joint_moves":10,"mean_goals":{"r":25.0},"per_thread":[{"playouts":3,"seconds":0.5,"states":9,"truncated":0},{"playouts":2,"seconds":0.5,"states":6,"truncated":0}],"playouts":5,"playouts_per_sec":10.0,"seconds":0.5,"seed":1,"states":15,"states_per_sec":30.0,"threads":2,"truncated":0}"#
        );
        assert!(parallel_mc_text(&two, &roles)
            .ends_with("thread 0: 3 playouts, 9 states in 0.500 s\nthread 1: 2 playouts, 6 states in 0.500 s\n"));
    }

    #[test]
    fn budgets_and_deadlines_refuse_what_they_cannot_represent() {
        assert_eq!(
            time_budget(1.5),
            Ok(McBudget::Time(Duration::from_millis(1500)))
        );
        assert!(time_budget(-1.0).is_err());
        assert!(time_budget(f64::INFINITY).is_err());
        assert!(time_budget(1e300).is_err());
        assert!(deadline_after(f64::NAN).is_some());
        assert!(deadline_after(1e300).is_none());
    }
}
