//! The relational strategy, for any game: derived relations unfolded into
//! their callers ([`inline`]) or evaluated for their callers' bindings only
//! ([`magic`], with right-linear walks in [`linear`]), every rule planned as
//! a filter tree over constant tables ([`plan`]), and a container chosen
//! for every relation ([`containers`]).

pub mod containers;
pub mod inline;
pub mod linear;
pub mod magic;
pub mod plan;
pub mod tables;

use crate::compile::analyse::domains::Domains;
use crate::compile::analyse::layers::{self, Layers};
use crate::compile::program::{Program, RelId};
use containers::Container;
use magic::Adorned;
use plan::{RulePlan, Tables};

/// What the relational strategy decided, beside the program it rewrote.
pub struct Relational {
    /// The relations inlined into their callers (evaluated on demand).
    pub inlined: Vec<RelId>,
    /// The adorned copies magic sets introduced (evaluated for their
    /// callers' bindings only).
    pub adorned: Vec<Adorned>,
    /// The plan of every rule that can fire.
    pub plans: Vec<RulePlan>,
    /// The container of every relation.
    pub containers: Vec<Container>,
    /// The constant tables.
    pub tables: Tables,
}

/// Rewrites `program` (inlining, magic sets), numbers the fluents so that
/// looping `true` steps walk the state, and plans every rule; returns the
/// decisions and the layers of the rewritten program.
pub fn build(program: &mut Program, domains: &mut Domains) -> (Relational, Layers) {
    let inlined = inline::inline(program, domains);
    let adorned = magic::rewrite(program, domains);
    let layers = layers::build(program);
    let literals = plan::Literals::new(program, domains);
    // A looping `true` step whose rows are an id range walks the state:
    // number the fluents for that (from plans without tables), then plan.
    let fluent_orders = plan::fluent_orders(&plan::plan_rules(program, domains, &literals, None));
    if !fluent_orders.is_empty() {
        domains.reorder_fluents(&program.store, fluent_orders);
    }
    let mut tables = Tables::default();
    let plans = plan::plan_rules(program, domains, &literals, Some(&mut tables));
    let containers = containers::choose(program, domains);
    let relational = Relational {
        inlined,
        adorned,
        plans,
        containers,
        tables,
    };
    (relational, layers)
}
