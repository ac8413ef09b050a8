//! Rate limits per principal (`server/tools.mdx` § Security
//! Considerations: servers MUST rate limit tool invocations;
//! `server/utilities/completion.mdx` § Security): each principal's
//! `tools/call` and `completion/complete` draw on a bucket of its own; over
//! it the call is refused with `-32001` and `data.retryAfterSeconds`, on
//! HTTP `429 Too Many Requests` with `Retry-After`, and the handler does
//! not run. Raw HTTP/1.1 and stdio lines in, literal answers out.

mod support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use snodo_proto::{
    Authorization, CallToolResult, Implementation, Instant, NoArgs, Principal, Prompt,
    PromptArgument, RateLimit, Rejection, Service, Tool, Transport,
};
use support::Harness;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const DONE: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"done","type":"text"}],"resultType":"complete"}}"#;
const LIMITED: &str = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Rate limit exceeded","data":{"retryAfterSeconds":1,"retryable":true}}}"#;

/// Two calls at once per principal, one more each second; `work` counts
/// the handler's runs.
fn service(runs: Arc<AtomicUsize>, builder: snodo_proto::ServiceBuilder) -> Service {
    builder
        .server_info(Implementation::new("t", "1"))
        .rate_limit(RateLimit::new(2, 1.0))
        .tool(Tool::new("work", "Does work"), move |_: NoArgs| {
            runs.fetch_add(1, Ordering::SeqCst);
            async { CallToolResult::text("done") }
        })
        .build()
        .unwrap()
}

fn call(token: &str) -> String {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"work",{META}}}}}"#
    );
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: work\r\nAuthorization: Bearer {token}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// One request on a connection of its own at `millis`.
fn at(service: &Service, millis: u64, request: &str) -> String {
    let mut h = Harness::new(service, Transport::Http);
    h.now = Instant::from_millis(millis);
    h.send(request.as_bytes())
}

#[test]
fn each_principal_has_its_own_bucket_and_over_it_gets_429() {
    let runs = Arc::new(AtomicUsize::new(0));
    let auth = Authorization::new("https://mcp.example.com/mcp", |token: &str| match token {
        "a" => Ok(Principal::new("alice", ["mcp"]).audience(["https://mcp.example.com/mcp"])),
        "b" => Ok(Principal::new("bob", ["mcp"]).audience(["https://mcp.example.com/mcp"])),
        _ => Err(Rejection("unknown token".into())),
    })
    .authorization_server("https://auth.example.com");
    let service = service(runs.clone(), Service::builder().authorization(auth));
    let ok = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{DONE}",
        DONE.len()
    );
    assert_eq!(at(&service, 0, &call("a")), ok);
    assert_eq!(at(&service, 0, &call("a")), ok);
    assert_eq!(
        at(&service, 0, &call("a")),
        format!(
            "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: {}\r\nRetry-After: 1\r\n\r\n{LIMITED}",
            LIMITED.len()
        ),
        "alice's third call at once"
    );
    assert_eq!(
        runs.load(Ordering::SeqCst),
        2,
        "the refused call did not run"
    );
    assert_eq!(at(&service, 0, &call("b")), ok, "bob's bucket is his own");
    assert_eq!(
        at(&service, 1000, &call("a")),
        ok,
        "a second later alice has one call again"
    );
    assert!(at(&service, 1000, &call("a")).starts_with("HTTP/1.1 429 "));
    assert_eq!(runs.load(Ordering::SeqCst), 4);
}

/// `completion/complete` draws on the same bucket.
#[test]
fn completion_counts_against_the_limit() {
    let runs = Arc::new(AtomicUsize::new(0));
    let service = service(
        runs,
        Service::builder()
            .prompt(
                Prompt::new("p", "A prompt").argument(PromptArgument::required("x", "An x")),
                |_: serde_json::Value| async { Ok(snodo_proto::GetPromptResult::new(vec![])) },
            )
            .completer(|_req: snodo_proto::CompletionRequest| async {
                Ok(snodo_proto::Completion::new(vec!["a".into()]))
            }),
    );
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{{"ref":{{"type":"ref/prompt","name":"p"}},"argument":{{"name":"x","value":""}},{META}}}}}"#
    );
    let mut stdio = Harness::new(&service, Transport::Stdio);
    let mut line = || stdio.send(format!("{body}\n").as_bytes());
    let completed = r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"completion":{"values":["a"]},"resultType":"complete"}}"#;
    assert_eq!(line().trim_end(), completed);
    assert_eq!(line().trim_end(), completed);
    assert_eq!(line().trim_end(), LIMITED);
}

/// Without authorization every HTTP caller is the same (unknown)
/// principal: one bucket for the server, shared across connections.
#[test]
fn http_without_authorization_shares_one_bucket() {
    let runs = Arc::new(AtomicUsize::new(0));
    let service = service(runs.clone(), Service::builder());
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"work",{META}}}}}"#
    );
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: work\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let ok = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{DONE}",
        DONE.len()
    );
    assert_eq!(at(&service, 0, &request), ok);
    assert_eq!(at(&service, 0, &request), ok);
    assert_eq!(
        at(&service, 0, &request),
        format!(
            "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: {}\r\nRetry-After: 1\r\n\r\n{LIMITED}",
            LIMITED.len()
        ),
        "a third connection draws on the same bucket"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

/// On stdio the principal is the application's (`stdio_principal`), and
/// without one every caller shares the server's bucket.
#[test]
fn stdio_answers_over_the_limit_with_the_error_alone() {
    let runs = Arc::new(AtomicUsize::new(0));
    let service = service(
        runs.clone(),
        Service::builder().stdio_principal(Principal::new("carol", ["mcp"])),
    );
    let line = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"work\",{META}}}}}\n"
    );
    let mut h = Harness::new(&service, Transport::Stdio);
    assert_eq!(h.send(line.as_bytes()).trim_end(), DONE);
    assert_eq!(h.send(line.as_bytes()).trim_end(), DONE);
    assert_eq!(h.send(line.as_bytes()).trim_end(), LIMITED);
    // A second stdio connection is the same principal, the same bucket.
    let mut other = Harness::new(&service, Transport::Stdio);
    assert_eq!(other.send(line.as_bytes()).trim_end(), LIMITED);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}
