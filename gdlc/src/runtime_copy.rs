//! The runtime crate a generated crate depends on when gdlc runs away from
//! its checkout (installed with `cargo install`, or the checkout moved):
//! gdlc carries the runtime's sources ([`gdl_runtime::sources`]) and
//! writes them into its cache, one folder per version and content, so a
//! generated crate builds anywhere.

use crate::output::{fnv1a64, runtime_files, write_if_changed, Error};
use std::path::{Path, PathBuf};

/// The default runtime of a generated crate: the runtime crate of this
/// checkout of gdlc, or away from it (gdlc installed, or the checkout
/// moved) the copy of the runtime's sources gdlc carries, written into
/// its cache ([`write_runtime`]).
pub fn default_runtime_path() -> Result<PathBuf, Error> {
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime");
    if checkout.join("Cargo.toml").is_file() {
        return Ok(checkout);
    }
    let root = cache_root().ok_or_else(|| {
        Error::Setup(
            "no folder to write the runtime crate into: set GDLC_CACHE_DIR (or XDG_CACHE_HOME or HOME), or give --runtime-path".to_string(),
        )
    })?;
    write_runtime(&root)
}

/// The absolute path of the runtime crate at `given` (default:
/// [`default_runtime_path`]), checked to hold a `Cargo.toml`.
pub fn runtime_path(given: Option<&Path>) -> Result<PathBuf, Error> {
    let path = match given {
        Some(path) => path.to_path_buf(),
        None => default_runtime_path()?,
    };
    match path.canonicalize() {
        Ok(p) if p.join("Cargo.toml").is_file() => Ok(p),
        _ => Err(Error::Setup(format!(
            "the runtime crate (gdl-runtime) is not at `{}`; give its folder with `--runtime-path`",
            path.display()
        ))),
    }
}

/// The folder of gdlc's cache: `$GDLC_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/gdlc`, else `$HOME/.cache/gdlc`.
pub fn cache_root() -> Option<PathBuf> {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("GDLC_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("gdlc")))
        .or_else(|| var("HOME").map(|d| d.join(".cache/gdlc")))
}

/// Writes the runtime's sources under `root`, in a folder named after
/// the runtime's version and the hash of its files (files already there
/// with the same content are left alone), and returns that folder.
pub fn write_runtime(root: &Path) -> Result<PathBuf, Error> {
    let files = runtime_files();
    let mut all = Vec::new();
    for (path, text) in &files {
        all.extend_from_slice(path.as_bytes());
        all.push(0);
        all.extend_from_slice(text.as_bytes());
    }
    let version = env!("CARGO_PKG_VERSION");
    let dir = root.join(format!("gdl-runtime-{version}-{:016x}", fnv1a64(&all)));
    for (path, text) in &files {
        write_if_changed(&dir.join(path), text.as_bytes())?;
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_holds_the_runtimes_files_and_is_written_once() {
        let root = tempfile::tempdir().unwrap();
        let dir = write_runtime(root.path()).unwrap();
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(manifest.contains("name = \"gdl-runtime\""), "{manifest}");
        let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
        assert!(lib.contains("pub mod support;"));
        let modified = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
        let before = modified(&dir.join("src/support.rs"));
        assert_eq!(write_runtime(root.path()).unwrap(), dir);
        assert_eq!(modified(&dir.join("src/support.rs")), before);
    }
}
