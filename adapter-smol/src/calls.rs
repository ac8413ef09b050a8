//! Running a connection's invocations as smol tasks.
//!
//! Each [`Output::Invoke`](snodo_proto::Output::Invoke) becomes one task on
//! the adapter's executor. What a task reports travels back over one bounded
//! channel to the task that owns the [`Connection`](snodo_proto::Connection):
//!
//! - completions are sent with `send().await`, so none is ever lost; at most
//!   one per running call waits, and `proto` caps running calls
//!   (`Limits::max_concurrent_calls`);
//! - progress and log events are sent with `try_send` and dropped when the
//!   channel is full: they are advisory (`basic/patterns/progress.mdx`), and
//!   a handler that reports faster than the connection writes must not grow
//!   memory without bound. `CallSink::send` must not block anyway.
//!
//! A panicking handler is caught per call and answered `-32603` so the
//! connection and every other call go on. Cancelling a call sets its
//! [`CancelFlag`] and drops its [`Task`], which drops the handler's future.

use smol::channel::{self, Receiver, Sender, TrySendError};
use smol::future::FutureExt;
use smol::{Executor, Task};
use snodo_proto::{CallEvent, CallId, CallSink, CancelFlag, ErrorObject, Invocation, Outcome};
use std::any::Any;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

/// What a running call reports to its connection.
#[derive(Debug)]
pub(crate) enum Report {
    /// The handler finished (or panicked).
    Done(CallId, Outcome),
    /// The handler reported progress or a log message.
    Event(CallId, CallEvent),
}

struct Running {
    task: Task<()>,
    cancel: CancelFlag,
}

/// The calls of one connection.
pub(crate) struct Calls {
    ex: Arc<Executor<'static>>,
    running: HashMap<CallId, Running>,
    tx: Sender<Report>,
    rx: Receiver<Report>,
    sink: Arc<dyn CallSink>,
}

impl Calls {
    /// `capacity` bounds the reports waiting to be read by the connection.
    pub(crate) fn new(ex: Arc<Executor<'static>>, capacity: usize) -> Self {
        let (tx, rx) = channel::bounded(capacity.max(1));
        let sink = Arc::new(ChannelSink(tx.clone()));
        Calls {
            ex,
            running: HashMap::new(),
            tx,
            rx,
            sink,
        }
    }

    /// Run `invocation` on the executor.
    pub(crate) fn start(&mut self, invocation: Invocation) {
        let call = invocation.call;
        let cancel = invocation.cancel_flag();
        let future = invocation.run(self.sink.clone());
        let tx = self.tx.clone();
        let task = self.ex.spawn(async move {
            let outcome = match AssertUnwindSafe(future).catch_unwind().await {
                Ok(outcome) => outcome,
                Err(payload) => {
                    tracing::error!(%call, panic = panic_message(&*payload), "handler panicked");
                    Outcome::Error(ErrorObject::internal("Internal error"))
                }
            };
            // Fails only when the connection is gone, and then nobody needs it.
            let _ = tx.send(Report::Done(call, outcome)).await;
        });
        self.running.insert(call, Running { task, cancel });
    }

    /// Stop `call`: flag it and drop its task (which drops the handler's future).
    pub(crate) fn cancel(&mut self, call: CallId) {
        if let Some(running) = self.running.remove(&call) {
            running.cancel.cancel();
            drop(running.task);
        }
    }

    /// Forget a call whose task has finished.
    pub(crate) fn finished(&mut self, call: CallId) {
        self.running.remove(&call);
    }

    /// The next report. Never ends: `self` keeps a sender.
    pub(crate) async fn next(&self) -> Report {
        match self.rx.recv().await {
            Ok(report) => report,
            Err(_) => smol::future::pending().await,
        }
    }
}

impl Drop for Calls {
    /// A connection that ends takes its calls with it.
    fn drop(&mut self) {
        for running in self.running.values() {
            running.cancel.cancel();
        }
    }
}

/// Forwards handler reports to the connection, dropping them when it lags.
struct ChannelSink(Sender<Report>);

impl CallSink for ChannelSink {
    fn send(&self, call: CallId, event: CallEvent) {
        match self.0.try_send(Report::Event(call, event)) {
            Ok(()) | Err(TrySendError::Closed(_)) => {}
            Err(TrySendError::Full(_)) => {
                tracing::debug!(%call, "report queue full: dropping a progress or log event");
            }
        }
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "non-string panic payload"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smol::Timer;
    use snodo_proto::{
        CallToolResult, Connection, Instant, NoArgs, Output, Service, Tool, Transport,
    };
    use std::time::Duration;

    /// Connection + invocation of a tool that reports progress `reports` times.
    fn chatty_invocation(reports: u32) -> (Connection, Invocation) {
        let service = Service::builder()
            .tool(
                Tool::new("chatty", "Report a lot"),
                move |_: NoArgs, ctx: snodo_proto::Context| async move {
                    for i in 1..=reports {
                        ctx.progress(f64::from(i), None, None);
                    }
                    CallToolResult::text("done")
                },
            )
            .build()
            .unwrap();
        let mut conn = Connection::new(&service, Transport::Stdio, Instant::ZERO);
        conn.handle_input(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"chatty","_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
"#,
            Instant::ZERO,
        );
        match conn.poll_output() {
            Some(Output::Invoke(inv)) => (conn, inv),
            other => panic!("expected an invocation, got {other:?}"),
        }
    }

    #[test]
    fn a_full_queue_drops_progress_but_never_the_completion() {
        let ex = Arc::new(Executor::new());
        smol::block_on(ex.run(async {
            let (_conn, invocation) = chatty_invocation(10);
            let call = invocation.call;
            let mut calls = Calls::new(ex.clone(), 2);
            calls.start(invocation);
            // Let the handler run to its end: two reports fit, eight are
            // dropped, and the completion waits for room.
            Timer::after(Duration::from_millis(50)).await;
            let mut seen = Vec::new();
            for _ in 0..3 {
                seen.push(match calls.next().await {
                    Report::Event(c, CallEvent::Progress(p)) if c == call => {
                        format!("progress {}", p.progress)
                    }
                    Report::Done(c, Outcome::CallTool(r)) if c == call => {
                        format!("done {:?}", r.content.len())
                    }
                    other => panic!("unexpected report {other:?}"),
                });
            }
            assert_eq!(seen, ["progress 1", "progress 2", "done 1"]);
            assert!(
                calls.rx.try_recv().is_err(),
                "the dropped reports stay dropped"
            );
        }));
    }

    #[test]
    fn a_panic_becomes_an_internal_error() {
        let ex = Arc::new(Executor::new());
        smol::block_on(ex.run(async {
            let service = Service::builder()
                .tool(Tool::new("boom", "Panic"), |_: NoArgs, _ctx| async {
                    let v: Vec<u8> = Vec::new();
                    CallToolResult::text(format!("{}", v[1]))
                })
                .build()
                .unwrap();
            let mut conn = Connection::new(&service, Transport::Stdio, Instant::ZERO);
            conn.handle_input(
                br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
"#,
                Instant::ZERO,
            );
            let Some(Output::Invoke(invocation)) = conn.poll_output() else {
                panic!("expected an invocation");
            };
            let mut calls = Calls::new(ex.clone(), 4);
            calls.start(invocation);
            match calls.next().await {
                Report::Done(_, Outcome::Error(e)) => {
                    assert_eq!((e.code, &*e.message), (-32603, "Internal error"))
                }
                other => panic!("unexpected report {other:?}"),
            }
        }));
    }
}
