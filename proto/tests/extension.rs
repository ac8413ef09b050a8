//! The extension mechanism, with a toy extension `com.example/notes`:
//! advertised only when installed, owned methods gated by the request's
//! declared extensions (after "method known", before params), collisions
//! refused at build, middleware over `tools/call` that may answer only for
//! declaring clients, `Mcp-Name` mirrors for its methods on HTTP, listen
//! filter members and scoped notifications, and faults answered `-32603`.
//! Requests and answers are literal wire text.

mod support;

use serde_json::{json, Map, Value};
use snodo_proto::extension::{CoreCall, ListenCall, MethodCall};
use snodo_proto::{
    BuildError, CallToolResult, ChangeEvent, ErrorObject, Extension, ExtensionError,
    ExtensionEvent, ExtensionMethod, Implementation, Limits, NoArgs, Request, Service, Step,
    Subscribed, Tool, Transport, Wrap,
};
use std::collections::BTreeSet;
use std::time::Duration;
use support::Harness;

const ID: &str = "com.example/notes";

struct Notes;

const METHODS: &[ExtensionMethod] = &[
    ExtensionMethod::named_by("notes/get", "noteId"),
    ExtensionMethod::new("notes/fault"),
    ExtensionMethod::new("notes/malformed"),
    ExtensionMethod::new("notes/broken"),
    ExtensionMethod::new("notes/never"),
];

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("literal objects only"),
    }
}

impl Extension for Notes {
    fn id(&self) -> &str {
        ID
    }

    fn settings(&self) -> Map<String, Value> {
        obj(json!({"color": "blue"}))
    }

    fn methods(&self) -> &[ExtensionMethod] {
        METHODS
    }

    fn handle(&self, call: &MethodCall<'_>) -> Step {
        match call.method {
            "notes/get" => match call.params.get("noteId") {
                Some(Value::String(n)) if n == "n1" => {
                    Step::Defer(Box::pin(async { Ok(obj(json!({"text": "first"}))) }))
                }
                Some(Value::String(_)) => Step::Error(ErrorObject::invalid_params("No such note")),
                _ => Step::Error(ErrorObject::invalid_params("noteId must be a string")),
            },
            "notes/fault" => Step::Fault(String::from("disk on fire")),
            "notes/malformed" => Step::Result(obj(json!({"resultType": 42}))),
            "notes/broken" => Step::Defer(Box::pin(async {
                Err(ExtensionError::Fault(String::from("store unreachable")))
            })),
            _ => Step::Defer(Box::pin(std::future::pending())),
        }
    }

    fn wraps(&self) -> &[&'static str] {
        &["tools/call"]
    }

    fn wrap(&self, call: &CoreCall<'_>, negotiated: bool) -> Wrap {
        let Request::CallTool { name, arguments } = call.request else {
            return Wrap::Pass;
        };
        match &**name {
            "noted" if negotiated => {
                let text = arguments.get("text").cloned().unwrap_or(Value::Null);
                Wrap::Answer(Step::Defer(Box::pin(async move {
                    Ok(obj(
                        json!({"resultType": "note", "noteId": "n1", "text": text}),
                    ))
                })))
            }
            "noted" => Wrap::Require,
            "rogue" => Wrap::Answer(Step::Result(obj(json!({"resultType": "note"})))),
            _ => Wrap::Pass,
        }
    }

    fn listen_keys(&self) -> &[&'static str] {
        &["noteIds"]
    }

    fn listen(&self, call: &ListenCall<'_>) -> Result<Subscribed, ErrorObject> {
        let Some(Value::Array(ids)) = call.members.get("noteIds") else {
            return Err(ErrorObject::invalid_params("noteIds must be an array"));
        };
        let topics: BTreeSet<String> = ids
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect();
        let mut ack = Map::new();
        ack.insert(
            String::from("noteIds"),
            Value::Array(topics.iter().cloned().map(Value::String).collect()),
        );
        Ok(Subscribed {
            topics,
            scope: call.meta.client_info.as_ref().map(|i| i.name.clone()),
            ack,
            ..Subscribed::default()
        })
    }
}

fn builder() -> snodo_proto::ServiceBuilder {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .limits(Limits::default().call_timeout(Some(Duration::from_secs(1))))
        .tool(Tool::new("plain", "Core answers"), |_: NoArgs| async {
            CallToolResult::text("core")
        })
        .tool(
            Tool::new("noted", "The extension answers").input_schema(json!({
                "type": "object",
                "properties": {"text": {"type": "string"}}
            })),
            |_: NoArgs| async { CallToolResult::text("core") },
        )
        .tool(Tool::new("rogue", "Answered wrongly"), |_: NoArgs| async {
            CallToolResult::text("core")
        })
}

fn service() -> Service {
    builder().extension(Notes).build().unwrap()
}

const PLAIN: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const DECLARED: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"com.example/notes":{}}}}"#;

fn request(id: u64, method: &str, params: &str, meta: &str) -> String {
    let sep = if params.is_empty() { "" } else { "," };
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"{method}\",\"params\":{{{params}{sep}{meta}}}}}\n"
    )
}

fn stdio(service: &Service) -> Harness {
    Harness::new(service, Transport::Stdio)
}

const MISSING: &str = r#""error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"extensions":{"com.example/notes":{}}}}}"#;

#[test]
fn advertised_only_when_installed() {
    let mut with = stdio(&service());
    assert_eq!(
        with.send(request(1, "server/discover", "", PLAIN).as_bytes()),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"t\",\"version\":\"1\"}},\"cacheScope\":\"public\",\"capabilities\":{\"extensions\":{\"com.example/notes\":{\"color\":\"blue\"}},\"tools\":{}},\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],\"ttlMs\":60000}}\n"
    );
    let mut without = stdio(&builder().build().unwrap());
    assert_eq!(
        without.send(request(1, "server/discover", "", PLAIN).as_bytes()),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"t\",\"version\":\"1\"}},\"cacheScope\":\"public\",\"capabilities\":{\"tools\":{}},\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],\"ttlMs\":60000}}\n"
    );
    // Not installed: its methods are unknown, declared or not.
    assert_eq!(
        without.send(request(2, "notes/get", r#""noteId":"n1""#, DECLARED).as_bytes()),
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601,\"message\":\"Method not found: notes/get\"}}\n"
    );
}

#[test]
fn owned_methods_are_gated_before_their_params() {
    let mut h = stdio(&service());
    // Gate before params: bad params, undeclared extension -> -32021.
    assert_eq!(
        h.send(request(1, "notes/get", r#""noteId":7"#, PLAIN).as_bytes()),
        format!("{{\"jsonrpc\":\"2.0\",\"id\":1,{MISSING}}}\n")
    );
    // Declared: params are checked by the extension.
    assert_eq!(
        h.send(request(2, "notes/get", r#""noteId":7"#, DECLARED).as_bytes()),
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32602,\"message\":\"noteId must be a string\"}}\n"
    );
    // A deferred answer goes out as an invocation and comes back shaped.
    assert_eq!(
        h.send(request(3, "notes/get", r#""noteId":"n1""#, DECLARED).as_bytes()),
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"t\",\"version\":\"1\"}},\"resultType\":\"complete\",\"text\":\"first\"}}\n"
    );
    // Declared on an earlier request does not count (per-request capabilities).
    assert_eq!(
        h.send(request(4, "notes/get", r#""noteId":"n1""#, PLAIN).as_bytes()),
        format!("{{\"jsonrpc\":\"2.0\",\"id\":4,{MISSING}}}\n")
    );
    // Method known comes before the gate.
    assert_eq!(
        h.send(request(5, "notes/unknown", "", PLAIN).as_bytes()),
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32601,\"message\":\"Method not found: notes/unknown\"}}\n"
    );
}

#[test]
fn faults_are_internal_errors_and_never_hang() {
    let mut h = stdio(&service());
    let internal = |id: u64| {
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":-32603,\"message\":\"Internal error\"}}}}\n")
    };
    assert_eq!(
        h.send(request(1, "notes/fault", "", DECLARED).as_bytes()),
        internal(1)
    );
    assert_eq!(
        h.send(request(2, "notes/malformed", "", DECLARED).as_bytes()),
        internal(2)
    );
    assert_eq!(
        h.send(request(3, "notes/broken", "", DECLARED).as_bytes()),
        internal(3)
    );
    // A deferred answer that never resolves is bounded by the call timeout.
    h.run_handlers = false;
    assert_eq!(
        h.send(request(4, "notes/never", "", DECLARED).as_bytes()),
        ""
    );
    assert_eq!(h.pending.len(), 1);
    assert_eq!(
        h.advance(1000),
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32603,\"message\":\"Request timed out\"}}\n"
    );
    assert_eq!(h.cancelled.len(), 1);
}

#[test]
fn middleware_answers_only_for_declaring_clients() {
    let mut h = stdio(&service());
    let noted = r#""name":"noted","arguments":{"text":"hi"}"#;
    assert_eq!(
        h.send(request(1, "tools/call", noted, DECLARED).as_bytes()),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"t\",\"version\":\"1\"}},\"noteId\":\"n1\",\"resultType\":\"note\",\"text\":\"hi\"}}\n"
    );
    // Without the extension the call cannot be served: -32021.
    assert_eq!(
        h.send(request(2, "tools/call", noted, PLAIN).as_bytes()),
        format!("{{\"jsonrpc\":\"2.0\",\"id\":2,{MISSING}}}\n")
    );
    // Core admission still comes first: invalid arguments are -32602.
    assert_eq!(
        h.send(request(3, "tools/call", r#""name":"noted","arguments":{"text":1}"#, DECLARED).as_bytes()),
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"Invalid arguments for tool noted: /text: 1 is not of type \\\"string\\\"\"}}\n"
    );
    // Passed through: the core answers.
    assert_eq!(
        h.send(request(4, "tools/call", r#""name":"plain""#, DECLARED).as_bytes()),
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"t\",\"version\":\"1\"}},\"content\":[{\"text\":\"core\",\"type\":\"text\"}],\"resultType\":\"complete\"}}\n"
    );
    // An extension answering a client that did not declare it is a fault.
    assert_eq!(
        h.send(request(5, "tools/call", r#""name":"rogue""#, PLAIN).as_bytes()),
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32603,\"message\":\"Internal error\"}}\n"
    );
}

fn http_post(headers: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn http_body(out: &str) -> (&str, &str) {
    let status = out.split("\r\n").next().unwrap_or("");
    let body = out.split("\r\n\r\n").nth(1).unwrap_or("");
    (status, body)
}

#[test]
fn mcp_name_mirrors_the_named_param_on_http() {
    let service = service();
    let body = request(1, "notes/get", r#""noteId":"n1""#, DECLARED);
    let body = body.trim_end();
    for (headers, status, expected) in [
        (
            "Mcp-Method: notes/get\r\n",
            "HTTP/1.1 400 Bad Request",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32020,\"message\":\"Header mismatch: missing required header Mcp-Name\"}}",
        ),
        (
            "Mcp-Method: notes/get\r\nMcp-Name: n2\r\n",
            "HTTP/1.1 400 Bad Request",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32020,\"message\":\"Header mismatch: Mcp-Name header does not match the request body\"}}",
        ),
        (
            "Mcp-Method: notes/get\r\nMcp-Name: n1\r\n",
            "HTTP/1.1 200 OK",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"t\",\"version\":\"1\"}},\"resultType\":\"complete\",\"text\":\"first\"}}",
        ),
    ] {
        let mut h = Harness::new(&service, Transport::Http);
        let out = h.send(http_post(headers, body).as_bytes());
        let (got_status, got_body) = http_body(&out);
        assert_eq!(got_status, status, "{headers:?}");
        assert_eq!(got_body, expected, "{headers:?}");
    }
    // The header check comes before the extension gate
    // (conformance/SCENARIOS-2026-07-28.md § 4).
    let undeclared = request(2, "notes/get", r#""noteId":"n1""#, PLAIN);
    let mut h = Harness::new(&service, Transport::Http);
    let out = h.send(
        http_post(
            "Mcp-Method: notes/get\r\nMcp-Name: other\r\n",
            undeclared.trim_end(),
        )
        .as_bytes(),
    );
    assert!(http_body(&out).1.contains("-32020"), "{out}");
    let mut h = Harness::new(&service, Transport::Http);
    let out = h.send(
        http_post(
            "Mcp-Method: notes/get\r\nMcp-Name: n1\r\n",
            undeclared.trim_end(),
        )
        .as_bytes(),
    );
    assert_eq!(
        http_body(&out),
        (
            "HTTP/1.1 400 Bad Request",
            format!("{{\"jsonrpc\":\"2.0\",\"id\":2,{MISSING}}}").as_str()
        )
    );
}

#[test]
fn listen_members_are_gated_acknowledged_and_scoped() {
    let service = service();
    let mut h = stdio(&service);
    let listen = |id: u64, meta: &str| {
        request(
            id,
            "subscriptions/listen",
            r#""notifications":{"noteIds":["n1","n2"],"toolsListChanged":true}"#,
            meta,
        )
    };
    assert_eq!(
        h.send(listen(1, PLAIN).as_bytes()),
        format!("{{\"jsonrpc\":\"2.0\",\"id\":1,{MISSING}}}\n")
    );
    let alice = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"alice","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"com.example/notes":{}}}}"#;
    assert_eq!(
        h.send(listen(2, alice).as_bytes()),
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":2},\"notifications\":{\"noteIds\":[\"n1\",\"n2\"]}}}\n",
        "tool list changes are not declared, so only the extension's members are acknowledged"
    );
    let event = |topic: &str, scope: &str| {
        ChangeEvent::Extension(ExtensionEvent::new(
            ID,
            topic,
            Some(String::from(scope)),
            "notifications/notes",
            &obj(json!({"noteId": topic, "_meta": {"com.example/rev": 3}})),
        ))
    };
    h.conn.publish(&event("n1", "alice"), h.now);
    assert_eq!(
        h.drain(),
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/notes\",\"params\":{\"_meta\":{\"com.example/rev\":3,\"io.modelcontextprotocol/subscriptionId\":2},\"noteId\":\"n1\"}}\n"
    );
    h.conn.publish(&event("n3", "alice"), h.now);
    h.conn.publish(&event("n1", "mallory"), h.now);
    assert_eq!(
        h.drain(),
        "",
        "other topics and other scopes are not delivered"
    );
}

struct Claims(&'static [ExtensionMethod]);

impl Extension for Claims {
    fn id(&self) -> &str {
        "com.example/claims"
    }
    fn methods(&self) -> &[ExtensionMethod] {
        self.0
    }
}

struct Named(&'static str);

impl Extension for Named {
    fn id(&self) -> &str {
        self.0
    }
}

struct Wraps(&'static str);

impl Extension for Wraps {
    fn id(&self) -> &str {
        "com.example/wraps"
    }
    fn wraps(&self) -> &[&'static str] {
        std::slice::from_ref(&self.0)
    }
}

struct Keys;

impl Extension for Keys {
    fn id(&self) -> &str {
        "com.example/keys"
    }
    fn listen_keys(&self) -> &[&'static str] {
        &["toolsListChanged"]
    }
}

#[test]
fn registration_refuses_collisions_and_bad_identifiers() {
    let collision =
        |m: &'static [ExtensionMethod]| Service::builder().extension(Claims(m)).build().err();
    for method in [
        "tools/list",              // core, implemented
        "notifications/cancelled", // core notification
        "elicitation/create",      // core, embedded only
        "ping",                    // removed by this revision
        "initialize",              // removed by this revision
    ] {
        let methods: &'static [ExtensionMethod] =
            Box::leak(Box::new([ExtensionMethod::new(method)]));
        assert_eq!(
            collision(methods),
            Some(BuildError::ExtensionMethodCollision {
                extension: String::from("com.example/claims"),
                method: String::from(method)
            }),
            "{method}"
        );
    }
    // Two extensions owning one method.
    const CLAIM_GET: &[ExtensionMethod] = &[ExtensionMethod::new("notes/get")];
    let err = builder()
        .extension(Notes)
        .extension(Claims(CLAIM_GET))
        .build()
        .err();
    assert_eq!(
        err,
        Some(BuildError::ExtensionMethodCollision {
            extension: String::from("com.example/claims"),
            method: String::from("notes/get")
        })
    );
    for bad in [
        "notes",
        "/notes",
        "com..example/x",
        "1com/x",
        "com.example/",
        "com.example/-x",
        "com.exa mple/x",
    ] {
        assert!(
            matches!(
                Service::builder().extension(Named(bad)).build(),
                Err(BuildError::InvalidExtension { .. })
            ),
            "{bad:?} accepted"
        );
    }
    assert!(Service::builder()
        .extension(Named("io.modelcontextprotocol-x/y.z_1"))
        .build()
        .is_ok());
    assert!(matches!(
        Service::builder()
            .extension(Named("com.example/a"))
            .extension(Named("com.example/a"))
            .build(),
        Err(BuildError::InvalidExtension { .. })
    ));
    assert!(matches!(
        Service::builder().extension(Wraps("tools/list")).build(),
        Err(BuildError::InvalidExtension { .. })
    ));
    assert!(Service::builder()
        .extension(Wraps("tools/call"))
        .build()
        .is_ok());
    assert!(matches!(
        Service::builder().extension(Keys).build(),
        Err(BuildError::InvalidExtension { .. })
    ));
}

#[test]
fn the_installed_extension_is_found_by_type() {
    let service = service();
    assert!(service.extension::<Notes>().is_some());
    assert!(service.extension::<Keys>().is_none());
}
