//! The outputs of the gdl-perf engine protocol (the cross-engine benchmark
//! of GDL reasoners, github.com/AlexLandau/gdl-perf): an engine is a command
//! called with a game file, an output file and a number, and answers in the
//! output file.
//!
//! - A performance test (the number is seconds) writes `key = value` lines:
//!   `version`, `millisecondsTaken`, `numStateChanges` (joint moves
//!   applied), `numRollouts` (playouts completed), or `version` and
//!   `errorMessage` on failure ([`performance_result`], [`error_result`]).
//! - A correctness test (the number is state changes) writes the record
//!   that gdl-perf replays on its reference reasoner
//!   ([`correctness_record`]): `!R!` and the roles, then per state `!T!false`,
//!   one `!L!` line of legal moves per role and the `!C!` joint move, per
//!   finished game `!T!true` and the `!G!` goals, ending with `!F!`; an error
//!   is `!E!message` then `!F!`. Lists are separated by commas.
//!
//! Values are written on one line without `;` (gdl-perf stores them in
//! `;`-separated files, and escapes its own messages the same way).

use crate::drivers::{pick, sorted_by_text};
use crate::{McReport, Reasoner};
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::io::{self, Write};

/// Joint moves after which a game of the correctness record counts as
/// endless (an error), so that a game without a reachable terminal state
/// ends the record instead of writing forever.
pub const RECORD_MAX_LENGTH: u64 = 1_000_000;

/// The result file of a performance test from a one-thread flat
/// Monte-Carlo run: every completed playout counts as a rollout and every
/// joint move played as a state change (those of a playout the deadline cut
/// short too: their work was done).
pub fn performance_result(version: &str, report: &McReport) -> String {
    format!(
        "version = {}\nmillisecondsTaken = {}\nnumStateChanges = {}\nnumRollouts = {}\n",
        one_line(version),
        (report.seconds * 1000.0).round() as u64,
        report.joint_moves,
        report.playouts
    )
}

/// The result file of a test that failed with `message`.
pub fn error_result(version: &str, message: &str) -> String {
    format!(
        "version = {}\nerrorMessage = {}\n",
        one_line(version),
        one_line(message)
    )
}

/// `message` on one line without `;`: line breaks become `<br/>` (as
/// gdl-perf writes its own stack traces) and `;` becomes `:`.
pub fn one_line(message: &str) -> String {
    message
        .trim_end()
        .replace("\r\n", "\n")
        .replace(['\r', '\n'], "<br/>")
        .replace(';', ":")
}

/// The end of a correctness record written with `!E!` and `!F!`.
pub fn error_record(message: &str) -> String {
    format!("!E!{}\n!F!\n", one_line(message))
}

/// Writes the correctness record of random games to `out`: games from the
/// initial state, each role's move drawn uniformly from its legal moves
/// sorted by text (xoshiro256++ seeded with `seed`, so every reasoner of a
/// game writes the same record), until a game ends with more than
/// `state_changes` joint moves played in all; `!F!` right after `!T!true`
/// when the initial state is terminal. Returns the error written as `!E!`,
/// if there was one.
pub fn correctness_record<R: Reasoner>(
    r: &mut R,
    state_changes: u64,
    seed: u64,
    out: &mut dyn Write,
) -> io::Result<Option<String>> {
    let roles = r.roles().to_vec();
    write_list(out, "R", &roles)?;
    let initial = r.initial_state();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut moves, mut joint) = (Vec::new(), Vec::new());
    let mut chosen: Vec<String> = Vec::with_capacity(roles.len());
    let mut played = 0u64;
    if r.is_terminal(&initial) {
        writeln!(out, "!T!true\n!F!")?;
        return Ok(None);
    }
    loop {
        let mut state = initial.clone();
        let mut length = 0u64;
        while !r.is_terminal(&state) {
            if length == RECORD_MAX_LENGTH {
                let message = format!("no terminal state after {RECORD_MAX_LENGTH} joint moves");
                return fail(out, message);
            }
            writeln!(out, "!T!false")?;
            joint.clear();
            chosen.clear();
            for (role, name) in roles.iter().enumerate() {
                r.legal_moves(&state, role, &mut moves);
                if moves.is_empty() {
                    let message =
                        format!("role `{name}` has no legal move in a non-terminal state");
                    return fail(out, message);
                }
                let texts = moves.iter().map(|&m| r.move_text(role, m)).collect();
                let i = write_sorted_and_pick(out, texts, &mut rng, &mut chosen)?;
                joint.push(moves[i]);
            }
            write_list(out, "C", &chosen)?;
            state = r.next_state(&state, &joint);
            length += 1;
            played += 1;
        }
        writeln!(out, "!T!true")?;
        let mut goals = Vec::with_capacity(roles.len());
        for (role, name) in roles.iter().enumerate() {
            match r.goal(&state, role) {
                Some(goal) => goals.push(goal.to_string()),
                None => {
                    let message =
                        format!("role `{name}` has no single goal value in a terminal state");
                    return fail(out, message);
                }
            }
        }
        write_list(out, "G", &goals)?;
        if played > state_changes {
            writeln!(out, "!F!")?;
            return Ok(None);
        }
    }
}

/// Writes the line `!tag!` and `items` separated by commas. (The text
/// work of the record is done here and in [`write_sorted_and_pick`], not
/// in the generic [`correctness_record`]: compiled once, not per game.)
fn write_list(out: &mut dyn Write, tag: &str, items: &[String]) -> io::Result<()> {
    writeln!(out, "!{tag}!{}", items.join(","))
}

/// Writes the `!L!` line of a role's legal moves `texts`, sorted by text,
/// draws one of them (in that order) with `rng`, appends its text to
/// `chosen` and returns its index in `texts` as given.
fn write_sorted_and_pick(
    out: &mut dyn Write,
    texts: Vec<String>,
    rng: &mut Xoshiro256PlusPlus,
    chosen: &mut Vec<String>,
) -> io::Result<usize> {
    let (sorted, order) = sorted_by_text(texts);
    write_list(out, "L", &sorted)?;
    let k = pick(rng, sorted.len());
    chosen.push(sorted[k].clone());
    Ok(order[k])
}

/// Ends a record with the error `message`.
fn fail(out: &mut dyn Write, message: String) -> io::Result<Option<String>> {
    out.write_all(error_record(&message).as_bytes())?;
    Ok(Some(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_stay_on_one_line_without_semicolons() {
        assert_eq!(one_line("a;b\nc\r\nd\n"), "a:b<br/>c<br/>d");
        assert_eq!(
            error_result("gdlc 1", "bad;\nfile"),
            "version = gdlc 1\nerrorMessage = bad:<br/>file\n"
        );
        assert_eq!(error_record("x\ny"), "!E!x<br/>y\n!F!\n");
    }

    #[test]
    fn a_performance_result_counts_joint_moves_not_states() {
        let report = McReport {
            seed: 0,
            playouts: 3,
            states: 30,
            joint_moves: 27,
            seconds: 1.2346,
            mean_goals: vec![50.0],
            truncated: 0,
        };
        assert_eq!(
            performance_result("v", &report),
            "version = v\nmillisecondsTaken = 1235\nnumStateChanges = 27\nnumRollouts = 3\n"
        );
    }
}
