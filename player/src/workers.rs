//! Root parallelism: one search thread per core, each with its own reasoner
//! and its own [`Tree`], searching without pause for the whole match. A
//! thread publishes its root's statistics (by move text, so that reasoners
//! built separately agree) in a snapshot at most every few milliseconds;
//! the match reads and merges the snapshots at its deadline without
//! waiting for any thread, so a slow playout can never make an answer late.

use crate::search::{Evaluation, Tree};
use crate::selfplay::{grave_trial, heuristic_trial};
use crate::Factory;
use gdl_runtime::Reasoner;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How often a thread publishes its root statistics.
const PUBLISH_EVERY: Duration = Duration::from_millis(5);
/// How long the first thread tries the heuristic, and then GRAVE, when
/// the match starts (the others search meanwhile).
const TRIAL: Duration = Duration::from_secs(12);

/// What the start-of-match trials decided, each once it is over.
#[derive(Default)]
struct Trials {
    /// The heuristic's evaluation: `None` inside when it was left out.
    evaluation: OnceLock<Option<Arc<Evaluation>>>,
    /// Whether GRAVE was kept.
    grave: OnceLock<bool>,
}

/// The root statistics one thread published.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// How many joint moves the root is past the initial state.
    pub ply: usize,
    /// The player's moves at the root (canonical text), with visits and
    /// summed value.
    pub moves: Vec<(String, u64, f64)>,
    /// Search iterations this thread ran since the match started.
    pub iterations: u64,
}

/// The search threads of one match.
pub struct Workers {
    advance: Vec<Sender<(usize, Vec<String>)>>,
    snapshots: Vec<Arc<Mutex<Snapshot>>>,
    stop: Arc<AtomicBool>,
}

impl Workers {
    /// Starts `threads` threads searching for role `role` from the initial
    /// state, each with a reasoner from `factory` and at most `max_nodes`;
    /// with `trial`, the first tries the heuristic ([`heuristic_trial`])
    /// and then GRAVE ([`grave_trial`]) before it searches, and every
    /// thread's tree uses what was kept from then on.
    pub fn start<R: Reasoner + 'static>(
        factory: &Factory<R>,
        role: usize,
        threads: usize,
        max_nodes: usize,
        stop: Arc<AtomicBool>,
        trial: bool,
    ) -> Self {
        let mut workers = Workers {
            advance: Vec::new(),
            snapshots: Vec::new(),
            stop,
        };
        let trials = Arc::new(Trials::default());
        if !trial {
            let _ = trials.evaluation.set(None);
            let _ = trials.grave.set(false);
        }
        for k in 0..threads.max(1) {
            let (tx, rx) = channel();
            let snapshot = Arc::new(Mutex::new(Snapshot::default()));
            let worker = Worker {
                role,
                max_nodes,
                snapshot: Arc::clone(&snapshot),
                stop: Arc::clone(&workers.stop),
                commands: rx,
                trials: Arc::clone(&trials),
            };
            let factory = Arc::clone(factory);
            let spawned = std::thread::Builder::new()
                .name(format!("search-{k}"))
                .spawn(move || {
                    let result = catch_unwind(AssertUnwindSafe(|| worker.run(&*factory, k as u64)));
                    if result.is_err() {
                        eprintln!("gdlc-player: search thread {k} stopped: the reasoner panicked");
                    }
                });
            if let Err(e) = spawned {
                eprintln!("gdlc-player: cannot start search thread {k}: {e}");
                continue;
            }
            workers.advance.push(tx);
            workers.snapshots.push(snapshot);
        }
        workers
    }

    /// Tells every thread that the joint move `joint` (canonical texts) was
    /// played, making `ply` joint moves since the start.
    pub fn advance(&self, ply: usize, joint: &[String]) {
        for tx in &self.advance {
            // A thread that stopped no longer searches; the others go on.
            let _ = tx.send((ply, joint.to_vec()));
        }
    }

    /// The merged root statistics of the threads already at `ply`: per move
    /// text, the summed visits and value; and the iterations of all threads.
    pub fn merged(&self, ply: usize) -> (Vec<(String, u64, f64)>, u64) {
        let mut merged: Vec<(String, u64, f64)> = Vec::new();
        let mut iterations = 0;
        for snapshot in &self.snapshots {
            let s = match snapshot.lock() {
                Ok(s) => s.clone(),
                Err(poisoned) => poisoned.into_inner().clone(),
            };
            iterations += s.iterations;
            if s.ply != ply {
                continue;
            }
            for (text, visits, value) in s.moves {
                match merged.iter_mut().find(|(t, ..)| *t == text) {
                    Some(m) => {
                        m.1 += visits;
                        m.2 += value;
                    }
                    None => merged.push((text, visits, value)),
                }
            }
        }
        (merged, iterations)
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

struct Worker {
    role: usize,
    max_nodes: usize,
    snapshot: Arc<Mutex<Snapshot>>,
    stop: Arc<AtomicBool>,
    commands: Receiver<(usize, Vec<String>)>,
    trials: Arc<Trials>,
}

impl Worker {
    fn run<R: Reasoner>(self, factory: &(dyn Fn() -> R + Send + Sync), seed: u64) {
        let mut r = factory();
        if seed == 0 {
            self.try_techniques(&mut r);
        }
        let initial = r.initial_state();
        let mut tree = Tree::new(&mut r, initial, self.max_nodes, seed);
        let mut adopted = (false, false);
        let mut ply = 0;
        let mut published = Instant::now();
        self.publish(&r, &tree, ply);
        while !self.stop.load(Ordering::Relaxed) {
            let command = if tree.root_is_terminal() {
                // Nothing to search: wait for the next move or the end.
                self.commands
                    .recv_timeout(Duration::from_millis(50))
                    .map_err(|e| match e {
                        RecvTimeoutError::Timeout => TryRecvError::Empty,
                        RecvTimeoutError::Disconnected => TryRecvError::Disconnected,
                    })
            } else {
                self.commands.try_recv()
            };
            match command {
                Ok((to, joint)) => {
                    let moves: Option<Vec<R::Move>> = joint
                        .iter()
                        .enumerate()
                        .map(|(role, m)| r.parse_move(role, m))
                        .collect();
                    let Some(moves) = moves else {
                        eprintln!(
                            "gdlc-player: search thread cannot read the joint move {joint:?}"
                        );
                        return;
                    };
                    tree.advance(&mut r, &moves);
                    ply = to;
                    self.publish(&r, &tree, ply);
                    published = Instant::now();
                }
                Err(TryRecvError::Disconnected) => return,
                Err(TryRecvError::Empty) => {}
            }
            tree.iterate(&mut r);
            if published.elapsed() >= PUBLISH_EVERY {
                self.publish(&r, &tree, ply);
                published = Instant::now();
                self.adopt_trials(&mut tree, &mut adopted);
            }
        }
    }

    /// The start-of-match trials, unless they are decided already.
    fn try_techniques<R: Reasoner>(&self, r: &mut R) {
        if self.trials.evaluation.get().is_none() {
            let _ = self.trials.evaluation.set(heuristic_trial(r, TRIAL, 0));
        }
        if self.trials.grave.get().is_none() {
            let _ = self.trials.grave.set(grave_trial(r, TRIAL, 0));
        }
    }

    /// Gives `tree` what the trials kept, each once decided; `adopted`
    /// says which of the heuristic and GRAVE it has been given.
    fn adopt_trials<R: Reasoner>(&self, tree: &mut Tree<R>, adopted: &mut (bool, bool)) {
        if !adopted.0 {
            if let Some(kept) = self.trials.evaluation.get() {
                tree.set_evaluation(kept.clone());
                adopted.0 = true;
            }
        }
        if !adopted.1 {
            if let Some(&kept) = self.trials.grave.get() {
                tree.set_grave(kept);
                adopted.1 = true;
            }
        }
    }

    fn publish<R: Reasoner>(&self, r: &R, tree: &Tree<R>, ply: usize) {
        let moves = tree
            .root_moves(self.role)
            .into_iter()
            .map(|(m, s)| (r.move_text(self.role, m), s.visits, s.value))
            .collect();
        let snapshot = Snapshot {
            ply,
            moves,
            iterations: tree.iterations(),
        };
        match self.snapshot.lock() {
            Ok(mut s) => *s = snapshot,
            Err(poisoned) => *poisoned.into_inner() = snapshot,
        }
    }
}
