//! The server-wide shutdown signal, runtime-agnostic, and [`Shutdown`],
//! the handle an application raises it with.
//!
//! Each connection registers its waker once and again only when its task's
//! waker changes, so watching the signal costs an atomic load per turn of
//! the connection's loop, not a join and leave of a waiter list.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

#[derive(Default)]
pub(crate) struct Signal {
    raised: AtomicBool,
    waiters: Mutex<Waiters>,
}

#[derive(Default)]
struct Waiters {
    next: u64,
    wakers: BTreeMap<u64, Waker>,
}

impl Signal {
    pub(crate) fn new() -> Arc<Signal> {
        Arc::new(Signal::default())
    }

    fn lock(&self) -> MutexGuard<'_, Waiters> {
        self.waiters.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn is_raised(&self) -> bool {
        self.raised.load(Ordering::Acquire)
    }

    /// Raise it and wake every watcher.
    pub(crate) fn raise(&self) {
        self.raised.store(true, Ordering::Release);
        let wakers = std::mem::take(&mut self.lock().wakers);
        for w in wakers.into_values() {
            w.wake();
        }
    }

    pub(crate) fn watch(self: &Arc<Signal>) -> Watch {
        let id = {
            let mut w = self.lock();
            w.next += 1;
            w.next
        };
        Watch {
            signal: self.clone(),
            id,
            registered: None,
        }
    }
}

/// One connection's view of the signal.
pub(crate) struct Watch {
    signal: Arc<Signal>,
    id: u64,
    registered: Option<Waker>,
}

impl Watch {
    pub(crate) fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.signal.raised.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        if !self
            .registered
            .as_ref()
            .is_some_and(|w| w.will_wake(cx.waker()))
        {
            self.signal
                .lock()
                .wakers
                .insert(self.id, cx.waker().clone());
            self.registered = Some(cx.waker().clone());
            // Raised between the load and the registration: no one woke us.
            if self.signal.raised.load(Ordering::Acquire) {
                return Poll::Ready(());
            }
        }
        Poll::Pending
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if self.registered.is_some() {
            self.signal.lock().wakers.remove(&self.id);
        }
    }
}

/// Asks a server to shut down gracefully, from any thread or task: pass
/// it (or any future) as the `shutdown` argument of a `serve_*` entry
/// point and call [`shutdown`](Shutdown::shutdown) when it is time.
#[derive(Clone, Default)]
pub struct Shutdown(Arc<Signal>);

impl std::fmt::Debug for Shutdown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shutdown")
            .field("requested", &self.is_requested())
            .finish()
    }
}

impl Shutdown {
    /// A handle nobody has raised yet.
    pub fn new() -> Shutdown {
        Shutdown::default()
    }

    /// Start the graceful shutdown of every server given this handle.
    pub fn shutdown(&self) {
        self.0.raise();
    }

    /// Whether [`shutdown`](Shutdown::shutdown) was called.
    pub fn is_requested(&self) -> bool {
        self.0.raised.load(Ordering::Acquire)
    }

    /// Resolves once [`shutdown`](Shutdown::shutdown) is called.
    pub fn requested(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut watch = self.0.watch();
        std::future::poll_fn(move |cx| watch.poll(cx))
    }
}

impl std::future::IntoFuture for Shutdown {
    type Output = ();
    type IntoFuture = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.requested())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::task::Wake;

    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn wakes_each_watcher_once_and_forgets_dropped_ones() {
        let signal = Signal::new();
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        let mut a = signal.watch();
        let mut b = signal.watch();
        assert!(a.poll(&mut cx).is_pending());
        assert!(a.poll(&mut cx).is_pending());
        assert!(b.poll(&mut cx).is_pending());
        drop(b);
        assert_eq!(
            signal.lock().wakers.len(),
            1,
            "a dropped watch leaves no waker"
        );
        signal.raise();
        assert_eq!(count.0.load(Ordering::Relaxed), 1);
        assert!(a.poll(&mut cx).is_ready());
    }
}
