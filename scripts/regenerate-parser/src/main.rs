//! gdlc's parser is lalrpop's output for `gdlc/src/syntax/grammar.lalrpop`,
//! committed as `gdlc/src/syntax/grammar.rs` so that no build of gdlc (nor
//! of a crate whose build script uses it) compiles lalrpop.
//!
//! `cargo run --manifest-path scripts/regenerate-parser/Cargo.toml` writes
//! it again after the grammar changed; with `--check` it writes lalrpop's
//! output into a temporary folder instead and fails unless the committed
//! file is the same bytes (CI runs this).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The folder of the grammar and of the committed parser.
fn syntax_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../gdlc/src/syntax")
}

/// Runs lalrpop on the grammar, writing the parser into `out_dir`.
fn generate(out_dir: &Path) -> Result<PathBuf, String> {
    let dir = syntax_dir();
    lalrpop::Configuration::new()
        .set_in_dir(&dir)
        .set_out_dir(out_dir)
        .force_build(true)
        .process_file(dir.join("grammar.lalrpop"))
        .map_err(|e| format!("lalrpop: {e}"))?;
    Ok(out_dir.join("grammar.rs"))
}

fn main() -> ExitCode {
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!("usage: regenerate-parser [--check] (not `{other}`)");
            return ExitCode::from(2);
        }
    };
    let committed = syntax_dir().join("grammar.rs");
    let result = if check {
        let out = std::env::temp_dir().join(format!("gdlc-parser-{}", std::process::id()));
        let same = generate(&out).and_then(|fresh| {
            let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
            Ok(read(&fresh)? == read(&committed)?)
        });
        let _ = std::fs::remove_dir_all(&out);
        match same {
            Ok(true) => Ok(format!("{} is lalrpop's output", committed.display())),
            Ok(false) => Err(format!(
                "{} is not lalrpop's output for the grammar: run \
                 `cargo run --manifest-path scripts/regenerate-parser/Cargo.toml`",
                committed.display()
            )),
            Err(e) => Err(e),
        }
    } else {
        generate(&syntax_dir()).map(|p| format!("wrote {}", p.display()))
    };
    match result {
        Ok(message) => {
            println!("{message}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
