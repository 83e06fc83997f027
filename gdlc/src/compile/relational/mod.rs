//! The relational strategy, for any game: derived relations unfolded into
//! their callers ([`inline`]) or evaluated for their callers' bindings only
//! ([`magic`], with right-linear walks in [`linear`]), every rule planned as
//! a filter tree over constant tables ([`plan`]) whose runs of lookups are
//! joined at compile time ([`fuse`]), and a container chosen for every
//! relation ([`containers`]).

pub mod board_reads;
pub mod containers;
pub mod edits;
mod estimate;
pub mod fuse;
pub mod inline;
pub mod linear;
pub mod magic;
pub mod plan;
pub mod tables;
pub mod top_down;

use crate::compile::analyse::boards::{self, Boards};
use crate::compile::analyse::domains::Domains;
use crate::compile::analyse::layers::{self, Layers};
use crate::compile::demand;
use crate::compile::error::CompileError;
use crate::compile::program::{Lit, Pat, Program, RelId};
use containers::Container;
use magic::Adorned;
use plan::{RulePlan, Tables, TopDown};

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
    /// The relations answered top-down ([`crate::compile::demand`]): by
    /// a search or a walk instead of a container.
    pub top_down: TopDown,
    /// When the demand strategy's rewrites were declined for their code
    /// size: the body literals of its program and of the all-bottom-up
    /// one, which was built instead.
    pub declined: Option<(usize, usize)>,
    /// The boards among the fluents, which the walks' ray tables read.
    pub boards: Boards,
}

/// Body literals of the rewritten program past which the demand
/// strategy's program is weighed against the all-bottom-up one: below,
/// the code is small either way.
const DEMAND_LITERALS_WEIGHED: usize = 1_000;
/// The demand strategy's program may have at most this percentage of
/// the all-bottom-up program's body literals: the inlining and the
/// magic-set copies around its walks and searches can multiply the rules
/// (alexChess: 4 613 literals against 2 770, 1.8 MB of source against
/// 0.8 MB).
const MAX_DEMAND_PERCENT: usize = 150;

/// Rewrites `program` (inlining, magic sets), numbers the fluents so that
/// looping `true` steps walk the state, and plans every rule; returns the
/// decisions and the layers of the rewritten program; an error when
/// terms would be built at run time for more than the callers ask about.
/// With `ask`, the rays are walked by loops (`demand::walks`) and the
/// relations only asked with every argument bound are answered by a
/// search ([`crate::compile::demand`]); magic sets leave both alone.
/// When that program has more than [`MAX_DEMAND_PERCENT`] % of the body
/// literals of the all-bottom-up one (and over [`DEMAND_LITERALS_WEIGHED`]), the
/// all-bottom-up one is built instead, and [`Relational::declined`] says
/// so.
pub fn build(
    program: &mut Program,
    domains: &mut Domains,
    ask: bool,
) -> Result<(Relational, Layers), CompileError> {
    if !ask {
        return build_as(program, domains, false);
    }
    let (mut bottom_up, mut bottom_up_domains) = (program.clone(), domains.clone());
    let built = build_as(program, domains, true)?;
    let demand = literals(program);
    if demand <= DEMAND_LITERALS_WEIGHED {
        return Ok(built);
    }
    let Ok((mut relational, layers)) = build_as(&mut bottom_up, &mut bottom_up_domains, false)
    else {
        return Ok(built);
    };
    let weighed = literals(&bottom_up);
    if demand * 100 <= weighed * MAX_DEMAND_PERCENT {
        return Ok(built);
    }
    *program = bottom_up;
    *domains = bottom_up_domains;
    relational.declined = Some((demand, weighed));
    Ok((relational, layers))
}

/// The body literals of every rule of `program`.
fn literals(program: &Program) -> usize {
    program.rules.iter().map(|r| r.body.len()).sum()
}

/// [`build`], with the demand strategy's rewrites when `ask`.
fn build_as(
    program: &mut Program,
    domains: &mut Domains,
    ask: bool,
) -> Result<(Relational, Layers), CompileError> {
    let walks = match ask {
        true => demand::walks::factor(program, domains),
        false => vec![None; program.relations.len()],
    };
    let inlined = inline::inline(program, domains, &walks);
    let mut top_down = TopDown {
        asked: vec![false; program.relations.len()],
        walks,
        remembered: vec![false; program.relations.len()],
    };
    if ask {
        let mut candidates = demand::candidates(program, domains);
        for (c, walked) in candidates.iter_mut().zip(top_down.excluded()) {
            *c &= !walked;
        }
        demand::unfold_scans(program, &candidates);
        let literals = plan::Literals::new(program, domains);
        top_down.asked = candidates;
        demand::settle(program, domains, &literals, &mut top_down);
    }
    let adorned = magic::rewrite(program, domains, &top_down.excluded());
    built_on_demand(program, domains, &adorned)?;
    let literals = plan::Literals::new(program, domains);
    top_down.resize(program.relations.len());
    if ask {
        demand::settle(program, domains, &literals, &mut top_down);
    }
    let layers = layers::build_without(program, &top_down.excluded());
    // A looping `true` step whose rows are an id range walks the state:
    // number the fluents for that (from plans without tables), then plan.
    let fluent_orders = plan::fluent_orders(&plan::plan_rules(
        program, domains, &literals, None, &top_down,
    ));
    if !fluent_orders.is_empty() {
        domains.reorder_fluents(&program.store, fluent_orders);
    }
    let mut tables = Tables::default();
    let mut plans = plan::plan_rules(program, domains, &literals, Some(&mut tables), &top_down);
    fuse::fuse(&mut plans, &mut tables);
    top_down.remembered = demand::repeated_asks(program, &plans, &top_down.asked);
    let containers = containers::choose(program, domains, &layers);
    let boards = boards::find(program, domains);
    let relational = Relational {
        inlined,
        adorned,
        plans,
        containers,
        tables,
        top_down,
        declined: None,
        boards,
    };
    Ok((relational, layers))
}

/// An error unless every rule that builds a term at an open argument
/// builds it from what its callers ask about: each variable there occurs
/// in a literal of a magic relation (the bindings asked for) or at an open
/// argument of a literal (a term already built). Otherwise the rule,
/// evaluated bottom-up, would build a term for every value of its
/// variables (laikLee_hex's `islist` rules, every list of up to 25 cells).
fn built_on_demand(
    program: &Program,
    domains: &Domains,
    adorned: &[Adorned],
) -> Result<(), CompileError> {
    let magic: Vec<RelId> = adorned.iter().map(|a| a.magic).collect();
    for rule in &program.rules {
        let mut given = vec![false; rule.vars.len()];
        for lit in &rule.body {
            let Lit::Pos(atom) = lit else { continue };
            for (i, arg) in atom.args.iter().enumerate() {
                if magic.contains(&atom.rel) || domains.open[atom.rel][i] {
                    arg.for_each_var(&mut |v| given[v] = true);
                }
            }
        }
        let head = &rule.head;
        let built = (head.args.iter().enumerate())
            .filter(|&(i, arg)| domains.open[head.rel][i] && !matches!(arg, Pat::Ground(_)));
        for (_, arg) in built {
            let mut all_given = true;
            arg.for_each_var(&mut |v| all_given &= given[v]);
            if !all_given {
                return Err(CompileError::OpenEnumerated {
                    relation: program.relations[head.rel].to_string(),
                    rule: rule.text.clone(),
                });
            }
        }
    }
    Ok(())
}
