//! Tasks are bound to the principal that created them (`tasks.md`
//! § Security Considerations), and on Streamable HTTP their methods need
//! `Mcp-Name` mirroring `params.taskId` (§ Streamable HTTP: Routing
//! Headers). Requests are literal wire text.

mod support;

use std::sync::Arc;

use serde_json::{json, Value};
use snodo_proto::{Connection, Output, Transport};
use snodo_tasks::MemoryStore;
use support::{block_on, req, task_id, World};

fn meta(user: &str) -> String {
    format!(
        r#""_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{}},"extensions":{{"io.modelcontextprotocol/tasks":{{}}}}}},"com.example/user":"{user}"}}"#
    )
}

#[test]
fn one_principal_cannot_see_or_touch_anothers_tasks() {
    let mut w = World::with_principal(Arc::new(MemoryStore::new()), Some("com.example/user"));
    let alice = meta("alice");
    let bob = meta("bob");
    let id = task_id(&w.call(&req(1, "tools/call", r#""name":"ask""#, &alice)));
    w.settle();
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
        // Bob gets exactly what an unknown id gets: nothing reveals the task.
        let theirs = w.call(&req(2, method, &format!(r#""taskId":"{id}"{extra}"#), &bob));
        let none = w.call(&req(
            2,
            method,
            &format!(r#""taskId":"{unknown}"{extra}"#),
            &bob,
        ));
        let expected = json!({"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":format!("Failed to {verb} task: Task not found")}});
        assert_eq!(theirs, expected, "{method}");
        assert_eq!(none, expected, "{method}");
    }
    // Bob's attempts changed nothing.
    let t = w.call(&req(3, "tasks/get", &format!(r#""taskId":"{id}""#), &alice));
    assert_eq!(t["result"]["status"], "input_required");
    // Bob may name Alice's task on a listen stream, but hears nothing of it.
    let ack = w.call(&req(
        4,
        "subscriptions/listen",
        &format!(r#""notifications":{{"taskIds":["{id}"]}}"#),
        &bob,
    ));
    assert_eq!(ack["params"]["notifications"]["taskIds"], json!([id]));
    w.call(&req(
        5,
        "tasks/cancel",
        &format!(r#""taskId":"{id}""#),
        &alice,
    ));
    w.conn.handle_changes(w.now);
    assert_eq!(w.drain_conn(), Vec::<Value>::new());
    assert_eq!(
        w.call(&req(6, "tasks/get", &format!(r#""taskId":"{id}""#), &alice))["result"]["status"],
        "cancelled"
    );
}

/// One HTTP exchange on a fresh connection: status line and body.
fn http(w: &World, headers: &str, body: &str) -> (String, Value) {
    let mut conn = Connection::new(&w.service, Transport::Http, w.now);
    let raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    conn.handle_input(raw.as_bytes(), w.now);
    let mut out = Vec::new();
    while let Some(o) = conn.poll_output() {
        match o {
            Output::Transmit(b) => out.extend_from_slice(&b),
            Output::Invoke(inv) => {
                let call = inv.call;
                let outcome = block_on(inv.run(Arc::new(snodo_proto::NullSink)));
                let _ = conn.complete(call, outcome, w.now);
            }
            _ => {}
        }
    }
    let text = String::from_utf8(out).unwrap();
    let status = text.lines().next().unwrap_or("").to_string();
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("");
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[test]
fn mcp_name_must_mirror_the_task_id_on_http() {
    let mut w = World::new(Arc::new(MemoryStore::new()));
    let id = task_id(&w.call(&req(
        1,
        "tools/call",
        r#""name":"echo","arguments":{"text":"h"}"#,
        support::DECLARED,
    )));
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let extra = if method == "tasks/update" {
            r#","inputResponses":{}"#
        } else {
            ""
        };
        let body = req(
            7,
            method,
            &format!(r#""taskId":"{id}"{extra}"#),
            support::DECLARED,
        );
        let (status, got) = http(&w, &format!("Mcp-Method: {method}\r\n"), &body);
        assert_eq!(status, "HTTP/1.1 400 Bad Request", "{method}");
        assert_eq!(
            got,
            json!({"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"Header mismatch: missing required header Mcp-Name"}}),
            "{method}"
        );
        let (status, got) = http(&w, &format!("Mcp-Method: {method}\r\nMcp-Name: sep-2663-wrong-task-id-for-routing-header-mismatch\r\n"), &body);
        assert_eq!(status, "HTTP/1.1 400 Bad Request", "{method}");
        assert_eq!(
            got,
            json!({"jsonrpc":"2.0","id":7,"error":{"code":-32020,"message":"Header mismatch: Mcp-Name header does not match the request body"}}),
            "{method}"
        );
        let (status, got) = http(
            &w,
            &format!("Mcp-Method: {method}\r\nMcp-Name: {id}\r\n"),
            &body,
        );
        assert_eq!(status, "HTTP/1.1 200 OK", "{method}");
        assert_eq!(got["result"]["resultType"], "complete", "{method}: {got}");
    }
    // A tools/call with a mismatched Mcp-Method is refused before anything else.
    let body = req(
        8,
        "tools/call",
        r#""name":"echo","arguments":{"text":"h"}"#,
        support::DECLARED,
    );
    let (status, got) = http(&w, "Mcp-Method: tasks/get\r\nMcp-Name: echo\r\n", &body);
    assert_eq!(status, "HTTP/1.1 400 Bad Request");
    assert_eq!(got["error"]["code"], -32020);
    // The gate on HTTP: -32021 with 400.
    let body = req(9, "tasks/get", r#""taskId":"gate-test""#, support::PLAIN);
    let (status, got) = http(
        &w,
        "Mcp-Method: tasks/get\r\nMcp-Name: gate-test\r\n",
        &body,
    );
    assert_eq!(status, "HTTP/1.1 400 Bad Request");
    assert_eq!(got["error"]["code"], -32021);
    // Unknown task on HTTP: -32602 (a method error, not admission).
    let body = req(
        10,
        "tasks/get",
        r#""taskId":"tasks-conformance-nonexistent-12345""#,
        support::DECLARED,
    );
    let (status, got) = http(
        &w,
        "Mcp-Method: tasks/get\r\nMcp-Name: tasks-conformance-nonexistent-12345\r\n",
        &body,
    );
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(got["error"]["code"], -32602);
}
