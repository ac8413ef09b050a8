//! A runtime-free delay for handlers.
//!
//! Handlers are plain futures and must not name a runtime, yet
//! `test_tool_with_progress` has to pause between reports. [`Delay`] parks
//! nothing: on first poll it starts a short-lived std thread that sleeps and
//! then wakes the task, so the executor thread stays free (a
//! `std::thread::sleep` inside the handler would hold a worker of an async
//! adapter for the whole wait). One thread per delay is fine for a test
//! fixture; a production server would use its runtime's timer.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

/// Resolves once `duration` has passed since it was first polled.
#[derive(Debug)]
pub struct Delay {
    duration: Duration,
    shared: Option<Arc<Shared>>,
}

#[derive(Debug, Default)]
struct Shared {
    done: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl Shared {
    fn waker(&self) -> MutexGuard<'_, Option<Waker>> {
        // A poisoned lock only means a waker panicked; the slot is still usable.
        self.waker.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Delay {
    /// A delay of `duration`.
    pub fn new(duration: Duration) -> Self {
        Delay {
            duration,
            shared: None,
        }
    }
}

impl Future for Delay {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let duration = self.duration;
        let shared = match &self.shared {
            Some(s) => Arc::clone(s),
            None => {
                let shared = Arc::new(Shared::default());
                let timer = Arc::clone(&shared);
                let spawned = std::thread::Builder::new()
                    .name(String::from("snodo-fixture-delay"))
                    .spawn(move || {
                        std::thread::sleep(duration);
                        // Set `done` before taking the waker: a poll that
                        // finds the slot empty then also sees `done`.
                        timer.done.store(true, Ordering::Release);
                        if let Some(w) = timer.waker().take() {
                            w.wake();
                        }
                    });
                if spawned.is_err() {
                    // No thread to spare: wait in place rather than never.
                    tracing::warn!(
                        "could not start a timer thread; sleeping on the executor thread"
                    );
                    std::thread::sleep(duration);
                    return Poll::Ready(());
                }
                self.shared = Some(Arc::clone(&shared));
                shared
            }
        };
        let mut slot = shared.waker();
        if shared.done.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        *slot = Some(cx.waker().clone());
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Wake;
    use std::thread::Thread;
    use std::time::Instant;

    struct Unpark(Thread);

    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }

    #[test]
    fn resolves_after_its_duration_and_only_then() {
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut delay = Delay::new(Duration::from_millis(100));
        let started = Instant::now();
        assert!(Pin::new(&mut delay).poll(&mut cx).is_pending());
        // A spurious re-poll before the timer fires stays pending.
        assert!(Pin::new(&mut delay).poll(&mut cx).is_pending());
        while Pin::new(&mut delay).poll(&mut cx).is_pending() {
            std::thread::park_timeout(Duration::from_secs(5));
            assert!(started.elapsed() < Duration::from_secs(5), "never woken");
        }
        assert!(
            started.elapsed() >= Duration::from_millis(100),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn dropping_before_it_fires_is_harmless() {
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut delay = Delay::new(Duration::from_millis(5));
        assert!(Pin::new(&mut delay).poll(&mut cx).is_pending());
        drop(delay);
        std::thread::sleep(Duration::from_millis(20));
    }
}
