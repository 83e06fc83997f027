//! The analyses both strategies share: argument domains and runtime term
//! ids ([`domains`]), from a relaxed evaluation of the program
//! ([`relaxed`]) that sees the arguments built at run time ([`open`]) as
//! one placeholder, and a numbering of its terms ([`term_ids`]), and the
//! layers of dynamic relations in evaluation order with the layers of each
//! phase ([`layers`]), the sorts of the argument positions, with the
//! static successor relations that order them ([`sorts`]), and the boards
//! among the fluents, numbered by square ([`boards`]).

pub mod boards;
pub mod domains;
pub mod layers;
pub mod open;
mod relaxed;
pub mod sorts;
mod term_ids;
