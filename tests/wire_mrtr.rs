//! Multi Round-Trip Requests across processes (`basic/patterns/mrtr.mdx`:
//! "the server processing the retry does not need any information beyond
//! what is directly present in the retry request"). Real `snodo-fixture`
//! processes sharing one `SNODO_STATE_KEY` continue each other's rounds,
//! over stdio and over Streamable HTTP on every runtime; a process with
//! another key refuses the state.
//!
//! Requests and answers are literal JSON. A sealed `requestState` carries a
//! random nonce, so expected answers write it as `"<state>"` (the actual one
//! is checked for the `v1.` format, then substituted) and retries splice in
//! the state the previous round returned.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

const KEY: &str = "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e";
const OTHER_KEY: &str = "7777777777777777777777777777777777777777777777777777777777777777";
const WAIT: Duration = Duration::from_secs(20);
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{},"roots":{}}}"#;
const SERVER_INFO: &str =
    r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}"#;

fn fixture_path() -> PathBuf {
    match std::env::var_os("SNODO_FIXTURE_BIN") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_BIN_EXE_snodo-fixture-wire")),
    }
}

fn fixture(args: &[&str], key: Option<&str>) -> Command {
    let mut c = Command::new(fixture_path());
    c.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env_remove("SNODO_STATE_KEY");
    if let Some(k) = key {
        c.env("SNODO_STATE_KEY", k);
    }
    c
}

/// Lines of a child's stdout, read on a thread so every wait is bounded.
fn lines_of(child: &mut Child) -> Receiver<String> {
    let stdout = child.stdout.take().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            match line {
                Ok(l) => {
                    if tx.send(l).is_err() {
                        return;
                    }
                }
                Err(_) => return,
            }
        }
    });
    rx
}

/// A fixture serving newline-delimited JSON-RPC on its stdin/stdout.
struct StdioServer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl StdioServer {
    fn spawn(key: Option<&str>) -> Self {
        let mut child = fixture(&["--stdio"], key)
            .spawn()
            .expect("start snodo-fixture --stdio");
        let stdin = child.stdin.take().expect("piped stdin");
        let lines = lines_of(&mut child);
        StdioServer {
            child,
            stdin,
            lines,
        }
    }

    fn exchange(&mut self, request: &str) -> Value {
        writeln!(self.stdin, "{request}").expect("write a request");
        self.stdin.flush().expect("flush");
        let line = self
            .lines
            .recv_timeout(WAIT)
            .unwrap_or_else(|_| panic!("no answer to {request}"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fixture serving Streamable HTTP on loopback with one runtime.
struct HttpServer {
    child: Child,
    addr: SocketAddr,
}

impl HttpServer {
    fn spawn(runtime: &str, key: Option<&str>) -> Self {
        let mut child = fixture(&["--listen", "127.0.0.1:0", "--runtime", runtime], key)
            .spawn()
            .expect("start snodo-fixture --listen");
        let lines = lines_of(&mut child);
        let first = lines
            .recv_timeout(WAIT)
            .unwrap_or_else(|_| panic!("{runtime}: no bound address on stdout"));
        let addr = first.parse().expect("the first stdout line is the address");
        HttpServer { child, addr }
    }

    /// POST one JSON-RPC request (with the headers a client mirrors from
    /// it) on a fresh connection; the status and the JSON body.
    fn post(&self, method: &str, name: &str, body: &str) -> (u16, Value) {
        let mut s = TcpStream::connect(self.addr).expect("connect");
        s.set_read_timeout(Some(WAIT)).unwrap();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nMcp-Name: {name}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body.as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).expect("read the response");
        let text = String::from_utf8(raw).expect("UTF-8");
        let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
        let status: u16 = head[9..12].parse().expect("a status code");
        assert!(
            head.contains("\r\nContent-Type: application/json\r\n"),
            "a plain JSON answer: {head}"
        );
        let v = serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
        (status, v)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Replace a sealed `requestState` by `"<state>"`; return it.
fn take_state(v: &mut Value) -> String {
    let token = match v.pointer("/result/requestState") {
        Some(Value::String(t)) => t.clone(),
        _ => panic!("no requestState string: {v}"),
    };
    assert!(token.starts_with("v1."), "sealed format: {token}");
    v["result"]["requestState"] = json!("<state>");
    token
}

fn literal(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("literal is not JSON ({e}): {text}"))
}

fn call(id: u64, tool: &str, extra: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}},{extra}{META}}}}}"#
    )
}

const CONFIRM_R1: &str = r#"{"jsonrpc":"2.0","id":1,"result":{
    "inputRequests":{"confirm":{"method":"elicitation/create","params":{"mode":"form","message":"Please confirm","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}}},
    "requestState":"<state>","resultType":"input_required",
    "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#;

fn confirm_retry(state: &str) -> String {
    call(
        2,
        "test_input_required_result_request_state",
        &format!(
            r#""inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}}}},"requestState":"{state}","#
        ),
    )
}

fn state_ok() -> Value {
    literal(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"result":{{"content":[{{"type":"text","text":"state-ok: ok=true"}}],"resultType":"complete",{SERVER_INFO}}}}}"#
    ))
}

fn refused() -> Value {
    json!({"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid requestState: it was not issued by this server or was modified"}})
}

#[test]
fn round_two_completes_on_another_stdio_process_with_the_same_key() {
    let mut a = StdioServer::spawn(Some(KEY));
    let mut b = StdioServer::spawn(Some(KEY));
    let mut other = StdioServer::spawn(Some(OTHER_KEY));
    let mut generated = StdioServer::spawn(None);

    let mut r1 = a.exchange(&call(1, "test_input_required_result_request_state", ""));
    let state = take_state(&mut r1);
    assert_eq!(r1, literal(CONFIRM_R1));

    assert_eq!(b.exchange(&confirm_retry(&state)), state_ok());
    assert_eq!(other.exchange(&confirm_retry(&state)), refused());
    assert_eq!(generated.exchange(&confirm_retry(&state)), refused());
    // And the issuing process itself, of course.
    assert_eq!(a.exchange(&confirm_retry(&state)), state_ok());
}

/// Three rounds, each on a different process and runtime.
#[test]
fn rounds_hop_between_runtimes_over_http() {
    let tokio = HttpServer::spawn("tokio", Some(KEY));
    let smol = HttpServer::spawn("smol", Some(KEY));
    let blocking = HttpServer::spawn("blocking", Some(KEY));
    let tool = "test_input_required_result_multi_round";

    let (status, mut r1) = tokio.post("tools/call", tool, &call(1, tool, ""));
    assert_eq!(status, 200);
    let s1 = take_state(&mut r1);
    assert_eq!(
        r1,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"inputRequests":{{"step1":{{"method":"elicitation/create","params":{{"mode":"form","message":"Step 1: What is your name?","requestedSchema":{{"type":"object","properties":{{"name":{{"type":"string"}}}},"required":["name"]}}}}}}}},"requestState":"<state>","resultType":"input_required",{SERVER_INFO}}}}}"#
        ))
    );

    let (status, mut r2) = smol.post(
        "tools/call",
        tool,
        &call(
            2,
            tool,
            &format!(r#""inputResponses":{{"step1":{{"action":"accept","content":{{"name":"Alice"}}}}}},"requestState":"{s1}","#),
        ),
    );
    assert_eq!(status, 200);
    let s2 = take_state(&mut r2);
    assert_ne!(s1, s2);
    assert_eq!(
        r2,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":2,"result":{{"inputRequests":{{"step2":{{"method":"elicitation/create","params":{{"mode":"form","message":"Step 2: What is your favorite color?","requestedSchema":{{"type":"object","properties":{{"color":{{"type":"string"}}}},"required":["color"]}}}}}}}},"requestState":"<state>","resultType":"input_required",{SERVER_INFO}}}}}"#
        ))
    );

    let (status, r3) = blocking.post(
        "tools/call",
        tool,
        &call(
            3,
            tool,
            &format!(r#""inputResponses":{{"step2":{{"action":"accept","content":{{"color":"blue"}}}}}},"requestState":"{s2}","#),
        ),
    );
    assert_eq!(status, 200);
    assert_eq!(
        r3,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":3,"result":{{"content":[{{"type":"text","text":"Alice's favorite color is blue"}}],"resultType":"complete",{SERVER_INFO}}}}}"#
        ))
    );

    // The state of round 2 is not valid for a replay of round 2 on a
    // request for another tool.
    let other = "test_input_required_result_request_state";
    let (status, v) = tokio.post(
        "tools/call",
        other,
        &call(4, other, &format!(r#""requestState":"{s2}","#)),
    );
    assert_eq!(status, 200);
    assert_eq!(
        v,
        json!({"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid requestState: it was issued for a different request"}})
    );
}

#[test]
fn every_runtime_refuses_tampered_and_foreign_state_over_http() {
    let tool = "test_input_required_result_tampered_state";
    for runtime in ["tokio", "smol", "blocking"] {
        let server = HttpServer::spawn(runtime, Some(KEY));
        let other = HttpServer::spawn(runtime, Some(OTHER_KEY));
        let (_, mut r1) = server.post("tools/call", tool, &call(1, tool, ""));
        let state = take_state(&mut r1);
        let retry = |state: &str| {
            call(
                2,
                tool,
                &format!(
                    r#""inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}}}},"requestState":"{state}","#
                ),
            )
        };
        // One byte flipped in the payload.
        let mut bytes = state.clone().into_bytes();
        let i = state.find('.').unwrap() + 12;
        bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
        let flipped = String::from_utf8(bytes).unwrap();
        for bad in [flipped, format!("{state}-TAMPERED")] {
            assert_eq!(
                server.post("tools/call", tool, &retry(&bad)),
                (200, refused()),
                "{runtime}"
            );
        }
        assert_eq!(
            other.post("tools/call", tool, &retry(&state)),
            (200, refused()),
            "{runtime}"
        );
        let (status, v) = server.post("tools/call", tool, &retry(&state));
        assert_eq!(status, 200);
        assert_eq!(
            v,
            literal(&format!(
                r#"{{"jsonrpc":"2.0","id":2,"result":{{"content":[{{"type":"text","text":"state verified: ok=true"}}],"resultType":"complete",{SERVER_INFO}}}}}"#
            )),
            "{runtime}"
        );
    }
}

#[test]
fn an_unusable_key_stops_the_fixture_before_it_serves() {
    let status = fixture(&["--stdio"], Some("abcd"))
        .stdin(Stdio::null())
        .status()
        .expect("run the fixture");
    assert!(!status.success(), "a 2-byte key is refused");
}
