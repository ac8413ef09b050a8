//! # snodo-tests
//!
//! Cross-crate wire tests. The protocol is asserted as literal JSON: each
//! [`Vector`] is one request line exactly as a client would write it and the
//! complete response exactly as the server must answer it, both typed by
//! hand from the spec and the fixture's declared contents, never produced by
//! the code under test.
//!
//! The same table runs over every [`Transport`]: the sans-I/O
//! [`Connection`](snodo_proto::Connection) driven in-process
//! ([`Direct`]), and the fixture process on each runtime
//! ([`Runtime`]) over stdio ([`StdioProcess`]) and Streamable HTTP
//! ([`HttpProcess`]). [`run_table`] is the whole suite for one cell of that
//! matrix; `wire_matrix.rs` runs it in every cell. Over HTTP a vector also
//! states its status, and where HTTP answers otherwise, what and why
//! ([`Http`]).

/// The published crates' READMEs, compiled (and run, where a program does
/// not serve) as this crate's doctests, so each README's smallest program
/// is one that builds. The front door's README is its crate documentation
/// and is tested there.
#[cfg(doctest)]
pub mod readmes {
    #[doc = include_str!("../proto/README.md")]
    pub struct Proto;
    #[doc = include_str!("../driver/README.md")]
    pub struct Driver;
    #[doc = include_str!("../adapter-tokio/README.md")]
    pub struct Tokio;
    #[doc = include_str!("../adapter-smol/README.md")]
    pub struct Smol;
    #[doc = include_str!("../adapter-blocking/README.md")]
    pub struct Blocking;
    #[doc = include_str!("../adapter-hyper/README.md")]
    pub struct Hyper;
    #[doc = include_str!("../tasks/README.md")]
    pub struct Tasks;
    #[doc = include_str!("../tasks-sql/README.md")]
    pub struct TasksSql;
    #[doc = include_str!("../testkit/README.md")]
    pub struct Testkit;
    #[doc = include_str!("../auth/README.md")]
    pub struct Auth;
    #[doc = include_str!("../client/README.md")]
    pub struct Client;
    #[doc = include_str!("../oauth-client/README.md")]
    pub struct OauthClient;
}

pub mod block_on;
pub mod direct;
pub mod http;
pub mod matrix;
pub mod process;
pub mod run;
pub mod transport;
pub mod vector;
pub mod vectors;

pub use direct::Direct;
pub use http::HttpProcess;
pub use matrix::{fixture_bin, spawn_http, spawn_stdio, Runtime};
pub use process::StdioProcess;
pub use run::{assert_vectors, follow_each_bad_message, run_table, run_vectors, Run};
pub use transport::{check_message, check_message_in, Transport, Wire};
pub use vector::{Expect, Http, Scope, Vector};
pub use vectors::VECTORS;
