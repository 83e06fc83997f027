//! A game's vocabulary: every fluent that can hold and every move that can
//! be made, each in one fixed order, from the relaxed evaluation behind
//! the domains. Learning code indexes observations and action masks by it
//! (the Python package's `fluent_names` and `move_names`), the same for
//! every backend since it is read off the description alone.

use super::analyse::domains;
use super::error::CompileError;
use super::program::{self, RelId};
use crate::Loaded;

/// The possible fluents and moves of a game, each sorted bytewise by its
/// canonical KIF text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vocabulary {
    /// Every fluent some reachable state may hold (a superset of those
    /// that do: the relaxed evaluation ignores negation).
    pub fluents: Vec<String>,
    /// Every move some role may make in some reachable state (the same
    /// superset), the union over the roles: a move is named alike for
    /// every role that can make it.
    pub moves: Vec<String>,
}

/// The vocabulary of a checked description.
pub fn vocabulary(loaded: &Loaded) -> Result<Vocabulary, CompileError> {
    let mut program = program::lower::lower(&loaded.analysis.rules)?;
    let domains = domains::compute(&mut program)?;
    let mut fluents = domains.texts[..domains.fluents].to_vec();
    fluents.sort_unstable();
    let move_args = std::iter::once(program.does_rel)
        .chain(program.answers[0].iter().copied())
        .filter_map(|r: RelId| domains.args[r].get(1));
    let mut moves: Vec<String> = move_args
        .flatten()
        .map(|&t| domains.texts[domains.id(t) as usize].clone())
        .collect();
    moves.sort_unstable();
    moves.dedup();
    Ok(Vocabulary { fluents, moves })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceFile;

    fn vocabulary_of(text: &str) -> Vocabulary {
        let loaded = crate::load_source(SourceFile {
            name: "t.kif".into(),
            text: text.into(),
        })
        .unwrap_or_else(|e| panic!("{e}"));
        vocabulary(&loaded).expect("compiles")
    }

    #[test]
    fn lists_the_reachable_fluents_and_moves_in_text_order() {
        let v = vocabulary_of(
            "(role a) (role b) (init (at 0)) (succ 0 1) (succ 1 2) (succ 2 3)
             (<= (legal a (step ?n)) (true (at ?m)) (succ ?m ?n))
             (legal a wait) (legal b noop)
             (<= (next (at ?n)) (does a (step ?n)))
             (<= (next (at ?m)) (does a wait) (true (at ?m)))
             (<= terminal (true (at 3))) (goal a 100) (goal b 0)",
        );
        let fluents = ["(at 0)", "(at 1)", "(at 2)", "(at 3)"];
        assert_eq!(v.fluents, fluents);
        // (step 4) needs (at 3) and a successor of 3: there is none.
        let moves = ["(step 1)", "(step 2)", "(step 3)", "noop", "wait"];
        assert_eq!(v.moves, moves);
    }
}
