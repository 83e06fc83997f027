//! gdlc-player: a General Game Playing player.
//!
//! It speaks the GGP match protocol over HTTP ([`http`], exactly as
//! `GGP-PROTOCOL.md` describes the reference server) and plays by
//! Monte-Carlo tree search ([`search`]) on every core ([`workers`]),
//! generic over [`gdl_runtime::Reasoner`]: a `Loader` turns the
//! description a START carries into reasoners — `InterpreterLoader` (feature
//! `interpreter`, on by default) with gdlc's interpreter for any game, which
//! meanwhile compiles the game and moves the search to the compiled
//! reasoner in a child process ([`remote`]); [`FixedGame`] for a reasoner
//! compiled into the binary by a build script.
//!
//! One match at a time: a START while a match runs is answered `busy`, as
//! ggp-base's players do, unless the running match has had no message for
//! longer than its start clock plus two play clocks plus 10 s (a game
//! manager that died without STOP or ABORT), which then is dropped.

pub mod belief;
pub mod clock;
#[cfg(feature = "interpreter")]
pub mod compile;
pub mod engines;
pub mod http;
pub mod message;
pub mod player;
pub mod process;
pub mod remote;
pub mod search;
pub mod selfplay;
pub mod session;
pub mod sexpr;
pub mod spelling;
pub mod unseen;
pub mod workers;

pub use player::{Player, Reply};

use gdl_runtime::Reasoner;
use std::sync::Arc;

/// Nodes all search trees together may hold (a node of a small game takes
/// a few hundred bytes).
pub const MAX_TREE_NODES: usize = 2_000_000;

/// How a match is played.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Search threads.
    pub threads: usize,
    /// Time kept back from each clock for sending the answer, at the
    /// least: the player adds the latency it measures
    /// ([`clock::Margin`]).
    pub margin: std::time::Duration,
    /// Most nodes of each thread's tree.
    pub max_nodes: usize,
}

/// The default way to play: `threads` search threads sharing
/// [`MAX_TREE_NODES`], answering 300 ms before the play clock ends.
pub fn default_settings(threads: usize) -> Settings {
    let threads = threads.max(1);
    Settings {
        threads,
        margin: std::time::Duration::from_millis(300),
        max_nodes: MAX_TREE_NODES / threads,
    }
}

/// Makes one reasoner of a game; each search thread calls it once.
pub type Factory<R> = Arc<dyn Fn() -> R + Send + Sync>;

/// A job, run in the background at START, that builds the search-worker
/// binary of the game's compiled reasoner (see [`remote`]).
pub type Compile = Box<dyn FnOnce() -> Result<std::path::PathBuf, String> + Send>;

/// Turns the description of a START into the reasoners of its game.
pub trait Loader: Send + Sync + 'static {
    /// The reasoner this loader makes.
    type Reasoner: Reasoner + 'static;
    /// Checks `description` (the rule list as sent) and returns how to make
    /// its reasoners, or why the game cannot be played.
    fn load(&self, description: &str) -> Result<Factory<Self::Reasoner>, String>;
    /// The job that builds a compiled search worker for `description`, if
    /// this loader compiles games while it plays them.
    fn compiler(&self, _description: &str) -> Option<Compile> {
        None
    }
}

/// Plays any game with gdlc's reference interpreter and, when it has a
/// cache, compiles the game at START and switches to the compiled reasoner
/// once it is built.
#[cfg(feature = "interpreter")]
#[derive(Clone, Debug, Default)]
pub struct InterpreterLoader {
    /// The compiled backend's cache to build games in; `None`: interpret only.
    pub cache: Option<gdlc::backend::Cache>,
}

#[cfg(feature = "interpreter")]
impl Loader for InterpreterLoader {
    type Reasoner = gdlc::interp::Interpreter;

    fn compiler(&self, description: &str) -> Option<Compile> {
        let cache = self.cache.clone()?;
        let description = description.to_string();
        Some(Box::new(move || {
            compile::build_worker(&cache, &description)
        }))
    }

    fn load(&self, description: &str) -> Result<Factory<Self::Reasoner>, String> {
        let loaded = gdlc::load_bytes("START".into(), description.as_bytes().to_vec())
            .map_err(|e| e.to_string())?;
        // Built once here so that a game past the interpreter's limits is
        // refused at START rather than in every search thread.
        gdlc::ir::limits::catch_limit(|| gdlc::interp::Interpreter::new(&loaded))
            .map_err(|limit| limit.0)?;
        let loaded = Arc::new(loaded);
        Ok(Arc::new(move || gdlc::interp::Interpreter::new(&loaded)))
    }
}

/// Plays one game whose reasoner is built into the binary (by a build
/// script, see `examples/tictactoe-player`): a START is accepted when its
/// description declares the same roles.
pub struct FixedGame<R> {
    make: Factory<R>,
}

impl<R: Reasoner + 'static> FixedGame<R> {
    /// The game whose reasoners `make` makes.
    pub fn new(make: impl Fn() -> R + Send + Sync + 'static) -> Self {
        FixedGame {
            make: Arc::new(make),
        }
    }
}

impl<R: Reasoner + 'static> Loader for FixedGame<R> {
    type Reasoner = R;

    fn load(&self, description: &str) -> Result<Factory<R>, String> {
        let expr = sexpr::parse(description).map_err(|e| format!("description: {e}"))?;
        let declared = declared_roles(&expr);
        let known = (self.make)().roles().to_vec();
        if declared != known {
            return Err(format!(
                "this player plays only the game with roles ({}), not ({})",
                known.join(" "),
                declared.join(" ")
            ));
        }
        Ok(Arc::clone(&self.make))
    }
}

/// The roles a description's `(role …)` facts declare, in lower case.
fn declared_roles(description: &sexpr::SExpr) -> Vec<String> {
    let sexpr::SExpr::List(rules, _) = description else {
        return Vec::new();
    };
    rules
        .iter()
        .filter_map(|rule| match rule {
            sexpr::SExpr::List(items, _) if items.len() == 2 => {
                let head = items[0].atom()?;
                let role = items[1].atom()?;
                head.eq_ignore_ascii_case("role")
                    .then(|| role.to_lowercase())
            }
            _ => None,
        })
        .collect()
}
