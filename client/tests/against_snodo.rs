//! snodo-client against snodo's own server (snodo-blocking on
//! 127.0.0.1:0, in-process): discover, a tool whose MRTR round the
//! handler answers, and a tool whose `x-mcp-header` parameter the server
//! checks against the `Mcp-Param-*` header the client mirrors; a
//! dual-era client that stays modern with it, and one that falls back to
//! its initialize era behind a front refusing `server/discover`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};

use serde::Deserialize;
use serde_json::{json, Value};
use snodo_blocking::{bind_http, serve_http, Options, Shutdown, Threads};
use snodo_client::{Ended, Handler, HttpTransport, Session, Step};
use snodo_proto::client::{ClientConfig, Era, Wire};
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{
    CallToolResult, Context, ElicitAction, ElicitRequest, ErrorObject, InputRequired, NoArgs,
    Notifications, Reply, Service, Tool,
};

#[derive(Deserialize)]
struct Name {
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct Region {
    region: String,
}

fn greet(ctx: Context) -> Reply<CallToolResult> {
    let ask = || {
        InputRequired::new()
            .elicit(
                "who",
                ElicitRequest::form(
                    "Who is there?",
                    json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
                ),
            )
            .into()
    };
    match ctx.elicitation("who") {
        Some(r) if r.action == ElicitAction::Accept => match r.content_as::<Name>() {
            Some(n) => Reply::Complete(CallToolResult::text(format!("Hello, {}!", n.name))),
            None => ask(),
        },
        Some(_) => Reply::Complete(CallToolResult::text("declined")),
        None => ask(),
    }
}

fn service() -> Service {
    Service::builder()
        .notifications(Notifications::default().tools_list_changed())
        .tool(
            Tool::new("greet", "Greets whoever answers"),
            |_: NoArgs, ctx: Context| async move { greet(ctx) },
        )
        .tool(
            Tool::new("region", "Echoes a mirrored region").input_schema(json!({
                "type": "object",
                "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
                "required": ["region"]
            })),
            |args: Region| async move { CallToolResult::text(format!("Region: {}", args.region)) },
        )
        .build()
        .expect("a valid service")
}

/// Answers the elicitation with a name and counts the questions.
#[derive(Default)]
struct Ada {
    asked: Vec<Value>,
}

impl Handler for Ada {
    fn elicit(&mut self, params: &Value) -> Result<Value, ErrorObject> {
        self.asked.push(params.clone());
        Ok(json!({"action": "accept", "content": {"name": "Ada"}}))
    }
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

fn tool_text(result: &snodo_proto::CallToolResult) -> &str {
    match result.content.first() {
        Some(snodo_proto::Content::Text(t)) => &t.text,
        _ => "",
    }
}

/// Run `client` against the service on a fresh port, then stop the server.
fn with_server(client: impl FnOnce(&str)) {
    let service = service();
    let listener = bind_http("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let threads = Threads::new(2).unwrap();
    let shutdown = Shutdown::new();
    /// Stops the server however the client ends, a failed assertion
    /// included (else the scope would wait for the server forever).
    struct StopOnDrop(Shutdown);
    impl Drop for StopOnDrop {
        fn drop(&mut self) {
            self.0.shutdown();
        }
    }
    std::thread::scope(|s| {
        let stop = shutdown.clone();
        let server = s.spawn(|| serve_http(&threads, &service, listener, stop, Options::default()));
        let guard = StopOnDrop(shutdown.clone());
        client(&url);
        drop(guard);
        server.join().unwrap().unwrap();
    });
}

#[test]
fn calls_tools_with_an_mrtr_round_and_mirrored_headers() {
    with_server(|url| {
        let mut config = ClientConfig::new("it", "1.0.0", Wire::Http);
        config.capabilities.insert("elicitation".into(), json!({}));
        let transport = HttpTransport::new(url).unwrap();
        let mut session = Session::connect(transport, config, Ada::default()).unwrap();
        assert_eq!(session.client().server().versions, ["2026-07-28"]);

        let names: Vec<Value> = session
            .list_tools()
            .unwrap()
            .iter()
            .map(|t| json!(t.name))
            .collect();
        assert_eq!(names, [json!("greet"), json!("region")]);

        // The step API: one round asks, the retry completes.
        let step = session
            .start("tools/call", json!({"name": "greet", "arguments": {}}))
            .unwrap();
        let Step::InputRequired { op, requests } = step else {
            panic!("{step:?}")
        };
        assert_eq!(requests["who"]["method"], "elicitation/create");
        let responses = session.answer_inputs(&requests);
        let Step::Done(result) = session.resume(op, responses).unwrap() else {
            panic!("not done")
        };
        assert_eq!(text(&result), "Hello, Ada!");

        // The whole loop in one call.
        let result = session.call_tool("greet", json!({})).unwrap();
        assert_eq!(tool_text(&result), "Hello, Ada!");
        assert_eq!(session.handler_mut().asked.len(), 2);

        // The server refuses a tools/call whose Mcp-Param-Region does not
        // mirror the body (-32020): these pass only if the client encodes
        // it as the server decodes it, Base64 included.
        for region in ["us-west1", "Zürich ", "=?base64?x?="] {
            let result = session
                .call_tool("region", json!({"region": region}))
                .unwrap();
            assert_eq!(tool_text(&result), format!("Region: {region}"));
        }

        // A subscription: the acknowledgment arrives on the open stream,
        // the callback ends it (the client closes the stream), and the
        // session goes on.
        let mut seen = Vec::new();
        let ended = session
            .listen(json!({"toolsListChanged": true}), |n| {
                seen.push(n.clone());
                false
            })
            .unwrap();
        assert_eq!(ended, Ended::ByClient);
        assert_eq!(seen.len(), 1);
        assert_eq!(
            seen[0]["method"],
            "notifications/subscriptions/acknowledged"
        );
        assert!(seen[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].is_u64());
        let result = session
            .call_tool("region", json!({"region": "eu"}))
            .unwrap();
        assert_eq!(tool_text(&result), "Region: eu");
    });
}

/// 2025-11-25: `initialize`, a session id, and the same handler's
/// question arriving as an `elicitation/create` request on the call's SSE
/// stream, answered by a POST while that stream is still open.
#[test]
fn initialize_era_session_answers_the_server_request_mid_stream() {
    with_server(|url| {
        let mut config = ClientConfig::new("it", "1.0.0", Wire::Http);
        config.versions = vec![String::from("2025-11-25")];
        config.capabilities.insert("elicitation".into(), json!({}));
        let transport = HttpTransport::new(url).unwrap();
        let mut session = Session::connect(transport, config, Ada::default()).unwrap();
        assert_eq!(session.client().version(), "2025-11-25");
        assert!(session.client().session_id().is_some());

        let result = session.call_tool("greet", json!({})).unwrap();
        assert_eq!(tool_text(&result), "Hello, Ada!");
        let asked = &session.handler_mut().asked;
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0]["message"], "Who is there?");
        let result = session
            .call_tool("region", json!({"region": "eu"}))
            .unwrap();
        assert_eq!(tool_text(&result), "Region: eu");
    });
}

/// A dual-era client against snodo's server (which serves 2026-07-28 and
/// the initialize era side by side): the probe's `DiscoverResult` keeps
/// it modern (`basic/versioning.mdx` § Compatibility Matrix, dual-era
/// client and modern server).
#[test]
fn a_dual_era_client_stays_modern_with_snodo() {
    with_server(|url| {
        let mut config = ClientConfig::dual_era("it", "1.0.0", Wire::Http);
        config.capabilities.insert("elicitation".into(), json!({}));
        let transport = HttpTransport::new(url).unwrap();
        let mut session = Session::connect(transport, config, Ada::default()).unwrap();
        assert_eq!(session.era(), Era::Modern);
        assert_eq!(session.version(), "2026-07-28");
        assert_eq!(session.client().fallback_cause(), None);
        let result = session.call_tool("greet", json!({})).unwrap();
        assert_eq!(tool_text(&result), "Hello, Ada!");
    });
}

/// Read one HTTP request (head and `Content-Length` body) off `conn`.
fn read_request(conn: &mut TcpStream) -> Option<Vec<u8>> {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..end]).to_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |n| n.trim().parse::<usize>().unwrap());
            if data.len() >= end + 4 + length {
                return Some(data);
            }
        }
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => return None,
            Ok(n) => data.extend_from_slice(&buf[..n]),
        }
    }
}

/// snodo's server behind a front that answers `server/discover` the way
/// a 2025-11-25-only server does (`400 Bad Request`, empty body) and
/// passes everything else through, one request per connection: what the
/// client then meets is snodo's own initialize era (the handshake, the
/// session id, a server request on the call's stream).
fn legacy_front(upstream: &str) -> String {
    let upstream = upstream
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            let upstream = upstream.clone();
            std::thread::spawn(move || {
                let Some(request) = read_request(&mut conn) else {
                    return;
                };
                if String::from_utf8_lossy(&request).contains(r#""method":"server/discover""#) {
                    let _ = conn.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                    return;
                }
                let Ok(mut up) = TcpStream::connect(&upstream) else {
                    return;
                };
                // One request per connection: ask snodo to close after it.
                let line_end = request.windows(2).position(|w| w == b"\r\n").unwrap() + 2;
                let mut forwarded = request[..line_end].to_vec();
                forwarded.extend_from_slice(b"Connection: close\r\n");
                forwarded.extend_from_slice(&request[line_end..]);
                if up.write_all(&forwarded).is_err() {
                    return;
                }
                let _ = std::io::copy(&mut up, &mut conn);
            });
        }
    });
    url
}

/// `basic/versioning.mdx` § Backward Compatibility, dual-era client and
/// legacy server: the probe's 400 sends the client to `initialize`, and
/// the session then runs on snodo's 2025-11-25 dialect, a tool whose
/// question arrives as an `elicitation/create` request included.
#[test]
fn falls_back_to_snodo_initialize_era_behind_a_legacy_front() {
    with_server(|url| {
        let front = legacy_front(url);
        let mut config = ClientConfig::dual_era("it", "1.0.0", Wire::Http);
        config.capabilities.insert("elicitation".into(), json!({}));
        let transport = HttpTransport::new(&front).unwrap();
        let mut session = Session::connect(transport, config, Ada::default()).unwrap();
        assert_eq!(session.era(), Era::Legacy);
        assert_eq!(session.version(), "2025-11-25");
        assert!(session.client().session_id().is_some());
        assert_eq!(
            session.client().fallback_cause(),
            Some(&snodo_proto::client::ClientError::Http { status: 400 })
        );
        let names: Vec<String> = session
            .list_tools()
            .unwrap()
            .into_iter()
            .map(|t| t.name)
            .collect();
        assert_eq!(names, ["greet", "region"]);
        let result = session.call_tool("greet", json!({})).unwrap();
        assert_eq!(tool_text(&result), "Hello, Ada!");
        assert_eq!(session.handler_mut().asked.len(), 1);
        let result = session
            .call_tool("region", json!({"region": "eu"}))
            .unwrap();
        assert_eq!(tool_text(&result), "Region: eu");
        session.close().unwrap();
    });
}
