//! # snodo-tests
//!
//! Cross-crate wire tests. The protocol is asserted as literal JSON: each
//! [`Vector`] is one request line exactly as a client would write it and the
//! complete response exactly as the server must answer it, both typed by
//! hand from the spec and the fixture's declared contents, never produced by
//! the code under test.
//!
//! The same table runs over every [`Transport`]: today the sans-I/O
//! [`Connection`](snodo_proto::Connection) driven in-process
//! ([`Direct`]) and the `snodo-fixture --stdio` subprocess
//! ([`StdioProcess`]). A later transport (HTTP, another runtime) implements
//! [`Transport::exchange`] and runs the same [`VECTORS`].

pub mod block_on;
pub mod direct;
pub mod process;
pub mod run;
pub mod transport;
pub mod vector;
pub mod vectors;

pub use direct::Direct;
pub use process::StdioProcess;
pub use run::{assert_vectors, follow_each_bad_message, run_vectors};
pub use transport::{check_message, Transport};
pub use vector::{Expect, Scope, Vector};
pub use vectors::VECTORS;
