//! Match-time compilation: the description is compiled into a crate of the
//! compiled backend's cache (`gdlc::backend::Cache`, so a game seen before
//! is built already), and beside it a search-worker crate that depends on
//! that crate and on this library by path; `cargo build --release` makes
//! the worker binary that [`crate::remote::Remote`] runs.

use gdlc::backend::Cache;
use gdlc::output::write_if_changed;
use std::path::{Path, PathBuf};

/// Compiles `description`, writes and builds its search worker in `cache`;
/// returns the worker binary.
pub fn build_worker(cache: &Cache, description: &str) -> Result<PathBuf, String> {
    let loaded = gdlc::load_bytes("match".into(), description.as_bytes().to_vec())
        .map_err(|e| e.to_string())?;
    let game = gdlc::ir::limits::catch_limit(|| cache.prepare(&loaded, "match"))
        .map_err(|limit| limit.0)?
        .map_err(|e| e.to_string())?;
    let package = &game.package;
    let worker = game.dir.with_file_name(format!("{package}-player"));
    write_worker(&worker, package, &game.package_profile()?)?;
    game.build_beside(&worker, &[])?;
    let binary = game
        .release_dir()
        .join(format!("{package}-player{}", std::env::consts::EXE_SUFFIX));
    if binary.is_file() {
        Ok(binary)
    } else {
        Err(format!("cargo made no `{}`", binary.display()))
    }
}

/// The smallest game: building its worker builds everything a worker of
/// any game shares (the runtime, this library, their dependencies).
const WARM_UP_GAME: &str = "(role player) (init (step 0)) (legal player finish) \
     (<= (next (step 1)) (true (step 0))) (<= terminal (true (step 1))) (goal player 100)";

/// Builds the search worker of [`WARM_UP_GAME`] in `cache`, so that the
/// first game played waits only for the crates of its own; returns the
/// seconds it took.
pub fn warm_up(cache: &Cache) -> Result<f64, String> {
    let started = std::time::Instant::now();
    build_worker(cache, WARM_UP_GAME)?;
    Ok(started.elapsed().as_secs_f64())
}

/// The worker crate: its `main` is [`crate::remote::worker_main`] over the
/// game crate's `Game`, whose own profile lines are `units`.
fn write_worker(dir: &Path, package: &str, units: &str) -> Result<(), String> {
    let player = Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .map_err(|e| format!("the player's source folder: {e}"))?;
    let player = player
        .to_str()
        .ok_or("the player's source path is not UTF-8")?;
    // The game crate's profile (see gdlc's `output::crate_files`).
    let cargo_toml = format!(
        "[package]\nname = \"{package}-player\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\ngame = {{ package = \"{package}\", path = \"../{package}\" }}\n\
         gdlc-player = {{ path = {player:?}, default-features = false }}\n\n\
         [profile.release]\ncodegen-units = 1\nlto = false\n{units}\n\
         # Its own workspace, not a member of an enclosing one.\n[workspace]\n"
    );
    let main_rs = "//! A search worker of gdlc-player over the compiled reasoner of one game.\n\n\
                   fn main() -> std::process::ExitCode {\n    \
                   gdlc_player::remote::worker_main(game::Game::new)\n}\n";
    for (file, content) in [
        ("Cargo.toml", cargo_toml.as_str()),
        ("src/main.rs", main_rs),
    ] {
        write_if_changed(&dir.join(file), content.as_bytes()).map_err(|e| e.to_string())?;
    }
    Ok(())
}
