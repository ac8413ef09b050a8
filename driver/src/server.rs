//! Serving a listener: one task per accepted connection, each owning its
//! own [`Connection`](snodo_proto::Connection) (no lock shared between
//! connections), a cap on connections, and a graceful shutdown.

use std::future::{poll_fn, Future, IntoFuture};
use std::io;
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use snodo_proto::{Service, Transport};

use crate::drive::drive;
use crate::options::Options;
use crate::runtime::{Listener, Runtime, Timer};
use crate::seats::{Seat, Seats};
use crate::signal::{Signal, Watch};

/// Pause after an accept error that is not about one connection (out of
/// file descriptors, say), so the loop does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Serve `transport` on every connection `listener` accepts until
/// `shutdown` resolves (any future, or a [`Shutdown`](crate::Shutdown)).
///
/// - Each connection runs on its own task of `rt`.
/// - At most [`Options::max_connections`] are served at once. One accepted
///   beyond that takes the place of the connection idle longest (a
///   keep-alive connection between requests, or one still sending a
///   request head: [`Connection::idle_since`](snodo_proto::Connection::idle_since)),
///   which is closed; with none idle, the new one is closed at once. So
///   idle and slow clients cannot keep a new client out.
/// - When `shutdown` resolves the listener is closed at once. Each
///   connection reads nothing more, lets its calls in flight finish for up
///   to [`Limits::shutdown_grace`](snodo_proto::Limits) (then cancels
///   them), writes what it owes and closes. This returns when every
///   connection is gone.
///
/// Accept errors never end the server: a failed handshake is skipped, and
/// running out of file descriptors or memory pauses accepting briefly.
pub fn serve<R, L, S>(
    rt: R,
    service: &Service,
    listener: L,
    transport: Transport,
    shutdown: S,
    options: Options,
) -> impl Future<Output = io::Result<()>> + use<R, L, S>
where
    R: Runtime,
    L: Listener,
    S: IntoFuture<Output = ()>,
{
    let service = service.clone();
    let shutdown = shutdown.into_future();
    async move {
        let mut listener = listener;
        let max = options.max_connections.max(1);
        let live = Seats::new();
        let signal = Signal::new();
        let mut shutdown = pin!(shutdown);
        let mut backoff: Option<R::Timer> = None;

        loop {
            let accepted = poll_fn(|cx| {
                if shutdown.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(None);
                }
                if let Some(t) = backoff.as_mut() {
                    if t.poll_fired(cx).is_pending() {
                        return Poll::Pending;
                    }
                    backoff = None;
                }
                listener.poll_accept(cx).map(Some)
            })
            .await;
            match accepted {
                None => break,
                Some(Ok((reader, writer, peer))) => {
                    let Some(seat) = live.enter(max) else {
                        tracing::warn!(%peer, max, "connection limit reached and none idle; closing the new connection");
                        continue;
                    };
                    let (rt2, service, options, stop) =
                        (rt.clone(), service.clone(), options.clone(), signal.watch());
                    rt.spawn_connection(async move {
                        tracing::debug!(%peer, "connection opened");
                        let place = Place { stop, seat };
                        let served =
                            drive(rt2, &service, transport, reader, writer, &options, Some(place));
                        match served.await {
                            Ok(()) => tracing::debug!(%peer, "connection closed"),
                            Err(e) => tracing::debug!(%peer, error = %e, "connection ended by an I/O error"),
                        }
                    });
                }
                Some(Err(e)) => {
                    if is_per_connection(&e) {
                        tracing::debug!(error = %e, "accept failed for one connection");
                    } else {
                        tracing::warn!(error = %e, "accept failed; pausing before the next try");
                        backoff = Some(rt.timer(rt.now() + ACCEPT_BACKOFF));
                    }
                }
            }
        }

        drop(listener);
        tracing::debug!(
            open = live.count(),
            "shutting down: listener closed, connections winding down"
        );
        signal.raise();
        // Each connection bounds its own wind-down by the grace and the
        // linger; this backstop only guards against one stuck elsewhere.
        let limits = service.limits();
        let backstop = limits.shutdown_grace + limits.close_linger + Duration::from_secs(1);
        let mut timer = rt.timer(rt.now() + backstop);
        let all_ended = poll_fn(|cx| {
            if live.poll_empty(cx).is_ready() {
                return Poll::Ready(true);
            }
            timer.poll_fired(cx).map(|()| false)
        })
        .await;
        if !all_ended {
            tracing::warn!(
                open = live.count(),
                "connections outlived the shutdown grace; leaving them to end on their own"
            );
        }
        Ok(())
    }
}

/// Errors about one half-open connection; others (out of file
/// descriptors, buffers, memory) would repeat at once.
fn is_per_connection(e: &io::Error) -> bool {
    use io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionAborted
            | ConnectionReset
            | ConnectionRefused
            | Interrupted
            | WouldBlock
            | TimedOut
    )
}

/// A served connection's ties to its server: the shutdown signal, and its
/// seat (which tells it to make room).
pub(crate) struct Place {
    pub(crate) stop: Watch,
    pub(crate) seat: Seat,
}
