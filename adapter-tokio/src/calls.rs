//! Running one connection's handler calls as tokio tasks.
//!
//! Each [`Invocation`] becomes its own task, so a slow handler holds up
//! neither the connection nor other calls. Everything a task reports (its
//! progress and log messages, then its outcome) travels back over one
//! bounded channel per connection, which keeps a call's reports in order
//! ahead of its completion.
//!
//! - A completion is never dropped: the task waits for a channel slot.
//!   There are at most `max_concurrent_calls` tasks per connection, so at
//!   most that many completions are ever pending.
//! - A progress or log report that finds the channel full is dropped:
//!   progress is advisory (`basic/patterns/progress.mdx`), and a sink must
//!   not block (`CallSink::send`).
//! - A panicking handler is answered with `-32603` "Internal error" for its
//!   call alone; the connection and other calls go on.
//! - Cancelling sets the call's [`CancelFlag`] and aborts its task, which
//!   drops the handler's future. Dropping `Calls` does the same for every
//!   call still running, so no handler outlives its connection.

use std::collections::HashMap;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use snodo_proto::{
    BoxFuture, CallEvent, CallId, CallSink, CancelFlag, ErrorObject, Invocation, Outcome,
};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

/// What a running call sent back.
#[derive(Debug)]
pub(crate) enum Report {
    Event(CallId, CallEvent),
    Done(CallId, Outcome),
}

struct Running {
    task: AbortHandle,
    cancel: CancelFlag,
}

pub(crate) struct Calls {
    running: HashMap<CallId, Running>,
    tx: mpsc::Sender<Report>,
    rx: mpsc::Receiver<Report>,
    sink: Arc<dyn CallSink>,
}

impl Calls {
    pub(crate) fn new(capacity: usize) -> Self {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let sink = Arc::new(ChannelSink { tx: tx.clone() });
        Calls {
            running: HashMap::new(),
            tx,
            rx,
            sink,
        }
    }

    /// Run `invocation` on its own task.
    pub(crate) fn start(&mut self, invocation: Invocation) {
        let call = invocation.call;
        let cancel = invocation.cancel_flag();
        let sink = self.sink.clone();
        let tx = self.tx.clone();
        let task = tokio::spawn(async move {
            let outcome = run_caught(invocation, sink).await;
            // Err only if the connection is gone; nobody is left to tell.
            let _ = tx.send(Report::Done(call, outcome)).await;
        });
        self.running.insert(
            call,
            Running {
                task: task.abort_handle(),
                cancel,
            },
        );
    }

    /// Stop `call`: set its flag and drop its future.
    pub(crate) fn cancel(&mut self, call: CallId) {
        if let Some(r) = self.running.remove(&call) {
            r.cancel.cancel();
            r.task.abort();
        }
    }

    /// The next report. Never ends: `Calls` holds a sender itself.
    pub(crate) async fn next(&mut self) -> Report {
        let report = self
            .rx
            .recv()
            .await
            .expect("Calls holds a sender, so the channel stays open");
        if let Report::Done(call, _) = &report {
            self.running.remove(call);
        }
        report
    }

    /// Calls whose tasks were started and have not reported completion.
    pub(crate) fn running(&self) -> usize {
        self.running.len()
    }
}

impl Drop for Calls {
    fn drop(&mut self) {
        for (_, r) in self.running.drain() {
            r.cancel.cancel();
            r.task.abort();
        }
    }
}

/// Run the handler, turning a panic (while building its future or while
/// polling it) into an internal error for this call.
async fn run_caught(invocation: Invocation, sink: Arc<dyn CallSink>) -> Outcome {
    let call = invocation.call;
    let caught = match catch_unwind(AssertUnwindSafe(|| invocation.run(sink))) {
        Ok(future) => CatchUnwind(future).await,
        Err(payload) => Err(payload),
    };
    caught.unwrap_or_else(|payload| {
        tracing::error!(%call, panic = panic_message(&*payload), "handler panicked");
        // The message must not leak internals (`ErrorObject::internal`).
        Outcome::Error(ErrorObject::internal("Internal error"))
    })
}

/// Polls a future inside `catch_unwind`. The future is never polled again
/// after it panicked: the payload ends it.
struct CatchUnwind(BoxFuture<Outcome>);

impl Future for CatchUnwind {
    type Output = Result<Outcome, Box<dyn std::any::Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(outcome)) => Poll::Ready(Ok(outcome)),
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "<non-string panic payload>"
    }
}

/// Forwards a handler's reports to its connection without blocking.
struct ChannelSink {
    tx: mpsc::Sender<Report>,
}

impl CallSink for ChannelSink {
    fn send(&self, call: CallId, event: CallEvent) {
        if let Err(mpsc::error::TrySendError::Full(_)) =
            self.tx.try_send(Report::Event(call, event))
        {
            tracing::debug!(%call, "connection is behind; dropping a progress or log report");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panic_messages_are_extracted() {
        let s: Box<dyn std::any::Any + Send> = Box::new("static");
        assert_eq!(panic_message(&*s), "static");
        let s: Box<dyn std::any::Any + Send> = Box::new(String::from("owned"));
        assert_eq!(panic_message(&*s), "owned");
        let s: Box<dyn std::any::Any + Send> = Box::new(7_u8);
        assert_eq!(panic_message(&*s), "<non-string panic payload>");
    }

    #[tokio::test]
    async fn a_panicking_future_is_an_internal_error() {
        let future: BoxFuture<Outcome> = Box::pin(async {
            tokio::task::yield_now().await;
            panic!("boom")
        });
        let caught = CatchUnwind(future).await;
        assert!(caught.is_err());
    }
}
