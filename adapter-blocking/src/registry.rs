//! The HTTP server's list of open connections: how many there are (the
//! connection cap), how to tell each one's driver to wind down, and when the
//! last one has gone (the end of a graceful shutdown).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use crate::event::Event;

/// Raised once when the server shuts down; every driver checks it each time
/// it wakes.
#[derive(Clone, Debug, Default)]
pub(crate) struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    pub(crate) fn is_raised(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    fn raise(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[derive(Default)]
struct Live {
    next_id: u64,
    /// Each open connection's driver queue, to wake it on shutdown.
    drivers: HashMap<u64, SyncSender<Event>>,
}

#[derive(Default)]
pub(crate) struct Registry {
    live: Mutex<Live>,
    emptied: Condvar,
    stop: StopFlag,
}

/// One open connection's place in the registry, given up on drop.
pub(crate) struct Admission {
    registry: Arc<Registry>,
    id: u64,
}

impl Registry {
    fn lock(&self) -> MutexGuard<'_, Live> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What drivers of this server's connections watch.
    pub(crate) fn stop_flag(&self) -> StopFlag {
        self.stop.clone()
    }

    /// Count in a new connection whose driver listens on `driver`, unless
    /// `max` are open already.
    pub(crate) fn admit(
        self: &Arc<Self>,
        max: usize,
        driver: SyncSender<Event>,
    ) -> Option<Admission> {
        let mut live = self.lock();
        if live.drivers.len() >= max {
            return None;
        }
        let id = live.next_id;
        live.next_id += 1;
        live.drivers.insert(id, driver);
        Some(Admission {
            registry: Arc::clone(self),
            id,
        })
    }

    /// Raise the stop flag and wake every driver to see it. A driver whose
    /// queue is full is awake anyway and sees the flag after its next event.
    pub(crate) fn stop_all(&self) {
        self.stop.raise();
        for driver in self.lock().drivers.values() {
            let _ = driver.try_send(Event::Stop);
        }
    }

    /// Wait until no connection is open or `deadline` passes; the number
    /// still open.
    pub(crate) fn wait_all_closed(&self, deadline: Instant) -> usize {
        let mut live = self.lock();
        while !live.drivers.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            live = self
                .emptied
                .wait_timeout(live, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        live.drivers.len()
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        let mut live = self.registry.lock();
        live.drivers.remove(&self.id);
        if live.drivers.is_empty() {
            self.registry.emptied.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn admits_up_to_the_cap_and_frees_a_place_on_drop() {
        let registry = Arc::new(Registry::default());
        let (tx, _rx) = mpsc::sync_channel(1);
        let first = registry.admit(2, tx.clone()).expect("first fits");
        let _second = registry.admit(2, tx.clone()).expect("second fits");
        assert!(
            registry.admit(2, tx.clone()).is_none(),
            "third is over the cap"
        );
        drop(first);
        assert!(
            registry.admit(2, tx).is_some(),
            "a closed one frees its place"
        );
    }

    #[test]
    fn stop_wakes_drivers_and_waiting_ends_when_the_last_closes() {
        let registry = Arc::new(Registry::default());
        let (tx, rx) = mpsc::sync_channel(1);
        let admission = registry.admit(8, tx).expect("admitted");
        registry.stop_all();
        assert!(registry.stop_flag().is_raised());
        assert!(matches!(rx.try_recv(), Ok(Event::Stop)));
        let soon = Instant::now() + Duration::from_millis(20);
        assert_eq!(
            registry.wait_all_closed(soon),
            1,
            "still open at the deadline"
        );
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            drop(admission);
        });
        let later = Instant::now() + Duration::from_secs(5);
        assert_eq!(registry.wait_all_closed(later), 0);
    }
}
