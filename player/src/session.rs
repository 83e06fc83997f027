//! One match: a thread that owns the match's own reasoner (reasoners need
//! not be `Send`), keeps the current state, checks the joint moves the game
//! manager reports, drives the search threads and answers each PLAY at its
//! deadline from their merged statistics.

use crate::belief::{normal, Beliefs};
use crate::engines::{build_in_background, Engines};
use crate::message::Own;
use crate::spelling::Spelling;
use crate::unseen::Unseen;
use crate::workers::Workers;
use crate::{Compile, Factory, Settings};
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

/// What a PLAY or STOP reports of the step just played.
pub struct Step {
    /// The joint move (in a GDL-II match, this player's percepts); `None`
    /// for `NIL`.
    pub moves: Option<Vec<String>>,
    /// The turn and own move of the Dresden server's later GDL-II form.
    pub own: Option<Own>,
}

/// A request to the match thread, with where to send its answer.
pub enum Request {
    /// A PLAY: the step just played, when to answer, and the channel for
    /// the move text (or why not).
    Play(Step, Instant, Sender<Result<String, String>>),
    /// A STOP with the last step.
    Stop(Step, Sender<Result<(), String>>),
}

/// What a match needs to start.
pub struct Setup<R: Reasoner> {
    /// Makes the reasoners of the match's game.
    pub factory: Factory<R>,
    /// This player's role, as the START named it.
    pub role: String,
    /// The description's spelling of its symbols.
    pub spelling: Spelling,
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
    /// The search threads; none in a GDL-II match, played from `beliefs`.
    engines: Option<Engines>,
    /// What this player knows in a GDL-II match (a game with `sees`).
    beliefs: Option<Beliefs<R>>,
    /// The compiled search of a GDL-II match, once built.
    unseen: Option<Unseen>,
    /// The move this player last answered.
    sent: Option<R::Move>,
    spelling: Spelling,
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
        let beliefs = r.has_percepts().then(|| Beliefs::new(&mut r, role));
        let mut compile = setup.compile;
        let unseen = beliefs
            .is_some()
            .then(|| compile.take())
            .flatten()
            .map(|job| Unseen::new(build_in_background(job), role));
        let engines = beliefs.is_none().then(|| {
            // Their own flag: they stop when the compiled worker takes over,
            // or when the session ends (dropping them), not with the match.
            let workers = Workers::start(
                &setup.factory,
                role,
                settings.threads,
                settings.max_nodes,
                Arc::new(AtomicBool::new(false)),
                // The heuristic is tried only in the compiled worker: its
                // self-play needs the compiled reasoner's speed.
                false,
            );
            Engines::new(workers, compile.take(), role, settings.clone())
        });
        Ok(Session {
            r,
            state,
            ply: 0,
            role,
            engines,
            beliefs,
            unseen,
            sent: None,
            spelling: setup.spelling,
            stop: setup.stop,
            rng: Xoshiro256PlusPlus::seed_from_u64(0x9e37_79b9),
        })
    }

    fn serve(&mut self, requests: &Receiver<Request>) {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            self.engines.iter_mut().for_each(Engines::poll);
            self.unseen.iter_mut().for_each(Unseen::poll);
            let request = match requests.recv_timeout(POLL_EVERY) {
                Ok(request) => request,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => return,
            };
            match request {
                Request::Play(step, deadline, reply) => {
                    let answer = if self.beliefs.is_some() {
                        self.play_unseen(step, deadline)
                    } else if step.own.is_some() {
                        Err("a GDL-II PLAY (with a turn) in a game without `sees`".into())
                    } else {
                        self.play(step.moves, deadline)
                    };
                    if let Err(why) = &answer {
                        eprintln!("gdlc-player: PLAY refused: {why}");
                    }
                    let _ = reply.send(answer);
                    if let Some(beliefs) = &mut self.beliefs {
                        // Off the clock: the move is answered.
                        drop(beliefs.take_spent());
                    }
                }
                Request::Stop(step, reply) => {
                    let applied = match step.moves {
                        Some(moves) if self.beliefs.is_none() => self.apply(&moves),
                        _ => Ok(()),
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
    fn play(&mut self, moves: Option<Vec<String>>, deadline: Instant) -> Result<String, String> {
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
        let mut legal = Vec::new();
        self.r.legal_moves(&self.state, self.role, &mut legal);
        if let Some(only) = self.forced_move(&legal) {
            return Ok(self.spelling.spell(&only));
        }
        while Instant::now() < deadline {
            if self.stop.load(Ordering::Relaxed) {
                return Err("the match was aborted".into());
            }
            self.engines.iter_mut().for_each(Engines::poll);
            std::thread::sleep((deadline - Instant::now()).min(Duration::from_millis(5)));
        }
        let best = self.best_move(&legal)?;
        Ok(self.spelling.spell(&best))
    }

    /// Answers a PLAY of a GDL-II match: takes in this player's move and
    /// percepts, then plays the move legal in every state it thinks
    /// possible with the best value by determinized UCT over them until
    /// the deadline (the role `random` a chance node, never an opponent).
    fn play_unseen(&mut self, step: Step, deadline: Instant) -> Result<String, String> {
        let first = match &step.own {
            Some(own) => own.turn == 0,
            None => step.moves.is_none(),
        };
        if !first {
            self.perceive(step)?;
        }
        let beliefs = self.beliefs.as_mut().ok_or("not a GDL-II match")?;
        let r = &mut self.r;
        let role = self.role;
        let compiled = (self.unseen.as_mut())
            .and_then(|u| u.choose(deadline))
            .and_then(|(text, value, n)| Some((r.parse_move(role, &text)?, value, n)));
        let by = if compiled.is_some() {
            "compiled"
        } else {
            "interpreter"
        };
        let (best, value, iterations) = match compiled {
            Some(chosen) => chosen,
            None => beliefs.decide(r, deadline, &mut self.rng)?,
        };
        let text = r.move_text(role, best);
        eprintln!(
            "gdlc-player: step {}: {text} (value {value:.2} over {iterations} iterations, {by})",
            self.ply + 1
        );
        self.sent = Some(best);
        Ok(self.spelling.spell(&text))
    }

    /// Takes in a GDL-II step: this player's own move (as the later form
    /// reports it, else as it answered) and its percepts.
    fn perceive(&mut self, step: Step) -> Result<(), String> {
        let reported = step.own.and_then(|own| own.last_move);
        let mine = match reported {
            Some(text) => gdl_runtime::kif::canonical(&text.to_lowercase())
                .and_then(|t| self.r.parse_move(self.role, &t))
                .ok_or_else(|| format!("`{text}` is not a move of this player's role"))?,
            None => self
                .sent
                .ok_or("a step reported before this player moved")?,
        };
        let beliefs = self.beliefs.as_mut().ok_or("not a GDL-II match")?;
        let percepts = step.moves.unwrap_or_default();
        if let Some(unseen) = &mut self.unseen {
            let seen = percepts.iter().map(|p| normal(p)).collect();
            unseen.seen(self.r.move_text(self.role, mine), seen);
        }
        if let Err(why) = beliefs.advance(&mut self.r, mine, &percepts, &mut self.rng) {
            eprintln!("gdlc-player: step {}: {why}", self.ply + 1);
        }
        self.ply += 1;
        Ok(())
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
        if let Some(engines) = &mut self.engines {
            engines.advance(texts);
        }
        Ok(())
    }

    /// The player's move when `legal`, its legal moves, hold only one (a
    /// turn-taking game's `noop`), answered at once: nothing to search,
    /// and no answer that a loaded machine can make late. The search goes
    /// on meanwhile.
    fn forced_move(&self, legal: &[R::Move]) -> Option<String> {
        let [only] = legal[..] else {
            return None;
        };
        let text = self.r.move_text(self.role, only);
        eprintln!(
            "gdlc-player: step {}: {text} (the only legal move, answered at once)",
            self.ply + 1
        );
        Some(text)
    }

    /// The most visited of `legal`, the player's legal moves, in the
    /// merged search, else a random one.
    fn best_move(&mut self, legal: &[R::Move]) -> Result<String, String> {
        let engines = self.engines.as_mut().ok_or("no search in a GDL-II match")?;
        let merged = engines.merged(self.ply);
        let rates = engines.rates();
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
