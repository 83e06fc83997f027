//! Self-play that measures one search technique on its own
//! ([`gdlc_player::selfplay`]): `self_play GAME.kif [--technique T]
//! [--iterations N | --millis N] [--matches N] [--seed N] [--baseline] [--on T]...
//! [--compiled]`.
//! With `--compiled` the game is compiled into the backend's cache
//! (`$GDLC_CACHE_DIR`, as the player does at START) and the matches are
//! played by its search worker on the compiled reasoner; otherwise by
//! gdlc's interpreter.

use gdlc::interp::Interpreter;
use gdlc_player::selfplay::SelfPlay;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let usage =
        "usage: self_play GAME.kif [--technique T] [--iterations N] [--millis N] [--matches N] \
                 [--seed N] [--baseline] [--on T]... [--compiled]";
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let compiled = args.iter().any(|a| a == "--compiled");
    args.retain(|a| a != "--compiled");
    if args.is_empty() || args[0].starts_with('-') {
        eprintln!("{usage}");
        return ExitCode::from(2);
    }
    let game = args.remove(0);
    let measure = match SelfPlay::parse(args.iter().cloned()) {
        Ok(measure) => measure,
        Err(e) => {
            eprintln!("self_play: {e}\n{usage}");
            return ExitCode::from(2);
        }
    };
    if compiled {
        return on_compiled(&game, &args);
    }
    match gdlc::load_path(std::path::Path::new(&game)) {
        Ok(loaded) => {
            measure.run(&mut Interpreter::new(&loaded));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// Builds the game's search worker and runs `self-play args` in it.
fn on_compiled(game: &str, args: &[String]) -> ExitCode {
    let built = std::fs::read_to_string(game)
        .map_err(|e| format!("{game}: {e}"))
        .and_then(|text| {
            let cache = gdlc::backend::Cache::from_env().map_err(|e| e.to_string())?;
            gdlc_player::compile::build_worker(&cache, &text)
        });
    let worker = match built {
        Ok(worker) => worker,
        Err(e) => {
            eprintln!("self_play: {e}");
            return ExitCode::FAILURE;
        }
    };
    match Command::new(&worker).arg("self-play").args(args).status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("self_play: cannot run `{}`: {e}", worker.display());
            ExitCode::FAILURE
        }
    }
}
