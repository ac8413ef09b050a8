//! The connection cap, and who makes room at it: [`Seats`] counts the
//! connections a listener serves, and at the cap gives a new one the seat
//! of the connection idle longest, which is told to close
//! ([`Seat::poll_shed`]). The native listener ([`serve`](crate::serve))
//! and the hyper adapter's share this one rule, so idle keep-alive
//! connections and slow request heads keep a new client out of neither.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use snodo_proto::Instant;

use crate::signal::{Signal, Watch};

/// The seats of one listener's connections. Cloning shares them.
#[derive(Clone, Default)]
pub struct Seats(Arc<Live>);

impl std::fmt::Debug for Seats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seats")
            .field("taken", &self.count())
            .finish()
    }
}

impl Seats {
    /// No seat taken yet.
    pub fn new() -> Seats {
        Seats::default()
    }

    /// Connections seated now, counting those told to make room and not
    /// yet gone.
    pub fn count(&self) -> usize {
        self.0.count()
    }

    /// A seat for a new connection under the cap of `max`: a free one, or
    /// that of the connection idle longest (by [`Seat::set_idle`]), which
    /// is told to close. `None` when every connection is busy: the new
    /// one is to be closed at once. Called by one accept loop only.
    pub fn enter(&self, max: usize) -> Option<Seat> {
        self.0.enter(max)
    }

    /// Ready once no seat is taken (a graceful shutdown waits for it).
    pub fn poll_empty(&self, cx: &mut Context<'_>) -> Poll<()> {
        self.0.poll_empty(cx)
    }
}

/// The connections alive, their seats, and whoever waits for none to be.
#[derive(Default)]
struct Live {
    count: AtomicUsize,
    waiter: Mutex<Option<Waker>>,
    seats: Mutex<BTreeMap<u64, Arc<Idle>>>,
    next: AtomicU64,
}

impl Live {
    fn count(&self) -> usize {
        self.count.load(Ordering::Acquire)
    }

    fn enter(self: &Arc<Live>, max: usize) -> Option<Seat> {
        // Only the accept loop enters, so the count overshoots the cap by
        // at most the connections told to close and not yet gone.
        if self.count() >= max.max(1) {
            let seats = self.seats.lock().unwrap_or_else(|p| p.into_inner());
            let victim = seats
                .values()
                .filter(|s| !s.shed.is_raised())
                .filter_map(|s| s.since().map(|t| (t, s)))
                .min_by_key(|(t, _)| *t)?
                .1;
            tracing::debug!("connection limit reached; closing the connection idle longest");
            victim.shed.raise();
        }
        self.count.fetch_add(1, Ordering::AcqRel);
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let idle = Arc::new(Idle {
            since: AtomicU64::new(0),
            shed: Signal::new(),
        });
        self.seats
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id, idle.clone());
        let shed = idle.shed.watch();
        Some(Seat {
            idle,
            live: self.clone(),
            id,
            shed,
        })
    }

    fn poll_empty(&self, cx: &mut Context<'_>) -> Poll<()> {
        if self.count() == 0 {
            return Poll::Ready(());
        }
        *self.waiter.lock().unwrap_or_else(|p| p.into_inner()) = Some(cx.waker().clone());
        if self.count() == 0 {
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

/// Since when a connection is idle, and the signal that tells it to make
/// room.
struct Idle {
    /// `Instant` nanoseconds + 1 since which the connection is idle; 0 busy.
    since: AtomicU64,
    shed: Arc<Signal>,
}

impl Idle {
    fn since(&self) -> Option<u64> {
        match self.since.load(Ordering::Relaxed) {
            0 => None,
            v => Some(v),
        }
    }
}

/// A served connection's place under the cap, given back when dropped.
pub struct Seat {
    idle: Arc<Idle>,
    live: Arc<Live>,
    id: u64,
    shed: Watch,
}

impl std::fmt::Debug for Seat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seat")
            .field("idle_since", &self.idle.since())
            .field("shed", &self.idle.shed.is_raised())
            .finish()
    }
}

impl Seat {
    /// Record since when the connection is idle (`None`: busy): between
    /// requests or still receiving a request head, with nothing in flight
    /// ([`Connection::idle_since`](snodo_proto::Connection::idle_since)).
    /// Only an idle connection is ever told to make room.
    pub fn set_idle(&self, since: Option<Instant>) {
        let v = since.map_or(0, |t| t.as_nanos().saturating_add(1));
        self.idle.since.store(v, Ordering::Relaxed);
    }

    /// Ready once the connection is told to close to make room for a new
    /// one ([`Connection::shed`](snodo_proto::Connection::shed)).
    pub fn poll_shed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.shed.poll(cx)
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let live = &self.live;
        live.seats
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.id);
        if live.count.fetch_sub(1, Ordering::AcqRel) == 1 {
            let waiter = live.waiter.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(w) = waiter {
                w.wake();
            }
        }
    }
}
