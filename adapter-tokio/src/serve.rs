//! The entry points, each a line over `snodo-driver`.

use std::future::{Future, IntoFuture};
use std::io;

use snodo_driver::Options;
use snodo_proto::{Service, Transport};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, ToSocketAddrs};

use crate::runtime::{Accept, Io, Tokio};

/// Serve one client on the process's stdin and stdout until stdin ends and
/// every call is answered (`basic/transports/stdio.mdx`). stdout carries
/// protocol messages only: send logs to stderr.
///
/// tokio reads stdin on a blocking thread. If this returns before stdin
/// ended (a write to stdout failed), that read may keep the runtime from
/// shutting down until the next line or EOF; use
/// `Runtime::shutdown_timeout` if that matters.
pub async fn serve_stdio(service: &Service, options: Options) -> io::Result<()> {
    serve_stream(service, tokio::io::stdin(), tokio::io::stdout(), options).await
}

/// Serve one client speaking the stdio framing over any byte stream: a
/// pipe, a socket, or `tokio::io::duplex` in a test. See
/// [`snodo_driver::serve_stream`].
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
    snodo_driver::serve_stream(
        Tokio,
        service,
        Transport::Stdio,
        Io(reader),
        Io(writer),
        options,
    )
    .await
}

/// Bind a TCP listener for [`serve_http`] or [`serve_tcp`].
pub async fn bind_http(addr: impl ToSocketAddrs) -> io::Result<TcpListener> {
    TcpListener::bind(addr).await
}

/// Serve MCP's Streamable HTTP (`basic/transports/streamable-http.mdx`) on
/// every connection `listener` accepts, until `shutdown` resolves. See
/// [`snodo_driver::serve`].
pub fn serve_http<S>(
    service: &Service,
    listener: TcpListener,
    shutdown: S,
    options: Options,
) -> impl Future<Output = io::Result<()>> + use<S>
where
    S: IntoFuture<Output = ()>,
{
    serve_tcp(service, listener, Transport::Http, shutdown, options)
}

/// Serve `transport` on every connection `listener` accepts, until
/// `shutdown` resolves. With [`Transport::Stdio`] this serves
/// newline-delimited JSON-RPC over TCP (`basic/transports/stdio.mdx`,
/// custom transports). See [`snodo_driver::serve`].
pub fn serve_tcp<S>(
    service: &Service,
    listener: TcpListener,
    transport: Transport,
    shutdown: S,
    options: Options,
) -> impl Future<Output = io::Result<()>> + use<S>
where
    S: IntoFuture<Output = ()>,
{
    snodo_driver::serve(
        Tokio,
        service,
        Accept(listener),
        transport,
        shutdown,
        options,
    )
}
