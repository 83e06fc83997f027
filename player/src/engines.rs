//! The searches of one match: the in-process [`Workers`] from the start,
//! and, once the compiled search worker is built in the background, the
//! [`Remote`] process that replaces them. Both are told every joint move;
//! their statistics merge by move text, and the in-process threads stop as
//! soon as the worker has searched the current state.

use crate::remote::Remote;
use crate::workers::Workers;
use crate::{Compile, Settings};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver, TryRecvError};
use std::time::Instant;

/// Per move text: summed visits and value.
pub type Merged = Vec<(String, u64, f64)>;

/// Runs the build `job` on a thread of its own; the worker binary, or why
/// not, arrives on the receiver.
pub fn build_in_background(job: Compile) -> Receiver<Result<PathBuf, String>> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let built = catch_unwind(AssertUnwindSafe(job))
            .unwrap_or_else(|_| Err("the compiler panicked".into()));
        let _ = tx.send(built);
    });
    rx
}

/// The searches of one match.
pub struct Engines {
    local: Option<Workers>,
    remote: Option<Remote>,
    pending: Option<Receiver<Result<PathBuf, String>>>,
    role: usize,
    settings: Settings,
    started: Instant,
    history: Vec<Vec<String>>,
    /// Iterations of the local and the remote search at the last report.
    counted: (u64, u64, Instant),
}

impl Engines {
    /// Searches with `local`, and starts `compile` (if any) in the background.
    pub fn new(local: Workers, compile: Option<Compile>, role: usize, settings: Settings) -> Self {
        let pending = compile.map(build_in_background);
        Engines {
            local: Some(local),
            remote: None,
            pending,
            role,
            settings,
            started: Instant::now(),
            history: Vec::new(),
            counted: (0, 0, Instant::now()),
        }
    }

    /// Whether the compiled worker has taken over the search.
    pub fn compiled_in_use(&self) -> bool {
        self.remote.is_some() && self.local.is_none()
    }

    /// Tells every search that `joint` (canonical texts) was played.
    pub fn advance(&mut self, joint: Vec<String>) {
        self.history.push(joint);
        let ply = self.history.len();
        let joint = &self.history[ply - 1];
        if let Some(local) = &self.local {
            local.advance(ply, joint);
        }
        if let Some(remote) = &mut self.remote {
            remote.advance(ply, joint);
        }
    }

    /// Starts the compiled worker when its build has finished, and stops
    /// the in-process search once the worker has searched the current state.
    pub fn poll(&mut self) {
        if let Some(pending) = &self.pending {
            match pending.try_recv() {
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => self.pending = None,
                Ok(Err(why)) => {
                    eprintln!("gdlc-player: compiling failed, the interpreter plays on: {why}");
                    self.pending = None;
                }
                Ok(Ok(binary)) => {
                    self.pending = None;
                    let s = &self.settings;
                    match Remote::spawn(&binary, self.role, s.threads, s.max_nodes, &self.history) {
                        Ok(remote) => self.remote = Some(remote),
                        Err(why) => eprintln!("gdlc-player: the interpreter plays on: {why}"),
                    }
                }
            }
        }
        let ply = self.history.len();
        let searched = self.remote.as_ref().is_some_and(|r| r.searched(ply));
        if searched && self.local.take().is_some() {
            eprintln!(
                "gdlc-player: compiled reasoner in use {:.2} s after START",
                self.started.elapsed().as_secs_f64()
            );
        }
    }

    /// The merged statistics of the searches at `ply`.
    pub fn merged(&self, ply: usize) -> Merged {
        let mut merged = self
            .local
            .as_ref()
            .map(|l| l.merged(ply).0)
            .unwrap_or_default();
        if let Some(remote) = &self.remote {
            for (text, visits, value) in remote.merged(ply).0 {
                match merged.iter_mut().find(|(t, ..)| *t == text) {
                    Some(m) => {
                        m.1 += visits;
                        m.2 += value;
                    }
                    None => merged.push((text, visits, value)),
                }
            }
        }
        merged
    }

    /// The iterations per second of each search since the last report, as
    /// text for the log.
    pub fn rates(&mut self) -> String {
        let local = self.local.as_ref().map_or(0, |l| l.merged(usize::MAX).1);
        let remote = self.remote.as_ref().map_or(0, |r| r.merged(usize::MAX).1);
        let (l0, r0, since) = self.counted;
        let seconds = since.elapsed().as_secs_f64().max(1e-9);
        self.counted = (local, remote, Instant::now());
        let mut parts = Vec::new();
        if self.local.is_some() {
            parts.push(format!(
                "interpreter {:.0} it/s",
                local.saturating_sub(l0) as f64 / seconds
            ));
        }
        if self.remote.is_some() {
            parts.push(format!(
                "compiled {:.0} it/s",
                remote.saturating_sub(r0) as f64 / seconds
            ));
        }
        parts.join(", ")
    }
}
