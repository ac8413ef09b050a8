//! Every change reaches an open `subscriptions/listen` stream, not only the
//! first one (`basic/patterns/subscriptions.mdx` § Receiving
//! Notifications), on every runtime and both transports.
//!
//! Over Streamable HTTP the stream is a long-lived response that gets no
//! further input, so an adapter that stopped watching the hub after
//! delivering one event would fall silent; the released-client interop
//! lane found exactly that on `snodo-blocking`. The triggers are separate
//! POSTs, as a second client would send them.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{json, Value};
use snodo_tests::http::mirror;
use snodo_tests::{per_runtime, spawn_http, spawn_stdio, Runtime};

const FIXTURE: &str = env!("CARGO_BIN_EXE_snodo-fixture-wire");
const WAIT: Duration = Duration::from_secs(10);

const LISTEN: &str = r#"{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"promptsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

fn trigger(id: u32, tool: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    )
}

const TRIGGERS: [&str; 3] = [
    "test_trigger_tool_change",
    "test_trigger_prompt_change",
    "test_trigger_tool_change",
];

/// What the stream carries: the acknowledgement, then one notification per
/// trigger, in order, each tagged with the listen request's id.
fn expected_stream() -> Vec<Value> {
    let tagged = |method: &str| json!({"jsonrpc":"2.0","method":method,"params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}});
    vec![
        json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{
            "_meta":{"io.modelcontextprotocol/subscriptionId":"L"},
            "notifications":{"toolsListChanged":true,"promptsListChanged":true}}}),
        tagged("notifications/tools/list_changed"),
        tagged("notifications/prompts/list_changed"),
        tagged("notifications/tools/list_changed"),
    ]
}

const TRIGGERED: &str = r#"{"content":[{"type":"text","text":"Mutation triggered"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}"#;

/// Read SSE `data:` lines from `r` until `n` messages arrived.
fn read_events(r: &mut impl BufRead, n: usize) -> Vec<Value> {
    let mut out = Vec::new();
    let mut line = String::new();
    while out.len() < n {
        line.clear();
        match r.read_line(&mut line) {
            Ok(0) => panic!("the listen stream ended after {out:?}"),
            Ok(_) => {}
            Err(e) => panic!("the listen stream fell silent after {out:?}: {e}"),
        }
        if let Some(data) = line.trim_end().strip_prefix("data: ") {
            out.push(serde_json::from_str(data).expect("an event's data is JSON"));
        }
    }
    out
}

fn http(runtime: Runtime) {
    let mut p = spawn_http(FIXTURE, runtime);
    let mut stream = TcpStream::connect(p.addr()).expect("connect");
    stream.set_read_timeout(Some(WAIT)).unwrap();
    let mut head = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\n", p.addr());
    for (k, v) in mirror::headers(LISTEN) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{LISTEN}",
        LISTEN.len()
    ));
    stream.write_all(head.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let mut events = read_events(&mut reader, 1);
    for (i, tool) in TRIGGERS.iter().enumerate() {
        let (status, answer) = p.post(&trigger(i as u32 + 1, tool));
        assert_eq!(status, 200, "{tool}");
        assert_eq!(answer.len(), 1, "{tool}: {answer:?}");
        assert_eq!(
            answer[0]["result"],
            serde_json::from_str::<Value>(TRIGGERED).unwrap()
        );
        events.extend(read_events(&mut reader, 1));
    }
    assert_eq!(events, expected_stream(), "{}", runtime.flag());
}

fn stdio(runtime: Runtime) {
    let mut p = spawn_stdio(FIXTURE, runtime);
    p.write_raw(format!("{LISTEN}\n").as_bytes());
    let mut events = vec![p.next_message().expect("the acknowledgement")];
    for (i, tool) in TRIGGERS.iter().enumerate() {
        p.write_raw(format!("{}\n", trigger(i as u32 + 1, tool)).as_bytes());
        // The notification and the trigger's own answer, in either order.
        let two = [p.next_message().unwrap(), p.next_message().unwrap()];
        let (answers, notes): (Vec<Value>, Vec<Value>) =
            two.into_iter().partition(|m| m.get("id").is_some());
        assert_eq!(answers.len(), 1, "{tool}");
        assert_eq!(
            answers[0]["result"],
            serde_json::from_str::<Value>(TRIGGERED).unwrap()
        );
        events.extend(notes);
    }
    assert_eq!(events, expected_stream(), "{}", runtime.flag());
}

fn http_every_change_reaches_the_stream(runtime: Runtime) {
    http(runtime);
}

fn stdio_every_change_reaches_the_stream(runtime: Runtime) {
    stdio(runtime);
}

per_runtime!(
    http_every_change_reaches_the_stream,
    stdio_every_change_reaches_the_stream
);
