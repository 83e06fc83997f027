//! The choice between the ground and the relational strategy.

use crate::compile::analyse::domains::Domains;
use crate::compile::analyse::layers::Layers;
use crate::compile::analyse::open;
use crate::compile::error::NotGround;
use crate::compile::ground::grounding::{self, Ground};
use crate::compile::program::Program;

/// How the rules are evaluated by the generated code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// Ground when the game has few enough rule instances
    /// ([`grounding::ground`]), with the layers that are cheaper so
    /// evaluated incrementally ([`crate::compile::ground::incremental`]);
    /// relation by relation otherwise, as [`Strategy::Demand`].
    #[default]
    Auto,
    /// Ground when the game has few enough rule instances, every state
    /// evaluated in full; relation by relation otherwise.
    Ground,
    /// Relation by relation (joins over containers), whatever the game,
    /// every derived relation evaluated bottom-up.
    Relational,
    /// Relation by relation whatever the game, a relation its callers only
    /// ask with every argument bound answered by a top-down search
    /// ([`crate::compile::demand`]) instead of a container.
    Demand,
}

impl Strategy {
    /// Whether a game evaluated relation by relation walks its rays and
    /// answers the relations asked with every argument bound by a search.
    pub fn asks(self) -> bool {
        matches!(self, Strategy::Auto | Strategy::Demand)
    }

    /// Whether a ground game may keep layers up to date incrementally.
    pub fn incremental(self) -> bool {
        self == Strategy::Auto
    }
}

/// The ground program when `strategy` allows it and the game grounds small
/// enough; otherwise why the game is compiled relation by relation.
pub fn ground_or_why_not(
    program: &Program,
    domains: &Domains,
    layers: &Layers,
    strategy: Strategy,
) -> Result<Ground, NotGround> {
    if let Some((r, i)) = open::first(&domains.open) {
        return Err(NotGround::BuiltTerms {
            argument: i + 1,
            relation: program.relations[r].to_string(),
        });
    }
    match strategy {
        Strategy::Auto | Strategy::Ground => grounding::ground(program, domains, layers),
        Strategy::Relational | Strategy::Demand => Err(NotGround::Asked),
    }
}
