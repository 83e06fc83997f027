//! Root parallelism: one search thread per core, each with its own reasoner
//! and its own [`Search`], searching without pause for the whole match. A
//! thread publishes its root's statistics (by move text, so that reasoners
//! built separately agree) in a snapshot at most every few milliseconds;
//! the match reads and merges the snapshots at its deadline without
//! waiting for any thread, so a slow playout can never make an answer late.

use crate::search::{factored, Evaluation, Factoring, Search, Techniques};
use crate::selfplay::{factoring_trial, greedy_trial, heuristic_trial};
use crate::Factory;
use gdl_runtime::Reasoner;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How often a thread publishes its root statistics.
const PUBLISH_EVERY: Duration = Duration::from_millis(5);
/// How long the first thread tries each technique (a tree per factor,
/// where the game has factors; else greedy playouts, and then the
/// heuristic) when the match starts (the others search meanwhile).
const TRIAL: Duration = Duration::from_secs(12);

/// What the start-of-match trials decided, each once it is over.
#[derive(Default)]
struct Trials {
    /// The heuristic's evaluation: `None` inside when it was left out.
    evaluation: OnceLock<Option<Arc<Evaluation>>>,
    /// Whether greedy playouts were kept.
    greedy: OnceLock<bool>,
    /// Whether a tree per factor was kept.
    factoring: OnceLock<bool>,
}

/// Which of the trials' outcomes a thread's search has been given.
#[derive(Default)]
struct Adopted {
    evaluation: bool,
    greedy: bool,
    factoring: bool,
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
    /// with `trial`, the first tries a tree per factor where the game has
    /// factors ([`factoring_trial`]), and where that is not kept greedy
    /// playouts ([`greedy_trial`]) and then the heuristic
    /// ([`heuristic_trial`]), before it searches; every thread's search uses what was kept from
    /// then on.
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
            let _ = trials.greedy.set(false);
            let _ = trials.factoring.set(false);
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
        let initial = r.initial_state();
        let factoring = (self.trials.factoring.get() != Some(&false))
            .then(|| factored::find(&mut r, &initial, 0).map(Arc::new))
            .flatten();
        if seed == 0 {
            self.try_techniques(&mut r, factoring.as_ref());
        }
        let techniques = Techniques::default();
        let mut tree = Search::new(&mut r, initial, self.max_nodes, seed, techniques, None);
        let mut adopted = Adopted::default();
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
                self.adopt_trials(&mut r, &mut tree, &mut adopted, factoring.as_ref(), seed);
            }
        }
    }

    /// The start-of-match trials, unless they are decided already: a tree
    /// per factor where the game has `factoring`; where that is kept, with
    /// greedy playouts and without the heuristic (which a search by
    /// factors does not use), else greedy playouts' trial and the
    /// heuristic's. Greedy playouts are not tried under the factors'
    /// trees: at the trial's 25 ms a move they lose there, and at a
    /// second a move, nearer a match's clock, they win (docs/PLAYER.md).
    fn try_techniques<R: Reasoner>(&self, r: &mut R, factoring: Option<&Arc<Factoring<R::Move>>>) {
        if self.trials.factoring.get().is_none() {
            let kept = factoring.is_some_and(|f| {
                eprintln!("gdlc-player: the game falls into {} factors", f.count());
                factoring_trial(r, TRIAL, 0)
            });
            let _ = self.trials.factoring.set(kept);
        }
        if self.trials.factoring.get() == Some(&true) {
            let _ = self.trials.evaluation.set(None);
            if self.trials.greedy.set(true).is_ok() {
                eprintln!("gdlc-player: greedy playouts past the factors' trees");
            }
        }
        if self.trials.greedy.get().is_none() {
            let _ = self.trials.greedy.set(greedy_trial(r, TRIAL, 0));
        }
        if self.trials.evaluation.get().is_none() {
            let base = Techniques {
                greedy: self.trials.greedy.get() == Some(&true),
                ..Techniques::default()
            };
            let _ = self
                .trials
                .evaluation
                .set(heuristic_trial(r, TRIAL, 0, base));
        }
    }

    /// Gives `tree` what the trials kept, each once decided; `adopted`
    /// says which it has been given. A kept tree per factor replaces the
    /// joint tree, from its root state on.
    fn adopt_trials<R: Reasoner>(
        &self,
        r: &mut R,
        tree: &mut Search<R>,
        adopted: &mut Adopted,
        factoring: Option<&Arc<Factoring<R::Move>>>,
        seed: u64,
    ) {
        if !adopted.factoring {
            if let Some(&kept) = self.trials.factoring.get() {
                if kept {
                    let state = tree.root_state().clone();
                    let techniques = Techniques {
                        factoring: true,
                        ..Techniques::default()
                    };
                    *tree = Search::new(r, state, self.max_nodes, seed, techniques, factoring);
                }
                adopted.factoring = true;
            }
        }
        if !adopted.evaluation {
            if let Some(kept) = self.trials.evaluation.get() {
                tree.set_evaluation(kept.clone());
                adopted.evaluation = true;
            }
        }
        if !adopted.greedy {
            if let Some(&kept) = self.trials.greedy.get() {
                tree.set_greedy(kept);
                adopted.greedy = true;
            }
        }
    }

    fn publish<R: Reasoner>(&self, r: &R, tree: &Search<R>, ply: usize) {
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
