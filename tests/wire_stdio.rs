//! The vector table through the real `snodo-fixture --stdio` process
//! (`basic/transports/stdio.mdx`), plus what only a process shows: it keeps
//! serving after bad input, refuses a line over 4 MiB and reads on, writes
//! nothing but JSON-RPC lines on stdout, and exits 0 at EOF.
//!
//! The binary is `snodo-fixture-wire`, this package's build of the
//! fixture's own `main` source (see `Cargo.toml`); set `SNODO_FIXTURE_BIN`
//! to run the same tests against another build.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use snodo_tests::{assert_vectors, check_message, vectors, Scope, StdioProcess, Transport};

fn fixture_path() -> PathBuf {
    match std::env::var_os("SNODO_FIXTURE_BIN") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_BIN_EXE_snodo-fixture-wire")),
    }
}

fn spawn() -> StdioProcess {
    StdioProcess::spawn(&fixture_path(), &["--stdio"])
}

fn parse_all(literals: &[&str]) -> Vec<Value> {
    literals
        .iter()
        .map(|l| serde_json::from_str(l).expect("literal is JSON"))
        .collect()
}

/// Close stdin, expect no further output and exit status 0
/// (`basic/transports/stdio.mdx` § Shutdown: exit promptly at EOF), then
/// check that every line stdout ever carried is a JSON-RPC message.
fn finish(mut p: StdioProcess) {
    p.close_stdin();
    assert_eq!(
        p.read_to_end(),
        Vec::<Value>::new(),
        "nothing after the last answer"
    );
    let status = p.wait(Duration::from_secs(10));
    assert!(
        status.success(),
        "exit status {status}; stderr:\n{}",
        p.stderr()
    );
    assert_stdout_is_jsonrpc(&p);
}

/// `basic/transports/stdio.mdx`: the server MUST NOT write anything to
/// stdout that is not a valid MCP message; one message per line.
fn assert_stdout_is_jsonrpc(p: &StdioProcess) {
    let lines = p.transcript();
    assert!(!lines.is_empty(), "the server wrote something");
    for raw in lines {
        assert_eq!(raw.last(), Some(&b'\n'), "every line ends with a newline");
        let text = std::str::from_utf8(&raw[..raw.len() - 1]).expect("stdout is UTF-8");
        assert!(
            !text.contains('\n') && !text.ends_with('\r'),
            "one message per line: {text:?}"
        );
        if let Err(e) = check_message(text) {
            panic!("stdout line is not a JSON-RPC message: {e}");
        }
    }
}

#[test]
fn every_vector_in_sequence_on_one_process() {
    let mut p = spawn();
    assert_vectors(&mut p, &vectors::all(), &[Scope::Any, Scope::Stream]);
    finish(p);
}

/// Each bad message is answered and the very next request in the same write
/// is served by a handler.
#[test]
fn each_bad_message_is_followed_by_a_served_request() {
    let mut p = spawn();
    snodo_tests::follow_each_bad_message(&mut p);
    finish(p);
}

/// The default `max_message_bytes` is 4 MiB (4194304 bytes, without the
/// newline). A longer line is refused with -32600 and no id, the rest of it
/// is discarded, and the next line is served. A line of exactly the limit is
/// read as a message.
#[test]
fn a_line_over_4_mib_is_refused_and_the_next_is_served() {
    const LIMIT: usize = 4 * 1024 * 1024;
    let mut p = spawn();

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
    finish(p);
}

/// EOF with nothing sent: exit 0, nothing written.
#[test]
fn eof_at_once_exits_zero() {
    let mut p = spawn();
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
#[test]
fn eof_with_a_call_in_flight_answers_it_then_exits_zero() {
    let mut p = spawn();
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
    assert_stdout_is_jsonrpc(&p);
}

/// EOF right after a last line that has no newline: it is still a message.
#[test]
fn eof_after_an_unterminated_line_answers_it() {
    let mut p = spawn();
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
#[test]
fn nothing_is_written_for_a_cancelled_call_later() {
    let mut p = spawn();
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
    finish(p);
}

/// A line that is not UTF-8 is a parse error and the process reads on.
#[test]
fn a_line_that_is_not_utf8_is_a_parse_error() {
    let mut p = spawn();
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
    finish(p);
}
