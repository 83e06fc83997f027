//! The reports of the drivers, as text and as JSON, written once for every
//! backend: `gdlc` and every binary it generates print through this module,
//! so their outputs agree byte for byte.
//!
//! The JSON is what `serde_json` would print for the same values (keys
//! sorted, floats in the shortest form that reads back exactly), written by
//! hand so that the runtime needs no serialization crate.

use crate::{
    deterministic_playout, perft, perft_with, DriverError, McBudget, McReport, PerftLevel, Playout,
    Reasoner,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// Steps after which a deterministic playout of the trace stops.
pub const PLAYOUT_STEPS: usize = 300;

/// The seeds of the trace's two deterministic playouts.
pub const PLAYOUT_SEEDS: [u64; 2] = [0, 1];

/// Joint moves after which a flat Monte-Carlo playout is cut short.
pub const MC_MAX_LENGTH: u64 = 1_000_000;

/// A JSON value, as much of JSON as the reports need.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A natural number.
    Int(u64),
    /// A floating-point number (`null` when not finite).
    Float(f64),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<Json>),
    /// An object; its keys are written in sorted order.
    Object(BTreeMap<String, Json>),
}

impl From<bool> for Json {
    fn from(b: bool) -> Self {
        Json::Bool(b)
    }
}

impl From<u64> for Json {
    fn from(n: u64) -> Self {
        Json::Int(n)
    }
}

impl From<u32> for Json {
    fn from(n: u32) -> Self {
        Json::Int(n.into())
    }
}

impl From<usize> for Json {
    fn from(n: usize) -> Self {
        Json::Int(n as u64)
    }
}

impl From<f64> for Json {
    fn from(x: f64) -> Self {
        Json::Float(x)
    }
}

impl From<&str> for Json {
    fn from(s: &str) -> Self {
        Json::Str(s.to_string())
    }
}

impl From<String> for Json {
    fn from(s: String) -> Self {
        Json::Str(s)
    }
}

impl<T: Into<Json>> From<Option<T>> for Json {
    fn from(v: Option<T>) -> Self {
        v.map_or(Json::Null, Into::into)
    }
}

impl<T: Into<Json>> From<Vec<T>> for Json {
    fn from(items: Vec<T>) -> Self {
        Json::Array(items.into_iter().map(Into::into).collect())
    }
}

impl Json {
    /// An object from key–value pairs.
    pub fn object<K: Into<String>, V: Into<Json>>(pairs: impl IntoIterator<Item = (K, V)>) -> Json {
        Json::Object(
            pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }

    /// The value on one line, without spaces (`serde_json::to_string`).
    pub fn compact(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, None);
        out
    }

    /// The value indented by two spaces (`serde_json::to_string_pretty`).
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, Some(0));
        out
    }

    /// Writes the value; `indent` is the nesting level when pretty.
    fn write(&self, out: &mut String, indent: Option<usize>) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Json::Float(x) => write_float(out, *x),
            Json::Str(s) => write_string(out, s),
            Json::Array(items) => {
                write_sequence(out, indent, ('[', ']'), items.iter(), |out, item, inner| {
                    item.write(out, inner)
                })
            }
            Json::Object(fields) => write_sequence(
                out,
                indent,
                ('{', '}'),
                fields.iter(),
                |out, (key, value), inner| {
                    write_string(out, key);
                    out.push_str(if inner.is_some() { ": " } else { ":" });
                    value.write(out, inner);
                },
            ),
        }
    }
}

/// Writes the elements of an array or object between `brackets`, one per
/// line when pretty.
fn write_sequence<T>(
    out: &mut String,
    indent: Option<usize>,
    brackets: (char, char),
    items: impl ExactSizeIterator<Item = T>,
    mut write_item: impl FnMut(&mut String, T, Option<usize>),
) {
    out.push(brackets.0);
    let empty = items.len() == 0;
    let inner = indent.map(|i| i + 1);
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if let Some(level) = inner {
            out.push('\n');
            out.push_str(&"  ".repeat(level));
        }
        write_item(out, item, inner);
    }
    if let (Some(level), false) = (indent, empty) {
        out.push('\n');
        out.push_str(&"  ".repeat(level));
    }
    out.push(brackets.1);
}

/// A JSON string literal: `"` and `\` escaped, control characters as
/// `\n`-style or `\u00xx` escapes, everything else as it is.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A float as serde_json prints it: the shortest digits that read back
/// exactly, in positional notation when the decimal exponent is in
/// `-5..=15` (always with a fraction, `3.0`), otherwise as `1.5e+16`;
/// `null` when not finite.
fn write_float(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push_str("null");
        return;
    }
    if x.is_sign_negative() {
        out.push('-');
    }
    if x == 0.0 {
        out.push_str("0.0");
        return;
    }
    // `{:e}` gives the shortest round-trip digits: `1.2345e-7`, `5e2`.
    let scientific = format!("{:e}", x.abs());
    let (mantissa, exponent) = scientific
        .split_once('e')
        .unwrap_or((scientific.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|&c| c != '.').collect();
    let length = digits.len() as i32;
    if (-5..=15).contains(&exponent) {
        if length - 1 <= exponent {
            out.push_str(&digits);
            out.push_str(&"0".repeat((exponent + 1 - length) as usize));
            out.push_str(".0");
        } else if exponent >= 0 {
            let point = (exponent + 1) as usize;
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        } else {
            out.push_str("0.");
            out.push_str(&"0".repeat((-exponent - 1) as usize));
            out.push_str(&digits);
        }
    } else {
        out.push_str(&digits[..1]);
        if length > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exponent >= 0 { '+' } else { '-' };
        let _ = write!(out, "e{sign}{}", exponent.unsigned_abs());
    }
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
pub fn timed_perft<R: Reasoner>(r: &mut R, depth: u32) -> Result<PerftRun, DriverError> {
    let start = Instant::now();
    let mut levels = perft(r, depth)?;
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
pub fn deepening_perft<R: Reasoner>(
    r: &mut R,
    max_depth: u32,
    seconds: f64,
) -> Result<PerftRun, DriverError> {
    let deadline = deadline_after(seconds);
    // Each pass starts when the one before it ends.
    let mut finished = vec![Instant::now()];
    let levels = perft_with(r, max_depth, deadline, &mut |_| {
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
    pub fn json(&self, game: &str, backend: &str) -> Json {
        let last = self.last();
        Json::object([
            ("game", Json::from(game)),
            ("backend", backend.into()),
            ("depth", last.depth.into()),
            ("nodes", last.nodes.into()),
            ("leaves", last.leaves.into()),
            (
                "levels",
                Json::Array(self.levels.iter().map(level_json).collect()),
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
pub fn mc_json(report: &McReport, roles: &[String], game: &str, backend: &str) -> Json {
    let goals = roles
        .iter()
        .enumerate()
        .map(|(i, role)| (role.clone(), Json::from(mean_goal(report, i))));
    Json::object([
        ("game", Json::from(game)),
        ("backend", backend.into()),
        ("seed", report.seed.into()),
        ("playouts", report.playouts.into()),
        ("states", report.states.into()),
        ("seconds", report.seconds.into()),
        ("playouts_per_sec", report.playouts_per_sec().into()),
        ("states_per_sec", report.states_per_sec().into()),
        ("mean_goals", Json::object(goals)),
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

fn mean_goal(report: &McReport, role: usize) -> f64 {
    report.mean_goals.get(role).copied().unwrap_or(0.0)
}

/// The conformance trace of `game`, in the schema of the oracle files:
/// `game`, `roles`, `init`, `init_terminal`, `perft` (by iterative
/// deepening to `depth`, stopping at `deadline`) and `playouts` (the two
/// deterministic playouts of at most `max_steps` steps).
pub fn trace<R: Reasoner>(
    r: &mut R,
    game: &str,
    depth: u32,
    deadline: Option<Instant>,
    max_steps: usize,
) -> Result<Json, DriverError> {
    let roles = r.roles().to_vec();
    let initial = r.initial_state();
    let init = r.fluents(&initial);
    let init_terminal = r.is_terminal(&initial);
    let levels = perft_with(r, depth, deadline, &mut |_| {})?;
    let playouts = PLAYOUT_SEEDS
        .iter()
        .map(|&seed| deterministic_playout(r, seed, max_steps).map(|p| playout_json(&p, &roles)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Json::object([
        ("game", Json::from(game)),
        ("roles", roles.into()),
        ("init", init.into()),
        ("init_terminal", init_terminal.into()),
        (
            "perft",
            Json::Array(levels.iter().map(level_json).collect()),
        ),
        ("playouts", Json::Array(playouts)),
    ]))
}

/// One perft level as `{depth, nodes, leaves}`.
pub fn level_json(level: &PerftLevel) -> Json {
    Json::object([
        ("depth", Json::from(level.depth)),
        ("nodes", level.nodes.into()),
        ("leaves", level.leaves.into()),
    ])
}

/// A playout in the oracle's schema: `seed`, `steps` (each with `legal` and
/// `joint` by role name, and `state`), then `terminal_step` and `goals` by
/// role name, or `truncated: true`.
pub fn playout_json(p: &Playout, roles: &[String]) -> Json {
    let by_role = |values: Vec<Json>| Json::object(roles.iter().cloned().zip(values));
    let steps = p
        .steps
        .iter()
        .map(|s| {
            Json::object([
                (
                    "legal",
                    by_role(s.legal.iter().map(|m| m.clone().into()).collect()),
                ),
                (
                    "joint",
                    by_role(s.joint.iter().map(|m| m.as_str().into()).collect()),
                ),
                ("state", s.state.clone().into()),
            ])
        })
        .collect();
    match p.terminal_step {
        Some(t) => Json::object([
            ("seed", Json::from(p.seed)),
            ("steps", Json::Array(steps)),
            ("terminal_step", t.into()),
            (
                "goals",
                by_role(p.goals.iter().map(|&g| g.into()).collect()),
            ),
        ]),
        None => Json::object([
            ("seed", Json::from(p.seed)),
            ("steps", Json::Array(steps)),
            ("truncated", true.into()),
        ]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float(x: f64) -> String {
        Json::Float(x).compact()
    }

    #[test]
    fn floats_are_written_like_serde_json() {
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
    fn compact_and_pretty_layouts() {
        let v = Json::object([
            ("b", Json::from(vec![1u64, 2])),
            ("a", Json::from("x\"\n\u{1}é")),
            ("c", Json::Array(Vec::new())),
            ("d", Json::object(Vec::<(String, Json)>::new())),
            ("e", Json::from(None::<u32>)),
        ]);
        assert_eq!(
            v.compact(),
            r#"{"a":"x\"\n\u0001é","b":[1,2],"c":[],"d":{},"e":null}"#
        );
        assert_eq!(
            v.pretty(),
            "{\n  \"a\": \"x\\\"\\n\\u0001é\",\n  \"b\": [\n    1,\n    2\n  ],\n  \"c\": [],\n  \"d\": {},\n  \"e\": null\n}"
        );
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
