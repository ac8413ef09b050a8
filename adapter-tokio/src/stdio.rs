//! MCP over stdio (`basic/transports/stdio.mdx`): the client writes
//! requests to our stdin, we answer on stdout, one JSON-RPC message per
//! line. Framing lives in `proto`; this only moves the bytes.

use std::io;
use tokio::io::{AsyncRead, AsyncWrite};

use snodo_proto::{Service, Transport};

use crate::driver::{drive, Stop};
use crate::options::Options;

/// Serve one client on the process's stdin and stdout until stdin ends.
///
/// After end of input, calls in flight finish (for at most
/// [`Options::shutdown_grace`]) and are answered; then stdout is flushed
/// and this returns. stdout carries protocol messages only: send logs to
/// stderr (`tracing` with a stderr writer).
///
/// tokio reads stdin on a blocking thread. If this returns before stdin
/// ended (a write to stdout failed), that read may keep the runtime from
/// shutting down until the next line or EOF; use
/// `Runtime::shutdown_timeout` if that matters.
pub async fn serve_stdio(service: &Service, options: Options) -> io::Result<()> {
    serve_stream(service, tokio::io::stdin(), tokio::io::stdout(), options).await
}

/// Serve one client speaking the stdio framing over any byte stream: a
/// pipe, a socket, or `tokio::io::duplex` in a test. Returns once the
/// connection closed (end of input and every call answered), or with the
/// first write error.
pub async fn serve_stream<R, W>(
    service: &Service,
    reader: R,
    writer: W,
    options: Options,
) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    drive(
        service,
        Transport::Stdio,
        reader,
        writer,
        &options,
        Stop::never(),
    )
    .await
}
