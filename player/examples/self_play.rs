//! Self-play that measures proven values (MCTS-Solver) on their own: in
//! each match one role searches with them and the others without, every
//! tree given the same number of iterations per move, refereed by gdlc's
//! interpreter; the solver's role goes round the roles match by match.
//!
//! `self_play GAME.kif [--iterations N] [--matches N] [--seed N]
//! [--baseline]` prints each match's goals, then the solver side's mean
//! goal and its wins, draws and losses (a win: a goal above every other
//! role's), and the seconds taken; with `--baseline` no side proves values
//! (the same matches without the technique: the noise, and the time).

use gdl_runtime::Reasoner;
use gdlc::interp::Interpreter;
use gdlc_player::search::Tree;
use std::process::ExitCode;

/// Nodes of one tree at most.
const MAX_NODES: usize = 1_000_000;

struct Options {
    game: String,
    iterations: u64,
    matches: u64,
    seed: u64,
    baseline: bool,
}

fn options() -> Result<Options, lexopt::Error> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_env();
    let (mut game, mut iterations, mut matches, mut seed) = (None, 1000, 20, 1);
    let mut baseline = false;
    while let Some(arg) = parser.next()? {
        match arg {
            Long("iterations") => iterations = parser.value()?.parse()?,
            Long("matches") => matches = parser.value()?.parse()?,
            Long("seed") => seed = parser.value()?.parse()?,
            Long("baseline") => baseline = true,
            Value(v) if game.is_none() => game = Some(v.string()?),
            _ => return Err(arg.unexpected()),
        }
    }
    let usage = "usage: self_play GAME.kif [--iterations N] [--matches N] [--seed N] [--baseline]";
    Ok(Options {
        game: game.ok_or(usage)?,
        iterations,
        matches,
        seed,
        baseline,
    })
}

/// Plays one match; the goals of each role.
fn play(r: &mut Interpreter, solver_role: usize, o: &Options, seed: u64) -> Vec<u32> {
    let roles = r.roles().len();
    let mut state = r.initial_state();
    let mut moves = Vec::new();
    while !r.is_terminal(&state) {
        let mut joint = Vec::with_capacity(roles);
        for role in 0..roles {
            r.legal_moves(&state, role, &mut moves);
            if moves.len() == 1 {
                joint.push(moves[0]);
                continue;
            }
            let tree = Tree::new(r, state.clone(), MAX_NODES, seed ^ role as u64);
            let mut tree = if role == solver_role && !o.baseline {
                tree
            } else {
                tree.without_solver()
            };
            for _ in 0..o.iterations {
                tree.iterate(r);
            }
            let best = tree
                .root_moves(role)
                .into_iter()
                .max_by_key(|(_, s)| s.visits);
            joint.push(best.map_or(moves[0], |(m, _)| m));
        }
        state = r.next_state(&state, &joint);
    }
    (0..roles)
        .map(|role| r.goal(&state, role).unwrap_or(0))
        .collect()
}

fn main() -> ExitCode {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("self_play: {e}");
            return ExitCode::from(2);
        }
    };
    let loaded = match gdlc::load_path(std::path::Path::new(&o.game)) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let mut r = Interpreter::new(&loaded);
    let roles = r.roles().len();
    let (mut total, mut record) = (0u64, [0u32; 3]);
    let start = std::time::Instant::now();
    for k in 0..o.matches {
        let solver_role = (k % roles as u64) as usize;
        let goals = play(&mut r, solver_role, &o, o.seed.wrapping_add(k));
        let own = goals[solver_role];
        let best_other = (0..roles)
            .filter(|&i| i != solver_role)
            .map(|i| goals[i])
            .max();
        let outcome = match best_other.map(|b| own.cmp(&b)) {
            Some(std::cmp::Ordering::Greater) | None => 0,
            Some(std::cmp::Ordering::Equal) => 1,
            Some(std::cmp::Ordering::Less) => 2,
        };
        record[outcome] += 1;
        total += u64::from(own);
        println!(
            "match {}: solver as {}: goals {goals:?}",
            k + 1,
            r.roles()[solver_role]
        );
    }
    println!(
        "{}{}: solver side mean goal {:.1} over {} matches ({} iterations a move): {} wins, {} draws, {} losses; {:.1} s",
        o.game,
        if o.baseline { " (baseline: no solver)" } else { "" },
        total as f64 / o.matches.max(1) as f64,
        o.matches,
        o.iterations,
        record[0],
        record[1],
        record[2],
        start.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
