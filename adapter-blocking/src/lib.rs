//! # snodo-blocking
//!
//! Serve a [`snodo_proto::Service`] on plain `std` threads, with no async
//! executor: [`Threads`] is threads as a
//! [`snodo_driver::Runtime`], and the entry points run the shared driver
//! on them. Every protocol and lifecycle rule is `snodo-proto`'s; the loop
//! is `snodo-driver`'s, the same as on tokio and smol.
//!
//! - Each connection's loop runs under [`block_on`] on a thread of its own
//!   (on stdio, the calling thread). Sockets are non-blocking on async-io's
//!   reactor, and stdin and stdout are read and written on threads of
//!   their own ([`blocking::Unblock`](https://docs.rs/blocking)), so a
//!   client slow to read stalls neither cancellations nor deadlines.
//! - Handlers run on the [`Threads`] pool, each worker polling one call at
//!   a time. A cancelled call's future is dropped at its next wake; a
//!   panicking handler fails only its own call, with `-32603`.
//!
//! Logging goes through `tracing` only; stdout carries protocol messages
//! alone (`basic/transports/stdio.mdx`). Handlers must not print to stdout.
//!
//! ```no_run
//! use snodo_blocking::{serve_stdio, Options, Threads, DEFAULT_WORKERS};
//! use snodo_proto::{Service, Tool};
//!
//! let service = Service::builder()
//!     .tool(Tool::new("hello", "Say hello"), |_: snodo_proto::NoArgs| async { "Hello!" })
//!     .build()
//!     .expect("a valid service");
//! let threads = Threads::new(DEFAULT_WORKERS).expect("threads");
//! serve_stdio(&threads, &service, Options::default()).expect("stdio served");
//! ```
//!
//! Over HTTP, stopping from another thread:
//!
//! ```no_run
//! use snodo_blocking::{bind_http, serve_http, Options, Shutdown, Threads, DEFAULT_WORKERS};
//! # let service = snodo_proto::Service::builder().build().expect("a valid service");
//!
//! let listener = bind_http("127.0.0.1:3000").expect("port free");
//! let shutdown = Shutdown::new();
//! let stopper = shutdown.clone();
//! std::thread::spawn(move || {
//!     std::thread::sleep(std::time::Duration::from_secs(60));
//!     stopper.shutdown();
//! });
//! let threads = Threads::new(DEFAULT_WORKERS).expect("threads");
//! serve_http(&threads, &service, listener, shutdown, Options::default()).expect("served");
//! ```

#![warn(missing_docs)]

mod runtime;
mod serve;

pub use runtime::{block_on, blocking_pool, Threads, DEFAULT_WORKERS};
pub use serve::{bind_http, serve_http, serve_stdio, serve_stream, serve_tcp};
pub use snodo_driver::{Options, Shutdown};
pub use snodo_proto::Transport;
