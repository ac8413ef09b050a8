//! # snodo-smol
//!
//! Runs the [`snodo_proto`] sans-I/O engine on smol / async-io. The adapter
//! moves bytes and time only: every protocol decision, stdio framing and
//! HTTP parsing included, is made by [`snodo_proto::Connection`].
//!
//! - [`serve_stdio`] / [`serve_stream`]: one client over stdin/stdout or any
//!   `AsyncRead` + `AsyncWrite` pair (`basic/transports/stdio.mdx`).
//! - [`serve_http`] on a listener from [`bind_http`]: one task per TCP
//!   connection, each owning its own `Connection`, a connection cap and a
//!   graceful shutdown. [`serve_tcp`] is the same for any transport (stdio
//!   framing over TCP, say).
//!
//! # Executors
//!
//! Everything the adapter spawns (connection tasks and one task per handler
//! call) goes on an [`Executor`] the caller passes in, never on smol's
//! global executor: the application decides how many threads run it and
//! can share it with its own tasks. The executor must be running (for
//! example `ex.run(..)` on one or more threads) for anything to progress.
//!
//! ```no_run
//! use smol::Executor;
//! use snodo_proto::{CallToolResult, Implementation, NoArgs, Service, Tool};
//! use std::sync::Arc;
//!
//! let service = Service::builder()
//!     .server_info(Implementation::new("demo", "1.0.0"))
//!     .tool(Tool::new("hello", "Say hello"), |_: NoArgs, _ctx| async {
//!         CallToolResult::text("Hello!")
//!     })
//!     .build()
//!     .unwrap();
//! let ex = Arc::new(Executor::new());
//! smol::block_on(ex.run(snodo_smol::serve_stdio(&ex, service, Default::default()))).unwrap();
//! ```
//!
//! # Handlers
//!
//! Each `Output::Invoke` runs as its own task. A handler that panics is
//! caught and answered `-32603 Internal error`; the connection and its other
//! calls go on. A cancelled call (client cancellation, call timeout,
//! connection gone) has its `CancelFlag` set and its task dropped, which
//! drops the handler's future. Handlers that block a thread should move
//! that work to [`smol::unblock`] so they do not stall the executor.

#![warn(missing_docs)]

mod calls;
mod clock;
mod driver;
mod http;
mod options;
mod server;
mod stdio;

pub use http::serve_http;
pub use options::Options;
pub use server::{bind_http, serve_tcp};
pub use stdio::{serve_stdio, serve_stream};

pub use smol::Executor;
pub use snodo_proto::Transport;
