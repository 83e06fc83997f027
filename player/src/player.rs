//! The player: answers each GGP message (already read from HTTP) as
//! `GGP-PROTOCOL.md` says, holding at most one match. It is shared by every
//! connection's thread; only START, PLAY and STOP wait on the match thread,
//! so INFO and ABORT are answered at once while a PLAY is computed.

use crate::clock::Margin;
use crate::message::{self, Message};
use crate::session::{self, Request, Setup, Step};
use crate::spelling::Spelling;
use crate::{Loader, Settings};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// An answer: the HTTP status and the body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// 200, or an HTTP error for a request that cannot be served.
    pub status: u16,
    /// The body (never empty).
    pub body: String,
    /// For a move, the deadline it was chosen at: the HTTP front reports
    /// when the answer was written ([`Player::answered`]).
    pub deadline: Option<Instant>,
}

impl Reply {
    fn ok(body: impl Into<String>) -> Self {
        Reply {
            status: 200,
            body: body.into(),
            deadline: None,
        }
    }

    fn error(status: u16, why: impl Into<String>) -> Self {
        let why = why.into();
        eprintln!("gdlc-player: answered {status}: {why}");
        Reply {
            status,
            body: why,
            deadline: None,
        }
    }
}

/// The match being played.
struct Running {
    id: String,
    requests: Sender<Request>,
    stop: Arc<AtomicBool>,
    start_clock: Duration,
    play_clock: Duration,
    last_message: Instant,
}

impl Running {
    /// Whether the game manager seems gone: no message for longer than the
    /// start clock plus two play clocks plus 10 s.
    fn abandoned(&self) -> bool {
        self.last_message.elapsed()
            > self.start_clock + 2 * self.play_clock + Duration::from_secs(10)
    }
}

/// A GGP player over the games of its [`Loader`].
pub struct Player<L: Loader> {
    loader: L,
    name: String,
    settings: Settings,
    current: Mutex<Option<Running>>,
    /// The time kept back from each clock, adapted to the latency of the
    /// answers written.
    margin: Mutex<Margin>,
}

impl<L: Loader> Player<L> {
    /// A player named `name` (for INFO), playing with `settings`.
    pub fn new(loader: L, name: impl Into<String>, settings: Settings) -> Self {
        Player {
            loader,
            name: name.into(),
            margin: Mutex::new(Margin::new(settings.margin)),
            settings,
            current: Mutex::new(None),
        }
    }

    fn current(&self) -> MutexGuard<'_, Option<Running>> {
        // The lock guards plain data; a panic elsewhere leaves it usable.
        self.current.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn margin(&self) -> MutexGuard<'_, Margin> {
        self.margin.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Takes in that the move chosen at `deadline` was written at
    /// `written`: later answers keep back the latency this shows.
    pub fn answered(&self, deadline: Instant, written: Instant) {
        let after = written.saturating_duration_since(deadline);
        if let Some(late) = self.margin().answered(after) {
            eprintln!(
                "gdlc-player: an answer went out {} ms after its deadline; {} ms of latency kept back",
                after.as_millis(),
                late.as_millis()
            );
        }
    }

    /// Answers one message body, received at `received`.
    pub fn handle(&self, body: &str, received: Instant) -> Reply {
        let message = match message::parse(body) {
            Ok(m) => m,
            Err(e) => return Reply::error(400, e.to_string()),
        };
        match message {
            Message::Info => {
                let status = if self.current().is_some() {
                    "busy"
                } else {
                    "available"
                };
                Reply::ok(format!("( ( name {} ) ( status {status} ) )", self.name))
            }
            Message::Preview => Reply::ok("ready"),
            Message::Start {
                id,
                role,
                description,
                start_clock,
                play_clock,
            } => self.start(id, role, &description, start_clock, play_clock, received),
            Message::Play { id, moves, own } => self.play(&id, Step { moves, own }, received),
            Message::Stop { id, moves, own } => self.stop(&id, Step { moves, own }),
            Message::Abort { id } => self.abort(&id),
        }
    }

    fn start(
        &self,
        id: String,
        role: String,
        description: &str,
        start_clock: Duration,
        play_clock: Duration,
        received: Instant,
    ) -> Reply {
        {
            let mut current = self.current();
            if let Some(running) = current.as_ref() {
                if !running.abandoned() {
                    eprintln!(
                        "gdlc-player: START {id} while in match {}: busy",
                        running.id
                    );
                    return Reply::ok("busy");
                }
                eprintln!(
                    "gdlc-player: match {} abandoned (no message for too long)",
                    running.id
                );
                running.stop.store(true, Ordering::Relaxed);
                *current = None;
            }
        }
        let spelling = match crate::sexpr::parse(description) {
            Ok(expr) => Spelling::of(&expr),
            Err(e) => return Reply::error(400, format!("START {id}: the description: {e}")),
        };
        let factory = match self.loader.load(description) {
            Ok(f) => f,
            Err(why) => return Reply::error(400, format!("START {id}: {why}")),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let setup = Setup {
            compile: self.loader.compiler(description),
            factory,
            role,
            spelling,
            stop: Arc::clone(&stop),
        };
        let ready = session::start(setup, self.settings.clone());
        let margin = self.margin().of(start_clock);
        let wait = (received + start_clock.saturating_sub(margin))
            .saturating_duration_since(Instant::now());
        let requests = match ready.recv_timeout(wait) {
            Ok(Ok(requests)) => requests,
            Ok(Err(why)) => return Reply::error(400, format!("START {id}: {why}")),
            Err(_) => {
                stop.store(true, Ordering::Relaxed);
                return Reply::error(
                    503,
                    format!("START {id}: the reasoner was not ready within the start clock"),
                );
            }
        };
        let mut current = self.current();
        if let Some(other) = current.as_ref() {
            // Another START won the race while this one was loading.
            stop.store(true, Ordering::Relaxed);
            eprintln!("gdlc-player: START {id} while in match {}: busy", other.id);
            return Reply::ok("busy");
        }
        eprintln!("gdlc-player: match {id} started");
        *current = Some(Running {
            id,
            requests,
            stop,
            start_clock,
            play_clock,
            last_message: Instant::now(),
        });
        Reply::ok("ready")
    }

    /// The request channel of the running match `id`, noting the message.
    fn find(&self, id: &str) -> Option<(Sender<Request>, Duration)> {
        let mut current = self.current();
        let running = current.as_mut().filter(|r| r.id == id)?;
        running.last_message = Instant::now();
        Some((running.requests.clone(), running.play_clock))
    }

    fn play(&self, id: &str, moves: Step, received: Instant) -> Reply {
        let Some((requests, play_clock)) = self.find(id) else {
            eprintln!("gdlc-player: PLAY for match {id}, which is not being played: busy");
            return Reply::ok("busy");
        };
        let (tx, rx) = channel();
        let deadline = received + play_clock.saturating_sub(self.margin().of(play_clock));
        if requests.send(Request::Play(moves, deadline, tx)).is_err() {
            self.end(id);
            return Reply::error(500, format!("match {id} has stopped"));
        }
        match rx.recv_timeout(play_clock + Duration::from_secs(2)) {
            Ok(Ok(text)) => Reply {
                deadline: Some(deadline),
                ..Reply::ok(text)
            },
            Ok(Err(why)) => Reply::error(400, format!("PLAY {id}: {why}")),
            Err(RecvTimeoutError::Timeout) => {
                Reply::error(503, format!("PLAY {id}: no move in time"))
            }
            Err(RecvTimeoutError::Disconnected) => {
                self.end(id);
                Reply::error(500, format!("match {id} has stopped"))
            }
        }
    }

    fn stop(&self, id: &str, moves: Step) -> Reply {
        let Some((requests, play_clock)) = self.find(id) else {
            eprintln!("gdlc-player: STOP for match {id}, which is not being played: busy");
            return Reply::ok("busy");
        };
        let (tx, rx) = channel();
        if requests.send(Request::Stop(moves, tx)).is_ok() {
            // The outcome is logged by the match; STOP is answered either way.
            let _ = rx.recv_timeout(play_clock);
        }
        self.end(id);
        eprintln!("gdlc-player: match {id} stopped");
        Reply::ok("done")
    }

    fn abort(&self, id: &str) -> Reply {
        if self.end(id) {
            eprintln!("gdlc-player: match {id} aborted");
            Reply::ok("aborted")
        } else {
            eprintln!("gdlc-player: ABORT for match {id}, which is not being played: busy");
            Reply::ok("busy")
        }
    }

    /// Ends match `id` if it is the running one: its search stops at once.
    fn end(&self, id: &str) -> bool {
        let mut current = self.current();
        match current.as_ref() {
            Some(running) if running.id == id => {
                running.stop.store(true, Ordering::Relaxed);
                *current = None;
                true
            }
            _ => false,
        }
    }
}
