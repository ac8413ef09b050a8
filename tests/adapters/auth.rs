//! A deferred authenticator (`snodo_proto::auth::Authentication::Deferred`)
//! on each runtime: proto hands its future out like a handler call, the
//! runtime runs it (spawned: here it waits on a latch the test releases),
//! and the request is answered once the verdict is back. What proto
//! decides about a held request is tested in `proto/tests/auth_deferred.rs`;
//! this is that the runtime runs the future, wakes the connection, and
//! drops the future when the client leaves.

use std::sync::mpsc::{self, Sender};
use std::sync::Mutex;

use snodo_proto::auth::{Authentication, Verdict};
use snodo_proto::{Authenticator, Authorization, Principal, Rejection};
use snodo_tokio::Options;

use crate::client::{json, json_response, post, Server, Stdio};
use crate::harness::Rt;
use crate::http::{echoed, META};
use crate::service::{limits, service_with, Latch, SOON};

const PRM: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

/// `later`: accepted once the latch is released; `later-bad`: refused
/// once it is; `never`: never decided, and says when its future is
/// dropped.
struct Deferring {
    latch: Latch,
    dropped: Mutex<Sender<()>>,
}

struct DropSignal(Sender<()>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

impl Authenticator for Deferring {
    fn authenticate(&self, token: &str, _resource: &str) -> Authentication {
        let released = self.latch.wait();
        match token {
            "later" => Authentication::Deferred(Box::pin(async move {
                released.await;
                Verdict::Accepted(
                    Principal::new("alice", ["mcp"]).audience(["https://mcp.example.com/mcp"]),
                )
            })),
            "later-bad" => Authentication::Deferred(Box::pin(async move {
                released.await;
                Verdict::Rejected(Rejection("The token is not active".into()))
            })),
            _ => {
                let signal = DropSignal(self.dropped.lock().unwrap().clone());
                Authentication::Deferred(Box::pin(async move {
                    let _signal = signal;
                    std::future::pending::<Verdict>().await
                }))
            }
        }
    }
}

fn echo_with(id: u64, text: &str, token: &str) -> String {
    post(
        &format!("Mcp-Method: tools/call\r\nMcp-Name: echo\r\nAuthorization: Bearer {token}\r\n"),
        &format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}},{META}}}}}"#
        ),
    )
}

pub fn http_a_deferred_authenticator_is_run_and_its_request_answered<R: Rt>() {
    let latch = Latch::default();
    let (dropped_tx, _dropped) = mpsc::channel();
    let authenticator = Deferring {
        latch: latch.clone(),
        dropped: Mutex::new(dropped_tx),
    };
    let (service, _) = service_with(limits(), |b| {
        b.authorization(
            Authorization::new("https://mcp.example.com/mcp", authenticator)
                .authorization_server("https://auth.example.com")
                .require(["mcp"]),
        )
    });
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    // Both pipelined: the second waits behind the first's verdict.
    client.send(&(echo_with(1, "first", "later") + &echo_with(2, "second", "later-bad")));
    std::thread::sleep(std::time::Duration::from_millis(50));
    latch.release();
    client.expect(&(echoed(1, "first") + &json_response(
        "401 Unauthorized",
        &format!("WWW-Authenticate: Bearer error=\"invalid_token\", error_description=\"The token is not active\", scope=\"mcp\", resource_metadata=\"{PRM}\"\r\n"),
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: the bearer token is not valid"}}"#,
    )));
    drop(client);
    server.finish();
}

pub fn http_a_client_leaving_while_its_token_is_checked_drops_the_future<R: Rt>() {
    let (dropped_tx, dropped) = mpsc::channel();
    let authenticator = Deferring {
        latch: Latch::default(),
        dropped: Mutex::new(dropped_tx),
    };
    let (service, _) = service_with(limits(), |b| {
        b.authorization(
            Authorization::new("https://mcp.example.com/mcp", authenticator)
                .authorization_server("https://auth.example.com"),
        )
    });
    let server = Server::<R>::http(&service, Options::default());
    let mut leaving = server.connect();
    leaving.send(&echo_with(1, "gone", "never"));
    std::thread::sleep(std::time::Duration::from_millis(50));
    drop(leaving);
    dropped
        .recv_timeout(SOON)
        .expect("the authenticator's future is dropped when its client leaves");
    server.finish();
}

/// stdio takes no tokens: its caller is the application's
/// (`ServiceBuilder::stdio_principal`), and a tool's scopes hold for it in
/// every era, on every runtime: `echo` needs `echo:use`, which the
/// principal lacks, so a 2026-07-28 call and a call inside a 2025-11-25
/// session are both refused, and the tool never runs.
pub fn stdio_a_principal_without_a_tools_scope_is_refused_in_every_era<R: Rt>() {
    let (service, _) = service_with(limits(), |b| {
        b.authorization(
            Authorization::new("https://mcp.example.com/mcp", |_: &str| {
                Err(Rejection("stdio takes no tokens".into()))
            })
            .authorization_server("https://auth.example.com")
            .tool_scopes("echo", ["echo:use"]),
        )
        .stdio_principal(Principal::new("carol", ["mcp"]))
    });
    let refused = |id: u64| {
        json(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32600,"message":"Forbidden: the token lacks a required scope"}}}}"#
        ))
    };
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}}}"#
    ));
    assert_eq!(c.recv(), refused(1));
    c.send(r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#);
    assert_eq!(c.recv()["result"]["protocolVersion"], "2025-11-25");
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    c.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#);
    assert_eq!(c.recv(), refused(3));
    c.finish();
}
