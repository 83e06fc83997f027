//! The crate's own sources, so that a compiler installed away from its
//! checkout can write a copy of the runtime for the crates it generates
//! to depend on.

/// Every source file of the crate: its path in the crate and its text.
pub const FILES: &[(&str, &str)] = &[
    ("src/cli.rs", include_str!("cli.rs")),
    ("src/data.rs", include_str!("data.rs")),
    ("src/drivers.rs", include_str!("drivers.rs")),
    ("src/gdl_perf.rs", include_str!("gdl_perf.rs")),
    ("src/kernels.rs", include_str!("kernels.rs")),
    ("src/kif.rs", include_str!("kif.rs")),
    ("src/lib.rs", include_str!("lib.rs")),
    ("src/open_terms.rs", include_str!("open_terms.rs")),
    ("src/parallel.rs", include_str!("parallel.rs")),
    ("src/parallel_perft.rs", include_str!("parallel_perft.rs")),
    ("src/percepts.rs", include_str!("percepts.rs")),
    ("src/report.rs", include_str!("report.rs")),
    ("src/sources.rs", include_str!("sources.rs")),
    ("src/support.rs", include_str!("support.rs")),
];

/// The crate's manifest as a crate of its own: the fields it takes from
/// the workspace written out.
pub fn manifest() -> String {
    include_str!("../Cargo.toml")
        .replace(
            "version.workspace = true",
            &format!("version = \"{}\"", env!("CARGO_PKG_VERSION")),
        )
        .replace("edition.workspace = true", "edition = \"2021\"")
        .replace(
            "license.workspace = true",
            &format!("license = \"{}\"", env!("CARGO_PKG_LICENSE")),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn every_source_file_is_carried() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| format!("src/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        on_disk.sort();
        let carried: Vec<&str> = FILES.iter().map(|(path, _)| *path).collect();
        assert_eq!(on_disk, carried);
        for (path, text) in FILES {
            let read = std::fs::read_to_string(dir.join(&path[4..])).unwrap();
            assert_eq!(&read, text, "{path}");
        }
    }

    #[test]
    fn the_manifest_stands_alone_with_the_workspaces_values() {
        let manifest = manifest();
        assert!(!manifest.contains("workspace"), "{manifest}");
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
        let workspace = std::fs::read_to_string(root).unwrap();
        for field in ["version", "edition", "license"] {
            let line = workspace
                .lines()
                .find(|l| l.starts_with(&format!("{field} = ")))
                .unwrap_or_else(|| panic!("no {field} in the workspace"));
            assert!(manifest.lines().any(|l| l == line), "{line} in {manifest}");
        }
    }
}
