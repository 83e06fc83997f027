//! The drivers' loops behind an object-safe trait, [`Kernels`], implemented
//! for every [`Reasoner`]. Code written against `dyn Kernels` — the command
//! line of a generated binary, its reports, the threads of a parallel run —
//! is compiled once, in this crate; only the loops themselves are compiled
//! for each reasoner type, so a generated binary builds in a fraction of the
//! time the whole command line instantiated for its game took.

use crate::drivers::random_playouts;
use crate::{
    deterministic_playout, perft, perft_with, DriverError, McBudget, McReport, PerftLevel, Playout,
    Reasoner,
};
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::time::Instant;

/// The drivers of one reasoner, as a trait object: each method runs a
/// driver of this crate on the reasoner, with the reasoner's own state and
/// move types inside.
pub trait Kernels {
    /// The role names ([`Reasoner::roles`]).
    fn role_names(&self) -> &[String];
    /// The initial state's fluents, canonical text sorted, and whether it
    /// is terminal.
    fn initial_fluents(&mut self) -> (Vec<String>, bool);
    /// [`perft`]: the levels `0..=depth` in one pass.
    fn perft_levels(&mut self, depth: u32) -> Result<Vec<PerftLevel>, DriverError>;
    /// [`perft_with`]: perft by iterative deepening until `deadline`.
    fn deepening_levels(
        &mut self,
        max_depth: u32,
        deadline: Option<Instant>,
        on_level: &mut dyn FnMut(&PerftLevel),
    ) -> Result<Vec<PerftLevel>, DriverError>;
    /// [`deterministic_playout`].
    fn playout(&mut self, seed: u64, max_steps: usize) -> Result<Playout, DriverError>;
    /// Uniformly random playouts (as [`crate::flat_monte_carlo`]) drawing
    /// from the generator of `seed` advanced by `stream` jumps of 2^128
    /// steps: the report and each role's sum of goals.
    fn random_playouts(
        &mut self,
        budget: McBudget,
        seed: u64,
        stream: usize,
        max_length: u64,
        progress: &mut dyn FnMut(&McReport),
    ) -> Result<(McReport, Vec<u64>), DriverError>;
    /// [`crate::gdl_perf::correctness_record`].
    #[cfg(feature = "cli")]
    fn correctness_record(
        &mut self,
        state_changes: u64,
        seed: u64,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<Option<String>>;
}

/// The random generator of `seed`'s stream `stream`.
fn stream_of(seed: u64, stream: usize) -> Xoshiro256PlusPlus {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for _ in 0..stream {
        rng.jump();
    }
    rng
}

impl<R: Reasoner> Kernels for R {
    fn role_names(&self) -> &[String] {
        self.roles()
    }

    fn initial_fluents(&mut self) -> (Vec<String>, bool) {
        let initial = self.initial_state();
        (self.fluents(&initial), self.is_terminal(&initial))
    }

    fn perft_levels(&mut self, depth: u32) -> Result<Vec<PerftLevel>, DriverError> {
        perft(self, depth)
    }

    fn deepening_levels(
        &mut self,
        max_depth: u32,
        deadline: Option<Instant>,
        on_level: &mut dyn FnMut(&PerftLevel),
    ) -> Result<Vec<PerftLevel>, DriverError> {
        perft_with(self, max_depth, deadline, on_level)
    }

    fn playout(&mut self, seed: u64, max_steps: usize) -> Result<Playout, DriverError> {
        deterministic_playout(self, seed, max_steps)
    }

    fn random_playouts(
        &mut self,
        budget: McBudget,
        seed: u64,
        stream: usize,
        max_length: u64,
        progress: &mut dyn FnMut(&McReport),
    ) -> Result<(McReport, Vec<u64>), DriverError> {
        let rng = stream_of(seed, stream);
        random_playouts(self, budget, rng, seed, max_length, progress)
    }

    #[cfg(feature = "cli")]
    fn correctness_record(
        &mut self,
        state_changes: u64,
        seed: u64,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<Option<String>> {
        crate::gdl_perf::correctness_record(self, state_changes, seed, out)
    }
}
