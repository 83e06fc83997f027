//! One match: a thread that owns the match's own reasoner (reasoners need
//! not be `Send`), keeps the current state, checks the joint moves the game
//! manager reports, drives the search threads and answers each PLAY at its
//! deadline from their merged statistics.

use crate::engines::Engines;
use crate::spelling::Spelling;
use crate::workers::Workers;
use crate::{Compile, Factory};
use gdl_runtime::Reasoner;
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often the match thread looks whether the compiled worker is ready.
const POLL_EVERY: Duration = Duration::from_millis(20);

/// A request to the match thread, with where to send its answer.
pub enum Request {
    /// A PLAY: the joint move just played (`None` for `NIL`), when the
    /// request arrived, and the channel for the move text (or why not).
    Play(Option<Vec<String>>, Instant, Sender<Result<String, String>>),
    /// A STOP with the last joint move.
    Stop(Option<Vec<String>>, Sender<Result<(), String>>),
}

/// How a match is played.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Search threads.
    pub threads: usize,
    /// Time kept back from the play clock for sending the answer.
    pub margin: Duration,
    /// Most nodes of each thread's tree.
    pub max_nodes: usize,
}

/// What a match needs to start.
pub struct Setup<R: Reasoner> {
    /// Makes the reasoners of the match's game.
    pub factory: Factory<R>,
    /// This player's role, as the START named it.
    pub role: String,
    /// The description's spelling of its symbols.
    pub spelling: Spelling,
    /// The play clock.
    pub play_clock: Duration,
    /// Set to stop the match and its search.
    pub stop: Arc<AtomicBool>,
    /// Builds the compiled search worker in the background, if the loader
    /// compiles.
    pub compile: Option<Compile>,
}

/// Starts the match thread; answers the channel for its requests once the
/// reasoner is built and the role found, or why not.
pub fn start<R: Reasoner + 'static>(
    setup: Setup<R>,
    settings: Settings,
) -> Receiver<Result<Sender<Request>, String>> {
    let (ready_tx, ready_rx) = channel();
    let spawned = std::thread::Builder::new()
        .name("match".into())
        .spawn(move || {
            let stop = Arc::clone(&setup.stop);
            let (tx, rx) = channel();
            let built = catch_unwind(AssertUnwindSafe(|| Session::new(setup, &settings)));
            let mut session = match built {
                Ok(Ok(session)) => session,
                Ok(Err(why)) => {
                    let _ = ready_tx.send(Err(why));
                    return;
                }
                Err(_) => {
                    let _ = ready_tx.send(Err("the reasoner panicked while starting".into()));
                    return;
                }
            };
            if ready_tx.send(Ok(tx)).is_err() {
                return;
            }
            let served = catch_unwind(AssertUnwindSafe(|| session.serve(&rx)));
            if served.is_err() {
                eprintln!("gdlc-player: the match stopped: its reasoner panicked");
            }
            stop.store(true, Ordering::Relaxed);
        });
    if let Err(e) = spawned {
        let (tx, rx) = channel();
        let _ = tx.send(Err(format!("cannot start the match thread: {e}")));
        return rx;
    }
    ready_rx
}

struct Session<R: Reasoner> {
    r: R,
    state: R::State,
    ply: usize,
    role: usize,
    engines: Engines,
    spelling: Spelling,
    play_clock: Duration,
    margin: Duration,
    stop: Arc<AtomicBool>,
    rng: Xoshiro256PlusPlus,
}

impl<R: Reasoner + 'static> Session<R> {
    fn new(setup: Setup<R>, settings: &Settings) -> Result<Self, String> {
        let mut r = (setup.factory)();
        let wanted = setup.role.to_lowercase();
        let role = r
            .roles()
            .iter()
            .position(|name| *name == wanted)
            .ok_or_else(|| {
                format!(
                    "the game has no role `{}` (roles: {})",
                    setup.role,
                    r.roles().join(" ")
                )
            })?;
        let state = r.initial_state();
        // Their own flag: they stop when the compiled worker takes over, or
        // when the session ends (dropping them), not with the match.
        let workers = Workers::start(
            &setup.factory,
            role,
            settings.threads,
            settings.max_nodes,
            Arc::new(AtomicBool::new(false)),
        );
        let engines = Engines::new(workers, setup.compile, role, settings.clone());
        Ok(Session {
            r,
            state,
            ply: 0,
            role,
            engines,
            spelling: setup.spelling,
            play_clock: setup.play_clock,
            margin: settings.margin,
            stop: setup.stop,
            rng: Xoshiro256PlusPlus::seed_from_u64(0x9e37_79b9),
        })
    }

    fn serve(&mut self, requests: &Receiver<Request>) {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            self.engines.poll();
            let request = match requests.recv_timeout(POLL_EVERY) {
                Ok(request) => request,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return,
            };
            match request {
                Request::Play(moves, received, reply) => {
                    let answer = self.play(moves, received);
                    if let Err(why) = &answer {
                        eprintln!("gdlc-player: PLAY refused: {why}");
                    }
                    let _ = reply.send(answer);
                }
                Request::Stop(moves, reply) => {
                    let applied = match moves {
                        Some(moves) => self.apply(&moves),
                        None => Ok(()),
                    };
                    if let Err(why) = &applied {
                        eprintln!("gdlc-player: STOP with a joint move not applied: {why}");
                    }
                    let _ = reply.send(applied);
                    return;
                }
            }
        }
    }

    /// Applies the joint move, waits for the deadline and answers a move.
    fn play(&mut self, moves: Option<Vec<String>>, received: Instant) -> Result<String, String> {
        match moves {
            Some(moves) => self.apply(&moves)?,
            None if self.ply > 0 => {
                eprintln!(
                    "gdlc-player: PLAY with NIL after {} moves: answering from the current state",
                    self.ply
                );
            }
            None => {}
        }
        if self.r.is_terminal(&self.state) {
            return Err("the game is over: the current state is terminal".into());
        }
        let deadline = received + self.play_clock.saturating_sub(self.margin);
        while Instant::now() < deadline {
            if self.stop.load(Ordering::Relaxed) {
                return Err("the match was aborted".into());
            }
            self.engines.poll();
            std::thread::sleep((deadline - Instant::now()).min(Duration::from_millis(5)));
        }
        let best = self.best_move()?;
        Ok(self.spelling.spell(&best))
    }

    /// Checks a joint move (one legal move per role) and plays it.
    fn apply(&mut self, moves: &[String]) -> Result<(), String> {
        let roles = self.r.roles().len();
        if moves.len() != roles {
            return Err(format!("{} moves for {roles} roles", moves.len()));
        }
        let mut joint = Vec::with_capacity(roles);
        let mut legal = Vec::new();
        for (role, text) in moves.iter().enumerate() {
            let m = gdl_runtime::kif::canonical(text)
                .and_then(|t| self.r.parse_move(role, &t))
                .ok_or_else(|| format!("`{text}` is not a move of {}", self.r.roles()[role]))?;
            self.r.legal_moves(&self.state, role, &mut legal);
            if !legal.contains(&m) {
                return Err(format!(
                    "`{text}` is not legal for {} here",
                    self.r.roles()[role]
                ));
            }
            joint.push(m);
        }
        self.state = self.r.next_state(&self.state, &joint);
        self.ply += 1;
        let texts: Vec<String> = joint
            .iter()
            .enumerate()
            .map(|(role, &m)| self.r.move_text(role, m))
            .collect();
        self.engines.advance(texts);
        Ok(())
    }

    /// The most visited legal move of the merged search, else a random one.
    fn best_move(&mut self) -> Result<String, String> {
        let merged = self.engines.merged(self.ply);
        let mut legal = Vec::new();
        self.r.legal_moves(&self.state, self.role, &mut legal);
        let rates = self.engines.rates();
        let best = merged
            .iter()
            .filter(|(text, ..)| {
                self.r
                    .parse_move(self.role, text)
                    .is_some_and(|m| legal.contains(&m))
            })
            .max_by(|a, b| a.1.cmp(&b.1).then(mean(a).total_cmp(&mean(b))));
        match best {
            Some(best) => {
                eprintln!(
                    "gdlc-player: step {}: {} ({} visits, value {:.2}; {rates})",
                    self.ply + 1,
                    best.0,
                    best.1,
                    mean(best)
                );
                Ok(best.0.clone())
            }
            None => {
                let pick = crate::search::below(&mut self.rng, legal.len());
                let m = legal
                    .get(pick)
                    .ok_or("this player has no legal move here")?;
                eprintln!(
                    "gdlc-player: step {}: no search result, a random legal move",
                    self.ply + 1
                );
                Ok(self.r.move_text(self.role, *m))
            }
        }
    }
}

fn mean(m: &(String, u64, f64)) -> f64 {
    m.2 / m.1.max(1) as f64
}
