//! The client machine against literal server messages.

use super::*;
use alloc::vec;

fn http_client() -> Client {
    let mut config = ClientConfig::new("test-client", "1.0.0", Wire::Http);
    config.capabilities.insert("elicitation".into(), json!({}));
    Client::new(config)
}

fn body(t: &Transmit) -> Value {
    serde_json::from_slice(&t.body).unwrap()
}

fn header<'a>(t: &'a Transmit, name: &str) -> Option<&'a str> {
    t.headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn round_id(t: &Transmit) -> u64 {
    match t.kind {
        TransmitKind::Request { id, .. } => id,
        _ => panic!("not a request"),
    }
}

fn events(c: &mut Client) -> Vec<Event> {
    core::iter::from_fn(|| c.poll_event()).collect()
}

#[test]
fn every_request_carries_meta_and_the_standard_headers() {
    let mut c = http_client();
    let op = c.request(
        "tools/call",
        json!({"name": "get_weather", "arguments": {"location": "Seattle"}}),
    );
    let t = c.poll_transmit().unwrap();
    assert_eq!(t.kind, TransmitKind::Request { op, id: 1 });
    assert_eq!(
        body(&t),
        json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {
                "name": "get_weather", "arguments": {"location": "Seattle"},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": {"name": "test-client", "version": "1.0.0"},
                    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
                }
            }
        })
    );
    assert_eq!(
        t.headers,
        vec![
            ("MCP-Protocol-Version".into(), "2026-07-28".into()),
            ("Mcp-Method".into(), "tools/call".into()),
            ("Mcp-Name".into(), "get_weather".into()),
        ]
    );
    c.handle_message(br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#)
        .unwrap();
    assert_eq!(
        events(&mut c),
        vec![Event::Completed {
            op,
            result: json!({"content": []})
        }]
    );

    c.request("resources/read", json!({"uri": "file:///caf\u{e9}.txt"}));
    let t = c.poll_transmit().unwrap();
    assert_eq!(
        header(&t, "mcp-name"),
        Some("=?base64?ZmlsZTovLy9jYWbDqS50eHQ=?=")
    );
}

#[test]
fn stdio_requests_carry_no_headers() {
    let mut c = Client::new(ClientConfig::new("c", "1", Wire::Stdio));
    c.request("tools/list", json!({}));
    let t = c.poll_transmit().unwrap();
    assert!(t.headers.is_empty());
    assert_eq!(
        body(&t)["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
}

/// `basic/patterns/mrtr.mdx` § Client Requirements: a new id, the state
/// echoed exactly, and the state of one operation never on another.
#[test]
fn mrtr_round_echoes_state_under_a_new_id_and_isolates_it() {
    let mut c = http_client();
    let echo = c.request("tools/call", json!({"name": "test_mrtr_echo_state"}));
    let first = c.poll_transmit().unwrap();
    c.handle_message(
        br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"Please confirm","requestedSchema":{"type":"object","properties":{"confirmed":{"type":"boolean"}}}}}},"requestState":"{\"nonce\":\"a b\\u00e9\",\"originalId\":1} "}}"#,
    )
    .unwrap();
    let evs = events(&mut c);
    let Event::InputRequired { op, requests } = &evs[0] else {
        panic!("{evs:?}")
    };
    assert_eq!(*op, echo);
    assert_eq!(requests["confirm"]["method"], "elicitation/create");

    // Another call between the rounds carries nothing of the first.
    let other = c.request("tools/call", json!({"name": "test_mrtr_unrelated"}));
    let t = c.poll_transmit().unwrap();
    let params = &body(&t)["params"];
    assert!(params.get("requestState").is_none() && params.get("inputResponses").is_none());

    let mut responses = Map::new();
    responses.insert(
        "confirm".into(),
        json!({"action": "accept", "content": {"confirmed": true}}),
    );
    c.answer(echo, responses).unwrap();
    let retry = c.poll_transmit().unwrap();
    assert_ne!(round_id(&retry), round_id(&first));
    assert_eq!(retry.kind, TransmitKind::Request { op: echo, id: 3 });
    let params = &body(&retry)["params"];
    assert_eq!(
        params["requestState"],
        "{\"nonce\":\"a b\\u00e9\",\"originalId\":1} "
    );
    assert_eq!(
        params["inputResponses"],
        json!({"confirm": {"action": "accept", "content": {"confirmed": true}}})
    );
    assert_eq!(params["name"], "test_mrtr_echo_state");

    // The unrelated call completes without resultType: complete.
    c.handle_message(
        br#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"unrelated-ok"}]}}"#,
    )
    .unwrap();
    assert!(matches!(&events(&mut c)[..], [Event::Completed { op, .. }] if *op == other));
    // The first round's id is spent: a late answer to it is refused.
    assert_eq!(
        c.handle_message(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        Err(MessageError::UnknownId)
    );
}

#[test]
fn mrtr_without_state_retries_without_state() {
    let mut c = http_client();
    let op = c.request("tools/call", json!({"name": "test_mrtr_no_state"}));
    c.poll_transmit().unwrap();
    c.handle_message(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object"}}}}}}"#).unwrap();
    assert!(matches!(events(&mut c)[..], [Event::InputRequired { .. }]));
    let mut responses = Map::new();
    responses.insert("confirm".into(), json!({"action": "accept", "content": {}}));
    c.answer(op, responses).unwrap();
    let params = body(&c.poll_transmit().unwrap())["params"].clone();
    assert!(params.get("requestState").is_none());
    assert!(params.get("inputResponses").is_some());

    // Only a state, no requests: the retry echoes it and sends no responses.
    c.handle_message(
        br#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"s2"}}"#,
    )
    .unwrap();
    assert_eq!(
        events(&mut c),
        vec![Event::InputRequired {
            op,
            requests: Map::new()
        }]
    );
    c.answer(op, Map::new()).unwrap();
    let params = body(&c.poll_transmit().unwrap())["params"].clone();
    assert_eq!(params["requestState"], "s2");
    assert!(params.get("inputResponses").is_none());
    assert_eq!(c.answer(op, Map::new()), Err(AnswerError::NotWaiting));
}

#[test]
fn input_required_is_refused_where_the_spec_forbids_it() {
    let mut c = http_client();
    let op = c.request("tools/list", json!({}));
    c.poll_transmit().unwrap();
    c.handle_message(
        br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"x"}}"#,
    )
    .unwrap();
    assert!(
        matches!(&events(&mut c)[..], [Event::Failed { op: o, error: ClientError::Malformed(_) }] if *o == op)
    );
}

/// `basic/versioning.mdx`: `-32022` is retried once with a version from
/// `data.supported`, and not a second time.
#[test]
fn unsupported_version_is_retried_once() {
    let mut config = ClientConfig::new("c", "1", Wire::Http);
    config.versions = vec!["2026-07-28".into(), "2025-11-25".into()];
    let mut c = Client::new(config);
    let op = c.request("tools/list", json!({}));
    c.poll_transmit().unwrap();
    c.handle_message(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}"#).unwrap();
    assert!(events(&mut c).is_empty());
    let retry = c.poll_transmit().unwrap();
    assert_eq!(retry.kind, TransmitKind::Request { op, id: 2 });
    assert_eq!(header(&retry, "mcp-protocol-version"), Some("2026-07-28"));
    c.handle_message(br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"]}}}"#).unwrap();
    assert!(matches!(
        &events(&mut c)[..],
        [Event::Failed {
            error: ClientError::Rpc { code: -32022, .. },
            ..
        }]
    ));

    // No common version: no retry.
    let mut c = Client::new(ClientConfig::new("c", "1", Wire::Http));
    c.request("tools/list", json!({}));
    c.poll_transmit().unwrap();
    c.handle_message(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"no","data":{"supported":["2099-01-01"]}}}"#).unwrap();
    assert!(c.poll_transmit().is_none());
    assert!(matches!(&events(&mut c)[..], [Event::Failed { .. }]));
}

const TOOLS: &[u8] = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[
 {"name":"execute_sql","inputSchema":{"type":"object","properties":{
   "region":{"type":"string","x-mcp-header":"Region"},
   "priority":{"type":"integer","x-mcp-header":"Priority"},
   "verbose":{"type":"boolean","x-mcp-header":"Verbose"},
   "greeting":{"type":"string","x-mcp-header":"Greeting"},
   "opts":{"type":"object","properties":{"tab":{"type":"string","x-mcp-header":"Tab"}}},
   "query":{"type":"string"}}}},
 {"name":"bad_number","inputSchema":{"type":"object","properties":{"f":{"type":"number","x-mcp-header":"F"}}}},
 {"name":"bad_duplicate","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}}},
 {"name":"remote_ref","inputSchema":{"type":"object","properties":{"profile":{"$ref":"http://example.invalid/schema.json"}}}}
]}}"#;

/// § Custom Headers from Tool Parameters: annotated arguments are
/// mirrored with the § Value Encoding rules, null and absent ones are
/// not, and tools with invalid annotations are dropped from `tools/list`.
#[test]
fn tool_catalog_mirrors_params_and_drops_invalid_tools() {
    let mut c = http_client();
    let list = c.request("tools/list", json!({}));
    c.poll_transmit().unwrap();
    c.handle_message(TOOLS).unwrap();
    let evs = events(&mut c);
    assert!(matches!(&evs[0], Event::ToolRejected { name, .. } if name == "bad_number"));
    assert!(matches!(&evs[1], Event::ToolRejected { name, .. } if name == "bad_duplicate"));
    let Event::Completed { op, result } = &evs[2] else {
        panic!("{evs:?}")
    };
    assert_eq!(*op, list);
    let names: Vec<&str> = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["execute_sql", "remote_ref"]);

    c.request(
        "tools/call",
        json!({"name": "execute_sql", "arguments": {
            "region": "us-west1", "priority": -7, "verbose": null, "greeting": "Hello, 世界",
            "opts": {"tab": "\tindented"}, "query": "SELECT 1"
        }}),
    );
    let t = c.poll_transmit().unwrap();
    let mut params: Vec<(&str, &str)> = t
        .headers
        .iter()
        .filter(|(n, _)| n.starts_with("Mcp-Param-"))
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    params.sort();
    assert_eq!(
        params,
        [
            ("Mcp-Param-Greeting", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            ("Mcp-Param-Priority", "-7"),
            ("Mcp-Param-Region", "us-west1"),
            ("Mcp-Param-Tab", "=?base64?CWluZGVudGVk?="),
        ]
    );

    // stdio may ignore the annotations: nothing is dropped.
    let mut c = Client::new(ClientConfig::new("c", "1", Wire::Stdio));
    c.request("tools/list", json!({}));
    c.poll_transmit().unwrap();
    c.handle_message(TOOLS).unwrap();
    let evs = events(&mut c);
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0].clone(), {
        let Event::Completed { op, result } = &evs[0] else {
            panic!()
        };
        assert_eq!(result["tools"].as_array().unwrap().len(), 4);
        Event::Completed {
            op: *op,
            result: result.clone(),
        }
    });
}

#[test]
fn initialize_era_handshake_session_and_server_requests() {
    let mut config = ClientConfig::new("c", "1", Wire::Http);
    config.versions = vec!["2025-11-25".into()];
    config.capabilities.insert("roots".into(), json!({}));
    let mut c = Client::new(config);
    assert!(!c.is_stateless());
    assert_eq!(c.session_headers(), None, "no session before initialize");
    let op = c.initialize();
    let t = c.poll_transmit().unwrap();
    assert_eq!(
        body(&t),
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"roots": {}},
            "clientInfo": {"name": "c", "version": "1"}
        }})
    );
    assert_eq!(header(&t, "mcp-protocol-version"), None);
    let head = http::ResponseHead {
        status: 200,
        headers: vec![("mcp-session-id".into(), "sess-1".into())],
    };
    c.handle_http_head(Some(1), &head);
    c.handle_message(br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"2"}}}"#).unwrap();
    assert!(matches!(&events(&mut c)[..], [Event::Completed { op: o, .. }] if *o == op));
    assert_eq!(c.version(), "2025-06-18");
    let t = c.poll_transmit().unwrap();
    assert_eq!(t.kind, TransmitKind::Notification);
    assert_eq!(
        body(&t),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}})
    );
    assert_eq!(header(&t, "mcp-session-id"), Some("sess-1"));
    assert_eq!(header(&t, "mcp-protocol-version"), Some("2025-06-18"));
    // The GET stream and the DELETE carry the same two, the negotiated
    // version's.
    assert_eq!(
        c.session_headers(),
        Some(vec![
            ("MCP-Protocol-Version".into(), "2025-06-18".into()),
            ("Mcp-Session-Id".into(), "sess-1".into()),
        ])
    );

    // Later requests carry no per-request _meta.
    c.request("tools/list", json!({}));
    let t = c.poll_transmit().unwrap();
    assert_eq!(body(&t)["params"], json!({}));

    c.handle_message(br#"{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}"#)
        .unwrap();
    let evs = events(&mut c);
    assert_eq!(
        evs,
        vec![Event::ServerRequest {
            id: json!("srv-1"),
            method: "roots/list".into(),
            params: Value::Null
        }]
    );
    c.respond(json!("srv-1"), Ok(json!({"roots": []})));
    let t = c.poll_transmit().unwrap();
    assert_eq!(t.kind, TransmitKind::Response);
    assert_eq!(
        body(&t),
        json!({"jsonrpc": "2.0", "id": "srv-1", "result": {"roots": []}})
    );
}

#[test]
fn initialize_refuses_a_version_it_does_not_speak() {
    let mut config = ClientConfig::new("c", "1", Wire::Stdio);
    config.versions = vec!["2025-11-25".into()];
    let mut c = Client::new(config);
    c.initialize();
    c.poll_transmit().unwrap();
    c.handle_message(
        br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{}}}"#,
    )
    .unwrap();
    assert!(
        matches!(&events(&mut c)[..], [Event::Failed { error: ClientError::UnsupportedVersion(v), .. }] if v == "2024-11-05")
    );
    assert!(c.poll_transmit().is_none(), "no initialized notification");
}

#[test]
fn progress_notifications_and_cancellation() {
    let mut c = Client::new(ClientConfig::new("c", "1", Wire::Stdio));
    let op = c.request_with(
        "tools/call",
        json!({"name": "slow"}),
        RequestOptions { progress: true },
    );
    let t = c.poll_transmit().unwrap();
    assert_eq!(body(&t)["params"]["_meta"]["progressToken"], op.0);
    c.handle_message(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}"#).unwrap();
    c.handle_message(br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#).unwrap();
    let evs = events(&mut c);
    assert!(matches!(&evs[0], Event::Notification { op: Some(o), .. } if *o == op));
    assert!(matches!(&evs[1], Event::Notification { op: None, .. }));

    assert_eq!(c.cancel(op, Some("user")), None);
    let t = c.poll_transmit().unwrap();
    assert_eq!(
        body(&t),
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "user"}})
    );
    assert_eq!(
        c.handle_message(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
        Err(MessageError::UnknownId)
    );

    // Streamable HTTP 2026-07-28: closing the stream is the signal.
    let mut c = http_client();
    let op = c.request("tools/call", json!({"name": "slow"}));
    c.poll_transmit().unwrap();
    assert_eq!(c.cancel(op, None), Some(1));
    assert!(c.poll_transmit().is_none());
}

#[test]
fn streams_that_end_without_an_answer_fail_the_round() {
    let mut c = http_client();
    let a = c.request("tools/list", json!({}));
    let b = c.request("tools/list", json!({}));
    c.stream_ended(1, 500);
    c.stream_ended(2, 200);
    assert_eq!(
        events(&mut c),
        vec![
            Event::Failed {
                op: a,
                error: ClientError::Http { status: 500 }
            },
            Event::Failed {
                op: b,
                error: ClientError::NoResponse
            },
        ]
    );
    assert_eq!(c.handle_message(b"not json"), Err(MessageError::NotJsonRpc));
}

#[test]
fn discover_records_the_server() {
    let mut c = http_client();
    c.discover();
    c.poll_transmit().unwrap();
    c.handle_message(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#).unwrap();
    assert_eq!(c.server().versions, ["2026-07-28"]);
    assert_eq!(c.server().info, Some(json!({"name": "s", "version": "1"})));
    assert_eq!(
        next_cursor(&json!({"tools": [], "nextCursor": "p2"})),
        Some("p2")
    );
    assert_eq!(next_cursor(&json!({"tools": []})), None);
}

#[test]
fn listen_notifications_are_tied_to_their_subscription() {
    let mut c = Client::new(ClientConfig::new("c", "1", Wire::Stdio));
    let tools = c.request("tools/list", json!({}));
    let sub = c.listen(json!({"toolsListChanged": true}));
    c.poll_transmit().unwrap();
    let t = c.poll_transmit().unwrap();
    assert_eq!(t.kind, TransmitKind::Request { op: sub, id: 2 });
    assert_eq!(
        body(&t)["params"]["notifications"],
        json!({"toolsListChanged": true})
    );

    for line in [
        &br#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"toolsListChanged":true}}}"#[..],
        br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}"#,
        // The id of a request that is not a subscription: not tied.
        br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#,
        br#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":2}}}"#,
        // After the graceful end, nothing is tied to it any more.
        br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}"#,
    ] {
        c.handle_message(line).unwrap();
    }
    let ops: Vec<Option<OpId>> = events(&mut c)
        .into_iter()
        .map(|e| match e {
            Event::Notification { op, .. } => op,
            Event::Completed { op, .. } => Some(op),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ops, [Some(sub), Some(sub), None, Some(sub), None]);
    assert!(c.is_live(tools));
}

/// § Custom Headers, Client Behavior: a `HeaderMismatch` makes the client
/// list the tools again (following pages until the tool shows up) and
/// retry once with the headers the new schema asks for; the refresh is
/// not the application's and reports nothing.
#[test]
fn header_mismatch_refreshes_the_catalog_and_retries_once() {
    let mut c = http_client();
    let call = c.request(
        "tools/call",
        json!({"name": "execute_sql", "arguments": {"region": "us-west1"}}),
    );
    let first = c.poll_transmit().unwrap();
    assert_eq!(header(&first, "mcp-param-region"), None, "an unknown tool");
    c.handle_message(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch: missing Mcp-Param-Region"}}"#).unwrap();

    let list = c.poll_transmit().unwrap();
    assert_eq!(body(&list)["method"], "tools/list");
    assert_eq!(body(&list)["id"], 2);
    c.handle_message(br#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"other","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}"#).unwrap();
    let page2 = c.poll_transmit().unwrap();
    assert_eq!(body(&page2)["params"]["cursor"], "p2");
    c.handle_message(br#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"execute_sql","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}]}}"#).unwrap();
    assert!(events(&mut c).is_empty(), "the refresh reports nothing");

    let retry = c.poll_transmit().unwrap();
    assert_eq!(retry.kind, TransmitKind::Request { op: call, id: 4 });
    assert_eq!(header(&retry, "mcp-param-region"), Some("us-west1"));
    assert_eq!(
        body(&retry)["params"]["arguments"],
        json!({"region": "us-west1"})
    );

    // A second mismatch is the application's.
    c.handle_message(
        br#"{"jsonrpc":"2.0","id":4,"error":{"code":-32020,"message":"Header mismatch"}}"#,
    )
    .unwrap();
    assert!(c.poll_transmit().is_none());
    assert!(matches!(
        &events(&mut c)[..],
        [Event::Failed { op, error: ClientError::Rpc { code: -32020, .. } }] if *op == call
    ));
}

/// 2025-11-25 `basic/transports.mdx` § Session Management: a 404 to a
/// request carrying the session id means the session is gone; the client
/// starts a new one (an `initialize` without the old id) and the refused
/// call goes again in it, with nothing reported but its own outcome.
#[test]
fn an_expired_session_is_replaced_and_the_call_resent() {
    let mut config = ClientConfig::new("c", "1", Wire::Http);
    config.versions = vec!["2025-11-25".into()];
    let mut c = Client::new(config);
    c.initialize();
    c.poll_transmit().unwrap();
    let head = |status: u16, session: &str| http::ResponseHead {
        status,
        headers: vec![("mcp-session-id".into(), session.into())],
    };
    c.handle_http_head(Some(1), &head(200, "s1"));
    c.handle_message(
        br#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}"#,
    )
    .unwrap();
    events(&mut c);
    c.poll_transmit().unwrap(); // notifications/initialized

    let call = c.request("tools/list", json!({}));
    let t = c.poll_transmit().unwrap();
    assert_eq!(header(&t, "mcp-session-id"), Some("s1"));
    c.handle_http_head(
        Some(2),
        &http::ResponseHead {
            status: 404,
            headers: vec![],
        },
    );
    c.stream_ended(2, 404);
    assert!(events(&mut c).is_empty());

    let init = c.poll_transmit().unwrap();
    assert_eq!(body(&init)["method"], "initialize");
    assert_eq!(header(&init, "mcp-session-id"), None);
    c.handle_http_head(Some(3), &head(200, "s2"));
    c.handle_message(
        br#"{"jsonrpc":"2.0","id":3,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}"#,
    )
    .unwrap();
    let initialized = c.poll_transmit().unwrap();
    assert_eq!(body(&initialized)["method"], "notifications/initialized");
    assert_eq!(header(&initialized, "mcp-session-id"), Some("s2"));
    let again = c.poll_transmit().unwrap();
    assert_eq!(again.kind, TransmitKind::Request { op: call, id: 4 });
    assert_eq!(header(&again, "mcp-session-id"), Some("s2"));
    assert!(events(&mut c).is_empty(), "the new session is not reported");

    // A second 404 for the same call is its outcome: no loop.
    c.handle_http_head(
        Some(4),
        &http::ResponseHead {
            status: 404,
            headers: vec![],
        },
    );
    c.stream_ended(4, 404);
    assert!(c.poll_transmit().is_none());
    assert_eq!(
        events(&mut c),
        vec![Event::Failed {
            op: call,
            error: ClientError::Http { status: 404 }
        }]
    );

    // When the new session cannot be had, the waiting call fails with it.
    c.handle_http_head(None, &head(200, "s3"));
    let other = c.request("tools/list", json!({}));
    c.poll_transmit().unwrap();
    c.handle_http_head(
        Some(5),
        &http::ResponseHead {
            status: 404,
            headers: vec![],
        },
    );
    let init = c.poll_transmit().unwrap();
    assert_eq!(
        init.kind,
        TransmitKind::Request {
            op: OpId(other.0 + 1),
            id: 6
        }
    );
    c.stream_ended(6, 503);
    assert_eq!(
        events(&mut c),
        vec![Event::Failed {
            op: other,
            error: ClientError::Http { status: 503 }
        }]
    );
}

/// `basic/index.mdx` § ResultType: an unrecognized `resultType` is
/// invalid; one an extension the client declared adds is that
/// extension's, and its methods' `Mcp-Name` mirrors the field it names.
/// (A made-up extension: the core names none.)
#[test]
fn result_types_the_client_does_not_know_are_invalid() {
    const JOB: &[u8] = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"job","jobId":"j-1","state":"running"}}"#;
    let mut c = http_client();
    let op = c.request("tools/call", json!({"name": "slow"}));
    c.poll_transmit().unwrap();
    c.handle_message(JOB).unwrap();
    assert!(matches!(
        &events(&mut c)[..],
        [Event::Failed { op: o, error: ClientError::Malformed(why) }] if *o == op && why.contains("job")
    ));

    let mut config =
        ClientConfig::new("c", "1", Wire::Http).with_extension("com.example/jobs", json!({}));
    config.result_types.push("job".into());
    config
        .named_methods
        .push(("jobs/poll".into(), "jobId".into()));
    let mut c = Client::new(config);
    let op = c.request("tools/call", json!({"name": "slow"}));
    let t = c.poll_transmit().unwrap();
    assert_eq!(
        body(&t)["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
        json!({"extensions": {"com.example/jobs": {}}})
    );
    c.handle_message(JOB).unwrap();
    let evs = events(&mut c);
    let [Event::ExtensionResult {
        op: o,
        result_type,
        result,
    }] = &evs[..]
    else {
        panic!("{evs:?}")
    };
    assert_eq!((*o, result_type.as_str()), (op, "job"));
    assert_eq!(result["jobId"], "j-1");
    assert!(!c.is_live(op));
    c.request("jobs/poll", json!({"jobId": "j-1"}));
    let t = c.poll_transmit().unwrap();
    assert_eq!(header(&t, "mcp-name"), Some("j-1"));
    c.handle_message(br#"{"jsonrpc":"2.0","id":2,"result":{"jobId":"j-1","state":"running"}}"#)
        .unwrap();
    events(&mut c);

    c.request("tools/list", json!({}));
    c.poll_transmit().unwrap();
    c.handle_message(br#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"someday","tools":[]}}"#)
        .unwrap();
    assert!(matches!(
        &events(&mut c)[..],
        [Event::Failed {
            error: ClientError::Malformed(_),
            ..
        }]
    ));
}

/// An error without an id in the body of a round's HTTP answer is that
/// round's; elsewhere it matches nothing.
#[test]
fn an_anonymous_error_in_an_http_answer_belongs_to_its_round() {
    let mut c = http_client();
    let op = c.request("tools/list", json!({}));
    c.poll_transmit().unwrap();
    let refused =
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Forbidden origin"}}"#;
    assert_eq!(c.handle_message(refused), Err(MessageError::UnknownId));
    assert!(c.is_live(op));
    c.handle_answer(1, refused).unwrap();
    assert_eq!(
        events(&mut c),
        vec![Event::Failed {
            op,
            error: ClientError::Rpc {
                code: -32600,
                message: "Forbidden origin".into(),
                data: None
            }
        }]
    );
}

/// `basic/versioning.mdx` § Backward Compatibility: a dual-era client
/// probes with `server/discover` and falls back to `initialize` on what
/// marks a legacy server, under the same operation.
mod fallback {
    use super::*;

    fn dual(wire: Wire) -> Client {
        Client::new(ClientConfig::dual_era("c", "1", wire))
    }

    fn head(status: u16) -> http::ResponseHead {
        http::ResponseHead {
            status,
            headers: vec![],
        }
    }

    /// The initialize that follows a probe of `op`, and its result.
    fn expect_initialize(c: &mut Client, op: OpId, id: u64) {
        let t = c.poll_transmit().expect("initialize");
        assert_eq!(t.kind, TransmitKind::Request { op, id });
        assert_eq!(
            body(&t),
            json!({
                "jsonrpc": "2.0", "id": id, "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "c", "version": "1"}
                }
            })
        );
        // No version header before the handshake, no `_meta`.
        assert_eq!(header(&t, "mcp-protocol-version"), None);
        c.handle_message(
            format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}}}}}}}}"#)
                .as_bytes(),
        )
        .unwrap();
        let evs = events(c);
        assert!(
            matches!(&evs[..], [Event::Completed { op: o, result }] if *o == op && result["protocolVersion"] == "2025-11-25"),
            "{evs:?}"
        );
        assert_eq!(c.era(), Era::Legacy);
        assert_eq!(c.version(), "2025-11-25");
        assert!(!c.is_probing());
        let n = c.poll_transmit().unwrap();
        assert_eq!(body(&n)["method"], "notifications/initialized");
    }

    #[test]
    fn a_discover_result_keeps_the_client_modern() {
        let mut c = dual(Wire::Stdio);
        let op = c.connect();
        assert!(c.is_probing() && c.can_fall_back());
        let t = c.poll_transmit().unwrap();
        assert_eq!(body(&t)["method"], "server/discover");
        assert_eq!(
            body(&t)["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        c.handle_message(br#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{}}}"#).unwrap();
        assert!(matches!(&events(&mut c)[..], [Event::Completed { op: o, .. }] if *o == op));
        assert_eq!(c.era(), Era::Modern);
        assert_eq!(c.fallback_cause(), None);
        assert!(!c.is_probing());
        assert!(c.poll_transmit().is_none());
        // A late timeout report changes nothing.
        assert!(!c.probe_unanswered());
        assert_eq!(c.era(), Era::Modern);
    }

    #[test]
    fn method_not_found_falls_back_on_stdio() {
        let mut c = dual(Wire::Stdio);
        let op = c.connect();
        c.poll_transmit().unwrap();
        c.handle_message(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#,
        )
        .unwrap();
        assert!(events(&mut c).is_empty());
        expect_initialize(&mut c, op, 2);
        assert!(matches!(
            c.fallback_cause(),
            Some(ClientError::Rpc { code: -32601, .. })
        ));
        // Later requests speak the initialize era: no `_meta`.
        c.request("tools/list", json!({}));
        let t = c.poll_transmit().unwrap();
        assert_eq!(
            body(&t),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}})
        );
    }

    #[test]
    fn any_non_modern_error_falls_back_not_only_one_code() {
        for code in [-32600, -32602, -32603, -32000] {
            let mut c = dual(Wire::Stdio);
            let op = c.connect();
            c.poll_transmit().unwrap();
            let answer = format!(
                r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":{code},"message":"Server not initialized"}}}}"#
            );
            c.handle_message(answer.as_bytes()).unwrap();
            expect_initialize(&mut c, op, 2);
        }
    }

    #[test]
    fn modern_errors_do_not_fall_back() {
        for code in [-32020, -32021] {
            let mut c = dual(Wire::Stdio);
            let op = c.connect();
            c.poll_transmit().unwrap();
            let answer =
                format!(r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":{code},"message":"m"}}}}"#);
            c.handle_message(answer.as_bytes()).unwrap();
            assert!(
                matches!(&events(&mut c)[..], [Event::Failed { op: o, error: ClientError::Rpc { code: k, .. } }] if *o == op && *k == code)
            );
            assert!(c.poll_transmit().is_none());
            assert_eq!(c.era(), Era::Modern);
        }
        // -32022: retried once in a listed version, still discover.
        let mut c = dual(Wire::Stdio);
        c.connect();
        c.poll_transmit().unwrap();
        c.handle_message(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}"#).unwrap();
        let t = c.poll_transmit().unwrap();
        assert_eq!(body(&t)["method"], "server/discover");
        assert_eq!(c.era(), Era::Modern);
    }

    #[test]
    fn unsupported_version_naming_only_a_legacy_revision_opens_with_initialize() {
        let mut c = dual(Wire::Stdio);
        let op = c.connect();
        c.poll_transmit().unwrap();
        c.handle_message(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"],"requested":"2026-07-28"}}}"#).unwrap();
        expect_initialize(&mut c, op, 2);

        // The revision the server lists is the one offered.
        let mut c = dual(Wire::Stdio);
        c.connect();
        c.poll_transmit().unwrap();
        c.handle_message(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-06-18"],"requested":"2026-07-28"}}}"#).unwrap();
        let t = c.poll_transmit().unwrap();
        assert_eq!(body(&t)["method"], "initialize");
        assert_eq!(body(&t)["params"]["protocolVersion"], "2025-06-18");
    }

    #[test]
    fn a_later_unsupported_version_never_switches_to_a_legacy_dialect() {
        let mut c = dual(Wire::Stdio);
        c.connect();
        c.poll_transmit().unwrap();
        c.handle_message(br#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}"#).unwrap();
        events(&mut c);
        let op = c.request("tools/list", json!({}));
        c.poll_transmit().unwrap();
        c.handle_message(br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"],"requested":"2026-07-28"}}}"#).unwrap();
        assert!(matches!(
            &events(&mut c)[..],
            [Event::Failed { op: o, error: ClientError::Rpc { code: -32022, .. } }] if *o == op
        ));
        assert!(c.poll_transmit().is_none());
        assert_eq!(c.era(), Era::Modern);
        assert_eq!(c.version(), "2026-07-28");
    }

    #[test]
    fn http_400_404_405_without_an_answer_fall_back() {
        for status in [400, 404, 405] {
            let mut c = dual(Wire::Http);
            let op = c.connect();
            let t = c.poll_transmit().unwrap();
            assert_eq!(header(&t, "mcp-protocol-version"), Some("2026-07-28"));
            c.handle_http_head(Some(1), &head(status));
            c.stream_ended(1, status);
            assert!(events(&mut c).is_empty());
            expect_initialize(&mut c, op, 2);
            assert_eq!(c.fallback_cause(), Some(&ClientError::Http { status }));
        }
    }

    #[test]
    fn http_400_with_a_modern_error_does_not_fall_back() {
        let mut c = dual(Wire::Http);
        let op = c.connect();
        c.poll_transmit().unwrap();
        c.handle_http_head(Some(1), &head(400));
        c.handle_answer(1, br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing capability","data":{"requiredCapabilities":{"elicitation":{}}}}}"#).unwrap();
        c.stream_ended(1, 400);
        assert!(matches!(
            &events(&mut c)[..],
            [Event::Failed { op: o, error: ClientError::Rpc { code: -32021, .. } }] if *o == op
        ));
        assert!(c.poll_transmit().is_none());
    }

    #[test]
    fn http_404_with_method_not_found_falls_back() {
        let mut c = dual(Wire::Http);
        let op = c.connect();
        c.poll_transmit().unwrap();
        c.handle_http_head(Some(1), &head(404));
        c.handle_answer(
            1,
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}"#,
        )
        .unwrap();
        c.stream_ended(1, 404);
        expect_initialize(&mut c, op, 2);
    }

    #[test]
    fn auth_and_server_errors_are_not_a_sign_of_the_era() {
        for status in [401, 403, 500, 502, 503] {
            let mut c = dual(Wire::Http);
            let op = c.connect();
            c.poll_transmit().unwrap();
            c.handle_http_head(Some(1), &head(status));
            c.stream_ended(1, status);
            assert_eq!(
                events(&mut c),
                vec![Event::Failed {
                    op,
                    error: ClientError::Http { status }
                }]
            );
            assert!(c.poll_transmit().is_none());
            assert!(!c.is_probing());
        }
        // A JSON-RPC error in a 500 or a 401 body does not fall back either.
        for status in [401, 500] {
            let mut c = dual(Wire::Http);
            let op = c.connect();
            c.poll_transmit().unwrap();
            c.handle_http_head(Some(1), &head(status));
            c.handle_answer(
                1,
                br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#,
            )
            .unwrap();
            assert!(matches!(
                &events(&mut c)[..],
                [Event::Failed { op: o, error: ClientError::Rpc { code: -32603, .. } }] if *o == op
            ));
            assert!(c.poll_transmit().is_none());
        }
    }

    #[test]
    fn no_answer_in_time_falls_back_and_a_late_answer_is_ignored() {
        let mut c = dual(Wire::Stdio);
        let op = c.connect();
        c.poll_transmit().unwrap();
        assert!(c.probe_unanswered());
        expect_initialize(&mut c, op, 2);
        assert_eq!(c.fallback_cause(), Some(&ClientError::NoResponse));
        assert_eq!(
            c.handle_message(
                br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"late"}}"#
            ),
            Err(MessageError::UnknownId)
        );
    }

    #[test]
    fn a_discover_result_after_the_wait_but_before_initialize_keeps_the_client_modern() {
        let mut c = dual(Wire::Stdio);
        let op = c.connect();
        c.poll_transmit().unwrap();
        c.probe_unanswered();
        let init = c.poll_transmit().unwrap();
        assert_eq!(body(&init)["method"], "initialize");
        assert_eq!(c.era(), Era::Legacy);
        // A modern server, slow to start, answers the probe at last...
        c.handle_message(br#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}"#).unwrap();
        assert!(matches!(
            &events(&mut c)[..],
            [Event::Completed { op: o, result }] if *o == op && result["supportedVersions"][0] == "2026-07-28"
        ));
        assert_eq!(c.era(), Era::Modern);
        assert_eq!(c.fallback_cause(), None);
        assert_eq!(c.server().versions, ["2026-07-28"]);
        // ...and then refuses `initialize`, which nobody waits for.
        assert_eq!(
            c.handle_message(
                br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}"#
            ),
            Err(MessageError::UnknownId)
        );
        assert!(events(&mut c).is_empty());
        assert!(c.poll_transmit().is_none());
        c.request("tools/list", json!({}));
        let t = c.poll_transmit().unwrap();
        assert_eq!(
            body(&t)["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
    }

    #[test]
    fn a_late_probe_answer_after_initialize_changes_nothing() {
        let mut c = dual(Wire::Stdio);
        let op = c.connect();
        c.poll_transmit().unwrap();
        c.probe_unanswered();
        expect_initialize(&mut c, op, 2);
        assert_eq!(
            c.handle_message(br#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}"#),
            Err(MessageError::UnknownId)
        );
        assert!(events(&mut c).is_empty());
        assert_eq!(c.era(), Era::Legacy);
        // A late error to the probe, before the handshake is done, is no
        // news either.
        let mut c = dual(Wire::Stdio);
        let op = c.connect();
        c.poll_transmit().unwrap();
        c.probe_unanswered();
        c.handle_message(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#,
        )
        .unwrap();
        assert!(events(&mut c).is_empty());
        expect_initialize(&mut c, op, 2);
    }

    #[test]
    fn without_an_initialize_era_version_a_legacy_server_is_a_typed_error() {
        let mut c = Client::new(ClientConfig::new("c", "1", Wire::Stdio));
        let op = c.connect();
        assert!(c.is_probing() && !c.can_fall_back());
        c.poll_transmit().unwrap();
        c.handle_message(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#,
        )
        .unwrap();
        let probe = ClientError::Rpc {
            code: -32601,
            message: "Method not found".into(),
            data: None,
        };
        assert_eq!(
            events(&mut c),
            vec![Event::Failed {
                op,
                error: ClientError::LegacyServer {
                    probe: Some(alloc::boxed::Box::new(probe))
                }
            }]
        );
        assert!(c.poll_transmit().is_none());
        assert_eq!(c.era(), Era::Modern);

        let mut c = Client::new(ClientConfig::new("c", "1", Wire::Stdio));
        let op = c.connect();
        c.poll_transmit().unwrap();
        c.probe_unanswered();
        assert_eq!(
            events(&mut c),
            vec![Event::Failed {
                op,
                error: ClientError::LegacyServer { probe: None }
            }]
        );
    }

    #[test]
    fn the_newest_configured_legacy_revision_is_offered() {
        let mut config = ClientConfig::new("c", "1", Wire::Stdio);
        config.versions = vec!["2026-07-28".into(), "2025-06-18".into()];
        let mut c = Client::new(config);
        c.connect();
        c.poll_transmit().unwrap();
        c.probe_unanswered();
        let t = c.poll_transmit().unwrap();
        assert_eq!(body(&t)["params"]["protocolVersion"], "2025-06-18");

        let mut config = ClientConfig::new("c", "1", Wire::Stdio);
        config.versions = vec![
            "2026-07-28".into(),
            "2025-06-18".into(),
            "2025-11-25".into(),
        ];
        assert_eq!(config.newest_legacy(), Some("2025-11-25"));
    }

    #[test]
    fn an_initialize_era_config_opens_with_initialize_and_never_probes() {
        let mut config = ClientConfig::new("c", "1", Wire::Stdio);
        config.versions = vec!["2025-11-25".into()];
        let mut c = Client::new(config);
        c.connect();
        assert!(!c.is_probing());
        let t = c.poll_transmit().unwrap();
        assert_eq!(body(&t)["method"], "initialize");
    }
}
