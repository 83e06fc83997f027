//! The analyses both strategies share: argument domains and runtime term
//! ids ([`domains`]), from a relaxed evaluation of the program
//! ([`relaxed`]) and a numbering of its terms ([`term_ids`]), and the
//! layers of dynamic relations in evaluation order with the layers of each
//! phase ([`layers`]).

pub mod domains;
pub mod layers;
mod relaxed;
mod term_ids;
