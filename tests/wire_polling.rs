//! The hand-driven event loop of `examples/polling-http` (built here as
//! `snodo-polling-example`) against the wire: the shared
//! vectors that hold for any service (the JSON-RPC envelope, client
//! notifications) through the Streamable HTTP client, then pipelined
//! requests on one connection answered byte for byte: `server/discover`,
//! a `tools/call` whose progress and result stream as SSE from a call the
//! example runs on its own executor (and learns of through
//! `Connection::on_wake`), a notification (202), a malformed body (400) that
//! asks to close, and the close itself.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use snodo_tests::vectors::{ENVELOPE, NOTIFICATIONS};
use snodo_tests::{assert_vectors, HttpProcess, Scope};

const EXAMPLE: &str = env!("CARGO_BIN_EXE_snodo-polling-example");

fn spawn() -> HttpProcess {
    HttpProcess::spawn(EXAMPLE.as_ref(), &["--listen", "127.0.0.1:0"])
}

#[test]
fn the_shared_envelope_and_notification_vectors() {
    let mut p = spawn();
    assert_vectors(&mut p, ENVELOPE, &[Scope::Any]);
    assert_vectors(&mut p, NOTIFICATIONS, &[Scope::Any]);
    p.finish();
}

/// A POST of `body` with the headers a client mirrors from it
/// (`streamable-http.mdx` § Request Metadata) and `extra` ones.
fn post(extra: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const COUNT: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"c"}}}"#;
const NOTIFICATION: &str =
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}"#;
const MALFORMED: &str = r#"{"jsonrpc":"2.0","id":3,"method":"server/discover","params":"#;

/// The answers, in order: JSON, SSE (chunked: three progress events, then
/// the result, then the last chunk), 202 without a body, and the parse
/// error with `Connection: close`, after which the server closes.
const ANSWERS: &str = concat!(
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 250\r\n\r\n",
    r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"polling-example","version":"0.1.0"}},"cacheScope":"public","capabilities":{"tools":{}},"resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":60000}}"#,
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n",
    "75\r\n",
    r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1.0,"progressToken":"c","total":3.0}}"#,
    "\n\n\r\n75\r\n",
    r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2.0,"progressToken":"c","total":3.0}}"#,
    "\n\n\r\n75\r\n",
    r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":3.0,"progressToken":"c","total":3.0}}"#,
    "\n\n\r\nd1\r\n",
    r#"data: {"jsonrpc":"2.0","id":2,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"polling-example","version":"0.1.0"}},"content":[{"text":"counted to 3","type":"text"}],"resultType":"complete"}}"#,
    "\n\n\r\n0\r\n\r\n",
    "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n",
    "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 79\r\nConnection: close\r\n\r\n",
    r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"}}"#,
);

#[test]
fn pipelined_requests_are_answered_byte_for_byte_then_closed() {
    let p = spawn();
    let mut sock = TcpStream::connect(p.addr()).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let requests = [
        post("Mcp-Method: server/discover\r\n", DISCOVER),
        post("Mcp-Method: tools/call\r\nMcp-Name: count\r\n", COUNT),
        post("Mcp-Method: notifications/cancelled\r\n", NOTIFICATION),
        post("Connection: close\r\n", MALFORMED),
    ];
    sock.write_all(requests.concat().as_bytes()).unwrap();
    // Everything up to the server's close; a server that does not close
    // fails on the read timeout.
    let mut got = Vec::new();
    if let Err(e) = sock.read_to_end(&mut got) {
        panic!(
            "no close after the answers ({e}); got so far:\n{}\n--- stderr ---\n{}",
            String::from_utf8_lossy(&got),
            p.stderr()
        );
    }
    assert_eq!(String::from_utf8_lossy(&got), ANSWERS);
    p.finish();
}

#[test]
fn a_client_that_goes_away_mid_call_leaves_the_server_serving() {
    let p = spawn();
    {
        let mut sock = TcpStream::connect(p.addr()).unwrap();
        let call = post("Mcp-Method: tools/call\r\nMcp-Name: count\r\n", COUNT);
        sock.write_all(call.as_bytes()).unwrap();
    } // dropped: the call is cancelled (`streamable-http.mdx` § Cancellation)
    let mut sock = TcpStream::connect(p.addr()).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let request = post(
        "Mcp-Method: server/discover\r\nConnection: close\r\n",
        DISCOVER,
    );
    sock.write_all(request.as_bytes()).unwrap();
    let mut got = Vec::new();
    sock.read_to_end(&mut got).unwrap();
    let text = String::from_utf8_lossy(&got);
    assert!(
        text.starts_with(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 250\r\nConnection: close\r\n\r\n"
        ),
        "{text}"
    );
    p.finish();
}
