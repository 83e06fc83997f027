//! Code generation: what the strategies decided, as one formatted Rust
//! module (`State`, `Move`, `Game: Reasoner`). [`skeleton`] writes what
//! every emitter writes alike and [`arrays`] the long constant arrays; one
//! emitter per way of evaluating: [`relational`] (its rules' loops in
//! [`relational_rules`], its layers in [`relational_layers`], its
//! constant-table lookups in [`table_lookups`]), [`ground`] (every state in
//! full) and
//! [`incremental`]. The two ground emitters share
//! [`ground_rules`] (the rules over the bit vector) and [`ground_answers`]
//! (the answers read off it); no emitter imports another.

pub mod arrays;
pub mod ground;
pub mod ground_answers;
pub mod ground_rules;
pub mod incremental;
pub mod relational;
pub mod relational_layers;
pub mod relational_rules;
pub mod skeleton;
pub mod table_lookups;

/// A generated module.
pub struct Generated {
    /// The formatted source of the module.
    pub code: String,
    /// The data file the source includes, holding its large constant
    /// tables (see [`arrays`]); empty when there is none.
    pub data: Vec<u8>,
}
