//! The time-boxed fuzzing run of CI: `gdlc-fuzz ci` — one batch of 30
//! generated games (seed 1) run by the interpreter and the three compiled
//! strategies, then 1 200 mutants (seed 1) of the project's games and
//! the public corpus. A few minutes on two cores; run it with
//! `cargo test --release -p gdlc-fuzz --test ci -- --ignored --nocapture`.

use std::process::Command;

#[test]
#[ignore = "builds a crate of 90 generated modules and runs 1 200 mutants; run it with --ignored"]
fn fixed_seed_fuzzing_finds_nothing() {
    let work = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/gdlc-fuzz-ci");
    let status = Command::new(env!("CARGO_BIN_EXE_gdlc-fuzz"))
        .arg("ci")
        .arg("--work")
        .arg(&work)
        .status()
        .expect("run gdlc-fuzz");
    assert!(
        status.success(),
        "gdlc-fuzz ci found failures (saved under {}/findings)",
        work.display()
    );
}
