//! A model of clients, application and clock around `Connection`s, with
//! oracles that know only what a client can see. Shared by the property
//! tests (`properties.rs`, inputs from a seeded generator) and the fuzz
//! targets (`fuzz/`, inputs from libFuzzer), so both check the same
//! guarantees.

#![allow(dead_code)]

pub mod fixture;
pub mod gen;
pub mod oracle;
pub mod run;
pub mod sessions;
pub mod source;
pub mod wire;
