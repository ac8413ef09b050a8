//! What the driver thread is told by the other threads.
//!
//! Everything reaches the driver through one bounded channel, so the driver
//! sleeps in a single `recv_timeout` and wakes for whichever comes first:
//! input, a finished call, a handler's report, the writer, change events
//! for listen streams, a server shutdown, or a deadline.

use std::io;

use snodo_proto::{CallEvent, CallId, Outcome};

#[derive(Debug)]
pub(crate) enum Event {
    /// The reader read these bytes (never empty).
    Input(Vec<u8>),
    /// The reader reached end of input.
    Eof,
    /// Reading failed; treated as end of input.
    ReadError(io::Error),
    /// A worker finished a call.
    Completed(CallId, Outcome),
    /// A running handler reported progress or a log message.
    Report(CallId, CallEvent),
    /// The writer's backlog fell below the high-water mark after the driver
    /// asked to be told.
    Drained,
    /// The writer stopped: `Ok` once its queue closed and everything was
    /// flushed, `Err` on a write or flush failure (fatal).
    WriterClosed(io::Result<()>),
    /// The service's hub queued change events for this connection. A
    /// wake-up only: the driver polls for changes whenever it wakes.
    Changes,
    /// The server is shutting down: look at the stop flag. A wake-up only;
    /// the flag is the signal, so a wake-up lost to a full queue is harmless.
    Stop,
}
