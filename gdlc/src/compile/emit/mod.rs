//! Code generation: what the strategies decided, as one formatted Rust
//! module (`State`, `Move`, `Game: Reasoner`). [`skeleton`] writes what
//! every emitter writes alike and [`arrays`] the long constant arrays; one
//! emitter per way of evaluating: [`relational`], [`ground`] (every state
//! in full) and [`incremental`].

pub mod arrays;
pub mod ground;
pub mod incremental;
pub mod relational;
pub mod skeleton;
