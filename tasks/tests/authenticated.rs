//! With authorization, a task belongs to the principal the bearer token
//! authenticated, whatever the request's `_meta` claims (`tasks.md`
//! § Security Considerations, Auth binding). Raw HTTP/1.1 requests through
//! a `Connection`; the authenticator is a table of tokens (validating
//! tokens is the validator crate's job; what is tested is what the Tasks
//! extension does with the verdict).

mod support;

use std::sync::Arc;

use serde_json::{json, Value};
use snodo_proto::{
    Authorization, CallToolResult, Connection, Implementation, Instant, NoArgs, Output, Principal,
    Rejection, Service, Tool, Transport,
};
use snodo_tasks::{MemoryStore, TaskSupport, Tasks};
use support::{block_on, task_id, T0};

/// The extension is declared, and the client claims to act for `user`
/// (a key the principal function below reads).
fn meta(user: &str) -> String {
    format!(
        r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"extensions":{{"io.modelcontextprotocol/tasks":{{}}}}}},"com.example/user":"{user}"}}"#
    )
}

fn service() -> Service {
    service_with(|auth| auth)
}

/// [`service`], with more set on its authorization.
fn service_with(more: impl FnOnce(Authorization) -> Authorization) -> Service {
    let auth = more(
        Authorization::new("https://mcp.example.com/mcp", |token: &str| match token {
            "alice-token" => {
                Ok(Principal::new("alice", ["tasks"]).audience(["https://mcp.example.com/mcp"]))
            }
            "bob-token" => {
                Ok(Principal::new("bob", ["tasks"]).audience(["https://mcp.example.com/mcp"]))
            }
            "dave-token" => Ok(Principal::new("dave", ["tasks", "slow:run"])
                .audience(["https://mcp.example.com/mcp"])),
            _ => Err(Rejection("The token is not valid for this resource".into())),
        })
        .authorization_server("https://auth.example.com"),
    );
    // A principal function that trusts `_meta`: an authenticated request
    // must never get to use it.
    let tasks = Tasks::new(MemoryStore::new())
        .tool("slow", TaskSupport::Optional)
        .principal(|meta| {
            meta.raw()
                .get("com.example/user")
                .and_then(Value::as_str)
                .unwrap_or("anonymous")
                .to_string()
        });
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .authorization(auth)
        .tool(Tool::new("slow", "Runs as a task"), |_: NoArgs| async {
            CallToolResult::text("done")
        })
        .extension(tasks.build())
        .build()
        .unwrap()
}

/// One request on a fresh HTTP connection with `token`: the status line
/// and the body.
fn http(service: &Service, token: &str, method: &str, name: &str, body: &str) -> (String, Value) {
    let now = Instant::from_millis(T0);
    let mut conn = Connection::new(service, Transport::Http, now);
    let raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nMcp-Name: {name}\r\nAuthorization: Bearer {token}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    conn.handle_input(raw.as_bytes(), now);
    let mut out = Vec::new();
    while let Some(o) = conn.poll_output() {
        match o {
            Output::Transmit(b) => out.extend_from_slice(&b),
            Output::Invoke(inv) => {
                let call = inv.call;
                let outcome = block_on(inv.run(Arc::new(snodo_proto::NullSink)));
                let _ = conn.complete(call, outcome, now);
            }
            _ => {}
        }
    }
    let text = String::from_utf8(out).unwrap();
    let status = text.lines().next().unwrap_or("").to_string();
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn on_task(
    service: &Service,
    token: &str,
    claims: &str,
    method: &str,
    id: &str,
    extra: &str,
) -> Value {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"{method}","params":{{"taskId":"{id}"{extra},{}}}}}"#,
        meta(claims)
    );
    let (status, got) = http(service, token, method, id, &body);
    assert_eq!(status, "HTTP/1.1 200 OK", "{method}: {got}");
    got
}

#[test]
fn the_authenticated_subject_owns_the_task_not_what_meta_claims() {
    let service = service();
    // Alice creates the task while claiming to be bob in `_meta`.
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"slow",{}}}}}"#,
        meta("bob")
    );
    let (status, created) = http(&service, "alice-token", "tools/call", "slow", &body);
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let id = task_id(&created);
    let unknown = "0123456789abcdef0123456789abcdef";
    for (method, extra, verb) in [
        ("tasks/get", "", "retrieve"),
        (
            "tasks/update",
            r#","inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}}"#,
            "update",
        ),
        ("tasks/cancel", "", "cancel"),
    ] {
        let expected: Value = serde_json::from_str(&format!(
            r#"{{"jsonrpc":"2.0","id":2,"error":{{"code":-32602,"message":"Failed to {verb} task: Task not found"}}}}"#
        ))
        .unwrap();
        // Bob, even claiming to be alice (or bob, whom alice claimed to
        // be), gets exactly what an unknown id gets.
        for claims in ["alice", "bob"] {
            let theirs = on_task(&service, "bob-token", claims, method, &id, extra);
            assert_eq!(theirs, expected, "{method} claiming {claims}");
        }
        let none = on_task(&service, "bob-token", "alice", method, unknown, extra);
        assert_eq!(none, expected, "{method}");
    }
    // Bob's attempts changed nothing; alice sees her task whatever `_meta`
    // claims, and may cancel it.
    let mine = on_task(&service, "alice-token", "mallory", "tasks/get", &id, "");
    assert_eq!(mine["result"]["taskId"], json!(id), "{mine}");
    assert_eq!(mine["result"]["status"], "working", "{mine}");
    assert_eq!(
        on_task(&service, "alice-token", "bob", "tasks/cancel", &id, ""),
        json!({"jsonrpc":"2.0","id":2,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"resultType":"complete"}})
    );
    let after = on_task(&service, "alice-token", "alice", "tasks/get", &id, "");
    assert_eq!(after["result"]["status"], "cancelled", "{after}");
}

/// A tool's scopes hold for a call made as a task too: the call is
/// refused before the extension sees it, so no task is created and
/// nothing runs (`basic/authorization/index.mdx` § Runtime Insufficient
/// Scope Errors).
#[test]
fn a_task_augmented_call_needs_the_tools_scopes() {
    let service = service_with(|auth| auth.tool_scopes("slow", ["slow:run"]));
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"slow",{}}}}}"#,
        meta("alice")
    );
    let (status, refused) = http(&service, "alice-token", "tools/call", "slow", &body);
    assert_eq!(status, "HTTP/1.1 403 Forbidden");
    assert_eq!(
        refused,
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Forbidden: the token lacks a required scope"}})
    );
    let (status, created) = http(&service, "dave-token", "tools/call", "slow", &body);
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(created["result"]["resultType"], "task", "{created}");
}
