//! gdlc-fuzz: random valid GDL games whose answers the interpreter and the
//! compiled strategies must agree on, a shrinker for the games they do
//! not, and mutation fuzzing of gdlc's front end and checks.

pub mod differential;
pub mod differential_run;
pub mod game;
pub mod generate;
pub mod limits;
pub mod mutant_worker;
pub mod mutate;
pub mod mutation_run;
pub mod shrink;
