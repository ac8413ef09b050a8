//! What one served connection is doing, as its listener needs to know:
//! how many requests it has in flight, since when it is idle (nothing in
//! flight), and since when an HTTP/1.1 request head is arriving. The
//! requests are counted by [`Tracked`], the connection's service; the head
//! bytes by [`Watched`](crate::watch::Watched), its byte stream. The
//! connection's supervisor in [`serve`](crate::serve) reads it to apply
//! the idle deadline and the connection cap's shedding, the native rules
//! of `Connection::idle_since`.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use http::{Request, Response};
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use snodo_driver::Seat;
use tokio::sync::futures::OwnedNotified;
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::{McpBody, McpService};

/// One connection's activity. Times are kept as nanoseconds since the
/// server's epoch, plus one (0: none).
pub(crate) struct Activity {
    epoch: Instant,
    in_flight: AtomicUsize,
    idle_since: AtomicU64,
    head_since: AtomicU64,
    seat: Mutex<Seat>,
    supervisor: Mutex<Option<Waker>>,
    /// The client closed its side (end of input), and who waits for it:
    /// the answers in flight (a `Notify`, whose waiters leave when dropped,
    /// so a long HTTP/2 connection's many streams leave nothing behind),
    /// and the stream's one reader, which waits for them to end.
    hung_up: AtomicBool,
    hangup: Arc<Notify>,
    reader: Mutex<Option<Waker>>,
}

impl Activity {
    /// A connection accepted now: idle, and seated on `seat`.
    pub(crate) fn new(epoch: Instant, seat: Seat) -> Arc<Activity> {
        let activity = Activity {
            epoch,
            in_flight: AtomicUsize::new(0),
            idle_since: AtomicU64::new(0),
            head_since: AtomicU64::new(0),
            seat: Mutex::new(seat),
            supervisor: Mutex::new(None),
            hung_up: AtomicBool::new(false),
            hangup: Arc::new(Notify::new()),
            reader: Mutex::new(None),
        };
        activity.became_idle();
        Arc::new(activity)
    }

    fn stamp(&self, at: Instant) -> u64 {
        let nanos = at.saturating_duration_since(self.epoch).as_nanos();
        u64::try_from(nanos).unwrap_or(u64::MAX - 1) + 1
    }

    fn at(&self, stamp: u64) -> Option<Instant> {
        let nanos = stamp.checked_sub(1)?;
        Some(self.epoch + std::time::Duration::from_nanos(nanos))
    }

    fn seat(&self) -> std::sync::MutexGuard<'_, Seat> {
        self.seat.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Since when nothing is in flight; `None` while a request is.
    pub(crate) fn idle_since(&self) -> Option<Instant> {
        self.at(self.idle_since.load(Ordering::Acquire))
    }

    /// Since when an HTTP/1.1 request head is arriving on an idle
    /// connection (its first byte); `None` if none is.
    pub(crate) fn head_since(&self) -> Option<Instant> {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            return None;
        }
        self.at(self.head_since.load(Ordering::Acquire))
    }

    /// Bytes arrived on the stream: on an idle connection, the first of a
    /// request head starts its deadline. Whether they are a head's (the
    /// connection is idle).
    pub(crate) fn bytes_arrived(&self, now: Instant) -> bool {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            return false;
        }
        let _ = self.head_since.compare_exchange(
            0,
            self.stamp(now),
            Ordering::AcqRel,
            Ordering::Relaxed,
        );
        true
    }

    /// The HTTP/1.1 client's input ended with a request in flight. hyper
    /// hears of it only once nothing is ([`Watched`](crate::watch::Watched)
    /// holds the end of input back), and an answer not yet given is the
    /// client going away: the native listener answers what is answered at
    /// once (RFC 9293 § 3.6: a half-closed client still receives) and
    /// hangs up on the rest (a 2026-07-28 call is cancelled,
    /// `streamable-http.mdx` § Cancellation), and so does [`Tracked`].
    pub(crate) fn hang_up(&self) {
        self.hung_up.store(true, Ordering::Release);
        self.hangup.notify_waiters();
        self.wake_reader();
    }

    fn is_hung_up(&self) -> bool {
        self.hung_up.load(Ordering::Acquire)
    }

    fn wake_reader(&self) {
        let waker = self.reader.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Ready once nothing is in flight; else the stream's reader (`cx`) is
    /// woken when so.
    pub(crate) fn poll_idle(&self, cx: &mut Context<'_>) -> Poll<()> {
        if self.in_flight.load(Ordering::Acquire) == 0 {
            return Poll::Ready(());
        }
        *self.reader.lock().unwrap_or_else(|p| p.into_inner()) = Some(cx.waker().clone());
        if self.in_flight.load(Ordering::Acquire) == 0 {
            return Poll::Ready(());
        }
        Poll::Pending
    }

    /// Ready once the listener asks this connection to make room; else
    /// the supervisor is woken when the connection becomes idle or busy.
    pub(crate) fn poll_shed(&self, cx: &mut Context<'_>) -> Poll<()> {
        *self.supervisor.lock().unwrap_or_else(|p| p.into_inner()) = Some(cx.waker().clone());
        self.seat().poll_shed(cx)
    }

    fn wake_supervisor(&self) {
        let waker = self
            .supervisor
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(w) = waker {
            w.wake();
        }
    }

    fn became_idle(&self) {
        let now = Instant::now();
        if self.is_hung_up() {
            self.wake_reader();
        }
        self.head_since.store(0, Ordering::Release);
        self.idle_since.store(self.stamp(now), Ordering::Release);
        let since = now.saturating_duration_since(self.epoch).as_nanos();
        let since = snodo_proto::Instant::from_nanos(u64::try_from(since).unwrap_or(u64::MAX));
        self.seat().set_idle(Some(since));
        self.wake_supervisor();
    }

    /// A request reached the service.
    fn begin(self: &Arc<Self>) -> Busy {
        if self.in_flight.fetch_add(1, Ordering::AcqRel) == 0 {
            self.idle_since.store(0, Ordering::Release);
            self.head_since.store(0, Ordering::Release);
            self.seat().set_idle(None);
            self.wake_supervisor();
        }
        Busy(self.clone())
    }
}

/// A request in flight, from the service's call until its response body
/// is done or dropped (answered, or the client went away).
struct Busy(Arc<Activity>);

impl Drop for Busy {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.became_idle();
        }
    }
}

/// The connection's service: [`McpService`], each request counted in
/// flight until its answer is done.
#[derive(Clone)]
pub(crate) struct Tracked {
    pub(crate) mcp: McpService,
    pub(crate) activity: Arc<Activity>,
}

impl hyper::service::Service<Request<Incoming>> for Tracked {
    type Response = Response<TrackedBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let busy = self.activity.begin();
        let mcp = self.mcp.clone();
        let activity = self.activity.clone();
        Box::pin(async move {
            let mut answer = std::pin::pin!(mcp.handle(request));
            let mut hangup = std::pin::pin!(activity.hangup.notified());
            hangup.as_mut().enable();
            // The answer first: one given at once still goes out to a
            // client that has closed its side.
            let response = std::future::poll_fn(|cx| {
                if let Poll::Ready(r) = answer.as_mut().poll(cx) {
                    return Poll::Ready(Some(r));
                }
                if activity.is_hung_up() || hangup.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(None);
                }
                Poll::Pending
            })
            .await;
            let body = match response {
                Some(response) => response,
                // Dropping the exchange is the hang-up; no one reads this.
                None => Response::new(McpBody::empty()),
            };
            let activity = busy.0.clone();
            Ok(body.map(|body| TrackedBody {
                body: Some(body),
                activity,
                hangup: None,
                _busy: busy,
            }))
        })
    }
}

/// An answer's body, its request in flight until it is dropped; a client
/// that hangs up ends it (the exchange dropped: the hang-up).
pub(crate) struct TrackedBody {
    body: Option<McpBody>,
    activity: Arc<Activity>,
    /// Made the first time the body waits (an SSE stream): most answers
    /// are whole at once and never need it.
    hangup: Option<Pin<Box<OwnedNotified>>>,
    _busy: Busy,
}

impl Body for TrackedBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        let Some(body) = this.body.as_mut() else {
            return Poll::Ready(None);
        };
        if let Poll::Ready(frame) = Pin::new(body).poll_frame(cx) {
            return Poll::Ready(frame);
        }
        let hangup = this.hangup.get_or_insert_with(|| {
            let mut notified = Box::pin(this.activity.hangup.clone().notified_owned());
            notified.as_mut().enable();
            notified
        });
        if this.activity.is_hung_up() || hangup.as_mut().poll(cx).is_ready() {
            this.body = None;
            return Poll::Ready(None);
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.body.as_ref().is_none_or(|b| b.is_end_stream())
    }

    fn size_hint(&self) -> SizeHint {
        self.body
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), |b| b.size_hint())
    }
}
