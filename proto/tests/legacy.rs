//! The initialize-era dialects (2025-11-25, 2025-06-18) on the wire, beside
//! 2026-07-28 on the same service: every request and expected answer is
//! literal JSON or raw HTTP bytes. The one thing a literal cannot pin is an
//! HTTP session id (random by design); it is read from the `initialize`
//! response and spliced into the next requests.

mod support;

use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};
use snodo_proto::{
    BuildError, CallToolResult, ChangeEvent, Context, Dialect, ElicitRequest, ErrorObject,
    HttpConfig, Implementation, InputRequired, Instant, Limits, LogLevel, NoArgs, Notifications,
    ReadResourceResult, Reply, Resource, ResourceArgs, ResourceContents, Service, StateKeys, Tool,
    Transport,
};
use support::Harness;

#[derive(Deserialize)]
struct Name {
    name: String,
}

/// One handler, written once: it asks for a name and greets.
fn greet(ctx: Context) -> Reply<CallToolResult> {
    match ctx
        .elicitation("user_name")
        .and_then(|r| r.content_as::<Name>())
    {
        Some(n) => Reply::Complete(CallToolResult::text(format!("Hello, {}!", n.name))),
        None => InputRequired::new()
            .elicit(
                "user_name",
                ElicitRequest::form(
                    "What is your name?",
                    json!({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}),
                ),
            )
            .into(),
    }
}

fn builder() -> snodo_proto::ServiceBuilder {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .instructions("Say hello.")
        .state_keys(StateKeys::new([0xa1; 32]))
        .logging()
        .notifications(Notifications::default().resource_updates())
        .tool(
            Tool::new("greet", "Asks for a name"),
            |_: NoArgs, ctx: Context| async move { greet(ctx) },
        )
        .tool(
            Tool::new("chatty", "Logs at two levels"),
            |_: NoArgs, ctx: Context| async move {
                ctx.log(LogLevel::Debug, None, json!("debug line"));
                ctx.log(LogLevel::Warning, None, json!("warning line"));
                CallToolResult::text("done")
            },
        )
        .resource(
            Resource::new("test://a", "a").mime_type("text/plain"),
            |args: ResourceArgs| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri,
                    "text/plain",
                    "A",
                )]))
            },
        )
}

fn service() -> Service {
    builder().build().unwrap()
}

fn lines(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

fn parse(literal: &str) -> Value {
    serde_json::from_str(literal).expect("literal is JSON")
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"legacy","version":"1.0.0"}}}"#;

const INITIALIZE_RESULT: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{"subscribe":true},"logging":{}},"serverInfo":{"name":"t","version":"1"},"instructions":"Say hello."}}"#;

#[test]
fn stdio_handshake_then_the_same_methods_shaped_for_the_session() {
    let mut h = Harness::new(&service(), Transport::Stdio);
    assert_eq!(
        lines(&h.send(format!("{INITIALIZE}\n").as_bytes())),
        vec![parse(INITIALIZE_RESULT)]
    );
    assert_eq!(
        h.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"),
        ""
    );
    assert_eq!(
        lines(&h.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")),
        vec![parse(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)]
    );
    // No resultType, no cache hints, no serverInfo in _meta.
    assert_eq!(
        lines(&h.send(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{\"uri\":\"test://a\"}}\n")),
        vec![parse(r#"{"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"test://a","mimeType":"text/plain","text":"A"}]}}"#)]
    );
    // The older code for an unknown resource (2025-11-25 resources.mdx).
    assert_eq!(
        lines(&h.send(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":\"test://nope\"}}\n")),
        vec![parse(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"Resource not found","data":{"uri":"test://nope"}}}"#)]
    );
    // Methods of the stateless revision are not the session's.
    assert_eq!(
        lines(&h.send(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"server/discover\"}\n")),
        vec![parse(
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: server/discover"}}"#
        )]
    );
    assert_eq!(
        lines(&h.send(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"test://a\"}}\n")),
        vec![parse(r#"{"jsonrpc":"2.0","id":5,"result":{}}"#)]
    );
    // A second initialize in the same session is refused.
    assert_eq!(
        lines(&h.send(format!("{}\n", INITIALIZE.replace(r#""id":0"#, r#""id":6"#)).as_bytes())),
        vec![parse(
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"The session is already initialized"}}"#
        )]
    );
}

#[test]
fn a_request_before_initialize_without_modern_meta_is_still_a_2026_request() {
    let mut h = Harness::new(&service(), Transport::Stdio);
    let out = lines(&h.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n"));
    assert_eq!(out[0]["error"]["code"], json!(-32602), "{out:?}");
}

#[test]
fn log_level_is_the_sessions() {
    let mut h = Harness::new(&service(), Transport::Stdio);
    h.send(format!("{INITIALIZE}\n").as_bytes());
    // Before logging/setLevel every message is sent.
    assert_eq!(
        lines(&h.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"chatty\"}}\n")),
        vec![
            parse(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"debug line"}}"#),
            parse(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":"warning line"}}"#),
            parse(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}"#),
        ]
    );
    assert_eq!(
        lines(&h.send(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"warning\"}}\n")),
        vec![parse(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#)]
    );
    assert_eq!(
        lines(&h.send(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"chatty\"}}\n")),
        vec![
            parse(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":"warning line"}}"#),
            parse(r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}]}}"#),
        ]
    );
}

/// Issue 10: the same handler answers an elicitation under the stateless
/// dialect (an `InputRequiredResult`, then a retry) and under the session
/// dialect (a server-to-client `elicitation/create`, then its answer).
#[test]
fn one_handler_elicits_under_both_dialects() {
    let service = service();

    // 2026-07-28, stateless: MRTR.
    let mut modern = Harness::new(&service, Transport::Stdio);
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;
    let first = lines(&modern.send(
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"greet",{meta}}}}}"#)
            .replace("\n", "")
            .add_newline()
            .as_bytes(),
    ));
    let result = &first[0]["result"];
    assert_eq!(result["resultType"], json!("input_required"));
    assert_eq!(
        result["inputRequests"],
        parse(
            r#"{"user_name":{"method":"elicitation/create","params":{"mode":"form","message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}"#
        )
    );
    let state = result["requestState"]
        .as_str()
        .expect("sealed state")
        .to_owned();
    let retry = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"greet","inputResponses":{{"user_name":{{"action":"accept","content":{{"name":"Ada"}}}}}},"requestState":"{state}",{meta}}}}}"#
    );
    assert_eq!(
        lines(&modern.send(retry.add_newline().as_bytes())),
        vec![parse(
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Hello, Ada!"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}}}"#
        )]
    );

    // 2025-11-25, a session: a server-to-client request on the stream.
    let mut session = Harness::new(&service, Transport::Stdio);
    session.send(format!("{INITIALIZE}\n").as_bytes());
    assert_eq!(
        lines(&session.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"greet\"}}\n")),
        vec![parse(r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"form","message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}"#)]
    );
    assert_eq!(
        lines(&session.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}}\n")),
        vec![parse(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Hello, Ada!"}]}}"#)]
    );
}

#[test]
fn session_answers_are_checked_like_mrtr_answers() {
    let mut h = Harness::new(&service(), Transport::Stdio);
    h.send(format!("{INITIALIZE}\n").as_bytes());
    h.send(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"greet\"}}\n");
    // The content does not match the requested schema.
    let out = lines(&h.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"accept\",\"content\":{\"name\":5}}}\n"));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], json!(7));
    assert_eq!(out[0]["error"]["code"], json!(-32602), "{out:?}");
    // A client error ends the call with an error.
    h.send(b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"greet\"}}\n");
    let out = lines(&h.send(
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-1,\"message\":\"User rejected\"}}\n",
    ));
    assert_eq!(
        out,
        vec![parse(
            r#"{"jsonrpc":"2.0","id":8,"error":{"code":-32603,"message":"The client refused the input request \"user_name\": User rejected"}}"#
        )]
    );
    // An answer nobody waits for writes nothing.
    assert_eq!(
        h.send(b"{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}\n"),
        ""
    );
}

#[test]
fn a_client_without_the_capability_is_not_asked() {
    let mut h = Harness::new(&service(), Transport::Stdio);
    h.send(format!("{}\n", INITIALIZE.replace(r#"{"elicitation":{}}"#, "{}")).as_bytes());
    let out = lines(&h.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"greet\"}}\n"));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["error"]["code"], json!(-32021), "{out:?}");
    assert_eq!(
        out[0]["error"]["data"]["requiredCapabilities"],
        json!({"elicitation":{"form":{}}})
    );
}

#[test]
fn version_negotiation_offers_the_latest_when_the_requested_is_not_served() {
    let mut h = Harness::new(&service(), Transport::Stdio);
    let out =
        lines(&h.send(format!("{}\n", INITIALIZE.replace("2025-11-25", "2024-11-05")).as_bytes()));
    assert_eq!(out[0]["result"]["protocolVersion"], json!("2025-11-25"));
    let mut h = Harness::new(&service(), Transport::Stdio);
    let out =
        lines(&h.send(format!("{}\n", INITIALIZE.replace("2025-11-25", "2025-06-18")).as_bytes()));
    assert_eq!(out[0]["result"]["protocolVersion"], json!("2025-06-18"));
}

#[test]
fn a_modern_only_server_names_its_versions_to_initialize() {
    let modern = builder().dialects([Dialect::V2026_07_28]).build().unwrap();
    let mut h = Harness::new(&modern, Transport::Stdio);
    let out = lines(&h.send(format!("{INITIALIZE}\n").as_bytes()));
    assert_eq!(out[0]["error"]["data"], json!({"supported":["2026-07-28"]}));
}

#[test]
fn the_allow_list_is_checked_at_build() {
    let drifted = Dialect {
        version: "2025-11-25",
        profile: &snodo_proto::REVISION_2025_06_18,
    };
    let err = builder()
        .dialects([Dialect::V2026_07_28, drifted])
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("2025-11-25"), "{err}");
    let err = builder()
        .dialects([Dialect::V2025_11_25])
        .build()
        .unwrap_err();
    assert!(
        err.to_string().contains("2026-07-28 must be served"),
        "{err}"
    );
    let err = builder()
        .dialects([
            Dialect::V2026_07_28,
            Dialect::V2025_06_18,
            Dialect::V2025_06_18,
        ])
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("listed twice"), "{err}");
}

trait AddNewline {
    fn add_newline(self) -> String;
}

impl AddNewline for String {
    fn add_newline(mut self) -> String {
        self.push('\n');
        self
    }
}

// ---- HTTP: sessions across connections ----

fn post(session: Option<&str>, body: &str) -> String {
    let sid = session.map_or(String::new(), |s| {
        format!("Mcp-Session-Id: {s}\r\nMCP-Protocol-Version: 2025-11-25\r\n")
    });
    format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{sid}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// `initialize` over HTTP: the session id from the response head.
fn http_initialize(h: &mut Harness) -> String {
    let out = h.send(post(None, INITIALIZE).as_bytes());
    let head_end = out.find("\r\n\r\n").expect("a head");
    let head = &out[..head_end];
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    let sid = head
        .lines()
        .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
        .expect("initialize names its session")
        .to_owned();
    assert_eq!(sid.len(), 32, "{sid}");
    assert!(sid.bytes().all(|b| b.is_ascii_hexdigit()));
    assert_eq!(parse(&out[head_end + 4..]), parse(INITIALIZE_RESULT));
    sid
}

fn json_200(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[test]
fn http_session_lifecycle() {
    let service = service();
    let mut h = Harness::new(&service, Transport::Http);
    let sid = http_initialize(&mut h);
    assert_eq!(
        h.send(
            post(
                Some(&sid),
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
            )
            .as_bytes()
        ),
        "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
    );
    assert_eq!(
        h.send(post(Some(&sid), r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).as_bytes()),
        json_200(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
    );
    // A JSON-RPC error of a session travels with 200.
    assert_eq!(
        h.send(post(Some(&sid), r#"{"jsonrpc":"2.0","id":2,"method":"nope"}"#).as_bytes()),
        json_200(
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: nope"}}"#
        )
    );
    // No session id: not a session message, so a 2026-07-28 request
    // without its `_meta` (400). Unknown session: 404.
    assert!(h
        .send(post(None, r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#).as_bytes())
        .starts_with("HTTP/1.1 400 Bad Request\r\n"));
    assert_eq!(
        h.send(post(Some("0123"), r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#).as_bytes()),
        "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 78\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}"
    );
    // A modern request with a stale session header is served statelessly.
    let modern = r#"{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let out = h.send(
        post(Some(&sid), modern)
            .replace(
                "MCP-Protocol-Version: 2025-11-25",
                "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover",
            )
            .as_bytes(),
    );
    assert!(
        out.starts_with("HTTP/1.1 200 OK\r\n")
            && out.contains("\"supportedVersions\":[\"2026-07-28\"]"),
        "{out}"
    );
    // DELETE ends the session; then it is gone.
    assert_eq!(
        h.send(
            format!("DELETE /mcp HTTP/1.1\r\nHost: localhost\r\nMcp-Session-Id: {sid}\r\n\r\n")
                .as_bytes()
        ),
        "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
    );
    assert!(h
        .send(post(Some(&sid), r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#).as_bytes())
        .starts_with("HTTP/1.1 404 Not Found\r\n"));
    assert!(!h.closed, "session faults keep the connection");
}

#[test]
fn http_elicitation_answered_on_another_connection() {
    let service = service();
    let mut a = Harness::new(&service, Transport::Http);
    let sid = http_initialize(&mut a);
    let out = a.send(
        post(
            Some(&sid),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"}}"#,
        )
        .as_bytes(),
    );
    // Members in key order: proto writes maps sorted.
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"What is your name?","mode":"form","requestedSchema":{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}}}"#;
    // The stream's priming event, then the question (2025-11-25
    // `transports.mdx` § Sending Messages to the Server 6).
    let event = format!("id: p1-1\ndata: {request}\n\n");
    assert_eq!(
        out,
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n11\r\nid: p1-0\ndata: \n\n\r\n{:x}\r\n{event}\r\n",
            event.len()
        )
    );
    // The client answers on a second connection of the same session.
    let mut b = Harness::new(&service, Transport::Http);
    assert_eq!(
        b.send(
            post(
                Some(&sid),
                r#"{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"name":"Ada"}}}"#
            )
            .as_bytes()
        ),
        "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
    );
    // The waiting connection was woken; its handler runs again.
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    assert!(a.conn.poll_changes(&mut cx).is_ready());
    a.conn.handle_changes(a.now);
    let result =
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"Hello, Ada!","type":"text"}]}}"#;
    let event = format!("id: p1-2\ndata: {result}\n\n");
    assert_eq!(
        a.drain(),
        format!("{:x}\r\n{event}\r\n0\r\n\r\n", event.len())
    );
    // A second answer to the same request finds nothing waiting.
    assert!(b
        .send(
            post(
                Some(&sid),
                r#"{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"name":"Ada"}}}"#
            )
            .as_bytes()
        )
        .starts_with("HTTP/1.1 400 Bad Request\r\n"));
}

#[test]
fn http_get_stream_carries_subscribed_updates_only() {
    let hub = snodo_proto::Hub::default();
    let service = builder().hub(hub.clone()).build().unwrap();
    let mut a = Harness::new(&service, Transport::Http);
    let sid = http_initialize(&mut a);
    assert_eq!(
        a.send(post(Some(&sid), r#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://a"}}"#).as_bytes()),
        json_200(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
    );
    let get = format!("GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n\r\n");
    let mut g = Harness::new(&service, Transport::Http);
    assert_eq!(
        g.send(get.as_bytes()),
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n"
    );
    // One standalone stream per session.
    let mut g2 = Harness::new(&service, Transport::Http);
    let refused = g2.send(get.as_bytes());
    assert!(
        refused.starts_with("HTTP/1.1 409 Conflict\r\n"),
        "{refused}"
    );
    hub.publish(snodo_proto::ChangeEvent::ResourceUpdated {
        uri: "test://other".into(),
    });
    hub.publish(snodo_proto::ChangeEvent::ResourceUpdated {
        uri: "test://a".into(),
    });
    g.conn.handle_changes(g.now);
    let note = r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}}"#;
    let event = format!("id: g1\ndata: {note}\n\n");
    assert_eq!(g.drain(), format!("{:x}\r\n{event}\r\n", event.len()));
    // Closing the stream frees the session's claim.
    g.close_input();
    assert!(g2.send(get.as_bytes()).starts_with("HTTP/1.1 200 OK\r\n"));
}

/// The head of a session's GET stream.
const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n";

const UPDATED_A: &str =
    r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}}"#;

/// The `resources/updated` event for `test://a` as one chunk: numbered
/// `g<n>`, or without an id.
fn updated_event(n: Option<u32>) -> String {
    let id = n.map_or(String::new(), |n| format!("id: g{n}\n"));
    let event = format!("{id}data: {UPDATED_A}\n\n");
    format!("{:x}\r\n{event}\r\n", event.len())
}

/// A GET stream's resume test bench: a session of `version`, subscribed to
/// `test://a`, on a service whose hub the test publishes to.
struct Resumable {
    hub: snodo_proto::Hub,
    service: Service,
    sid: String,
    version: &'static str,
}

impl Resumable {
    fn new(version: &'static str, limits: Limits) -> Resumable {
        let hub = snodo_proto::Hub::default();
        let service = builder().hub(hub.clone()).limits(limits).build().unwrap();
        let mut a = Harness::new(&service, Transport::Http);
        let out = a.send(post(None, &INITIALIZE.replace("2025-11-25", version)).as_bytes());
        let sid = out
            .lines()
            .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
            .expect("initialize names its session")
            .to_owned();
        assert_eq!(
            a.send(post(Some(&sid), r#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"test://a"}}"#).as_bytes()),
            json_200(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
        );
        Resumable {
            hub,
            service,
            sid,
            version,
        }
    }

    /// The session's GET, with `Last-Event-ID: last` when given.
    fn get(&self, last: Option<&str>) -> String {
        let last = last.map_or(String::new(), |l| format!("Last-Event-ID: {l}\r\n"));
        format!(
            "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nMcp-Session-Id: {}\r\nMCP-Protocol-Version: {}\r\n{last}\r\n",
            self.sid, self.version
        )
    }

    /// A connection that sent the session's GET, and what it got.
    fn open(&self, last: Option<&str>) -> (Harness, String) {
        let mut g = Harness::new(&self.service, Transport::Http);
        let out = g.send(self.get(last).as_bytes());
        (g, out)
    }

    fn updated(&self) {
        self.hub.publish(ChangeEvent::ResourceUpdated {
            uri: "test://a".into(),
        });
    }
}

/// Both initialize-era revisions' `basic/transports.mdx` § Resumability
/// and Redelivery: the GET stream's events carry ids; a client whose
/// stream broke resumes with `Last-Event-ID` and gets exactly what followed
/// that event, whether the old connection wrote it to nobody or it was
/// published while no stream was open, in order and each once.
#[test]
fn a_get_stream_resumed_with_last_event_id_gets_what_it_missed() {
    for version in ["2025-11-25", "2025-06-18"] {
        let r = Resumable::new(version, Limits::default());
        let (mut g, head) = r.open(None);
        assert_eq!(head, SSE_HEAD, "{version}");
        r.updated();
        g.conn.handle_changes(g.now);
        assert_eq!(g.drain(), updated_event(Some(1)), "{version}");
        // Written to a stream whose reader is already gone.
        r.updated();
        g.conn.handle_changes(g.now);
        assert_eq!(g.drain(), updated_event(Some(2)), "{version}");
        g.close_input();
        // Published while the session has no stream: it waits for one.
        r.updated();
        assert_eq!(r.hub.stats().listeners, 1, "the session keeps its listener");
        let (mut resumed, out) = r.open(Some("g1"));
        assert_eq!(
            out,
            format!("{SSE_HEAD}{}", updated_event(Some(2))),
            "{version}"
        );
        resumed.conn.handle_changes(resumed.now);
        assert_eq!(resumed.drain(), updated_event(Some(3)), "{version}");
        // The session ends: nothing of it is kept.
        resumed.close_input();
        let mut d = Harness::new(&r.service, Transport::Http);
        let delete = format!(
            "DELETE /mcp HTTP/1.1\r\nHost: localhost\r\nMcp-Session-Id: {}\r\nMCP-Protocol-Version: {version}\r\n\r\n",
            r.sid
        );
        assert!(d.send(delete.as_bytes()).starts_with("HTTP/1.1 200 OK\r\n"));
        assert_eq!(r.hub.stats().listeners, 0, "{version}");
    }
}

/// A client resumes when its stream broke, which the server may not have
/// noticed yet (a proxy cut it): the resume takes the stream over, the old
/// connection ends its stream without writing more, and every later event
/// goes out once, on the new stream. A GET that does not resume is still
/// refused while the stream is open.
#[test]
fn a_resume_takes_the_get_stream_over_from_a_connection_still_open() {
    let r = Resumable::new("2025-11-25", Limits::default());
    let (mut g, _) = r.open(None);
    r.updated();
    g.conn.handle_changes(g.now);
    assert_eq!(g.drain(), updated_event(Some(1)));
    let (mut resumed, head) = r.open(Some("g1"));
    assert_eq!(head, SSE_HEAD);
    r.updated();
    // The old stream ends (its last chunk) and writes nothing more.
    g.conn.handle_changes(g.now);
    assert_eq!(g.drain(), "0\r\n\r\n");
    resumed.conn.handle_changes(resumed.now);
    assert_eq!(resumed.drain(), updated_event(Some(2)));
    assert!(r.open(None).1.starts_with("HTTP/1.1 409 Conflict\r\n"));
    // The old connection letting go does not release the new claim.
    g.close_input();
    assert!(r.open(None).1.starts_with("HTTP/1.1 409 Conflict\r\n"));
}

/// An application publishing on the old connection itself
/// (`Connection::publish`) after a resume took its stream over, before that
/// connection heard of it: nothing is written there, and the numbering the
/// new stream goes on with is not used up.
#[test]
fn publishing_on_a_get_stream_taken_over_writes_nothing() {
    let r = Resumable::new("2025-11-25", Limits::default());
    let (mut g, _) = r.open(None);
    r.updated();
    g.conn.handle_changes(g.now);
    assert_eq!(g.drain(), updated_event(Some(1)));
    let (mut resumed, _) = r.open(Some("g1"));
    let event = ChangeEvent::ResourceUpdated {
        uri: "test://a".into(),
    };
    g.conn.publish(&event, g.now);
    assert_eq!(g.drain(), "");
    r.updated();
    resumed.conn.handle_changes(resumed.now);
    assert_eq!(resumed.drain(), updated_event(Some(2)));
}

/// The session ends (DELETE) while its GET stream is open: the stream
/// ends with its last chunk, and nothing more is written on it.
#[test]
fn a_deleted_session_ends_its_get_stream() {
    let r = Resumable::new("2025-11-25", Limits::default());
    let (mut g, _) = r.open(None);
    let mut d = Harness::new(&r.service, Transport::Http);
    let delete = format!(
        "DELETE /mcp HTTP/1.1\r\nHost: localhost\r\nMcp-Session-Id: {}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n",
        r.sid
    );
    assert!(d.send(delete.as_bytes()).starts_with("HTTP/1.1 200 OK\r\n"));
    r.updated();
    g.conn.handle_changes(g.now);
    assert_eq!(g.drain(), "0\r\n\r\n");
}

/// A `Last-Event-ID` this server never gave (another server's, or one
/// ahead of the stream) replays nothing: the stream opens afresh and its
/// numbering goes on.
#[test]
fn a_last_event_id_not_of_this_stream_replays_nothing() {
    let r = Resumable::new("2025-11-25", Limits::default());
    let (mut g, _) = r.open(None);
    r.updated();
    g.conn.handle_changes(g.now);
    assert_eq!(g.drain(), updated_event(Some(1)));
    g.close_input();
    for last in ["7", "g99", "g", "x1"] {
        let (mut other, head) = r.open(Some(last));
        assert_eq!(head, SSE_HEAD, "{last}");
        other.close_input();
    }
    let (mut again, _) = r.open(None);
    r.updated();
    again.conn.handle_changes(again.now);
    assert_eq!(again.drain(), updated_event(Some(2)));
}

/// `Limits::session_replay_bytes` bounds what a session keeps: past it the
/// oldest go, and a resume from before them gets only what is left.
#[test]
fn the_replay_budget_keeps_only_the_latest_events() {
    // Room for two events of this size (each costs its bytes and 32).
    let budget = 2 * (UPDATED_A.len() + 32);
    let r = Resumable::new("2025-11-25", Limits::default().session_replay_bytes(budget));
    let (mut g, _) = r.open(None);
    for n in 1..=3 {
        r.updated();
        g.conn.handle_changes(g.now);
        assert_eq!(g.drain(), updated_event(Some(n)));
    }
    g.close_input();
    let (_, out) = r.open(Some("g0"));
    assert_eq!(
        out,
        format!(
            "{SSE_HEAD}{}{}",
            updated_event(Some(2)),
            updated_event(Some(3))
        ),
        "event 1 is past the budget"
    );
}

/// `Limits::session_replay_bytes(0)`: the GET stream's events have no id
/// and a `Last-Event-ID` replays nothing; what was published while no
/// stream was open still waits for the next one.
#[test]
fn without_a_replay_budget_get_events_have_no_id() {
    let r = Resumable::new("2025-11-25", Limits::default().session_replay_bytes(0));
    let (mut g, head) = r.open(Some("g0"));
    assert_eq!(head, SSE_HEAD);
    r.updated();
    g.conn.handle_changes(g.now);
    assert_eq!(g.drain(), updated_event(None));
    g.close_input();
    r.updated();
    let (mut again, head) = r.open(Some("g0"));
    assert_eq!(head, SSE_HEAD);
    again.conn.handle_changes(again.now);
    assert_eq!(again.drain(), updated_event(None));
}

#[test]
fn http_sessions_are_bounded_and_expire() {
    let service = builder()
        .limits(
            Limits::default()
                .max_sessions(1)
                .session_idle_timeout(Duration::from_secs(10)),
        )
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Http);
    let first = http_initialize(&mut h);
    // Full: the next initialize is refused while the first is live.
    let out = h.send(post(None, INITIALIZE).as_bytes());
    assert!(
        out.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{out}"
    );
    h.now = Instant::from_nanos(h.now.as_nanos() + 11_000_000_000);
    // Idle too long: gone, and its slot is free again.
    assert!(h
        .send(post(Some(&first), r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).as_bytes())
        .starts_with("HTTP/1.1 404 Not Found\r\n"));
    let second = http_initialize(&mut h);
    assert_ne!(first, second);
}

/// A replica behind a load balancer begins its session ids with its route
/// tag, so the balancer can send a session's requests back to it by
/// `Mcp-Session-Id` alone; the tag is checked when the service is built.
#[test]
fn a_session_route_begins_every_session_id() {
    let routed = |route: &str| {
        builder()
            .http(HttpConfig::default().session_route(Some(route.to_owned())))
            .build()
    };
    let service = routed("r2").unwrap();
    let mut h = Harness::new(&service, Transport::Http);
    let out = h.send(post(None, INITIALIZE).as_bytes());
    let sid = out
        .lines()
        .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
        .unwrap_or_else(|| panic!("initialize names its session: {out}"))
        .to_owned();
    let random = sid.strip_prefix("r2.").unwrap_or_else(|| panic!("{sid}"));
    assert_eq!(random.len(), 32, "{sid}");
    assert!(random.bytes().all(|b| b.is_ascii_hexdigit()), "{sid}");
    // The routed id names the session like any other.
    assert_eq!(
        h.send(post(Some(&sid), r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).as_bytes()),
        json_200(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
    );
    for bad in ["", "r 1", "r.1", "r1/", &"r".repeat(33), "é"] {
        let err = routed(bad).map(|_| ()).unwrap_err();
        assert_eq!(
            err,
            BuildError::InvalidSessionRoute(bad.to_owned()),
            "{bad:?}"
        );
    }
    assert!(routed(&"r-_9".repeat(8)).is_ok());
}

/// A session opened on a new HTTP connection, whose `tools/call` of
/// `greet` (request id `id`) now waits for the client's answer to its
/// `elicitation/create`.
fn waiting_call(service: &Service, id: &str) -> (Harness, String) {
    let mut a = Harness::new(service, Transport::Http);
    let sid = http_initialize(&mut a);
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"greet"}}}}"#
    );
    let out = a.send(post(Some(&sid), &call).as_bytes());
    assert!(out.contains("elicitation/create"), "{out}");
    (a, sid)
}

/// The connection running a session's call was told the session ended: it
/// was woken, the call is cancelled and its stream ends without a message.
fn assert_call_cancelled(a: &mut Harness) {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    assert!(
        a.conn.poll_changes(&mut cx).is_ready(),
        "the connection running the call is woken"
    );
    a.conn.handle_changes(a.now);
    assert_eq!(a.drain(), "0\r\n\r\n");
    assert_eq!(a.cancelled.len(), 1);
    assert_eq!(a.conn.in_flight(), 0);
}

/// `notifications/cancelled` arrives on another connection of the session
/// (`mcp-2025-11-25/basic/utilities/cancellation.mdx`): the call stops,
/// nothing is sent for it, and its stream ends without a message.
#[test]
fn http_cancellation_reaches_the_call_on_another_connection() {
    let service = service();
    let (mut a, sid) = waiting_call(&service, "c1");
    let mut b = Harness::new(&service, Transport::Http);
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1","reason":"changed my mind"}}"#;
    assert_eq!(
        b.send(post(Some(&sid), cancel).as_bytes()),
        "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
    );
    a.conn.handle_changes(a.now);
    assert_eq!(a.drain(), "0\r\n\r\n");
    assert_eq!(a.cancelled.len(), 1);
    // The late answer to its elicitation finds nothing waiting.
    assert!(b
        .send(
            post(
                Some(&sid),
                r#"{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"name":"Ada"}}}"#
            )
            .as_bytes()
        )
        .starts_with("HTTP/1.1 400 Bad Request\r\n"));
    // The first connection still serves the session.
    assert_eq!(
        a.send(post(Some(&sid), r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).as_bytes()),
        json_200(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#)
    );
}

/// DELETE ends the session and, with it, its calls still running on other
/// connections: a call waiting for the client's answer is cancelled and its
/// stream ends at once instead of after the call timeout.
#[test]
fn http_delete_cancels_the_sessions_calls() {
    let service = service();
    let (mut a, sid) = waiting_call(&service, "d1");
    let mut b = Harness::new(&service, Transport::Http);
    assert_eq!(
        b.send(format!("DELETE /mcp HTTP/1.1\r\nHost: localhost\r\nMcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n").as_bytes()),
        "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
    );
    assert_call_cancelled(&mut a);
    // The session is gone for everyone.
    assert!(a
        .send(post(Some(&sid), r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).as_bytes())
        .starts_with("HTTP/1.1 404 Not Found\r\n"));
}

/// Idle expiry ends a session the same way, whether a request naming it
/// finds it expired or a new `initialize` evicts it from a full store; the
/// 60 s call timeout has not passed either time.
#[test]
fn an_expired_session_cancels_its_calls() {
    let service = builder()
        .limits(
            Limits::default()
                .max_sessions(1)
                .session_idle_timeout(Duration::from_secs(10))
                .call_timeout(Some(Duration::from_secs(60))),
        )
        .build()
        .unwrap();
    for evict in [false, true] {
        let (mut a, sid) = waiting_call(&service, "e1");
        let mut b = Harness::new(&service, Transport::Http);
        b.now = Instant::from_nanos(a.now.as_nanos() + 11_000_000_000);
        if evict {
            let _ = http_initialize(&mut b);
        } else {
            assert!(b
                .send(post(Some(&sid), r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).as_bytes())
                .starts_with("HTTP/1.1 404 Not Found\r\n"));
        }
        assert_call_cancelled(&mut a);
        if evict {
            // The new session took the expired one's place.
            assert_eq!(service.sessions().map(|s| s.stats().open), Some(1));
        }
    }
}

/// A session's `tools/call` of `chatty` (request id `id`) on a new HTTP
/// connection, held: its handler has not run yet.
fn running_call(service: &Service, id: u64) -> (Harness, String) {
    let mut a = Harness::new(service, Transport::Http);
    let sid = http_initialize(&mut a);
    a.run_handlers = false;
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"chatty","_meta":{{"progressToken":"p"}}}}}}"#
    );
    assert_eq!(a.send(post(Some(&sid), &call).as_bytes()), "");
    assert_eq!(a.pending.len(), 1);
    (a, sid)
}

/// The HTTP client hangs up while its session call runs. In the
/// initialize-era dialects that is not a cancellation ("Disconnection
/// SHOULD NOT be interpreted as the client cancelling its request",
/// 2025-11-25 `transports.mdx` § Sending Messages): the call runs to its
/// end, what it writes goes nowhere, and the connection closes after it.
/// A 2026-07-28 call on the same service is cancelled by the same hang-up
/// (`streamable-http.mdx` § Cancellation).
#[test]
fn a_session_call_outlives_its_clients_hang_up() {
    let service = service();
    let (mut a, sid) = running_call(&service, 1);
    assert_eq!(a.close_input(), "");
    assert!(a.cancelled.is_empty(), "a hang-up is not a cancellation");
    assert!(!a.closed, "the connection waits for its call");
    assert_eq!(a.conn.in_flight(), 1);
    assert!(!a.conn.wants_input());
    // Only the call's deadline is left (300 s): no idle or slow-request
    // deadline of the vanished client.
    assert_eq!(
        a.conn.poll_timeout(),
        Some(Instant::from_nanos(a.now.as_nanos() + 300_000_000_000))
    );
    // Its log lines and its answer are dropped; then the connection closes.
    assert_eq!(a.run_pending(), "");
    assert!(a.closed);
    assert!(a.cancelled.is_empty());
    // The session lives on for its other connections.
    let mut b = Harness::new(&service, Transport::Http);
    assert_eq!(
        b.send(post(Some(&sid), r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).as_bytes()),
        json_200(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#)
    );

    let mut m = Harness::new(&service, Transport::Http);
    m.run_handlers = false;
    let modern = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"chatty","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: chatty\r\nContent-Length: {}\r\n\r\n{modern}",
        modern.len()
    );
    assert_eq!(m.send(request.as_bytes()), "");
    assert_eq!(m.pending.len(), 1);
    assert_eq!(m.close_input(), "");
    assert_eq!(m.cancelled.len(), 1, "2026-07-28: the hang-up cancels");
    assert!(m.closed);
}

/// After the hang-up the client can still stop the call: with
/// `notifications/cancelled` on another connection, or by ending the
/// session; and the call timeout still applies. Each time the call is
/// cancelled, nothing is written, and the connection closes.
#[test]
fn a_hung_up_session_call_can_still_be_stopped() {
    let service = service();
    let (mut a, sid) = running_call(&service, 1);
    a.close_input();
    let mut b = Harness::new(&service, Transport::Http);
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
    assert_eq!(
        b.send(post(Some(&sid), cancel).as_bytes()),
        "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
    );
    a.conn.handle_changes(a.now);
    assert_eq!(a.drain(), "");
    assert_eq!(a.cancelled.len(), 1);
    assert!(a.closed);

    let (mut a, sid) = running_call(&service, 2);
    a.close_input();
    assert_eq!(
        b.send(format!("DELETE /mcp HTTP/1.1\r\nHost: localhost\r\nMcp-Session-Id: {sid}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n").as_bytes()),
        "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
    );
    a.conn.handle_changes(a.now);
    assert_eq!(a.drain(), "");
    assert_eq!(a.cancelled.len(), 1);
    assert!(a.closed);

    let (mut a, _) = running_call(&service, 3);
    a.close_input();
    assert_eq!(a.advance(299_000), "");
    assert!(a.cancelled.is_empty() && !a.closed);
    assert_eq!(a.advance(1_000), "");
    assert_eq!(a.cancelled.len(), 1, "the call timeout still applies");
    assert!(a.closed);
}

/// A session call whose client left before it had a stream id to resume
/// from cannot ask it for input: no resume can carry the question. One
/// that asks after such a hang-up, or waits for an answer on a stream
/// without ids (`Limits::session_replay_bytes(0)`), ends with an error that
/// goes nowhere, and the connection closes at once instead of waiting for
/// the call timeout.
#[test]
fn a_session_call_cut_off_without_a_stream_id_cannot_ask_for_input() {
    let service = service();
    let mut a = Harness::new(&service, Transport::Http);
    let sid = http_initialize(&mut a);
    a.run_handlers = false;
    let greet = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"}}"#;
    assert_eq!(a.send(post(Some(&sid), greet).as_bytes()), "");
    a.close_input();
    assert!(!a.closed);
    assert_eq!(a.run_pending(), "");
    assert!(a.closed);
    assert_eq!(a.conn.in_flight(), 0);

    let service = builder()
        .limits(Limits::default().session_replay_bytes(0))
        .build()
        .unwrap();
    let (mut a, _) = waiting_call(&service, "w1");
    assert_eq!(a.close_input(), "");
    assert!(a.closed);
    assert_eq!(a.conn.in_flight(), 0);
}

/// EOF on stdio while a session call waits for the client's answer: the
/// answer can never come, so the call ends with an error and the
/// connection closes instead of waiting for the call deadline.
#[test]
fn stdio_eof_ends_a_call_waiting_for_an_answer() {
    let mut h = Harness::new(&service(), Transport::Stdio);
    h.send(format!("{INITIALIZE}\n").as_bytes());
    let out = h.send(
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"greet\"}}\n",
    );
    assert!(out.contains("elicitation/create"), "{out}");
    assert_eq!(
        lines(&h.close_input()),
        vec![parse(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"The client closed its input before answering the server's request"}}"#
        )]
    );
    assert!(h.closed);
}

/// What a session keeps is bounded: a subscribed URI, and the
/// capabilities and client info of `initialize`.
#[test]
fn session_state_is_bounded() {
    let mut h = Harness::new(&service(), Transport::Stdio);
    let huge = "x".repeat(70 * 1024);
    let out = lines(
        &h.send(
            format!(
                "{}\n",
                INITIALIZE.replace(r#"{"elicitation":{}}"#, &format!(r#"{{"x":"{huge}"}}"#))
            )
            .as_bytes(),
        ),
    );
    assert_eq!(
        out,
        vec![parse(
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"capabilities and clientInfo take more than 65536 bytes"}}"#
        )]
    );
    h.send(format!("{INITIALIZE}\n").as_bytes());
    let long = format!("test://{}", "u".repeat(5000));
    let out = lines(&h.send(
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{{"uri":"{long}"}}}}"#
        )
        .add_newline()
        .as_bytes(),
    ));
    assert_eq!(
        out,
        vec![parse(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Parameter uri is longer than 4096 bytes"}}"#
        )]
    );
}

/// A handler that never stops asking is failed after 16 rounds, so it
/// cannot hold its slot forever.
#[test]
fn a_handler_asking_forever_is_stopped_after_16_rounds() {
    let service = builder()
        .tool(
            Tool::new("nag", "Always asks"),
            |_: NoArgs, _ctx: Context| async move {
                let r: Reply<CallToolResult> = InputRequired::new()
                    .elicit(
                        "again",
                        ElicitRequest::form("Again?", json!({"type":"object","properties":{}})),
                    )
                    .into();
                r
            },
        )
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    h.send(format!("{INITIALIZE}\n").as_bytes());
    let mut out =
        lines(&h.send(b"{\"jsonrpc\":\"2.0\",\"id\":\"n\",\"method\":\"tools/call\",\"params\":{\"name\":\"nag\"}}\n"));
    for round in 1..=16u64 {
        assert_eq!(out.len(), 1, "round {round}: {out:?}");
        assert_eq!(out[0]["method"], json!("elicitation/create"));
        assert_eq!(out[0]["id"], json!(round));
        out = lines(&h.send(
            format!(r#"{{"jsonrpc":"2.0","id":{round},"result":{{"action":"accept","content":{{}}}}}}"#)
                .add_newline()
                .as_bytes(),
        ));
    }
    assert_eq!(
        out,
        vec![parse(
            r#"{"jsonrpc":"2.0","id":"n","error":{"code":-32603,"message":"Internal error"}}"#
        )]
    );
}

#[test]
fn a_session_subscribes_to_at_most_1024_resources() {
    let mut h = Harness::new(&service(), Transport::Stdio);
    h.send(format!("{INITIALIZE}\n").as_bytes());
    let mut batch = String::new();
    for i in 0..1025 {
        batch.push_str(&format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"resources/subscribe","params":{{"uri":"test://r/{i}"}}}}"#
        ));
        batch.push('\n');
    }
    let out = lines(&h.send(batch.as_bytes()));
    assert_eq!(out.len(), 1025);
    assert!(out[..1024].iter().all(|m| m["result"] == json!({})));
    assert_eq!(
        out[1024],
        parse(
            r#"{"jsonrpc":"2.0","id":1024,"error":{"code":-32602,"message":"Too many resource subscriptions in this session"}}"#
        )
    );
    // Subscribing again to a URI already held is not a new one.
    assert_eq!(
        lines(&h.send(b"{\"jsonrpc\":\"2.0\",\"id\":2000,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"test://r/7\"}}\n")),
        vec![parse(r#"{"jsonrpc":"2.0","id":2000,"result":{}}"#)]
    );
}

/// A session call waiting for an answer is still bound by `call_timeout`.
#[test]
fn a_call_waiting_for_an_answer_times_out() {
    let service = builder()
        .limits(Limits::default().call_timeout(Some(Duration::from_secs(1))))
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    h.send(format!("{INITIALIZE}\n").as_bytes());
    h.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"greet\"}}\n");
    assert_eq!(h.advance(999), "");
    assert_eq!(
        lines(&h.advance(1)),
        vec![parse(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Request timed out"}}"#
        )]
    );
    // Its answer, arriving late, writes nothing.
    assert_eq!(
        h.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}}\n"),
        ""
    );
}

/// The transport faults of the session verbs and headers, each with its
/// status (`mcp-2025-11-25/basic/transports.mdx`).
#[test]
fn http_session_faults() {
    let service = service();
    let mut h = Harness::new(&service, Transport::Http);
    let sid = http_initialize(&mut h);
    // GET and DELETE need the session id.
    assert_eq!(
        h.send(b"GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"),
        "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Bad Request: Mcp-Session-Id header is required\"}}"
    );
    // A GET that does not accept an event stream.
    let out = h.send(format!("GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\nMcp-Session-Id: {sid}\r\n\r\n").as_bytes());
    assert!(out.starts_with("HTTP/1.1 406 Not Acceptable\r\n"), "{out}");
    let mut h = Harness::new(&service, Transport::Http);
    assert_eq!(
        h.send(b"DELETE /mcp HTTP/1.1\r\nHost: localhost\r\nMcp-Session-Id: 0123\r\n\r\n"),
        "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 71\r\n\r\n{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}"
    );
    // With sessions the endpoint takes GET, POST and DELETE, and says so.
    let mut put = Harness::new(&service, Transport::Http);
    assert_eq!(
        put.send(format!("PUT /mcp HTTP/1.1\r\nHost: localhost\r\nMcp-Session-Id: {sid}\r\nContent-Length: 0\r\n\r\n").as_bytes()),
        "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 65\r\nAllow: GET, POST, DELETE\r\nConnection: close\r\n\r\nMethod Not Allowed: the MCP endpoint accepts GET, POST and DELETE"
    );
    // An unsupported MCP-Protocol-Version on a session request.
    let out = h.send(
        post(Some(&sid), r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
            .replace("2025-11-25", "1999-01-01")
            .as_bytes(),
    );
    assert_eq!(
        out,
        "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 106\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32000,\"message\":\"Bad Request: unsupported MCP-Protocol-Version\"}}"
    );
    // initialize inside the session is refused by its admission.
    assert_eq!(
        h.send(post(Some(&sid), &INITIALIZE.replace(r#""id":0"#, r#""id":2"#)).as_bytes()),
        json_200(
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"The session is already initialized"}}"#
        )
    );
}

/// Graceful shutdown ends a session's GET stream with its last chunk and
/// releases the session's claim on it.
#[test]
fn shutdown_ends_the_get_stream() {
    let service = service();
    let mut a = Harness::new(&service, Transport::Http);
    let sid = http_initialize(&mut a);
    let get = format!("GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n\r\n");
    let mut g = Harness::new(&service, Transport::Http);
    assert!(g.send(get.as_bytes()).starts_with("HTTP/1.1 200 OK\r\n"));
    g.conn.begin_shutdown(g.now);
    assert_eq!(g.drain(), "0\r\n\r\n");
    assert!(g.closed);
    let mut g2 = Harness::new(&service, Transport::Http);
    assert!(g2.send(get.as_bytes()).starts_with("HTTP/1.1 200 OK\r\n"));
}

/// A retryable refusal inside a session (here the rate limit) is a
/// JSON-RPC error like any other there: 200, no `Retry-After`, the wait in
/// the error's `data` (the initialize-era transports give HTTP statuses to
/// transport faults only). Without a session the same refusal is a 429.
#[test]
fn a_sessions_rate_limited_call_is_answered_200_with_the_error() {
    let service = builder()
        .rate_limit(snodo_proto::RateLimit::new(1, 1.0))
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Http);
    let sid = http_initialize(&mut h);
    let call = |id: u64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"chatty"}}}}"#
        )
    };
    let first = h.send(post(Some(&sid), &call(1)).as_bytes());
    assert!(first.starts_with("HTTP/1.1 200 OK\r\n"), "{first}");
    assert!(first.contains(r#""text":"done""#), "{first}");
    assert_eq!(
        h.send(post(Some(&sid), &call(2)).as_bytes()),
        json_200(
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"Rate limit exceeded","data":{"retryAfterSeconds":1,"retryable":true}}}"#
        )
    );
}

/// Each limitation a profile declares is still one: a check per
/// statement, on the wire, that fails once the limitation is lifted (and
/// a statement without a check fails), so the declarations cannot go
/// stale. (`basic/versioning.mdx` § Backward Compatibility: what an
/// initialize-era dialect serves of its revision is stated, not implied.)
#[test]
fn each_declared_limitation_is_still_a_limitation() {
    let declared = |p: &snodo_proto::Profile| {
        p.limitations
            .iter()
            .map(|l| (p.version, *l))
            .collect::<Vec<_>>()
    };
    let mut all = declared(&snodo_proto::REVISION_2026_07_28);
    all.extend(declared(&snodo_proto::REVISION_2025_11_25));
    all.extend(declared(&snodo_proto::REVISION_2025_06_18));
    for (version, limitation) in all {
        match limitation {
            "the experimental task methods of this revision are not served" => {
                let mut h = Harness::new(&service(), Transport::Stdio);
                h.send(format!("{INITIALIZE}\n").as_bytes());
                assert_eq!(
                    lines(&h.send(
                        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"taskId\":\"t\"}}\n"
                    )),
                    vec![parse(
                        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: tasks/get"}}"#
                    )],
                    "{version}: {limitation}"
                );
            }
            other => panic!("{version}: no wire check for the declared limitation {other:?}"),
        }
    }
}

/// The service of the URL-mode tests: `open_url` sends the user to a
/// page, with the elicitation id the page knows it by when `id` is set.
fn url_service() -> Service {
    url_tools(builder()).build().unwrap()
}

fn url_tools(builder: snodo_proto::ServiceBuilder) -> snodo_proto::ServiceBuilder {
    let ask = |ctx: Context, id: Option<&str>| match ctx.elicitation("visit") {
        Some(r) if r.is_accepted() => Reply::Complete(CallToolResult::text("visited")),
        Some(_) => Reply::Complete(CallToolResult::text("not visited")),
        None => {
            let mut visit = ElicitRequest::url("Sign in", "https://example.com/sign-in");
            if let Some(id) = id {
                visit = visit.with_elicitation_id(id);
            }
            InputRequired::new().elicit("visit", visit).into()
        }
    };
    builder
        .tool(
            Tool::new("open_url", "Sends the user to a page"),
            move |_: NoArgs, ctx: Context| async move { ask(ctx, None) },
        )
        .tool(
            Tool::new("open_known_url", "The same, with its own id"),
            move |_: NoArgs, ctx: Context| async move { ask(ctx, Some("sign-in-42")) },
        )
        .tool(
            Tool::new("needs_sign_in", "Refuses until the user signed in"),
            |_: NoArgs| async {
                Err::<CallToolResult, _>(ErrorObject::url_elicitation_required(
                    "sign-in-43",
                    "Sign in first",
                    "https://example.com/sign-in?e=sign-in-43",
                ))
            },
        )
}

const URL_INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"url":{}}},"clientInfo":{"name":"legacy","version":"1.0.0"}}}"#;

#[test]
fn a_session_url_elicitation_carries_the_elicitation_id_2025_11_25_requires() {
    let service = url_service();
    let mut h = Harness::new(&service, Transport::Stdio);
    h.send(format!("{URL_INITIALIZE}\n").as_bytes());
    h.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    // schema.ts ElicitRequestURLParams: mode, message, elicitationId, url.
    let asked = h.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"open_known_url\"}}\n");
    assert_eq!(
        lines(&asked),
        [parse(
            r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/sign-in","elicitationId":"sign-in-42"}}"#
        )]
    );
    let done = h.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"accept\"}}\n");
    assert_eq!(
        lines(&done),
        [parse(
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"visited"}]}}"#
        )]
    );
    // Without an id of its own, the request gets one: on stdio, the
    // number of the server's request.
    let asked = h.send(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"open_url\"}}\n");
    assert_eq!(
        lines(&asked),
        [parse(
            r#"{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"mode":"url","message":"Sign in","url":"https://example.com/sign-in","elicitationId":"2"}}"#
        )]
    );
    let done = h.send(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"action\":\"decline\"}}\n");
    assert_eq!(
        lines(&done),
        [parse(
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"not visited"}]}}"#
        )]
    );
}

#[test]
fn url_elicitation_required_is_the_2025_11_25_error_with_its_elicitations() {
    let service = url_service();
    let mut h = Harness::new(&service, Transport::Stdio);
    h.send(format!("{URL_INITIALIZE}\n").as_bytes());
    h.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    let out = h.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"needs_sign_in\"}}\n");
    // client/elicitation.mdx (2025-11-25) § URL Elicitation Required Error.
    assert_eq!(
        lines(&out),
        [parse(
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32042,"message":"This request requires more information.","data":{"elicitations":[{"mode":"url","message":"Sign in first","url":"https://example.com/sign-in?e=sign-in-43","elicitationId":"sign-in-43"}]}}}"#
        )]
    );
}

#[test]
fn a_completed_url_elicitation_is_announced_once_to_its_session_only() {
    let service = url_service();
    let mut h = Harness::new(&service, Transport::Stdio);
    h.send(format!("{URL_INITIALIZE}\n").as_bytes());
    h.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    h.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"open_known_url\"}}\n");
    h.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"accept\"}}\n");
    let complete = |id: &str| ChangeEvent::ElicitationComplete {
        elicitation_id: id.into(),
    };
    // An id this session was never sent: nothing (clients MUST ignore
    // unknown ids, so none is sent).
    h.conn.publish(&complete("sign-in-41"), h.now);
    assert_eq!(h.drain(), "");
    // 2025-11-25 client/elicitation.mdx § Completion Notifications.
    h.conn.publish(&complete("sign-in-42"), h.now);
    assert_eq!(
        lines(&h.drain()),
        [parse(
            r#"{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"sign-in-42"}}"#
        )]
    );
    // Once: the id is completed.
    h.conn.publish(&complete("sign-in-42"), h.now);
    assert_eq!(h.drain(), "");
}

#[test]
fn a_completed_url_elicitation_reaches_the_sessions_get_stream() {
    let hub = snodo_proto::Hub::default();
    let service = url_tools(builder().hub(hub.clone())).build().unwrap();
    let mut a = Harness::new(&service, Transport::Http);
    let out = a.send(post(None, URL_INITIALIZE).as_bytes());
    let sid = out
        .lines()
        .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
        .expect("initialize names its session")
        .to_owned();
    let get = format!("GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n\r\n");
    let mut g = Harness::new(&service, Transport::Http);
    assert_eq!(
        g.send(get.as_bytes()),
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n"
    );
    // A second session that was sent nothing hears nothing.
    let mut other = Harness::new(&service, Transport::Http);
    let out = other.send(post(None, URL_INITIALIZE).as_bytes());
    let other_sid = out
        .lines()
        .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
        .expect("initialize names its session")
        .to_owned();
    let other_get = get.replace(&sid, &other_sid);
    let mut og = Harness::new(&service, Transport::Http);
    assert!(og
        .send(other_get.as_bytes())
        .starts_with("HTTP/1.1 200 OK\r\n"));
    let asked = a.send(
        post(
            Some(&sid),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"open_url"}}"#,
        )
        .as_bytes(),
    );
    // The id the server made up: the session's, then its request's.
    let request = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{{"elicitationId":"{sid}-1","message":"Sign in","mode":"url","url":"https://example.com/sign-in"}}}}"#
    );
    let event = format!("id: p1-1\ndata: {request}\n\n");
    assert_eq!(
        asked,
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n11\r\nid: p1-0\ndata: \n\n\r\n{:x}\r\n{event}\r\n",
            event.len()
        )
    );
    hub.publish(ChangeEvent::ElicitationComplete {
        elicitation_id: format!("{sid}-1"),
    });
    g.conn.handle_changes(g.now);
    og.conn.handle_changes(og.now);
    let note = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{{"elicitationId":"{sid}-1"}}}}"#
    );
    let event = format!("id: g1\ndata: {note}\n\n");
    assert_eq!(g.drain(), format!("{:x}\r\n{event}\r\n", event.len()));
    assert_eq!(og.drain(), "");
}

// ---- HTTP: resuming a POST's stream ----

/// One SSE event as a chunk of the response.
fn chunk(event: &str) -> String {
    format!("{:x}\r\n{event}\r\n", event.len())
}

const GREET: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"}}"#;

const ASK_NAME: &str = r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"What is your name?","mode":"form","requestedSchema":{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}}}"#;

const ADA: &str =
    r#"{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"name":"Ada"}}}"#;

const HELLO_ADA: &str =
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"Hello, Ada!","type":"text"}]}}"#;

const ACCEPTED: &str = "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n";

/// The question as event `p1-1` of the first POST stream.
fn asked() -> String {
    chunk(&format!("id: p1-1\ndata: {ASK_NAME}\n\n"))
}

/// The answer as event `p1-2`, and the end of the stream.
fn answered() -> String {
    format!(
        "{}0\r\n\r\n",
        chunk(&format!("id: p1-2\ndata: {HELLO_ADA}\n\n"))
    )
}

impl Resumable {
    /// A POST of the session, on `h`, with the session's version.
    fn post(&self, h: &mut Harness, body: &str) -> String {
        h.send(
            post(Some(&self.sid), body)
                .replace("2025-11-25", self.version)
                .as_bytes(),
        )
    }

    /// `greet` on a new connection: the stream opens and asks for a name.
    fn greet(&self) -> Harness {
        let mut a = Harness::new(&self.service, Transport::Http);
        let out = self.post(&mut a, GREET);
        let priming = match self.version {
            "2025-11-25" => chunk("id: p1-0\ndata: \n\n"),
            _ => String::new(),
        };
        assert_eq!(
            out,
            format!("{SSE_HEAD}{priming}{}", asked()),
            "{}",
            self.version
        );
        a
    }

    /// The client's answer, on a connection of its own.
    fn answer(&self) {
        let mut b = Harness::new(&self.service, Transport::Http);
        assert_eq!(self.post(&mut b, ADA), ACCEPTED);
    }
}

/// Both initialize-era revisions' `basic/transports.mdx` § Resumability
/// and Redelivery, for a POST's stream: the client's connection breaks
/// after the question; the call goes on (a disconnection is not a
/// cancellation). The client resumes with a GET naming the stream's last
/// event it got, gets the question again, answers on another connection,
/// and the resumed stream carries the call's answer and ends. The
/// connection the call ran on writes nothing more and closes after it.
/// 2025-11-25 primes the stream with an id and empty data first
/// (§ Sending Messages to the Server 6); 2025-06-18 had no priming.
#[test]
fn a_post_stream_resumed_after_a_hang_up_gets_the_rest_of_its_call() {
    for (version, last) in [("2025-11-25", "p1-0"), ("2025-06-18", "p1-0")] {
        let r = Resumable::new(version, Limits::default());
        let mut a = r.greet();
        assert_eq!(a.close_input(), "");
        assert!(!a.closed, "{version}: the call waits on");
        assert_eq!(a.conn.in_flight(), 1);
        let (mut g, out) = r.open(Some(last));
        assert_eq!(
            out,
            format!("{SSE_HEAD}{}", asked()),
            "{version}: what followed {last}"
        );
        // A GET stream event of the session is not for this stream
        // (§ Resumability and Redelivery 2).
        r.updated();
        g.conn.handle_changes(g.now);
        assert_eq!(g.drain(), "", "{version}");
        r.answer();
        a.conn.handle_changes(a.now);
        assert_eq!(
            a.drain(),
            "",
            "{version}: the old connection writes nothing"
        );
        assert!(a.closed, "{version}");
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        assert!(g.conn.poll_changes(&mut cx).is_ready(), "{version}");
        g.conn.handle_changes(g.now);
        assert_eq!(g.drain(), answered(), "{version}");
        assert!(!g.closed, "{version}: the GET's connection stays usable");
    }
}

/// A resume takes the stream over from a POST connection the server has
/// not seen break (a proxy cut it): that connection writes nothing more,
/// every later message goes out once, on the resumed stream, and a second
/// resume takes it over again.
#[test]
fn a_resume_takes_a_post_stream_over_from_a_connection_still_open() {
    let r = Resumable::new("2025-11-25", Limits::default());
    let mut a = r.greet();
    let (mut g1, out) = r.open(Some("p1-1"));
    assert_eq!(out, SSE_HEAD, "nothing was missed");
    let (mut g2, out) = r.open(Some("p1-0"));
    assert_eq!(out, format!("{SSE_HEAD}{}", asked()));
    // The first resume ends, empty.
    g1.conn.handle_changes(g1.now);
    assert_eq!(g1.drain(), "0\r\n\r\n");
    r.answer();
    a.conn.handle_changes(a.now);
    assert_eq!(a.drain(), "");
    assert!(a.closed, "let go once its call ended");
    g2.conn.handle_changes(g2.now);
    assert_eq!(g2.drain(), answered());
}

/// The client got cut off just before the answer, or just after it: a
/// resume replays what followed its last event and ends at once. An id
/// the stream never gave, or of a stream the session does not have, is
/// not resumed: the GET stream opens instead, and carries no POST
/// stream's message.
#[test]
fn a_post_stream_answered_replays_its_end() {
    let r = Resumable::new("2025-11-25", Limits::default());
    let mut a = r.greet();
    r.answer();
    a.conn.handle_changes(a.now);
    assert_eq!(a.drain(), answered());
    let (g, out) = r.open(Some("p1-1"));
    assert_eq!(out, format!("{SSE_HEAD}{}", answered()));
    assert!(!g.closed);
    let (_, out) = r.open(Some("p1-2"));
    assert_eq!(out, format!("{SSE_HEAD}0\r\n\r\n"));
    for unknown in ["p1-3", "p2-0"] {
        let (mut g, out) = r.open(Some(unknown));
        assert_eq!(out, SSE_HEAD, "{unknown}: the GET stream");
        r.updated();
        g.conn.handle_changes(g.now);
        assert!(g.drain().contains("notifications/resources/updated"));
        g.close_input();
    }
}

/// The client cancels its cut-off call from another connection: the
/// resumed stream ends without a message, as the call's own stream would.
#[test]
fn a_cancelled_call_ends_its_resumed_stream() {
    let r = Resumable::new("2025-11-25", Limits::default());
    let mut a = r.greet();
    a.close_input();
    let (mut g, _) = r.open(Some("p1-1"));
    let mut b = Harness::new(&r.service, Transport::Http);
    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
    assert_eq!(r.post(&mut b, cancel), ACCEPTED);
    a.conn.handle_changes(a.now);
    assert_eq!(a.drain(), "");
    assert_eq!(a.cancelled.len(), 1);
    assert!(a.closed);
    g.conn.handle_changes(g.now);
    assert_eq!(g.drain(), "0\r\n\r\n");
}

/// Every stream's events share the session's replay budget
/// (`Limits::session_replay_bytes`), so a session keeps at most that much
/// however many streams it opens; without a budget a POST's stream has no
/// ids and no priming event, as before resumability.
#[test]
fn post_streams_share_the_replay_budget() {
    // Room for the question only.
    let r = Resumable::new(
        "2025-11-25",
        Limits::default().session_replay_bytes(ASK_NAME.len() + 32),
    );
    let mut a = r.greet();
    a.close_input();
    r.answer();
    a.conn.handle_changes(a.now);
    assert_eq!(a.drain(), "");
    // The answer took the question's place: a resume from before the
    // question gets the answer alone.
    let (_, out) = r.open(Some("p1-0"));
    assert_eq!(out, format!("{SSE_HEAD}{}", answered()));

    let service = builder()
        .limits(Limits::default().session_replay_bytes(0))
        .build()
        .unwrap();
    let mut a = Harness::new(&service, Transport::Http);
    let sid = http_initialize(&mut a);
    assert_eq!(
        a.send(post(Some(&sid), GREET).as_bytes()),
        format!("{SSE_HEAD}{}", chunk(&format!("data: {ASK_NAME}\n\n")))
    );
}

/// A session keeps at most 64 POST streams: past that, the oldest answered
/// one goes, and a resume naming it opens the GET stream instead; a kept
/// one still resumes.
#[test]
fn a_session_keeps_its_latest_64_post_streams() {
    let r = Resumable::new("2025-11-25", Limits::default());
    let mut a = Harness::new(&r.service, Transport::Http);
    let level =
        r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}"#;
    assert_eq!(
        r.post(&mut a, level),
        json_200(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
    );
    let chatty = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"chatty"}}"#;
    for k in 1..=65 {
        let out = r.post(&mut a, chatty);
        assert!(
            out.contains(&format!("id: p{k}-0\ndata: \n\n")) && out.ends_with("\r\n0\r\n\r\n"),
            "{k}: {out}"
        );
    }
    let (_, out) = r.open(Some("p2-0"));
    assert_eq!(
        out,
        format!("{SSE_HEAD}0\r\n\r\n"),
        "kept, its events past the budget"
    );
    let (_, out) = r.open(Some("p1-0"));
    assert_eq!(out, SSE_HEAD, "gone: the GET stream");
}

/// A session whose POST stream a client is following after a resume is
/// not idle: it outlives `session_idle_timeout`, as one with its GET
/// stream open does; once the stream is over it expires as usual.
#[test]
fn a_resumed_post_stream_keeps_its_session() {
    let r = Resumable::new(
        "2025-11-25",
        Limits::default().session_idle_timeout(Duration::from_secs(10)),
    );
    let mut a = r.greet();
    a.close_input();
    let (mut g, _) = r.open(Some("p1-1"));
    let later = Instant::from_nanos(11_000_000_000);
    let mut b = Harness::new(&r.service, Transport::Http);
    b.now = later;
    assert_eq!(r.post(&mut b, ADA), ACCEPTED, "the session is still there");
    a.now = later;
    a.conn.handle_changes(a.now);
    a.drain();
    g.now = later;
    g.conn.handle_changes(g.now);
    assert!(g.drain().contains("Hello, Ada!"));
    b.now = Instant::from_nanos(22_000_000_000);
    assert!(r
        .post(&mut b, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#)
        .starts_with("HTTP/1.1 404 Not Found\r\n"));
}

/// A resume's connection going away lets go of the stream: the session
/// can then expire when idle, and a later resume still gets the call's
/// answer, which the calling connection recorded meanwhile.
#[test]
fn a_resume_that_goes_away_lets_go_of_its_stream() {
    let r = Resumable::new(
        "2025-11-25",
        Limits::default().session_idle_timeout(Duration::from_secs(10)),
    );
    let mut a = r.greet();
    a.close_input();
    let (mut g, _) = r.open(Some("p1-1"));
    g.close_input();
    assert!(g.closed);
    r.answer();
    a.conn.handle_changes(a.now);
    assert_eq!(a.drain(), "");
    let (_, out) = r.open(Some("p1-1"));
    assert_eq!(out, format!("{SSE_HEAD}{}", answered()));
    let mut b = Harness::new(&r.service, Transport::Http);
    b.now = Instant::from_nanos(11_000_000_000);
    assert!(
        r.post(&mut b, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#)
            .starts_with("HTTP/1.1 404 Not Found\r\n"),
        "nothing follows the stream any more: the idle session expired"
    );
}

/// With all 64 of a session's kept POST streams still running, a 65th
/// gets no ids (nothing of it is kept, so nothing can be resumed) rather
/// than pushing out a stream whose call is still going.
#[test]
fn past_64_running_post_streams_a_new_one_has_no_ids() {
    let r = Resumable::new("2025-11-25", Limits::default());
    let mut running = Vec::new();
    for k in 1..=64 {
        let mut a = Harness::new(&r.service, Transport::Http);
        let out = r.post(&mut a, GREET);
        assert!(out.contains(&format!("id: p{k}-1\n")), "{k}: {out}");
        running.push(a);
    }
    let mut a = Harness::new(&r.service, Transport::Http);
    let out = r.post(&mut a, GREET);
    assert!(out.starts_with(SSE_HEAD), "{out}");
    assert!(
        !out.contains("id: ") && out.contains("elicitation/create"),
        "{out}"
    );
    // The first is still there to resume.
    let (_, out) = r.open(Some("p1-0"));
    assert!(out.contains("id: p1-1\n"), "{out}");
}
