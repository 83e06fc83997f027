//! The compiled backend for Python: the game's crate is generated into the
//! compiled backend's cache (`gdlc::backend::Cache`, so a game built once
//! is not built again), and beside it a crate whose `cdylib` is a Python
//! extension module over the game's `Game`, made of this package's own
//! `game.rs` (carried here as text) and a `#[pymodule]` naming the
//! module. Both build with `cargo build --release` into the cache's target
//! folder; the module's library is then copied under a name of its own
//! content, so a build never overwrites a library some process has loaded.

use gdlc::backend::Cache;
use gdlc::output::{fnv1a64, write_if_changed};
use std::path::{Path, PathBuf};

/// The source of the classes every extension module defines.
const GAME_RS: &str = include_str!("game.rs");

/// The PyO3 requirement of the extension modules: the one this module was
/// built with, so `game.rs` compiles alike in both.
const PYO3: &str = "0.28";

/// A built extension module.
pub struct Built {
    /// The module's name (`PyInit_<module>` is its entry point).
    pub module: String,
    /// Its shared library.
    pub library: PathBuf,
}

/// Generates and builds the extension module of `loaded`, with `python` as
/// PyO3's interpreter.
pub fn build(loaded: &gdlc::Loaded, python: &str) -> Result<Built, String> {
    let cache = Cache::from_env().map_err(|e| e.to_string())?;
    let game = gdlc::ir::limits::catch_limit(|| cache.prepare(loaded, "python"))
        .map_err(|limit| limit.0)?
        .map_err(|e| e.to_string())?;
    let package = &game.package;
    let module = format!("{}_py", package.replace('-', "_"));
    let dir = game.dir.with_file_name(format!("{package}-python"));
    let runtime = gdlc::runtime_copy::runtime_path(None).map_err(|e| e.to_string())?;
    write_module_crate(&dir, package, &module, &runtime, &game.package_profile()?)?;
    game.build_beside(&dir, &[("PYO3_PYTHON", python)])?;
    let built = game
        .release_dir()
        .join(format!("lib{module}{}", std::env::consts::DLL_SUFFIX));
    let bytes = std::fs::read(&built).map_err(|e| format!("`{}`: {e}", built.display()))?;
    let library = dir.join("modules").join(format!(
        "{module}-{:016x}{}",
        fnv1a64(&bytes),
        std::env::consts::DLL_SUFFIX
    ));
    write_if_changed(&library, &bytes).map_err(|e| e.to_string())?;
    Ok(Built { module, library })
}

/// The extension module's crate in `dir`: `game.rs` and a `lib.rs` that
/// exports `new_game` over the game crate `package`, whose own profile
/// lines are `units`.
fn write_module_crate(
    dir: &Path,
    package: &str,
    module: &str,
    runtime: &Path,
    units: &str,
) -> Result<(), String> {
    let runtime = runtime.to_str().ok_or("the runtime's path is not UTF-8")?;
    // The game crate's profile (see gdlc's `output::crate_files`).
    let cargo_toml = format!(
        "[package]\nname = \"{package}-python\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
         [lib]\nname = \"{module}\"\ncrate-type = [\"cdylib\"]\n\n\
         [dependencies]\ngame = {{ package = \"{package}\", path = \"../{package}\" }}\n\
         gdl-runtime = {{ path = {runtime:?}, default-features = false }}\n\
         pyo3 = {{ version = \"{PYO3}\", features = [\"abi3-py39\", \"extension-module\"] }}\n\
         rustc-hash = \"2\"\n\n\
         [profile.release]\ncodegen-units = 1\nlto = false\n{units}\n\
         # Its own workspace, not a member of an enclosing one.\n[workspace]\n"
    );
    let lib_rs = format!(
        "//! The compiled reasoner of one game as a Python extension module.\n\n\
         mod game;\n\n\
         use pyo3::prelude::*;\n\n\
         /// The game of `description` (the text gdlc compiled).\n\
         #[pyfunction]\n\
         fn new_game(description: String) -> game::Game {{\n    \
         game::new_game(std::sync::Arc::new(::game::Game::new), description, \"compiled\")\n}}\n\n\
         /// The module: the classes and `new_game`.\n\
         #[pymodule]\n\
         fn {module}(m: &Bound<'_, PyModule>) -> PyResult<()> {{\n    \
         game::add_classes(m)?;\n    \
         m.add_function(wrap_pyfunction!(new_game, m)?)\n}}\n"
    );
    for (file, content) in [
        ("Cargo.toml", cargo_toml.as_str()),
        ("src/lib.rs", lib_rs.as_str()),
        ("src/game.rs", GAME_RS),
    ] {
        write_if_changed(&dir.join(file), content.as_bytes()).map_err(|e| e.to_string())?;
    }
    Ok(())
}
