//! The third-party crates a program on snodo needs, re-exported so that
//! `snodo` can be its one dependency.
//!
//! Deriving through a re-export names it: `#[serde(crate =
//! "snodo::deps::serde")]` on a `Deserialize` or `Serialize` type, and
//! `#[tokio::main(crate = "snodo::deps::tokio")]` after `use
//! snodo::deps::tokio;`. (`JsonSchema` needs nothing: the prelude brings
//! `schemars` into scope.) A program that depends on serde or tokio itself
//! can drop those attributes; the versions are the ones snodo is built
//! with, so the types agree either way.

/// serde, with `derive`: the arguments and results of typed tools.
pub use serde;

/// serde_json: `Value`, `json!`, and the untyped tool arguments.
pub use serde_json;

/// schemars, the version `snodo-proto` generates tool schemas with (so an
/// application's `#[derive(JsonSchema)]` is always that version).
pub use snodo_proto::schemars;

/// tokio, with the multi-threaded scheduler, `#[tokio::main]` and
/// `tokio::signal` (feature `tokio`).
#[cfg(feature = "tokio")]
pub use ::tokio;

/// smol, whose `Executor` the smol entry points run on (feature `smol`).
#[cfg(feature = "smol")]
pub use ::smol;
