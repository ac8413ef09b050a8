//! The Tasks-extension tools (`SCENARIOS-2026-07-28.md` § 2.2,
//! "Tasks-extension tools"; scenarios `tasks-*`, § 3.38–3.47) and the task
//! runner the fixture drives on whichever runtime serves it.
//!
//! Task tools are ordinary handlers: the extension ([`snodo_tasks`])
//! decides per request whether a call becomes a task, and the runner runs
//! the same handler later. A handler asking for input does so through
//! [`InputRequired`] either way: synchronously that is an MRTR round,
//! inside a task it surfaces in `tasks/get` and is answered by
//! `tasks/update` (`confirm_delete` works both ways).

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{
    CallToolResult, Context, ElicitAction, ElicitRequest, ErrorObject, InputRequired, NoArgs,
    Reply, Service, ServiceBuilder, Tool,
};
use snodo_tasks::drive::{Driver, Spawn};
use snodo_tasks::{RunnerConfig, Store, TaskRunner, TaskSupport, Tasks};

use crate::timer::Delay;

/// How long `failing_job` works before failing
/// (`SCENARIOS-2026-07-28.md` § 2.2: "after ~1 s").
const FAILING_JOB_DELAY: Duration = Duration::from_secs(1);

/// The longest `slow_compute` may be asked to sleep (its schema's `maximum`).
const MAX_SECONDS: f64 = 3600.0;

type ToolReply = Reply<CallToolResult>;

#[derive(Deserialize, JsonSchema)]
struct Greet {
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct Compute {
    seconds: f64,
    #[serde(default)]
    label: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct Filename {
    filename: String,
}

fn form(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required})
}

/// `greet`: synchronous only, never a task (a legacy `task` param is just
/// an unknown member and ignored).
async fn greet(a: Greet, _: Context) -> CallToolResult {
    CallToolResult::text(format!("Hello, {}!", a.name))
}

/// `slow_compute`: sleeps `seconds`, then reports. Task-capable but
/// optional. A cancelled run's future is dropped, which ends the wait.
async fn slow_compute(a: Compute, _: Context) -> CallToolResult {
    Delay::new(Duration::from_secs_f64(a.seconds.clamp(0.0, MAX_SECONDS))).await;
    let label = a.label.as_deref().unwrap_or("slow_compute");
    CallToolResult::text(format!("{label}: computed after {}s", a.seconds))
}

/// `failing_job`: works ~1 s, then ends with a tool error (`isError`):
/// the task is `completed`, never `failed` (`tasks.md` § Task Execution
/// Errors).
async fn failing_job(_: NoArgs, _: Context) -> Result<CallToolResult, String> {
    Delay::new(FAILING_JOB_DELAY).await;
    Err(String::from(
        "The job failed: the input could not be processed",
    ))
}

/// `protocol_error_job`: ends with a JSON-RPC error: the task is `failed`.
async fn protocol_error_job(_: NoArgs, _: Context) -> Result<CallToolResult, ErrorObject> {
    Err(ErrorObject::internal("The job hit an internal error"))
}

/// `confirm_delete`: asks to confirm through one elicitation, then
/// "deletes" (nothing is touched).
async fn confirm_delete(a: Filename, ctx: Context) -> ToolReply {
    match ctx.elicitation("confirm") {
        Some(r) if r.action == ElicitAction::Accept => {
            let yes = r
                .content
                .as_ref()
                .and_then(|c| c.get("confirm"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let text = if yes {
                format!("Deleted {}", a.filename)
            } else {
                format!("Kept {}", a.filename)
            };
            Reply::Complete(CallToolResult::text(text))
        }
        Some(_) => Reply::Complete(CallToolResult::text(format!("Kept {}", a.filename))),
        None => Reply::InputRequired(InputRequired::new().elicit(
            "confirm",
            ElicitRequest::form(
                format!("Delete {}?", a.filename),
                form(json!({"confirm": {"type": "boolean"}}), &["confirm"]),
            ),
        )),
    }
}

/// `multi_input`: two elicitations outstanding at once under distinct
/// keys; completes once both are answered.
async fn multi_input(_: NoArgs, ctx: Context) -> ToolReply {
    let schema = || {
        form(
            json!({"name": {"type": "string"}, "confirm": {"type": "boolean"}}),
            &[],
        )
    };
    let named = |r: &snodo_proto::ElicitResult| {
        r.content
            .as_ref()
            .and_then(|c| c.get("name"))
            .and_then(Value::as_str)
            .map_or_else(|| format!("{:?}", r.action), String::from)
    };
    match (ctx.elicitation("first"), ctx.elicitation("second")) {
        (Some(a), Some(b)) => Reply::Complete(CallToolResult::text(format!(
            "Received {} and {}",
            named(&a),
            named(&b)
        ))),
        _ => Reply::InputRequired(
            InputRequired::new()
                .elicit(
                    "first",
                    ElicitRequest::form("First input, please.", schema()),
                )
                .elicit(
                    "second",
                    ElicitRequest::form("Second input, please.", schema()),
                ),
        ),
    }
}

/// `test_tool_with_task`: MRTR first (asks for a name synchronously), then
/// a task that greets with it (`tasks.md` § Task Creation: MRTR exchanges
/// resolved before the `CreateTaskResult`).
async fn test_tool_with_task(_: NoArgs, ctx: Context) -> ToolReply {
    let name = ctx
        .elicitation("name")
        .and_then(|r| r.content_as::<Value>())
        .and_then(|c| c.get("name").and_then(Value::as_str).map(String::from));
    match name {
        Some(name) => Reply::Complete(CallToolResult::text(format!("Hello, {name}!"))),
        None => Reply::InputRequired(InputRequired::new().elicit(
            "name",
            ElicitRequest::form(
                "What is your name?",
                form(json!({"name": {"type": "string"}}), &["name"]),
            ),
        )),
    }
}

/// Register the tools (after every other fixture tool) and install the
/// extension over `store` (with the crash drill's hook, if armed).
pub fn register(builder: ServiceBuilder, store: Arc<dyn Store>) -> ServiceBuilder {
    let mut tasks = Tasks::with_store(store);
    if let Some(hook) = crate::drill::from_env() {
        tasks = tasks.fault_hook(hook);
    }
    let tasks = tasks
        .tool("slow_compute", TaskSupport::Optional)
        .tool("failing_job", TaskSupport::Required)
        .tool("protocol_error_job", TaskSupport::Required)
        .tool("confirm_delete", TaskSupport::Optional)
        .tool("multi_input", TaskSupport::Required)
        .tool_when("test_tool_with_task", TaskSupport::Optional, |call| {
            call.round.elicitation("name").is_some()
        });
    builder
        .tool(
            Tool::new("greet", "Greets by name, synchronously").input_schema(json!({
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
                "additionalProperties": false
            })),
            greet,
        )
        .tool(
            Tool::new(
                "slow_compute",
                "Sleeps for the given seconds, then reports; runs as a task when the client supports tasks",
            )
            .input_schema(json!({
                "type": "object",
                "properties": {
                    "seconds": {"type": "number", "minimum": 0, "maximum": 3600},
                    "label": {"type": "string"}
                },
                "required": ["seconds"],
                "additionalProperties": false
            })),
            slow_compute,
        )
        .tool(
            Tool::new("failing_job", "A task that ends with a tool error after about a second"),
            failing_job,
        )
        .tool(
            Tool::new("protocol_error_job", "A task that ends with a JSON-RPC error"),
            protocol_error_job,
        )
        .tool(
            Tool::new("confirm_delete", "Asks to confirm, then pretends to delete a file")
                .input_schema(json!({
                    "type": "object",
                    "properties": {"filename": {"type": "string"}},
                    "required": ["filename"],
                    "additionalProperties": false
                })),
            confirm_delete,
        )
        .tool(
            Tool::new("multi_input", "A task asking for two inputs at once"),
            multi_input,
        )
        .tool(
            Tool::new(
                "test_tool_with_task",
                "Asks for a name (multi round-trip), then greets in a task",
            ),
            test_tool_with_task,
        )
        .extension(tasks.build())
}

/// The task store: a [`DiskStore`](snodo_tasks::DiskStore) in
/// `SNODO_TASKS_DIR` if set (with the crash drill's hook, if armed),
/// otherwise memory.
pub fn store_from_env() -> Result<Arc<dyn Store>, snodo_tasks::StoreError> {
    match std::env::var_os("SNODO_TASKS_DIR") {
        Some(dir) if !dir.is_empty() => {
            let mut store = snodo_tasks::DiskStore::open(std::path::PathBuf::from(dir))?;
            if let Some(hook) = crate::drill::from_env() {
                store = store.with_fault_hook(hook);
            }
            tracing::info!(dir = %store.dir().display(), "tasks kept on disk");
            Ok(Arc::new(store))
        }
        _ => Ok(Arc::new(snodo_tasks::MemoryStore::new())),
    }
}

/// The fixture's runner settings: a short lease, so a task whose process
/// was killed is recovered within seconds by the next process on the same
/// store.
pub fn runner_config() -> RunnerConfig {
    RunnerConfig {
        max_concurrent: 32,
        lease: Duration::from_secs(3),
        renew_every: Duration::from_secs(1),
        scan_every: Duration::from_millis(500),
        reap_every: Duration::from_secs(60),
    }
}

/// Run `service`'s task runner with `spawn` until the returned driver is
/// dropped; `None` (logged) if it cannot start.
pub fn run(service: &Service, spawn: Spawn) -> Option<Driver> {
    let runner = match TaskRunner::new(service, runner_config()) {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(error = %e, "no task runner");
            return None;
        }
    };
    match snodo_tasks::drive::start(runner, spawn) {
        Ok(d) => Some(d),
        Err(e) => {
            tracing::error!(error = %e, "cannot start the task runner");
            None
        }
    }
}
