//! A public cancel (`basic/patterns/cancellation.mdx`): a handle that
//! another task or thread holds while the session waits for a request,
//! and whose [`Canceller::cancel`] makes the session stop waiting and
//! tell the server (a `notifications/cancelled` on stdio and on HTTP
//! before 2026-07-28; on Streamable HTTP 2026-07-28 closing the response
//! stream is the signal, and dropping the wait closes it).
//!
//! The state is one mutex-guarded struct: whether a request is waiting,
//! whether it was asked to stop (with the reason), and the waker of the
//! wait to wake.

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// Cancels the request an [`AsyncSession`](crate::AsyncSession) is
/// waiting for. Cheap to clone; `Send` and `Sync`, so it may be handed to
/// another task or thread (a UI's stop button, a supervisor).
#[derive(Clone, Debug, Default)]
pub struct Canceller(Arc<Mutex<State>>);

#[derive(Debug, Default)]
struct State {
    /// A request is being waited for.
    waiting: bool,
    /// It was asked to stop, with this reason.
    cancelled: Option<Option<String>>,
    /// The wait to wake when it is.
    waker: Option<Waker>,
}

impl Canceller {
    /// Stop the request the session is waiting for now, with `reason`
    /// (sent to the server where the transport carries one). The wait
    /// ends with [`Error::Cancelled`](crate::Error::Cancelled). Whether a
    /// request was waiting: a cancel with none in flight does nothing, so
    /// it cannot stop a later request by surprise.
    pub fn cancel(&self, reason: Option<&str>) -> bool {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if !state.waiting {
            return false;
        }
        state.cancelled = Some(reason.map(String::from));
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
        true
    }

    /// A request's wait begins.
    pub(crate) fn begin(&self) {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *state = State {
            waiting: true,
            ..State::default()
        };
    }

    /// The wait is over, cancelled or not.
    pub(crate) fn end(&self) {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *state = State::default();
    }

    /// Ready with the reason once [`cancel`](Self::cancel) was called
    /// during this wait.
    pub(crate) fn poll_cancelled(&self, cx: &mut Context<'_>) -> Poll<Option<String>> {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match state.cancelled.take() {
            Some(reason) => Poll::Ready(reason),
            None => {
                state.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
