//! What only a stdio process shows (`basic/transports/stdio.mdx`), on every
//! runtime: it refuses a line over 4 MiB and reads on, writes nothing but
//! JSON-RPC lines on stdout, stays silent for a cancelled call, answers a
//! last line without a newline, and exits 0 at EOF once every call is
//! answered. The vector table itself runs in `wire_matrix.rs`.

use std::time::Duration;

use serde_json::Value;
use snodo_tests::{per_runtime, spawn_stdio, Runtime, StdioProcess, Transport};

per_runtime!(
    a_line_over_4_mib_is_refused_and_the_next_is_served,
    eof_at_once_exits_zero,
    eof_with_a_call_in_flight_answers_it_then_exits_zero,
    eof_after_an_unterminated_line_answers_it,
    nothing_is_written_for_a_cancelled_call_later,
    a_line_that_is_not_utf8_is_a_parse_error,
    a_result_racing_its_cancellation_is_written_at_most_once,
    an_initialize_era_session_elicits_inline,
);

fn spawn(runtime: Runtime) -> StdioProcess {
    spawn_stdio(env!("CARGO_BIN_EXE_snodo-fixture-wire"), runtime)
}

fn parse_all(literals: &[&str]) -> Vec<Value> {
    literals
        .iter()
        .map(|l| serde_json::from_str(l).expect("literal is JSON"))
        .collect()
}

/// The default `max_message_bytes` is 4 MiB (4194304 bytes, without the
/// newline). A longer line is refused with -32600 and no id, the rest of it
/// is discarded, and the next line is served. A line of exactly the limit is
/// read as a message.
fn a_line_over_4_mib_is_refused_and_the_next_is_served(runtime: Runtime) {
    const LIMIT: usize = 4 * 1024 * 1024;
    let mut p = spawn(runtime);

    // The padding sits in an application `_meta` key, which the server
    // ignores, so a line of any length is an ordinary request.
    let line = |id: u32, len: usize| {
        let head = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"test_simple_text","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"com.example/pad":""#
        );
        let tail = r#""}}}"#;
        let mut l = String::with_capacity(len + 1);
        l.push_str(&head);
        l.push_str(&"a".repeat(len - head.len() - tail.len()));
        l.push_str(tail);
        assert_eq!(l.len(), len);
        l
    };

    let over = line(1, LIMIT + 1);
    let got = p.exchange(&over, 1);
    assert_eq!(
        got,
        parse_all(&[
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Message exceeds the maximum size of 4194304 bytes"}}"#
        ])
    );

    let next = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    assert_eq!(
        p.exchange(next, 1),
        parse_all(&[
            r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"This is a simple text response for testing."}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#
        ])
    );

    // Exactly at the limit: read and served.
    let exact = line(3, LIMIT);
    assert_eq!(
        p.exchange(&exact, 1),
        parse_all(&[
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"This is a simple text response for testing."}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#
        ])
    );
    p.finish();
}

/// EOF with nothing sent: exit 0, nothing written.
fn eof_at_once_exits_zero(runtime: Runtime) {
    let mut p = spawn(runtime);
    p.close_stdin();
    assert_eq!(p.read_to_end(), Vec::<Value>::new());
    let status = p.wait(Duration::from_secs(10));
    assert!(
        status.success(),
        "exit status {status}; stderr:\n{}",
        p.stderr()
    );
    assert!(p.transcript().is_empty(), "stdout stayed empty");
}

/// EOF while a call runs: the call is answered, then the process exits 0.
fn eof_with_a_call_in_flight_answers_it_then_exits_zero(runtime: Runtime) {
    let mut p = spawn(runtime);
    p.write_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"tools/call\",\"params\":{\"name\":\"test_tool_with_progress\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},\"progressToken\":\"eof\"}}}\n");
    p.close_stdin();
    assert_eq!(
        p.read_to_end(),
        parse_all(&[
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"eof","progress":0.0,"total":100.0}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"eof","progress":50.0,"total":100.0}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"eof","progress":100.0,"total":100.0}}"#,
            r#"{"jsonrpc":"2.0","id":"last","result":{"content":[{"type":"text","text":"Progress test completed"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ])
    );
    let status = p.wait(Duration::from_secs(10));
    assert!(
        status.success(),
        "exit status {status}; stderr:\n{}",
        p.stderr()
    );
    p.assert_stdout_is_jsonrpc();
}

/// EOF right after a last line that has no newline: it is still a message.
fn eof_after_an_unterminated_line_answers_it(runtime: Runtime) {
    let mut p = spawn(runtime);
    p.write_raw(br#"{"jsonrpc":"2.0","id":9,"method":"unknown/method","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    p.close_stdin();
    assert_eq!(
        p.read_to_end(),
        parse_all(&[
            r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"Method not found: unknown/method"}}"#
        ])
    );
    let status = p.wait(Duration::from_secs(10));
    assert!(
        status.success(),
        "exit status {status}; stderr:\n{}",
        p.stderr()
    );
}

/// A cancelled call stays silent even after its handler would have
/// finished (`basic/transports/stdio.mdx` § Cancellation: MUST NOT send any
/// further messages for the cancelled request).
fn nothing_is_written_for_a_cancelled_call_later(runtime: Runtime) {
    let mut p = spawn(runtime);
    p.write_raw(concat!(
        r#"{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}}"#,
        "\n"
    ).as_bytes());
    // Longer than the handler's two 50 ms pauses.
    std::thread::sleep(Duration::from_millis(400));
    let got = p.exchange(
        r#"{"jsonrpc":"2.0","id":78,"method":"unknown/method","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        1,
    );
    assert_eq!(
        got,
        parse_all(&[
            r#"{"jsonrpc":"2.0","id":78,"error":{"code":-32601,"message":"Method not found: unknown/method"}}"#
        ])
    );
    p.finish();
}

/// A line that is not UTF-8 is a parse error and the process reads on.
fn a_line_that_is_not_utf8_is_a_parse_error(runtime: Runtime) {
    let mut p = spawn(runtime);
    p.write_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}\n");
    let got = p.exchange(
        r#"{"jsonrpc":"2.0","id":2,"method":"unknown/method","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        2,
    );
    assert_eq!(
        got,
        parse_all(&[
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"}}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: unknown/method"}}"#,
        ])
    );
    p.finish();
}

/// `cancellation.mdx` § Timing Considerations: a cancellation may reach the
/// server before or after the call finished; either way the call ends in at
/// most one message, never an error or a duplicate, and the stream goes on.
/// 300 calls of an instant tool are each followed by their cancellation
/// after a delay from 0 to 300 µs, written separately, so both orders (the
/// result first, the cancellation first) happen.
fn a_result_racing_its_cancellation_is_written_at_most_once(runtime: Runtime) {
    let mut p = spawn(runtime);
    for id in 1..=300u64 {
        p.write_raw(format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"test_simple_text\",\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}}}}}\n"
        ).as_bytes());
        let until = std::time::Instant::now() + Duration::from_micros((id % 7) * 50);
        while std::time::Instant::now() < until {
            std::hint::spin_loop();
        }
        p.write_raw(format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{id}}}}}\n"
        ).as_bytes());
    }
    p.write_raw(concat!(
        r#"{"jsonrpc":"2.0","id":"marker","method":"unknown/method","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        "\n"
    ).as_bytes());
    let expected_result: Value = serde_json::from_str(r#"{"content":[{"type":"text","text":"This is a simple text response for testing."}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}"#).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    loop {
        let m = p.next_message().expect("the marker is answered");
        if m["id"] == "marker" {
            assert_eq!(m["error"]["code"], -32601);
            break;
        }
        let id = m["id"].as_i64().expect("an integer id");
        assert!((1..=300).contains(&id), "unexpected message {m}");
        assert!(seen.insert(id), "call {id} answered twice");
        assert_eq!(
            m["result"], expected_result,
            "call {id} ends in its result, not an error"
        );
    }
    eprintln!(
        "{runtime:?}: {} of 300 calls finished before their cancellation was read",
        seen.len()
    );
    p.finish();
}

/// A 2025-11-25 client on stdio (`mcp-2025-11-25/basic/lifecycle.mdx`):
/// the handshake, then a tool that asks for input sends `elicitation/create`
/// as a request of its own on stdout, and the client's answer on stdin runs
/// it again to its result.
fn an_initialize_era_session_elicits_inline(runtime: Runtime) {
    let mut p = spawn(runtime);
    p.session = true;
    p.write_raw(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},\"clientInfo\":{\"name\":\"legacy\",\"version\":\"1.0.0\"}}}\n");
    assert_eq!(
        p.next_message(),
        Some(parse_all(&[r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{"subscribe":true},"completions":{},"logging":{}},"serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}"#])[0].clone())
    );
    p.write_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    p.write_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"test_elicitation\",\"arguments\":{\"message\":\"Who are you?\"}}}\n");
    assert_eq!(
        p.next_message(),
        Some(parse_all(&[r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"form","message":"Who are you?","requestedSchema":{"type":"object","properties":{"username":{"type":"string","description":"User's response"},"email":{"type":"string","description":"User's email address"}},"required":["username","email"]}}}"#])[0].clone())
    );
    p.write_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"action\":\"accept\",\"content\":{\"username\":\"ada\",\"email\":\"ada@example.com\"}}}\n");
    assert_eq!(
        p.next_message(),
        Some(parse_all(&[r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"User response: {\"action\":\"accept\",\"content\":{\"email\":\"ada@example.com\",\"username\":\"ada\"}}"}]}}"#])[0].clone())
    );
    p.close_stdin();
    assert!(p.wait(Duration::from_secs(10)).success());
    p.assert_stdout_is_jsonrpc();
}
