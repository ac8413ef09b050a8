//! The in-process client: an MRTR round trip, a listen stream fed by a
//! hub, progress from a handler that is not ready at once, resources and
//! prompts.

mod support;

use serde_json::{json, Value};
use snodo_proto::{CallToolResult, ChangeEvent, Hub, Overflow, ResourceContents};
use snodo_testkit::{block_on, Answer, TestClient};
use support::service;

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
