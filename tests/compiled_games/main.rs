//! The project's games as `gdlc-benches`' build script compiles them (every
//! strategy) against the reference interpreter: the same answers
//! (`agreement`), the same percepts (`percepts`), the same state hashes and
//! states rebuilt from their fluents (`state_hash`). One test binary, so
//! that its tests share one link and run side by side.

mod agreement;
mod common;
mod percepts;
mod state_hash;
