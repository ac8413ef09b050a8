#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod deps;
pub mod prelude;

/// The engine (`snodo-proto`): services, tools, resources, prompts,
/// errors, and the sans-I/O connection state machine under every runtime.
pub use snodo_proto as proto;

/// The one event loop every runtime shares (`snodo-driver`): its
/// `Runtime` trait is how a new runtime is added.
#[cfg(any(feature = "tokio", feature = "smol", feature = "blocking"))]
pub use snodo_driver as driver;

/// Serving on tokio (`snodo-tokio`): stdio, Streamable HTTP, any TCP
/// transport.
#[cfg(feature = "tokio")]
pub use snodo_tokio as tokio;

/// Serving on smol / async-io (`snodo-smol`), on an executor the
/// application passes in.
#[cfg(feature = "smol")]
pub use snodo_smol as smol;

/// Serving on plain threads with no async executor (`snodo-blocking`).
#[cfg(feature = "blocking")]
pub use snodo_blocking as blocking;

/// Streamable HTTP as a tower `Service` on hyper 1.x, or mounted in axum
/// (`snodo-hyper`; TLS with the feature `tls`).
#[cfg(feature = "hyper")]
pub use snodo_hyper as hyper;

/// Bearer token validators for authorization (`snodo-auth`): JWT and
/// RFC 7662 introspection.
#[cfg(feature = "auth")]
pub use snodo_auth as auth;

/// The MCP client (`snodo-client`): a blocking `Session`, and an
/// `AsyncSession` on the runtimes this build enables.
#[cfg(feature = "client")]
pub use snodo_client as client;

/// The OAuth 2.1 client of MCP authorization (`snodo-oauth-client`).
#[cfg(feature = "oauth-client")]
pub use snodo_oauth_client as oauth_client;

/// The Tasks extension (`snodo-tasks`): lifecycle, memory and disk
/// stores, the task runner.
#[cfg(feature = "tasks")]
pub use snodo_tasks as tasks;

/// Tasks stores on SQLite and PostgreSQL, and the PostgreSQL change bus
/// between replicas (`snodo-tasks-sql`).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use snodo_tasks_sql as tasks_sql;

/// The in-process test client (`snodo-testkit`), for an application's own
/// tests.
#[cfg(feature = "testkit")]
pub use snodo_testkit as testkit;

/// `#[tool]` on a function and `#[tools]` on an `impl` block
/// (`snodo-macros`): tools whose arguments are the function's parameters.
#[cfg(feature = "macros")]
pub use snodo_macros::{tool, tools};
