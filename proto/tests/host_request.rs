//! A request a host HTTP stack parsed (`Connection::http_request`, what
//! snodo-hyper hands over): a body the stack could not hand over whole is
//! answered as the native listener answers the same fault, and the head
//! says when the host's connection must end with it (RFC 9112 § 9.6: a
//! refusal may leave the body unread). Literal heads and bodies out.

mod support;

use bytes::Bytes;
use snodo_proto::http::{Head, Response};
use snodo_proto::{
    BodyError, CallToolResult, Connection, Implementation, Instant, NoArgs, Output, Service, Tool,
};
use support::block_on;

fn service() -> Service {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .tool(Tool::new("hello", "Say hello"), |_: NoArgs| async {
            CallToolResult::text("Hello!")
        })
        .build()
        .unwrap()
}

const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// The head and body of the answer to a `tools/call` of `tool`, made by
/// a host stack to `service`, whose body the host read as `body`.
fn answer_on(service: &Service, tool: &str, body: Result<Bytes, BodyError>) -> (Response, String) {
    let head = Head::new(
        "POST",
        "/mcp",
        1,
        [
            ("host", "127.0.0.1".as_bytes()),
            ("content-type", b"application/json"),
            ("accept", b"application/json, text/event-stream"),
            ("mcp-protocol-version", b"2026-07-28"),
            ("mcp-method", b"tools/call"),
            ("mcp-name", tool.as_bytes()),
        ],
    );
    let mut conn = Connection::http_request(service, head, body, None, Instant::ZERO);
    let (mut response, mut out) = (None, Vec::new());
    while let Some(output) = conn.poll_output() {
        match output {
            Output::Respond(r) => response = Some(r),
            Output::Transmit(b) => out.extend_from_slice(&b),
            Output::Invoke(inv) => {
                let call = inv.call;
                let outcome = block_on(inv.run(std::sync::Arc::new(snodo_proto::NullSink)));
                conn.complete(call, outcome, Instant::ZERO).unwrap();
            }
            Output::Cancel(_) | Output::Close => {}
        }
    }
    (response.expect("a head"), String::from_utf8(out).unwrap())
}

fn refusal(status: u16, message: &str) -> (u16, bool, String) {
    (
        status,
        true,
        format!(r#"{{"jsonrpc":"2.0","error":{{"code":-32600,"message":"{message}"}}}}"#),
    )
}

fn seen(answer: (Response, String)) -> (u16, bool, String) {
    (answer.0.status, answer.0.close, answer.1)
}

/// The same for the tool `hello` of [`service`].
fn answer(body: Result<Bytes, BodyError>) -> (Response, String) {
    answer_on(&service(), "hello", body)
}

#[test]
fn a_body_the_host_could_not_hand_over_is_refused_and_ends_the_connection() {
    assert_eq!(
        seen(answer(Err(BodyError::TooLarge))),
        refusal(413, "Request body too large")
    );
    assert_eq!(
        seen(answer(Err(BodyError::Unreadable))),
        refusal(400, "Malformed HTTP request body")
    );
    // Not whole by `HttpConfig::request_timeout`: the native 408.
    assert_eq!(
        seen(answer(Err(BodyError::TimedOut))),
        refusal(408, "Request Timeout: the request was not received in time")
    );
}

#[test]
fn an_answered_request_leaves_the_connection_to_the_host() {
    let (head, body) = answer(Ok(Bytes::from_static(CALL.as_bytes())));
    assert_eq!((head.status, head.close), (200, false));
    assert_eq!(
        head.headers,
        [("content-type".into(), "application/json".into())]
    );
    assert_eq!(
        body,
        r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"Hello!","type":"text"}],"resultType":"complete"}}"#
    );
}

/// Host requests share what the service remembers of the last client's
/// `_meta` (each is a connection of its own): a request whose
/// capabilities differ from the remembered ones is held to its own.
#[test]
fn each_host_request_is_held_to_its_own_capabilities() {
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .tool(
            Tool::new("ask", "Asks the user"),
            |_: NoArgs, ctx: snodo_proto::Context| async move {
                match ctx.elicitation("ok") {
                    Some(_) => snodo_proto::Reply::Complete(CallToolResult::text("asked")),
                    None => snodo_proto::InputRequired::new()
                        .elicit(
                            "ok",
                            snodo_proto::ElicitRequest::url("Sign in", "https://example.com/a"),
                        )
                        .into(),
                }
            },
        )
        .build()
        .unwrap();
    let call = |caps: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"ask","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{caps}}}}}}}"#
        )
    };
    let body = |service: &Service, call: &str| {
        answer_on(service, "ask", Ok(Bytes::from(call.to_owned()))).1
    };
    let missing = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{"url":{}}}}}}"#;
    for _ in 0..2 {
        let asked = body(&service, &call(r#"{"elicitation":{"url":{}}}"#));
        assert!(
            asked.contains(r#""resultType":"input_required""#),
            "{asked}"
        );
        assert_eq!(body(&service, &call("{}")), missing);
    }
}
