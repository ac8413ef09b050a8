//! Serving a TCP listener: one task per accepted connection, each owning
//! its own [`Connection`](snodo_proto::Connection) (no lock shared between
//! connections), a cap on connections, and a graceful shutdown.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

use snodo_proto::{Service, Transport};

use crate::driver::{drive, Stop};
use crate::options::Options;

/// Bind a TCP listener for [`serve_http`] or [`serve_tcp`].
pub async fn bind_http(addr: impl ToSocketAddrs) -> io::Result<TcpListener> {
    TcpListener::bind(addr).await
}

/// Serve MCP's Streamable HTTP (`basic/transports/streamable-http.mdx`) on
/// every connection `listener` accepts, until `shutdown` resolves.
///
/// HTTP/1.1 itself (parsing, the endpoint path, `Origin`/`Host` checks,
/// limits, keep-alive, SSE) is `snodo-proto`'s, configured on the
/// [`Service`]; this moves bytes exactly as [`serve_tcp`] does. When a
/// client disconnects during a call, the call is cancelled.
pub async fn serve_http(
    service: &Service,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
    options: Options,
) -> io::Result<()> {
    serve_tcp(service, listener, Transport::Http, shutdown, options).await
}

/// Serve `transport` on every connection `listener` accepts, until
/// `shutdown` resolves.
///
/// - Each connection runs on its own task with `TCP_NODELAY` set: messages
///   are written whole, so Nagle's algorithm would only add latency.
/// - At most [`Options::max_connections`] are served at once; one accepted
///   beyond that is closed immediately.
/// - When `shutdown` resolves the listener is closed at once. Each
///   connection stops reading, lets its calls in flight finish for up to
///   [`Options::shutdown_grace`] (then cancels them), writes what it owes
///   and closes. This returns when every connection is gone.
///
/// Accept errors never end the server: a failed handshake is skipped, and
/// running out of file descriptors or memory pauses accepting briefly.
/// With [`Transport::Stdio`] this serves newline-delimited JSON-RPC over
/// TCP, the stdio framing on another reliable stream
/// (`basic/transports/stdio.mdx`, custom transports).
pub async fn serve_tcp(
    service: &Service,
    listener: TcpListener,
    transport: Transport,
    shutdown: impl Future<Output = ()>,
    options: Options,
) -> io::Result<()> {
    let max = options.max_connections.clamp(1, Semaphore::MAX_PERMITS);
    let slots = Arc::new(Semaphore::new(max));
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);

    loop {
        tokio::select! {
            () = &mut shutdown => break,
            Some(ended) = connections.join_next(), if !connections.is_empty() => reap(ended),
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let Ok(slot) = slots.clone().try_acquire_owned() else {
                        tracing::warn!(%peer, max, "connection limit reached; closing the new connection");
                        drop(stream);
                        continue;
                    };
                    let task = connection(
                        service.clone(),
                        transport,
                        stream,
                        peer,
                        options.clone(),
                        Stop::on(stop_rx.clone()),
                        slot,
                    );
                    connections.spawn(task);
                }
                Err(e) => accept_failed(e).await,
            },
        }
    }

    drop(listener);
    tracing::debug!(
        open = connections.len(),
        "shutting down: listener closed, connections winding down"
    );
    // Nobody else holds the sender, so this cannot fail while `stop_rx` lives.
    let _ = stop_tx.send(true);
    // Each connection bounds its own wind-down by the grace and the linger;
    // this backstop only guards against one stuck elsewhere.
    let backstop = options.shutdown_grace + options.close_linger + Duration::from_secs(1);
    let all_ended = async {
        while let Some(ended) = connections.join_next().await {
            reap(ended);
        }
    };
    if tokio::time::timeout(backstop, all_ended).await.is_err() {
        tracing::warn!(
            open = connections.len(),
            "connections outlived the shutdown grace; aborting them"
        );
        connections.shutdown().await;
    }
    Ok(())
}

async fn connection(
    service: Service,
    transport: Transport,
    mut stream: TcpStream,
    peer: SocketAddr,
    options: Options,
    stop: Stop,
    _slot: OwnedSemaphorePermit,
) {
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(%peer, error = %e, "could not set TCP_NODELAY");
    }
    tracing::debug!(%peer, "connection opened");
    let (reader, writer) = stream.split();
    match drive(&service, transport, reader, writer, &options, stop).await {
        Ok(()) => tracing::debug!(%peer, "connection closed"),
        Err(e) => tracing::debug!(%peer, error = %e, "connection ended by an I/O error"),
    }
}

fn reap(ended: Result<(), tokio::task::JoinError>) {
    if let Err(e) = ended {
        if e.is_panic() {
            tracing::error!(error = %e, "a connection task panicked");
        }
    }
}

/// Errors about one half-open connection are skipped; others (out of file
/// descriptors, buffers, memory) would repeat at once, so wait a moment
/// for resources to come back instead of spinning.
async fn accept_failed(e: io::Error) {
    use io::ErrorKind::*;
    match e.kind() {
        ConnectionAborted | ConnectionReset | ConnectionRefused | Interrupted | WouldBlock
        | TimedOut => {
            tracing::debug!(error = %e, "accept failed for one connection");
        }
        _ => {
            tracing::warn!(error = %e, "accept failed; pausing before the next try");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}
