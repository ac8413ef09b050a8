//! The service every generated sequence runs against: small limits (so
//! queues fill, lines overflow and deadlines pass within a few operations),
//! every kind of registration, handlers the driver answers by hand and a
//! few real ones, and fixed request-state keys.

use serde_json::json;
use snodo_proto::{
    CallToolResult, ElicitRequest, HostPolicy, HttpConfig, Hub, Implementation, InputRequired,
    Limits, LogLevel, Notifications, OriginPolicy, Overflow, Prompt, PromptArgument, Reply,
    Resource, ResourceTemplate, Service, StateKeys, Tool, ToolError,
};
use std::time::Duration;

pub const MAX_MESSAGE: usize = 1024;
pub const MAX_CONCURRENT: usize = 2;
pub const MAX_QUEUED: usize = 3;
pub const MAX_SUBSCRIPTIONS: usize = 2;
pub const CALL_TIMEOUT: Duration = Duration::from_secs(5);
pub const KEEP_ALIVE: Duration = Duration::from_secs(1);
pub const MAX_HEAD: usize = 768;
pub const MAX_HEADERS: usize = 12;
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(6);
pub const STATE_TTL: Duration = Duration::from_secs(30);

/// Calls still running this long after stdio EOF or shutdown are given up.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

pub fn limits() -> Limits {
    Limits::default()
        .max_message_bytes(MAX_MESSAGE)
        .max_concurrent_calls(MAX_CONCURRENT)
        .max_queued_calls(MAX_QUEUED)
        .call_timeout(Some(CALL_TIMEOUT))
        .page_size(2)
        .max_subscriptions(MAX_SUBSCRIPTIONS)
        .heartbeat(KEEP_ALIVE)
        .max_sessions(4)
        .session_idle_timeout(Duration::from_secs(60))
        .shutdown_grace(SHUTDOWN_GRACE)
        .close_linger(Duration::from_secs(2))
        .max_pending_reports(8)
}

pub fn http_config() -> HttpConfig {
    HttpConfig::default()
        .endpoint(String::from("/mcp"))
        .origins(OriginPolicy::Loopback)
        .hosts(HostPolicy::Loopback)
        .max_head_bytes(MAX_HEAD)
        .max_headers(MAX_HEADERS)
        .head_timeout(REQUEST_TIMEOUT)
        .request_timeout(REQUEST_TIMEOUT)
        .idle_timeout(IDLE_TIMEOUT)
        .session_route(None)
}

/// Tools answered by the driver (no handler).
pub const DECLARED_TOOLS: &[&str] = &["a", "b", "typed", "hdr"];
/// Tools with real handlers.
pub const HANDLED_TOOLS: &[&str] = &["echo", "report", "ask"];

/// The service and the hub its listen streams receive events from.
pub fn service() -> (Service, Hub) {
    service_with(limits())
}

/// The same registrations with other limits.
pub fn service_with(limits: Limits) -> (Service, Hub) {
    let hub = Hub::new(3, Overflow::DropOldest);
    // The model and its oracles are those of the stateless revision; the
    // initialize-era dialects have their own tests (`tests/legacy.rs`).
    let service = Service::builder()
        .dialects([snodo_proto::Dialect::V2026_07_28])
        .server_info(Implementation::new("machine", "1"))
        .limits(limits)
        .http(http_config())
        .logging()
        .notifications(Notifications::default().tools_list_changed().prompts_list_changed().resources_list_changed().resource_updates())
        .hub(hub.clone())
        .state_keys(StateKeys::new([7u8; 32]))
        .request_state_ttl(STATE_TTL)
        .tool_declared(Tool::new("a", "Answered by hand").input_schema(json!({"type": "object"})))
        .tool_declared(Tool::new("b", "Answered by hand, no arguments"))
        .tool_declared(
            Tool::new("typed", "Typed input and output")
                .input_schema(json!({
                    "type": "object",
                    "properties": {"n": {"type": "integer"}},
                    "required": ["n"]
                }))
                .output_schema(json!({
                    "type": "object",
                    "properties": {"sum": {"type": "integer"}},
                    "required": ["sum"]
                })),
        )
        .tool_declared(Tool::new("hdr", "Mirrored parameter").input_schema(json!({
            "type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}
        })))
        .tool(
            Tool::new("echo", "Echo").input_schema(json!({
                "type": "object",
                "properties": {"text": {"type": "string"}}
            })),
            |args: serde_json::Map<String, serde_json::Value>| async move {
                CallToolResult::text(
                    args.get("text")
                        .and_then(|t| t.as_str())
                        .unwrap_or("")
                        .to_string(),
                )
            },
        )
        .tool(Tool::new("report", "Progress and logs"), |_: snodo_proto::NoArgs, ctx: snodo_proto::Context| async move {
            ctx.progress(1.0, Some(2.0), Some(String::from("half")));
            ctx.log(LogLevel::Info, Some("machine"), json!({"step": 1}));
            ctx.progress(2.0, Some(2.0), None);
            CallToolResult::text("reported")
        })
        .tool(Tool::new("ask", "Asks for a name"), |_: snodo_proto::NoArgs, ctx: snodo_proto::Context| async move {
            if let Some(answer) = ctx.elicitation("name") {
                let name = answer
                    .content_as::<serde_json::Value>()
                    .and_then(|c| c.get("name").and_then(|n| n.as_str()).map(String::from))
                    .unwrap_or_default();
                return Ok::<_, ToolError>(Reply::Complete(CallToolResult::text(name)));
            }
            Ok(Reply::InputRequired(
                InputRequired::new()
                    .elicit(
                        "name",
                        ElicitRequest::form(
                            "Name?",
                            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
                        ),
                    )
                    .state(&json!({"round": 1})),
            ))
        })
        .resource_declared(Resource::new("file:///a.txt", "a"))
        .resource_template_declared(ResourceTemplate::new("note://{id}", "note"))
        .resource_template_declared(ResourceTemplate::new("tree://{+path}/{name}.txt", "tree"))
        .prompt_declared(
            Prompt::new("p", "A prompt").argument(PromptArgument::required("x", "Needed")),
        )
        .completer_declared()
        .build()
        .expect("the machine fixture builds");
    (service, hub)
}
