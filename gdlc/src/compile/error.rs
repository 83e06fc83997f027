//! Why a description is not compiled, and why a game is not ground or not
//! incremental: one variant per reason, printed as the CLI shows them.

use std::fmt;

/// Why a description could not be compiled (it is valid GDL, but beyond
/// what the compiler supports, or beyond its size limits).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileError {
    /// Evaluating the static relations at compile time hit the
    /// interpreter's resource limit (its message).
    StaticRelations(String),
    /// An argument of `true`, `does` or an answer keyword holds terms
    /// built at run time (see `analyse::open`), which no state or move can
    /// number.
    OpenKeyword {
        /// The argument, counted from 1.
        argument: usize,
        /// The relation, as `name/arity`.
        relation: String,
    },
    /// A rule would build terms at run time for every value of its
    /// variables, not only for those its callers ask about.
    OpenEnumerated {
        /// The relation, as `name/arity`.
        relation: String,
        /// The rule, as written.
        rule: String,
    },
    /// More possible fluents than the state can number.
    TooManyFluents {
        /// The limit that was passed.
        limit: usize,
    },
    /// More distinct ground terms than runtime ids can number.
    TooManyTerms {
        /// The limit that was passed.
        limit: usize,
    },
    /// An argument of a rule's head ranges over too many values to
    /// enumerate argument by argument.
    ArgumentTooLarge {
        /// The argument, counted from 1.
        argument: usize,
        /// The relation, as `name/arity`.
        relation: String,
        /// The rule, as written.
        rule: String,
        /// The limit that was passed.
        limit: usize,
    },
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: cannot compile: ")?;
        match self {
            CompileError::StaticRelations(limit) => write!(f, "the static relations: {limit}"),
            CompileError::OpenKeyword { argument, relation } => write!(
                f,
                "argument {argument} of `{relation}` can hold terms built at run time (by a static \
                 relation too large to tabulate), but states, moves and answers hold only terms \
                 known at compile time"
            ),
            CompileError::OpenEnumerated { relation, rule } => write!(
                f,
                "`{relation}` builds terms at run time, and its rule {rule} would build them for \
                 every value of its variables, not only for those its callers ask about (they must \
                 call it with its compound arguments bound)"
            ),
            CompileError::TooManyFluents { limit } => {
                write!(f, "the game has more than {limit} possible fluents")
            }
            CompileError::TooManyTerms { limit } => {
                write!(f, "the game needs more than {limit} distinct ground terms")
            }
            CompileError::ArgumentTooLarge {
                argument,
                relation,
                rule,
                limit,
            } => write!(
                f,
                "argument {argument} of `{relation}` can take more than {limit} values in the rule {rule}"
            ),
        }
    }
}

impl std::error::Error for CompileError {}

/// Why a game is compiled relation by relation instead of ground.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotGround {
    /// `--strategy relational`.
    Asked,
    /// The relaxed evaluation found too many rule instances to list.
    TooManyInstances {
        /// The limit that was passed.
        limit: usize,
    },
    /// `next` has static facts: a fluent that holds in every state.
    StaticNext,
    /// An argument holds terms built at run time, which no bit can stand
    /// for.
    BuiltTerms {
        /// The argument, counted from 1.
        argument: usize,
        /// The relation, as `name/arity`.
        relation: String,
    },
    /// The instances' tables would hold too many bit tests.
    TooManyTests {
        /// The limit that was passed.
        limit: usize,
    },
}

impl fmt::Display for NotGround {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotGround::Asked => write!(f, "a relation-by-relation strategy was asked for"),
            NotGround::TooManyInstances { limit } => write!(
                f,
                "more than {limit} rule instances (or a relation too large to enumerate)"
            ),
            NotGround::StaticNext => write!(f, "`next` has facts that hold in every state"),
            NotGround::BuiltTerms { argument, relation } => write!(
                f,
                "argument {argument} of `{relation}` holds terms built at run time"
            ),
            NotGround::TooManyTests { limit } => {
                write!(f, "the ground instances need more than {limit} bit tests")
            }
        }
    }
}

/// Why a ground game evaluates every state in full.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotIncremental {
    /// `--strategy ground`.
    Asked,
    /// No layer passed the simulation's test.
    NotCheaper {
        /// The states the simulation played.
        states: usize,
    },
    /// A ground atom depends on itself, so counting is not exact.
    AtomCycle,
    /// The atoms' levels are more than the update queue numbers.
    TooManyLevels {
        /// The limit that was passed.
        limit: usize,
    },
}

impl fmt::Display for NotIncremental {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotIncremental::Asked => write!(f, "full evaluation was asked for"),
            NotIncremental::NotCheaper { states } => write!(
                f,
                "no layer is cheaper incrementally in {states} simulated states, reads only \
                 incremental layers and is free of cycles through its atoms"
            ),
            NotIncremental::AtomCycle => {
                write!(
                    f,
                    "a ground atom depends on itself (recursion through atoms)"
                )
            }
            NotIncremental::TooManyLevels { limit } => {
                write!(f, "more than {limit} levels of atoms")
            }
        }
    }
}
