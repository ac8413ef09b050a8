//! # snodo-tokio
//!
//! Runs the [`snodo_proto`] sans-I/O MCP engine on tokio: [`Tokio`] is
//! tokio as a [`snodo_driver::Runtime`], and the entry points below are
//! the shared driver on it. Framing, HTTP, admission and every protocol
//! and lifecycle rule live in `snodo-proto`; the loop lives in
//! `snodo-driver`; this crate holds only what is tokio's.
//!
//! - [`serve_stdio`] / [`serve_stream`]: one client on stdin/stdout or any
//!   byte stream, newline-delimited JSON-RPC.
//! - [`serve_http`] (Streamable HTTP) and [`serve_tcp`] (any transport over
//!   TCP): one task per accepted connection, a connection cap, graceful
//!   shutdown.
//!
//! A handler call that is ready when first polled is answered on the
//! connection's own task; any other runs on its own `tokio::spawn`ed task.
//! A panic in a handler answers that call with `-32603` and leaves the rest
//! running. A cancelled call's task ends, dropping the handler's future.
//!
//! ```no_run
//! use snodo_proto::{CallToolResult, NoArgs, Service, Tool};
//!
//! #[tokio::main(flavor = "multi_thread")]
//! async fn main() -> std::io::Result<()> {
//!     let service = Service::builder()
//!         .tool(Tool::new("hello", "Say hello"), |_: NoArgs| async {
//!             CallToolResult::text("Hello!")
//!         })
//!         .build()
//!         .expect("a valid registry");
//!     snodo_tokio::serve_stdio(&service, snodo_tokio::Options::default()).await
//! }
//! ```

#![warn(missing_docs)]

mod runtime;
mod serve;

pub use runtime::{blocking_pool, Io, Sleep, Tokio};
pub use serve::{bind_http, serve_http, serve_stdio, serve_stream, serve_tcp};
pub use snodo_driver::{Options, Shutdown};
pub use snodo_proto::Transport;
