//! # snodo-blocking
//!
//! Serve a [`snodo_proto::Service`] over stdio (or any blocking byte
//! stream) or over Streamable HTTP, on plain `std` threads and blocking
//! I/O: no async runtime.
//!
//! The adapter only moves bytes and time; every protocol decision (HTTP
//! included) is made by [`snodo_proto::Connection`]. Each connection has
//! these threads:
//!
//! - **reader**: one blocking `read` per permit from the driver, so input is
//!   read only while the connection [wants it](snodo_proto::Connection::wants_input)
//!   and never more than one chunk ahead (backpressure);
//! - **driver**: owns the connection, takes every event from one channel,
//!   drains the connection's outputs after each (passing on the service
//!   [hub](snodo_proto::Hub)'s change events to listen streams), and sleeps
//!   until the next event or deadline;
//! - **writer**: writes and flushes output, so a client slow to read does
//!   not stall cancellations, completions or deadlines;
//!
//! and handlers run on **workers**: a fixed pool (one per stdio stream, one
//! shared by all connections of an HTTP server), each worker running one
//! handler future at a time with a park/unpark waker. A cancelled call's
//! future is dropped at its next wake; a panicking handler fails only its
//! own call, with `-32603`.
//!
//! - [`serve`] / [`serve_stdio`]: the driver is the calling thread. It
//!   returns once input has ended and every call is answered (the
//!   connection's `Output::Close`), when calls outlive
//!   [`StdioOptions::shutdown_grace`] after end of input (they are
//!   cancelled), or on a write error.
//! - [`serve_http`]: the calling thread accepts connections, each driven on
//!   a thread of its own, until a [`ShutdownHandle`] asks it to stop.
//!
//! Logging goes through `tracing` only; stdout carries protocol messages
//! alone (`basic/transports/stdio.mdx`). Handlers must not print to stdout.
//!
//! ```no_run
//! use snodo_blocking::{serve_stdio, StdioOptions};
//! use snodo_proto::{Service, Tool};
//!
//! let service = Service::builder()
//!     .tool(Tool::new("hello", "Say hello"), |_: snodo_proto::NoArgs, _ctx| async { "Hello!" })
//!     .build()
//!     .expect("a valid service");
//! serve_stdio(&service, StdioOptions::default()).expect("stdio served");
//! ```
//!
//! Over HTTP, stopping from another thread:
//!
//! ```no_run
//! use snodo_blocking::{bind_http, serve_http, HttpOptions, ShutdownHandle};
//! # let service = snodo_proto::Service::builder().build().expect("a valid service");
//!
//! let listener = bind_http("127.0.0.1:3000").expect("port free");
//! let shutdown = ShutdownHandle::new();
//! let stopper = shutdown.clone();
//! std::thread::spawn(move || {
//!     std::thread::sleep(std::time::Duration::from_secs(60));
//!     stopper.shutdown();
//! });
//! serve_http(&service, listener, shutdown, HttpOptions::default()).expect("served");
//! ```

#![warn(missing_docs)]

mod changes;
mod clock;
mod driver;
mod event;
mod exec;
mod gate;
mod http;
mod options;
mod pool;
mod reader;
mod registry;
mod shutdown;
mod sink;
mod stdio;
mod writer;

pub use http::{bind_http, serve_http};
pub use options::{HttpOptions, StdioOptions, DEFAULT_MAX_WORKERS};
pub use shutdown::ShutdownHandle;
pub use stdio::{serve, serve_stdio};
