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
