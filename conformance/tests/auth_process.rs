//! The fixture with authorization on (`--auth-issuer`, `--auth-audience`,
//! `--auth-jwks`), as a lane runs it: the real binary on a loopback port,
//! raw HTTP/1.1 requests. Without a token: 401 and the challenge naming
//! the metadata; with a valid one: 200; with one lacking a tool's scope:
//! 403 `insufficient_scope`. The keys are snodo-auth's test keys
//! (`auth/tests/keys`, test-only).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::json;

const FIXTURE: &str = env!("CARGO_BIN_EXE_snodo-fixture");
const KEYS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../auth/tests/keys");
const ISSUER: &str = "https://auth.example.com";

struct Fixture {
    child: Child,
    addr: String,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The fixture on `runtime`; its audience is its own endpoint's URI, which
/// is only known once bound: the test names the port up front.
fn start(runtime: &str) -> (Fixture, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let audience = format!("http://{addr}/mcp");
    let mut child = Command::new(FIXTURE)
        .args(["--listen", &addr, "--runtime", runtime])
        .args(["--auth-issuer", ISSUER, "--auth-audience", &audience])
        .args(["--auth-jwks", &format!("{KEYS}/jwks.json")])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the fixture starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), addr, "the fixture announces its address");
    (Fixture { child, addr }, audience)
}

fn token(audience: &str, scope: &str) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("rsa-2".into());
    let key = std::fs::read(format!("{KEYS}/rsa2.key")).unwrap();
    encode(
        &header,
        &json!({"iss": ISSUER, "aud": audience, "sub": "lane", "scope": scope, "exp": now + 300}),
        &EncodingKey::from_rsa_pem(&key).unwrap(),
    )
    .unwrap()
}

/// `tools/call test_simple_text` with `authorization`; the raw response.
fn call(addr: &str, authorization: Option<&str>) -> String {
    call_with(addr, "/mcp", authorization.as_slice())
}

/// `tools/call test_simple_text` to `target` with one `Authorization`
/// header per item of `authorization`; the raw response.
fn call_with(addr: &str, target: &str, authorization: &[&str]) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let auth: String = authorization
        .iter()
        .map(|a| format!("Authorization: {a}\r\n"))
        .collect();
    let headers = format!("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: test_simple_text\r\n{auth}");
    post(addr, target, &headers, body)
}

/// POST `body` to `target` with the header lines `headers`, on a
/// connection of its own; the raw response.
fn post(addr: &str, target: &str, headers: &str, body: &str) -> String {
    let request = format!(
        "POST {target} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    // A server that refuses the head may close before reading the rest,
    // so a failed write or a reset after the answer is not an error here:
    // the answer read is what is checked.
    let _ = stream.write_all(request.as_bytes());
    let mut response = Vec::new();
    let mut chunk = [0u8; 4096];
    while let Ok(n) = stream.read(&mut chunk) {
        if n == 0 {
            break;
        }
        response.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8_lossy(&response).into_owned()
}

fn header<'a>(response: &'a str, name: &str) -> Option<&'a str> {
    let head = response.split_once("\r\n\r\n")?.0;
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

#[test]
fn the_fixture_with_auth_flags_wants_a_token_on_every_runtime() {
    for runtime in ["blocking", "tokio", "smol", "hyper"] {
        let (fixture, audience) = start(runtime);
        let addr = fixture.addr.as_str();
        let prm = format!("http://{addr}/.well-known/oauth-protected-resource/mcp");

        let none = call(addr, None);
        assert!(none.starts_with("HTTP/1.1 401 "), "{runtime}: {none}");
        assert_eq!(
            header(&none, "WWW-Authenticate"),
            Some(format!("Bearer scope=\"mcp\", resource_metadata=\"{prm}\"").as_str()),
            "{runtime}"
        );

        let good = token(&audience, "mcp mcp:text");
        let ok = call(addr, Some(&format!("Bearer {good}")));
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{runtime}: {ok}");
        assert!(
            ok.contains("This is a simple text response for testing."),
            "{runtime}: {ok}"
        );

        let narrow = token(&audience, "mcp");
        let forbidden = call(addr, Some(&format!("Bearer {narrow}")));
        assert!(
            forbidden.starts_with("HTTP/1.1 403 "),
            "{runtime}: {forbidden}"
        );
        assert_eq!(
            header(&forbidden, "WWW-Authenticate"),
            Some(
                format!(
                    "Bearer error=\"insufficient_scope\", scope=\"mcp:text\", resource_metadata=\"{prm}\""
                )
                .as_str()
            ),
            "{runtime}"
        );

        let other = token("http://127.0.0.1:1/mcp", "mcp mcp:text");
        let refused = call(addr, Some(&format!("Bearer {other}")));
        assert!(refused.starts_with("HTTP/1.1 401 "), "{runtime}: {refused}");
        assert!(
            refused.contains("error_description=\"The token was issued for another audience\""),
            "{runtime}: {refused}"
        );
    }
}

/// The hostile requests that are about HTTP rather than the token, on the
/// real listeners (the native one and hyper parse the head differently):
/// the scheme is case-insensitive; two `Authorization` headers are 400;
/// a token in the query string is no token; a 64 KiB token is refused
/// with 431 before it is looked at.
#[test]
fn hostile_headers_get_the_same_answer_on_every_runtime() {
    for runtime in ["blocking", "tokio", "smol", "hyper"] {
        let (fixture, audience) = start(runtime);
        let addr = fixture.addr.as_str();
        let prm = format!("http://{addr}/.well-known/oauth-protected-resource/mcp");
        let good = token(&audience, "mcp mcp:text");

        let lower = call_with(addr, "/mcp", &[&format!("bearer {good}")]);
        assert!(
            lower.starts_with("HTTP/1.1 200 OK\r\n"),
            "{runtime}: {lower}"
        );

        let bearer = format!("Bearer {good}");
        let two = call_with(addr, "/mcp", &[&bearer, &bearer]);
        assert!(two.starts_with("HTTP/1.1 400 "), "{runtime}: {two}");
        assert_eq!(
            header(&two, "WWW-Authenticate"),
            Some(format!("Bearer error=\"invalid_request\", error_description=\"Multiple Authorization headers\", scope=\"mcp\", resource_metadata=\"{prm}\"").as_str()),
            "{runtime}"
        );

        let query = call_with(addr, &format!("/mcp?access_token={good}"), &[]);
        assert!(query.starts_with("HTTP/1.1 401 "), "{runtime}: {query}");
        assert_eq!(
            header(&query, "WWW-Authenticate"),
            Some(format!("Bearer scope=\"mcp\", resource_metadata=\"{prm}\"").as_str()),
            "{runtime}"
        );

        let huge = format!("Bearer {}", "a".repeat(64 * 1024));
        let big = call_with(addr, "/mcp", &[&huge]);
        assert!(
            big.starts_with("HTTP/1.1 431 "),
            "{runtime}: {}",
            &big[..big.len().min(300)]
        );
        assert_eq!(header(&big, "WWW-Authenticate"), None, "{runtime}");
    }
}

/// The same refusal inside an initialize-era session, on every runtime:
/// a token that carries `mcp` but not `mcp:text` opens a 2025-11-25 or
/// 2025-06-18 session, and its `tools/call` of `test_simple_text` is
/// answered 403 `insufficient_scope` without running; with the scope the
/// same call in the same kind of session runs.
#[test]
fn a_session_token_without_a_tools_scope_is_refused_on_every_runtime() {
    for runtime in ["blocking", "tokio", "smol", "hyper"] {
        let (fixture, audience) = start(runtime);
        let addr = fixture.addr.as_str();
        let prm = format!("http://{addr}/.well-known/oauth-protected-resource/mcp");
        for version in ["2025-11-25", "2025-06-18"] {
            let session = |token: &str| {
                let auth = format!("Authorization: Bearer {token}\r\n");
                let init = format!(
                    r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"lane","version":"1"}}}}}}"#
                );
                let opened = post(addr, "/mcp", &auth, &init);
                assert!(
                    opened.starts_with("HTTP/1.1 200 OK\r\n"),
                    "{runtime} {version}: {opened}"
                );
                let sid = header(&opened, "Mcp-Session-Id")
                    .unwrap_or_else(|| panic!("{runtime} {version}: no session: {opened}"))
                    .to_owned();
                let headers =
                    format!("{auth}Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: {version}\r\n");
                let initialized = post(
                    addr,
                    "/mcp",
                    &headers,
                    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                );
                assert!(
                    initialized.starts_with("HTTP/1.1 202 "),
                    "{runtime} {version}: {initialized}"
                );
                post(
                    addr,
                    "/mcp",
                    &headers,
                    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text"}}"#,
                )
            };

            let forbidden = session(&token(&audience, "mcp"));
            assert!(
                forbidden.starts_with("HTTP/1.1 403 "),
                "{runtime} {version}: {forbidden}"
            );
            assert_eq!(
                header(&forbidden, "WWW-Authenticate"),
                Some(format!("Bearer error=\"insufficient_scope\", scope=\"mcp:text\", resource_metadata=\"{prm}\"").as_str()),
                "{runtime} {version}"
            );
            assert!(
                forbidden.ends_with(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Forbidden: the token lacks a required scope"}}"#),
                "{runtime} {version}: {forbidden}"
            );

            let served = session(&token(&audience, "mcp mcp:text"));
            assert!(
                served.starts_with("HTTP/1.1 200 OK\r\n"),
                "{runtime} {version}: {served}"
            );
            assert!(
                served.contains("This is a simple text response for testing."),
                "{runtime} {version}: {served}"
            );
        }
    }
}
