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
fn read_request(conn: &mut impl Read) -> String {
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

/// Serve `listener` forever (over TLS with `tls`), keeping the requests.
fn serve(
    listener: TcpListener,
    base: String,
    tls: Option<Arc<rustls::ServerConfig>>,
) -> Arc<Mutex<Vec<String>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let conn = conn.unwrap();
            let request = match &tls {
                None => {
                    let mut conn = conn;
                    let request = read_request(&mut conn);
                    let _ = conn.write_all(route(&base, &request).as_bytes());
                    request
                }
                Some(config) => {
                    let server = rustls::ServerConnection::new(config.clone()).unwrap();
                    let mut conn = rustls::StreamOwned::new(server, conn);
                    let request = read_request(&mut conn);
                    let _ = conn.write_all(route(&base, &request).as_bytes());
                    conn.conn.send_close_notify();
                    let _ = conn.flush();
                    request
                }
            };
            log.lock().unwrap().push(request);
        }
    });
    seen
}

/// `snodo ARGS... list URL` through the OAuth flow: the user's part is
/// played here (the authorization URL found on stderr, the redirect a
/// browser would land on pasted, with its `state`). The requests the
/// server saw.
fn authorize_and_list(base: &str, args: &[&str], seen: &Arc<Mutex<Vec<String>>>) {
    let url = format!("{base}/mcp");
    let mut child = Command::new(env!("CARGO_BIN_EXE_snodo"))
        // No proxy from the test's own environment.
        .env_remove("http_proxy")
        .env_remove("HTTP_PROXY")
        .env_remove("https_proxy")
        .env_remove("HTTPS_PROXY")
        .env_remove("all_proxy")
        .env_remove("ALL_PROXY")
        .args(args)
        .args(["--oauth", "--compact", "list", &url])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
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
    let resource = format!("resource={}", url_encode(&format!("{base}/mcp")));
    assert!(token.contains(&resource), "{resource} not in {token}");
    let last = requests.last().unwrap();
    assert!(last.contains("Authorization: Bearer tok-1\r\n"), "{last}");
}

/// `application/x-www-form-urlencoded` of a URL (the characters one has).
fn url_encode(text: &str) -> String {
    text.replace(':', "%3A").replace('/', "%2F")
}

#[test]
fn oauth_through_the_terminal() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = serve(listener, base.clone(), None);
    authorize_and_list(&base, &[], &seen);
}

/// The same over HTTPS, the MCP server and the authorization server on a
/// certificate from a CA the test makes and hands over with `--ca`: the
/// OAuth requests trust what the MCP transport trusts.
#[test]
fn oauth_over_https_with_an_added_ca() {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca = ca.self_signed(&ca_key).unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec![String::from("localhost")])
        .unwrap()
        .signed_by(&leaf_key, &ca, &ca_key)
        .unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone()], key)
        .unwrap();
    let dir = std::env::temp_dir().join(format!("snodo-cli-oauth-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ca_file = dir.join("ca.pem");
    std::fs::write(&ca_file, ca.pem()).unwrap();

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!(
        "https://localhost:{}",
        listener.local_addr().unwrap().port()
    );
    let seen = serve(listener, base.clone(), Some(Arc::new(config)));
    authorize_and_list(&base, &["--ca", ca_file.to_str().unwrap()], &seen);
    std::fs::remove_dir_all(&dir).ok();
}
