//! `subscriptions/listen` on stdio and HTTP: acknowledgement first,
//! subscription-id tagging, filters narrowed to what is declared, hub
//! delivery, client cancellation, server teardown, keep-alives.

mod support;

use snodo_proto::{
    CallToolResult, ChangeEvent, Hub, Implementation, Limits, NoArgs, Notifications, Overflow,
    Prompt, ReadResourceResult, Resource, ResourceContents, Service, Tool, Transport,
};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use support::Harness;

fn service(hub: Option<Hub>, notifications: Notifications) -> Service {
    let mut b = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .limits(Limits::default().max_subscriptions(2))
        .notifications(notifications)
        .tool(Tool::new("work", "Does work"), |_: NoArgs| async {
            CallToolResult::text("done")
        })
        .prompt(Prompt::new("p", "A prompt"), |_: NoArgs| async {
            Ok(snodo_proto::GetPromptResult::new(vec![]))
        })
        .resource(
            Resource::new("a://1", "one"),
            |args: snodo_proto::ResourceArgs| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri,
                    "text/plain",
                    "x",
                )]))
            },
        );
    if let Some(h) = hub {
        b = b.hub(h);
    }
    b.build().unwrap()
}

const ALL: Notifications = Notifications::none()
    .tools_list_changed()
    .resources_list_changed()
    .resource_updates();

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn listen(id: u64, notifications: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{{META},"notifications":{notifications}}}}}"#
    )
}

fn ack(id: u64, honoured: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{id}}},"notifications":{honoured}}}}}"#
    )
}

fn tools_changed(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{id}}}}}}}"#
    )
}

#[test]
fn discover_advertises_only_declared_and_backed_notifications() {
    let mut h = Harness::new(&service(None, ALL), Transport::Stdio);
    let out = h.send(format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{{{META}}}}}\n").as_bytes());
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        v["result"]["capabilities"],
        serde_json::json!({"prompts":{},"resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}})
    );
    // Without declared notifications, subscriptions/listen does not exist.
    let mut h = Harness::new(&service(None, Notifications::default()), Transport::Stdio);
    let out = h.send((listen(2, r#"{"toolsListChanged":true}"#) + "\n").as_bytes());
    assert_eq!(out, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601,\"message\":\"Method not found: subscriptions/listen\"}}\n");
}

#[test]
fn stdio_ack_first_then_tagged_events_by_filter() {
    let mut h = Harness::new(&service(None, ALL), Transport::Stdio);
    let out = h.send((listen(10, r#"{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["a://1"]}"#) + "\n").as_bytes());
    assert_eq!(
        out,
        ack(
            10,
            r#"{"resourceSubscriptions":["a://1"],"toolsListChanged":true}"#
        ) + "\n",
        "prompts are not declared: omitted"
    );
    let out = h.send((listen(11, r#"{"resourcesListChanged":true}"#) + "\n").as_bytes());
    assert_eq!(out, ack(11, r#"{"resourcesListChanged":true}"#) + "\n");

    h.conn.publish(&ChangeEvent::ToolsListChanged, h.now);
    h.conn.publish(&ChangeEvent::PromptsListChanged, h.now);
    h.conn.publish(
        &ChangeEvent::ResourceUpdated {
            uri: "a://1".into(),
        },
        h.now,
    );
    h.conn.publish(
        &ChangeEvent::ResourceUpdated {
            uri: "a://2".into(),
        },
        h.now,
    );
    h.conn.publish(&ChangeEvent::ResourcesListChanged, h.now);
    assert_eq!(
        h.drain(),
        tools_changed(10)
            + "\n"
            + r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":10},"uri":"a://1"}}"#
            + "\n"
            + r#"{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":11}}}"#
            + "\n"
    );

    // Client cancels stream 10: no response, no more events for it.
    let out = h.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":10}}\n");
    assert_eq!(out, "");
    h.conn.publish(&ChangeEvent::ToolsListChanged, h.now);
    assert_eq!(h.drain(), "");
    assert_eq!(h.conn.subscriptions(), 1);
}

#[test]
fn stdio_limits_and_duplicate_ids() {
    let mut h = Harness::new(&service(None, ALL), Transport::Stdio);
    h.send((listen(1, "{}") + "\n" + &listen(2, "{}") + "\n").as_bytes());
    let out = h.send((listen(3, "{}") + "\n").as_bytes());
    assert_eq!(out, "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"Too many open subscriptions on this connection (at most 2)\"}}\n");
    let out = h.send((listen(2, "{}") + "\n").as_bytes());
    assert_eq!(out, "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32600,\"message\":\"Request id is already used by a request in flight\"}}\n");
    let out = h.send((listen(4, r#"{"toolsListChanged":"yes"}"#) + "\n").as_bytes());
    assert_eq!(out, "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,\"message\":\"notifications.toolsListChanged must be a boolean\"}}\n");
}

#[test]
fn stdio_eof_tears_streams_down_gracefully() {
    let mut h = Harness::new(&service(None, ALL), Transport::Stdio);
    h.send((listen(7, r#"{"toolsListChanged":true}"#) + "\n").as_bytes());
    let out = h.close_input();
    assert_eq!(
        out,
        String::from(
            r#"{"jsonrpc":"2.0","id":7,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/subscriptionId":7},"resultType":"complete"}}"#
        ) + "\n"
            + r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"The server ended the subscription","requestId":7}}"#
            + "\n"
    );
    assert!(h.closed);
}

struct Count(AtomicUsize);
impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn hub_events_reach_every_connection_and_are_coalesced() {
    let hub = Hub::new(4, Overflow::DropOldest);
    let svc = service(Some(hub.clone()), ALL);
    let mut a = Harness::new(&svc, Transport::Stdio);
    let mut b = Harness::new(&svc, Transport::Stdio);
    let count = Arc::new(Count(AtomicUsize::new(0)));
    let waker = Waker::from(count.clone());
    let mut cx = Context::from_waker(&waker);
    assert!(
        a.conn.poll_changes(&mut cx).is_pending(),
        "no streams: nothing to wait for"
    );
    assert_eq!(hub.stats().listeners, 0);
    a.send((listen(1, r#"{"toolsListChanged":true}"#) + "\n").as_bytes());
    b.send((listen(1, r#"{"resourceSubscriptions":["a://1"]}"#) + "\n").as_bytes());
    assert_eq!(hub.stats().listeners, 2);
    assert!(a.conn.poll_changes(&mut cx).is_pending());
    hub.publish(ChangeEvent::ToolsListChanged);
    hub.publish(ChangeEvent::ToolsListChanged);
    assert_eq!(
        count.0.load(Ordering::SeqCst),
        1,
        "the waiting connection was woken"
    );
    assert!(a.conn.poll_changes(&mut cx).is_ready());
    a.conn.handle_changes(a.now);
    assert_eq!(a.drain(), tools_changed(1) + "\n", "duplicates coalesced");
    b.conn.handle_changes(b.now);
    assert_eq!(b.drain(), "", "b's filter does not want tool changes");
    // Closing the only stream unregisters the connection.
    a.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}\n");
    assert_eq!(hub.stats().listeners, 1);
}

#[test]
fn a_thousand_listen_streams_opened_and_dropped_leave_nothing_behind() {
    let hub = Hub::new(8, Overflow::DropOldest);
    let svc = service(Some(hub.clone()), ALL);
    for round in 0..1000u64 {
        let mut h = Harness::new(&svc, Transport::Http);
        h.send(post(&listen(round, r#"{"toolsListChanged":true}"#)).as_bytes());
        assert_eq!(h.conn.subscriptions(), 1);
        if round % 2 == 0 {
            h.close_input();
        } // odd rounds: the connection is simply dropped
    }
    hub.publish(ChangeEvent::ToolsListChanged);
    assert_eq!(hub.stats().listeners, 0);
    assert_eq!(hub.stats().dropped, 0);
}

fn post(body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn sse(json: &str) -> String {
    let data = format!("data: {json}\n\n");
    format!("{:x}\r\n{data}\r\n", data.len())
}

#[test]
fn http_listen_is_a_long_lived_sse_stream_with_keep_alives() {
    let mut h = Harness::new(&service(None, ALL), Transport::Http);
    let out = h.send(post(&listen(5, r#"{"toolsListChanged":true}"#)).as_bytes());
    assert_eq!(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n".to_string()
            + &sse(&ack(5, r#"{"toolsListChanged":true}"#))
    );
    assert_eq!(
        h.conn.poll_timeout(),
        Some(snodo_proto::Instant::from_millis(15_000))
    );
    assert_eq!(
        h.advance(15_000),
        "3\r\n:\n\n\r\n",
        "an SSE comment keeps the quiet stream alive"
    );
    h.conn.publish(&ChangeEvent::ToolsListChanged, h.now);
    assert_eq!(h.drain(), sse(&tools_changed(5)));
    // The idle timeout never closes a listening connection.
    assert_eq!(h.advance(200_000), "3\r\n:\n\n\r\n");
    assert!(!h.closed);
    // Server teardown: the graceful result ends the stream and the connection.
    h.conn.begin_shutdown(h.now);
    let out = h.drain();
    assert_eq!(
        out,
        sse(
            r#"{"jsonrpc":"2.0","id":5,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/subscriptionId":5},"resultType":"complete"}}"#
        ) + "0\r\n\r\n"
    );
    assert!(h.closed);
}

#[test]
fn http_client_closing_the_stream_ends_the_subscription() {
    let hub = Hub::default();
    let mut h = Harness::new(&service(Some(hub.clone()), ALL), Transport::Http);
    h.send(post(&listen(5, r#"{"toolsListChanged":true}"#)).as_bytes());
    assert_eq!(hub.stats().listeners, 1);
    assert_eq!(h.close_input(), "");
    assert!(h.closed);
    assert_eq!(hub.stats().listeners, 0);
}

#[test]
fn poll_changes_is_cheap_when_nothing_is_queued() {
    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    let hub = Hub::default();
    let mut h = Harness::new(&service(Some(hub), ALL), Transport::Stdio);
    h.send((listen(1, r#"{"toolsListChanged":true}"#) + "\n").as_bytes());
    let waker = Waker::from(Arc::new(Noop));
    let mut cx = Context::from_waker(&waker);
    for _ in 0..3 {
        assert_eq!(h.conn.poll_changes(&mut cx), Poll::Pending);
    }
}
