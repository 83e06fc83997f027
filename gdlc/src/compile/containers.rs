//! Stage 7, containers: the data structure that holds each dynamic
//! relation's facts during evaluation, chosen from its arity and domains
//! (thesis 7.2.5). The state itself is always a bitset over the possible
//! fluents (see [`super::domains`]); static relations are constant tables
//! (see [`super::plan`]).

use super::domains::Domains;
use super::normalize::{Class, Program};
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
}

impl Container {
    /// Why this container, for `gdlc explain`.
    pub fn reason(&self) -> &'static str {
        match self {
            Container::Constant => "static: evaluated at compile time, queried by binary search",
            Container::StateBits => "the state: one bit per possible fluent",
            Container::Hashed => "derived per state or move: tuple list + hash set",
        }
    }
}

/// The container of every relation.
pub fn choose(program: &Program, _domains: &Domains) -> Vec<Container> {
    (0..program.relations.len())
        .map(|r| {
            if r == program.true_rel {
                Container::StateBits
            } else if program.class[r] == Class::Static {
                Container::Constant
            } else {
                Container::Hashed
            }
        })
        .collect()
}

/// The Rust type of a dynamic relation's container.
pub fn type_tokens(container: &Container, arity: usize) -> TokenStream {
    let n = proc_macro2::Literal::usize_unsuffixed(arity);
    match container {
        Container::Hashed => quote! { Rel<#n> },
        Container::Constant | Container::StateBits => {
            unreachable!("only dynamic relations have a container field")
        }
    }
}
