//! The entry points, each a line over `snodo-driver`. They take the
//! [`Executor`] to run on first (smol has no ambient runtime); otherwise
//! they are the same as every runtime's.

use smol::io::{AsyncRead, AsyncWrite};
use smol::net::{AsyncToSocketAddrs, TcpListener};
use smol::Executor;
use snodo_driver::Options;
use snodo_proto::{Service, Transport};
use std::future::{Future, IntoFuture};
use std::io;
use std::sync::Arc;

use crate::runtime::Smol;
use snodo_driver::reactor::{unblock, Accept, Io};

/// Serve one client on this process's stdin and stdout until stdin ends and
/// every call is answered (`basic/transports/stdio.mdx`). smol has no
/// asynchronous stdin: [`unblock`] moves the standard streams onto smol's
/// blocking thread pool, each holding at most
/// [`Options::read_buffer`] bytes. stdout carries protocol messages only.
pub fn serve_stdio(
    ex: &Arc<Executor<'static>>,
    service: &Service,
    options: Options,
) -> impl Future<Output = io::Result<()>> + Send + 'static {
    let (stdin, stdout) = (
        unblock(io::stdin(), &options),
        unblock(io::stdout(), &options),
    );
    serve_stream(ex, service, stdin.0, stdout.0, options)
}

/// Serve one client speaking the stdio framing over any byte stream. See
/// [`snodo_driver::serve_stream`]. Handlers run as tasks on `ex`, which
/// must be running.
pub fn serve_stream<R, W>(
    ex: &Arc<Executor<'static>>,
    service: &Service,
    reader: R,
    writer: W,
    options: Options,
) -> impl Future<Output = io::Result<()>> + use<R, W>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let (rt, service) = (Smol(ex.clone()), service.clone());
    async move {
        let (reader, writer) = (Io(reader), Io(writer));
        snodo_driver::serve_stream(rt, &service, Transport::Stdio, reader, writer, options).await
    }
}

/// Bind a listener for [`serve_http`] or [`serve_tcp`].
pub async fn bind_http<A: AsyncToSocketAddrs>(addr: A) -> io::Result<TcpListener> {
    TcpListener::bind(addr).await
}

/// Serve MCP's Streamable HTTP (`basic/transports/streamable-http.mdx`) on
/// every connection `listener` accepts, until `shutdown` resolves. See
/// [`snodo_driver::serve`].
pub fn serve_http<S>(
    ex: &Arc<Executor<'static>>,
    service: &Service,
    listener: TcpListener,
    shutdown: S,
    options: Options,
) -> impl Future<Output = io::Result<()>> + use<S>
where
    S: IntoFuture<Output = ()>,
{
    serve_tcp(ex, service, listener, Transport::Http, shutdown, options)
}

/// Serve `transport` on every connection `listener` accepts, until
/// `shutdown` resolves. With [`Transport::Stdio`] it serves
/// newline-delimited JSON-RPC over TCP (`basic/transports/stdio.mdx`,
/// custom transports). See [`snodo_driver::serve`].
pub fn serve_tcp<S>(
    ex: &Arc<Executor<'static>>,
    service: &Service,
    listener: TcpListener,
    transport: Transport,
    shutdown: S,
    options: Options,
) -> impl Future<Output = io::Result<()>> + use<S>
where
    S: IntoFuture<Output = ()>,
{
    let accept = Accept(listener.into());
    snodo_driver::serve(
        Smol(ex.clone()),
        service,
        accept,
        transport,
        shutdown,
        options,
    )
}
