//! The in-process client: an MRTR round trip, a listen stream fed by a
//! hub, progress, resources, prompts, a handler that is not ready at once,
//! and the `mcp.call` span each handler call runs in.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};

use serde::Deserialize;
use serde_json::{json, Value};
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{
    CallToolResult, ChangeEvent, Context, ElicitRequest, GetPromptResult, Hub, InputRequired,
    NoArgs, Notifications, Overflow, Prompt, PromptMessage, ReadResourceResult, Reply, Resource,
    ResourceArgs, ResourceContents, ResourceError, Service, Tool,
};
use snodo_testkit::{block_on, Answer, TestClient};

#[derive(Deserialize, JsonSchema)]
struct Name {
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct Topic {
    /// What to write about.
    topic: String,
}

/// Ready on its second poll, waking itself: a handler that is not ready
/// at once, as one waiting on I/O is.
struct YieldOnce(bool);

impl Future for YieldOnce {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

fn service(hub: Hub) -> Service {
    Service::builder()
        .notifications(Notifications {
            tools_list_changed: true,
            resource_updates: true,
            ..Notifications::default()
        })
        .hub(hub)
        .tool(Tool::new("greet", "Asks for a name"), |_: NoArgs, ctx: Context| async move {
            match ctx.elicitation("who").and_then(|r| r.content_as::<Name>()) {
                Some(n) => Reply::Complete(CallToolResult::text(format!("Hello, {}!", n.name))),
                None => InputRequired::new()
                    .elicit(
                        "who",
                        ElicitRequest::form(
                            "What is your name?",
                            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
                        ),
                    )
                    .into(),
            }
        })
        .tool(Tool::new("count", "Counts to three"), |_: NoArgs, ctx: Context| async move {
            for i in 1..=3 {
                YieldOnce(false).await;
                ctx.progress(f64::from(i), Some(3.0), None);
            }
            CallToolResult::text("done")
        })
        .resource(Resource::new("mem://note", "note"), |args: ResourceArgs, _: Context| async move {
            Ok::<_, ResourceError>(ReadResourceResult::new(vec![ResourceContents::text(
                args.uri,
                "text/plain",
                "remember",
            )]))
        })
        .resource(Resource::new("mem://gone", "gone"), |_: ResourceArgs, _: Context| async {
            Err::<ReadResourceResult, _>(ResourceError::NotFound)
        })
        .typed_prompt(Prompt::new("essay", "Write an essay"), |t: Topic, _: Context| async move {
            Ok(GetPromptResult::new(vec![PromptMessage::user(snodo_proto::Content::text(
                format!("Write about {}.", t.topic),
            ))]))
        })
        .build()
        .unwrap()
}

#[test]
fn an_mrtr_round_is_asked_answered_and_completed() {
    let mut client = TestClient::new(&service(Hub::default()));
    let pending = block_on(client.call_tool_rounds("greet", json!({})))
        .unwrap()
        .input_required();
    assert_eq!(
        Value::Object(pending.input_requests.clone()),
        json!({"who": {"method": "elicitation/create", "params": {
            "mode": "form",
            "message": "What is your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
        }}})
    );
    let done = block_on(client.retry(
        pending,
        json!({"who": {"action": "accept", "content": {"name": "Ada"}}}),
    ))
    .unwrap();
    let Answer::Complete(result) = done else {
        panic!("the retry was answered with another input request")
    };
    assert_eq!(result.content, CallToolResult::text("Hello, Ada!").content);
}

#[test]
fn a_listen_stream_hears_what_the_hub_publishes() {
    let hub = Hub::new(16, Overflow::DropOldest);
    let mut client = TestClient::new(&service(hub.clone()));
    let stream = block_on(
        client.listen(json!({"toolsListChanged": true, "resourceSubscriptions": ["mem://note"]})),
    )
    .unwrap();
    assert_eq!(
        stream.honoured,
        json!({"toolsListChanged": true, "resourceSubscriptions": ["mem://note"]})
    );
    hub.publish(ChangeEvent::ResourceUpdated {
        uri: "mem://other".into(),
    });
    hub.publish(ChangeEvent::ResourceUpdated {
        uri: "mem://note".into(),
    });
    hub.publish(ChangeEvent::ToolsListChanged);
    let first = block_on(client.next_event(&stream));
    let second = block_on(client.next_event(&stream));
    assert_eq!(
        [first, second],
        [
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 1}, "uri": "mem://note"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 1}}}),
        ]
    );
    client.close_listen(stream.clone());
    hub.publish(ChangeEvent::ToolsListChanged);
    assert_eq!(client.take_events(&stream), Vec::<Value>::new());
}

#[test]
fn a_handler_that_waits_reports_progress_before_its_answer() {
    let mut client = TestClient::new(&service(Hub::default()));
    let result = block_on(client.request(
        "tools/call",
        json!({"name": "count", "arguments": {}, "_meta": {"progressToken": 7}}),
    ))
    .unwrap();
    assert_eq!(result["content"], json!([{"type": "text", "text": "done"}]));
    let progress: Vec<Value> = client
        .take_notifications()
        .into_iter()
        .map(|n| n["params"]["progress"].clone())
        .collect();
    assert_eq!(progress, [json!(1.0), json!(2.0), json!(3.0)]);
}

#[test]
fn resources_and_typed_prompts_answer_through_the_client() {
    let mut client = TestClient::new(&service(Hub::default()));
    let read = block_on(client.read_resource("mem://note")).unwrap();
    assert_eq!(
        read.contents,
        vec![ResourceContents::text(
            "mem://note",
            "text/plain",
            "remember"
        )]
    );
    let e = block_on(client.read_resource("mem://nothing")).unwrap_err();
    assert_eq!(
        (e.code, e.data),
        (-32602, Some(json!({"uri": "mem://nothing"})))
    );
    let prompts: Vec<Value> = block_on(client.list_all("prompts/list", "prompts")).unwrap();
    assert_eq!(
        prompts,
        [
            json!({"name": "essay", "description": "Write an essay", "arguments": [
                {"name": "topic", "description": "What to write about.", "required": true}
            ]})
        ]
    );
    let essay = block_on(client.get_prompt("essay", json!({"topic": "owls"}))).unwrap();
    assert_eq!(
        essay.messages[0].content,
        snodo_proto::Content::text("Write about owls.")
    );
    let e = block_on(client.get_prompt("essay", json!({}))).unwrap_err();
    assert_eq!(e.code, -32602);
}

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
        spans[span.into_u64() as usize - 1].insert("closed".into(), "true".into());
        true
    }
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
        ]
    );
    // Neither arguments nor results are recorded anywhere.
    let everything = format!("{recorded:?}");
    for secret in ["Secret Agent", "classified", "Hello", "mem://gone"] {
        assert!(!everything.contains(secret), "{secret} was recorded");
    }
}
