//! A GDL-II match searched on the compiled reasoner: the search worker
//! keeps its own [`Beliefs`] and chooses by determinized UCT over them, as
//! the match thread does on the interpreter until the worker is built. The
//! worker's line protocol (`worker beliefs ROLE`; fields separated by
//! tabs, moves and percepts canonical KIF, which has no tabs):
//!
//! - to the worker: `seen\t<own move>\t<percept>…`, a step taken in: this
//!   player's move and what it perceived after it; `choose\t<id>\t<ms>`,
//!   choose a move, searching until `ms`, a time in milliseconds since
//!   the Unix epoch (the player's deadline: the worker's time spent taking
//!   in the steps before it counts against it too);
//! - from the worker: `chosen\t<id>\t<move>\t<value>\t<iterations>`, or
//!   `none\t<id>\t<why>` when there is no move to choose.
//!
//! The worker stops when its standard input closes.

use crate::belief::Beliefs;
use crate::process::WorkerProcess;
use gdl_runtime::Reasoner;
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What the worker's reply may take past its search, kept back from the
/// deadline it is given.
const REPLY_MARGIN: Duration = Duration::from_millis(100);

/// A move chosen: its text, its value (0–100) and its iterations.
pub type Chosen = (String, f64, u64);

/// The worker side: answers the protocol's lines from `input` on
/// `output` with `r`'s beliefs for `role`, until `input` ends.
pub fn serve<R: Reasoner + 'static>(
    r: &mut R,
    role: usize,
    input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()>
where
    R::State: Send,
    R::Move: Send,
{
    let mut beliefs = Beliefs::new(r, role);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x9e37_79b9);
    for line in input.lines() {
        let line = line?;
        let mut fields = line.split('\t');
        match fields.next() {
            Some("seen") => {
                let text = fields.next().unwrap_or_default();
                let Some(mine) = r.parse_move(role, text) else {
                    eprintln!("gdlc-player: the worker cannot read the move `{text}`");
                    continue;
                };
                let percepts: Vec<String> = fields.map(String::from).collect();
                if let Err(why) = beliefs.advance(r, mine, &percepts, &mut rng) {
                    eprintln!("gdlc-player: {why}");
                }
            }
            Some("choose") => {
                let id = fields.next().unwrap_or_default();
                let until = fields.next().and_then(|m| m.parse().ok()).unwrap_or(0);
                let left = Duration::from_millis(until).saturating_sub(since_epoch());
                let deadline = Instant::now() + left;
                let reply = match beliefs.decide(r, deadline, &mut rng) {
                    Ok((m, value, n)) => {
                        format!("chosen\t{id}\t{}\t{value}\t{n}\n", r.move_text(role, m))
                    }
                    Err(why) => format!("none\t{id}\t{why}\n"),
                };
                output.write_all(reply.as_bytes())?;
                output.flush()?;
                // Off the clock and beside the next step's work.
                let spent = beliefs.take_spent();
                std::thread::spawn(move || drop(spent));
            }
            _ => eprintln!("gdlc-player: the worker ignores the line `{line}`"),
        }
    }
    Ok(())
}

/// The worker of a GDL-II match, seen from the match thread: built in the
/// background, then told every step and asked for every move.
pub struct Unseen {
    pending: Option<Receiver<Result<PathBuf, String>>>,
    worker: Option<Worker>,
    role: usize,
    /// Every step so far (own move, percepts), replayed to a new worker.
    history: Vec<(String, Vec<String>)>,
    started: Instant,
}

impl Unseen {
    /// The worker for `role`, its build (`pending`) under way.
    pub fn new(pending: Receiver<Result<PathBuf, String>>, role: usize) -> Self {
        Unseen {
            pending: Some(pending),
            worker: None,
            role,
            history: Vec::new(),
            started: Instant::now(),
        }
    }

    /// Starts the worker once its build has finished.
    pub fn poll(&mut self) {
        let Some(pending) = &self.pending else { return };
        let built = match pending.try_recv() {
            Err(TryRecvError::Empty) => return,
            Err(TryRecvError::Disconnected) => Err("the build stopped".into()),
            Ok(built) => built,
        };
        self.pending = None;
        match built.and_then(|binary| Worker::spawn(&binary, self.role, &self.history)) {
            Ok(worker) => {
                self.worker = Some(worker);
                eprintln!(
                    "gdlc-player: compiled reasoner in use {:.2} s after START",
                    self.started.elapsed().as_secs_f64()
                );
            }
            Err(why) => eprintln!("gdlc-player: the interpreter plays on: {why}"),
        }
    }

    /// Takes in a step: this player's move and its percepts (canonical).
    pub fn seen(&mut self, mine: String, percepts: Vec<String>) {
        if let Some(worker) = &mut self.worker {
            worker.seen(&mine, &percepts);
        }
        self.history.push((mine, percepts));
    }

    /// The worker's move, searched until shortly before `deadline`;
    /// `None` without a worker, or if it did not answer in time (said on
    /// the standard error).
    pub fn choose(&mut self, deadline: Instant) -> Option<Chosen> {
        let worker = self.worker.as_mut()?;
        let chosen = worker.choose(deadline);
        if chosen.is_none() {
            eprintln!("gdlc-player: the compiled worker gave no move in time");
        }
        chosen
    }
}

/// A running GDL-II worker process.
struct Worker {
    process: WorkerProcess,
    replies: Receiver<String>,
    asked: u64,
}

impl Worker {
    fn spawn(
        binary: &Path,
        role: usize,
        history: &[(String, Vec<String>)],
    ) -> Result<Self, String> {
        let (process, stdout) = WorkerProcess::spawn(binary, ["beliefs", &role.to_string()])?;
        let (tx, replies) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut worker = Worker {
            process,
            replies,
            asked: 0,
        };
        for (mine, percepts) in history {
            worker.seen(mine, percepts);
        }
        Ok(worker)
    }

    fn seen(&mut self, mine: &str, percepts: &[String]) {
        let mut line = format!("seen\t{mine}");
        for p in percepts {
            line.push('\t');
            line.push_str(p);
        }
        line.push('\n');
        self.process.send(&line);
    }

    /// Asks for a move searched until [`REPLY_MARGIN`] before `deadline`
    /// and waits for it until `deadline`; replies to earlier questions,
    /// come too late, are passed over.
    fn choose(&mut self, deadline: Instant) -> Option<Chosen> {
        self.asked += 1;
        let id = self.asked;
        let search = deadline.saturating_duration_since(Instant::now() + REPLY_MARGIN);
        let until = (since_epoch() + search).as_millis();
        self.process.send(&format!("choose\t{id}\t{until}\n"));
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.replies.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
            };
            match parse_reply(&line) {
                Some((answered, chosen)) if answered == id => return chosen,
                _ => continue,
            }
        }
    }
}

/// The time since the Unix epoch: the clock the player and its worker
/// share.
fn since_epoch() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

/// A reply line: the question's id, and the move chosen (`None` for a
/// `none` reply); `None` for a line that is neither.
fn parse_reply(line: &str) -> Option<(u64, Option<Chosen>)> {
    let mut fields = line.split('\t');
    let kind = fields.next()?;
    let id = fields.next()?.parse().ok()?;
    match kind {
        "chosen" => {
            let text = fields.next()?.to_string();
            let value = fields.next()?.parse().ok()?;
            let iterations = fields.next()?.parse().ok()?;
            Some((id, Some((text, value, iterations))))
        }
        "none" => Some((id, None)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::parse_reply;

    #[cfg(feature = "interpreter")]
    #[test]
    fn the_worker_takes_in_the_steps_and_says_switch_in_monty_hall() {
        let text = include_str!("../../games/gdl-ii/montyhall.kif");
        let loaded = gdlc::load_bytes("montyhall.kif".into(), text.as_bytes().to_vec()).unwrap();
        let mut r = gdlc::interp::Interpreter::new(&loaded);
        // Door 1 chosen, the host opened door 3 (seen as the Dresden
        // server sends it: `3`), then asked twice; a line it cannot read
        // is passed over.
        let until = (super::since_epoch() + std::time::Duration::from_millis(200)).as_millis();
        let input =
            format!("seen\t(choose 1)\nhello\nseen\tnoop\t3\nchoose\t7\t{until}\nchoose\t8\t0\n");
        let mut output = Vec::new();
        super::serve(&mut r, 0, input.as_bytes(), &mut output).unwrap();
        let output = String::from_utf8(output).unwrap();
        let lines: Vec<&str> = output.lines().collect();
        assert_eq!(lines.len(), 2, "{output}");
        let (id, chosen) = parse_reply(lines[0]).unwrap();
        let (text, value, iterations) = chosen.unwrap();
        assert_eq!((id, text.as_str()), (7, "switch"), "{output}");
        assert!(value > 50.0 && iterations > 0, "{output}");
        assert_eq!(parse_reply(lines[1]).unwrap().0, 8);
    }

    #[test]
    fn reply_lines() {
        assert_eq!(
            parse_reply("chosen\t3\t(choose 1)\t66.5\t1200"),
            Some((3, Some(("(choose 1)".into(), 66.5, 1200))))
        );
        assert_eq!(parse_reply("none\t4\tthe game is over"), Some((4, None)));
        assert_eq!(parse_reply("chosen\t3\t(choose 1)"), None);
        assert_eq!(parse_reply("stats\t3"), None);
    }
}
