//! Stage 7, containers: the data structure that holds each dynamic
//! relation's facts during evaluation, chosen from its arity and domains
//! (thesis 7.2.5). The state itself is always a bitset over the possible
//! fluents (see [`crate::compile::analyse::domains`]); static relations are constant tables
//! (see [`crate::compile::relational::plan`]).

use crate::compile::analyse::domains::Domains;
use crate::compile::program::{Class, Program};
use proc_macro2::TokenStream;
use quote::quote;

/// How a relation's facts are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Container {
    /// A compile-time table (static relations).
    Constant,
    /// The state bitset (`true`).
    StateBits,
    /// A list of tuples for enumeration plus a hash set for membership
    /// (`gdl_runtime::support::Rel`).
    Hashed,
    /// A list of tuples plus a bitset over the box of its argument ids: the
    /// smallest id and the span of each position.
    Dense {
        /// Smallest runtime id per position.
        mins: Vec<u32>,
        /// Number of ids from the smallest to the largest, per position.
        spans: Vec<u32>,
    },
}

impl Container {
    /// Why this container, for `gdlc explain`.
    pub fn reason(&self) -> &'static str {
        match self {
            Container::Constant => "static: evaluated at compile time, queried by binary search",
            Container::StateBits => "the state: one bit per possible fluent",
            Container::Hashed => {
                "derived per state or move, too many possible tuples for a bitset: tuple list + hash set"
            }
            Container::Dense { .. } => {
                "derived per state or move, few possible tuples: tuple list + bitset over the argument ids"
            }
        }
    }
}

/// Most bits of a relation's dense bitset.
const MAX_DENSE_BITS: u64 = 1 << 20;

/// The container of every relation: static relations are tables, `true`
/// the state; a derived relation gets a bitset when the box spanned by its
/// arguments' ids holds at most [`MAX_DENSE_BITS`] tuples, a hash set
/// otherwise (and when an argument is open: its ids have no box).
pub fn choose(program: &Program, domains: &Domains) -> Vec<Container> {
    (0..program.relations.len())
        .map(|r| {
            if r == program.true_rel {
                return Container::StateBits;
            }
            if program.class[r] == Class::Static {
                return Container::Constant;
            }
            if domains.has_open(r) {
                return Container::Hashed;
            }
            let mut mins = Vec::new();
            let mut spans = Vec::new();
            let mut volume: u64 = 1;
            for values in &domains.args[r] {
                let ids = values.iter().map(|&t| domains.id(t));
                let (lo, hi) = ids.fold((u32::MAX, 0), |(lo, hi), id| (lo.min(id), hi.max(id)));
                let span = if lo > hi { 1 } else { hi - lo + 1 };
                mins.push(if lo > hi { 0 } else { lo });
                spans.push(span);
                volume = volume.saturating_mul(u64::from(span));
            }
            if volume <= MAX_DENSE_BITS {
                Container::Dense { mins, spans }
            } else {
                Container::Hashed
            }
        })
        .collect()
}

/// The box of a dense container: smallest ids and spans.
pub fn dense_box(container: &Container) -> Option<(&[u32], &[u32])> {
    match container {
        Container::Dense { mins, spans } => Some((mins, spans)),
        _ => None,
    }
}

/// The Rust type of a dynamic relation's container.
pub fn type_tokens(container: &Container, arity: usize) -> TokenStream {
    let n = proc_macro2::Literal::usize_unsuffixed(arity);
    match container {
        Container::Hashed | Container::Dense { .. } => quote! { Rel<#n> },
        Container::Constant | Container::StateBits => {
            unreachable!("only dynamic relations have a container field")
        }
    }
}
