//! The ground strategy, for games with few rule instances: every dynamic
//! ground atom a bit of one bit vector, every rule instance a row of a
//! static table ([`grounding`]); a simulation of the game ([`simulate`])
//! picks each rule's driver ([`drivers`]) and the layers kept up to date
//! incrementally from the fluents that change ([`incremental`]).

pub mod drivers;
pub mod grounding;
pub mod incremental;
pub mod simulate;

use crate::compile::analyse::layers::Layers;
use crate::compile::error::NotIncremental;
use grounding::Ground;
use incremental::Incremental;

/// Simulates `ground`, picks its drivers and, when `incremental` is
/// allowed, the layers evaluated incrementally; or why none is.
pub fn finish(
    ground: &mut Ground,
    layers: &Layers,
    incremental: bool,
) -> Result<Incremental, NotIncremental> {
    let mut costs = simulate::simulate(ground, layers);
    drivers::choose_drivers(ground, layers, &mut costs);
    if incremental {
        incremental::plan(ground, layers, costs)
    } else {
        Err(NotIncremental::Asked)
    }
}
