//! Running a connection's invocations as smol tasks.
//!
//! Each [`Output::Invoke`](snodo_proto::Output::Invoke) is polled once on
//! the connection's task: one ready at once is answered there, with no
//! task and no channel hop; any other becomes one task on the adapter's
//! executor. What a task reports travels back over one channel to the
//! task that owns the [`Connection`](snodo_proto::Connection), bounded by
//! what may enter it:
//!
//! - completions always enter, so none is ever lost: there is at most one
//!   per running call, and `proto` caps running calls
//!   (`Limits::max_concurrent_calls`);
//! - progress and log events are counted, and dropped while `capacity` of
//!   them wait: they are advisory (`basic/patterns/progress.mdx`), and a
//!   handler that reports faster than the connection writes must not grow
//!   memory without bound. `CallSink::send` must not block anyway.
//!
//! The channel itself is unbounded: it allocates in blocks as reports
//! arrive. A bounded one would reserve `capacity` slots for every
//! connection up front (28 KiB at the default 256), most of which never
//! carries a report, since a handler ready at once needs no channel.
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
use std::sync::atomic::{AtomicUsize, Ordering};
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
    sink: Arc<ChannelSink>,
}

impl Calls {
    /// `capacity` bounds the reports waiting to be read by the connection.
    pub(crate) fn new(ex: Arc<Executor<'static>>, capacity: usize) -> Self {
        let (tx, rx) = channel::unbounded();
        let sink = Arc::new(ChannelSink {
            tx: tx.clone(),
            events: AtomicUsize::new(0),
            capacity: capacity.max(1),
        });
        Calls {
            ex,
            running: HashMap::new(),
            tx,
            rx,
            sink,
        }
    }

    /// Run `invocation`: poll it once here, and return its outcome if it
    /// is ready and reported nothing on the way (no task, no channel hop);
    /// otherwise it goes on (or its outcome goes out, behind its reports)
    /// on a task of the executor.
    pub(crate) fn start(&mut self, invocation: Invocation) -> Option<(CallId, Outcome)> {
        let call = invocation.call;
        let cancel = invocation.cancel_flag();
        let sink: Arc<dyn CallSink> = self.sink.clone();
        let mut future = match std::panic::catch_unwind(AssertUnwindSafe(|| invocation.run(sink))) {
            Ok(future) => AssertUnwindSafe(future).catch_unwind(),
            Err(payload) => return Some((call, panicked(call, &*payload))),
        };
        // A handler that is not ready registers this no-op waker; the task
        // it moves to polls it again at once and registers its own.
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let ready = match future.poll(&mut cx) {
            std::task::Poll::Ready(caught) => Some(caught.unwrap_or_else(|p| panicked(call, &*p))),
            std::task::Poll::Pending => None,
        };
        let tx = self.tx.clone();
        let task = match ready {
            Some(outcome) if self.rx.is_empty() => return Some((call, outcome)),
            // Its progress or log reports wait in the channel: the outcome
            // must come after them.
            Some(outcome) => self.ex.spawn(async move {
                let _ = tx.send(Report::Done(call, outcome)).await;
            }),
            None => self.ex.spawn(async move {
                let outcome = future.await.unwrap_or_else(|p| panicked(call, &*p));
                // Fails only when the connection is gone, and then nobody needs it.
                let _ = tx.send(Report::Done(call, outcome)).await;
            }),
        };
        self.running.insert(call, Running { task, cancel });
        None
    }

    /// Stop `call`: flag it and drop its task (which drops the handler's future).
    pub(crate) fn cancel(&mut self, call: CallId) {
        if let Some(running) = self.running.remove(&call) {
            running.cancel.cancel();
            drop(running.task);
        }
    }

    /// The connection took a progress or log event off the channel: it
    /// frees a place for another.
    pub(crate) fn took_event(&self) {
        self.sink.events.fetch_sub(1, Ordering::AcqRel);
    }

    /// Forget a call whose task has finished.
    pub(crate) fn finished(&mut self, call: CallId) {
        self.running.remove(&call);
    }

    /// The reports of this connection's calls, for the driver to keep
    /// listening on across events. Never ends while `self` lives: it keeps
    /// a sender.
    pub(crate) fn reports(&self) -> Receiver<Report> {
        self.rx.clone()
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

/// A handler's panic is an internal error for its call alone.
fn panicked(call: CallId, payload: &(dyn Any + Send)) -> Outcome {
    tracing::error!(%call, panic = panic_message(payload), "handler panicked");
    Outcome::Error(ErrorObject::internal("Internal error"))
}

/// Forwards handler reports to the connection, dropping them when it lags.
struct ChannelSink {
    tx: Sender<Report>,
    /// Progress and log events sent and not yet taken by the connection.
    events: AtomicUsize,
    capacity: usize,
}

impl CallSink for ChannelSink {
    fn send(&self, call: CallId, event: CallEvent) {
        let reserved = self
            .events
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.capacity).then_some(n + 1)
            })
            .is_ok();
        if !reserved {
            tracing::debug!(%call, "report queue full: dropping a progress or log event");
            return;
        }
        if let Err(TrySendError::Closed(_)) = self.tx.try_send(Report::Event(call, event)) {
            // The connection is gone; nobody will take it.
            self.events.fetch_sub(1, Ordering::AcqRel);
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
                seen.push(match calls.reports().recv().await.unwrap() {
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

    /// The bound counts events waiting, not events ever sent: once the
    /// connection takes one, another fits.
    #[test]
    fn a_taken_event_frees_a_place() {
        let ex = Arc::new(Executor::new());
        let (_conn, invocation) = chatty_invocation(0);
        let call = invocation.call;
        let calls = Calls::new(ex, 2);
        let progress = |p: f64| {
            CallEvent::Progress(snodo_proto::Progress {
                progress: p,
                total: None,
                message: None,
            })
        };
        for p in 1..=3 {
            calls.sink.send(call, progress(f64::from(p)));
        }
        assert_eq!(calls.rx.len(), 2, "the third waits for no place");
        let taken = calls.rx.try_recv().unwrap();
        assert!(matches!(taken, Report::Event(c, _) if c == call));
        calls.took_event();
        calls.sink.send(call, progress(4.0));
        calls.sink.send(call, progress(5.0));
        let waiting: Vec<f64> = std::iter::from_fn(|| calls.rx.try_recv().ok())
            .map(|r| match r {
                Report::Event(_, CallEvent::Progress(p)) => p.progress,
                other => panic!("unexpected report {other:?}"),
            })
            .collect();
        assert_eq!(waiting, [2.0, 4.0]);
    }

    /// A report sent after the connection is gone (its receiver dropped)
    /// gives its reserved place back instead of holding it forever.
    #[test]
    fn a_report_to_a_gone_connection_gives_its_place_back() {
        let (_conn, invocation) = chatty_invocation(0);
        let (tx, rx) = channel::unbounded();
        let sink = ChannelSink {
            tx,
            events: AtomicUsize::new(0),
            capacity: 1,
        };
        drop(rx);
        for progress in 1..=3 {
            sink.send(
                invocation.call,
                CallEvent::Progress(snodo_proto::Progress {
                    progress: f64::from(progress),
                    total: None,
                    message: None,
                }),
            );
            assert_eq!(sink.events.load(Ordering::Acquire), 0);
        }
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
            let call = invocation.call;
            let mut calls = Calls::new(ex.clone(), 4);
            // It panics in its first poll, so it is answered at once.
            match calls.start(invocation) {
                Some((c, Outcome::Error(e))) if c == call => {
                    assert_eq!((e.code, &*e.message), (-32603, "Internal error"))
                }
                other => panic!("unexpected start {other:?}"),
            }
            assert!(calls.running.is_empty());
        }));
    }

    #[test]
    fn a_ready_handler_is_answered_inline_and_a_waiting_one_on_a_task() {
        let ex = Arc::new(Executor::new());
        smol::block_on(ex.run(async {
            let service = Service::builder()
                .tool(Tool::new("now", "Ready at once"), |_: NoArgs, _ctx| async {
                    CallToolResult::text("now")
                })
                .tool(Tool::new("later", "Waits"), |_: NoArgs, _ctx| async {
                    Timer::after(Duration::from_millis(10)).await;
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
            let mut calls = Calls::new(ex.clone(), 4);
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
            assert!(calls.start(later).is_none(), "a pending handler moves to a task");
            assert_eq!(calls.running.len(), 1);
            match calls.reports().recv().await.unwrap() {
                Report::Done(c, Outcome::CallTool(r)) if c == later_call => {
                    assert_eq!(r, CallToolResult::text("later"))
                }
                other => panic!("unexpected report {other:?}"),
            }
        }));
    }
}
