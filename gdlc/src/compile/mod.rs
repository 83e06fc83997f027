//! The compiler from checked rules to a specialized Rust reasoner.
//!
//! [`generate`] turns a checked description into the source of one Rust
//! module (formatted, deterministic) that defines `pub struct Game`, with
//! `Game::new()`, implementing [`gdl_runtime::Reasoner`]. The module refers
//! to the runtime only through `::gdl_runtime`, has no inner attributes (so
//! it can be pulled in with `include!`) and uses no `unsafe`.
//!
//! The pipeline, as [`analyze_with`] and [`generate_with`] run it: lower the
//! rules to a [`program::Program`]; analyse it ([`analyse`]: domains, term
//! ids, layers); choose a [`Strategy`]; then either [`ground`] it or compile
//! it relation by relation ([`relational`]); finally [`emit`] the module.

pub mod analyse;
pub mod compiled;
pub mod demand;
pub mod emit;
pub mod error;
pub mod explain;
pub mod ground;
pub mod program;
pub mod relational;
pub mod strategy;
pub mod vocabulary;

pub use compiled::{Compiled, Evaluation};
pub use emit::Generated;
pub use error::{CompileError, NotGround, NotIncremental};
pub use strategy::Strategy;
pub use vocabulary::{vocabulary, Vocabulary};

use crate::Loaded;
use analyse::{domains, layers};
use emit::arrays::Arrays;

/// Lowers, analyses and plans a checked description.
pub fn analyze(loaded: &Loaded) -> Result<Compiled, CompileError> {
    analyze_with(loaded, Strategy::Auto)
}

/// [`analyze`] with the given strategy.
pub fn analyze_with(loaded: &Loaded, strategy: Strategy) -> Result<Compiled, CompileError> {
    let mut program = program::lower::lower(&loaded.analysis.rules)?;
    let mut domains = domains::compute(&mut program)?;
    let mut layers = layers::build(&program);
    let evaluation = match strategy::ground_or_why_not(&program, &domains, &layers, strategy) {
        Ok(mut ground) => {
            let incremental =
                ground::finish(&mut ground, &layers, strategy.incremental()).map(Box::new);
            Evaluation::Ground {
                ground,
                incremental,
            }
        }
        Err(not_ground) => {
            let (relational, rewritten) =
                relational::build(&mut program, &mut domains, strategy.asks())?;
            layers = rewritten;
            Evaluation::Relational {
                relational,
                not_ground,
            }
        }
    };
    Ok(Compiled {
        program,
        domains,
        layers,
        evaluation,
    })
}

/// Compiles a checked description into the source of a module (without
/// a header: [`crate::output`] adds one naming the input) and its data
/// file, which the source includes as `data_file` (a path relative to the
/// source's folder).
pub fn generate(loaded: &Loaded, data_file: &str) -> Result<Generated, CompileError> {
    generate_with(loaded, Strategy::Auto, data_file)
}

/// [`generate`] with the given strategy.
pub fn generate_with(
    loaded: &Loaded,
    strategy: Strategy,
    data_file: &str,
) -> Result<Generated, CompileError> {
    let mut c = analyze_with(loaded, strategy)?;
    let (mut code, mut arrays) = emit(&mut c, Arrays::new(data_file, Vec::new()));
    // A module too large with every array written out is made again with
    // its largest arrays in the data file.
    if let Some(store) = arrays.to_store(code.len()) {
        (code, arrays) = emit(&mut c, Arrays::new(data_file, store));
    }
    Ok(Generated {
        code,
        data: arrays.into_data(),
    })
}

/// The source generated for the description `text` under `strategy`:
/// what the emitters' unit tests read.
#[cfg(test)]
pub(crate) fn generated_code(text: &str, strategy: Strategy) -> String {
    let loaded = crate::load_bytes("t.kif".into(), text.as_bytes().to_vec()).expect("valid");
    generate_with(&loaded, strategy, "t.bin")
        .expect("compiles")
        .code
}

/// The module of a compiled game, by the emitter of its evaluation, its
/// long arrays placed in `arrays` (handed back with the source).
fn emit(c: &mut Compiled, arrays: Arrays) -> (String, Arrays) {
    let Compiled {
        program,
        domains,
        layers,
        evaluation,
    } = c;
    match evaluation {
        Evaluation::Ground {
            ground,
            incremental: Ok(incremental),
        } => emit::incremental::module(program, domains, layers, ground, incremental, arrays),
        Evaluation::Ground { ground, .. } => {
            emit::ground::module(program, domains, layers, ground, arrays)
        }
        Evaluation::Relational { relational, .. } => {
            emit::relational::module(emit::relational::Input {
                rules: emit::relational_rules::RulesInput {
                    program,
                    domains,
                    layers,
                    plans: &relational.plans,
                    top_down: &relational.top_down,
                    containers: &relational.containers,
                    boards: &relational.boards,
                },
                tables: &mut relational.tables,
                arrays,
            })
        }
    }
}
