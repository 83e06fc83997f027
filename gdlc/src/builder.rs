//! Compiling a game from a build script, in the style of `prost-build`:
//!
//! ```no_run
//! // in build.rs's `main`:
//! gdlc::Builder::new()
//!     .game("games/tictactoe.kif")
//!     .module_name("tictactoe")
//!     .compile()
//!     .unwrap();
//! ```
//!
//! and in the crate, `gdl_runtime::include_reasoner!(tictactoe);` makes the
//! module `tictactoe` with its `Game`. The crate depends on `gdl-runtime`;
//! the build script on `gdlc` with `default-features = false` (no command
//! line).

use crate::compile::Strategy;
use crate::output::{is_module_name, module_source, package_name, write_if_changed, Error};
use std::path::{Path, PathBuf};

/// Compiles one game description into `$OUT_DIR/<module>.rs`.
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct Builder {
    game: Option<PathBuf>,
    module_name: Option<String>,
    out_dir: Option<PathBuf>,
    strategy: Strategy,
}

impl Builder {
    /// A builder with nothing set.
    pub fn new() -> Self {
        Builder::default()
    }

    /// The description to compile (a relative path is relative to the
    /// current folder, the package's in a build script).
    pub fn game(mut self, path: impl AsRef<Path>) -> Self {
        self.game = Some(path.as_ref().to_path_buf());
        self
    }

    /// The module name, and so the file `<name>.rs` (default: the game's
    /// file stem, made a valid name as in [`package_name`]).
    pub fn module_name(mut self, name: impl Into<String>) -> Self {
        self.module_name = Some(name.into());
        self
    }

    /// How the generated code evaluates the rules (default:
    /// [`Strategy::Auto`]).
    pub fn strategy(mut self, strategy: Strategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// The folder to write to (default: `$OUT_DIR`).
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Compiles the game and writes the module (only if its content
    /// changed); returns the path written. Tells cargo to rerun the build
    /// script when the description changes, and shows the description's
    /// warnings as cargo warnings. Fails with the rendered diagnostics for
    /// an invalid description.
    pub fn compile(&self) -> Result<PathBuf, Error> {
        let game = self.game.as_deref().ok_or_else(|| {
            Error::Setup("no game description given: call `Builder::game`".into())
        })?;
        let module = match &self.module_name {
            Some(name) if is_module_name(name) => name.clone(),
            Some(name) => {
                return Err(Error::Setup(format!(
                    "`{name}` cannot be a module name: use letters, digits and `_`, not starting with a digit, and no keyword"
                )))
            }
            None => package_name(&game.file_stem().unwrap_or_default().to_string_lossy()),
        };
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    Error::Setup(
                        "OUT_DIR is not set: call `Builder::out_dir`, or run from a build script"
                            .into(),
                    )
                })?,
        };
        println!("cargo:rerun-if-changed={}", game.display());
        let loaded = crate::load_path(game)?;
        for d in &loaded.analysis.diagnostics {
            let at = d.primary.as_ref().map_or_else(String::new, |(span, _)| {
                let (line, column) = loaded.file.line_column(span.start);
                format!(":{line}:{column}")
            });
            println!(
                "cargo:warning={}{at}: warning[{}]: {}",
                loaded.file.name, d.code, d.message
            );
        }
        let path = out_dir.join(format!("{module}.rs"));
        let data_file = format!("{module}.tables.bin");
        let generated = module_source(&loaded, self.strategy, &data_file)?;
        write_if_changed(&path, generated.code.as_bytes())?;
        if !generated.data.is_empty() {
            write_if_changed(&out_dir.join(data_file), &generated.data)?;
        }
        Ok(path)
    }
}

/// Compiles the description at `path` into `$OUT_DIR/<stem>.rs` (see
/// [`Builder`]), to be included with `gdl_runtime::include_reasoner!(<stem>)`.
pub fn compile_game(path: impl AsRef<Path>) -> Result<PathBuf, Error> {
    Builder::new().game(path).compile()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_checked_before_anything_is_read() {
        let message = |b: Builder| b.compile().unwrap_err().to_string();
        assert!(message(Builder::new()).contains("no game description"));
        let b = Builder::new().game("x.kif").module_name("fn");
        assert!(message(b).contains("`fn` cannot be a module name"));
    }

    #[test]
    fn a_module_is_written_once_with_its_header() {
        let dir = tempfile::tempdir().unwrap();
        let game = Path::new(env!("CARGO_MANIFEST_DIR")).join("../games/tictactoe.kif");
        let path = Builder::new()
            .game(&game)
            .out_dir(dir.path())
            .compile()
            .unwrap();
        assert_eq!(path, dir.path().join("tictactoe.rs"));
        let code = std::fs::read_to_string(&path).unwrap();
        assert!(code.starts_with("// @generated by gdlc "), "{code}");
        assert!(code.contains("pub struct Game"));
        let written = std::fs::metadata(&path).unwrap().modified().unwrap();
        Builder::new()
            .game(&game)
            .out_dir(dir.path())
            .compile()
            .unwrap();
        let again = std::fs::metadata(&path).unwrap().modified().unwrap();
        assert_eq!(written, again, "an unchanged module is not rewritten");
    }

    #[test]
    fn a_large_module_includes_its_tables_from_a_file_beside_it() {
        // 20 001 counter fluents: their texts, ids and Zobrist keys are
        // over a megabyte of source as arrays.
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::from(
            "(role a) (init (count 0)) (legal a tick)
             (<= (next (count ?y)) (true (count ?x)) (succ ?x ?y))
             (<= terminal (true (count 20000))) (goal a 100)",
        );
        for i in 0..20_000 {
            text += &format!(" (succ {i} {})", i + 1);
        }
        let game = dir.path().join("counter.kif");
        std::fs::write(&game, text).unwrap();
        let path = Builder::new()
            .game(&game)
            .out_dir(dir.path())
            .compile()
            .unwrap();
        let code = std::fs::read_to_string(&path).unwrap();
        assert!(code.len() < 1 << 20, "{} bytes", code.len());
        assert!(code.contains("include_bytes!(\"counter.tables.bin\")"));
        let data = std::fs::read(dir.path().join("counter.tables.bin")).unwrap();
        // At least the 20 001 keys of 8 bytes.
        assert!(data.len() > 20_001 * 8, "{} bytes", data.len());
    }

    #[test]
    fn invalid_descriptions_fail_with_their_diagnostics() {
        let dir = tempfile::tempdir().unwrap();
        let game = dir.path().join("bad.kif");
        std::fs::write(&game, "(role a)\n(<= p (r ?x) (not (s ?y)))\n(r b)\n").unwrap();
        let error = Builder::new()
            .game(&game)
            .out_dir(dir.path())
            .compile()
            .unwrap_err();
        let text = format!("{error:?}");
        assert!(text.contains("error[unsafe-variable]"), "{text}");
        assert!(text.contains("bad.kif:2:"), "{text}");
        assert!(!dir.path().join("bad.rs").exists());
        let missing = Builder::new()
            .game(dir.path().join("none.kif"))
            .out_dir(dir.path())
            .compile()
            .unwrap_err();
        assert!(missing.to_string().contains("cannot read"), "{missing}");
    }
}
