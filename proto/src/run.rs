//! Running a connection's calls: the queue through which they report back,
//! and the task that runs one handler.
//!
//! Everything a call sends to its connection (progress and log reports,
//! then its outcome) enters one FIFO queue that the connection owns, so a
//! report sent before the handler finished is delivered before its answer
//! by construction, whatever order the embedder drives things in
//! ([`Connection::complete`](crate::Connection::complete) drains the queue
//! first, too). The queue's bound is the connection's policy, not the
//! adapter's:
//!
//! - an outcome always enters: there is at most one per running call, and
//!   [`Limits::max_concurrent_calls`](crate::Limits) bounds those;
//! - a progress or log report that finds
//!   [`Limits::max_pending_reports`](crate::Limits) reports waiting is
//!   dropped: progress is advisory (`basic/patterns/progress.mdx`), and a
//!   handler that reports faster than its client reads must not grow
//!   memory without bound. [`CallSink::send`] must not block anyway.
//!
//! A [`CallTask`] is the one place a handler's panic becomes its call's
//! `-32603` and a cancellation drops the handler's future: every runtime
//! spawns the same task.

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::sync::Arc;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll, Waker};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, MutexGuard};

use crate::blocking::Executor;
use crate::error::ErrorObject;
use crate::handler::{BoxFuture, CallEvent, CallId, CallSink, Invocation, Outcome, Shared};

/// What a call sent back to its connection.
#[derive(Debug)]
pub(crate) enum Report {
    Event(CallId, CallEvent),
    Done(CallId, Outcome),
}

/// A connection's queue of reports from its running calls.
pub(crate) struct Reports {
    state: Mutex<State>,
    capacity: usize,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Report>,
    /// Progress and log reports in `queue`.
    events: usize,
    /// Reports dropped at the bound since the connection last drained.
    dropped: u64,
    waker: Option<Waker>,
    /// Where the calls' blocking work runs ([`crate::blocking`]).
    executor: Option<Arc<dyn Executor>>,
}

impl Reports {
    pub(crate) fn new(capacity: usize) -> Arc<Reports> {
        Arc::new(Reports {
            state: Mutex::new(State::default()),
            capacity: capacity.max(1),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn push(&self, report: Report) {
        let waker = {
            let mut s = self.lock();
            if let Report::Event(call, _) = &report {
                if s.events >= self.capacity {
                    s.dropped += 1;
                    tracing::debug!(%call, "connection is behind; dropping a progress or log report");
                    return;
                }
                s.events += 1;
            }
            s.queue.push_back(report);
            s.waker.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Ready when reports wait; otherwise registers `cx`'s waker.
    pub(crate) fn poll(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = self.lock();
        if s.queue.is_empty() {
            if !s.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                s.waker = Some(cx.waker().clone());
            }
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }

    /// Take every waiting report, oldest first.
    pub(crate) fn drain(&self) -> VecDeque<Report> {
        let mut s = self.lock();
        s.events = 0;
        if s.dropped > 0 {
            tracing::debug!(dropped = s.dropped, "progress or log reports were dropped");
            s.dropped = 0;
        }
        core::mem::take(&mut s.queue)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.lock().queue.is_empty()
    }

    pub(crate) fn set_executor(&self, executor: Arc<dyn Executor>) {
        self.lock().executor = Some(executor);
    }
}

impl CallSink for Reports {
    fn send(&self, call: CallId, event: CallEvent) {
        self.push(Report::Event(call, event));
    }

    fn executor(&self) -> Option<Arc<dyn Executor>> {
        self.lock().executor.clone()
    }
}

/// One handler call, ready to run: made by
/// [`Connection::task`](crate::Connection::task) from an
/// [`Output::Invoke`](crate::Output::Invoke).
///
/// Poll it once where the connection runs with [`poll_inline`](Self::poll_inline):
/// most handlers are ready at once and are answered there, with no task.
/// Otherwise spawn it on any executor; it reports its outcome to its
/// connection itself (waking the connection's
/// [`on_wake`](crate::Connection::on_wake) callback or
/// [`poll_changes`](crate::Connection::poll_changes)), ends early when the
/// call is cancelled (dropping the handler's future), and answers a panic
/// with `-32603` for its call alone.
#[must_use = "a call task does nothing unless polled or spawned"]
pub struct CallTask {
    call: CallId,
    future: Option<BoxFuture<Outcome>>,
    shared: Arc<Shared>,
    reports: Arc<Reports>,
    /// The call's `mcp.call` span ([`crate::trace`]): entered while the
    /// handler is polled, closed when the task is dropped.
    span: tracing::Span,
    /// Whether the outcome was recorded on the span.
    ended: bool,
}

impl Drop for CallTask {
    fn drop(&mut self) {
        if !self.ended {
            self.span.record("outcome", "cancelled");
        }
    }
}

impl core::fmt::Debug for CallTask {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CallTask")
            .field("call", &self.call)
            .finish()
    }
}

impl CallTask {
    pub(crate) fn new(invocation: Invocation, reports: Arc<Reports>) -> CallTask {
        let call = invocation.call;
        let shared = invocation.shared.clone();
        let sink: Arc<dyn CallSink> = reports.clone();
        let span = crate::trace::call_span(&invocation);
        let _entered = span.enter();
        let future = match catch_unwind(AssertUnwindSafe(|| invocation.run(sink))) {
            Ok(future) => future,
            Err(payload) => {
                let outcome = panicked(call, &*payload);
                Box::pin(core::future::ready(outcome))
            }
        };
        drop(_entered);
        CallTask {
            call,
            future: Some(future),
            shared,
            reports,
            span,
            ended: false,
        }
    }

    /// Record `outcome` on the call's span.
    fn ended(&mut self, outcome: &Outcome) {
        self.ended = true;
        crate::trace::record_outcome(&self.span, outcome);
    }

    /// The call this task runs.
    pub fn call(&self) -> CallId {
        self.call
    }

    /// Poll the handler once without a runtime (a no-op waker). `Some` is
    /// its outcome, to pass to [`Connection::complete`](crate::Connection::complete);
    /// `None` means it is waiting: spawn the task.
    pub fn poll_inline(&mut self) -> Option<Outcome> {
        let future = self.future.as_mut()?;
        let mut cx = Context::from_waker(Waker::noop());
        let poll = self
            .span
            .in_scope(|| poll_caught(self.call, future, &mut cx));
        match poll {
            Poll::Ready(outcome) => {
                self.future = None;
                self.ended(&outcome);
                Some(outcome)
            }
            Poll::Pending => None,
        }
    }
}

impl Future for CallTask {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        if this.shared.is_cancelled() {
            this.future = None;
            return Poll::Ready(());
        }
        let Some(future) = this.future.as_mut() else {
            return Poll::Ready(());
        };
        this.shared.register(cx.waker());
        // A cancellation between the check above and the registration woke
        // no one: look again.
        if this.shared.is_cancelled() {
            this.future = None;
            return Poll::Ready(());
        }
        let poll = this.span.in_scope(|| poll_caught(this.call, future, cx));
        match poll {
            Poll::Ready(outcome) => {
                this.future = None;
                this.ended(&outcome);
                this.reports.push(Report::Done(this.call, outcome));
                Poll::Ready(())
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

fn poll_caught(
    call: CallId,
    future: &mut BoxFuture<Outcome>,
    cx: &mut Context<'_>,
) -> Poll<Outcome> {
    match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
        Ok(poll) => poll,
        Err(payload) => Poll::Ready(panicked(call, &*payload)),
    }
}

/// A handler's panic (building its future or polling it) is an internal
/// error for its call alone; the message must not leak internals
/// (`ErrorObject::internal`), so the payload goes to the log only.
fn panicked(call: CallId, payload: &(dyn core::any::Any + Send)) -> Outcome {
    let message = panic_message(payload);
    tracing::error!(%call, panic = message, "handler panicked");
    Outcome::Error(ErrorObject::internal("Internal error"))
}

/// A panic's message, for the log.
pub(crate) fn panic_message(payload: &(dyn core::any::Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<alloc::string::String>() {
        s.as_str()
    } else {
        "<non-string panic payload>"
    }
}
