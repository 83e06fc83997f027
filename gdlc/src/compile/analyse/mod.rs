//! The analyses both strategies share: argument domains and runtime term
//! ids from a relaxed evaluation ([`domains`]), and the layers of dynamic
//! relations in evaluation order with the layers of each phase
//! ([`layers`]).

pub mod domains;
pub mod layers;
