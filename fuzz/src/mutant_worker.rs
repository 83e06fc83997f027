//! The child process that runs mutants, so that a hang, an abort or an
//! out-of-memory kill ends the child, not the fuzzer.
//!
//! Protocol on stdin/stdout: the parent writes a mutant as its length on a
//! line then its bytes; the child answers one line, `accepted`,
//! `rejected`, `limit <message>` (the interpreter stopped at its resource
//! limits, a clear error) or `bug <message>` (a panic, or a rejection
//! without an error diagnostic).

use crate::differential::panic_message;
use gdl_runtime::Reasoner;
use gdlc::interp::{catch_limit, Interpreter};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::io::{BufRead, Read, Write};
use std::sync::Mutex;

/// Steps of the random playout an accepted mutant is run for.
const PLAYOUT_STEPS: usize = 10;

/// Where the panic hook leaves the last panic's message and location.
static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

/// Serves mutants from stdin until it closes.
pub fn serve() -> std::io::Result<()> {
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = info.to_string();
        }
    }));
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut stdout = std::io::stdout().lock();
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let len: usize = line.trim().parse().map_err(std::io::Error::other)?;
        let mut bytes = vec![0; len];
        input.read_exact(&mut bytes)?;
        let answer = run_mutant(bytes).replace('\n', " ");
        writeln!(stdout, "{answer}")?;
        stdout.flush()?;
    }
}

/// Checks a mutant and, when it is accepted, runs it; the answer line.
pub fn run_mutant(bytes: Vec<u8>) -> String {
    let run = std::panic::catch_unwind(|| check_and_run(bytes));
    match run {
        Ok(answer) => answer,
        Err(payload) => {
            let at = LAST_PANIC.lock().map(|l| l.clone()).unwrap_or_default();
            let at = if at.is_empty() {
                panic_message(&*payload)
            } else {
                at
            };
            format!("bug panic: {at}")
        }
    }
}

fn check_and_run(bytes: Vec<u8>) -> String {
    let loaded = match gdlc::load_bytes("mutant.kif".to_string(), bytes) {
        Ok(loaded) => loaded,
        Err(gdlc::Error::Invalid { file, diagnostics }) => {
            if !diagnostics.iter().any(|d| d.is_error()) {
                return "bug rejected without an error diagnostic".to_string();
            }
            let shown = file.render(&diagnostics);
            if shown.trim().is_empty() {
                return "bug a rejection rendered as empty text".to_string();
            }
            return "rejected".to_string();
        }
        Err(e) => return format!("bug unexpected error: {e}"),
    };
    let _ = loaded.file.render(&loaded.analysis.diagnostics);
    match catch_limit(|| play(&loaded)) {
        Ok(()) => "accepted".to_string(),
        Err(limit) => format!("limit {}", limit.0),
    }
}

/// The initial state, every role's legal moves and a short random playout
/// with the goals where it ends.
fn play(loaded: &gdlc::Loaded) {
    let mut r = Interpreter::new(loaded);
    let mut rng = StdRng::seed_from_u64(0);
    let mut state = r.initial_state();
    let roles = r.roles().len();
    for _ in 0..PLAYOUT_STEPS {
        if r.is_terminal(&state) {
            break;
        }
        let mut joint = Vec::with_capacity(roles);
        let mut moves = Vec::new();
        for role in 0..roles {
            moves.clear();
            r.legal_moves(&state, role, &mut moves);
            if moves.is_empty() {
                return;
            }
            joint.push(moves[rng.random_range(0..moves.len())]);
        }
        state = r.next_state(&state, &joint);
        let _ = r.fluents(&state);
    }
    for role in 0..roles {
        let _ = r.goal(&state, role);
    }
}
