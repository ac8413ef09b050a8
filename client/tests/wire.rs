//! The transports against servers that answer with literal bytes: a raw
//! TCP listener for Streamable HTTP, a shell script for stdio.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use snodo_client::{Authorizer, AuthorizerError, Error, HttpTransport, NoInput, Session};
use snodo_proto::client::{ClientConfig, ClientError, OpId, RequestOptions, Wire};

/// Serve each accepted connection one canned answer; keep the requests.
fn canned(answers: Vec<&'static [u8]>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for answer in answers {
            let (mut conn, _) = listener.accept().unwrap();
            let request = read_request(&mut conn);
            log.lock().unwrap().push(request);
            conn.write_all(answer).unwrap();
            // Dropping `conn` closes it (ends a close-delimited body).
        }
    });
    (url, seen)
}

const DISCOVER: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 88\r\n\r\n\
{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{}}}";

#[derive(Default)]
struct Progress(Vec<(Option<OpId>, Value)>);

impl snodo_client::Handler for Progress {
    fn notification(&mut self, op: Option<OpId>, message: &Value) {
        self.0.push((op, message.clone()));
    }
}

#[test]
fn reads_a_chunked_event_stream_and_stops_at_the_answer() {
    // The SSE stream carries a notification, then the answer split across
    // chunks, and is never terminated: the client stops reading at the answer.
    let sse: &'static [u8] =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n\
46\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n\r\n\
11\r\ndata: {\"jsonrpc\":\r\n\
25\r\n\"2.0\",\"id\":2,\"result\":{\"tools\":[]}}\n\n\r\n";
    let (url, seen) = canned(vec![DISCOVER, sse]);
    let config = ClientConfig::new("wire", "1", Wire::Http);
    let transport = HttpTransport::new(&url).unwrap();
    let mut session = Session::connect(transport, config, Progress::default()).unwrap();
    let tools = session.list_tools().unwrap();
    assert!(tools.is_empty());
    assert_eq!(session.handler_mut().0.len(), 1);

    let requests = seen.lock().unwrap().clone();
    let port = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let expected_head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {port}\r\nAccept: application/json, text/event-stream\r\n\
MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\nContent-Type: application/json\r\n"
    );
    assert!(requests[1].starts_with(&expected_head), "{}", requests[1]);
    let body: Value = serde_json::from_str(requests[1].split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["id"], 2);
    assert_eq!(
        body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
}

#[test]
fn an_error_status_without_json_fails_the_call() {
    let (url, _) = canned(vec![
        DISCOVER,
        b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nbad",
    ]);
    let mut session = Session::connect(
        HttpTransport::new(&url).unwrap(),
        ClientConfig::new("wire", "1", Wire::Http),
        NoInput,
    )
    .unwrap();
    match session.list_tools() {
        Err(Error::Client(ClientError::Http { status: 502 })) => {}
        other => panic!("{other:?}"),
    }
}

/// Hands out `Bearer t1`, then after a challenge `Bearer t2`.
struct Tokens {
    current: Mutex<&'static str>,
    challenges: Mutex<Vec<(u16, Vec<String>)>>,
}

impl Authorizer for Tokens {
    fn authorization(&self, _endpoint: &str) -> Option<String> {
        Some(format!("Bearer {}", self.current.lock().unwrap()))
    }

    fn challenged(
        &self,
        _endpoint: &str,
        status: u16,
        www: &[String],
    ) -> Result<bool, AuthorizerError> {
        self.challenges.lock().unwrap().push((status, www.to_vec()));
        *self.current.lock().unwrap() = "t2";
        Ok(true)
    }
}

#[test]
fn a_401_goes_to_the_authorizer_and_the_request_is_sent_once_more() {
    let (url, seen) = canned(vec![
        b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer resource_metadata=\"http://x/.well-known/oauth-protected-resource\"\r\nContent-Length: 0\r\n\r\n",
        DISCOVER,
    ]);
    let tokens = Arc::new(Tokens {
        current: Mutex::new("t1"),
        challenges: Mutex::new(Vec::new()),
    });
    let transport = HttpTransport::new(&url)
        .unwrap()
        .with_authorizer(tokens.clone());
    Session::connect(
        transport,
        ClientConfig::new("wire", "1", Wire::Http),
        NoInput,
    )
    .unwrap();
    assert_eq!(
        *tokens.challenges.lock().unwrap(),
        [(
            401,
            vec![String::from(
                "Bearer resource_metadata=\"http://x/.well-known/oauth-protected-resource\""
            )]
        )]
    );
    let requests = seen.lock().unwrap();
    assert!(requests[0].contains("\r\nAuthorization: Bearer t1\r\n"));
    assert!(requests[1].contains("\r\nAuthorization: Bearer t2\r\n"));
    // The same JSON-RPC message both times: it never reached the server.
    assert_eq!(
        requests[0].split("\r\n\r\n").nth(1),
        requests[1].split("\r\n\r\n").nth(1)
    );
}

#[cfg(unix)]
#[test]
fn stdio_speaks_lines_with_a_spawned_process() {
    use snodo_client::StdioTransport;
    // A server in sh: it answers ids 1 and 2 with literal JSON, and hangs
    // up instead when a line is not the request it expects.
    let script = r#"
read -r first
case "$first" in *'"method":"server/discover"'*) ;; *) echo "bad: $first" >&2; exit 1;; esac
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}'
read -r second
case "$second" in *'"id":2,'*'"method":"tools/call"'*) ;; *) echo "bad: $second" >&2; exit 1;; esac
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}'
printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}'
read -r third
case "$third" in *'"progressToken":3'*) ;; *) echo "bad: $third" >&2; exit 1;; esac
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1,"total":2}}'
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"content":[]}}'
"#;
    let mut command = std::process::Command::new("sh");
    command.arg("-c").arg(script);
    let transport = StdioTransport::spawn(command).unwrap();
    let mut session = Session::connect(
        transport,
        ClientConfig::new("wire", "1", Wire::Stdio),
        Progress::default(),
    )
    .unwrap();
    let result = session.call_tool("anything", json!({})).unwrap();
    assert_eq!(result.content, [snodo_proto::Content::text("ok")]);
    assert_eq!(session.handler_mut().0.len(), 1);

    // With progress: the token is the operation's id, and the
    // notification comes back tied to it.
    let options = RequestOptions { progress: true };
    session
        .request_with("tools/call", json!({"name": "slow"}), options)
        .unwrap();
    let (op, message) = &session.handler_mut().0[1];
    assert_eq!(*op, Some(OpId(3)));
    assert_eq!(message["params"]["progress"], 1);
}

#[cfg(unix)]
#[test]
fn stdio_subscription_ends_with_notifications_cancelled() {
    use snodo_client::{Ended, StdioTransport};
    let script = r#"
read -r discover
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}'
read -r listen
case "$listen" in *'"id":2,'*'"method":"subscriptions/listen"'*'"toolsListChanged":true'*) ;; *) echo "bad: $listen" >&2; exit 1;; esac
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"toolsListChanged":true}}}'
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"not the subscription"}}'
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}'
read -r cancel
case "$cancel" in *'"method":"notifications/cancelled"'*'"requestId":2'*) ;; *) echo "bad: $cancel" >&2; exit 1;; esac
read -r call
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"content":[]}}'
"#;
    let mut command = std::process::Command::new("sh");
    command.arg("-c").arg(script);
    let transport = StdioTransport::spawn(command).unwrap();
    let config = ClientConfig::new("wire", "1", Wire::Stdio);
    let mut session = Session::connect(transport, config, Progress::default()).unwrap();
    let mut seen = Vec::new();
    let ended = session
        .listen(json!({"toolsListChanged": true}), |n| {
            seen.push(n["method"].clone());
            n["method"] != "notifications/tools/list_changed"
        })
        .unwrap();
    assert_eq!(ended, Ended::ByClient);
    assert_eq!(
        seen,
        [
            json!("notifications/subscriptions/acknowledged"),
            json!("notifications/tools/list_changed")
        ]
    );
    // The other notification went to the handler, untied.
    assert_eq!(session.handler_mut().0.len(), 1);
    assert_eq!(session.handler_mut().0[0].0, None);
    // The script checked the cancellation line before answering this.
    session.call_tool("after", json!({})).unwrap();
}

#[test]
fn an_initialize_era_session_is_deleted_on_close() {
    let (url, seen) = canned(vec![
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: abc-123\r\nContent-Length: 84\r\n\r\n\
{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}",
        b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n",
        // The GET stream: this server offers none.
        b"HTTP/1.1 405 Method Not Allowed\r\nAllow: POST, DELETE\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 204 No Content\r\n\r\n",
    ]);
    let mut config = ClientConfig::new("wire", "1", Wire::Http);
    config.versions = vec![String::from("2025-11-25")];
    let session = Session::connect(HttpTransport::new(&url).unwrap(), config, NoInput).unwrap();
    assert_eq!(session.client().session_id(), Some("abc-123"));
    session.close().unwrap();

    let requests = seen.lock().unwrap();
    assert!(
        requests[1].contains("\r\nMcp-Session-Id: abc-123\r\n"),
        "{}",
        requests[1]
    );
    assert!(requests[1].contains("\"method\":\"notifications/initialized\""));
    let port = url.trim_start_matches("http://").trim_end_matches("/mcp");
    assert!(
        requests[2].starts_with("GET /mcp HTTP/1.1\r\n"),
        "{}",
        requests[2]
    );
    assert_eq!(
        requests[3],
        format!(
            "DELETE /mcp HTTP/1.1\r\nHost: {port}\r\nAccept: application/json, text/event-stream\r\n\
MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: abc-123\r\n\r\n"
        )
    );
}

/// Read one request (head, and `Content-Length` bytes of body).
fn read_request(conn: &mut std::net::TcpStream) -> String {
    let mut request = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = conn.read(&mut buf).unwrap();
        assert!(n > 0, "the client hung up mid-request");
        request.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&request).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let len: usize = text
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .map_or(0, |v| v.trim().parse().unwrap());
            if request.len() >= end + 4 + len {
                return text;
            }
        }
    }
}

/// 2025-11-25: a server that sends its elicitation request on the GET
/// stream (as servers on the TypeScript SDK do) and holds the call's
/// answer until the client has POSTed its response. Like those servers it
/// answers `initialize` with an event stream (so `notifications/initialized`
/// goes out from inside that exchange) and sends the GET's head only with
/// the stream's first event (so opening the stream must not wait for it).
#[test]
fn initialize_era_requests_on_the_get_stream_are_answered_while_a_call_waits() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let accept = || listener.accept().unwrap().0;
        let mut init = accept();
        assert!(read_request(&mut init).contains("\"method\":\"initialize\""));
        init.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nMcp-Session-Id: s-9\r\nTransfer-Encoding: chunked\r\n\r\n\
5c\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}\n\n\r\n0\r\n\r\n").unwrap();
        let mut initialized = accept();
        read_request(&mut initialized);
        initialized
            .write_all(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
            .unwrap();

        let mut get = accept();
        let head = read_request(&mut get);
        assert!(head.starts_with("GET /mcp HTTP/1.1\r\n"), "{head}");
        assert!(head.contains("\r\nMcp-Session-Id: s-9\r\n"), "{head}");

        let mut call = accept();
        assert!(read_request(&mut call).contains("\"method\":\"tools/call\""));
        get.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"e1\",\"method\":\"elicitation/create\",\"params\":{\"message\":\"Name?\",\"requestedSchema\":{\"type\":\"object\"}}}\n\n").unwrap();

        let mut answer = accept();
        let posted = read_request(&mut answer);
        answer
            .write_all(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
            .unwrap();
        let body: Value = serde_json::from_str(posted.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(
            body,
            json!({"jsonrpc": "2.0", "id": "e1", "result": {"action": "accept", "content": {"name": "Ada"}}})
        );

        call.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 75\r\n\r\n\
{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}",
        )
        .unwrap();
        get
    });

    struct Ada;
    impl snodo_client::Handler for Ada {
        fn elicit(&mut self, _: &Value) -> Result<Value, snodo_proto::ErrorObject> {
            Ok(json!({"action": "accept", "content": {"name": "Ada"}}))
        }
    }
    let mut config = ClientConfig::new("wire", "1", Wire::Http);
    config.versions = vec![String::from("2025-11-25")];
    config.capabilities.insert("elicitation".into(), json!({}));
    let transport = HttpTransport::new(&url)
        .unwrap()
        .with_timeout(std::time::Duration::from_secs(10));
    let mut session = Session::connect(transport, config, Ada).unwrap();
    let result = session.call_tool("t", json!({})).unwrap();
    assert_eq!(result.content, [snodo_proto::Content::text("ok")]);
    drop(server.join().unwrap());
}

/// A call the stdio server never answers: the wait ends at the timeout,
/// and the next message the client sends is the call's cancellation.
#[cfg(unix)]
#[test]
fn a_stdio_call_given_up_is_cancelled() {
    use snodo_client::StdioTransport;
    let script = r#"
read -r discover
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}'
read -r slow
read -r cancel
case "$cancel" in *'"method":"notifications/cancelled"'*'"requestId":2'*) ;; *) echo "bad: $cancel" >&2; exit 1;; esac
read -r next
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"content":[]}}'
"#;
    let mut command = std::process::Command::new("sh");
    command.arg("-c").arg(script);
    let transport = StdioTransport::spawn(command)
        .unwrap()
        .with_timeout(std::time::Duration::from_millis(300));
    let config = ClientConfig::new("wire", "1", Wire::Stdio);
    let mut session = Session::connect(transport, config, NoInput).unwrap();
    match session.call_tool("slow", json!({})) {
        Err(Error::Transport(snodo_client::TransportError::Io(e))) => {
            assert_eq!(e.kind(), std::io::ErrorKind::TimedOut)
        }
        other => panic!("{other:?}"),
    }
    assert!(!session.client().is_live(OpId(2)));
    session.call_tool("next", json!({})).unwrap();
}

/// The blocking transport's request timeout is a deadline: a server that
/// sends the promised 88-byte body one byte every 100 ms (each read gets
/// a byte well within any read timeout) is given up on at 1 s, not
/// followed for the 8.8 s the body takes.
#[test]
fn the_request_deadline_holds_against_a_trickle() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        read_request(&mut conn);
        let (head, body) = DISCOVER.split_at(DISCOVER.len() - 88);
        conn.write_all(head).unwrap();
        for byte in body {
            if conn.write_all(&[*byte]).is_err() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    });
    let transport = HttpTransport::new(&url)
        .unwrap()
        .with_timeout(std::time::Duration::from_secs(1));
    let start = std::time::Instant::now();
    let outcome = Session::connect(
        transport,
        ClientConfig::new("wire", "1", Wire::Http),
        NoInput,
    )
    .map(|_| ());
    let waited = start.elapsed();
    match outcome {
        Err(Error::Transport(snodo_client::TransportError::Io(e)))
            if e.kind() == std::io::ErrorKind::TimedOut => {}
        other => panic!("after {waited:?}: {other:?}"),
    }
    assert!(
        waited >= std::time::Duration::from_millis(950)
            && waited < std::time::Duration::from_millis(2500),
        "{waited:?}"
    );
}

/// The host is looked up at each connection, not when the transport is
/// made: a name that does not resolve yet (`.invalid` never does) makes a
/// transport, and its first connection fails with the resolver's error.
#[test]
fn the_host_is_resolved_at_connection_not_at_construction() {
    let transport = HttpTransport::new("http://snodo-test.invalid/mcp").unwrap();
    match Session::connect(
        transport,
        ClientConfig::new("wire", "1", Wire::Http),
        NoInput,
    ) {
        Err(Error::Transport(snodo_client::TransportError::Io(_))) => {}
        other => panic!("{:?}", other.map(|_| ())),
    }
}
