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
//! # The driving contract, as this loop follows it
//!
//! After every input, drain [`Connection::poll_output`](snodo_proto::Connection::poll_output):
//! write [`Transmit`](snodo_proto::Output::Transmit)s in order; for an
//! [`Invoke`](snodo_proto::Output::Invoke), make its
//! [`CallTask`](snodo_proto::CallTask), poll it once inline and spawn it if
//! it waits; ignore [`Cancel`](snodo_proto::Output::Cancel) (the
//! connection has set the call's flag, which ends its task); on
//! [`Close`](snodo_proto::Output::Close), close as
//! [`Connection::closing`](snodo_proto::Connection::closing) says. Then
//! wait for the first of:
//!
//! | wait for | then |
//! |---|---|
//! | the server's shutdown | `begin_shutdown` |
//! | [`poll_timeout`](snodo_proto::Connection::poll_timeout) | `handle_timeout` |
//! | [`poll_changes`](snodo_proto::Connection::poll_changes) (calls' reports, hub events, routed answers), while the write backlog is under [`Options::write_high_water`] | `handle_changes` |
//! | write progress, while bytes wait | on failure, `handle_write_failed` |
//! | input, while [`wants_input`](snodo_proto::Connection::wants_input) and the backlog is under the high-water mark | `handle_input`, or `handle_input_closed` at EOF |

#![warn(missing_docs)]

mod drive;
mod options;
mod outbox;
mod runtime;
mod server;
mod signal;

pub use options::Options;
pub use runtime::{Accepted, Listener, Read, Runtime, Timer, Write};
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
    drive::drive(&rt, service, transport, reader, writer, &options, None).await
}
