//! The change hub: carries application events to every connection that has
//! listen streams, across threads, without letting a slow or dead listener
//! block publishers or grow memory.
//!
//! Each registered connection has a bounded queue. Publishing coalesces an
//! event already queued for a listener (list changes and updates of one URI
//! are idempotent: one pending notice says it all), and when a queue is full
//! applies the hub's [`Overflow`] policy and counts the drop. Connections are
//! woken through a plain [`Waker`], so any runtime (or none) can drive them.
//! A connection that goes away unregisters by being dropped.

use alloc::collections::VecDeque;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};
use core::task::{Context, Poll, Waker};
use std::sync::Mutex;

use super::ChangeEvent;

/// What to do when a listener's queue is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overflow {
    /// Discard the oldest queued event to make room (the newest state wins).
    DropOldest,
    /// Discard the event being published.
    DropNewest,
}

/// Counters the application can watch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HubStats {
    /// Connections currently registered, and initialize-era sessions
    /// holding their GET stream's listener until the client resumes it.
    pub listeners: usize,
    /// Events published.
    pub published: u64,
    /// Event deliveries dropped by the overflow policy, over all listeners.
    pub dropped: u64,
}

/// Where a hub hands every event published to it, besides its own
/// listeners: a bus carrying it to the hubs of other replicas.
pub type Tap = Arc<dyn Fn(&ChangeEvent) + Send + Sync>;

struct Shared {
    listeners: Mutex<Vec<Weak<ListenerShared>>>,
    tap: Mutex<Option<Tap>>,
    capacity: usize,
    overflow: Overflow,
    published: AtomicU64,
    dropped: AtomicU64,
}

struct ListenerShared {
    state: Mutex<ListenerState>,
}

#[derive(Default)]
struct ListenerState {
    queue: VecDeque<ChangeEvent>,
    waker: Option<Waker>,
}

/// A shared publisher of [`ChangeEvent`]s. Cheap to clone.
#[derive(Clone)]
pub struct Hub {
    shared: Arc<Shared>,
}

impl core::fmt::Debug for Hub {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Hub").field("stats", &self.stats()).finish()
    }
}

impl Default for Hub {
    fn default() -> Self {
        Hub::new(64, Overflow::DropOldest)
    }
}

impl Hub {
    /// A hub whose listeners each queue at most `capacity` distinct events.
    pub fn new(capacity: usize, overflow: Overflow) -> Hub {
        Hub {
            shared: Arc::new(Shared {
                listeners: Mutex::new(Vec::new()),
                tap: Mutex::new(None),
                capacity: capacity.max(1),
                overflow,
                published: AtomicU64::new(0),
                dropped: AtomicU64::new(0),
            }),
        }
    }

    /// Hand every event [published](Hub::publish) from now on to `tap` as
    /// well, after delivering it here (`None` removes the tap). Events
    /// [delivered](Hub::deliver) are not tapped, so an event a bus brought
    /// from another replica is not sent back out.
    pub fn set_tap(&self, tap: Option<Tap>) {
        *self.shared.tap.lock().unwrap_or_else(|p| p.into_inner()) = tap;
    }

    /// Deliver `event` to every registered connection, and hand it to the
    /// [tap](Hub::set_tap) if there is one. Never blocks on a listener
    /// beyond a short lock; wakes each listener that got something.
    pub fn publish(&self, event: ChangeEvent) {
        let tap = self
            .shared
            .tap
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        match tap {
            Some(tap) => {
                self.deliver(event.clone());
                tap(&event);
            }
            None => self.deliver(event),
        }
    }

    /// Deliver `event` to this hub's connections only, not to the tap:
    /// what a bus does with an event published on another replica.
    pub fn deliver(&self, event: ChangeEvent) {
        self.shared.published.fetch_add(1, Ordering::Relaxed);
        let mut wake = Vec::new();
        {
            let listeners = self.live_listeners();
            for l in listeners.iter().filter_map(Weak::upgrade) {
                let mut st = l.state.lock().unwrap_or_else(|p| p.into_inner());
                if st.queue.contains(&event) {
                    continue;
                }
                if st.queue.len() >= self.shared.capacity {
                    self.shared.dropped.fetch_add(1, Ordering::Relaxed);
                    match self.shared.overflow {
                        Overflow::DropNewest => continue,
                        Overflow::DropOldest => {
                            st.queue.pop_front();
                        }
                    }
                }
                st.queue.push_back(event.clone());
                if let Some(w) = st.waker.take() {
                    wake.push(w);
                }
            }
        }
        for w in wake {
            w.wake();
        }
    }

    /// The listeners still held by a connection, the ones dropped since
    /// forgotten: a listener unregisters by being dropped, so the list
    /// never outgrows the connections that listen.
    fn live_listeners(&self) -> std::sync::MutexGuard<'_, Vec<Weak<ListenerShared>>> {
        let mut listeners = self
            .shared
            .listeners
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        listeners.retain(|l| l.strong_count() > 0);
        listeners
    }

    /// The counters.
    pub fn stats(&self) -> HubStats {
        let listeners = self.live_listeners().len();
        HubStats {
            listeners,
            published: self.shared.published.load(Ordering::Relaxed),
            dropped: self.shared.dropped.load(Ordering::Relaxed),
        }
    }

    /// Register a listener (one per connection with listen streams).
    pub(crate) fn listen(&self) -> Listener {
        let shared = Arc::new(ListenerShared {
            state: Mutex::new(ListenerState::default()),
        });
        self.live_listeners().push(Arc::downgrade(&shared));
        Listener { shared }
    }
}

/// One connection's registration; dropping it unregisters.
pub(crate) struct Listener {
    shared: Arc<ListenerShared>,
}

impl Listener {
    /// Ready when events are queued; otherwise remembers the waker.
    pub(crate) fn poll(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut st = self.shared.state.lock().unwrap_or_else(|p| p.into_inner());
        if st.queue.is_empty() {
            match &st.waker {
                Some(w) if w.will_wake(cx.waker()) => {}
                _ => st.waker = Some(cx.waker().clone()),
            }
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }

    /// The waker of whoever polled last, to wake whether or not anything
    /// is queued (the owner of a session's listener changed:
    /// `legacy::Sessions`).
    pub(crate) fn take_waker(&self) -> Option<Waker> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .waker
            .take()
    }

    /// Take everything queued.
    pub(crate) fn drain(&self) -> VecDeque<ChangeEvent> {
        let mut st = self.shared.state.lock().unwrap_or_else(|p| p.into_inner());
        core::mem::take(&mut st.queue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::String;
    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;

    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn updated(uri: &str) -> ChangeEvent {
        ChangeEvent::ResourceUpdated {
            uri: String::from(uri),
        }
    }

    #[test]
    fn delivers_coalesces_and_wakes() {
        let hub = Hub::new(8, Overflow::DropOldest);
        let l = hub.listen();
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(l.poll(&mut cx).is_pending());
        hub.publish(ChangeEvent::ToolsListChanged);
        hub.publish(ChangeEvent::ToolsListChanged);
        assert_eq!(count.0.load(Ordering::SeqCst), 1, "woken once");
        assert!(l.poll(&mut cx).is_ready());
        assert_eq!(
            l.drain(),
            VecDeque::from([ChangeEvent::ToolsListChanged]),
            "coalesced"
        );
        assert_eq!(
            hub.stats(),
            HubStats {
                listeners: 1,
                published: 2,
                dropped: 0
            }
        );
    }

    #[test]
    fn overflow_policies_bound_the_queue_and_count_drops() {
        for (policy, kept) in [
            (Overflow::DropOldest, ["b", "c"]),
            (Overflow::DropNewest, ["a", "b"]),
        ] {
            let hub = Hub::new(2, policy);
            let l = hub.listen();
            for u in ["a", "b", "c"] {
                hub.publish(updated(u));
            }
            assert_eq!(
                l.drain(),
                VecDeque::from([updated(kept[0]), updated(kept[1])]),
                "{policy:?}"
            );
            assert_eq!(hub.stats().dropped, 1);
        }
    }

    #[test]
    fn dropped_listener_unregisters_and_costs_nothing() {
        let hub = Hub::default();
        let l = hub.listen();
        assert_eq!(hub.stats().listeners, 1);
        drop(l);
        assert_eq!(hub.stats().listeners, 0);
        hub.publish(ChangeEvent::PromptsListChanged);
        assert_eq!(hub.stats().dropped, 0);
    }

    #[test]
    fn a_tap_sees_what_is_published_but_not_what_is_delivered() {
        let hub = Hub::default();
        let l = hub.listen();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = seen.clone();
        hub.set_tap(Some(Arc::new(move |e: &ChangeEvent| {
            into.lock().unwrap().push(e.clone())
        })));
        hub.publish(updated("a"));
        hub.deliver(updated("b"));
        assert_eq!(*seen.lock().unwrap(), alloc::vec![updated("a")]);
        assert_eq!(l.drain(), VecDeque::from([updated("a"), updated("b")]));
        hub.set_tap(None);
        hub.publish(updated("c"));
        assert_eq!(seen.lock().unwrap().len(), 1, "untapped");
        assert_eq!(hub.stats().published, 3);
    }
}
