//! The `snodo` binary against servers that answer with literal bytes: a
//! raw TCP listener for Streamable HTTP, a shell script for stdio. What
//! it prints on stdout is JSON; the exit status says how it ended.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"canned","version":"9"}}}}"#;

/// Answer the n-th request with the n-th body, as JSON, one connection
/// each; keep the requests (head and body) as text.
fn server(bodies: Vec<&'static str>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for body in bodies {
            let (mut conn, _) = listener.accept().unwrap();
            log.lock().unwrap().push(read_request(&mut conn));
            let answer = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            conn.write_all(answer.as_bytes()).unwrap();
        }
    });
    (url, seen)
}

fn read_request(conn: &mut std::net::TcpStream) -> String {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        conn.read_exact(&mut byte).unwrap();
        buf.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&buf).to_string();
    let length = head
        .to_ascii_lowercase()
        .lines()
        .find_map(|l| {
            l.strip_prefix("content-length: ")
                .map(|n| n.trim().parse().unwrap())
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    conn.read_exact(&mut body).unwrap();
    head + &String::from_utf8_lossy(&body)
}

/// The variables a proxy is read from, none of which a test inherits.
const PROXY_VARS: [&str; 9] = [
    "http_proxy",
    "HTTP_PROXY",
    "https_proxy",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
    "no_proxy",
    "NO_PROXY",
    "REQUEST_METHOD",
];

/// The binary, with no proxy from the test's own environment.
fn snodo_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_snodo"));
    for var in PROXY_VARS {
        command.env_remove(var);
    }
    command
}

fn snodo(args: &[&str]) -> Output {
    snodo_command().args(args).output().unwrap()
}

/// `snodo list URL` with these variables set (in the child alone: no
/// test races another over the process environment).
fn snodo_with_env(args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut command = snodo_command();
    command.args(args);
    for (name, value) in vars {
        command.env(name, value);
    }
    command.output().unwrap()
}

/// A server the test holds but never answers: where a request that
/// should have gone to the proxy would have gone.
fn unreached() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    (listener, url)
}

const NO_TOOLS: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}"#;

/// The proxy got discover and tools/list for `origin`, in absolute form,
/// each with the credentials (base64 of `user:p@ss`).
fn assert_through_proxy(seen: &Arc<Mutex<Vec<String>>>, origin: &str) {
    let requests = seen.lock().unwrap();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let authority = origin
        .trim_start_matches("http://")
        .trim_end_matches("/mcp");
    for request in requests.iter() {
        assert!(
            request.starts_with(&format!("POST {origin} HTTP/1.1\r\nHost: {authority}\r\n")),
            "{request}"
        );
        assert!(
            request.contains("\r\nProxy-Authorization: Basic dXNlcjpwQHNz\r\n"),
            "{request}"
        );
    }
}

#[test]
fn the_environment_proxy_is_honoured() {
    // The canned server plays the proxy: it answers what it is sent.
    let (proxy, seen) = server(vec![DISCOVER, NO_TOOLS]);
    let proxy = proxy
        .trim_end_matches("/mcp")
        .replace("http://", "http://user:p%40ss@");
    let (origin, url) = unreached();
    let output = snodo_with_env(
        &["list", &url],
        &[("http_proxy", &proxy), ("NO_PROXY", "example.com")],
    );
    assert!(output.status.success(), "{output:?}");
    assert_eq!(stdout_json(&output), json!([]));
    assert_through_proxy(&seen, &url);
    assert!(origin.accept().is_err());
}

#[test]
fn the_proxy_flag_wins_over_the_environment() {
    let (proxy, seen) = server(vec![DISCOVER, NO_TOOLS]);
    let proxy = proxy
        .trim_end_matches("/mcp")
        .replace("http://", "http://user:p%40ss@");
    let (_origin, url) = unreached();
    let output = snodo_with_env(
        &["--proxy", &proxy, "list", &url],
        &[("http_proxy", "http://127.0.0.1:9")],
    );
    assert!(output.status.success(), "{output:?}");
    assert_through_proxy(&seen, &url);
}

#[test]
fn noproxy_goes_direct_and_a_socks_proxy_is_refused() {
    let (url, seen) = server(vec![DISCOVER, NO_TOOLS]);
    let output = snodo_with_env(
        &["--noproxy", "*", "list", &url],
        &[("ALL_PROXY", "socks5://127.0.0.1:9")],
    );
    assert!(output.status.success(), "{output:?}");
    assert!(seen.lock().unwrap()[0].starts_with("POST /mcp HTTP/1.1\r\n"));

    // Without the flag, a proxy the transports cannot speak is an error,
    // not a connection around it.
    let output = snodo_with_env(&["list", &url], &[("ALL_PROXY", "socks5://127.0.0.1:9")]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("ALL_PROXY"), "{stderr}");
}

fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn list_prints_every_tool_as_json() {
    let (url, seen) = server(vec![
        DISCOVER,
        r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"greet","inputSchema":{"type":"object"}}],"nextCursor":"2"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"add","description":"Adds","inputSchema":{"type":"object"}}]}}"#,
    ]);
    let output = snodo(&["list", &url]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        stdout_json(&output),
        json!([
            {"name": "greet", "inputSchema": {"type": "object"}},
            {"name": "add", "description": "Adds", "inputSchema": {"type": "object"}}
        ])
    );
    let requests = seen.lock().unwrap();
    assert!(
        requests[1].contains("Mcp-Method: tools/list\r\n"),
        "{}",
        requests[1]
    );
    assert!(requests[2].contains(r#""cursor":"2""#), "{}", requests[2]);
}

#[test]
fn call_sends_the_arguments_and_the_bearer_token_and_prints_one_line() {
    let (url, seen) = server(vec![
        DISCOVER,
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Hello, Ada!"}],"structuredContent":{"greeting":"Hello, Ada!"}}}"#,
    ]);
    let output = snodo(&[
        "--bearer",
        "t0k3n",
        "--compact",
        "call",
        &url,
        "greet",
        r#"{"name":"Ada"}"#,
    ]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "{\"content\":[{\"text\":\"Hello, Ada!\",\"type\":\"text\"}],\"structuredContent\":{\"greeting\":\"Hello, Ada!\"}}\n"
    );
    let requests = seen.lock().unwrap();
    assert!(
        requests[1].contains("Authorization: Bearer t0k3n\r\n"),
        "{}",
        requests[1]
    );
    assert!(
        requests[1].contains("Mcp-Name: greet\r\n"),
        "{}",
        requests[1]
    );
    let body: Value = serde_json::from_str(requests[1].split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["params"]["arguments"], json!({"name": "Ada"}));
}

#[test]
fn a_tool_execution_error_is_printed_with_status_3() {
    let (url, _) = server(vec![
        DISCOVER,
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"no such city"}],"isError":true}}"#,
    ]);
    let output = snodo(&["call", &url, "weather", r#"{"city":"Atlantis"}"#]);
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    assert_eq!(stdout_json(&output)["isError"], true);
}

#[test]
fn info_says_what_the_server_said_of_itself() {
    let (url, _) = server(vec![DISCOVER]);
    let output = snodo(&["info", &url]);
    assert!(output.status.success(), "{output:?}");
    let info = stdout_json(&output);
    assert_eq!(info["protocolVersion"], "2026-07-28");
    assert_eq!(info["serverInfo"]["name"], "canned");
}

#[test]
fn a_stdio_server_by_command_line() {
    // The server: a script that answers the discover (id 1) and the call
    // (id 2) with literal lines.
    let dir = std::env::temp_dir().join(format!("snodo-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("server.sh");
    std::fs::write(
        &script,
        format!(
            "read line\nprintf '%s\\n' '{DISCOVER}'\nread line\nprintf '%s\\n' '{}'\n",
            r#"{"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"notes://1","text":"hello"}]}}"#
        ),
    )
    .unwrap();
    let command = format!("sh '{}'", script.display());
    let output = snodo(&["read", &command, "notes://1"]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        stdout_json(&output),
        json!({"contents": [{"uri": "notes://1", "text": "hello"}]})
    );
}

#[test]
fn a_server_that_is_not_there_fails_with_status_1() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let output = snodo(&["list", &format!("http://127.0.0.1:{port}/mcp")]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with("snodo: "), "{stderr}");
    assert!(output.stdout.is_empty());
}

#[test]
fn a_wrong_line_is_a_usage_error() {
    let output = snodo(&["call", "http://127.0.0.1:1/mcp", "t", "not json"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("usage: snodo"));
    let output = snodo(&["--help"]);
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("usage: snodo"));
}

/// A server of the initialize era only, routing on what each request is:
/// `server/discover` gets an empty 400, as such a server answers a method
/// it does not know outside a session.
fn initialize_era_server() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            let request = read_request(&mut conn);
            log.lock().unwrap().push(request.clone());
            let id = request
                .split("\r\n\r\n")
                .nth(1)
                .and_then(|body| serde_json::from_str::<Value>(body).ok())
                .map_or(Value::Null, |body| body["id"].clone());
            let answer = if request.starts_with("GET ") || request.starts_with("DELETE ") {
                "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_string()
            } else if request.contains(r#""method":"server/discover""#) {
                "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_string()
            } else if request.contains(r#""method":"initialize""#) {
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}}}},"serverInfo":{{"name":"old","version":"1"}}}}}}"#
                );
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s-1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
            } else if request.contains(r#""method":"tools/list""#) {
                let body = format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{{"name":"legacy","inputSchema":{{"type":"object"}}}}]}}}}"#
                );
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
            } else {
                // `notifications/initialized`.
                "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_string()
            };
            let _ = conn.write_all(answer.as_bytes());
        }
    });
    (url, seen)
}

#[test]
fn a_server_of_the_initialize_era_is_met_with_initialize() {
    let (url, seen) = initialize_era_server();
    let output = snodo(&["list", &url]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        stdout_json(&output),
        json!([{"name": "legacy", "inputSchema": {"type": "object"}}])
    );
    let requests = seen.lock().unwrap();
    let initialize = requests
        .iter()
        .find(|r| r.contains(r#""method":"initialize""#))
        .expect("an initialize after the probe");
    assert!(
        initialize.contains(r#""protocolVersion":"2025-11-25""#),
        "{initialize}"
    );
    let list = requests
        .iter()
        .find(|r| r.contains(r#""method":"tools/list""#))
        .unwrap();
    assert!(list.contains("Mcp-Session-Id: s-1\r\n"), "{list}");
}
