//! A ready-made server: hyper on a TCP listener, HTTP/1.1 and HTTP/2 with
//! prior knowledge (h2c) on the same port, with a graceful shutdown.

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use snodo_proto::Service;
use std::future::IntoFuture;
use std::io;
use std::pin::pin;
use tokio::net::TcpListener;

use crate::McpService;

/// Serve `service` on every connection `listener` accepts until `shutdown`
/// resolves; then stop accepting and wait for open connections to finish
/// (up to [`Limits::shutdown_grace`](snodo_proto::Limits) plus
/// [`Limits::close_linger`](snodo_proto::Limits)). For TLS, or other routes
/// beside MCP, use [`McpService`] in your own hyper or axum server.
pub async fn serve<S>(service: &Service, listener: TcpListener, shutdown: S) -> io::Result<()>
where
    S: IntoFuture<Output = ()>,
{
    let mcp = McpService::new(service.clone());
    let builder = Builder::new(TokioExecutor::new());
    let graceful = GracefulShutdown::new();
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
        let _ = stream.set_nodelay(true);
        let connection = builder.serve_connection_with_upgrades(TokioIo::new(stream), mcp.clone());
        let connection = graceful.watch(connection.into_owned());
        tokio::spawn(async move {
            if let Err(e) = connection.await {
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
