//! The mutation fuzzer's driver: mutants of real descriptions are sent to
//! a worker process ([`crate::mutant_worker`]) under a per-mutant time
//! limit and a memory cap; a panic, a hang, an abort or a kill is a
//! finding, shrunk token by token to a small mutant that fails the same
//! way and saved.

use crate::mutate::{mutant, render, tokens};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// What became of one mutant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Checked and played.
    Accepted,
    /// Rejected with a diagnostic.
    Rejected,
    /// The interpreter stopped at its resource limits with an error.
    Limit,
    /// A panic or another bug the worker reported.
    Bug(String),
    /// The worker ran past the time limit.
    Hang,
    /// The worker died (an abort, or a kill at the memory cap).
    Died(String),
}

impl Answer {
    /// Whether this is a finding.
    pub fn is_failure(&self) -> bool {
        matches!(self, Answer::Bug(_) | Answer::Hang | Answer::Died(_))
    }

    /// Whether `other` fails the same way (a panic at the same place).
    fn same_failure(&self, other: &Answer) -> bool {
        match (self, other) {
            (Answer::Bug(a), Answer::Bug(b)) => first_line(a) == first_line(b),
            (Answer::Hang, Answer::Hang) | (Answer::Died(_), Answer::Died(_)) => true,
            _ => false,
        }
    }
}

/// The part of a bug's message that says where: a panic's file and line.
fn first_line(message: &str) -> String {
    message.splitn(4, ':').take(3).collect::<Vec<_>>().join(":")
}

/// A worker process and the lines it answers.
pub struct Worker {
    exe: PathBuf,
    memory_cap: u64,
    running: Option<(Child, ChildStdin, Receiver<String>)>,
}

impl Worker {
    /// A worker running `exe worker --memory-cap BYTES`, started on first
    /// use.
    pub fn new(exe: PathBuf, memory_cap: u64) -> Worker {
        Worker {
            exe,
            memory_cap,
            running: None,
        }
    }

    fn start(&mut self) -> std::io::Result<()> {
        let mut child = Command::new(&self.exe)
            .args(["worker", "--memory-cap", &self.memory_cap.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        self.running = Some((child, stdin, receive));
        Ok(())
    }

    fn stop(&mut self) -> String {
        let Some((mut child, stdin, _)) = self.running.take() else {
            return "not running".into();
        };
        drop(stdin);
        let _ = child.kill();
        child
            .wait()
            .map_or_else(|e| e.to_string(), |s| s.to_string())
    }

    /// Runs one mutant within `limit` of CPU time (a hang past it).
    pub fn ask(&mut self, bytes: &[u8], limit: Duration) -> Answer {
        if self.running.is_none() {
            if let Err(e) = self.start() {
                return Answer::Died(format!("cannot start the worker: {e}"));
            }
        }
        let (child, stdin, answers) = self.running.as_mut().expect("started");
        let sent = writeln!(stdin, "{}", bytes.len())
            .and_then(|()| stdin.write_all(bytes))
            .and_then(|()| stdin.flush());
        let pid = child.id();
        let answer = match sent.map(|()| within(answers, pid, limit)) {
            Ok(Ok(line)) => line,
            Ok(Err(RecvTimeoutError::Timeout)) => {
                self.stop();
                return Answer::Hang;
            }
            Err(_) | Ok(Err(RecvTimeoutError::Disconnected)) => {
                return Answer::Died(self.stop());
            }
        };
        match answer.split_once(' ').map_or((answer.as_str(), ""), |p| p) {
            ("accepted", _) => Answer::Accepted,
            ("rejected", _) => Answer::Rejected,
            ("limit", _) => Answer::Limit,
            (_, rest) => Answer::Bug(rest.to_string()),
        }
    }
}

/// The next line from the worker, waiting until the worker has used
/// `limit` of CPU time (the machine may be shared, so wall-clock time says
/// little) or ten times `limit` of wall-clock time has passed.
fn within(
    answers: &Receiver<String>,
    pid: u32,
    limit: Duration,
) -> Result<String, RecvTimeoutError> {
    let start = Instant::now();
    let cpu_start = cpu_time(pid);
    loop {
        match answers.recv_timeout(Duration::from_millis(500)) {
            Err(RecvTimeoutError::Timeout) => {}
            other => return other,
        }
        let cpu = match (cpu_start, cpu_time(pid)) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => start.elapsed(),
        };
        if cpu >= limit || start.elapsed() >= limit * 10 {
            return Err(RecvTimeoutError::Timeout);
        }
    }
}

/// The CPU time (user and system) process `pid` has used, from
/// `/proc/PID/stat` (Linux; clock ticks of 1/100 s), if it can be read.
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name (which may hold spaces).
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// A mutant that failed.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The description it came from.
    pub file: PathBuf,
    /// The mutations applied.
    pub mutations: Vec<&'static str>,
    /// What happened.
    pub answer: Answer,
    /// The mutant, shrunk.
    pub minimal: Vec<u8>,
}

/// Counts of a run.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Mutants run.
    pub mutants: usize,
    /// Accepted and played.
    pub accepted: usize,
    /// Rejected with a diagnostic.
    pub rejected: usize,
    /// Stopped at the interpreter's resource limits.
    pub limits: usize,
    /// Panics and other bugs.
    pub bugs: usize,
    /// Runs past the time limit.
    pub hangs: usize,
    /// Aborts and kills.
    pub deaths: usize,
    /// Every failure, shrunk.
    pub findings: Vec<Finding>,
    /// Descriptions not mutated since they fail as they are (with how).
    pub skipped: Vec<(PathBuf, Answer)>,
}

impl Stats {
    /// The counts as text, then each finding with its shrunk mutant.
    pub fn report(&self, files: usize) -> String {
        let mut out = format!(
            "mutate: {} mutants of {files} descriptions: {} accepted and played, {} rejected with a diagnostic, \
             {} stopped at the interpreter's limits; {} panics or other bugs, {} hangs, {} aborts or kills\n",
            self.mutants, self.accepted, self.rejected, self.limits, self.bugs, self.hangs, self.deaths
        );
        for (file, answer) in &self.skipped {
            out.push_str(&format!(
                "  not mutated: {} fails as it is: {answer:?}\n",
                file.display()
            ));
        }
        for f in &self.findings {
            out.push_str(&format!(
                "  {:?} from {} ({}):\n{}\n",
                f.answer,
                f.file.display(),
                f.mutations.join(", "),
                String::from_utf8_lossy(&f.minimal)
            ));
        }
        out
    }
}

/// How long and how hard a run goes.
pub struct Plan {
    /// The descriptions mutated, in turn.
    pub files: Vec<PathBuf>,
    /// The seed of the mutations.
    pub seed: u64,
    /// Most mutants, if bounded.
    pub mutants: Option<usize>,
    /// When to stop.
    pub until: Instant,
    /// CPU-time limit of one mutant (see [`Worker::ask`]).
    pub limit: Duration,
    /// Time allowed to shrink one finding.
    pub shrink_time: Duration,
}

/// Runs mutants of `plan.files` in `worker`; saves findings under `out`.
pub fn run(plan: &Plan, worker: &mut Worker, out: Option<&Path>) -> Stats {
    let mut stats = Stats::default();
    let texts: Vec<(PathBuf, String)> = plan
        .files
        .iter()
        .filter_map(|p| Some((p.clone(), std::fs::read_to_string(p).ok()?)))
        .collect();
    if texts.is_empty() {
        return stats;
    }
    let mut rng = StdRng::seed_from_u64(plan.seed);
    // Whether each description itself runs within the limit: one that
    // does not (a known slow game) is not mutated.
    let mut usable: Vec<Option<bool>> = vec![None; texts.len()];
    while Instant::now() < plan.until && plan.mutants.is_none_or(|m| stats.mutants < m) {
        let i = rng.random_range(0..texts.len());
        let (file, text) = &texts[i];
        if usable.iter().all(|u| *u == Some(false)) {
            break;
        }
        if usable[i].is_none() {
            let answer = worker.ask(text.as_bytes(), plan.limit);
            usable[i] = Some(!answer.is_failure());
            if answer.is_failure() {
                stats.skipped.push((file.clone(), answer));
            }
        }
        if usable[i] == Some(false) {
            continue;
        }
        let (bytes, mutations) = mutant(text, &mut rng);
        let answer = worker.ask(&bytes, plan.limit);
        stats.mutants += 1;
        match &answer {
            Answer::Accepted => stats.accepted += 1,
            Answer::Rejected => stats.rejected += 1,
            Answer::Limit => stats.limits += 1,
            Answer::Bug(_) => stats.bugs += 1,
            Answer::Hang => stats.hangs += 1,
            Answer::Died(_) => stats.deaths += 1,
        }
        if answer.is_failure() {
            let deadline = Instant::now() + plan.shrink_time;
            let minimal = shrink_mutant(&bytes, &answer, worker, plan.limit, deadline);
            let finding = Finding {
                file: file.clone(),
                mutations,
                answer,
                minimal,
            };
            if let Some(out) = out {
                save(out, stats.findings.len(), &finding, &bytes);
            }
            stats.findings.push(finding);
        }
    }
    stats
}

/// The pieces a mutant is shrunk by: its tokens, or for bytes that are
/// not UTF-8 its runs of non-space bytes.
fn pieces(bytes: &[u8]) -> Vec<Vec<u8>> {
    match std::str::from_utf8(bytes) {
        Ok(text) => tokens(text).into_iter().map(String::into_bytes).collect(),
        Err(_) => bytes
            .split(u8::is_ascii_whitespace)
            .filter(|p| !p.is_empty())
            .map(<[u8]>::to_vec)
            .collect(),
    }
}

/// Pieces back to bytes: tokens rendered one form per line, other bytes
/// joined by spaces.
fn join(pieces: &[Vec<u8>]) -> Vec<u8> {
    let as_text: Option<Vec<String>> = pieces
        .iter()
        .map(|p| String::from_utf8(p.clone()).ok())
        .collect();
    match as_text {
        Some(toks) => render(&toks).into_bytes(),
        None => pieces.join(&b' '),
    }
}

/// The smallest mutant found (chunks of pieces removed while the failure
/// stays the same); the mutant as it is when its pieces do not fail alike.
fn shrink_mutant(
    bytes: &[u8],
    answer: &Answer,
    worker: &mut Worker,
    limit: Duration,
    deadline: Instant,
) -> Vec<u8> {
    let mut current = pieces(bytes);
    if !worker.ask(&join(&current), limit).same_failure(answer) {
        return bytes.to_vec();
    }
    let mut chunk = current.len().div_ceil(2).max(1);
    while chunk >= 1 && Instant::now() < deadline {
        let mut removed = false;
        let mut start = 0;
        while start < current.len() && Instant::now() < deadline {
            let mut candidate = current.clone();
            candidate.drain(start..(start + chunk).min(current.len()));
            if worker.ask(&join(&candidate), limit).same_failure(answer) {
                current = candidate;
                removed = true;
            } else {
                start += chunk;
            }
        }
        if !removed {
            chunk /= 2;
        }
    }
    join(&current)
}

fn save(out: &Path, index: usize, finding: &Finding, original: &[u8]) {
    let dir = out.join(format!("mutant-{index}"));
    let report = format!(
        "from: {}\nmutations: {}\nanswer: {:?}\n",
        finding.file.display(),
        finding.mutations.join(", "),
        finding.answer
    );
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(dir.join("mutant.kif"), original))
        .and_then(|()| std::fs::write(dir.join("minimal.kif"), &finding.minimal))
        .and_then(|()| std::fs::write(dir.join("report.txt"), report));
    if let Err(e) = written {
        eprintln!("cannot save a finding under {}: {e}", dir.display());
    }
}
