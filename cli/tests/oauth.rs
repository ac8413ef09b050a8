//! `snodo --oauth` against one literal server that is both the MCP
//! endpoint and its authorization server: the 401 challenge, the
//! protected resource and authorization server metadata, dynamic
//! registration, the authorization URL shown on stderr and the redirect
//! pasted on stdin (the terminal user agent), the code exchanged for a
//! token, and the request sent again with it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

/// Read one request: its first line, head and body, as text.
fn read_request(conn: &mut std::net::TcpStream) -> String {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        if conn.read_exact(&mut byte).is_err() {
            return String::new();
        }
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

fn answer(status: &str, extra: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The server at `base`: what it answers to `request`.
fn route(base: &str, request: &str) -> String {
    let line = request.lines().next().unwrap_or_default();
    let authorized = request.contains("\r\nAuthorization: Bearer tok-1\r\n");
    match line.split(' ').take(2).collect::<Vec<_>>()[..] {
        ["POST", "/mcp"] if !authorized => answer(
            "401 Unauthorized",
            &format!("WWW-Authenticate: Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\"\r\n"),
            "",
        ),
        ["POST", "/mcp"] if request.contains("\"method\":\"server/discover\"") => answer(
            "200 OK",
            "",
            r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}"#,
        ),
        ["POST", "/mcp"] => answer(
            "200 OK",
            "",
            r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"secret","inputSchema":{"type":"object"}}]}}"#,
        ),
        ["GET", "/.well-known/oauth-protected-resource/mcp"] => answer(
            "200 OK",
            "",
            &json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}).to_string(),
        ),
        ["GET", "/.well-known/oauth-authorization-server"] => answer(
            "200 OK",
            "",
            &json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"]
            })
            .to_string(),
        ),
        ["POST", "/register"] => answer(
            "201 Created",
            "",
            r#"{"client_id":"cli-1","token_endpoint_auth_method":"none","redirect_uris":["http://localhost:3000/callback"]}"#,
        ),
        ["POST", "/token"] => answer(
            "200 OK",
            "",
            r#"{"access_token":"tok-1","token_type":"Bearer","expires_in":3600}"#,
        ),
        _ => answer("404 Not Found", "", "{}"),
    }
}

#[test]
fn oauth_through_the_terminal() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let at = base.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let mut conn = conn.unwrap();
            let request = read_request(&mut conn);
            let _ = conn.write_all(route(&at, &request).as_bytes());
            log.lock().unwrap().push(request);
        }
    });

    let mut child = Command::new(env!("CARGO_BIN_EXE_snodo"))
        .args(["--oauth", "--compact", "list", &format!("{base}/mcp")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The user's part: find the authorization URL on stderr, and paste
    // the redirect a browser would land on, with its `state`.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut shown = String::new();
    let url = loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "no URL in {shown}"
        );
        shown.push_str(&line);
        if let Some(url) = line.trim().strip_prefix(&format!("{base}/authorize?")) {
            break url.to_owned();
        }
    };
    let state = url
        .split('&')
        .find_map(|p| p.strip_prefix("state="))
        .unwrap()
        .to_owned();
    assert!(url.contains("code_challenge_method=S256"), "{url}");
    assert!(url.contains("client_id=cli-1"), "{url}");
    writeln!(
        child.stdin.take().unwrap(),
        "http://localhost:3000/callback?code=the-code&state={state}"
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let tools: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        tools,
        json!([{"name": "secret", "inputSchema": {"type": "object"}}])
    );

    let requests = seen.lock().unwrap();
    let token = requests
        .iter()
        .find(|r| r.starts_with("POST /token "))
        .unwrap();
    assert!(token.contains("grant_type=authorization_code"), "{token}");
    assert!(token.contains("code=the-code"), "{token}");
    assert!(token.contains("code_verifier="), "{token}");
    assert!(token.contains("resource=http%3A%2F%2F127.0.0.1"), "{token}");
    let last = requests.last().unwrap();
    assert!(last.contains("Authorization: Bearer tok-1\r\n"), "{last}");
}
