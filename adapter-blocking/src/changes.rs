//! Change events from the service's [`Hub`](snodo_proto::Hub) for the
//! connection's listen streams (`subscriptions/listen`).
//!
//! The hub wakes a connection through a `Waker`; here waking means putting
//! [`Event::Changes`] on the driver's queue, and the driver polls for
//! changes each time it wakes, so a wake-up lost to a full queue is caught
//! on the next event.

use std::sync::mpsc::SyncSender;
use std::sync::Arc;
use std::task::{Context, Wake, Waker};

use snodo_proto::{Connection, Instant};

use crate::event::Event;

struct WakeDriver(SyncSender<Event>);

impl Wake for WakeDriver {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let _ = self.0.try_send(Event::Changes);
    }
}

pub(crate) struct Changes {
    waker: Waker,
}

impl Changes {
    pub(crate) fn new(events: SyncSender<Event>) -> Self {
        Changes {
            waker: Waker::from(Arc::new(WakeDriver(events))),
        }
    }

    /// Hand the connection what the hub queued for it, until the hub has
    /// nothing more and has registered the driver's waker for what comes
    /// next. A `Ready` poll registers nothing, so stopping after one would
    /// leave a connection with no other input (an HTTP listen stream) deaf
    /// to every later event.
    pub(crate) fn deliver(&self, conn: &mut Connection, now: Instant) {
        let mut cx = Context::from_waker(&self.waker);
        while conn.poll_changes(&mut cx).is_ready() {
            conn.handle_changes(now);
        }
    }
}
