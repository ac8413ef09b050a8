//! stdio, and any other byte stream (`basic/transports/stdio.mdx`).

use smol::io::{AsyncRead, AsyncWrite};
use smol::{Executor, Unblock};
use snodo_proto::{Connection, Service, Transport};
use std::future::Future;
use std::io;
use std::sync::Arc;

use crate::calls::Calls;
use crate::clock::Clock;
use crate::driver::Driver;
use crate::options::Options;

/// Serve one client on this process's stdin and stdout until stdin reaches
/// EOF and every call in flight is answered (or [`Options::shutdown_grace`]
/// passed, then the rest are cancelled): `basic/transports/stdio.mdx`
/// § Shutdown, servers SHOULD exit promptly once stdin closes.
///
/// smol has no asynchronous stdin: [`Unblock`] reads and writes the standard
/// streams on smol's blocking thread pool. stdout carries protocol messages
/// only; log with `tracing` to stderr.
pub fn serve_stdio(
    ex: &Arc<Executor<'static>>,
    service: Service,
    options: Options,
) -> impl Future<Output = io::Result<()>> + Send + 'static {
    let stdin = Unblock::new(io::stdin());
    let stdout = Unblock::new(io::stdout());
    serve_stream(ex, service, stdin, stdout, options)
}

/// Serve one client speaking newline-delimited JSON-RPC over `reader` and
/// `writer` until the reader reaches EOF and every call in flight is
/// answered (for at most [`Options::shutdown_grace`]); then `writer` is
/// flushed and closed.
///
/// Handlers run as tasks on `ex`. The returned future drives the connection
/// itself: await it anywhere or spawn it (it is `Send` when the streams
/// are), but `ex` must be running for the handlers to make progress.
pub fn serve_stream<R, W>(
    ex: &Arc<Executor<'static>>,
    service: Service,
    reader: R,
    writer: W,
    options: Options,
) -> impl Future<Output = io::Result<()>>
where
    R: AsyncRead,
    W: AsyncWrite,
{
    let clock = Clock::new();
    let driver = Driver {
        conn: Connection::new(&service, Transport::Stdio, clock.now()),
        calls: Calls::new(ex.clone(), options.report_queue),
        clock,
        shutdown: None,
        read_buffer: options.read_buffer,
        grace: options.shutdown_grace,
    };
    driver.run(reader, writer)
}
