//! The search in a child process: a compiled reasoner cannot be loaded
//! into the running player without `unsafe`, so the player builds a small
//! search-worker binary around it (see `compile.rs`) and talks to it over
//! its standard streams, one line per message, fields separated by tabs
//! (moves are canonical KIF, which has no tabs):
//!
//! - to the worker: `move\t<ply>\t<move of role 0>\t<move of role 1>…`, a
//!   joint move played, making `ply` joint moves since the start;
//! - from the worker, every few milliseconds: `stats\t<ply>\t<iterations>`
//!   then `\t<move>\t<visits>\t<summed value>` per move of the player's role.
//!
//! The worker stops when its standard input closes, so it never outlives
//! the player.

use crate::process::WorkerProcess;
use crate::selfplay::SelfPlay;
use crate::workers::Workers;
use crate::Factory;
use gdl_runtime::Reasoner;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How often the worker reports its statistics.
const REPORT_EVERY: Duration = Duration::from_millis(5);

/// Merged root statistics: ply, per move (text, visits, value), iterations.
type Stats = (usize, Vec<(String, u64, f64)>, u64);

/// The `main` of a search-worker binary:
/// `worker ROLE THREADS MAX_NODES`, reasoners made by `make`;
/// `worker beliefs ROLE`, the search of a GDL-II match
/// ([`crate::unseen`]); or `worker self-play [OPTIONS]` (see
/// [`SelfPlay::parse`]), which measures a technique on the compiled
/// reasoner.
pub fn worker_main<R: Reasoner + 'static>(make: fn() -> R) -> ExitCode
where
    R::State: Send,
    R::Move: Send,
{
    if std::env::args().nth(1).as_deref() == Some("beliefs") {
        let Some(Ok(role)) = std::env::args().nth(2).map(|r| r.parse::<usize>()) else {
            eprintln!("usage: worker beliefs ROLE");
            return ExitCode::from(2);
        };
        let (input, output) = (std::io::stdin().lock(), std::io::stdout().lock());
        return match crate::unseen::serve(&mut make(), role, input, output) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("gdlc-player: the GDL-II worker's streams failed: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if std::env::args().nth(1).as_deref() == Some("self-play") {
        return match SelfPlay::parse(std::env::args().skip(2)) {
            Ok(measure) => {
                measure.run(&mut make());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("self-play: {e}");
                ExitCode::from(2)
            }
        };
    }
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()
        .unwrap_or_default();
    let [role, threads, max_nodes] = args[..] else {
        eprintln!("usage: worker ROLE THREADS MAX_NODES");
        return ExitCode::from(2);
    };
    let factory: Factory<R> = Arc::new(make);
    let stop = Arc::new(AtomicBool::new(false));
    let workers = Arc::new(Workers::start(
        &factory,
        role,
        threads,
        max_nodes,
        Arc::clone(&stop),
        true,
    ));
    let ply = Arc::new(AtomicUsize::new(0));
    {
        let (workers, ply, stop) = (Arc::clone(&workers), Arc::clone(&ply), Arc::clone(&stop));
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                let mut fields = line.split('\t');
                if fields.next() != Some("move") {
                    continue;
                }
                let Some(Ok(to)) = fields.next().map(str::parse::<usize>) else {
                    continue;
                };
                let joint: Vec<String> = fields.map(str::to_string).collect();
                workers.advance(to, &joint);
                ply.store(to, Ordering::SeqCst);
            }
            stop.store(true, Ordering::SeqCst);
        });
    }
    let mut out = std::io::stdout().lock();
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(REPORT_EVERY);
        let at = ply.load(Ordering::SeqCst);
        let (moves, iterations) = workers.merged(at);
        let mut line = format!("stats\t{at}\t{iterations}");
        for (text, visits, value) in moves {
            line.push_str(&format!("\t{text}\t{visits}\t{value}"));
        }
        line.push('\n');
        if out
            .write_all(line.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
    }
    stop.store(true, Ordering::SeqCst);
    ExitCode::SUCCESS
}

/// A running search-worker process, seen from the player.
pub struct Remote {
    process: WorkerProcess,
    latest: Arc<Mutex<Stats>>,
}

impl Remote {
    /// Starts the worker `binary` for role `role` and replays the joint
    /// moves played so far.
    pub fn spawn(
        binary: &Path,
        role: usize,
        threads: usize,
        max_nodes: usize,
        history: &[Vec<String>],
    ) -> Result<Self, String> {
        let args = [role, threads, max_nodes].map(|n| n.to_string());
        let (process, stdout) = WorkerProcess::spawn(binary, args)?;
        let latest = Arc::new(Mutex::new((usize::MAX, Vec::new(), 0)));
        let shared = Arc::clone(&latest);
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(stats) = parse_stats(&line) {
                    *shared.lock().unwrap_or_else(|p| p.into_inner()) = stats;
                }
            }
        });
        let mut remote = Remote { process, latest };
        for (k, joint) in history.iter().enumerate() {
            remote.advance(k + 1, joint);
        }
        Ok(remote)
    }

    /// Tells the worker that `joint` was played, making `ply` joint moves.
    pub fn advance(&mut self, ply: usize, joint: &[String]) {
        let line = format!("move\t{ply}\t{}\n", joint.join("\t"));
        self.process.send(&line);
    }

    /// Whether the worker has reported visits at `ply`.
    pub fn searched(&self, ply: usize) -> bool {
        let latest = self.latest.lock().unwrap_or_else(|p| p.into_inner());
        latest.0 == ply && latest.1.iter().any(|m| m.1 > 0)
    }

    /// The worker's latest statistics if they are for `ply`, and its
    /// iterations so far.
    pub fn merged(&self, ply: usize) -> (Vec<(String, u64, f64)>, u64) {
        let latest = self.latest.lock().unwrap_or_else(|p| p.into_inner());
        let moves = if latest.0 == ply {
            latest.1.clone()
        } else {
            Vec::new()
        };
        (moves, latest.2)
    }
}

fn parse_stats(line: &str) -> Option<Stats> {
    let mut fields = line.split('\t');
    if fields.next()? != "stats" {
        return None;
    }
    let ply = fields.next()?.parse().ok()?;
    let iterations = fields.next()?.parse().ok()?;
    let rest: Vec<&str> = fields.collect();
    let moves = rest
        .chunks(3)
        .map(|c| match c {
            [text, visits, value] => {
                Some((text.to_string(), visits.parse().ok()?, value.parse().ok()?))
            }
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    Some((ply, moves, iterations))
}

#[cfg(test)]
mod tests {
    use super::parse_stats;

    #[test]
    fn stats_lines() {
        assert_eq!(
            parse_stats("stats\t3\t120\t(mark 1 1)\t70\t35.5\tnoop\t50\t20"),
            Some((
                3,
                vec![("(mark 1 1)".into(), 70, 35.5), ("noop".into(), 50, 20.0)],
                120
            ))
        );
        assert_eq!(parse_stats("stats\t3\t120\t(mark 1 1)\t70"), None);
        assert_eq!(parse_stats("hello"), None);
    }
}
