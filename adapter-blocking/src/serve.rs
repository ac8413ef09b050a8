//! The entry points: the shared driver under [`block_on`] on the calling
//! thread. They take the [`Threads`] to run on first; otherwise they are
//! the same as every runtime's.

use std::future::IntoFuture;
use std::io::{self, Read};
use std::net::{TcpListener, ToSocketAddrs};

use snodo_driver::reactor::{unblock, Accept};
use snodo_driver::Options;
use snodo_proto::{Service, Transport};

use crate::runtime::{block_on, Threads};

/// Serve one client on this process's stdin and stdout until stdin ends and
/// every call is answered (`basic/transports/stdio.mdx`). stdout carries
/// protocol messages only: log to stderr.
pub fn serve_stdio(threads: &Threads, service: &Service, options: Options) -> io::Result<()> {
    serve_stream(threads, service, io::stdin(), io::stdout(), options)
}

/// Serve one client speaking the stdio framing over a blocking byte stream
/// (a pipe, a socket, an in-memory pipe in a test), each direction on a
/// thread of its own ([`unblock`]). See [`snodo_driver::serve_stream`].
pub fn serve_stream<R, W>(
    threads: &Threads,
    service: &Service,
    reader: R,
    writer: W,
    options: Options,
) -> io::Result<()>
where
    R: Read + Send + 'static,
    W: std::io::Write + Send + 'static,
{
    let (reader, writer) = (unblock(reader, &options), unblock(writer, &options));
    block_on(snodo_driver::serve_stream(
        threads.clone(),
        service,
        Transport::Stdio,
        reader,
        writer,
        options,
    ))
}

/// Bind a TCP listener for [`serve_http`] or [`serve_tcp`].
pub fn bind_http(addr: impl ToSocketAddrs) -> io::Result<TcpListener> {
    TcpListener::bind(addr)
}

/// Serve MCP's Streamable HTTP (`basic/transports/streamable-http.mdx`) on
/// every connection `listener` accepts, until `shutdown` resolves (a
/// [`Shutdown`](crate::Shutdown) raised from another thread, say). See
/// [`snodo_driver::serve`]. Each connection's loop has a thread of its own;
/// handlers of every connection share `threads`.
pub fn serve_http<S>(
    threads: &Threads,
    service: &Service,
    listener: TcpListener,
    shutdown: S,
    options: Options,
) -> io::Result<()>
where
    S: IntoFuture<Output = ()>,
{
    serve_tcp(
        threads,
        service,
        listener,
        Transport::Http,
        shutdown,
        options,
    )
}

/// Serve `transport` on every connection `listener` accepts, until
/// `shutdown` resolves. With [`Transport::Stdio`] it serves
/// newline-delimited JSON-RPC over TCP (`basic/transports/stdio.mdx`,
/// custom transports). See [`snodo_driver::serve`].
pub fn serve_tcp<S>(
    threads: &Threads,
    service: &Service,
    listener: TcpListener,
    transport: Transport,
    shutdown: S,
    options: Options,
) -> io::Result<()>
where
    S: IntoFuture<Output = ()>,
{
    let accept = Accept::new(listener)?;
    block_on(snodo_driver::serve(
        threads.clone(),
        service,
        accept,
        transport,
        shutdown,
        options,
    ))
}
