//! Feature `opentelemetry`: the `mcp.call` and `mcp.list` spans, exported
//! through the OpenTelemetry SDK, are children of the client's span named
//! by the request's `_meta.traceparent`, in the client's trace; a malformed
//! `traceparent` leaves a root span in a trace of its own. Requests are
//! literal wire text over stdio. (In testkit, not proto: see Cargo.toml.)

use opentelemetry::trace::{SpanId, TraceId, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use snodo_proto::{CallToolResult, NoArgs, Service, Tool};
use snodo_testkit::{block_on, TestClient};
use tracing_subscriber::layer::SubscriberExt;

const TRACEPARENT: &str = "00-0af7651916cd43dd8421a5b5e5d5c6d0-b7ad6b7169203331-01";

/// The spans exported while `requests` (lines of wire text) run through
/// an in-process client, one after another, under a subscriber with an
/// OpenTelemetry layer.
fn exported(requests: &[&str]) -> Vec<SpanData> {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
    tracing::subscriber::with_default(subscriber, || {
        let service = Service::builder()
            .tool(Tool::new("hello", "Say hello"), |_: NoArgs| async {
                CallToolResult::text("Hello!")
            })
            .build()
            .unwrap();
        let mut client = TestClient::new(&service);
        for request in requests {
            client.send_line(request);
            // Answered, and not with an error.
            let answer = block_on(client.next_message());
            assert!(answer.get("result").is_some(), "{answer}");
        }
    });
    provider.force_flush().unwrap();
    exporter.get_finished_spans().unwrap()
}

fn request(id: u32, method: &str, params: &str, traceparent: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{params}"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"traceparent":"{traceparent}","tracestate":"congo=t61rcWkgMzE"}}}}}}"#
    )
}

fn named<'a>(spans: &'a [SpanData], name: &str) -> &'a SpanData {
    let mut matching = spans.iter().filter(|s| s.name == name);
    let span = matching.next().unwrap_or_else(|| panic!("no {name} span"));
    assert!(matching.next().is_none(), "more than one {name} span");
    span
}

fn attribute(span: &SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| kv.value.as_str().into_owned())
}

/// `span` is in the client's trace, a child of the client's remote span.
fn assert_child_of_the_clients_span(span: &SpanData) {
    assert_eq!(
        span.span_context.trace_id(),
        TraceId::from_hex("0af7651916cd43dd8421a5b5e5d5c6d0").unwrap(),
        "{}",
        span.name
    );
    assert_eq!(
        span.parent_span_id,
        SpanId::from_hex("b7ad6b7169203331").unwrap(),
        "{}",
        span.name
    );
    assert!(span.parent_span_is_remote, "{}", span.name);
}

#[test]
fn a_call_span_is_a_child_of_the_clients_span_from_its_traceparent() {
    let spans = exported(&[&request(1, "tools/call", r#""name":"hello","#, TRACEPARENT)]);
    let call = named(&spans, "mcp.call");
    assert_child_of_the_clients_span(call);
    assert!(call.span_context.is_sampled());
    assert_eq!(
        call.span_context.trace_state().header(),
        "congo=t61rcWkgMzE"
    );
    // The fields are attributes still.
    assert_eq!(attribute(call, "method").as_deref(), Some("tools/call"));
    assert_eq!(attribute(call, "tool").as_deref(), Some("hello"));
    assert_eq!(attribute(call, "outcome").as_deref(), Some("ok"));
    assert_eq!(
        attribute(call, "trace_id").as_deref(),
        Some("0af7651916cd43dd8421a5b5e5d5c6d0")
    );
    assert!(call.end_time >= call.start_time);
}

#[test]
fn a_list_span_is_a_child_of_the_clients_span_from_its_traceparent() {
    let spans = exported(&[&request(1, "tools/list", "", TRACEPARENT)]);
    let list = named(&spans, "mcp.list");
    assert_child_of_the_clients_span(list);
    assert_eq!(attribute(list, "method").as_deref(), Some("tools/list"));
    assert_eq!(attribute(list, "outcome").as_deref(), Some("ok"));
}

#[test]
fn a_malformed_traceparent_leaves_a_root_span_in_a_new_trace() {
    // Uppercase hex is not W3C Trace Context.
    let malformed = "00-0AF7651916CD43DD8421A5B5E5D5C6D0-b7ad6b7169203331-01";
    let spans = exported(&[
        &request(1, "tools/call", r#""name":"hello","#, malformed),
        &request(2, "tools/list", "", malformed),
    ]);
    for name in ["mcp.call", "mcp.list"] {
        let span = named(&spans, name);
        assert_eq!(span.parent_span_id, SpanId::INVALID, "{name}");
        assert!(!span.parent_span_is_remote, "{name}");
        let trace_id = span.span_context.trace_id();
        assert_ne!(trace_id, TraceId::INVALID, "{name}");
        assert_ne!(
            trace_id,
            TraceId::from_hex("0af7651916cd43dd8421a5b5e5d5c6d0").unwrap(),
            "{name}"
        );
        assert_eq!(attribute(span, "trace_id"), None, "{name}");
    }
}
