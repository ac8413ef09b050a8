//! Blocking work from handlers on every runtime
//! (`Context::spawn_blocking`, `snodo_proto::blocking`): it runs off the
//! thread that polls the handler, the connection serves other calls
//! meanwhile, a cancellation or a vanished client reaches the work through
//! its interrupt, and a panic in it fails its call alone.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use snodo_proto::{CallToolResult, Context, NoArgs, Service, Tool, ToolError};
use snodo_tokio::Options;

use crate::client::{json, json_response, Server, Stdio};
use crate::harness::Rt;
use crate::http::{call, echo, echoed, text_result};
use crate::service::{limits, service_with};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

const SOON: Duration = Duration::from_secs(10);

fn line(id: u64, tool: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}",{META}}}}}"#
    )
}

fn echo_line(id: u64, text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}},{META}}}}}"#
    )
}

/// The test's side of the blocking tools.
struct Work {
    /// Lets every `block` job finish.
    release: Arc<AtomicBool>,
    /// A `block` job started, on a thread other than its handler's (true)
    /// or on the same one (false).
    started: Receiver<bool>,
    /// A `block` job saw its interrupt set, and stopped.
    interrupted: Receiver<()>,
}

impl Work {
    fn expect_started_off_the_polling_thread(&self) {
        let off = self
            .started
            .recv_timeout(SOON)
            .expect("the blocking work started");
        assert!(off, "blocking work ran on the thread that polls handlers");
    }

    fn expect_interrupted(&self) {
        self.interrupted
            .recv_timeout(SOON)
            .expect("the blocking work saw its interrupt");
    }
}

/// The adapter suite's service, with two tools whose work blocks:
/// `block` waits (sleeping, as blocking code does) until the test releases
/// it or its interrupt is set; `block_panic` panics.
fn service() -> (Service, Work) {
    let release = Arc::new(AtomicBool::new(false));
    let (started_tx, started) = mpsc::channel();
    let (interrupted_tx, interrupted) = mpsc::channel();
    let senders = Arc::new(Mutex::new((started_tx, interrupted_tx)));
    let released = release.clone();
    let (service, _) = service_with(limits(), move |b| {
        b.tool(
            Tool::new("block", "Block a thread until released"),
            move |_: NoArgs, ctx: Context| {
                let (release, senders) = (released.clone(), senders.clone());
                async move { block(ctx, release, senders).await }
            },
        )
        .tool(
            Tool::new("block_panic", "Panic in blocking work"),
            |_: NoArgs, ctx: Context| async move {
                ctx.spawn_blocking(|_| -> &'static str { panic!("blocking work failed") })
                    .await?;
                Ok::<_, ToolError>(CallToolResult::text("unreachable"))
            },
        )
    });
    (
        service,
        Work {
            release,
            started,
            interrupted,
        },
    )
}

type Senders = Arc<Mutex<(Sender<bool>, Sender<()>)>>;

async fn block(
    ctx: Context,
    release: Arc<AtomicBool>,
    senders: Senders,
) -> Result<CallToolResult, ToolError> {
    let polling = std::thread::current().id();
    let text = ctx
        .spawn_blocking(move |interrupt| {
            let (started, interrupted) = senders.lock().unwrap().clone();
            let _ = started.send(std::thread::current().id() != polling);
            while !release.load(Ordering::Acquire) {
                if interrupt.is_set() {
                    let _ = interrupted.send(());
                    return "interrupted";
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            "released"
        })
        .await?;
    Ok(CallToolResult::text(text))
}

/// While one call's work blocks its thread, the connection answers
/// another; the work's value is the first call's answer.
pub fn stdio_blocking_work_runs_off_the_polling_thread<R: Rt>() {
    let (service, work) = service();
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(&line(1, "block"));
    work.expect_started_off_the_polling_thread();
    c.send(&echo_line(2, "meanwhile"));
    assert_eq!(c.recv(), json(&text_result(2, "meanwhile")));
    work.release.store(true, Ordering::Release);
    assert_eq!(c.recv(), json(&text_result(1, "released")));
    c.finish();
}

/// `notifications/cancelled` reaches the blocking work, and the call is
/// never answered (`basic/utilities/cancellation.mdx` § Behavior
/// Requirements).
pub fn stdio_a_cancelled_call_interrupts_its_blocking_work<R: Rt>() {
    let (service, work) = service();
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(&line(3, "block"));
    work.expect_started_off_the_polling_thread();
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#);
    work.expect_interrupted();
    c.send(&echo_line(4, "next"));
    assert_eq!(c.recv(), json(&text_result(4, "next")));
    c.finish();
}

pub fn stdio_a_panic_in_blocking_work_fails_only_its_call<R: Rt>() {
    let (service, _work) = service();
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(&line(5, "block_panic"));
    assert_eq!(
        c.recv(),
        json(r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Internal error"}}"#)
    );
    c.send(&echo_line(6, "still here"));
    assert_eq!(c.recv(), json(&text_result(6, "still here")));
    c.finish();
}

pub fn http_blocking_work_runs_off_the_polling_thread<R: Rt>() {
    let (service, work) = service();
    let server = Server::<R>::http(&service, Options::default());
    let mut blocked = server.connect();
    blocked.send(&call(1, "block"));
    work.expect_started_off_the_polling_thread();
    let mut other = server.connect();
    other.send(&echo(2, "meanwhile"));
    other.expect(&echoed(2, "meanwhile"));
    work.release.store(true, Ordering::Release);
    blocked.expect(&json_response("200 OK", "", &text_result(1, "released")));
    drop((blocked, other));
    server.finish();
}

/// A client that hangs up cancels its call (`basic/transports/streamable-http.mdx`
/// § Cancellation), which interrupts the call's blocking work.
pub fn http_a_client_hanging_up_interrupts_its_blocking_work<R: Rt>() {
    let (service, work) = service();
    let server = Server::<R>::http(&service, Options::default());
    let mut leaving = server.connect();
    leaving.send(&call(7, "block"));
    work.expect_started_off_the_polling_thread();
    drop(leaving);
    work.expect_interrupted();
    let mut other = server.connect();
    other.send(&call(8, "block_panic"));
    other.expect(&json_response(
        "200 OK",
        "",
        r#"{"jsonrpc":"2.0","id":8,"error":{"code":-32603,"message":"Internal error"}}"#,
    ));
    drop(other);
    server.finish();
}
