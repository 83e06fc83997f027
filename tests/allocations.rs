//! The compiled reasoners do not allocate once warmed up: random playouts
//! (legal moves into reused vectors, `next_state`, `is_terminal`, `goal`)
//! on every game of the project, counted by a global allocator.
//!
//! It has its own `main` (`harness = false`), so that no thread of a test
//! harness allocates while it counts.

use gdl_runtime::Reasoner;
use gdlc_benches::{
    breakthrough, breakthrough_ground, breakthrough_relational, connectfour, connectfour_ground,
    connectfour_relational, simultaneous, simultaneous_ground, simultaneous_relational,
    threeplayer, threeplayer_ground, threeplayer_relational, tictactoe, tictactoe_ground,
    tictactoe_relational,
};
use std::alloc::{GlobalAlloc, Layout, System};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Allocations so far (`realloc` and `alloc_zeroed` go through `alloc`).
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting allocations.
struct Counting;

// SAFETY: both methods forward to `System` with the caller's arguments
// unchanged, so `System` upholds the contract of `GlobalAlloc`; counting
// touches no memory that is handed out.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's guarantees for `layout` are `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `alloc` above, that is by `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Playouts to warm a reasoner up (its containers reach their sizes).
const WARM_UP: usize = 20;
/// Playouts counted.
const MEASURED: usize = 300;
/// Joint moves after which a playout stops.
const MAX_LENGTH: usize = 1000;

/// A small deterministic random generator (SplitMix64).
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((u128::from(z) * n as u128) >> 64) as usize
    }
}

/// Scratch space reused by every playout.
struct Scratch<M> {
    legal: Vec<Vec<M>>,
    joint: Vec<M>,
    rng: SplitMix,
}

/// Plays `count` uniformly random playouts; returns the number of joint moves
/// visited and the sum of the goals reached (so that nothing is optimized away).
fn playouts<R: Reasoner>(r: &mut R, s: &mut Scratch<R::Move>, count: usize) -> (usize, u64) {
    let roles = s.legal.len();
    let (mut moves, mut goals) = (0, 0);
    for _ in 0..count {
        let mut state = r.initial_state();
        let mut length = 0;
        while !r.is_terminal(&state) && length < MAX_LENGTH {
            s.joint.clear();
            for role in 0..roles {
                r.legal_moves(&state, role, &mut s.legal[role]);
                assert!(!s.legal[role].is_empty(), "a role has no legal move");
                let pick = s.rng.below(s.legal[role].len());
                s.joint.push(s.legal[role][pick]);
            }
            state = r.next_state(&state, &s.joint);
            length += 1;
            moves += 1;
        }
        for role in 0..roles {
            goals += u64::from(r.goal(&state, role).unwrap_or(0));
        }
    }
    (moves, goals)
}

/// Warms `r` up, then counts the allocations of the measured playouts.
fn allocations<R: Reasoner>(name: &str, mut r: R) -> usize {
    let roles = r.roles().len();
    let mut s = Scratch {
        legal: (0..roles).map(|_| Vec::with_capacity(1024)).collect(),
        joint: Vec::with_capacity(roles),
        rng: SplitMix(7),
    };
    playouts(&mut r, &mut s, WARM_UP);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let (moves, goals) = playouts(&mut r, &mut s, MEASURED);
    let made = ALLOCATIONS.load(Ordering::Relaxed) - before;
    println!(
        "{name}: {MEASURED} playouts, {moves} joint moves, goal sum {goals}: {made} allocations"
    );
    made
}

fn main() -> ExitCode {
    let counts = [
        (
            "tictactoe",
            allocations("tictactoe", tictactoe::Game::new()),
        ),
        (
            "connectfour",
            allocations("connectfour", connectfour::Game::new()),
        ),
        (
            "breakthrough",
            allocations("breakthrough", breakthrough::Game::new()),
        ),
        (
            "simultaneous",
            allocations("simultaneous", simultaneous::Game::new()),
        ),
        (
            "threeplayer",
            allocations("threeplayer", threeplayer::Game::new()),
        ),
        (
            "tictactoe_ground",
            allocations("tictactoe_ground", tictactoe_ground::Game::new()),
        ),
        (
            "tictactoe_relational",
            allocations("tictactoe_relational", tictactoe_relational::Game::new()),
        ),
        (
            "connectfour_ground",
            allocations("connectfour_ground", connectfour_ground::Game::new()),
        ),
        (
            "connectfour_relational",
            allocations(
                "connectfour_relational",
                connectfour_relational::Game::new(),
            ),
        ),
        (
            "breakthrough_ground",
            allocations("breakthrough_ground", breakthrough_ground::Game::new()),
        ),
        (
            "breakthrough_relational",
            allocations(
                "breakthrough_relational",
                breakthrough_relational::Game::new(),
            ),
        ),
        (
            "simultaneous_ground",
            allocations("simultaneous_ground", simultaneous_ground::Game::new()),
        ),
        (
            "simultaneous_relational",
            allocations(
                "simultaneous_relational",
                simultaneous_relational::Game::new(),
            ),
        ),
        (
            "threeplayer_ground",
            allocations("threeplayer_ground", threeplayer_ground::Game::new()),
        ),
        (
            "threeplayer_relational",
            allocations(
                "threeplayer_relational",
                threeplayer_relational::Game::new(),
            ),
        ),
    ];
    let failed: Vec<&str> = counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(name, _)| *name)
        .collect();
    println!(
        "{} passed, {} failed",
        counts.len() - failed.len(),
        failed.len()
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "error: the compiled reasoners of {} allocated after the warm-up",
            failed.join(", ")
        );
        ExitCode::FAILURE
    }
}
