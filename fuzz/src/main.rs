//! The `gdlc-fuzz` command line: print a generated game, run the
//! differential or the mutation fuzzer, or both time-boxed with fixed seeds
//! as CI does.

use gdlc_fuzz::differential::Workspace;
use gdlc_fuzz::mutation_run::{self, Worker};
use gdlc_fuzz::{differential_run, generate};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

const USAGE: &str = "usage:
  gdlc-fuzz generate --seed N
      print the generated game of seed N
  gdlc-fuzz differential [--seed N] [--batch GAMES] [--batches N] [--seconds S] [--out DIR] [--work DIR]
      generated games run by the interpreter and every compiled strategy; failures shrunk and saved in DIR
  gdlc-fuzz mutate [--seed N] [--mutants N] [--seconds S] [--limit S] [--out DIR] [PATH...]
      mutants of the descriptions in PATH (files or folders; default games/ and ../shared/games);
      --limit: CPU seconds one mutant may take before it counts as a hang (60: past the interpreter's work limit, which the slowest mutants found reach in under a minute)
  gdlc-fuzz ci [--out DIR] [--work DIR]
      both, time-boxed with fixed seeds (a few minutes)
  gdlc-fuzz worker --memory-cap BYTES
      (internal) the child process that runs mutants

DIR defaults to $GDLC_FUZZ_OUT, else target/gdlc-fuzz/findings; --work to target/gdlc-fuzz.";

/// Memory cap of the mutant worker.
const MEMORY_CAP: u64 = 4 << 30;

/// The options given.
#[derive(Default)]
struct Options {
    seed: Option<u64>,
    batch: Option<usize>,
    batches: Option<usize>,
    seconds: Option<f64>,
    mutants: Option<usize>,
    limit: Option<f64>,
    memory_cap: Option<u64>,
    out: Option<PathBuf>,
    work: Option<PathBuf>,
    paths: Vec<PathBuf>,
}

fn parse(args: impl Iterator<Item = String>) -> Result<(String, Options), lexopt::Error> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let mut command = None;
    let mut o = Options::default();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("seed") => o.seed = Some(parser.value()?.parse()?),
            Long("batch") => o.batch = Some(parser.value()?.parse()?),
            Long("batches") => o.batches = Some(parser.value()?.parse()?),
            Long("seconds") => o.seconds = Some(parser.value()?.parse()?),
            Long("mutants") => o.mutants = Some(parser.value()?.parse()?),
            Long("limit") => o.limit = Some(parser.value()?.parse()?),
            Long("memory-cap") => o.memory_cap = Some(parser.value()?.parse()?),
            Long("out") => o.out = Some(parser.value()?.into()),
            Long("work") => o.work = Some(parser.value()?.into()),
            Value(v) if command.is_none() => command = Some(v.string()?),
            Value(v) => o.paths.push(v.into()),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok((command.unwrap_or_default(), o))
}

fn main() -> ExitCode {
    let (command, options) = match parse(std::env::args().skip(1)) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let ok = match command.as_str() {
        "generate" => {
            print!("{}", generate::game(options.seed.unwrap_or(0)).kif());
            true
        }
        "differential" => differential(&options, options.seconds.unwrap_or(600.0)),
        "mutate" => mutate(&options, options.seconds.unwrap_or(600.0)),
        "ci" => ci(&options),
        "worker" => match worker(&options) {
            Ok(()) => true,
            Err(e) => {
                eprintln!("error: {e}");
                false
            }
        },
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn worker(options: &Options) -> std::io::Result<()> {
    let cap = options.memory_cap.unwrap_or(MEMORY_CAP);
    rlimit::setrlimit(rlimit::Resource::AS, cap, cap)?;
    gdlc_fuzz::mutant_worker::serve()
}

/// The project's root (this crate's parent folder).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn out_dir(options: &Options) -> PathBuf {
    options
        .out
        .clone()
        .or_else(|| std::env::var_os("GDLC_FUZZ_OUT").map(PathBuf::from))
        .unwrap_or_else(|| work_dir(options).join("findings"))
}

fn work_dir(options: &Options) -> PathBuf {
    options
        .work
        .clone()
        .unwrap_or_else(|| root().join("target/gdlc-fuzz"))
}

fn differential(options: &Options, seconds: f64) -> bool {
    let plan = differential_run::Plan {
        seed: options.seed.unwrap_or(1),
        batch: options.batch.unwrap_or(30),
        batches: options.batches.unwrap_or(usize::MAX),
        until: Instant::now() + Duration::from_secs_f64(seconds),
        shrink_time: Duration::from_secs(900),
    };
    let ws = Workspace {
        dir: work_dir(options),
        runtime: root().join("runtime"),
    };
    let start = Instant::now();
    let out = out_dir(options);
    let stats = differential_run::run(&plan, &ws, Some(&out), |s| {
        eprintln!(
            "differential: {} games, {} failures, {:.0} s",
            s.games,
            s.failures.len(),
            start.elapsed().as_secs_f64()
        );
    });
    print!("{}", stats.report());
    println!(
        "differential: {:.0} s; failures saved under {}",
        start.elapsed().as_secs_f64(),
        out.display()
    );
    stats.failures.is_empty() && stats.invalid == 0 && stats.games > 0
}

/// The `.kif` files of `paths` (files, or folders read one level deep).
fn kif_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(p)
                .into_iter()
                .flatten()
                .filter_map(|e| Some(e.ok()?.path()))
                .filter(|f| f.extension().is_some_and(|e| e == "kif"))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    files
}

fn mutate(options: &Options, seconds: f64) -> bool {
    let paths = if options.paths.is_empty() {
        vec![root().join("games"), root().join("../shared/games")]
    } else {
        options.paths.clone()
    };
    let files = kif_files(&paths);
    let plan = mutation_run::Plan {
        files,
        seed: options.seed.unwrap_or(1),
        mutants: options.mutants,
        until: Instant::now() + Duration::from_secs_f64(seconds),
        limit: Duration::from_secs_f64(options.limit.unwrap_or(60.0)),
        shrink_time: Duration::from_secs(120),
    };
    let exe = std::env::current_exe().unwrap_or_else(|_| "gdlc-fuzz".into());
    let mut worker = Worker::new(exe, options.memory_cap.unwrap_or(MEMORY_CAP));
    let start = Instant::now();
    let out = out_dir(options);
    let stats = mutation_run::run(&plan, &mut worker, Some(&out));
    print!("{}", stats.report(plan.files.len()));
    println!(
        "mutate: {:.0} s; findings saved under {}",
        start.elapsed().as_secs_f64(),
        out.display()
    );
    stats.findings.is_empty() && stats.mutants > 0
}

/// Mutants of the CI run: a fixed number, so that CI runs the same ones on
/// every machine (in 90 s, a quiet machine reached a hang that a loaded one
/// did not: the interpreter has no work budget yet, and longer runs find
/// such hangs).
const CI_MUTANTS: usize = 1_200;

/// The CI run: the differential fuzzer on one batch of 30 games (seed 1),
/// then the mutation fuzzer on [`CI_MUTANTS`] mutants (seed 1) of the
/// project's games and the public corpus.
fn ci(options: &Options) -> bool {
    let mut o = Options {
        seed: Some(1),
        batch: Some(30),
        batches: Some(1),
        out: options.out.clone(),
        work: options.work.clone(),
        ..Options::default()
    };
    let differential_ok = differential(&o, 3600.0);
    o.seconds = None;
    o.mutants = Some(CI_MUTANTS);
    let mutate_ok = mutate(&o, 1800.0);
    differential_ok && mutate_ok
}
