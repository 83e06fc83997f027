//! Stage 7, containers: the data structure that holds each dynamic
//! relation's facts during evaluation, chosen from its arity and domains
//! (thesis 7.2.5), or none for a `next` relation that no rule reads: its
//! facts go straight into the next state's bits. The state itself is always a bitset over the possible
//! fluents (see [`crate::compile::analyse::domains`]); static relations are constant tables
//! (see [`crate::compile::relational::plan`]).

use crate::compile::analyse::domains::Domains;
use crate::compile::analyse::layers::Layers;
use crate::compile::program::{Class, Lit, Program, RelId};
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
    /// No container: a `next` relation of a per-move layer that no rule
    /// reads; each fact derived sets its fluent's bit in the next state
    /// (a fact derived twice sets it twice, so nothing is deduplicated).
    NextBits,
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
            Container::NextBits => {
                "streamed: each derived fact sets its fluent's bit in the next state, no rule reads it"
            }
        }
    }
}

/// Most bits of a relation's dense bitset.
const MAX_DENSE_BITS: u64 = 1 << 20;

/// The container of every relation: static relations are tables, `true`
/// the state; a `next` relation no rule reads, derived per joint move
/// (evaluated again for each), none ([`Container::NextBits`]); another
/// derived relation gets a bitset when the box spanned by its arguments'
/// ids holds at most [`MAX_DENSE_BITS`] tuples, a hash set otherwise (and
/// when an argument is open: its ids have no box).
pub fn choose(program: &Program, domains: &Domains, layers: &Layers) -> Vec<Container> {
    let mut read = vec![false; program.relations.len()];
    for lit in program.rules.iter().flat_map(|r| &r.body) {
        if let Lit::Pos(a) | Lit::Neg(a) = lit {
            read[a.rel] = true;
        }
    }
    let per_move =
        |r: RelId| (layers.layers.iter()).any(|l| l.class == Class::Move && l.members.contains(&r));
    (0..program.relations.len())
        .map(|r| {
            if r == program.true_rel {
                return Container::StateBits;
            }
            if program.class[r] == Class::Static {
                return Container::Constant;
            }
            if program.answers[1].contains(&r) && !read[r] && per_move(r) {
                return Container::NextBits;
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
        Container::Constant | Container::StateBits | Container::NextBits => {
            unreachable!("only dynamic relations have a container field")
        }
    }
}
