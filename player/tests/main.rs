//! The player's integration tests, built as one test binary: whole matches
//! against a game manager that referees with the interpreter (`matches`,
//! GDL-II's `gdl_ii_matches`) and the protocol on bad and concurrent
//! requests (`protocol`).

mod common;
mod gdl_ii_matches;
mod matches;
mod protocol;
