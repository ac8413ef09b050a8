//! The authenticated principal past the handler: `requestState` sealed
//! with it (`basic/patterns/mrtr.mdx` § Server Requirements: state is
//! bound to "the authenticated principal, rejecting state presented by a
//! different principal"), and registry views by scope (`server/tools.mdx`
//! § Listing Tools). Raw HTTP/1.1 requests in, literal answers out; the
//! authenticator is a table of tokens.

mod support;

use serde::Deserialize;
use serde_json::{json, Value};
use snodo_proto::{
    Authorization, CallToolResult, Context, ElicitRequest, Implementation, InputRequired, NoArgs,
    Principal, Rejection, Reply, Service, StateKeys, Tool, Transport,
};
use support::{b64url, Harness};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;
const SERVER_INFO: &str =
    r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}"#;

#[derive(Deserialize)]
struct Name {
    name: String,
}

fn service() -> Service {
    let auth = Authorization::new("https://mcp.example.com/mcp", |token: &str| match token {
        "reader" => {
            Ok(Principal::new("alice", ["notes:read"]).audience(["https://mcp.example.com/mcp"]))
        }
        "writer" => Ok(Principal::new("bob", ["notes:read", "notes:write"])
            .audience(["https://mcp.example.com/mcp"])),
        _ => Err(Rejection("The token is not valid for this resource".into())),
    })
    .authorization_server("https://auth.example.com")
    .tool_scopes("write_note", ["notes:write"]);
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .authorization(auth)
        .state_keys(StateKeys::new([0xa1; 32]))
        .tool(
            Tool::new("greet", "Asks for a name"),
            |_: NoArgs, ctx: Context| async move {
                match ctx.elicitation("user_name").and_then(|r| r.content_as::<Name>()) {
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
            },
        )
        .tool(
            Tool::new("write_note", "Needs notes:write"),
            |_: NoArgs| async { CallToolResult::text("written") },
        )
        .build()
        .unwrap()
}

fn post(method: &str, name: Option<&str>, token: &str, body: &str) -> String {
    let name = name.map_or(String::new(), |n| format!("Mcp-Name: {n}\r\n"));
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n{name}Authorization: Bearer {token}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn ok(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// 403 `insufficient_scope` for the request `id`, naming `scope`.
fn forbidden(id: u64, scope: &str) -> String {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32600,"message":"Forbidden: the token lacks a required scope"}}}}"#
    );
    format!(
        "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: {}\r\nWWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"{scope}\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\"\r\n\r\n{body}",
        body.len()
    )
}

fn send(service: &Service, request: &str) -> String {
    Harness::new(service, Transport::Http).send(request.as_bytes())
}

/// Round 1 of `greet` as `token`: the sealed state it returns.
fn round1(service: &Service, token: &str) -> String {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"greet","arguments":{{}},{META}}}}}"#
    );
    let out = send(service, &post("tools/call", Some("greet"), token, &body));
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    let json: Value = serde_json::from_str(out.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(json["result"]["resultType"], "input_required", "{json}");
    json["result"]["requestState"].as_str().unwrap().to_owned()
}

fn round2(state: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"greet","arguments":{{}},"inputResponses":{{"user_name":{{"action":"accept","content":{{"name":"Alice"}}}}}},"requestState":"{state}",{META}}}}}"#
    )
}

fn payload(state: &str) -> Value {
    let part = state.split('.').nth(2).unwrap();
    serde_json::from_slice(&b64url(part)).unwrap()
}

#[test]
fn request_state_issued_to_one_principal_is_refused_for_another() {
    let service = service();
    let state = round1(&service, "reader");
    let refused = ok(
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid requestState: it was issued for a different request"}}"#,
    );
    // Another principal replays alice's state: refused as another
    // request's state would be.
    assert_eq!(
        send(
            &service,
            &post("tools/call", Some("greet"), "writer", &round2(&state))
        ),
        refused
    );
    // Alice's own retry completes.
    assert_eq!(
        send(
            &service,
            &post("tools/call", Some("greet"), "reader", &round2(&state))
        ),
        ok(&format!(
            r#"{{"jsonrpc":"2.0","id":2,"result":{{{SERVER_INFO},"content":[{{"text":"Hello, Alice!","type":"text"}}],"resultType":"complete"}}}}"#
        ))
    );
    // On stdio, which carries no principal, alice's state is not valid
    // either; and a state issued there names no principal.
    let mut stdio = Harness::new(&service, Transport::Stdio);
    assert_eq!(
        stdio.send(format!("{}\n", round2(&state)).as_bytes()),
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid requestState: it was issued for a different request"}}"#.to_owned() + "\n"
    );
    let line = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"greet\",\"arguments\":{{}},{META}}}}}\n"
    );
    let answer: Value = serde_json::from_str(&stdio.send(line.as_bytes())).unwrap();
    let unbound = answer["result"]["requestState"].as_str().unwrap();
    assert_eq!(payload(unbound).get("p"), None);
    // The bound state names the principal by a fixed-length digest.
    assert_eq!(payload(&state)["p"].as_str().map(str::len), Some(22));
}

#[test]
fn a_caller_without_the_scope_neither_sees_nor_may_call_the_tool() {
    let service = service();
    let list = format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{{META}}}}}"#);
    let greet = r#"{"description":"Asks for a name","inputSchema":{"additionalProperties":false,"type":"object"},"name":"greet"}"#;
    let write = r#"{"description":"Needs notes:write","inputSchema":{"additionalProperties":false,"type":"object"},"name":"write_note"}"#;
    let listed = |tools: &str| {
        ok(&format!(
            r#"{{"jsonrpc":"2.0","id":3,"result":{{{SERVER_INFO},"cacheScope":"private","resultType":"complete","tools":[{tools}],"ttlMs":60000}}}}"#
        ))
    };
    assert_eq!(
        send(&service, &post("tools/list", None, "reader", &list)),
        listed(greet)
    );
    assert_eq!(
        send(&service, &post("tools/list", None, "writer", &list)),
        listed(&format!("{greet},{write}"))
    );
    // Lists drawn from a view are never for shared caches.
    // The call: refused with the scope it needs, so the client may step up.
    let call = |name: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"{name}","arguments":{{}},{META}}}}}"#
        )
    };
    let unknown = |name: &str| {
        ok(&format!(
            r#"{{"jsonrpc":"2.0","id":4,"error":{{"code":-32602,"message":"Unknown tool: {name}"}}}}"#
        ))
    };
    assert_eq!(
        send(
            &service,
            &post(
                "tools/call",
                Some("write_note"),
                "reader",
                &call("write_note")
            )
        ),
        forbidden(4, "notes:write")
    );
    assert_eq!(
        send(
            &service,
            &post("tools/call", Some("no_such"), "reader", &call("no_such"))
        ),
        unknown("no_such")
    );
    assert!(send(
        &service,
        &post(
            "tools/call",
            Some("write_note"),
            "writer",
            &call("write_note")
        )
    )
    .contains(r#""text":"written""#));
}

#[test]
fn an_initialize_era_session_sees_the_view_of_its_principal() {
    let service = service();
    let post = |sid: Option<&str>, token: &str, body: &str| {
        let sid = sid.map_or(String::new(), |s| {
            format!("Mcp-Session-Id: {s}\r\nMCP-Protocol-Version: 2025-11-25\r\n")
        });
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{sid}Authorization: Bearer {token}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let mut h = Harness::new(&service, Transport::Http);
    let out = h.send(
        post(
            None,
            "reader",
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
        )
        .as_bytes(),
    );
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    let sid = out
        .lines()
        .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
        .expect("initialize names its session")
        .to_owned();
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let names = |out: &str| {
        let json: Value = serde_json::from_str(out.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        json["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{json}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(&h.send(post(Some(&sid), "reader", list).as_bytes())),
        ["greet"]
    );
    assert_eq!(
        names(&h.send(post(Some(&sid), "writer", list).as_bytes())),
        ["greet", "write_note"]
    );
    assert_eq!(
        h.send(
            post(
                Some(&sid),
                "reader",
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_note","arguments":{}}}"#
            )
            .as_bytes()
        ),
        forbidden(2, "notes:write")
    );
}

/// stdio takes no tokens (`basic/authorization/index.mdx` § Protocol
/// Requirements): the application names the principal of its stdio
/// connections, and it reaches handlers and views as an authenticated
/// one does. HTTP requests never inherit it.
#[test]
fn the_application_names_the_principal_of_stdio() {
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .stdio_principal(Principal::new("carol", ["notes:read"]))
        .authorization(
            Authorization::new("https://mcp.example.com/mcp", |_: &str| {
                Err(Rejection("no token is valid here".into()))
            })
            .authorization_server("https://auth.example.com")
            .tool_scopes("write_note", ["notes:write"]),
        )
        .tool(
            Tool::new("whoami", "Who is calling"),
            |_: NoArgs, ctx: Context| async move {
                CallToolResult::text(ctx.principal().map_or("nobody", |p| p.subject.as_str()))
            },
        )
        .tool(
            Tool::new("write_note", "Needs notes:write"),
            |_: NoArgs| async { CallToolResult::text("written") },
        )
        .build()
        .unwrap();
    let mut stdio = Harness::new(&service, Transport::Stdio);
    let mut line = |json: &str| {
        stdio
            .send(format!("{json}\n").as_bytes())
            .trim_end()
            .to_owned()
    };
    assert_eq!(
        line(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{{META},"name":"whoami"}}}}"#
        )),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{{SERVER_INFO},"content":[{{"text":"carol","type":"text"}}],"resultType":"complete"}}}}"#
        )
    );
    assert_eq!(
        line(&format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{META}}}}}"#
        )),
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"result":{{{SERVER_INFO},"cacheScope":"private","resultType":"complete","tools":[{{"description":"Who is calling","inputSchema":{{"additionalProperties":false,"type":"object"}},"name":"whoami"}}],"ttlMs":60000}}}}"#
        ),
        "carol's view: no write_note"
    );
    assert_eq!(
        line(&format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{{META},"name":"write_note"}}}}"#
        )),
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Forbidden: the token lacks a required scope"}}"#
    );
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{{META},"name":"whoami"}}}}"#
    );
    let mut http = Harness::new(&service, Transport::Http);
    let out = http.send(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: whoami\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
    assert!(
        out.starts_with("HTTP/1.1 401 Unauthorized\r\n"),
        "HTTP does not inherit the stdio principal: {out}"
    );
}
