//! The Python classes of a game — `Game`, `State` and `Move` — over any
//! `gdl_runtime::Reasoner`: the interpreter in the `gdlc._native` module,
//! and each compiled game in an extension module of its own, whose crate
//! carries this same file (`gdlc-python`'s `compiled.rs` writes it there).
//!
//! A `Game` holds its reasoner behind [`DynGame`], which hides the
//! reasoner's types: states are `Arc<dyn Any>`, moves are numbers interned
//! per game. Every state and move remembers the game that made it, so one
//! passed to another game raises instead of being misread. The long runs
//! (`perft`, `random_playouts`) build reasoners of their own, release
//! the GIL and stop at Ctrl-C.

use gdl_runtime::{
    parallel_flat_monte_carlo, parallel_perft, percept_texts, McBudget, PerceptError, Reasoner,
};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::True;
use pyo3::pyclass::PyClass;
use pyo3::types::{PyByteArray, PyTuple};
use rustc_hash::FxHashMap;
use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

/// A state of some reasoner, its type hidden.
type AnyState = Arc<dyn Any + Send + Sync>;

/// Makes a fresh reasoner of the game (one per thread of a parallel run).
pub type Make<R> = Arc<dyn Fn() -> R + Send + Sync>;

/// A perft run on a reasoner of its own: `(nodes, leaves)` per depth.
/// Its root is the state of the given fluents, else the initial state (a
/// state travels between reasoners as its fluents: an interpreter's state
/// is made of its own term numbers).
type PerftRun = Box<dyn FnOnce(PerftAsked, Stop) -> Result<Vec<(u64, u64)>, String> + Send>;

/// Set when Python is interrupted (Ctrl-C) during a long run: the run's
/// reasoners then answer that every state is terminal ([`Driven`]).
type Stop = Arc<AtomicBool>;

/// What `perft` asks.
struct PerftAsked {
    depth: u32,
    root: Option<Vec<String>>,
    threads: usize,
}

/// A run of random playouts on reasoners of its own.
type PlayoutsRun = Box<dyn FnOnce(PlayoutsAsked, Stop) -> Result<PlayoutsDone, String> + Send>;

/// What `__reduce__` answers: the function that rebuilds an object, and
/// its arguments.
type Reduce<'py, A> = PyResult<(Bound<'py, PyAny>, A)>;

/// Longest random playout, in joint moves, before it is cut short.
const MAX_PLAYOUT_LENGTH: u64 = 10_000;

/// The identity of each `Game` made in this process.
static NEXT_GAME_ID: AtomicU64 = AtomicU64::new(1);

/// A reasoner with its types hidden: what [`Game`] calls. A method given
/// a state answers `None` when the state is not of this reasoner's type.
trait DynGame: Send {
    fn initial_state(&mut self) -> AnyState;
    fn is_terminal(&mut self, state: &dyn Any) -> Option<bool>;
    fn legal_moves(&mut self, state: &dyn Any, role: usize) -> Option<Vec<u32>>;
    fn next_state(&mut self, state: &dyn Any, joint: &[u32]) -> Option<AnyState>;
    /// Why `joint` cannot be played in `state`, if it cannot.
    fn refusal(&mut self, state: &dyn Any, joint: &[u32]) -> Option<Option<Refusal>>;
    fn goal(&mut self, state: &dyn Any, role: usize) -> Option<Option<u32>>;
    fn random_role(&self) -> Option<usize>;
    fn has_percepts(&self) -> bool;
    fn percepts(
        &mut self,
        state: &dyn Any,
        joint: &[u32],
        role: usize,
    ) -> Option<Result<Vec<String>, PerceptError>>;
    fn move_text(&self, role: usize, id: u32) -> String;
    fn parse_move(&mut self, role: usize, text: &str) -> Option<u32>;
    fn fluents(&self, state: &dyn Any) -> Option<Vec<String>>;
    fn state_from_fluents(&mut self, fluents: &[String]) -> Option<AnyState>;
    fn state_hash(&self, state: &dyn Any) -> Option<u64>;
    fn same_state(&self, a: &dyn Any, b: &dyn Any) -> bool;
    /// Perft on a fresh reasoner: `(nodes, leaves)` per depth.
    fn perft(&self) -> PerftRun;
    /// Random playouts on fresh reasoners, each role's legal moves drawn
    /// from in the order of `moves` (the vocabulary's).
    fn playouts(&self, moves: Arc<[String]>) -> PlayoutsRun;
}

/// Why a joint move cannot be played in a state.
enum Refusal {
    /// The state is terminal: no move can be played in it.
    Terminal,
    /// Role `role`'s move is not among its legal moves in the state.
    Illegal { role: usize },
}

/// What `random_playouts` asks.
struct PlayoutsAsked {
    count: u64,
    seed: u64,
    threads: usize,
}

/// What `random_playouts` answers.
struct PlayoutsDone {
    playouts: u64,
    states: u64,
    truncated: u64,
    seconds: f64,
    mean_goals: Vec<f64>,
}

/// A reasoner of type `R` behind [`DynGame`], its moves interned.
struct Adapter<R: Reasoner> {
    reasoner: R,
    make: Make<R>,
    moves: Vec<R::Move>,
    ids: HashMap<R::Move, u32>,
    scratch: Vec<R::Move>,
}

impl<R: Reasoner> Adapter<R> {
    fn intern(&mut self, mv: R::Move) -> u32 {
        let next = self.moves.len() as u32;
        *self.ids.entry(mv).or_insert_with(|| {
            self.moves.push(mv);
            next
        })
    }
}

fn state_of<R: Reasoner + 'static>(state: &dyn Any) -> Option<&R::State>
where
    R::State: 'static,
{
    state.downcast_ref::<R::State>()
}

impl<R> DynGame for Adapter<R>
where
    R: Reasoner + Send + 'static,
    R::State: Send + Sync + 'static,
    R::Move: Send + Sync + 'static,
{
    fn initial_state(&mut self) -> AnyState {
        Arc::new(self.reasoner.initial_state())
    }

    fn is_terminal(&mut self, state: &dyn Any) -> Option<bool> {
        Some(self.reasoner.is_terminal(state_of::<R>(state)?))
    }

    fn legal_moves(&mut self, state: &dyn Any, role: usize) -> Option<Vec<u32>> {
        let mut scratch = std::mem::take(&mut self.scratch);
        self.reasoner
            .legal_moves(state_of::<R>(state)?, role, &mut scratch);
        let ids = scratch.iter().map(|&m| self.intern(m)).collect();
        self.scratch = scratch;
        Some(ids)
    }

    fn next_state(&mut self, state: &dyn Any, joint: &[u32]) -> Option<AnyState> {
        let joint: Vec<R::Move> = joint
            .iter()
            .map(|&id| self.moves.get(id as usize).copied())
            .collect::<Option<_>>()?;
        let next = self.reasoner.next_state(state_of::<R>(state)?, &joint);
        Some(Arc::new(next))
    }

    fn refusal(&mut self, state: &dyn Any, joint: &[u32]) -> Option<Option<Refusal>> {
        let state = state_of::<R>(state)?;
        if self.reasoner.is_terminal(state) {
            return Some(Some(Refusal::Terminal));
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let illegal = joint.iter().enumerate().find_map(|(role, &id)| {
            self.reasoner.legal_moves(state, role, &mut scratch);
            let legal = self
                .moves
                .get(id as usize)
                .is_some_and(|m| scratch.contains(m));
            (!legal).then_some(Refusal::Illegal { role })
        });
        self.scratch = scratch;
        Some(illegal)
    }

    fn goal(&mut self, state: &dyn Any, role: usize) -> Option<Option<u32>> {
        Some(self.reasoner.goal(state_of::<R>(state)?, role))
    }

    fn random_role(&self) -> Option<usize> {
        self.reasoner.random_role()
    }

    fn has_percepts(&self) -> bool {
        self.reasoner.has_percepts()
    }

    fn percepts(
        &mut self,
        state: &dyn Any,
        joint: &[u32],
        role: usize,
    ) -> Option<Result<Vec<String>, PerceptError>> {
        let joint: Vec<R::Move> = joint
            .iter()
            .map(|&id| self.moves.get(id as usize).copied())
            .collect::<Option<_>>()?;
        let state = state_of::<R>(state)?;
        Some(percept_texts(&mut self.reasoner, state, &joint, role))
    }

    fn move_text(&self, role: usize, id: u32) -> String {
        self.reasoner.move_text(role, self.moves[id as usize])
    }

    fn parse_move(&mut self, role: usize, text: &str) -> Option<u32> {
        let mv = self.reasoner.parse_move(role, text)?;
        Some(self.intern(mv))
    }

    fn fluents(&self, state: &dyn Any) -> Option<Vec<String>> {
        Some(self.reasoner.fluents(state_of::<R>(state)?))
    }

    fn state_from_fluents(&mut self, fluents: &[String]) -> Option<AnyState> {
        let state = self.reasoner.state_from_fluents(fluents)?;
        Some(Arc::new(state))
    }

    fn state_hash(&self, state: &dyn Any) -> Option<u64> {
        Some(self.reasoner.state_hash(state_of::<R>(state)?))
    }

    fn same_state(&self, a: &dyn Any, b: &dyn Any) -> bool {
        matches!((state_of::<R>(a), state_of::<R>(b)), (Some(a), Some(b)) if a == b)
    }

    fn perft(&self) -> PerftRun {
        let make = Arc::clone(&self.make);
        Box::new(move |asked, stop| {
            let make = || Driven::new(make(), &stop, &[]);
            let mut reasoner = make();
            let root = match asked.root {
                Some(fluents) => reasoner
                    .state_from_fluents(&fluents)
                    .ok_or("the state's fluents are no state of the game")?,
                None => reasoner.initial_state(),
            };
            let levels = parallel_perft(&mut reasoner, &root, make, asked.threads, asked.depth)
                .map_err(|e| e.to_string())?;
            Ok(levels.iter().map(|l| (l.nodes, l.leaves)).collect())
        })
    }

    fn playouts(&self, moves: Arc<[String]>) -> PlayoutsRun {
        let make = Arc::clone(&self.make);
        Box::new(move |asked, stop| {
            let make = || Driven::new(make(), &stop, &moves);
            let budget = McBudget::Playouts(asked.count);
            let report = parallel_flat_monte_carlo(
                &mut make(),
                make,
                asked.threads,
                budget,
                asked.seed,
                MAX_PLAYOUT_LENGTH,
                &mut |_, _| {},
            )
            .map_err(|e| e.to_string())?;
            let c = report.combined;
            Ok(PlayoutsDone {
                playouts: c.playouts,
                states: c.states,
                truncated: c.truncated,
                seconds: c.seconds,
                mean_goals: c.mean_goals,
            })
        })
    }
}

/// The reasoner a long run drives for Python. Python may interrupt it:
/// once `stop` is set, no state is terminal and none has a legal move,
/// so the drivers stop at their next step with the error they give a
/// role without moves (which is dropped). Given the vocabulary's moves,
/// it lists legal moves in their order, as `Game.legal_moves` does, so
/// that a seed draws the same playouts on every backend.
struct Driven<R: Reasoner> {
    reasoner: R,
    stop: Stop,
    /// Per role, each move's place in the vocabulary's moves (none when
    /// the order does not matter): parsed by this reasoner, as an
    /// interpreter numbers the terms it meets its own way.
    ranks: Vec<FxHashMap<R::Move, u32>>,
    /// The legal moves being ordered, each with its place.
    ranked: Vec<(u32, R::Move)>,
}

impl<R: Reasoner> Driven<R> {
    fn new(mut reasoner: R, stop: &Stop, moves: &[String]) -> Self {
        let roles = if moves.is_empty() {
            0
        } else {
            reasoner.roles().len()
        };
        let ranks = (0..roles)
            .map(|role| {
                let texts = moves.iter().enumerate();
                let parsed = texts.filter_map(|(rank, text)| {
                    Some((reasoner.parse_move(role, text)?, rank as u32))
                });
                parsed.collect()
            })
            .collect();
        Driven {
            reasoner,
            stop: Arc::clone(stop),
            ranks,
            ranked: Vec::new(),
        }
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

impl<R: Reasoner> Reasoner for Driven<R> {
    type State = R::State;
    type Move = R::Move;

    fn roles(&self) -> &[String] {
        self.reasoner.roles()
    }
    fn initial_state(&mut self) -> R::State {
        self.reasoner.initial_state()
    }
    fn is_terminal(&mut self, state: &R::State) -> bool {
        !self.stopped() && self.reasoner.is_terminal(state)
    }
    fn legal_moves(&mut self, state: &R::State, role: usize, out: &mut Vec<R::Move>) {
        if self.stopped() {
            out.clear();
            return;
        }
        self.reasoner.legal_moves(state, role, out);
        let Some(ranks) = self.ranks.get(role).filter(|_| out.len() > 1) else {
            return;
        };
        let rank = |m: &R::Move| ranks.get(m).copied().unwrap_or(u32::MAX);
        self.ranked.clear();
        self.ranked.extend(out.iter().map(|m| (rank(m), *m)));
        if !self.ranked.is_sorted_by_key(|&(rank, _)| rank) {
            self.ranked.sort_unstable_by_key(|&(rank, _)| rank);
            out.clear();
            out.extend(self.ranked.iter().map(|&(_, m)| m));
        }
    }
    fn next_state(&mut self, state: &R::State, joint: &[R::Move]) -> R::State {
        self.reasoner.next_state(state, joint)
    }
    fn goal(&mut self, state: &R::State, role: usize) -> Option<u32> {
        self.reasoner.goal(state, role)
    }
    fn move_text(&self, role: usize, mv: R::Move) -> String {
        self.reasoner.move_text(role, mv)
    }
    fn parse_move(&mut self, role: usize, text: &str) -> Option<R::Move> {
        self.reasoner.parse_move(role, text)
    }
    fn fluents(&self, state: &R::State) -> Vec<String> {
        self.reasoner.fluents(state)
    }
    fn state_from_fluents(&mut self, fluents: &[String]) -> Option<R::State> {
        self.reasoner.state_from_fluents(fluents)
    }
    fn state_hash(&self, state: &R::State) -> u64 {
        self.reasoner.state_hash(state)
    }
    fn random_role(&self) -> Option<usize> {
        self.reasoner.random_role()
    }
    fn has_percepts(&self) -> bool {
        self.reasoner.has_percepts()
    }
    fn sees(&mut self, state: &R::State, joint: &[R::Move], role: usize, out: &mut Vec<u32>) {
        self.reasoner.sees(state, joint, role, out);
    }
    fn percept_text(&self, percept: u32) -> Option<String> {
        self.reasoner.percept_text(percept)
    }
}

/// How often a long run's caller looks for a Python signal (Ctrl-C).
const SIGNAL_POLL: Duration = Duration::from_millis(50);
/// How long an interrupted run is waited for before Python gets control.
const WIND_DOWN: Duration = Duration::from_secs(1);

/// Runs `job` on a thread of its own, the GIL released, looking for
/// Python signals meanwhile: on Ctrl-C (any signal handler raising) the
/// job is told to stop, is waited for up to [`WIND_DOWN`] (it stops at
/// its next step, so that is a bound, not a wait), and the handler's
/// exception (`KeyboardInterrupt`) is raised.
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    job: impl FnOnce(Stop) -> Result<T, String> + Send + 'static,
) -> PyResult<T> {
    let stop = Stop::default();
    let (done, mut result) = mpsc::channel();
    {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || done.send(job(stop)));
    }
    loop {
        // The receiver goes into the GIL-free wait and back (it is not Sync).
        let answer;
        (result, answer) = py.detach(move || {
            let answer = result.recv_timeout(SIGNAL_POLL);
            (result, answer)
        });
        match answer {
            Ok(answer) => return answer.map_err(PyRuntimeError::new_err),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(interrupted) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    py.detach(move || result.recv_timeout(WIND_DOWN)).ok();
                    return Err(interrupted);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("the run stopped without an answer"));
            }
        }
    }
}

/// The fixed orders of a game's fluents and moves (`gdlc._native.vocabulary`),
/// with the indexes that map a state's fluents and a role's moves to them.
struct Vocabulary {
    fluents: Vec<String>,
    fluent_index: HashMap<String, usize>,
    moves: Vec<String>,
    /// Per role, filled on first use: its moves' interned ids.
    role_moves: Vec<OnceLock<RoleMoves>>,
}

/// One role's moves of the vocabulary as interned ids, both ways.
struct RoleMoves {
    /// Interned move id → index in the vocabulary's moves.
    index_of: HashMap<u32, usize>,
    /// Index in the vocabulary's moves → interned id (`None`: no move of
    /// this reasoner's).
    id_of: Vec<Option<u32>>,
}

/// A game: its roles, states and moves, and the runs over them.
#[pyclass(frozen, module = "gdlc", name = "Game")]
pub struct Game {
    id: u64,
    roles: Vec<String>,
    description: String,
    backend: String,
    reasoner: Mutex<Box<dyn DynGame>>,
    vocabulary: OnceLock<Vocabulary>,
}

/// A state of a game: immutable, hashable (its Zobrist hash, the same in
/// every backend), picklable (as its game and its fluents).
#[pyclass(frozen, module = "gdlc", name = "State")]
pub struct State {
    game: Py<Game>,
    game_id: u64,
    hash: u64,
    inner: AnyState,
}

/// A move of one role of a game: immutable, hashable, picklable (as its
/// game, role and text).
#[pyclass(frozen, module = "gdlc", name = "Move")]
pub struct Move {
    game: Py<Game>,
    game_id: u64,
    /// The role's index.
    #[pyo3(get)]
    role: usize,
    id: u32,
}

/// The `Game` of reasoner `make()`, for a description given as text,
/// named `backend` ("interpreted" or "compiled") to Python.
pub fn new_game<R>(make: Make<R>, description: String, backend: &str) -> Game
where
    R: Reasoner + Send + 'static,
    R::State: Send + Sync + 'static,
    R::Move: Send + Sync + 'static,
{
    let reasoner = make();
    let roles = reasoner.roles().to_vec();
    Game {
        id: NEXT_GAME_ID.fetch_add(1, Ordering::Relaxed),
        roles,
        description,
        backend: backend.to_string(),
        reasoner: Mutex::new(Box::new(Adapter {
            reasoner,
            make,
            moves: Vec::new(),
            ids: HashMap::new(),
            scratch: Vec::new(),
        })),
        vocabulary: OnceLock::new(),
    }
}

/// A `State` or `Move` argument of a `Game` method. An object of another
/// class raises `TypeError`, but one whose class is named alike (a state
/// or move of another backend's module: each compiled game's module has
/// classes of its own) raises the `ValueError` of an object of another
/// game, as it does on every backend.
struct Arg<'py, T: PyClass>(Bound<'py, T>);

impl<'a, 'py, T: PyClass> FromPyObject<'a, 'py> for Arg<'py, T> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(arg) = obj.cast::<T>() {
            return Ok(Arg(arg.to_owned()));
        }
        let class = obj.get_type().name()?;
        let name = <T as PyClass>::NAME;
        if class == name {
            return Err(wrong_game(&format!("a {}", name.to_lowercase())));
        }
        Err(PyTypeError::new_err(format!(
            "expected a gdlc {name}, not {class}"
        )))
    }
}

impl<T: PyClass<Frozen = True> + Sync> std::ops::Deref for Arg<'_, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.0.get()
    }
}

fn wrong_game(what: &str) -> PyErr {
    PyValueError::new_err(format!("{what} of another game"))
}

impl Game {
    fn lock(&self) -> MutexGuard<'_, Box<dyn DynGame>> {
        // A panic cannot leave the reasoner half-updated in a way a later
        // call could observe wrongly: each call recomputes what it reads.
        self.reasoner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn state<'a>(&self, state: &'a State) -> PyResult<&'a (dyn Any + Send + Sync)> {
        if state.game_id != self.id {
            return Err(wrong_game("a state"));
        }
        Ok(&*state.inner)
    }

    fn role_index(&self, role: &Bound<'_, PyAny>) -> PyResult<usize> {
        if let Ok(i) = role.extract::<usize>() {
            return if i < self.roles.len() {
                Ok(i)
            } else {
                Err(PyIndexError::new_err(format!(
                    "role {i} of a game of {} roles",
                    self.roles.len()
                )))
            };
        }
        let name: String = role.extract()?;
        self.roles
            .iter()
            .position(|r| r.eq_ignore_ascii_case(&name))
            .ok_or_else(|| PyValueError::new_err(format!("no role `{name}`")))
    }

    /// The state after the joint move `ids` (interned move ids, one per
    /// role) in `state`; with `checked`, a `ValueError` instead when the
    /// state is terminal or a move is not legal in it.
    fn play(slf: &Bound<'_, Game>, state: &State, ids: &[u32], checked: bool) -> PyResult<State> {
        let game = slf.get();
        let s = game.state(state)?;
        let mut reasoner = game.lock();
        let refusal = if checked {
            reasoner
                .refusal(s, ids)
                .ok_or_else(|| wrong_game("a state"))?
        } else {
            None
        };
        if let Some(refusal) = refusal {
            let (role, why) = match refusal {
                Refusal::Terminal => (0, "the state is terminal: no move can be played in it"),
                Refusal::Illegal { role } => (role, "it is not a legal move in this state"),
            };
            let (Some(&id), Some(name)) = (ids.get(role), game.roles.get(role)) else {
                return Err(PyValueError::new_err(why));
            };
            let text = reasoner.move_text(role, id);
            return Err(PyValueError::new_err(format!(
                "role `{name}` cannot play `{text}`: {why}"
            )));
        }
        let next = reasoner
            .next_state(s, ids)
            .ok_or_else(|| wrong_game("a state"))?;
        drop(reasoner);
        Game::wrap_state(slf, next)
    }

    /// The fluents true in `state`, as canonical KIF text, sorted.
    fn fluents_of(&self, state: &State) -> PyResult<Vec<String>> {
        let s = self.state(state)?;
        self.lock().fluents(s).ok_or_else(|| wrong_game("a state"))
    }

    /// The canonical KIF text of `move`.
    fn text_of(&self, r#move: &Move) -> PyResult<String> {
        if r#move.game_id != self.id {
            return Err(wrong_game("a move"));
        }
        Ok(self.lock().move_text(r#move.role, r#move.id))
    }

    fn wrap_state(slf: &Bound<'_, Game>, inner: AnyState) -> PyResult<State> {
        let game = slf.get();
        let hash = game
            .lock()
            .state_hash(&*inner)
            .ok_or_else(|| wrong_game("a state"))?;
        Ok(State {
            game: slf.clone().unbind(),
            game_id: game.id,
            hash,
            inner,
        })
    }

    fn wrap_move(slf: &Bound<'_, Game>, role: usize, id: u32) -> Move {
        Move {
            game: slf.clone().unbind(),
            game_id: slf.get().id,
            role,
            id,
        }
    }

    fn vocabulary(&self, py: Python<'_>) -> PyResult<&Vocabulary> {
        if let Some(v) = self.vocabulary.get() {
            return Ok(v);
        }
        let native = py.import("gdlc._native")?;
        let (fluents, moves): (Vec<String>, Vec<String>) = native
            .getattr("vocabulary")?
            .call1((self.description.as_str(),))?
            .extract()?;
        let fluent_index = fluents
            .iter()
            .enumerate()
            .map(|(i, f)| (f.clone(), i))
            .collect();
        let role_moves = self.roles.iter().map(|_| OnceLock::new()).collect();
        Ok(self.vocabulary.get_or_init(|| Vocabulary {
            fluents,
            fluent_index,
            moves,
            role_moves,
        }))
    }

    /// Role `role`'s moves of the vocabulary as interned ids.
    fn role_moves(&self, py: Python<'_>, role: usize) -> PyResult<&RoleMoves> {
        let v = self.vocabulary(py)?;
        Ok(v.role_moves[role].get_or_init(|| {
            let mut reasoner = self.lock();
            let id_of: Vec<Option<u32>> = v
                .moves
                .iter()
                .map(|text| reasoner.parse_move(role, text))
                .collect();
            let index_of = id_of
                .iter()
                .enumerate()
                .filter_map(|(i, id)| Some(((*id)?, i)))
                .collect();
            RoleMoves { index_of, id_of }
        }))
    }

    fn joint_ids(&self, joint: &[Arg<'_, Move>]) -> PyResult<Vec<u32>> {
        if joint.len() != self.roles.len() {
            return Err(PyValueError::new_err(format!(
                "a joint move has one move per role: {} moves for {} roles",
                joint.len(),
                self.roles.len()
            )));
        }
        joint
            .iter()
            .enumerate()
            .map(|(role, m)| {
                let m: &Move = m;
                if m.game_id != self.id {
                    Err(wrong_game("a move"))
                } else if m.role != role {
                    Err(PyValueError::new_err(format!(
                        "move {role} of the joint move is role {}'s",
                        m.role
                    )))
                } else {
                    Ok(m.id)
                }
            })
            .collect()
    }

    fn ids_of_indices(&self, py: Python<'_>, joint: &[usize]) -> PyResult<Vec<u32>> {
        let v = self.vocabulary(py)?;
        if joint.len() != self.roles.len() {
            return Err(PyValueError::new_err(format!(
                "a joint move has one move per role: {} for {} roles",
                joint.len(),
                self.roles.len()
            )));
        }
        joint
            .iter()
            .enumerate()
            .map(|(role, &i)| {
                let id = self.role_moves(py, role)?.id_of.get(i).ok_or_else(|| {
                    PyIndexError::new_err(format!("move index {i} of {}", v.moves.len()))
                })?;
                id.ok_or_else(|| PyValueError::new_err(format!("no move `{}`", v.moves[i])))
            })
            .collect()
    }
}

#[pymethods]
impl Game {
    /// The object itself: it is immutable (a game shares its reasoner).
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// The object itself: it is immutable (a game shares its reasoner).
    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }
    /// The role names, in declaration order.
    #[getter]
    fn roles(&self) -> Vec<String> {
        self.roles.clone()
    }

    /// "interpreted" or "compiled".
    #[getter]
    fn backend(&self) -> &str {
        &self.backend
    }

    /// The description's text.
    #[getter]
    fn description(&self) -> &str {
        &self.description
    }

    /// The initial state.
    fn initial_state(slf: &Bound<'_, Self>) -> PyResult<State> {
        let inner = slf.get().lock().initial_state();
        Game::wrap_state(slf, inner)
    }

    /// Whether `state` is terminal.
    fn is_terminal(&self, state: Arg<'_, State>) -> PyResult<bool> {
        let s = self.state(&state)?;
        self.lock()
            .is_terminal(s)
            .ok_or_else(|| wrong_game("a state"))
    }

    /// The legal moves of `role` (index or name) in `state`, in the order
    /// of `move_names()` on every backend.
    fn legal_moves(
        slf: &Bound<'_, Self>,
        state: Arg<'_, State>,
        role: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<Move>> {
        let game = slf.get();
        let indices = game.legal_indices(slf.py(), state, role)?;
        let role = game.role_index(role)?;
        let id_of = &game.role_moves(slf.py(), role)?.id_of;
        Ok(indices
            .into_iter()
            .filter_map(|i| id_of[i])
            .map(|id| Game::wrap_move(slf, role, id))
            .collect())
    }

    /// The state after `joint`, one move per role in role order. Raises
    /// `ValueError` naming the role and the move when `state` is terminal
    /// or a move is not legal in it; `checked=False` skips that test (the
    /// fast path for a caller that took the moves from `legal_moves`: an
    /// illegal move then gives a meaningless state).
    #[pyo3(signature = (state, joint, *, checked = true))]
    fn next_state(
        slf: &Bound<'_, Self>,
        state: Arg<'_, State>,
        joint: Vec<Arg<'_, Move>>,
        checked: bool,
    ) -> PyResult<State> {
        let ids = slf.get().joint_ids(&joint)?;
        Game::play(slf, &state, &ids, checked)
    }

    /// The state after the joint move given by indices into
    /// `move_names()`, one per role; checked as `next_state` is.
    #[pyo3(signature = (state, joint, *, checked = true))]
    fn apply(
        slf: &Bound<'_, Self>,
        state: Arg<'_, State>,
        joint: Vec<usize>,
        checked: bool,
    ) -> PyResult<State> {
        let ids = slf.get().ids_of_indices(slf.py(), &joint)?;
        Game::play(slf, &state, &ids, checked)
    }

    /// `apply` over many states at once, each with its joint move indices.
    #[pyo3(signature = (states, joints, *, checked = true))]
    fn batch_next(
        slf: &Bound<'_, Self>,
        states: Vec<Arg<'_, State>>,
        joints: Vec<Vec<usize>>,
        checked: bool,
    ) -> PyResult<Vec<State>> {
        if states.len() != joints.len() {
            return Err(PyValueError::new_err(format!(
                "{} states and {} joint moves",
                states.len(),
                joints.len()
            )));
        }
        states
            .iter()
            .zip(joints)
            .map(|(s, j)| {
                let ids = slf.get().ids_of_indices(slf.py(), &j)?;
                Game::play(slf, s, &ids, checked)
            })
            .collect()
    }

    /// Each role's goal value in `state` (`None` where a role has no single
    /// goal value).
    fn goals(&self, state: Arg<'_, State>) -> PyResult<Vec<Option<u32>>> {
        let s = self.state(&state)?;
        let mut reasoner = self.lock();
        (0..self.roles.len())
            .map(|r| reasoner.goal(s, r).ok_or_else(|| wrong_game("a state")))
            .collect()
    }

    /// The index of the role `random` (GDL-II: the game manager draws its
    /// moves uniformly), or `None`.
    #[getter]
    fn random_role(&self) -> Option<usize> {
        self.lock().random_role()
    }

    /// Whether the game defines `sees` (GDL-II percepts).
    #[getter]
    fn has_percepts(&self) -> bool {
        self.lock().has_percepts()
    }

    /// What `role` (index or name) perceives when `joint` (one move per
    /// role, in role order) is played in `state`: its percepts as
    /// canonical KIF text, sorted; none in a game without `sees`. Raises
    /// `ValueError` for the role `random`, which perceives nothing.
    fn percepts(
        &self,
        state: Arg<'_, State>,
        joint: Vec<Arg<'_, Move>>,
        role: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<String>> {
        let role = self.role_index(role)?;
        let ids = self.joint_ids(&joint)?;
        let s = self.state(&state)?;
        self.lock()
            .percepts(s, &ids, role)
            .ok_or_else(|| wrong_game("a state"))?
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The fluents true in `state`, as canonical KIF text, sorted.
    fn fluents(&self, state: Arg<'_, State>) -> PyResult<Vec<String>> {
        self.fluents_of(&state)
    }

    /// The state whose true fluents are `fluents` (KIF texts).
    /// Raises `ValueError` for a text that is no fluent of the game (none
    /// of `fluent_names()`), on every backend.
    fn state_from_fluents(slf: &Bound<'_, Self>, fluents: Vec<String>) -> PyResult<State> {
        let game = slf.get();
        let Some(inner) = game.lock().state_from_fluents(&fluents) else {
            // The first text refused alone, named as the check below does.
            let mut reasoner = game.lock();
            let refused = fluents.iter().find(|f| {
                reasoner
                    .state_from_fluents(std::slice::from_ref(f))
                    .is_none()
            });
            return Err(PyValueError::new_err(match refused {
                Some(text) => format!("`{text}` is no fluent of this game"),
                None => "these texts are no state of this game".to_string(),
            }));
        };
        let known = &game.vocabulary(slf.py())?.fluent_index;
        let texts = game
            .lock()
            .fluents(&*inner)
            .ok_or_else(|| wrong_game("a state"))?;
        if let Some(unknown) = texts.iter().find(|f| !known.contains_key(*f)) {
            return Err(PyValueError::new_err(format!(
                "`{unknown}` is no fluent of this game"
            )));
        }
        Game::wrap_state(slf, inner)
    }

    /// The canonical KIF text of `move`.
    fn move_text(&self, r#move: Arg<'_, Move>) -> PyResult<String> {
        self.text_of(&r#move)
    }

    /// The move of `role` written `text` in KIF: one of `move_names()`
    /// (whether it is legal in a state is not checked), else `ValueError`,
    /// on every backend.
    fn parse_move(slf: &Bound<'_, Self>, role: &Bound<'_, PyAny>, text: &str) -> PyResult<Move> {
        let game = slf.get();
        let role = game.role_index(role)?;
        let no_move = || PyValueError::new_err(format!("no move `{text}` in this game"));
        let id = game.lock().parse_move(role, text).ok_or_else(no_move)?;
        if !game.role_moves(slf.py(), role)?.index_of.contains_key(&id) {
            return Err(no_move());
        }
        Ok(Game::wrap_move(slf, role, id))
    }

    /// The state's Zobrist hash (the same in every backend).
    fn state_hash(&self, state: Arg<'_, State>) -> PyResult<u64> {
        self.state(&state)?;
        Ok(state.hash)
    }

    /// Every fluent a state can hold, in the order of `observation`.
    fn fluent_names(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        Ok(self.vocabulary(py)?.fluents.clone())
    }

    /// Every move a role can make, in the order of `legal_mask` and of
    /// `apply`'s indices (the same list for every role).
    fn move_names(&self, py: Python<'_>, role: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        self.role_index(role)?;
        Ok(self.vocabulary(py)?.moves.clone())
    }

    /// A numpy boolean array over `fluent_names()`: which hold in `state`.
    fn observation<'py>(
        &self,
        py: Python<'py>,
        state: Arg<'_, State>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let v = self.vocabulary(py)?;
        let mut bits = vec![0u8; v.fluents.len()];
        for f in self.fluents(state)? {
            let i = v.fluent_index.get(&f).ok_or_else(|| {
                PyRuntimeError::new_err(format!("fluent `{f}` is not in fluent_names()"))
            })?;
            bits[*i] = 1;
        }
        bool_array(py, &bits)
    }

    /// The indices into `move_names(role)` of `role`'s legal moves in
    /// `state`, ascending.
    fn legal_indices(
        &self,
        py: Python<'_>,
        state: Arg<'_, State>,
        role: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<usize>> {
        let role = self.role_index(role)?;
        let index = &self.role_moves(py, role)?.index_of;
        let s = self.state(&state)?;
        let mut reasoner = self.lock();
        let mut indices = reasoner
            .legal_moves(s, role)
            .ok_or_else(|| wrong_game("a state"))?
            .into_iter()
            .map(|id| {
                index.get(&id).copied().ok_or_else(|| {
                    let text = reasoner.move_text(role, id);
                    PyRuntimeError::new_err(format!("move `{text}` is not in move_names()"))
                })
            })
            .collect::<PyResult<Vec<usize>>>()?;
        indices.sort_unstable();
        Ok(indices)
    }

    /// A numpy boolean array over `move_names(role)`: which are legal for
    /// `role` in `state`.
    fn legal_mask<'py>(
        &self,
        py: Python<'py>,
        state: Arg<'_, State>,
        role: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut bits = vec![0u8; self.vocabulary(py)?.moves.len()];
        for i in self.legal_indices(py, state, role)? {
            bits[i] = 1;
        }
        bool_array(py, &bits)
    }

    /// Perft from `state` (default: the initial state) on `threads` threads
    /// (default: every core), on reasoners of its own with the GIL
    /// released: `(nodes, leaves)` for each depth `0..=depth`, as the
    /// `perft` command prints them. Ctrl-C stops it with
    /// `KeyboardInterrupt`.
    #[pyo3(signature = (depth, state = None, threads = None))]
    fn perft(
        &self,
        py: Python<'_>,
        depth: u32,
        state: Option<Arg<'_, State>>,
        threads: Option<usize>,
    ) -> PyResult<Vec<(u64, u64)>> {
        let root = match state {
            Some(s) => Some(self.fluents(s)?),
            None => None,
        };
        let asked = PerftAsked {
            depth,
            root,
            threads: threads.unwrap_or_else(gdl_runtime::default_threads),
        };
        let run = self.lock().perft();
        interruptible(py, move |stop| run(asked, stop))
    }

    /// `n` uniformly random playouts from the initial state on `threads`
    /// threads (default: every core), with the GIL released: a dict of
    /// `playouts`, `states`, `truncated`, `seconds` and `mean_goals`.
    /// Moves are drawn from the legal moves in the order of `move_names()`,
    /// so a seed plays the same playouts on every backend. Ctrl-C stops it
    /// with `KeyboardInterrupt`.
    #[pyo3(signature = (n, seed = 0, threads = None))]
    fn random_playouts<'py>(
        &self,
        py: Python<'py>,
        n: u64,
        seed: u64,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let moves = Arc::from(self.vocabulary(py)?.moves.as_slice());
        let run = self.lock().playouts(moves);
        let asked = PlayoutsAsked {
            count: n,
            seed,
            threads: threads.unwrap_or_else(gdl_runtime::default_threads),
        };
        let done = interruptible(py, move |stop| run(asked, stop))?;
        let dict = pyo3::types::PyDict::new(py);
        dict.set_item("playouts", done.playouts)?;
        dict.set_item("states", done.states)?;
        dict.set_item("truncated", done.truncated)?;
        dict.set_item("seconds", done.seconds)?;
        dict.set_item("mean_goals", done.mean_goals)?;
        Ok(dict)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> Reduce<'py, (String, String)> {
        let load = py.import("gdlc")?.getattr("_load_for_pickle")?;
        Ok((load, (self.description.clone(), self.backend.clone())))
    }

    fn __repr__(&self) -> String {
        format!(
            "<gdlc.Game of {} roles ({}), {}>",
            self.roles.len(),
            self.roles.join(", "),
            self.backend
        )
    }
}

/// A writable numpy boolean array of `bits` (each 0 or 1).
fn bool_array<'py>(py: Python<'py>, bits: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let numpy = py.import("numpy")?;
    let buffer = PyByteArray::new(py, bits);
    numpy
        .getattr("frombuffer")?
        .call1((buffer, numpy.getattr("bool_")?))
}

#[pymethods]
impl State {
    /// The object itself: it is immutable (a game shares its reasoner).
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// The object itself: it is immutable (a game shares its reasoner).
    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }
    /// The game this state belongs to.
    #[getter]
    fn game(&self, py: Python<'_>) -> Py<Game> {
        self.game.clone_ref(py)
    }

    fn __hash__(&self) -> u64 {
        self.hash
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        let Ok(other) = other.cast::<State>() else {
            return false;
        };
        let other = other.get();
        other.game_id == self.game_id
            && other.hash == self.hash
            && self
                .game
                .get()
                .lock()
                .same_state(&*self.inner, &*other.inner)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> Reduce<'py, (Py<Game>, Vec<String>)> {
        let restore = py.import("gdlc")?.getattr("_state_from_pickle")?;
        let fluents = self.game.get().fluents_of(self)?;
        Ok((restore, (self.game.clone_ref(py), fluents)))
    }

    fn __repr__(&self) -> String {
        let fluents = self.game.get().fluents_of(self).unwrap_or_default();
        format!("State({})", fluents.join(" "))
    }
}

#[pymethods]
impl Move {
    /// The object itself: it is immutable (a game shares its reasoner).
    fn __copy__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// The object itself: it is immutable (a game shares its reasoner).
    fn __deepcopy__(slf: Py<Self>, _memo: &Bound<'_, PyAny>) -> Py<Self> {
        slf
    }
    /// The move's canonical KIF text.
    #[getter]
    fn text(&self) -> PyResult<String> {
        self.game.get().text_of(self)
    }

    /// The game this move belongs to.
    #[getter]
    fn game(&self, py: Python<'_>) -> Py<Game> {
        self.game.clone_ref(py)
    }

    fn __hash__(&self) -> u64 {
        self.game_id.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (self.role as u64) << 32 ^ self.id as u64
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Move>().is_ok_and(|o| {
            let o = o.get();
            (o.game_id, o.role, o.id) == (self.game_id, self.role, self.id)
        })
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> Reduce<'py, Bound<'py, PyTuple>> {
        let restore = py.import("gdlc")?.getattr("_move_from_pickle")?;
        let args = (self.game.clone_ref(py), self.role, self.text()?);
        Ok((restore, args.into_pyobject(py)?))
    }

    fn __repr__(&self) -> String {
        format!("Move({}, {:?})", self.role, self.text().unwrap_or_default())
    }
}

/// Adds `Game`, `State` and `Move` to module `m`.
pub fn add_classes(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Game>()?;
    m.add_class::<State>()?;
    m.add_class::<Move>()?;
    Ok(())
}
