//! Running one connection's handler calls as tokio tasks.
//!
//! Each [`Invocation`]'s future is polled once where the connection runs:
//! a handler that is ready at once (most are) is answered without a task,
//! a channel hop or a map entry. One that is not becomes its own task, so
//! a slow handler holds up neither the connection nor other calls.
//! Everything a task reports (its progress and log messages, then its
//! outcome) travels back over one bounded channel per connection, which
//! keeps a call's reports in order ahead of its completion; a handler that
//! reported something during its first poll has its outcome sent down the
//! same channel, behind those reports.
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

    /// Run `invocation`: poll it once here, and return its outcome if it
    /// is ready and reported nothing on the way; otherwise it goes on (or
    /// its outcome goes out) on a task of its own.
    pub(crate) fn start(&mut self, invocation: Invocation) -> Option<(CallId, Outcome)> {
        let call = invocation.call;
        let cancel = invocation.cancel_flag();
        let mut future = match catch_unwind(AssertUnwindSafe(|| invocation.run(self.sink.clone())))
        {
            Ok(future) => CatchUnwind(future),
            Err(payload) => return Some((call, panicked(call, &*payload))),
        };
        // A handler that is not ready registers this no-op waker; the task
        // it moves to polls it again at once and registers its own.
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let ready = match Pin::new(&mut future).poll(&mut cx) {
            Poll::Ready(caught) => Some(caught.unwrap_or_else(|p| panicked(call, &*p))),
            Poll::Pending => None,
        };
        let tx = self.tx.clone();
        let task = match ready {
            Some(outcome) if self.rx.is_empty() => return Some((call, outcome)),
            // Its progress or log reports wait in the channel: the outcome
            // must come after them.
            Some(outcome) => tokio::spawn(async move {
                let _ = tx.send(Report::Done(call, outcome)).await;
            }),
            None => tokio::spawn(async move {
                let outcome = future.await.unwrap_or_else(|p| panicked(call, &*p));
                // Err only if the connection is gone; nobody is left to tell.
                let _ = tx.send(Report::Done(call, outcome)).await;
            }),
        };
        self.running.insert(
            call,
            Running {
                task: task.abort_handle(),
                cancel,
            },
        );
        None
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

/// A handler's panic (while building its future or while polling it) is
/// an internal error for its call alone.
fn panicked(call: CallId, payload: &(dyn std::any::Any + Send)) -> Outcome {
    tracing::error!(%call, panic = panic_message(payload), "handler panicked");
    // The message must not leak internals (`ErrorObject::internal`).
    Outcome::Error(ErrorObject::internal("Internal error"))
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
    async fn a_ready_handler_is_answered_inline_and_a_waiting_one_on_a_task() {
        use snodo_proto::{
            CallToolResult, Connection, Instant, NoArgs, Output, Service, Tool, Transport,
        };
        let service = Service::builder()
            .tool(Tool::new("now", "Ready at once"), |_: NoArgs, _ctx| async {
                CallToolResult::text("now")
            })
            .tool(Tool::new("later", "Waits"), |_: NoArgs, _ctx| async {
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                CallToolResult::text("later")
            })
            .build()
            .unwrap();
        let mut conn = Connection::new(&service, Transport::Stdio, Instant::ZERO);
        conn.handle_input(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"now","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"later","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
"#,
            Instant::ZERO,
        );
        let mut calls = Calls::new(4);
        let Some(Output::Invoke(now)) = conn.poll_output() else {
            panic!("expected an invocation");
        };
        let Some(Output::Invoke(later)) = conn.poll_output() else {
            panic!("expected a second invocation");
        };
        let (now_call, later_call) = (now.call, later.call);
        match calls.start(now) {
            Some((c, Outcome::CallTool(r))) if c == now_call => {
                assert_eq!(r, CallToolResult::text("now"))
            }
            other => panic!("expected an inline answer, got {other:?}"),
        }
        assert_eq!(calls.running(), 0);
        assert!(
            calls.start(later).is_none(),
            "a pending handler moves to a task"
        );
        assert_eq!(calls.running(), 1);
        match calls.next().await {
            Report::Done(c, Outcome::CallTool(r)) if c == later_call => {
                assert_eq!(r, CallToolResult::text("later"))
            }
            other => panic!("unexpected report {other:?}"),
        }
        assert_eq!(calls.running(), 0);
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
