//! # snodo-smol
//!
//! Runs the [`snodo_proto`] sans-I/O engine on smol / async-io: [`Smol`]
//! is smol as a [`snodo_driver::Runtime`], and the entry points are the
//! shared driver on it. Every protocol and lifecycle decision is made by
//! [`snodo_proto::Connection`]; the loop is `snodo-driver`'s.
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
//!     .tool(Tool::new("hello", "Say hello"), |_: NoArgs| async {
//!         CallToolResult::text("Hello!")
//!     })
//!     .build()
//!     .unwrap();
//! let ex = Arc::new(Executor::new());
//! smol::block_on(ex.run(snodo_smol::serve_stdio(&ex, &service, Default::default()))).unwrap();
//! ```
//!
//! # Handlers
//!
//! A handler ready when first polled is answered on its connection's task;
//! any other runs as its own task on the executor. A handler that panics is
//! answered `-32603 Internal error`; the connection and its other calls go
//! on. A cancelled call (client cancellation, call timeout, connection
//! gone) has its `CancelFlag` set and its task ends, dropping the handler's
//! future. Handlers that block a thread should move
//! that work to [`smol::unblock`] so they do not stall the executor.

#![warn(missing_docs)]

mod runtime;
mod serve;

pub use runtime::{blocking_pool, Smol};
pub use serve::{bind_http, serve_http, serve_stdio, serve_stream, serve_tcp};
pub use smol::Executor;
pub use snodo_driver::reactor::{Io, TcpReader, TcpWriter, Timer};
pub use snodo_driver::{Options, Shutdown};
pub use snodo_proto::Transport;
