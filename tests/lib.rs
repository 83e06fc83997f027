//! The workspace's end-to-end tests live beside this file (see
//! `Cargo.toml`); the crate itself holds no code.
