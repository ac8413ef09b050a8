//! Raw HTTP/1.1 byte vectors through the sans-I/O connection: framing,
//! limits, Streamable HTTP rules and header mirrors. Requests and expected
//! responses are literal wire text.

mod support;

use serde_json::json;
use snodo_proto::{
    CallToolResult, Context, HttpConfig, Implementation, Limits, NoArgs, Service, Tool, Transport,
};
use support::Harness;

fn service() -> Service {
    builder().build().unwrap()
}

/// A server that speaks 2026-07-28 only: GET and DELETE are 405
/// (`streamable-http.mdx` § Earlier Streamable HTTP Revisions).
fn modern_only() -> Service {
    builder()
        .dialects([snodo_proto::Dialect::V2026_07_28])
        .build()
        .unwrap()
}

fn builder() -> snodo_proto::ServiceBuilder {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .limits(Limits::default().max_message_bytes(4096))
        .http(HttpConfig::default().max_head_bytes(2048))
        .tool(Tool::new("ping_tool", "Answers pong"), |_: NoArgs| async {
            CallToolResult::text("pong")
        })
        .tool(
            Tool::new("region_tool", "Mirrors region").input_schema(json!({
                "type": "object",
                "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "n": {"type": "integer", "x-mcp-header": "N"}
                },
                "required": ["region"]
            })),
            |args: serde_json::Value| async move {
                CallToolResult::text(args["region"].as_str().unwrap_or("").to_string())
            },
        )
        .tool(
            Tool::new("progress_tool", "Reports progress"),
            |_: NoArgs, ctx: Context| async move {
                ctx.progress(1.0, Some(2.0), None);
                ctx.progress(2.0, Some(2.0), None);
                CallToolResult::text("done")
            },
        )
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// A POST with the standard headers plus `extra`, and a correct Content-Length.
fn post(extra: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn json_response(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

const SERVER_INFO: &str =
    r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}"#;

fn discover_body() -> String {
    format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#)
}

const DISCOVER_HEADERS: &str =
    "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n";

fn discover_result() -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{{SERVER_INFO},"cacheScope":"public","capabilities":{{"tools":{{}}}},"resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":60000}}}}"#
    )
}

#[test]
fn discover_over_http() {
    let mut h = Harness::new(&service(), Transport::Http);
    let out = h.send(post(DISCOVER_HEADERS, &discover_body()).as_bytes());
    assert_eq!(out, json_response("200 OK", &discover_result()));
    assert!(!h.closed, "keep-alive by default");
}

#[test]
fn pipelined_requests_answered_in_order() {
    let mut h = Harness::new(&service(), Transport::Http);
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"ping_tool",{META}}}}}"#
    );
    let wire = post(DISCOVER_HEADERS, &discover_body())
        + &post(
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: ping_tool\r\n",
            &call,
        );
    let out = h.send(wire.as_bytes());
    let second = format!(
        r#"{{"jsonrpc":"2.0","id":2,"result":{{{SERVER_INFO},"content":[{{"text":"pong","type":"text"}}],"resultType":"complete"}}}}"#
    );
    assert_eq!(
        out,
        json_response("200 OK", &discover_result()) + &json_response("200 OK", &second)
    );
}

#[test]
fn chunked_body_and_expect_continue() {
    let mut h = Harness::new(&service(), Transport::Http);
    let body = discover_body();
    let (a, b) = body.split_at(10);
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: */*\r\n{DISCOVER_HEADERS}Expect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n"
    );
    assert_eq!(h.send(head.as_bytes()), "HTTP/1.1 100 Continue\r\n\r\n");
    let chunks = format!("{:x}\r\n{a}\r\n{:x}\r\n{b}\r\n0\r\n\r\n", a.len(), b.len());
    assert_eq!(
        h.send(chunks.as_bytes()),
        json_response("200 OK", &discover_result())
    );
}

#[test]
fn byte_at_a_time_gives_the_same_answer() {
    let mut h = Harness::new(&service(), Transport::Http);
    let wire = post(DISCOVER_HEADERS, &discover_body());
    let mut out = String::new();
    for b in wire.as_bytes() {
        out.push_str(&h.send(&[*b]));
    }
    assert_eq!(out, json_response("200 OK", &discover_result()));
}

#[test]
fn notification_gets_202_without_body() {
    let mut h = Harness::new(&service(), Transport::Http);
    let out = h.send(
        post(
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: notifications/initialized\r\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        )
        .as_bytes(),
    );
    assert_eq!(out, "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n");
}

fn error_json(id: Option<u64>, code: i64, message: &str) -> String {
    match id {
        Some(id) => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#
        ),
        None => format!(r#"{{"jsonrpc":"2.0","error":{{"code":{code},"message":"{message}"}}}}"#),
    }
}

#[test]
fn head_refusals_close_the_connection() {
    let cases: Vec<(String, String)> = vec![
        (
            "GET /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n".to_string(),
            "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 54\r\nAllow: POST\r\nConnection: close\r\n\r\nMethod Not Allowed: the MCP endpoint accepts POST only".to_string(),
        ),
        (
            "POST /other HTTP/1.1\r\nHost: localhost\r\n\r\n".to_string(),
            "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 9\r\nConnection: close\r\n\r\nNot Found".to_string(),
        ),
        (
            post("Origin: http://evil.example.com\r\n", &discover_body()),
            json_response_close("403 Forbidden", &error_json(None, -32600, "Forbidden: Origin not allowed")),
        ),
        (
            post(DISCOVER_HEADERS, &discover_body()).replace("Host: 127.0.0.1:3000", "Host: evil.example.com"),
            json_response_close("403 Forbidden", &error_json(None, -32600, "Forbidden: Host not allowed")),
        ),
        (
            post(DISCOVER_HEADERS, &discover_body()).replace("application/json\r\nAccept", "text/plain\r\nAccept"),
            json_response_close(
                "415 Unsupported Media Type",
                &error_json(None, -32600, "Unsupported Media Type: the body must be application/json"),
            ),
        ),
        (
            post(DISCOVER_HEADERS, &discover_body()).replace("application/json, text/event-stream", "application/json"),
            json_response_close(
                "406 Not Acceptable",
                &error_json(None, -32600, "Not Acceptable: Accept must list application/json and text/event-stream"),
            ),
        ),
        (
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4097\r\n\r\n".to_string(),
            json_response_close("413 Content Too Large", &error_json(None, -32600, "Request body too large")),
        ),
        (
            format!("POST /mcp HTTP/1.1\r\nHost: localhost\r\nX-Big: {}\r\n\r\n", "a".repeat(3000)),
            json_response_close(
                "431 Request Header Fields Too Large",
                &error_json(None, -32600, "Request header fields too large"),
            ),
        ),
    ];
    for (request, expected) in cases {
        let mut h = Harness::new(&modern_only(), Transport::Http);
        let out = h.send(request.as_bytes());
        assert_eq!(out, expected, "request: {request}");
        assert!(h.closed, "closed after: {request}");
        assert_eq!(
            h.send(post(DISCOVER_HEADERS, &discover_body()).as_bytes()),
            "",
            "nothing after close"
        );
    }
}

fn json_response_close(status: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn exchange(headers: &str, body: &str) -> String {
    let mut h = Harness::new(&service(), Transport::Http);
    h.send(post(headers, body).as_bytes())
}

#[test]
fn admission_order_and_statuses() {
    let no_meta = r#"{"jsonrpc":"2.0","id":101,"method":"server/discover","params":{}}"#;
    assert_eq!(
        exchange(DISCOVER_HEADERS, no_meta),
        json_response(
            "400 Bad Request",
            &error_json(Some(101), -32602, "Missing required _meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities")
        ),
        "missing _meta is -32602 even though headers are present"
    );
    assert_eq!(
        exchange("Mcp-Method: server/discover\r\n", &discover_body()),
        json_response(
            "400 Bad Request",
            &error_json(
                Some(1),
                -32020,
                "Header mismatch: missing required header MCP-Protocol-Version"
            )
        )
    );
    let v999 = r#"{"jsonrpc":"2.0","id":302,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    assert_eq!(
        exchange(DISCOVER_HEADERS, v999),
        json_response(
            "400 Bad Request",
            &error_json(
                Some(302),
                -32020,
                "Header mismatch: MCP-Protocol-Version header does not match the request body"
            )
        ),
        "header/body comparison runs before the version check"
    );
    let out = exchange(
        "MCP-Protocol-Version: v999.0.0\r\nMcp-Method: server/discover\r\n",
        v999,
    );
    assert_eq!(
        out,
        json_response(
            "400 Bad Request",
            r#"{"jsonrpc":"2.0","id":302,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"requested":"v999.0.0","supported":["2026-07-28"]}}}"#
        )
    );
    let ping = format!(r#"{{"jsonrpc":"2.0","id":500,"method":"ping","params":{{{META}}}}}"#);
    let out = exchange(
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: ping\r\n",
        &ping,
    );
    assert!(
        out.starts_with("HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n"),
        "{out}"
    );
    assert!(out.contains(r#""id":500,"error":{"code":-32601,"#), "{out}");
    let unknown_tool = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"nope",{META}}}}}"#
    );
    assert_eq!(
        exchange(
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: nope\r\n",
            &unknown_tool
        ),
        json_response("200 OK", &error_json(Some(3), -32602, "Unknown tool: nope")),
        "params errors keep 200"
    );
    assert_eq!(
        exchange(DISCOVER_HEADERS, "{not json"),
        json_response(
            "400 Bad Request",
            &error_json(None, -32700, "Parse error: Invalid JSON")
        )
    );
}

#[test]
fn standard_header_validation() {
    let list = format!(r#"{{"jsonrpc":"2.0","id":100,"method":"tools/list","params":{{{META}}}}}"#);
    let mismatch = |m: &str| error_json(Some(100), -32020, m);
    assert_eq!(
        exchange(
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: prompts/list\r\n",
            &list
        ),
        json_response(
            "400 Bad Request",
            &mismatch("Header mismatch: Mcp-Method header does not match the request body")
        )
    );
    assert_eq!(
        exchange("MCP-Protocol-Version: 2026-07-28\r\n", &list),
        json_response(
            "400 Bad Request",
            &mismatch("Header mismatch: missing required header Mcp-Method")
        )
    );
    assert_eq!(
        exchange(
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: TOOLS/LIST\r\n",
            &list
        ),
        json_response(
            "400 Bad Request",
            &mismatch("Header mismatch: Mcp-Method header does not match the request body")
        ),
        "values are case-sensitive"
    );
    for name in ["mcp-method", "MCP-METHOD"] {
        let out = exchange(
            &format!("MCP-Protocol-Version: 2026-07-28\r\n{name}: tools/list\r\n"),
            &list,
        );
        assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{name}: {out}");
    }
    let call = |id: u64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"ping_tool","arguments":{{}},{META}}}}}"#
        )
    };
    let hdr = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\n";
    assert_eq!(
        exchange(hdr, &call(101)),
        json_response(
            "400 Bad Request",
            &error_json(
                Some(101),
                -32020,
                "Header mismatch: missing required header Mcp-Name"
            )
        )
    );
    assert_eq!(
        exchange(&format!("{hdr}Mcp-Name: wrong_tool_name\r\n"), &call(102)),
        json_response(
            "400 Bad Request",
            &error_json(
                Some(102),
                -32020,
                "Header mismatch: Mcp-Name header does not match the request body"
            )
        )
    );
    for ok in [
        "Mcp-Name:   ping_tool  ",
        "Mcp-Name: =?base64?cGluZ190b29s?=",
    ] {
        let out = exchange(&format!("{hdr}{ok}\r\n"), &call(103));
        assert!(
            out.starts_with("HTTP/1.1 200 OK\r\n") && out.contains(r#""text":"pong""#),
            "{ok}: {out}"
        );
    }
    assert_eq!(
        exchange(
            &format!("{hdr}Mcp-Name: ping_tool\r\nMcp-Name: ping_tool\r\n"),
            &call(104)
        ),
        json_response(
            "400 Bad Request",
            &error_json(
                Some(104),
                -32020,
                "Header mismatch: Mcp-Name appears more than once"
            )
        )
    );
    // Several mirrors wrong at once: the version is judged first, then
    // the method, then the name, wherever each sits in the head.
    for (headers, message) in [
        (
            "Mcp-Name: x\r\nMcp-Name: x\r\nMcp-Method: tools/list\r\nMCP-Protocol-Version: 2026-07-28\r\nMCP-Protocol-Version: 2026-07-28\r\n",
            "Header mismatch: MCP-Protocol-Version appears more than once",
        ),
        (
            "Mcp-Name: x\r\nMcp-Name: x\r\nMcp-Method: tools/call\r\nMcp-Method: tools/call\r\nMCP-Protocol-Version: 2026-07-28\r\n",
            "Header mismatch: Mcp-Method appears more than once",
        ),
        (
            "Mcp-Name: x\r\nMcp-Name: x\r\nMCP-Protocol-Version: 2026-07-28\r\n",
            "Header mismatch: missing required header Mcp-Method",
        ),
        (
            "Mcp-Name: x\r\nMcp-Method: tools/call\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Name: y\r\n",
            "Header mismatch: Mcp-Name appears more than once",
        ),
    ] {
        assert_eq!(
            exchange(headers, &call(105)),
            json_response("400 Bad Request", &error_json(Some(105), -32020, message)),
            "{headers}"
        );
    }
}

#[test]
fn custom_param_headers() {
    let call = |region: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":200,"method":"tools/call","params":{{"name":"region_tool","arguments":{{"region":"{region}","n":42}},{META}}}}}"#
        )
    };
    let hdr = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: region_tool\r\nMcp-Param-N: 42.0\r\n";
    let ok = |region: &str, header: &str| {
        let out = exchange(
            &format!("{hdr}Mcp-Param-Region: {header}\r\n"),
            &call(region),
        );
        assert!(
            out.starts_with("HTTP/1.1 200 OK\r\n")
                && out.contains(&format!(r#""text":"{region}""#)),
            "{header}: {out}"
        );
    };
    ok("Hello", "=?base64?SGVsbG8=?=");
    ok("SGVsbG8=", "SGVsbG8=");
    ok("=?base64?SGVsbG8=", "=?base64?SGVsbG8=");
    ok("us-west1", "us-west1");
    let bad = |region: &str, header: Option<&str>, message: &str| {
        let extra = header
            .map(|h| format!("Mcp-Param-Region: {h}\r\n"))
            .unwrap_or_default();
        assert_eq!(
            exchange(&format!("{hdr}{extra}"), &call(region)),
            json_response("400 Bad Request", &error_json(Some(200), -32020, message)),
            "{header:?}"
        );
    };
    bad(
        "Hello",
        Some("=?base64?SGVsbG8?="),
        "Header mismatch: Mcp-Param-Region has an invalid Base64 value",
    );
    bad(
        "Hello",
        Some("=?base64?SGVs!!!bG8=?="),
        "Header mismatch: Mcp-Param-Region has an invalid Base64 value",
    );
    bad(
        "test-value",
        None,
        "Header mismatch: missing required header Mcp-Param-Region",
    );
    bad(
        "a",
        Some("b"),
        "Header mismatch: Mcp-Param-Region header does not match the request body",
    );
    // An integer header that does not match numerically.
    let out = exchange(
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: region_tool\r\nMcp-Param-N: 43\r\nMcp-Param-Region: a\r\n",
        &call("a"),
    );
    assert_eq!(
        out,
        json_response(
            "400 Bad Request",
            &error_json(
                Some(200),
                -32020,
                "Header mismatch: Mcp-Param-N header does not match the request body"
            )
        )
    );
}

#[test]
fn notifications_before_the_result_switch_to_sse() {
    let mut h = Harness::new(&service(), Transport::Http);
    let body = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress_tool","_meta":{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let out = h.send(post("MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: progress_tool\r\n", body).as_bytes());
    let ev = |json: &str| {
        let data = format!("data: {json}\n\n");
        format!("{:x}\r\n{data}\r\n", data.len())
    };
    let expected = String::from(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n",
    ) + &ev(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1.0,"progressToken":"p1","total":2.0}}"#)
        + &ev(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2.0,"progressToken":"p1","total":2.0}}"#)
        + &ev(&format!(r#"{{"jsonrpc":"2.0","id":7,"result":{{{SERVER_INFO},"content":[{{"text":"done","type":"text"}}],"resultType":"complete"}}}}"#))
        + "0\r\n\r\n";
    assert_eq!(out, expected);
    // The connection stays usable after the stream ended.
    assert_eq!(
        h.send(post(DISCOVER_HEADERS, &discover_body()).as_bytes()),
        json_response("200 OK", &discover_result())
    );
}

#[test]
fn client_closing_cancels_the_call_and_writes_nothing() {
    let mut h = Harness::new(&service(), Transport::Http);
    h.run_handlers = false;
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"ping_tool",{META}}}}}"#
    );
    let out = h.send(
        post(
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: ping_tool\r\n",
            &call,
        )
        .as_bytes(),
    );
    assert_eq!(out, "");
    assert_eq!(h.pending.len(), 1);
    assert_eq!(h.close_input(), "");
    assert_eq!(h.cancelled, vec![h.pending[0].call]);
    assert!(h.closed);
    assert_eq!(h.run_pending(), "", "a result racing the close is dropped");
}

#[test]
fn connection_close_and_http_1_0() {
    let mut h = Harness::new(&service(), Transport::Http);
    let out = h.send(
        post(
            &format!("{DISCOVER_HEADERS}Connection: close\r\n"),
            &discover_body(),
        )
        .as_bytes(),
    );
    assert_eq!(out, json_response_close("200 OK", &discover_result()));
    assert!(h.closed);

    let mut h = Harness::new(&service(), Transport::Http);
    let wire = post(DISCOVER_HEADERS, &discover_body()).replace("HTTP/1.1", "HTTP/1.0");
    assert_eq!(
        h.send(wire.as_bytes()),
        json_response_close("200 OK", &discover_result())
    );
    assert!(h.closed);
}

/// The head has 10 s from its first byte; a body then has 30 s of its own.
#[test]
fn slow_and_idle_clients_are_timed_out() {
    let timeout = json_response_close(
        "408 Request Timeout",
        &error_json(
            None,
            -32600,
            "Request Timeout: the request was not received in time",
        ),
    );
    // A body that trickles: its deadline starts with the head's end, and
    // the head's own deadline no longer applies.
    let mut h = Harness::new(&service(), Transport::Http);
    let wire = post(DISCOVER_HEADERS, &discover_body());
    let body_at = wire.find("\r\n\r\n").unwrap() + 4;
    assert_eq!(h.send(&wire.as_bytes()[..body_at - 2]), "");
    assert_eq!(h.advance(9_000), "");
    assert_eq!(h.send(&wire.as_bytes()[body_at - 2..body_at + 1]), "");
    assert_eq!(
        h.advance(29_999),
        "",
        "past the head's 10 s, within the body's 30 s"
    );
    assert_eq!(h.advance(1), timeout);
    assert!(h.closed);

    let mut h = Harness::new(&service(), Transport::Http);
    assert_eq!(h.send(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n"), "");
    assert_eq!(h.advance(5_000), "");
    // One more header byte does not move the head's deadline.
    assert_eq!(h.send(b"X"), "");
    assert_eq!(h.advance(4_999), "");
    let out = h.advance(1);
    assert_eq!(
        out,
        json_response_close(
            "408 Request Timeout",
            &error_json(
                None,
                -32600,
                "Request Timeout: the request was not received in time"
            )
        )
    );
    assert!(h.closed);

    let mut h = Harness::new(&service(), Transport::Http);
    assert_eq!(h.advance(119_999), "");
    assert!(!h.closed);
    assert_eq!(h.advance(1), "");
    assert!(h.closed, "idle keep-alive connection closed");
}

#[test]
fn truncated_request_then_eof_answers_nothing() {
    let mut h = Harness::new(&service(), Transport::Http);
    let wire = post(DISCOVER_HEADERS, &discover_body());
    assert_eq!(h.send(&wire.as_bytes()[..wire.len() - 5]), "");
    assert_eq!(h.close_input(), "");
    assert!(h.closed);
}

#[test]
fn begin_shutdown_finishes_the_exchange_with_connection_close() {
    let mut h = Harness::new(&service(), Transport::Http);
    h.run_handlers = false;
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"ping_tool",{META}}}}}"#
    );
    let hdr =
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: ping_tool\r\n";
    // One request in progress, a second one pipelined behind it.
    let wire = post(hdr, &call) + &post(DISCOVER_HEADERS, &discover_body());
    assert_eq!(h.send(wire.as_bytes()), "");
    h.conn.begin_shutdown(h.now);
    assert_eq!(h.drain(), "");
    assert!(!h.closed, "the call in progress is still answered");
    assert!(!h.conn.wants_input());
    let out = h.run_pending();
    let result = format!(
        r#"{{"jsonrpc":"2.0","id":9,"result":{{{SERVER_INFO},"content":[{{"text":"pong","type":"text"}}],"resultType":"complete"}}}}"#
    );
    assert_eq!(
        out,
        json_response_close("200 OK", &result),
        "the pipelined request is not started"
    );
    assert!(h.closed);
}

#[test]
fn begin_shutdown_closes_an_idle_connection_at_once() {
    let mut h = Harness::new(&service(), Transport::Http);
    assert_eq!(
        h.send(post(DISCOVER_HEADERS, &discover_body()).as_bytes()),
        json_response("200 OK", &discover_result())
    );
    h.conn.begin_shutdown(h.now);
    assert_eq!(h.drain(), "");
    assert!(h.closed);
}

#[test]
fn disconnect_during_shutdown_still_cancels() {
    let mut h = Harness::new(&service(), Transport::Http);
    h.run_handlers = false;
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"ping_tool",{META}}}}}"#
    );
    h.send(
        post(
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: ping_tool\r\n",
            &call,
        )
        .as_bytes(),
    );
    h.conn.begin_shutdown(h.now);
    h.drain();
    assert_eq!(h.close_input(), "");
    assert_eq!(h.cancelled.len(), 1);
    assert!(h.closed);
}

/// A server at its cap sheds the connection idle longest: between
/// requests, or still receiving a head; never one answering a request.
/// Closed while idle, it needs no lingering close; closed after an answer
/// it does (RFC 9112 § 9.6).
#[test]
fn idle_connections_can_be_shed_and_close_without_lingering() {
    let mut h = Harness::new(&service(), Transport::Http);
    assert_eq!(h.conn.idle_since(), Some(h.now), "idle since it opened");
    // A head on its way is still idle (a slow head is sheddable).
    assert_eq!(h.send(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n"), "");
    assert!(h.conn.idle_since().is_some());
    h.conn.shed(h.now);
    assert_eq!(h.drain(), "", "nothing is written to a shed connection");
    assert!(h.closed);
    assert!(!h.conn.closing().discard_input);

    // Answering a request: not idle, and shedding does nothing.
    let mut h = Harness::new(&service(), Transport::Http);
    h.run_handlers = false;
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"ping_tool",{META}}}}}"#
    );
    let hdr =
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: ping_tool\r\n";
    assert_eq!(h.send(post(hdr, &call).as_bytes()), "");
    assert_eq!(h.conn.idle_since(), None);
    h.conn.shed(h.now);
    assert!(!h.closed);

    // Closed by its answer (`Connection: close`): the close lingers.
    let mut h = Harness::new(&service(), Transport::Http);
    let wire = post(DISCOVER_HEADERS, &discover_body()).replace("HTTP/1.1", "HTTP/1.0");
    assert_eq!(
        h.send(wire.as_bytes()),
        json_response_close("200 OK", &discover_result())
    );
    assert!(h.closed);
    assert!(h.conn.closing().discard_input);
}

/// Found by the `machine` fuzz target: on HTTP a `notifications/cancelled`
/// is an exchange of its own and cancels nothing (closing a request's
/// stream is its cancellation, `streamable-http.mdx` § Cancellation). One
/// naming the id of a request pipelined behind it must not cancel that
/// request, which was decoded as soon as the 202 was written.
#[test]
fn a_cancellation_on_http_does_not_cancel_the_request_pipelined_behind_it() {
    let mut h = Harness::new(&service(), Transport::Http);
    let cancel = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":2,{META}}}}}"#
    );
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"ping_tool",{META}}}}}"#
    );
    let wire = post(
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: notifications/cancelled\r\n",
        &cancel,
    ) + &post(
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: ping_tool\r\n",
        &call,
    );
    let answered = format!(
        r#"{{"jsonrpc":"2.0","id":2,"result":{{{SERVER_INFO},"content":[{{"text":"pong","type":"text"}}],"resultType":"complete"}}}}"#
    );
    assert_eq!(
        h.send(wire.as_bytes()),
        String::from("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
            + &json_response("200 OK", &answered)
    );
    assert!(h.cancelled.is_empty(), "{:?}", h.cancelled);
}
