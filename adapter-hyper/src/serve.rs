//! A ready-made server: hyper on a TCP listener, HTTP/1.1 and HTTP/2 on
//! the same port (h2c by prior knowledge; with TLS, by ALPN), with the
//! native listener's connection rules (its cap and idle shedding, its
//! head, body and idle deadlines) and a graceful shutdown.

use std::future::{poll_fn, Future, IntoFuture};
use std::io;
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::task::{Context, Poll};

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulConnection;
use snodo_driver::{Seats, Shutdown};
use snodo_proto::Service;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::{Instant, Sleep};

use crate::activity::{Activity, Tracked};
use crate::native;
use crate::watch::Watched;
use crate::{McpService, Options};

/// Serve `service` on every connection `listener` accepts until `shutdown`
/// resolves; then stop accepting and wait for open connections to finish
/// (up to [`Limits::shutdown_grace`](snodo_proto::Limits) plus
/// [`Limits::close_linger`](snodo_proto::Limits)). For other routes beside
/// MCP, use [`McpService`] in your own hyper or axum server.
///
/// The native listener's rules hold, with its numbers from the service's
/// [`HttpConfig`](snodo_proto::HttpConfig) and
/// [`Limits`](snodo_proto::Limits):
///
/// - at most [`Options::max_connections`] connections; one accepted
///   beyond that takes the place of the connection idle longest (between
///   requests, still sending a head, or HTTP/2 with no stream in flight),
///   which is closed; with none idle the new one is closed at once;
/// - an HTTP/1.1 request head not whole within `head_timeout` of its first
///   byte is answered 408 and the connection closed; a body not whole
///   within `request_timeout` of its head is answered 408 (on HTTP/2 the
///   stream is then reset); a body declared or grown over
///   `max_message_bytes` is answered 413 unread;
/// - a connection with nothing in flight for `idle_timeout` is closed;
/// - every close the server decides (idle, shed, stopping) is graceful:
///   HTTP/2 sends GOAWAY first (RFC 9113 § 6.8), and a connection shed or
///   idle that has not closed within `close_linger` is dropped.
///
/// HTTP/2's settings are chosen by [`Options`] and the service's limits
/// (see [`crate::options`]).
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
    let winding_down = Shutdown::new();
    let mcp = McpService::new(service.clone()).with_shutdown(winding_down.clone());
    let builder = builder(service, &options);
    let late = native::late_head(service);
    let idle_timeout = service.http_config().idle_timeout;
    let served = service.clone();
    // Told once when the server stops; its receivers, one per connection
    // task, are what the shutdown waits for.
    let (stop, stopping) = watch::channel(());
    let linger = service.limits().close_linger;
    let seats = Seats::new();
    let epoch = Instant::now();
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
        let Some(seat) = seats.enter(max) else {
            tracing::warn!(%peer, max, "connection limit reached and none idle; closing the new connection");
            continue;
        };
        let _ = stream.set_nodelay(true);
        let activity = Activity::new(epoch, seat);
        let (handshake, builder, late) = (accept(stream), builder.clone(), late.clone());
        let service = Tracked {
            mcp: mcp.clone(),
            activity: activity.clone(),
        };
        let mcp_service = served.clone();
        let mut stopping = stopping.clone();
        tokio::spawn(async move {
            // A handshake (TLS) may be shed or time out like a head.
            let io = match until_left(&activity, idle_timeout, handshake).await {
                Some(Ok(io)) => io,
                Some(Err(e)) => {
                    tracing::debug!(%peer, error = %e, "connection refused before HTTP");
                    return;
                }
                None => return,
            };
            let io = Watched::new(io, activity.clone(), mcp_service, late);
            let connection = builder.serve_connection_with_upgrades(TokioIo::new(io), service);
            let connection = connection.into_owned();
            match until_done(&activity, idle_timeout, linger, &mut stopping, connection).await {
                Done::Ended(Err(e)) => {
                    tracing::debug!(%peer, error = %e, "connection ended by an error")
                }
                Done::Ended(Ok(())) => {}
                Done::Left => {
                    tracing::debug!(%peer, "connection closed: idle, or shed for a new one")
                }
            }
        });
    }
    drop(listener);
    winding_down.shutdown();
    let _ = stop.send(());
    drop(stopping);
    let limits = service.limits();
    let grace = limits.shutdown_grace + limits.close_linger;
    if tokio::time::timeout(grace, stop.closed()).await.is_err() {
        tracing::warn!("connections outlived the shutdown grace");
    }
    Ok(())
}

/// How a connection's task ended.
enum Done<E> {
    /// The connection ended on its own (or after a graceful close).
    Ended(Result<(), E>),
    /// It was idle or shed, and did not finish closing within `linger`.
    Left,
}

/// Serve `connection` until it ends. Told to make room at the cap, idle
/// for `idle_timeout`, or the server stopping, it is closed gracefully:
/// HTTP/2 sends GOAWAY (RFC 9113 § 6.8: an endpoint SHOULD send one
/// before it closes a connection), HTTP/1.1 closes between requests. A
/// connection leaving for room or idleness that has not closed within
/// `linger` (a client that does not read the GOAWAY) is dropped; at a
/// server stop the shutdown grace bounds it instead.
async fn until_done<C: GracefulConnection>(
    activity: &Arc<Activity>,
    idle_timeout: std::time::Duration,
    linger: std::time::Duration,
    stopping: &mut watch::Receiver<()>,
    connection: C,
) -> Done<C::Error> {
    let mut connection = pin!(connection);
    let mut stop = pin!(stopping.changed());
    let mut deadline: Pin<Box<Sleep>> = Box::pin(tokio::time::sleep_until(Instant::now()));
    let mut armed = None;
    let mut closing = false;
    let mut lingering = false;
    poll_fn(|cx: &mut Context<'_>| {
        if let Poll::Ready(out) = connection.as_mut().poll(cx) {
            return Poll::Ready(Done::Ended(out));
        }
        if lingering {
            return match deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Done::Left),
                Poll::Pending => Poll::Pending,
            };
        }
        if closing {
            return Poll::Pending;
        }
        let mut leave = activity.poll_shed(cx).is_ready();
        if !leave {
            if let Some(since) = activity.idle_since() {
                let due = since + idle_timeout;
                if armed != Some(due) {
                    deadline.as_mut().reset(due);
                    armed = Some(due);
                }
                leave = deadline.as_mut().poll(cx).is_ready();
            }
        }
        if leave || stop.as_mut().poll(cx).is_ready() {
            closing = true;
            connection.as_mut().graceful_shutdown();
            if leave {
                lingering = true;
                deadline.as_mut().reset(Instant::now() + linger);
            }
            // The close has begun: poll the connection to write it.
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    })
    .await
}

/// hyper's connection builder, set from the service's limits and
/// `options`.
fn builder(service: &Service, options: &Options) -> Builder<TokioExecutor> {
    let (limits, http) = (service.limits(), service.http_config());
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        // The head deadline answers 408 (`crate::watch`); hyper's own
        // would close without a word.
        .header_read_timeout(None)
        // Field names as the native listener writes them.
        .title_case_headers(true);
    let streams = u32::try_from(limits.max_concurrent_calls).unwrap_or(u32::MAX);
    let header_list = u32::try_from(http.max_head_bytes).unwrap_or(u32::MAX);
    builder
        .http2()
        // One HTTP/2 connection runs at most as many requests at once as
        // one native connection runs calls; more are refused
        // (REFUSED_STREAM, RFC 9113 § 5.1.2).
        .max_concurrent_streams(streams)
        // A header list over the native head limit is answered 431 and
        // its stream refused; its CONTINUATION frames are counted against
        // it, so a flood of them ends the connection (RFC 9113 § 6.10).
        .max_header_list_size(header_list)
        .max_pending_accept_reset_streams(options.h2_max_pending_accept_reset_streams)
        .max_local_error_reset_streams(options.h2_max_local_error_reset_streams)
        .max_send_buf_size(options.h2_max_send_buffer)
        .initial_stream_window_size(options.h2_window)
        .initial_connection_window_size(options.h2_window);
    builder
}

/// Run `work` until it ends, or until the connection must leave: told to
/// make room at the cap, or idle (nothing in flight) for `idle_timeout`.
/// `None` when it left; dropping `work` closes the connection.
async fn until_left<W: Future>(
    activity: &Arc<Activity>,
    idle_timeout: std::time::Duration,
    work: W,
) -> Option<W::Output> {
    let mut work = pin!(work);
    let mut deadline: Pin<Box<Sleep>> = Box::pin(tokio::time::sleep_until(Instant::now()));
    let mut armed = None;
    poll_fn(|cx: &mut Context<'_>| {
        if let Poll::Ready(out) = work.as_mut().poll(cx) {
            return Poll::Ready(Some(out));
        }
        if activity.poll_shed(cx).is_ready() {
            return Poll::Ready(None);
        }
        if let Some(since) = activity.idle_since() {
            let due = since + idle_timeout;
            if armed != Some(due) {
                deadline.as_mut().reset(due);
                armed = Some(due);
            }
            if deadline.as_mut().poll(cx).is_ready() {
                return Poll::Ready(None);
            }
        }
        Poll::Pending
    })
    .await
}
