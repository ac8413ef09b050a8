//! The service every test serves, with tools that exercise what a runtime
//! adds (concurrency, cancellation, panics, progress, output volume), and
//! the probes through which the tests watch its handlers. Handlers await
//! only runtime-free futures (a latch, a timer thread), so the same
//! service runs unchanged on every runtime.

use std::future::Future;
use std::pin::Pin;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Waker};
use std::thread;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::json;
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{
    CallToolResult, Context, Implementation, Limits, NoArgs, Service, ServiceBuilder, Tool,
};

/// The bound on anything that should happen "soon".
pub const SOON: Duration = Duration::from_secs(5);

/// Limits for the tests: the defaults, with a short lingering close so
/// that closes and shutdowns end quickly.
pub fn limits() -> Limits {
    Limits::default().close_linger(Duration::from_millis(200))
}

/// The test's side of the probe tools.
pub struct Probes {
    /// Releases every `wait` and `step` call, now and later.
    pub latch: Latch,
    /// The tool's name, when a `wait`, `step`, `hang` or `flood` call starts.
    pub started: Receiver<&'static str>,
    /// The tool's name and whether its call was flagged cancelled, when a
    /// `hang` or `flood` call's future is dropped.
    pub dropped: Receiver<(&'static str, bool)>,
}

impl Probes {
    /// The next call to start is `tool`'s.
    pub fn expect_started(&self, tool: &str) {
        match self.started.recv_timeout(SOON) {
            Ok(started) => assert_eq!(started, tool, "the call that started"),
            Err(e) => panic!("no call started within {SOON:?} ({e}); expected {tool}"),
        }
    }

    /// The next handler future dropped is `tool`'s, with its call flagged
    /// cancelled first.
    pub fn expect_dropped(&self, tool: &str) {
        match self.dropped.recv_timeout(SOON) {
            Ok((dropped, flagged)) => {
                assert_eq!(dropped, tool, "the handler dropped");
                assert!(
                    flagged,
                    "{tool}'s call is flagged cancelled before its future is dropped"
                );
            }
            Err(e) => panic!("{tool}'s handler was not dropped within {SOON:?} ({e})"),
        }
    }

    /// No handler future is dropped for `period`.
    pub fn expect_none_dropped(&self, period: Duration) {
        if let Ok((tool, _)) = self.dropped.recv_timeout(period) {
            panic!("{tool}'s handler was dropped");
        }
    }
}

#[derive(Clone)]
struct Tools {
    latch: Latch,
    started: Sender<&'static str>,
    dropped: Sender<(&'static str, bool)>,
}

/// Reports, when dropped with the handler's future, whether its call was
/// flagged cancelled.
struct DropProbe {
    tool: &'static str,
    ctx: Context,
    dropped: Sender<(&'static str, bool)>,
}

impl Drop for DropProbe {
    fn drop(&mut self) {
        let _ = self.dropped.send((self.tool, self.ctx.is_cancelled()));
    }
}

#[derive(Deserialize, JsonSchema)]
struct Text {
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct SleepArgs {
    ms: u64,
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct FloodArgs {
    count: u32,
    bytes: usize,
}

/// The test service with `limits`.
///
/// - `echo {text}` answers `text`; `sleep {ms, text}` answers it after `ms`.
/// - `wait` answers "released" once the latch is released; `step` first
///   reports progress "waiting".
/// - `hang` never answers; `flood {count, bytes}` first reports progress
///   `count` times with a message of `bytes` bytes.
/// - `boom` panics; `progress` reports 1/2 ("half") and 2/2, then answers "done".
pub fn service(limits: Limits) -> (Service, Probes) {
    service_with(limits, |b| b)
}

/// [`service`], with more set on its builder.
pub fn service_with(
    limits: Limits,
    more: impl FnOnce(ServiceBuilder) -> ServiceBuilder,
) -> (Service, Probes) {
    let (started_tx, started) = mpsc::channel();
    let (dropped_tx, dropped) = mpsc::channel();
    let latch = Latch::default();
    let tools = Tools {
        latch: latch.clone(),
        started: started_tx,
        dropped: dropped_tx,
    };
    let text = json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]});
    let sleep_schema = json!({
        "type":"object",
        "properties":{"ms":{"type":"integer","minimum":0},"text":{"type":"string"}},
        "required":["ms","text"]
    });
    let flood_schema = json!({
        "type":"object",
        "properties":{"count":{"type":"integer","minimum":0},"bytes":{"type":"integer","minimum":0}},
        "required":["count","bytes"]
    });
    let (wait, step, hang, flood) = (tools.clone(), tools.clone(), tools.clone(), tools);
    let builder = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .limits(limits)
        .tool(
            Tool::new("echo", "Echo the text").input_schema(text),
            |a: Text| async move { CallToolResult::text(a.text) },
        )
        .tool(
            Tool::new("sleep", "Answer the text after ms milliseconds").input_schema(sleep_schema),
            |a: SleepArgs| async move {
                sleep(Duration::from_millis(a.ms)).await;
                CallToolResult::text(a.text)
            },
        )
        .tool(
            Tool::new("wait", "Answer once the test releases the latch"),
            move |_: NoArgs| {
                let (latch, started) = (wait.latch.clone(), wait.started.clone());
                async move {
                    let _ = started.send("wait");
                    latch.wait().await;
                    CallToolResult::text("released")
                }
            },
        )
        .tool(
            Tool::new("step", "Report progress, then answer once released"),
            move |_: NoArgs, ctx: Context| {
                let (latch, started) = (step.latch.clone(), step.started.clone());
                async move {
                    ctx.progress(1.0, None, Some("waiting".into()));
                    let _ = started.send("step");
                    latch.wait().await;
                    CallToolResult::text("released")
                }
            },
        )
        .tool(
            Tool::new("hang", "Never answer"),
            move |_: NoArgs, ctx: Context| {
                let probe = DropProbe {
                    tool: "hang",
                    ctx,
                    dropped: hang.dropped.clone(),
                };
                let started = hang.started.clone();
                async move {
                    let _probe = probe;
                    let _ = started.send("hang");
                    std::future::pending::<CallToolResult>().await
                }
            },
        )
        .tool(
            Tool::new("flood", "Report progress count times, then never answer")
                .input_schema(flood_schema),
            move |a: FloodArgs, ctx: Context| {
                let started = flood.started.clone();
                let dropped = flood.dropped.clone();
                async move {
                    let message = "x".repeat(a.bytes);
                    for i in 1..=a.count {
                        ctx.progress(f64::from(i), None, Some(message.clone()));
                    }
                    let _probe = DropProbe {
                        tool: "flood",
                        ctx,
                        dropped,
                    };
                    let _ = started.send("flood");
                    std::future::pending::<CallToolResult>().await
                }
            },
        )
        .tool(Tool::new("boom", "Panic"), |_: NoArgs| async move {
            if true {
                panic!("the boom tool panics on purpose");
            }
            CallToolResult::text("unreachable")
        })
        .tool(
            Tool::new("progress", "Report progress twice, then answer"),
            |_: NoArgs, ctx: Context| async move {
                ctx.progress(1.0, Some(2.0), Some("half".into()));
                sleep(Duration::from_millis(1)).await;
                ctx.progress(2.0, Some(2.0), None);
                CallToolResult::text("done")
            },
        );
    let service = more(builder).build().expect("the test service builds");
    (
        service,
        Probes {
            latch,
            started,
            dropped,
        },
    )
}

/// A future that resolves once released; clones share the latch.
#[derive(Clone, Default)]
pub struct Latch(Arc<Mutex<(bool, Vec<Waker>)>>);

impl Latch {
    pub fn release(&self) {
        let wakers = {
            let mut s = self.0.lock().unwrap();
            s.0 = true;
            std::mem::take(&mut s.1)
        };
        for w in wakers {
            w.wake();
        }
    }

    pub fn wait(&self) -> impl Future<Output = ()> + Send + 'static {
        let latch = self.clone();
        std::future::poll_fn(move |cx| {
            let mut s = latch.0.lock().unwrap();
            if s.0 {
                return Poll::Ready(());
            }
            s.1.push(cx.waker().clone());
            Poll::Pending
        })
    }
}

/// A timer future woken by a thread of its own, on no runtime.
fn sleep(d: Duration) -> Sleep {
    Sleep {
        until: Instant::now() + d,
        waker: None,
    }
}

struct Sleep {
    until: Instant,
    waker: Option<Arc<Mutex<Waker>>>,
}

impl Future for Sleep {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if Instant::now() >= self.until {
            return Poll::Ready(());
        }
        match &self.waker {
            // Wake the latest poll's task: a call's first poll is inline.
            Some(slot) => *slot.lock().unwrap() = cx.waker().clone(),
            None => {
                let slot = Arc::new(Mutex::new(cx.waker().clone()));
                self.waker = Some(slot.clone());
                let until = self.until;
                thread::spawn(move || {
                    thread::sleep(until.saturating_duration_since(Instant::now()));
                    slot.lock().unwrap().wake_by_ref();
                });
            }
        }
        Poll::Pending
    }
}
