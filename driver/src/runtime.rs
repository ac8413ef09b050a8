//! What the driver needs of a runtime, and nothing more: a monotonic
//! clock, resettable timers, detached tasks, and non-blocking byte streams.
//! The shape follows `quinn::Runtime`: each runtime crate implements these
//! in a few lines (`snodo-tokio`, `snodo-smol`), and everything else is
//! written once, here.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use snodo_proto::blocking::Executor;

/// An async runtime, as the driver uses it.
pub trait Runtime: Clone + Send + Sync + 'static {
    /// A timer that can be moved.
    type Timer: Timer;

    /// The runtime's monotonic clock (a paused test clock included).
    fn now(&self) -> Instant;

    /// A timer that fires at `at`.
    fn timer(&self, at: Instant) -> Self::Timer;

    /// Run `future` to completion on its own task, detached. Handler calls
    /// and connections run this way; a cancelled call ends its own task
    /// (see [`CallTask`](snodo_proto::CallTask)).
    fn spawn<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static;

    /// Run a whole connection's loop. The same as [`spawn`](Runtime::spawn)
    /// on an async runtime; a runtime of plain threads gives each
    /// connection a thread of its own.
    fn spawn_connection<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.spawn(future)
    }

    /// Where handlers' blocking work runs
    /// ([`Context::spawn_blocking`](snodo_proto::Context::spawn_blocking)):
    /// the runtime's blocking pool. Asked once per connection, so hand out
    /// a clone of one executor rather than a new one.
    fn executor(&self) -> Arc<dyn Executor>;
}

/// A one-shot timer that can be set again.
pub trait Timer: Send + Unpin + 'static {
    /// Fire at `at` instead.
    fn reset(&mut self, at: Instant);

    /// Ready once the set instant has passed.
    fn poll_fired(&mut self, cx: &mut Context<'_>) -> Poll<()>;
}

/// The read half of a byte stream.
pub trait Read: Unpin {
    /// Read at most `max` bytes and hand them to `take`, returning how many
    /// (`Ok(0)`: end of input). A reader that already holds the bytes hands
    /// them over as they are; one that reads into a buffer uses
    /// [`read_into_scratch`], so a connection waiting for input holds no
    /// read buffer of its own.
    fn poll_read_with(
        &mut self,
        cx: &mut Context<'_>,
        max: usize,
        take: &mut dyn FnMut(&[u8]),
    ) -> Poll<io::Result<usize>>;
}

/// Run `read` on a buffer of at most `max` bytes that belongs to the
/// calling thread, and hand what it read to `take`.
pub fn read_into_scratch(
    max: usize,
    take: &mut dyn FnMut(&[u8]),
    read: impl FnOnce(&mut [u8]) -> Poll<io::Result<usize>>,
) -> Poll<io::Result<usize>> {
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        if scratch.len() < max {
            scratch.resize(max, 0);
        }
        let read = read(&mut scratch[..max]);
        if let Poll::Ready(Ok(n)) = read {
            take(&scratch[..n]);
        }
        read
    })
}

/// Free this thread's read buffer (the one [`read_into_scratch`] lends).
/// A runtime that gives each connection a thread of its own calls it
/// before the thread waits, so that an idle connection holds no read
/// buffer there either.
pub fn release_scratch() {
    SCRATCH.with(|scratch| drop(scratch.take()));
}

thread_local! {
    /// The read buffer of every connection polled on this thread.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The write half of a byte stream.
pub trait Write: Unpin {
    /// Write some of `buf`, returning how much.
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>>;

    /// Push buffered bytes to the destination.
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;

    /// Flush and close the output (EOF on a pipe, FIN on a socket).
    fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;
}

/// An accepted connection: its read half, its write half, and its peer.
pub type Accepted<L> = (<L as Listener>::Reader, <L as Listener>::Writer, SocketAddr);

/// A listening socket.
pub trait Listener: Send + 'static {
    /// The read half of an accepted stream.
    type Reader: Read + Send + 'static;
    /// The write half of an accepted stream.
    type Writer: Write + Send + 'static;

    /// Accept the next connection, split in halves, with `TCP_NODELAY`
    /// set where the stream has it (messages are written whole, so Nagle's
    /// algorithm would only add latency).
    fn poll_accept(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<Accepted<Self>>>;
}
