//! A deterministic world for Tasks tests: a service with a few tools made
//! task-capable, one stdio `Connection` fed literal request lines, and a
//! `TaskRunner` driven by hand. Time is a value; a run is held until the
//! test runs it, so races are played out in a chosen order.

#![allow(dead_code)]

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{
    CallToolResult, Connection, ElicitRequest, ErrorObject, Hub, Implementation, InputRequired,
    Instant, NullSink, Output, Reply, Service, Tool, Transport,
};
use snodo_tasks::{
    Lifecycle, RunnerConfig, RunnerOutput, Store, TaskRunner, TaskSupport, Tasks, Work,
};

/// 2026-07-28T00:00:00Z.
pub const T0: u64 = 1_785_196_800_000;

pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

#[derive(Deserialize, JsonSchema)]
struct Text {
    text: String,
}

fn confirm_schema() -> Value {
    json!({"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]})
}

/// Pending once (waking itself), then ready: a point where a test
/// driving a run by hand looks at the world mid-run.
pub struct Yield(bool);

impl Future for Yield {
    type Output = ();
    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if std::mem::replace(&mut self.0, true) {
            Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

/// The tools: `echo` (text back), `fail` (a JSON-RPC error), `oops` (a
/// tool error result), `ask` (one elicitation, then done), `ask_two` (two
/// at once), `must` (task required), `sync` (never a task), `steps`
/// (progress 1 of 3, a pause, 2 and 3 of 3, a pause, then done).
pub fn service_with(
    store: Arc<dyn Store>,
    hub: &Hub,
    principal_key: Option<&'static str>,
) -> Service {
    let mut tasks = Tasks::with_store(store)
        .lifecycle(Lifecycle {
            ttl: Some(Duration::from_secs(60)),
            poll_interval: Some(Duration::from_millis(250)),
            max_tasks: 100,
            max_rounds: 8,
        })
        .tool("echo", TaskSupport::Optional)
        .tool("fail", TaskSupport::Optional)
        .tool("oops", TaskSupport::Optional)
        .tool("ask", TaskSupport::Optional)
        .tool("ask_two", TaskSupport::Optional)
        .tool("must", TaskSupport::Required)
        .tool("steps", TaskSupport::Optional);
    if let Some(key) = principal_key {
        tasks = tasks.principal(move |meta| {
            meta.raw()
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("anonymous")
                .to_string()
        });
    }
    let text_schema =
        json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]});
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .hub(hub.clone())
        .tool(
            Tool::new("echo", "Echoes").input_schema(text_schema.clone()),
            |a: Text| async move { CallToolResult::text(a.text) },
        )
        .tool(
            Tool::new("fail", "Fails with a protocol error"),
            |_: snodo_proto::NoArgs| async {
                Err::<CallToolResult, _>(ErrorObject::internal("Upstream API rate limit exceeded"))
            },
        )
        .tool(
            Tool::new("oops", "Fails as a tool"),
            |_: snodo_proto::NoArgs| async {
                Err::<CallToolResult, _>("Failed to process request: invalid input")
            },
        )
        .tool(
            Tool::new("ask", "Asks to confirm"),
            |_: snodo_proto::NoArgs, ctx: snodo_proto::Context| async move {
                match ctx.elicitation("confirm") {
                    Some(r) if r.is_accepted() => {
                        Reply::Complete(CallToolResult::text("confirmed"))
                    }
                    Some(_) => Reply::Complete(CallToolResult::text("declined")),
                    None => Reply::InputRequired(
                        InputRequired::new()
                            .elicit("confirm", ElicitRequest::form("Really?", confirm_schema())),
                    ),
                }
            },
        )
        .tool(
            Tool::new("ask_two", "Asks twice at once"),
            |_: snodo_proto::NoArgs, ctx: snodo_proto::Context| async move {
                match (ctx.elicitation("first"), ctx.elicitation("second")) {
                    (Some(_), Some(_)) => Reply::Complete(CallToolResult::text("both")),
                    _ => Reply::InputRequired(
                        InputRequired::new()
                            .elicit("first", ElicitRequest::form("First?", confirm_schema()))
                            .elicit("second", ElicitRequest::form("Second?", confirm_schema())),
                    ),
                }
            },
        )
        .tool(
            Tool::new("must", "Only as a task"),
            |_: snodo_proto::NoArgs| async { CallToolResult::text("ran") },
        )
        .tool(
            Tool::new("steps", "Reports progress in three steps"),
            |_: snodo_proto::NoArgs, ctx: snodo_proto::Context| async move {
                let step =
                    |n: u32| ctx.progress(f64::from(n), Some(3.0), Some(format!("{n} of 3 steps")));
                step(1);
                Yield(false).await;
                step(2);
                step(3);
                Yield(false).await;
                CallToolResult::text("stepped")
            },
        )
        .tool(
            Tool::new("sync", "Never a task"),
            |_: snodo_proto::NoArgs| async { CallToolResult::text("sync") },
        )
        .extension(tasks.build())
        .build()
        .expect("the test service builds")
}

pub fn runner_config() -> RunnerConfig {
    RunnerConfig {
        max_concurrent: 4,
        lease: Duration::from_secs(10),
        renew_every: Duration::from_secs(3),
        scan_every: Duration::from_secs(1),
        reap_every: Duration::from_secs(30),
    }
}

pub struct World {
    pub service: Service,
    pub hub: Hub,
    pub conn: Connection,
    pub runner: TaskRunner,
    pub now: Instant,
    /// Runs handed out and not yet run.
    pub held: Vec<Work>,
    /// Runs the runner aborted.
    pub aborted: Vec<snodo_tasks::WorkId>,
    /// Runs started by [`World::start_held`] and not finished.
    pub started: Vec<(
        snodo_tasks::WorkId,
        snodo_proto::BoxFuture<snodo_proto::Outcome>,
    )>,
}

impl World {
    pub fn new(store: Arc<dyn Store>) -> World {
        Self::with_principal(store, None)
    }

    pub fn with_principal(store: Arc<dyn Store>, key: Option<&'static str>) -> World {
        let hub = Hub::default();
        let service = service_with(store, &hub, key);
        let now = Instant::from_millis(T0);
        World {
            conn: Connection::new(&service, Transport::Stdio, now),
            runner: TaskRunner::new(&service, runner_config()).expect("runner"),
            service,
            hub,
            now,
            held: Vec::new(),
            aborted: Vec::new(),
            started: Vec::new(),
        }
    }

    /// A second runner on the same service (another worker).
    pub fn other_runner(&self) -> TaskRunner {
        TaskRunner::new(&self.service, runner_config()).expect("runner")
    }

    /// Feed one request line; run what it invokes; return every message
    /// written, parsed.
    pub fn send(&mut self, line: &str) -> Vec<Value> {
        let mut line = line.to_string();
        line.push('\n');
        self.conn.handle_input(line.as_bytes(), self.now);
        self.drain_conn()
    }

    pub fn drain_conn(&mut self) -> Vec<Value> {
        let mut written = Vec::new();
        while let Some(out) = self.conn.poll_output() {
            match out {
                Output::Transmit(b) => written.extend_from_slice(&b),
                Output::Invoke(inv) => {
                    let call = inv.call;
                    let outcome = block_on(inv.run(Arc::new(NullSink)));
                    let _ = self.conn.complete(call, outcome, self.now);
                }
                Output::Cancel(_) | Output::Close | Output::Respond(_) => {}
            }
        }
        String::from_utf8(written)
            .expect("UTF-8")
            .lines()
            .map(|l| serde_json::from_str(l).expect("each line is JSON"))
            .collect()
    }

    /// One answer to one request.
    pub fn call(&mut self, line: &str) -> Value {
        let mut out = self.send(line);
        assert_eq!(out.len(), 1, "one message expected: {out:?}");
        out.remove(0)
    }

    /// Let the runner act at the current time; hold what it hands out.
    pub fn tick(&mut self) {
        self.runner.handle_timeout(self.now);
        self.collect();
    }

    fn collect(&mut self) {
        while let Some(o) = self.runner.poll_output() {
            match o {
                RunnerOutput::Run(w) => self.held.push(w),
                RunnerOutput::Abort(id) => {
                    self.aborted.push(id);
                    self.held.retain(|w| w.id != id);
                }
            }
        }
    }

    /// Run every held run to completion and report it.
    pub fn run_held(&mut self) {
        for w in std::mem::take(&mut self.held) {
            let id = w.id;
            let outcome = block_on(w.run());
            self.runner.complete(id, outcome, self.now);
        }
        self.collect();
    }

    /// Start every held run: poll each once, and keep it.
    pub fn start_held(&mut self) {
        for w in std::mem::take(&mut self.held) {
            self.started.push((w.id, w.run()));
        }
        self.poll_started();
    }

    /// Poll every started run once; report those that finished.
    pub fn poll_started(&mut self) {
        let mut cx = Context::from_waker(Waker::noop());
        for (id, mut run) in std::mem::take(&mut self.started) {
            match run.as_mut().poll(&mut cx) {
                Poll::Ready(outcome) => self.runner.complete(id, outcome, self.now),
                Poll::Pending => self.started.push((id, run)),
            }
        }
        self.collect();
    }

    /// Tick and run until nothing is handed out.
    pub fn settle(&mut self) {
        for _ in 0..16 {
            self.tick();
            if self.held.is_empty() {
                return;
            }
            self.run_held();
        }
        panic!("the runner never settled");
    }

    pub fn advance(&mut self, ms: u64) {
        self.now = Instant::from_nanos(self.now.as_nanos() + ms * 1_000_000);
    }
}

pub const DECLARED: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;
pub const PLAIN: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;

pub fn req(id: u64, method: &str, params: &str, meta: &str) -> String {
    let sep = if params.is_empty() { "" } else { "," };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}{sep}{meta}}}}}"#)
}

/// Parse a literal, with `{id}` replaced by `task`.
pub fn lit(text: &str, task: &str) -> Value {
    serde_json::from_str(&text.replace("{id}", task)).expect("literal is JSON")
}

/// The taskId of a CreateTaskResult response.
pub fn task_id(response: &Value) -> String {
    response["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("no taskId in {response}"))
        .to_string()
}
