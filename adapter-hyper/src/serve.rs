//! A ready-made server: hyper on a TCP listener, HTTP/1.1 and HTTP/2 on
//! the same port (h2c by prior knowledge; with TLS, by ALPN), with a
//! graceful shutdown.

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use snodo_driver::Options;
use snodo_proto::Service;
use std::future::{Future, IntoFuture};
use std::io;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};

use crate::McpService;

/// Serve `service` on every connection `listener` accepts until `shutdown`
/// resolves; then stop accepting and wait for open connections to finish
/// (up to [`Limits::shutdown_grace`](snodo_proto::Limits) plus
/// [`Limits::close_linger`](snodo_proto::Limits)). For other routes beside
/// MCP, use [`McpService`] in your own hyper or axum server.
///
/// At most [`Options::max_connections`] connections are served at once; a
/// connection accepted beyond that is closed at once. (The native
/// listeners shed their longest-idle connection instead; hyper does not
/// say when one of its connections is idle.)
pub async fn serve<S>(
    service: &Service,
    listener: TcpListener,
    shutdown: S,
    options: Options,
) -> io::Result<()>
where
    S: IntoFuture<Output = ()>,
{
    serve_with(service, listener, shutdown, options, |stream| async {
        Ok(stream)
    })
    .await
}

/// [`serve`], each connection first going through `accept` (a TLS
/// handshake, say); a connection `accept` fails is dropped.
pub(crate) async fn serve_with<S, A, F, I>(
    service: &Service,
    listener: TcpListener,
    shutdown: S,
    options: Options,
    accept: A,
) -> io::Result<()>
where
    S: IntoFuture<Output = ()>,
    A: Fn(TcpStream) -> F,
    F: Future<Output = io::Result<I>> + Send + 'static,
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mcp = McpService::new(service.clone());
    let mut builder = Builder::new(TokioExecutor::new());
    // One HTTP/2 connection runs at most as many requests at once as one
    // native connection runs calls.
    let streams = u32::try_from(service.limits().max_concurrent_calls).unwrap_or(u32::MAX);
    builder.http2().max_concurrent_streams(streams);
    let graceful = GracefulShutdown::new();
    let live = Arc::new(AtomicUsize::new(0));
    let max = options.max_connections.max(1);
    let mut shutdown = pin!(shutdown.into_future());
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    tracing::debug!(error = %e, "accept failed");
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        if live.load(Ordering::Acquire) >= max {
            tracing::warn!(%peer, max, "connection limit reached; closing the new connection");
            continue;
        }
        let _ = stream.set_nodelay(true);
        let seat = Seat::take(&live);
        let (handshake, builder, mcp) = (accept(stream), builder.clone(), mcp.clone());
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            let _seat = seat;
            let io = match handshake.await {
                Ok(io) => io,
                Err(e) => {
                    tracing::debug!(%peer, error = %e, "connection refused before HTTP");
                    return;
                }
            };
            let connection = builder.serve_connection_with_upgrades(TokioIo::new(io), mcp);
            if let Err(e) = watcher.watch(connection.into_owned()).await {
                tracing::debug!(%peer, error = %e, "connection ended by an error");
            }
        });
    }
    drop(listener);
    let limits = service.limits();
    let grace = limits.shutdown_grace + limits.close_linger;
    if tokio::time::timeout(grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("connections outlived the shutdown grace");
    }
    Ok(())
}

/// A served connection's place under the cap, given back when dropped.
struct Seat(Arc<AtomicUsize>);

impl Seat {
    fn take(live: &Arc<AtomicUsize>) -> Seat {
        live.fetch_add(1, Ordering::AcqRel);
        Seat(live.clone())
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}
