//! Running the async session's futures on the calling thread, for the
//! blocking [`Session`](crate::Session).
//!
//! The blocking transports do their I/O inside `poll` (a blocking socket
//! read, a blocking pipe write), so their futures are ready on the first
//! poll and this loop turns once per call. It still parks and wakes
//! properly, so a future that does return `Pending` (one of the
//! [`AsyncTransport`](crate::AsyncTransport)s on a reactor, say) is run
//! to its end rather than spun on.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

/// Wakes the thread that is blocked on the future.
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Poll `future` on this thread until it is done, parking between polls.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        thread::park();
    }
}
