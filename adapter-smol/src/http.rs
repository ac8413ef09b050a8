//! Streamable HTTP (`basic/transports/streamable-http.mdx`) over TCP.
//!
//! The adapter accepts connections and moves bytes; `snodo_proto` parses
//! HTTP/1.1, checks endpoint, `Origin`, `Host` and headers, and decides
//! when a connection closes. The endpoint path, allowed origins and hosts
//! and the HTTP limits are set on the `Service` (`ServiceBuilder::http`).

use smol::net::TcpListener;
use smol::Executor;
use snodo_proto::{Service, Transport};
use std::future::Future;
use std::io;
use std::sync::Arc;

use crate::options::Options;
use crate::server::serve_tcp;

/// Serve MCP over HTTP on `listener` until `shutdown` resolves, then shut
/// down gracefully: stop accepting, let each connection answer the calls it
/// has in flight (reading no new requests) for up to
/// [`Options::shutdown_grace`], then close whatever is left. Resolves when
/// every connection is closed.
///
/// Each connection runs as a task on `ex`, owning its own `Connection`;
/// its handler calls run as further tasks on `ex`. At most
/// [`Options::max_connections`] are served at once. A client that closes
/// its connection cancels the request it had in flight.
pub fn serve_http<S>(
    ex: &Arc<Executor<'static>>,
    service: Service,
    listener: TcpListener,
    shutdown: S,
    options: Options,
) -> impl Future<Output = io::Result<()>>
where
    S: Future<Output = ()>,
{
    serve_tcp(ex, service, listener, Transport::Http, shutdown, options)
}
