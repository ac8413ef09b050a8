//! # snodo-driver
//!
//! The one event loop that runs a [`snodo_proto::Connection`] on any async
//! runtime. `snodo-proto` decides everything about a connection's life
//! (framing, HTTP, admission, timeouts, the shutdown grace, what a failed
//! write or a hang-up means, how handler reports are bounded, the
//! lingering close); this crate moves bytes, time and handler tasks for
//! it, through the small [`Runtime`] trait. `snodo-tokio` and `snodo-smol`
//! are a few lines each on top of it, and anyone can add a runtime the same
//! way.
//!
//! # The driving contract
//!
//! This loop follows the driving contract of [`snodo_proto::connection`]
//! (every input, every output, and when to wait for what) and adds nothing
//! to it. The choices that contract leaves to a driver are: the high-water
//! mark of the write backlog is [`Options::write_high_water`]; wake-ups
//! come through
//! [`Connection::poll_changes`](snodo_proto::Connection::poll_changes)
//! with the runtime's task context; a call that is not ready inline is
//! spawned with [`Runtime::spawn`]; the shutdown signal is [`Shutdown`].

#![warn(missing_docs)]
// docs.rs (`--cfg docsrs`) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod drive;
mod host_request;
mod options;
mod outbox;
#[cfg(feature = "async-io")]
pub mod reactor;
mod runtime;
mod seats;
mod server;
mod signal;

pub use host_request::{HostRequest, Part};
pub use options::Options;
pub use runtime::{
    read_into_scratch, release_scratch, Accepted, Listener, Read, Runtime, Timer, Write,
};
pub use seats::{Seat, Seats};
pub use server::serve;
pub use signal::Shutdown;

use snodo_proto::{Service, Transport};
use std::io;

/// Serve one client over a byte stream: `transport`'s framing on `reader`
/// and `writer` (stdin and stdout, a pipe, a socket, an in-memory stream
/// in a test) until the connection closes: on stdio, once input has ended
/// and every call is answered, or the shutdown grace
/// ([`Limits::shutdown_grace`](snodo_proto::Limits)) has passed and the
/// rest were cancelled. `Err` if the output could not be written to.
pub async fn serve_stream<R, I, O>(
    rt: R,
    service: &Service,
    transport: Transport,
    reader: I,
    writer: O,
    options: Options,
) -> io::Result<()>
where
    R: Runtime,
    I: Read,
    O: Write,
{
    drive::drive(rt, service, transport, reader, writer, &options, None).await
}
