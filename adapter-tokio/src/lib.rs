//! # snodo-tokio
//!
//! Runs the [`snodo_proto`] sans-I/O MCP engine on tokio. It moves bytes
//! and time and nothing else: framing, HTTP, admission and every other
//! protocol rule live in `snodo-proto`.
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
//! running. A cancelled call's task is aborted, which drops the handler's
//! future.
//!
//! ```no_run
//! use snodo_proto::{CallToolResult, NoArgs, Service, Tool};
//!
//! #[tokio::main(flavor = "multi_thread")]
//! async fn main() -> std::io::Result<()> {
//!     let service = Service::builder()
//!         .tool(Tool::new("hello", "Say hello"), |_: NoArgs, _ctx| async {
//!             CallToolResult::text("Hello!")
//!         })
//!         .build()
//!         .expect("a valid registry");
//!     snodo_tokio::serve_stdio(&service, snodo_tokio::Options::default()).await
//! }
//! ```

#![warn(missing_docs)]

mod calls;
mod clock;
mod driver;
mod options;
mod outbox;
mod stdio;
mod tcp;

pub use options::Options;
pub use stdio::{serve_stdio, serve_stream};
pub use tcp::{bind_http, serve_http, serve_tcp};
