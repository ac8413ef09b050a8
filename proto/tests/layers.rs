//! Layers around calls (`snodo_proto::layer`): what a layer sees, their
//! order, per service and per tool, tools added at run time, the place of
//! layers after authorization, and a tool's timeout as its call's
//! deadline. Literal JSON lines in over stdio, literal answers out.

mod support;

use std::sync::{Arc, Mutex};

use serde_json::Value;
use snodo_proto::layer::{self, Call, Timeout};
use snodo_proto::{
    Authorization, CallToolResult, Implementation, Kinds, NoArgs, Outcome, Principal, Rejection,
    Service, ServiceBuilder, Tool, Transport,
};
use support::Harness;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn call(id: u64, tool: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}},{META}}}}}"#
    ) + "\n"
}

fn text(id: u64, text: &str) -> Value {
    json(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"t","version":"1"}}}},"content":[{{"text":"{text}","type":"text"}}],"resultType":"complete"}}}}"#
    ))
}

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

/// A layer that writes `label>` with the call, then `label<` with the
/// outcome, into `log`.
fn logging(label: &'static str, log: &Arc<Mutex<Vec<String>>>) -> impl snodo_proto::Layer {
    let log = log.clone();
    layer::from_fn(move |call: Call| {
        let log = log.clone();
        log.lock().unwrap().push(format!(
            "{label}> {} {} {}",
            call.method(),
            call.name(),
            call.principal().map_or("-", |p| p.subject.as_str())
        ));
        async move {
            let outcome = call.run().await;
            let kind = match &outcome {
                Outcome::CallTool(r) if r.is_error == Some(true) => "tool_error",
                Outcome::CallTool(_) => "ok",
                Outcome::Error(e) => return_code(e.code),
                _ => "other",
            };
            log.lock().unwrap().push(format!("{label}< {kind}"));
            outcome
        }
    })
}

fn return_code(code: i64) -> &'static str {
    if code == -32602 {
        "-32602"
    } else {
        "error"
    }
}

fn builder() -> ServiceBuilder {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .tool(Tool::new("a", "A"), |_: NoArgs| async {
            CallToolResult::text("a")
        })
        .tool(Tool::new("b", "B"), |_: NoArgs| async {
            CallToolResult::error("b failed")
        })
}

#[test]
fn service_layers_wrap_tool_layers_and_the_first_added_is_outermost() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let service = builder()
        .layer(logging("outer", &log))
        .layer(logging("inner", &log))
        .tool_layer("b", logging("b1", &log))
        .tool_layer("b", logging("b2", &log))
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    assert_eq!(json(&h.send(call(1, "a").as_bytes())), text(1, "a"));
    assert_eq!(
        *log.lock().unwrap(),
        [
            "outer> tools/call a -",
            "inner> tools/call a -",
            "inner< ok",
            "outer< ok",
        ],
        "a has the service's layers only"
    );
    log.lock().unwrap().clear();
    let out = h.send(call(2, "b").as_bytes());
    assert_eq!(
        json(&out),
        json(
            r#"{"jsonrpc":"2.0","id":2,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"b failed","type":"text"}],"isError":true,"resultType":"complete"}}"#
        )
    );
    assert_eq!(
        *log.lock().unwrap(),
        [
            "outer> tools/call b -",
            "inner> tools/call b -",
            "b1> tools/call b -",
            "b2> tools/call b -",
            "b2< tool_error",
            "b1< tool_error",
            "inner< tool_error",
            "outer< tool_error",
        ]
    );
}

#[test]
fn a_layer_may_answer_in_the_handlers_place() {
    let service = builder()
        .tool_layer(
            "a",
            layer::from_fn(|_call: Call| async {
                Outcome::CallTool(CallToolResult::text("cached"))
            }),
        )
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    assert_eq!(json(&h.send(call(1, "a").as_bytes())), text(1, "cached"));
}

#[test]
fn a_tool_added_at_run_time_passes_through_the_services_and_its_own_layers() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .changing(Kinds::default().tools())
        .layer(logging("service", &log))
        .tool_layer("late", logging("late", &log))
        .build()
        .unwrap();
    service
        .registry()
        .change()
        .tool(Tool::new("late", "Added later"), |_: NoArgs| async {
            CallToolResult::text("late")
        })
        .commit()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    assert_eq!(json(&h.send(call(1, "late").as_bytes())), text(1, "late"));
    assert_eq!(
        *log.lock().unwrap(),
        [
            "service> tools/call late -",
            "late> tools/call late -",
            "late< ok",
            "service< ok",
        ]
    );
}

/// On stdio the caller is the stdio principal, holding `scopes`.
fn authorized(scopes: &[&str], log: &Arc<Mutex<Vec<String>>>) -> Service {
    let auth = Authorization::new("https://mcp.example.com/mcp", |_: &str| {
        Err::<Principal, _>(Rejection("no tokens here".into()))
    })
    .authorization_server("https://auth.example.com")
    .tool_scopes("a", ["tools:a"]);
    builder()
        .authorization(auth)
        .stdio_principal(Principal::new("ann", scopes.iter().copied()))
        .layer(logging("count", log))
        .build()
        .unwrap()
}

#[test]
fn a_call_refused_for_missing_scope_never_reaches_a_layer_and_an_admitted_one_does() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let service = authorized(&[], &log);
    let mut h = Harness::new(&service, Transport::Stdio);
    assert_eq!(
        json(&h.send(call(1, "a").as_bytes())),
        json(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Forbidden: the token lacks a required scope"}}"#
        )
    );
    assert!(log.lock().unwrap().is_empty(), "{:?}", log.lock().unwrap());

    let service = authorized(&["tools:a"], &log);
    let mut h = Harness::new(&service, Transport::Stdio);
    assert_eq!(json(&h.send(call(2, "a").as_bytes())), text(2, "a"));
    assert_eq!(
        *log.lock().unwrap(),
        ["count> tools/call a ann", "count< ok"],
        "the layer sees the principal's subject"
    );
}

#[test]
fn an_unknown_tool_never_reaches_a_layer() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let service = builder().layer(logging("count", &log)).build().unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    let out = json(&h.send(call(1, "nope").as_bytes()));
    assert_eq!(out["error"]["code"], -32602, "{out}");
    assert!(log.lock().unwrap().is_empty());
}

const TIMED_OUT: &str =
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Request timed out"}}"#;

/// A tool's timeout is its call's deadline in the connection's timers:
/// `slow` (1 s) times out long before `call_timeout` (300 s by default).
#[test]
fn a_tool_timeout_replaces_call_timeout_for_its_calls() {
    let service = builder()
        .tool_layer("a", Timeout::new(std::time::Duration::from_secs(1)))
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    h.run_handlers = false;
    assert_eq!(h.send(call(1, "a").as_bytes()), "");
    assert_eq!(h.advance(999), "", "not yet");
    assert_eq!(json(&h.advance(1)), json(TIMED_OUT));
    assert_eq!(h.cancelled.len(), 1, "the call is cancelled");

    // `b` keeps the service's call timeout.
    let mut h = Harness::new(&service, Transport::Stdio);
    h.run_handlers = false;
    assert_eq!(h.send(call(1, "b").as_bytes()), "");
    assert_eq!(h.advance(299_999), "");
    assert_eq!(json(&h.advance(1)), json(TIMED_OUT));
}

/// The innermost timeout decides: a tool's own may be longer than the
/// service's.
#[test]
fn a_tools_own_timeout_replaces_the_services() {
    let service = builder()
        .layer(Timeout::new(std::time::Duration::from_secs(1)))
        .tool_layer("a", Timeout::new(std::time::Duration::from_secs(10)))
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    h.run_handlers = false;
    assert_eq!(h.send(call(1, "a").as_bytes()), "");
    assert_eq!(h.advance(9_999), "");
    assert_eq!(json(&h.advance(1)), json(TIMED_OUT));

    let mut h = Harness::new(&service, Transport::Stdio);
    h.run_handlers = false;
    assert_eq!(h.send(call(1, "b").as_bytes()), "");
    assert_eq!(json(&h.advance(1_000)), json(TIMED_OUT));
}

/// The fields of the `snodo::audit` events seen, as `name=value` text.
#[derive(Default)]
struct AuditEvents(Mutex<Vec<Vec<String>>>);

struct Fields<'a>(&'a mut Vec<String>);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push(format!("{}={value:?}", field.name()));
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.push(format!("{}={value}", field.name()));
    }
}

impl tracing::Subscriber for AuditEvents {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        if event.metadata().target() == "snodo::audit" {
            let mut fields = Vec::new();
            event.record(&mut Fields(&mut fields));
            self.0.lock().unwrap().push(fields);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

static CLOCK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Each read is 250 ns after the last.
fn clock() -> u64 {
    CLOCK.fetch_add(250, std::sync::atomic::Ordering::Relaxed)
}

#[test]
fn audit_records_method_name_subject_outcome_and_duration_and_no_arguments() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .stdio_principal(Principal::new("ann", ["tools:a"]))
        .layer(layer::Audit::new().clock(clock))
        .layer(logging("seen", &log))
        .tool(Tool::new("a", "A"), |_: NoArgs| async {
            CallToolResult::text("a")
        })
        .tool(Tool::new("b", "B"), |_: NoArgs| async {
            CallToolResult::error("b failed")
        })
        .tool(Tool::new("s", "S"), |_: Value| async {
            CallToolResult::text("s")
        })
        .build()
        .unwrap();
    let events = Arc::new(AuditEvents::default());
    tracing::subscriber::with_default(events.clone(), || {
        let mut h = Harness::new(&service, Transport::Stdio);
        assert_eq!(json(&h.send(call(1, "a").as_bytes())), text(1, "a"));
        h.send(call(2, "b").as_bytes());
        h.send(
            call(3, "s")
                .replace(r#""arguments":{}"#, r#""arguments":{"password":"hunter2"}"#)
                .as_bytes(),
        );
    });
    let seen = events.0.lock().unwrap();
    assert_eq!(
        *seen,
        [
            [
                "message=call ended",
                "method=tools/call",
                "name=a",
                "subject=ann",
                "outcome=ok",
                "duration_ns=250",
            ],
            [
                "message=call ended",
                "method=tools/call",
                "name=b",
                "subject=ann",
                "outcome=tool_error",
                "duration_ns=250",
            ],
            [
                "message=call ended",
                "method=tools/call",
                "name=s",
                "subject=ann",
                "outcome=ok",
                "duration_ns=250",
            ],
        ],
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .flatten()
            .all(|f| !f.contains("password") && !f.contains("hunter2")),
        "no arguments are logged"
    );
}
