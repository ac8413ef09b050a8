//! The `mcp.call` span each handler call runs in: its fields, the
//! caller's trace context, and never the arguments or results. Alone in
//! its binary: `tracing` caches each callsite's interest process-wide, so
//! a test running beside it without the subscriber could hide its spans.

mod support;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use snodo_proto::Hub;
use snodo_testkit::{block_on, TestClient};
use support::service;

/// Records every `mcp.call` span's fields, and each event's parent span.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<Vec<BTreeMap<String, String>>>>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
}

impl tracing::Subscriber for Spans {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attrs: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut spans = self.0.lock().unwrap();
        let mut fields = BTreeMap::new();
        fields.insert("name".to_string(), attrs.metadata().name().to_string());
        fields.insert("opened_us".to_string(), since_start().to_string());
        attrs.record(&mut Fields(&mut fields));
        spans.push(fields);
        tracing::span::Id::from_u64(spans.len() as u64)
    }
    fn record(&self, span: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut spans = self.0.lock().unwrap();
        let fields = &mut spans[span.into_u64() as usize - 1];
        values.record(&mut Fields(fields));
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
    fn try_close(&self, span: tracing::span::Id) -> bool {
        let mut spans = self.0.lock().unwrap();
        let fields = &mut spans[span.into_u64() as usize - 1];
        fields.insert("closed".into(), "true".into());
        // Its duration, as a subscriber measures it (proto reads no clock).
        let opened: u128 = fields["opened_us"].parse().unwrap();
        fields.insert("lived_us".into(), (since_start() - opened).to_string());
        true
    }
}

/// Microseconds since the first call.
fn since_start() -> u128 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_micros()
}

#[test]
fn a_call_span_lasts_as_long_as_its_handler_runs() {
    use snodo_proto::{Context, NoArgs, Service, Tool};
    let spans = Spans::default();
    let _guard = tracing::subscriber::set_default(spans.clone());
    let service = Service::builder()
        .tool(
            Tool::new("nap", "Sleeps 40 ms"),
            |_: NoArgs, _: Context| async {
                std::thread::sleep(std::time::Duration::from_millis(40));
                "awake"
            },
        )
        .build()
        .unwrap();
    let mut client = TestClient::new(&service);
    block_on(client.call_tool("nap", json!({}))).unwrap();
    let recorded = spans.0.lock().unwrap().clone();
    let call = recorded
        .iter()
        .find(|f| f.get("name").map(String::as_str) == Some("mcp.call"))
        .expect("the call's span");
    assert_eq!(
        (call["tool"].as_str(), call["outcome"].as_str()),
        ("nap", "ok")
    );
    let lived: u128 = call["lived_us"].parse().unwrap();
    assert!(lived >= 40_000, "the span lived {lived} µs");
}

#[test]
fn every_handler_call_runs_in_a_span_with_its_outcome_and_trace_parent_and_no_arguments() {
    let spans = Spans::default();
    let _guard = tracing::subscriber::set_default(spans.clone());
    let mut client = TestClient::new(&service(Hub::default())).with_meta(
        "traceparent",
        json!("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    );
    let pending = block_on(client.call_tool_rounds("greet", json!({})))
        .unwrap()
        .input_required();
    block_on(client.retry(
        pending,
        json!({"who": {"action": "accept", "content": {"name": "Secret Agent"}}}),
    ))
    .unwrap();
    block_on(client.call_tool("count", json!({}))).unwrap();
    block_on(client.get_prompt("essay", json!({"topic": "classified"}))).unwrap();
    block_on(client.read_resource("mem://gone")).unwrap_err();
    client.send_line(r#"{"jsonrpc":"2.0","id":"f","method":"tools/call","params":{"name":"forever","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    client.send_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"f"}}"#,
    );
    // Driving the connection ends the cancelled call's task.
    assert_eq!(client.take_notifications(), Vec::<Value>::new());

    let recorded = spans.0.lock().unwrap().clone();
    let calls: Vec<Vec<(&str, &str)>> = recorded
        .iter()
        .filter(|f| f.get("name").map(String::as_str) == Some("mcp.call"))
        .map(|f| {
            [
                "method",
                "tool",
                "prompt",
                "outcome",
                "error_code",
                "trace_id",
                "parent_span_id",
                "closed",
            ]
            .iter()
            .filter_map(|k| f.get(*k).map(|v| (*k, v.as_str())))
            .collect()
        })
        .collect();
    let trace = [
        ("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"),
        ("parent_span_id", "00f067aa0ba902b7"),
        ("closed", "true"),
    ];
    let with_trace = |head: &[(&'static str, &'static str)]| -> Vec<(&'static str, &'static str)> {
        head.iter().copied().chain(trace).collect()
    };
    assert_eq!(
        calls,
        vec![
            with_trace(&[
                ("method", "tools/call"),
                ("tool", "greet"),
                ("outcome", "input_required")
            ]),
            with_trace(&[
                ("method", "tools/call"),
                ("tool", "greet"),
                ("outcome", "ok")
            ]),
            with_trace(&[
                ("method", "tools/call"),
                ("tool", "count"),
                ("outcome", "ok")
            ]),
            with_trace(&[
                ("method", "prompts/get"),
                ("prompt", "essay"),
                ("outcome", "ok")
            ]),
            with_trace(&[
                ("method", "resources/read"),
                ("outcome", "error"),
                ("error_code", "-32602")
            ]),
            vec![
                ("method", "tools/call"),
                ("tool", "forever"),
                ("outcome", "cancelled"),
                ("closed", "true"),
            ],
        ]
    );
    // Neither arguments nor results are recorded anywhere.
    let everything = format!("{recorded:?}");
    for secret in ["Secret Agent", "classified", "Hello", "mem://gone"] {
        assert!(!everything.contains(secret), "{secret} was recorded");
    }
}

#[test]
fn every_list_request_runs_in_a_span_with_its_outcome_and_trace_parent_and_no_cursor() {
    let spans = Spans::default();
    let _guard = tracing::subscriber::set_default(spans.clone());
    let mut client = TestClient::new(&service(Hub::default())).with_meta(
        "traceparent",
        json!("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
    );
    block_on(client.request("tools/list", json!({}))).unwrap();
    block_on(client.request("resources/list", json!({}))).unwrap();
    block_on(client.request("resources/templates/list", json!({}))).unwrap();
    let e =
        block_on(client.request("prompts/list", json!({"cursor": "secret-cursor"}))).unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (-32602, "Invalid cursor"));
    // Without a trace context (and a malformed one is none).
    let mut plain = TestClient::new(&service(Hub::default()))
        .with_meta("traceparent", json!("00-not-a-trace-01"));
    block_on(plain.request("tools/list", json!({}))).unwrap();

    let recorded = spans.0.lock().unwrap().clone();
    let lists: Vec<Vec<(&str, &str)>> = recorded
        .iter()
        .filter(|f| f.get("name").map(String::as_str) == Some("mcp.list"))
        .map(|f| {
            [
                "method",
                "outcome",
                "error_code",
                "trace_id",
                "parent_span_id",
                "closed",
            ]
            .iter()
            .filter_map(|k| f.get(*k).map(|v| (*k, v.as_str())))
            .collect()
        })
        .collect();
    let traced = |method: &'static str, tail: &[(&'static str, &'static str)]| {
        let mut row = vec![("method", method)];
        row.extend_from_slice(tail);
        row.extend([
            ("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"),
            ("parent_span_id", "00f067aa0ba902b7"),
            ("closed", "true"),
        ]);
        row
    };
    assert_eq!(
        lists,
        vec![
            traced("tools/list", &[("outcome", "ok")]),
            traced("resources/list", &[("outcome", "ok")]),
            traced("resources/templates/list", &[("outcome", "ok")]),
            traced(
                "prompts/list",
                &[("outcome", "error"), ("error_code", "-32602")]
            ),
            vec![
                ("method", "tools/list"),
                ("outcome", "ok"),
                ("closed", "true")
            ],
        ]
    );
    assert!(!format!("{recorded:?}").contains("secret-cursor"));
}
