//! # snodo-proto
//!
//! The server side of the Model Context Protocol, revision **2026-07-28**, as
//! a sans-I/O state machine: bytes, connection events, handler outcomes and
//! the current time go in; bytes to write, handlers to run, calls to cancel
//! and the next deadline come out. It opens no socket, spawns no thread,
//! names no runtime and reads no clock, so it runs under tokio, smol, plain
//! threads, a test harness or a fuzzer alike.
//!
//! A [`Service`] is built once (registry, limits, precomputed answers) and
//! shared; a [`Connection`] holds one stream's state. The driving contract
//! (every input, every output, and when to wait for what) is in
//! [`connection`]; the repository's `examples/polling-http` follows it for
//! a whole Streamable HTTP server on the `polling` crate, and
//! `snodo-driver` on any async runtime.
//!
//! ```
//! use snodo_proto::{CallToolResult, Connection, Instant, NoArgs, Output, Service, Tool, Transport};
//!
//! // Register a tool whose handler is an ordinary future.
//! let service = Service::builder()
//!     .tool(Tool::new("hello", "Say hello"), |_: NoArgs| async { CallToolResult::text("Hello!") })
//!     .build()
//!     .unwrap();
//!
//! let mut conn = Connection::new(&service, Transport::Stdio, Instant::ZERO);
//! conn.handle_input(
//!     br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
//! "#,
//!     Instant::ZERO,
//! );
//!
//! // Drain the outputs: keep each transmit, run each call.
//! let mut written = Vec::new();
//! while let Some(out) = conn.poll_output() {
//!     match out {
//!         Output::Transmit(bytes) => written.extend_from_slice(&bytes),
//!         Output::Invoke(invocation) => {
//!             // Polled once here. A handler that is not ready would be
//!             // spawned on an executor and report back by itself.
//!             let mut task = conn.task(invocation);
//!             let outcome = task.poll_inline().expect("this handler is ready at once");
//!             conn.complete(task.call(), outcome, Instant::ZERO).unwrap();
//!         }
//!         Output::Cancel(_) | Output::Close | Output::Respond(_) => {}
//!     }
//! }
//! // One line of JSON: the result, shaped with `resultType` and the server's identity.
//! assert!(written.ends_with(b"\n"));
//! let response: serde_json::Value = serde_json::from_slice(&written).unwrap();
//! assert_eq!(response["id"], 1);
//! assert_eq!(response["result"]["content"][0]["text"], "Hello!");
//! assert_eq!(response["result"]["resultType"], "complete");
//! assert_eq!(response["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "snodo");
//! ```
//!
//! Tools with typed arguments and results, whose schemas are generated
//! from their Rust types, and application state handed to every handler:
//! [`typed`] (feature `typed`, on by default). Testing a service without a
//! socket: the `snodo-testkit` crate's `TestClient`. Each handler call runs
//! in a `tracing` span: [`trace`]; with the feature `opentelemetry` (off by
//! default) the span's parent is the caller's span from the request's W3C
//! `traceparent`, for a `tracing-opentelemetry` layer.
//!
//! Without the default `std` feature the crate is `no_std + alloc`; JSON
//! Schema validation of tool arguments (which needs `std`) is then left to
//! the handlers.

#![no_std]
#![warn(missing_docs)]
// docs.rs (`--cfg docsrs`) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

/// A module of the engine's internals (`dispatch`, `jsonrpc`, `profile`,
/// and in `http` the codec and the head rules): public only with the
/// `unstable` feature, for the fuzz targets and this crate's own tests,
/// with no stability promise; without it the crate's own, and what a user
/// names of it is re-exported elsewhere. (Its docs are its own inner ones:
/// an outer doc here would resolve their links from this file.)
macro_rules! internal {
    ($name:ident) => {
        #[cfg(feature = "unstable")]
        pub mod $name;
        #[cfg(not(feature = "unstable"))]
        #[allow(dead_code, unreachable_pub)]
        pub(crate) mod $name;
    };
}
pub(crate) use internal;

mod admission;
pub mod auth;
pub mod blocking;
pub mod client;
pub mod complete;
pub mod connection;
internal!(dispatch);
pub mod error;
pub mod extension;
pub mod extract;
pub mod handler;
pub mod headers;
pub mod http;
mod json;
pub mod layer;
internal!(jsonrpc);
mod legacy;
#[cfg(feature = "std")]
pub mod limit;
pub mod meta;
pub mod model;
pub mod mrtr;
mod options;
pub mod pagination;
internal!(profile);
pub mod registry;
#[cfg(feature = "std")]
mod run;
pub mod schema;
pub mod service;
mod shape;
pub mod stdio;
mod strings;
pub mod subscriptions;
pub mod time;
#[cfg(feature = "std")]
pub mod trace;
#[cfg(feature = "typed")]
pub mod typed;
pub mod uri_template;

pub use auth::{Authenticator, Authorization, Principal, Rejection};
/// The schemars this crate generates tool schemas with, so an
/// application's `#[derive(JsonSchema)]` is always the same version.
#[cfg(feature = "typed")]
pub use schemars;

/// What code generated by `snodo-macros` names, so that an application
/// needs no `serde` or `schemars` of its own to use `#[tool]`. Not API:
/// it changes with the macros.
#[cfg(feature = "typed")]
#[doc(hidden)]
pub mod __private {
    pub use schemars;
    pub use serde;
}

pub use connection::{Closing, CompleteError, Connection, Output, Transport};
pub use error::{code, ErrorObject};
pub use extension::{
    DetachedOutcome, Extension, ExtensionError, ExtensionEvent, ExtensionMethod, Step, Subscribed,
    Wrap,
};
pub use handler::{
    BoxFuture, CallEvent, CallId, CallSink, CancelFlag, Context, Host, IntoPromptOutcome,
    IntoResourceOutcome, IntoToolOutcome, Invocation, LogMessage, NoArgs, NullSink, Outcome,
    Progress, Request, ResourceArgs, ResourceError, ToolArgs, ToolError,
};
pub use http::{BodyError, HostPolicy, HttpConfig, OriginPolicy, Response};
pub use jsonrpc::RequestId;
pub use layer::Layer;
#[cfg(feature = "std")]
pub use legacy::{SessionStats, Sessions};
#[cfg(feature = "std")]
pub use limit::RateLimit;
pub use meta::{ClientCapabilities, LogLevel, ProgressToken, RequestMeta};
pub use model::*;
pub use mrtr::{
    CreateMessageRequest, CreateMessageResult, ElicitAction, ElicitRequest, ElicitResult,
    InputRequest, InputRequired, ListRootsResult, Reply, Root, Round, SamplingMessage, StateKeys,
};
pub use profile::{
    Dialect, Profile, PROTOCOL_VERSION, REVISION_2025_06_18, REVISION_2025_11_25,
    REVISION_2026_07_28,
};
#[cfg(feature = "std")]
pub use registry::{Change, Committed, Registry};
#[cfg(feature = "std")]
pub use run::CallTask;
pub use service::{BuildError, CachePolicy, Kinds, Limits, RegisterTool, Service, ServiceBuilder};
pub use subscriptions::{ChangeEvent, Notifications};
#[cfg(feature = "std")]
pub use subscriptions::{Hub, HubStats, Overflow, Tap};
pub use time::Instant;
