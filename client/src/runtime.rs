//! What the async transports need of a runtime, beyond
//! [`snodo_driver::Runtime`]'s clock and timers: a TCP connection, a child
//! process, and a thread for blocking work. The transports are written
//! once over this trait ([`crate::AsyncHttpTransport`],
//! [`crate::AsyncStdioTransport`]); tokio and smol each implement it in a
//! few lines (features `tokio` and `smol`), the way the server's runtimes
//! implement the driver's traits.

use std::future::{poll_fn, Future};
use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::process::Command;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use snodo_driver::{Read, Timer, Write};

/// A spawned server process.
pub trait ChildProcess: Send + 'static {
    /// Whether it has exited (without waiting).
    fn has_exited(&mut self) -> bool;
    /// Kill it (SIGKILL on Unix); it is reaped by the runtime.
    fn kill(&mut self);
}

/// The read half of a connection, or a child's stdout.
pub struct Reader(pub Box<dyn Read + Send>);

/// The write half of a connection, or a child's stdin.
pub struct Writer(pub Box<dyn Write + Send>);

impl Read for Reader {
    fn poll_read_with(
        &mut self,
        cx: &mut Context<'_>,
        max: usize,
        take: &mut dyn FnMut(&[u8]),
    ) -> Poll<io::Result<usize>> {
        self.0.poll_read_with(cx, max, take)
    }
}

impl Write for Writer {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.0.poll_write(cx, buf)
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.poll_flush(cx)
    }

    fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.poll_shutdown(cx)
    }
}

/// A runtime the async transports run on.
pub trait ClientRuntime: snodo_driver::Runtime {
    /// Connect to the first of `addrs` that answers.
    fn connect(
        &self,
        addrs: Vec<SocketAddr>,
    ) -> impl Future<Output = io::Result<(Reader, Writer)>> + Send;

    /// Spawn `command` with piped stdin and stdout (its stderr inherited)
    /// and killed when dropped: the process, its stdin, its stdout.
    fn spawn_process(
        &self,
        command: Command,
    ) -> io::Result<(Box<dyn ChildProcess>, Writer, Reader)>;

    /// Run blocking `work` (an authorizer's HTTP round trips) off the
    /// runtime's own threads.
    fn unblock<T, F>(&self, work: F) -> impl Future<Output = T> + Send
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static;
}

/// The largest piece read at once.
pub(crate) const CHUNK: usize = 16 << 10;

/// Write all of `bytes` and flush.
pub(crate) async fn write_all<W: Write>(writer: &mut W, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        let n = poll_fn(|cx| writer.poll_write(cx, bytes)).await?;
        if n == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        bytes = &bytes[n..];
    }
    poll_fn(|cx| writer.poll_flush(cx)).await
}

/// Read what is there (at most [`CHUNK`] bytes) into `out`, replacing
/// its contents; empty at the end of input. Fails with `TimedOut` when
/// nothing came by `deadline`.
pub(crate) async fn read_chunk<R: ClientRuntime>(
    runtime: &R,
    reader: &mut Reader,
    out: &mut Vec<u8>,
    deadline: Instant,
) -> io::Result<()> {
    out.clear();
    let read =
        poll_fn(|cx| reader.poll_read_with(cx, CHUNK, &mut |bytes| out.extend_from_slice(bytes)));
    by_deadline_or(runtime, deadline, read, "no answer from the server in time")
        .await
        .map(|_| ())
}

/// Connect to the first of `addrs` that answers, failing with `TimedOut`
/// when none has by `deadline` (an unreachable host would otherwise wait
/// for the system's connect timeout, minutes on Linux).
pub(crate) async fn connect_by<R: ClientRuntime>(
    runtime: &R,
    addrs: Vec<SocketAddr>,
    deadline: Instant,
) -> io::Result<(Reader, Writer)> {
    let connect = runtime.connect(addrs);
    by_deadline_or(
        runtime,
        deadline,
        connect,
        "could not connect to the server in time",
    )
    .await
}

/// `work`'s output, or `TimedOut` once `deadline` has passed (a write
/// the server does not read, say).
pub(crate) async fn by_deadline<R: ClientRuntime, T>(
    runtime: &R,
    deadline: Instant,
    work: impl Future<Output = io::Result<T>>,
) -> io::Result<T> {
    by_deadline_or(
        runtime,
        deadline,
        work,
        "the server did not take the request in time",
    )
    .await
}

/// `work`'s output, or `TimedOut` with `what` once `deadline` has passed.
async fn by_deadline_or<R: ClientRuntime, T>(
    runtime: &R,
    deadline: Instant,
    work: impl Future<Output = io::Result<T>>,
    what: &'static str,
) -> io::Result<T> {
    let mut timer = runtime.timer(deadline);
    let mut work = pin!(work);
    poll_fn(|cx| {
        if let Poll::Ready(r) = work.as_mut().poll(cx) {
            return Poll::Ready(r);
        }
        match timer.poll_fired(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, what))),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}

/// Wait `duration` on `runtime`'s clock.
pub(crate) async fn sleep<R: ClientRuntime>(runtime: &R, duration: Duration) {
    let mut timer = runtime.timer(runtime.now() + duration);
    poll_fn(|cx| timer.poll_fired(cx)).await
}
