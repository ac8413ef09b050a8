//! # snodo-blocking
//!
//! Serve a [`snodo_proto::Service`] over stdio (or any blocking byte
//! stream) on plain `std` threads: no async runtime.
//!
//! The adapter only moves bytes and time; every protocol decision is made
//! by [`snodo_proto::Connection`]. Its threads:
//!
//! - **reader**: one blocking `read` per permit from the driver, so input is
//!   read only while the connection [wants it](snodo_proto::Connection::wants_input)
//!   and never more than one chunk ahead (backpressure);
//! - **driver** (the thread calling [`serve`]): owns the connection, takes
//!   every event from one channel, drains the connection's outputs after
//!   each, and sleeps until the next event or deadline;
//! - **writer**: writes and flushes output, so a client slow to read stdout
//!   does not stall cancellations, completions or deadlines;
//! - **workers**: a fixed pool, each running one handler future at a time
//!   with a park/unpark waker. A cancelled call's future is dropped at its
//!   next wake; a panicking handler fails only its own call, with `-32603`.
//!
//! [`serve`] returns once input has ended and every call is answered
//! (the connection's `Output::Close`), when calls outlive
//! [`StdioOptions::shutdown_grace`] after end of input (they are cancelled),
//! or on a write error.
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

#![warn(missing_docs)]

mod clock;
mod driver;
mod event;
mod exec;
mod gate;
mod options;
mod pool;
mod reader;
mod sink;
mod writer;

use std::io::{self, Read, Write};

use snodo_proto::Service;

pub use options::{StdioOptions, DEFAULT_MAX_WORKERS};

/// Serve `service` on this process's stdin and stdout until stdin ends and
/// every call is answered. See [`serve`].
pub fn serve_stdio(service: &Service, options: StdioOptions) -> io::Result<()> {
    serve(service, io::stdin(), io::stdout(), options)
}

/// Serve `service` on one newline-delimited JSON-RPC stream: requests are
/// read from `input`, messages written to `output`.
///
/// Returns `Ok` after end of input once every call has been answered and the
/// output flushed, or once [`StdioOptions::shutdown_grace`] has passed since
/// end of input (calls still running are then cancelled and not answered).
/// Returns the error of a failed write or flush at once, cancelling all
/// calls; a failed read ends input like EOF and its error is returned after
/// the graceful shutdown.
///
/// The reader thread is not joined, so `input` may stay blocked in `read`
/// after this returns; a worker stuck in blocking handler code likewise
/// finishes on its own.
pub fn serve<R, W>(service: &Service, input: R, output: W, options: StdioOptions) -> io::Result<()>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    driver::run(service, input, output, options)
}
