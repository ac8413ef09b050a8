//! A deferred authenticator on the native HTTP listener path
//! (`basic/authorization/index.mdx` § Token Handling): the request is held
//! while the authenticator's future runs outside proto, and carries on when
//! the verdict comes back. Raw HTTP/1.1 bytes in; the literal status,
//! `WWW-Authenticate` / `Retry-After` and body out. The futures are held
//! by the test and resolved when it says, so "later" is a step of the
//! test, not a sleep.

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use snodo_proto::auth::{Authentication, Verdict};
use snodo_proto::{
    Authenticator, Authorization, CallToolResult, Connection, Context, Implementation, Instant,
    NoArgs, Output, Principal, Rejection, Request, Service, Tool, Transport,
};
use support::Harness;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const PRM: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const ALICE: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"alice","type":"text"}],"resultType":"complete"}}"#;

/// Tokens and what the authenticator makes of them: `now-*` at once,
/// `later-*` through a future, `never` a future that never finishes and
/// says when it is dropped.
struct Table {
    dropped: Arc<AtomicBool>,
}

struct Probe(Arc<AtomicBool>);

impl Drop for Probe {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl Authenticator for Table {
    fn authenticate(&self, token: &str, _resource: &str) -> Authentication {
        let later = |v: Verdict| Authentication::Deferred(Box::pin(async move { v }));
        match token {
            "now-alice" => Authentication::Ready(Verdict::Accepted(alice())),
            "later-alice" => later(Verdict::Accepted(alice())),
            "later-nobody" => later(Verdict::Accepted(
                Principal::new("carol", ["other"]).audience(["https://mcp.example.com/mcp"]),
            )),
            "later-revoked" => later(Verdict::Rejected(Rejection(
                "The token is not active".into(),
            ))),
            "later-down" => later(Verdict::Unavailable { retry_after: 7 }),
            "later-panic" => Authentication::Deferred(Box::pin(async { panic!("validator bug") })),
            "never" => {
                let probe = Probe(self.dropped.clone());
                Authentication::Deferred(Box::pin(async move {
                    let _probe = probe;
                    std::future::pending::<Verdict>().await
                }))
            }
            _ => Authentication::Ready(Verdict::Rejected(Rejection("Unknown token".into()))),
        }
    }
}

fn alice() -> Principal {
    Principal::new("alice", ["notes:read"]).audience(["https://mcp.example.com/mcp"])
}

fn service() -> (Service, Arc<AtomicBool>) {
    let dropped = Arc::new(AtomicBool::new(false));
    let auth = Authorization::new(
        "https://mcp.example.com/mcp",
        Table {
            dropped: dropped.clone(),
        },
    )
    .authorization_server("https://auth.example.com")
    .require(["notes:read"]);
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .authorization(auth)
        .tool(
            Tool::new("whoami", "Who is calling"),
            |_: NoArgs, ctx: Context| async move {
                CallToolResult::text(
                    ctx.principal()
                        .map_or("?", |p| p.subject.as_str())
                        .to_owned(),
                )
            },
        )
        .build()
        .unwrap();
    (service, dropped)
}

fn whoami(id: u64, token: &str) -> String {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"whoami",{META}}}}}"#
    );
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: whoami\r\nAuthorization: Bearer {token}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn answer(status: &str, extra: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}\r\n{body}",
        body.len()
    )
}

fn alice_answer(id: u64) -> String {
    answer(
        "200 OK",
        "",
        &ALICE.replace(r#""id":1"#, &format!(r#""id":{id}"#)),
    )
}

/// A harness that holds invocations: a sent request that authenticates
/// later writes nothing until [`resolve`] runs what it holds.
fn held(service: &Service) -> Harness {
    let mut h = Harness::new(service, Transport::Http);
    h.run_handlers = false;
    h
}

/// Run the held deferred authentication (and, once admitted, the call
/// it lets through): what was written.
fn resolve(h: &mut Harness) -> String {
    assert_eq!(h.pending.len(), 1, "one request's token is being checked");
    assert_eq!(h.pending[0].request, Request::Authenticate);
    h.run_handlers = true;
    let out = h.run_pending();
    h.run_handlers = false;
    out
}

#[test]
fn a_deferred_verdict_that_accepts_lets_the_request_through_with_its_principal() {
    let (service, _) = service();
    let mut h = held(&service);
    assert_eq!(h.send(whoami(1, "later-alice").as_bytes()), "");
    assert_eq!(resolve(&mut h), alice_answer(1));
    // The connection is kept alive and a synchronous verdict goes the
    // same way.
    h.run_handlers = true;
    assert_eq!(h.send(whoami(2, "now-alice").as_bytes()), alice_answer(2));
    assert!(!h.closed);
}

#[test]
fn a_deferred_rejection_is_401_invalid_token() {
    let (service, _) = service();
    let mut h = held(&service);
    assert_eq!(h.send(whoami(1, "later-revoked").as_bytes()), "");
    assert_eq!(
        resolve(&mut h),
        answer(
            "401 Unauthorized",
            &format!("WWW-Authenticate: Bearer error=\"invalid_token\", error_description=\"The token is not active\", scope=\"notes:read\", resource_metadata=\"{PRM}\"\r\n"),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: the bearer token is not valid"}}"#
        )
    );
    assert!(
        !h.closed,
        "the request was well framed: the connection stays"
    );
}

#[test]
fn a_deferred_principal_without_the_required_scope_is_403() {
    let (service, _) = service();
    let mut h = held(&service);
    h.send(whoami(1, "later-nobody").as_bytes());
    assert_eq!(
        resolve(&mut h),
        answer(
            "403 Forbidden",
            &format!("WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"notes:read\", resource_metadata=\"{PRM}\"\r\n"),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Forbidden: the token lacks a required scope"}}"#
        )
    );
}

#[test]
fn an_authenticator_that_cannot_decide_is_503_with_retry_after_not_401() {
    let (service, _) = service();
    let mut h = held(&service);
    h.send(whoami(1, "later-down").as_bytes());
    assert_eq!(
        resolve(&mut h),
        answer(
            "503 Service Unavailable",
            "Retry-After: 7\r\n",
            r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Service Unavailable: the bearer token cannot be checked now; retry later","data":{"retryAfterSeconds":7,"retryable":true}}}"#
        )
    );
}

#[test]
fn a_panicking_deferred_authenticator_is_500() {
    let (service, _) = service();
    let mut h = held(&service);
    h.send(whoami(1, "later-panic").as_bytes());
    let inv = h.pending.pop().unwrap();
    // Run as an adapter runs it: its task turns the panic into an outcome.
    let mut task = h.conn.task(inv);
    let outcome = task.poll_inline().expect("a panic is an outcome at once");
    h.conn.complete(task.call(), outcome, h.now).unwrap();
    assert_eq!(
        h.drain(),
        answer(
            "500 Internal Server Error",
            "",
            r#"{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error: the bearer token could not be checked"}}"#
        )
    );
}

#[test]
fn the_client_hanging_up_while_its_token_is_checked_drops_the_future() {
    let (service, dropped) = service();
    let mut h = held(&service);
    h.send(whoami(1, "never").as_bytes());
    let inv = h.pending.pop().unwrap();
    let call = inv.call;
    // Spawned as an adapter would: pending.
    let mut task = h.conn.task(inv);
    assert!(task.poll_inline().is_none());
    assert!(!dropped.load(Ordering::SeqCst));
    assert_eq!(h.close_input(), "");
    assert_eq!(h.cancelled, vec![call]);
    assert!(h.closed, "nothing is left to answer");
    // The task sees the cancellation at its next poll and drops the future.
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    assert!(std::pin::Pin::new(&mut task).poll(&mut cx).is_ready());
    assert!(dropped.load(Ordering::SeqCst), "the future was dropped");
    // A verdict arriving after that is no call's.
    assert!(h
        .conn
        .complete(
            call,
            snodo_proto::Outcome::Authenticated(Verdict::Accepted(alice())),
            h.now
        )
        .is_err());
}

#[test]
fn a_pipelined_request_waits_undecoded_behind_a_parked_one_and_order_is_kept() {
    let (service, _) = service();
    let mut h = held(&service);
    let both = whoami(1, "later-alice") + &whoami(2, "later-alice");
    assert_eq!(h.send(both.as_bytes()), "");
    // Only the first is being authenticated: the second is not read ahead.
    assert_eq!(h.pending.len(), 1);
    // Once the first is answered the second is decoded and checked in
    // turn (the harness runs that check at once too): both answered, in
    // order.
    assert_eq!(resolve(&mut h), alice_answer(1) + &alice_answer(2));
    assert!(h.pending.is_empty());
}

#[test]
fn a_verdict_not_back_by_the_request_deadline_is_503_and_the_future_dropped() {
    let (service, dropped) = service();
    let mut h = held(&service);
    h.send(whoami(1, "never").as_bytes());
    let call = h.pending[0].call;
    // Just before the request deadline (`HttpConfig::request_timeout`,
    // 30 s): nothing yet.
    assert_eq!(h.advance(29_999), "");
    assert_eq!(
        h.advance(1),
        answer(
            "503 Service Unavailable",
            "Retry-After: 1\r\n",
            r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Service Unavailable: the bearer token cannot be checked now; retry later","data":{"retryAfterSeconds":1,"retryable":true}}}"#
        )
    );
    assert_eq!(h.cancelled, vec![call]);
    // The held invocation is the test's: dropping it drops the future.
    h.pending.clear();
    assert!(dropped.load(Ordering::SeqCst));
    // The connection goes on.
    h.run_handlers = true;
    assert_eq!(h.send(whoami(2, "now-alice").as_bytes()), alice_answer(2));
}

#[test]
fn a_graceful_shutdown_waits_for_the_verdict_and_answers_with_connection_close() {
    let (service, _) = service();
    let mut h = held(&service);
    h.send(whoami(1, "later-alice").as_bytes());
    h.conn.begin_shutdown(h.now);
    assert_eq!(h.drain(), "");
    assert!(!h.closed, "the request in progress is answered first");
    let ok = alice_answer(1).replacen("\r\n\r\n", "\r\nConnection: close\r\n\r\n", 1);
    assert_eq!(resolve(&mut h), ok);
    assert!(h.closed);
}

#[test]
fn the_shutdown_grace_running_out_cancels_a_pending_verdict() {
    let (service, _) = service();
    let mut h = held(&service);
    h.send(whoami(1, "never").as_bytes());
    let call = h.pending[0].call;
    h.conn.begin_shutdown(h.now);
    h.drain();
    // The default grace (`Limits::shutdown_grace`) is shorter than the
    // request deadline.
    let grace = service.limits().shutdown_grace.as_millis() as u64;
    assert_eq!(h.advance(grace), "");
    assert_eq!(h.cancelled, vec![call]);
    assert!(h.closed);
}

#[test]
fn a_host_parsed_request_is_held_the_same_way() {
    let (service, _) = service();
    let head = snodo_proto::http::Head::new(
        "POST",
        "/mcp",
        1,
        [
            ("host", "127.0.0.1"),
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "whoami"),
            ("authorization", "Bearer later-alice"),
        ],
    );
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"whoami",{META}}}}}"#
    );
    let mut conn = Connection::http_request(
        &service,
        head,
        Ok(bytes::Bytes::from(body)),
        None,
        Instant::ZERO,
    );
    let Some(Output::Invoke(inv)) = conn.poll_output() else {
        panic!("the token check goes out first");
    };
    assert_eq!(inv.request, Request::Authenticate);
    assert!(conn.poll_output().is_none());
    assert!(!conn.is_closed(), "held, not closed");
    let mut task = conn.task(inv);
    let outcome = task.poll_inline().unwrap();
    conn.complete(task.call(), outcome, Instant::ZERO).unwrap();
    let mut body = Vec::new();
    let mut status = 0;
    while let Some(out) = conn.poll_output() {
        match out {
            Output::Respond(r) => status = r.status,
            Output::Transmit(b) => body.extend_from_slice(&b),
            Output::Invoke(inv) => {
                let mut task = conn.task(inv);
                let outcome = task.poll_inline().unwrap();
                conn.complete(task.call(), outcome, Instant::ZERO).unwrap();
            }
            Output::Cancel(_) | Output::Close => {}
        }
    }
    assert_eq!(status, 200);
    assert_eq!(String::from_utf8(body).unwrap(), ALICE);
}

use std::future::Future;
