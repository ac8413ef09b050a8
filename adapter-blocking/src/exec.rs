//! Running one handler future to completion on the current thread, with no
//! runtime: poll, park until woken or cancelled, poll again.
//!
//! Handlers are plain `std::future::Future`s (DESIGN § The machine), so a
//! waker that unparks the worker thread is all an executor needs here. A
//! panic in the handler is caught at each poll and becomes an internal error
//! for that call alone.

use std::any::Any;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

use snodo_proto::{BoxFuture, CallSink, CancelFlag, ErrorObject, Invocation, Outcome};

/// Shared between the driver (which may cancel) and the worker (which runs).
#[derive(Debug)]
pub(crate) struct JobState {
    cancelled: AtomicBool,
    flag: CancelFlag,
    worker: Mutex<Option<Thread>>,
}

impl JobState {
    pub(crate) fn new(flag: CancelFlag) -> Self {
        JobState {
            cancelled: AtomicBool::new(false),
            flag,
            worker: Mutex::new(None),
        }
    }

    /// Set the handler's [`CancelFlag`] and make the worker drop the future
    /// at its next wake, waking it now (`Output::Cancel`'s contract).
    pub(crate) fn cancel(&self) {
        self.flag.cancel();
        self.cancelled.store(true, Ordering::SeqCst);
        if let Some(t) = self
            .worker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
        {
            t.unpark();
        }
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// Record the running thread before the first poll, so a cancel that
    /// comes later unparks it and one that came earlier is seen by the
    /// check that follows.
    fn attach(&self) {
        *self.worker.lock().unwrap_or_else(PoisonError::into_inner) = Some(thread::current());
    }

    fn detach(&self) {
        *self.worker.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }
}

/// Wakes a parked worker.
struct Unpark {
    thread: Thread,
    woken: AtomicBool,
}

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

/// Run `invocation` to its outcome, or `None` if it was cancelled first.
pub(crate) fn run(
    invocation: Invocation,
    sink: Arc<dyn CallSink>,
    state: &JobState,
) -> Option<Outcome> {
    let call = invocation.call;
    state.attach();
    let result = if state.is_cancelled() {
        None
    } else {
        // Building the future calls application code too (the handler
        // closure), so it is guarded like every poll.
        match panic::catch_unwind(AssertUnwindSafe(|| invocation.run(sink))) {
            Ok(future) => block_on(call, future, state),
            Err(payload) => Some(panicked(call, payload.as_ref())),
        }
    };
    state.detach();
    result
}

fn block_on(
    call: impl fmt::Display + Copy,
    mut future: BoxFuture<Outcome>,
    state: &JobState,
) -> Option<Outcome> {
    let unpark = Arc::new(Unpark {
        thread: thread::current(),
        woken: AtomicBool::new(false),
    });
    let waker = Waker::from(Arc::clone(&unpark));
    let mut cx = Context::from_waker(&waker);
    let result = loop {
        if state.is_cancelled() {
            tracing::debug!(%call, "dropping a cancelled call");
            break None;
        }
        match panic::catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx))) {
            Ok(Poll::Ready(outcome)) => break Some(outcome),
            Ok(Poll::Pending) => {}
            Err(payload) => break Some(panicked(call, payload.as_ref())),
        }
        // `park` may return spuriously or for an earlier job's unpark; only
        // a wake or a cancel ends the wait.
        while !unpark.woken.swap(false, Ordering::Acquire) && !state.is_cancelled() {
            thread::park();
        }
    };
    // Dropping runs application code (destructors) as well.
    if panic::catch_unwind(AssertUnwindSafe(move || drop(future))).is_err() {
        tracing::error!(%call, "handler future panicked while being dropped");
    }
    result
}

fn panicked(call: impl fmt::Display, payload: &(dyn Any + Send)) -> Outcome {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(non-string panic payload)");
    tracing::error!(%call, panic = message, "handler panicked");
    // The client sees a generic error: the panic text may reveal internals.
    Outcome::Error(ErrorObject::internal("Internal error"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;

    fn state() -> JobState {
        JobState::new(CancelFlag::default())
    }

    #[test]
    fn a_ready_future_gives_its_outcome() {
        let fut: BoxFuture<Outcome> =
            Box::pin(async { Outcome::Error(ErrorObject::internal("x")) });
        let out = block_on("test", fut, &state());
        assert_eq!(out, Some(Outcome::Error(ErrorObject::internal("x"))));
    }

    #[test]
    fn a_panicking_poll_becomes_an_internal_error() {
        let fut: BoxFuture<Outcome> = Box::pin(async { panic!("boom") });
        let out = block_on("test", fut, &state());
        assert_eq!(
            out,
            Some(Outcome::Error(ErrorObject::internal("Internal error")))
        );
    }

    #[test]
    fn a_cancel_before_the_first_poll_never_polls() {
        let s = state();
        s.cancel();
        let fut: BoxFuture<Outcome> = Box::pin(async { unreachable!("must not be polled") });
        assert_eq!(block_on("test", fut, &s), None);
    }

    /// Pending once; hands its waker to another thread that wakes it later.
    struct WakeLater(bool);

    impl Future for WakeLater {
        type Output = Outcome;
        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
            if self.0 {
                return Poll::Ready(Outcome::Error(ErrorObject::internal("woken")));
            }
            self.0 = true;
            let waker = cx.waker().clone();
            thread::spawn(move || {
                thread::sleep(std::time::Duration::from_millis(20));
                waker.wake();
            });
            Poll::Pending
        }
    }

    #[test]
    fn a_wake_from_another_thread_resumes_the_future() {
        let out = block_on("test", Box::pin(WakeLater(false)), &state());
        assert_eq!(out, Some(Outcome::Error(ErrorObject::internal("woken"))));
    }

    struct SignalOnDrop(std::sync::mpsc::Sender<()>);

    impl Drop for SignalOnDrop {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }

    #[test]
    fn a_cancel_while_parked_drops_the_future() {
        let (tx, rx) = std::sync::mpsc::channel();
        let guard = SignalOnDrop(tx);
        let fut: BoxFuture<Outcome> = Box::pin(async move {
            let _guard = guard;
            std::future::pending::<Outcome>().await
        });
        let s = Arc::new(state());
        let canceller = Arc::clone(&s);
        let flag = s.flag.clone();
        s.attach();
        thread::spawn(move || {
            thread::sleep(std::time::Duration::from_millis(20));
            canceller.cancel();
        });
        assert_eq!(block_on("test", fut, &s), None);
        assert!(rx.try_recv().is_ok(), "the future was dropped");
        assert!(flag.is_cancelled());
    }
}
