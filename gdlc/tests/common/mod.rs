//! Helpers shared by the integration tests of `gdlc`: running the `gdlc`
//! binary, the project's games, the public corpus beside the checkout, and
//! cargo.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// What a run of a command gave: its exit code and its output as text.
pub struct Run {
    /// The exit code (the command exited normally, not by a signal).
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Self {
        Run {
            code: output
                .status
                .code()
                .expect("exited normally, not by a signal"),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

impl Run {
    /// The standard output as JSON, after checking the run succeeded.
    pub fn json(&self) -> serde_json::Value {
        assert_eq!(self.code, 0, "{}", self.stderr);
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }
}

/// The `gdlc` binary cargo built for these tests.
pub fn gdlc_binary() -> PathBuf {
    env!("CARGO_BIN_EXE_gdlc").into()
}

/// Runs `gdlc` with `args`.
pub fn gdlc(args: &[&str]) -> Run {
    Command::new(gdlc_binary())
        .args(args)
        .output()
        .expect("run gdlc")
        .into()
}

/// Runs `gdlc` with `args`, killed after `limit`: `None` when it ran that
/// long (for input that once made it hang).
pub fn gdlc_within(args: &[&str], limit: Duration) -> Option<Run> {
    run_limited(Command::new(gdlc_binary()).args(args), limit).map(Run::from)
}

/// A command's output, or `None` when it ran past `limit` (it is killed);
/// both pipes are read while it runs, so a large output never blocks it.
pub fn run_limited(cmd: &mut Command, limit: Duration) -> Option<Output> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out = std::thread::spawn(move || {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut buf).map(|_| buf)
    });
    let err = std::thread::spawn(move || {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut buf).map(|_| buf)
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait().expect("wait") {
            Some(status) => break status,
            None if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    };
    Some(Output {
        status,
        stdout: out.join().expect("reader").unwrap_or_default(),
        stderr: err.join().expect("reader").unwrap_or_default(),
    })
}

/// The target folder of this build (the binaries are in `<target>/<profile>`).
pub fn target_dir() -> PathBuf {
    let bin = gdlc_binary();
    bin.ancestors().nth(2).expect("target folder").to_path_buf()
}

/// The compiled backend's cache of the tests, shared by every test and kept
/// between runs, so the runtime is compiled once.
pub fn test_cache() -> PathBuf {
    target_dir().join("gdlc-test-cache")
}

/// Runs `gdlc` with `args` and the tests' cache.
pub fn gdlc_cached(args: &[&str]) -> Run {
    gdlc_with(args, &test_cache(), &[])
}

/// The release profile of the generated crates the tests build, through
/// cargo's environment (which overrides a crate's own `[profile.release]`):
/// `opt-level = 1` and 16 codegen units instead of a user's 3 and 1. The
/// same code, compared in the same ways, built in a fraction of the time.
pub const TEST_RELEASE_PROFILE: [(&str, &str); 2] = [
    ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "1"),
    ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16"),
];

/// Runs `gdlc` with `args`, the cache `cache` and further variables.
pub fn gdlc_with(args: &[&str], cache: &Path, vars: &[(&str, &str)]) -> Run {
    let mut command = Command::new(gdlc_binary());
    command.args(args).env("GDLC_CACHE_DIR", cache);
    command.envs(TEST_RELEASE_PROFILE);
    for (name, value) in vars {
        command.env(name, value);
    }
    command.output().expect("run gdlc").into()
}

/// Cargo (`$CARGO`, set by `cargo test`, else `cargo` on the `PATH`), if it
/// can be run; otherwise prints why the test is skipped.
pub fn cargo() -> Option<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let works = Command::new(&cargo)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !works {
        println!("skipped: `{cargo}` cannot be run (the compiled backend needs cargo)");
    }
    works.then_some(cargo)
}

/// The path of the project's game `games/NAME.kif`.
pub fn project_game_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../games")
        .join(format!("{name}.kif"))
}

/// [`project_game_path`] as a command-line argument.
pub fn project_game(name: &str) -> String {
    project_game_path(name).to_str().unwrap().to_string()
}

/// The public corpus beside the checkout (`$GDLC_SHARED`, else
/// `../shared`), when it holds the folder `sub`.
pub fn shared(sub: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("GDLC_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    dir.join(sub).is_dir().then_some(dir)
}
