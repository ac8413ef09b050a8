//! Running calls through their connection ([`CallTask`]): reports queue in
//! the connection and come out ahead of their call's answer whatever order
//! the embedder drives things in, the report bound drops progress but never
//! an answer, a panic is the call's `-32603` alone, and a cancellation (or
//! the connection going away) ends the task and drops the handler's future.
//! Requests and answers are literal wire text over stdio.

use snodo_proto::{
    CallToolResult, Connection, Context, Implementation, Instant, Limits, NoArgs, Output, Service,
    Tool, Transport,
};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::task::{Context as TaskContext, Poll, Wake, Waker};

/// Pending once, then ready: a handler that has to be spawned.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Sends when its handler's future is dropped, and whether it was cancelled.
struct DropReport(Context, mpsc::Sender<bool>);

impl Drop for DropReport {
    fn drop(&mut self) {
        let _ = self.1.send(self.0.is_cancelled());
    }
}

#[derive(Default)]
struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn service(limits: Limits, dropped: mpsc::Sender<bool>) -> Service {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .limits(limits)
        .tool(
            Tool::new("now", "Reports, then answers at once"),
            |_: NoArgs, ctx: Context| async move {
                ctx.progress(1.0, None, None);
                CallToolResult::text("now")
            },
        )
        .tool(
            Tool::new("later", "Reports five times, waits, answers"),
            |_: NoArgs, ctx: Context| async move {
                for i in 1..=5 {
                    ctx.progress(f64::from(i), None, None);
                }
                YieldOnce(false).await;
                CallToolResult::text("later")
            },
        )
        .tool(
            Tool::new("boom", "Panics after a wait"),
            |_: NoArgs| async move {
                YieldOnce(false).await;
                if true {
                    panic!("the boom tool panics on purpose");
                }
                CallToolResult::text("unreachable")
            },
        )
        .tool(
            Tool::new("hang", "Never answers"),
            move |_: NoArgs, ctx: Context| {
                let report = DropReport(ctx, dropped.clone());
                async move {
                    let _report = report;
                    std::future::pending::<()>().await;
                    CallToolResult::text("unreachable")
                }
            },
        )
        .build()
        .unwrap()
}

fn call(id: u64, tool: &str) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"{tool}\",\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}},\"progressToken\":\"p{id}\"}}}}}}\n"
    )
}

fn progress(id: u64, n: u32) -> String {
    format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progress\":{n}.0,\"progressToken\":\"p{id}\"}}}}\n")
}

fn text(id: u64, text: &str) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"_meta\":{{\"io.modelcontextprotocol/serverInfo\":{{\"name\":\"t\",\"version\":\"1\"}}}},\"content\":[{{\"text\":\"{text}\",\"type\":\"text\"}}],\"resultType\":\"complete\"}}}}\n"
    )
}

const INTERNAL: &str =
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32603,\"message\":\"Internal error\"}}\n";

struct Wire {
    conn: Connection,
    written: String,
}

impl Wire {
    fn new(limits: Limits) -> (Wire, mpsc::Receiver<bool>) {
        let (tx, rx) = mpsc::channel();
        let conn = Connection::new(&service(limits, tx), Transport::Stdio, Instant::ZERO);
        (
            Wire {
                conn,
                written: String::new(),
            },
            rx,
        )
    }

    /// Feed `line`, write what comes out, and return its one invocation's task.
    fn start(&mut self, line: &str) -> snodo_proto::CallTask {
        self.conn.handle_input(line.as_bytes(), Instant::ZERO);
        let mut task = None;
        while let Some(out) = self.conn.poll_output() {
            match out {
                Output::Invoke(inv) => task = Some(self.conn.task(inv)),
                Output::Transmit(b) => self.written.push_str(std::str::from_utf8(&b).unwrap()),
                other => panic!("unexpected {other:?}"),
            }
        }
        task.expect("one invocation")
    }

    fn drain(&mut self) -> String {
        let mut cancels = 0;
        while let Some(out) = self.conn.poll_output() {
            match out {
                Output::Transmit(b) => self.written.push_str(std::str::from_utf8(&b).unwrap()),
                Output::Cancel(_) => cancels += 1,
                other => panic!("unexpected {other:?}"),
            }
        }
        let _ = cancels;
        std::mem::take(&mut self.written)
    }
}

/// Poll `task` to its end as an executor would.
fn run(task: &mut snodo_proto::CallTask) {
    let waker = Waker::noop();
    let mut cx = TaskContext::from_waker(waker);
    for _ in 0..16 {
        if Pin::new(&mut *task).poll(&mut cx).is_ready() {
            return;
        }
    }
    panic!("the task never finished");
}

#[test]
fn a_report_made_just_before_an_inline_answer_goes_out_first() {
    let (mut w, _) = Wire::new(Limits::default());
    let mut task = w.start(&call(1, "now"));
    let outcome = task.poll_inline().expect("ready at once");
    // The embedder answers at once, without taking the reports first.
    w.conn
        .complete(task.call(), outcome, Instant::ZERO)
        .unwrap();
    assert_eq!(w.drain(), progress(1, 1) + &text(1, "now"));
}

#[test]
fn a_spawned_call_reports_and_answers_through_its_connection_in_order() {
    let (mut w, _) = Wire::new(Limits::default());
    let mut task = w.start(&call(2, "later"));
    assert!(task.poll_inline().is_none(), "it waits once");
    run(&mut task);
    // Nothing reached the wire before the connection took its reports.
    assert_eq!(w.drain(), "");
    let waker = Waker::noop();
    assert!(w
        .conn
        .poll_changes(&mut TaskContext::from_waker(waker))
        .is_ready());
    w.conn.handle_changes(Instant::ZERO);
    let expected: String = (1..=5).map(|n| progress(2, n)).collect::<String>() + &text(2, "later");
    assert_eq!(w.drain(), expected);
}

#[test]
fn the_report_bound_drops_progress_but_never_the_answer() {
    let limits = Limits::default().max_pending_reports(2);
    let (mut w, _) = Wire::new(limits);
    let mut task = w.start(&call(2, "later"));
    assert!(task.poll_inline().is_none());
    run(&mut task);
    w.conn.handle_changes(Instant::ZERO);
    assert_eq!(
        w.drain(),
        progress(2, 1) + &progress(2, 2) + &text(2, "later")
    );
}

#[test]
fn a_panic_while_running_answers_its_call_alone_with_internal_error() {
    let (mut w, _) = Wire::new(Limits::default());
    let mut boom = w.start(&call(3, "boom"));
    assert!(boom.poll_inline().is_none());
    run(&mut boom);
    w.conn.handle_changes(Instant::ZERO);
    assert_eq!(w.drain(), INTERNAL);
    // The connection goes on.
    let mut next = w.start(&call(1, "now"));
    let outcome = next.poll_inline().unwrap();
    w.conn
        .complete(next.call(), outcome, Instant::ZERO)
        .unwrap();
    assert_eq!(w.drain(), progress(1, 1) + &text(1, "now"));
}

#[test]
fn a_cancellation_wakes_the_task_which_drops_the_handler() {
    let (mut w, dropped) = Wire::new(Limits::default());
    let mut task = w.start(&call(4, "hang"));
    assert!(task.poll_inline().is_none());
    let woken = Arc::new(Count::default());
    let waker = Waker::from(woken.clone());
    let mut cx = TaskContext::from_waker(&waker);
    assert!(Pin::new(&mut task).poll(&mut cx).is_pending());
    w.conn.handle_input(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":4}}\n",
        Instant::ZERO,
    );
    assert_eq!(w.drain(), "", "nothing is written for a cancelled call");
    assert_eq!(woken.0.load(Ordering::SeqCst), 1, "the task was woken");
    assert!(Pin::new(&mut task).poll(&mut cx).is_ready());
    assert_eq!(
        dropped.try_recv(),
        Ok(true),
        "its future is dropped, flagged"
    );
}

#[test]
fn dropping_the_connection_cancels_what_still_runs() {
    let (mut w, dropped) = Wire::new(Limits::default());
    let mut task = w.start(&call(4, "hang"));
    assert!(task.poll_inline().is_none());
    let woken = Arc::new(Count::default());
    let waker = Waker::from(woken.clone());
    let mut cx = TaskContext::from_waker(&waker);
    assert!(Pin::new(&mut task).poll(&mut cx).is_pending());
    drop(w);
    assert_eq!(woken.0.load(Ordering::SeqCst), 1);
    assert!(Pin::new(&mut task).poll(&mut cx).is_ready());
    assert_eq!(dropped.try_recv(), Ok(true));
}

/// The outputs of one drain, as tags: what went out besides bytes.
fn events(conn: &mut Connection) -> Vec<&'static str> {
    let mut tags = Vec::new();
    while let Some(out) = conn.poll_output() {
        tags.push(match out {
            Output::Transmit(_) => "transmit",
            Output::Invoke(_) => "invoke",
            Output::Cancel(_) => "cancel",
            Output::Close => "close",
            Output::Respond(_) => "respond",
        });
    }
    tags
}

#[test]
fn after_end_of_input_the_grace_bounds_what_still_runs() {
    let grace = std::time::Duration::from_millis(500);
    let limits = Limits::default().shutdown_grace(grace);
    let (mut w, dropped) = Wire::new(limits);
    let mut task = w.start(&call(4, "hang"));
    assert!(task.poll_inline().is_none());
    let eof = Instant::from_millis(1_000);
    w.conn.handle_input_closed(eof);
    assert_eq!(
        events(&mut w.conn),
        Vec::<&str>::new(),
        "the call may still finish"
    );
    assert_eq!(w.conn.poll_timeout(), Some(eof + grace));
    w.conn.handle_timeout(Instant::from_millis(1_499));
    assert_eq!(events(&mut w.conn), Vec::<&str>::new());
    w.conn.handle_timeout(eof + grace);
    assert_eq!(
        events(&mut w.conn),
        ["cancel", "close"],
        "given up unanswered"
    );
    assert_eq!(w.conn.poll_timeout(), None);
    run(&mut task);
    assert_eq!(dropped.try_recv(), Ok(true));
}

#[test]
fn a_failed_write_on_stdio_gives_up_every_call_and_closes() {
    let (mut w, dropped) = Wire::new(Limits::default());
    let mut task = w.start(&call(4, "hang"));
    assert!(task.poll_inline().is_none());
    w.conn.handle_write_failed(Instant::ZERO);
    assert_eq!(events(&mut w.conn), ["cancel", "close"]);
    assert!(!w.conn.closing().discard_input);
    run(&mut task);
    assert_eq!(dropped.try_recv(), Ok(true));
}
