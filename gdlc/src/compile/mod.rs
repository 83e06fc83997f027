//! Stages 3–8 of the pipeline: the compiler from checked rules to a
//! specialized Rust reasoner.
//!
//! [`generate`] turns a checked description into the source of one Rust
//! module (formatted, deterministic) that defines `pub struct Game`, with
//! `Game::new()`, implementing [`gdl_runtime::Reasoner`]. The module refers
//! to the runtime only through `::gdl_runtime`, has no inner attributes (so
//! it can be pulled in with `include!`) and uses no `unsafe`.
//!
//! The stages: [`normalize`] (interned terms, static relations evaluated),
//! [`domains`] (argument domains, runtime term ids, ground instances),
//! [`layers`] (components and phases); then either [`ground`] and
//! [`incremental`] with [`incremental_codegen`] (a game with few rule
//! instances: one bit vector, updated from the fluents that change), or
//! [`ground_codegen`] (the same bits evaluated in full for each state, when
//! ground atoms depend on themselves), or [`inline`] and [`magic`] (on-demand evaluation of large
//! relations), [`plan`] (filter trees and constant tables), [`containers`]
//! and [`codegen`] (relation by relation). [`Strategy`] chooses.

pub mod arrays;
pub mod codegen;
pub mod containers;
pub mod domains;
pub mod explain;
pub mod ground;
pub mod ground_codegen;
pub mod incremental;
pub mod incremental_codegen;
pub mod inline;
pub mod layers;
pub mod linear;
pub mod magic;
pub mod normalize;
pub mod plan;
pub mod simulate;

use crate::Loaded;

/// Why a description could not be compiled (it is valid GDL, but beyond
/// what the compiler supports, or beyond its size limits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError(pub String);

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error: cannot compile: {}", self.0)
    }
}

impl std::error::Error for CompileError {}

/// How the rules are evaluated by the generated code.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// Ground when the game has few enough rule instances
    /// ([`ground::ground`]), evaluated incrementally when no ground atom
    /// depends on itself ([`incremental::plan`]); relation by relation
    /// otherwise.
    #[default]
    Auto,
    /// Ground when the game has few enough rule instances, every state
    /// evaluated in full; relation by relation otherwise.
    Ground,
    /// Relation by relation (joins over containers), whatever the game.
    Relational,
}

/// The generated reasoner.
pub struct Generated {
    /// The formatted source of the module.
    pub code: String,
}

/// Everything the compiler decided, for `gdlc explain` and for code
/// generation.
pub struct Compiled {
    /// The normalized program.
    pub program: normalize::Program,
    /// Domains and runtime term ids.
    pub domains: domains::Domains,
    /// The relations inlined into their callers (evaluated on demand).
    pub inlined: Vec<normalize::RelId>,
    /// The adorned copies magic sets introduced (evaluated for their
    /// callers' bindings only).
    pub adorned: Vec<magic::Adorned>,
    /// Layers and phases.
    pub layers: layers::Layers,
    /// The plan of every rule that can fire.
    pub plans: Vec<plan::RulePlan>,
    /// The container of every relation.
    pub containers: Vec<containers::Container>,
    /// The constant tables.
    pub tables: plan::Tables,
    /// The ground program, or why the game is compiled relation by
    /// relation instead.
    pub ground: Result<ground::Ground, String>,
    /// The incremental evaluation of the ground program, or why it is
    /// evaluated in full.
    pub incremental: Result<incremental::Incremental, String>,
}

/// Runs stages 3–7 on a checked description.
pub fn analyze(loaded: &Loaded) -> Result<Compiled, CompileError> {
    analyze_with(loaded, Strategy::Auto)
}

/// Runs stages 3–7 on a checked description, with the given strategy.
pub fn analyze_with(loaded: &Loaded, strategy: Strategy) -> Result<Compiled, CompileError> {
    let mut program = normalize::normalize(&loaded.analysis.rules)?;
    let mut domains = domains::compute(&mut program)?;
    let layers = layers::build(&program);
    let mut ground = match strategy {
        Strategy::Auto | Strategy::Ground => ground::ground(&program, &domains, &layers),
        Strategy::Relational => Err("the relational strategy was asked for".into()),
    };
    // A simulation of the ground program picks the drivers, and which
    // layers are incremental.
    let costs = ground.as_mut().ok().map(|g| {
        let mut costs = simulate::simulate(g, &layers);
        g.choose_drivers(&layers, &mut costs);
        costs
    });
    // Inlining serves the relational code only (and would change the
    // rules the ground instances are numbered by).
    let (inlined, adorned, layers) = if ground.is_ok() {
        (Vec::new(), Vec::new(), layers)
    } else {
        let inlined = inline::inline(&mut program, &domains);
        let adorned = magic::rewrite(&mut program, &mut domains);
        (inlined, adorned, layers::build(&program))
    };
    let incremental = match (&ground, costs, strategy) {
        (Ok(g), Some(costs), Strategy::Auto) => incremental::plan(g, &layers, costs),
        (Ok(_), _, _) => Err("full evaluation was asked for".into()),
        (Err(_), _, _) => Err("not ground".into()),
    };
    let literals = plan::Literals::new(&program, &domains);
    // The relational code walks the state where a looping `true` step's
    // rows are an id range: number the fluents for that (from plans
    // without tables), then plan.
    if ground.is_err() {
        let fluent_orders =
            plan::fluent_orders(&plan::plan_rules(&program, &domains, &literals, None));
        if !fluent_orders.is_empty() {
            domains.reorder_fluents(&program.store, fluent_orders);
        }
    }
    let mut tables = plan::Tables::default();
    let plans = plan::plan_rules(&program, &domains, &literals, Some(&mut tables));
    let containers = containers::choose(&program, &domains);
    Ok(Compiled {
        program,
        domains,
        inlined,
        adorned,
        layers,
        plans,
        containers,
        tables,
        ground,
        incremental,
    })
}

/// Compiles a checked description into the source of a module (without
/// a header: [`crate::output`] adds one naming the input).
pub fn generate(loaded: &Loaded) -> Result<Generated, CompileError> {
    generate_with(loaded, Strategy::Auto)
}

/// [`generate`] with the given strategy.
pub fn generate_with(loaded: &Loaded, strategy: Strategy) -> Result<Generated, CompileError> {
    let mut c = analyze_with(loaded, strategy)?;
    if let (Ok(ground), Ok(incremental)) = (&c.ground, &c.incremental) {
        let code =
            incremental_codegen::module(&c.program, &c.domains, &c.layers, ground, incremental);
        return Ok(Generated { code });
    }
    if let Ok(ground) = &c.ground {
        let code = ground_codegen::module(&c.program, &c.domains, &c.layers, ground);
        return Ok(Generated { code });
    }
    let code = codegen::module(codegen::Input {
        program: &c.program,
        domains: &c.domains,
        layers: &c.layers,
        plans: &c.plans,
        containers: &c.containers,
        tables: &mut c.tables,
    });
    Ok(Generated { code })
}
