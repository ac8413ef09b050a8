//! [`Connection::on_wake`]: a loop without a runtime learns that
//! `handle_changes` has work from a callback, not only through a `Waker`
//! passed to `poll_changes`. The callback is persistent (re-armed by the
//! connection after each drain), fires for a call completing on another
//! thread and for a hub event on a listen stream, and fires at once when
//! something is already waiting as it is registered. Requests and answers
//! are literal HTTP bytes; no sockets.

use snodo_proto::{
    CallToolResult, ChangeEvent, Connection, Context, Hub, Implementation, Instant, NoArgs,
    Notifications, Output, Service, Tool, Transport,
};
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Wake, Waker};
use std::thread;
use std::time::Duration;

/// A future that finishes when another thread says so.
struct Gate(Arc<Mutex<(bool, Option<Waker>)>>);

impl Future for Gate {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        let mut g = self.0.lock().unwrap();
        if g.0 {
            return Poll::Ready(());
        }
        g.1 = Some(cx.waker().clone());
        Poll::Pending
    }
}

fn open(gate: &Arc<Mutex<(bool, Option<Waker>)>>) {
    let waker = {
        let mut g = gate.lock().unwrap();
        g.0 = true;
        g.1.take()
    };
    if let Some(w) = waker {
        w.wake();
    }
}

/// Wakes the thread that runs a task.
struct Unpark(thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Run `f` to completion on this thread, parking between polls.
fn run<F: Future>(f: F) {
    let mut f = pin!(f);
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = TaskContext::from_waker(&waker);
    while f.as_mut().poll(&mut cx).is_pending() {
        thread::park();
    }
}

type GateSlot = Arc<Mutex<Option<Arc<Mutex<(bool, Option<Waker>)>>>>>;

fn service(gate: GateSlot, hub: Option<Hub>) -> Service {
    let mut b = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .tool(
            Tool::new("wait", "Reports, waits for the test, answers"),
            move |_: NoArgs, ctx: Context| {
                let gate = gate.lock().unwrap().clone().expect("a gate");
                async move {
                    Gate(gate).await;
                    // Sent from the spawned task's thread, just before the
                    // outcome: it must come out first.
                    ctx.progress(1.0, None, None);
                    CallToolResult::text("done")
                }
            },
        );
    if let Some(hub) = hub {
        b = b
            .notifications(Notifications::default().tools_list_changed())
            .hub(hub);
    }
    b.build().unwrap()
}

/// A POST with the headers a client mirrors from `body`: `Mcp-Method`,
/// then `extra` (`streamable-http.mdx` § Server Validation).
fn post(method: &str, extra: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// A callback that counts its calls and reports each on a channel.
fn wake_channel(conn: &mut Connection) -> Receiver<()> {
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    conn.on_wake(move || {
        let _ = tx.lock().unwrap().send(());
    });
    rx
}

/// Drain the outputs: the bytes written, and the call tasks to spawn.
fn drain(conn: &mut Connection) -> (String, Vec<snodo_proto::CallTask>) {
    let mut text = String::new();
    let mut spawned = Vec::new();
    while let Some(out) = conn.poll_output() {
        match out {
            Output::Transmit(b) => text.push_str(std::str::from_utf8(&b).unwrap()),
            Output::Invoke(inv) => {
                let mut task = conn.task(inv);
                match task.poll_inline() {
                    Some(outcome) => conn.complete(task.call(), outcome, Instant::ZERO).unwrap(),
                    None => spawned.push(task),
                }
            }
            Output::Cancel(_) | Output::Close | Output::Respond(_) => {}
        }
    }
    (text, spawned)
}

const WAIT: &str = r#"{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"wait","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}}}"#;

#[test]
fn a_call_finishing_on_another_thread_wakes_the_callback_every_time() {
    let slot: GateSlot = Arc::default();
    let svc = service(slot.clone(), None);
    let mut conn = Connection::new(&svc, Transport::Http, Instant::ZERO);
    let woken = wake_channel(&mut conn);
    assert!(woken.try_recv().is_err(), "nothing to deliver yet");

    // Two requests in turn on one keep-alive connection: the registration
    // outlives the first wake.
    for id in [1, 2] {
        let gate = Arc::new(Mutex::new((false, None)));
        *slot.lock().unwrap() = Some(gate.clone());
        conn.handle_input(
            post(
                "tools/call",
                "Mcp-Name: wait\r\n",
                &WAIT.replace("ID", &id.to_string()),
            )
            .as_bytes(),
            Instant::ZERO,
        );
        let (text, mut spawned) = drain(&mut conn);
        assert_eq!(text, "", "the call waits: nothing is written yet");
        let task = spawned.pop().expect("the call waits, so it is spawned");
        let worker = thread::spawn(move || run(task));
        assert!(
            woken.recv_timeout(Duration::from_millis(100)).is_err(),
            "no wake while the call runs"
        );
        open(&gate);
        woken
            .recv_timeout(Duration::from_secs(10))
            .expect("the call's outcome wakes the callback");
        worker.join().unwrap();
        conn.handle_changes(Instant::ZERO);
        let (text, _) = drain(&mut conn);
        let progress = r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1.0,"progressToken":"p"}}"#;
        let result = format!(
            r#"data: {{"jsonrpc":"2.0","id":{id},"result":{{"_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"t","version":"1"}}}},"content":[{{"text":"done","type":"text"}}],"resultType":"complete"}}}}"#
        );
        assert_eq!(
            text,
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n{:x}\r\n{progress}\n\n\r\n{:x}\r\n{result}\n\n\r\n0\r\n\r\n",
                progress.len() + 2,
                result.len() + 2
            ),
            "the report sent just before the outcome comes out first"
        );
        assert!(woken.try_recv().is_err(), "one wake per delivery");
    }
}

#[test]
fn a_hub_event_for_a_listen_stream_wakes_the_callback() {
    let hub = Hub::default();
    let svc = service(Arc::default(), Some(hub.clone()));
    let mut conn = Connection::new(&svc, Transport::Http, Instant::ZERO);
    let woken = wake_channel(&mut conn);
    conn.handle_input(
        post(
            "subscriptions/listen",
            "",
            r#"{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"toolsListChanged":true}}}"#,
        )
        .as_bytes(),
        Instant::ZERO,
    );
    let (text, _) = drain(&mut conn);
    assert!(text.starts_with("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"));
    assert!(woken.try_recv().is_err());

    let changed = r#"data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}"#;
    for _ in 0..2 {
        let publisher = hub.clone();
        thread::spawn(move || publisher.publish(ChangeEvent::ToolsListChanged))
            .join()
            .unwrap();
        woken
            .recv_timeout(Duration::from_secs(10))
            .expect("the hub event wakes the callback");
        conn.handle_changes(Instant::ZERO);
        let (text, _) = drain(&mut conn);
        assert_eq!(
            text,
            format!("{:x}\r\n{changed}\n\n\r\n", changed.len() + 2)
        );
    }
}

#[test]
fn registering_while_something_waits_wakes_at_once() {
    let hub = Hub::default();
    let svc = service(Arc::default(), Some(hub.clone()));
    let mut conn = Connection::new(&svc, Transport::Http, Instant::ZERO);
    conn.handle_input(
        post(
            "subscriptions/listen",
            "",
            r#"{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"notifications":{"toolsListChanged":true}}}"#,
        )
        .as_bytes(),
        Instant::ZERO,
    );
    drain(&mut conn);
    hub.publish(ChangeEvent::ToolsListChanged);
    let woken = wake_channel(&mut conn);
    woken
        .try_recv()
        .expect("an event queued before the registration wakes it at once");
}
