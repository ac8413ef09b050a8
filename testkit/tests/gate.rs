//! `Gate` on the wire: a closed gate holds a tool's answer until it
//! opens, an open one changes nothing, a gate on one tool leaves the
//! others alone, and a held call that is cancelled is held no more.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Waker};

use serde_json::Value;
use snodo_proto::{CallToolResult, NoArgs, Service, ServiceBuilder, Tool};
use snodo_testkit::{block_on, Gate, TestClient};

fn tools() -> ServiceBuilder {
    Service::builder()
        .tool(
            Tool::new("slow", "Answers when let go"),
            |_: NoArgs| async { CallToolResult::text("done") },
        )
        .tool(Tool::new("other", "Answers at once"), |_: NoArgs| async {
            CallToolResult::text("other")
        })
}

const CALL_SLOW: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const CALL_OTHER: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"other","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

fn literal(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn slow_answer() -> Value {
    literal(
        r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo","version":"0.1.0"}},"resultType":"complete","content":[{"type":"text","text":"done"}]}}"#,
    )
}

/// Whether the server has written anything, without waiting for it.
fn nothing_written(client: &mut TestClient) -> bool {
    let mut next = pin!(client.next_message());
    next.as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
        .is_pending()
}

#[test]
fn a_closed_gate_holds_the_answer_until_it_opens() {
    let gate = Gate::closed();
    let service = tools().tool_layer("slow", gate.clone()).build().unwrap();
    let mut client = TestClient::new(&service);
    client.send_line(CALL_SLOW);
    assert_eq!(gate.held(), 1, "the call ran to its outcome at the gate");
    assert!(nothing_written(&mut client), "no response while closed");
    assert!(!gate.is_open());
    gate.open();
    assert_eq!(gate.held(), 0);
    assert_eq!(block_on(client.next_message()), slow_answer());
}

#[test]
fn an_open_gate_changes_nothing() {
    let gate = Gate::new();
    let gated = tools().tool_layer("slow", gate.clone()).build().unwrap();
    let plain = tools().build().unwrap();
    let mut answers = Vec::new();
    for service in [&gated, &plain] {
        let mut client = TestClient::new(service);
        client.send_line(CALL_SLOW);
        answers.push(block_on(client.next_message()));
    }
    assert_eq!(answers, [slow_answer(), slow_answer()]);
    assert_eq!(gate.held(), 0);
    assert!(gate.is_open());
}

#[test]
fn a_gate_on_one_tool_leaves_the_others_alone() {
    let gate = Gate::closed();
    let service = tools().tool_layer("slow", gate.clone()).build().unwrap();
    let mut client = TestClient::new(&service);
    client.send_line(CALL_SLOW);
    client.send_line(CALL_OTHER);
    assert_eq!(
        block_on(client.next_message()),
        literal(
            r#"{"jsonrpc":"2.0","id":2,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo","version":"0.1.0"}},"resultType":"complete","content":[{"type":"text","text":"other"}]}}"#
        )
    );
    assert_eq!(gate.held(), 1, "slow is still held");
    assert!(nothing_written(&mut client));
    gate.open();
    assert_eq!(block_on(client.next_message()), slow_answer());
}

#[test]
fn a_held_call_that_is_cancelled_is_held_no_more() {
    let gate = Gate::closed();
    let service = tools().tool_layer("slow", gate.clone()).build().unwrap();
    let mut client = TestClient::new(&service);
    client.send_line(CALL_SLOW);
    assert_eq!(gate.held(), 1);
    client.send_line(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    );
    // The cancelled call ends at its next poll, dropping its hold.
    assert!(nothing_written(&mut client));
    assert_eq!(gate.held(), 0);
    gate.open();
    assert!(
        nothing_written(&mut client),
        "a cancelled call is not answered"
    );
}
