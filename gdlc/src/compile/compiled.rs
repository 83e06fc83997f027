//! What the compiler decided about a game: the result of
//! [`crate::compile::analyze_with`], read by the emitters and by `gdlc
//! explain`.

use crate::compile::analyse::domains::Domains;
use crate::compile::analyse::layers::Layers;
use crate::compile::error::{NotGround, NotIncremental};
use crate::compile::ground::grounding::Ground;
use crate::compile::ground::incremental::Incremental;
use crate::compile::program::Program;
use crate::compile::relational::Relational;

/// Everything the compiler decided, for `gdlc explain` and for code
/// generation.
pub struct Compiled {
    /// The lowered program (rewritten by the relational strategy).
    pub program: Program,
    /// Domains and runtime term ids.
    pub domains: Domains,
    /// Layers and phases.
    pub layers: Layers,
    /// What the chosen strategy decided.
    pub evaluation: Evaluation,
}

/// How the generated code evaluates the rules: one variant per strategy.
pub enum Evaluation {
    /// Ground: one bit vector, instance tables.
    Ground {
        /// The ground program.
        ground: Ground,
        /// The layers kept up to date incrementally, or why every state
        /// is evaluated in full.
        incremental: Result<Box<Incremental>, NotIncremental>,
    },
    /// Relation by relation: joins over containers.
    Relational {
        /// The plans, tables and containers.
        relational: Relational,
        /// Why the game is not ground.
        not_ground: NotGround,
    },
}

impl Compiled {
    /// The ground program, when the game is ground.
    pub fn ground(&self) -> Option<&Ground> {
        match &self.evaluation {
            Evaluation::Ground { ground, .. } => Some(ground),
            Evaluation::Relational { .. } => None,
        }
    }

    /// The incremental evaluation, when the game is ground and some layer
    /// is incremental.
    pub fn incremental(&self) -> Option<&Incremental> {
        match &self.evaluation {
            Evaluation::Ground { incremental, .. } => incremental.as_deref().ok(),
            Evaluation::Relational { .. } => None,
        }
    }

    /// What the relational strategy decided, when the game is compiled
    /// relation by relation.
    pub fn relational(&self) -> Option<&Relational> {
        match &self.evaluation {
            Evaluation::Relational { relational, .. } => Some(relational),
            Evaluation::Ground { .. } => None,
        }
    }
}
