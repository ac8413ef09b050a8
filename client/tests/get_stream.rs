//! The initialize era's GET stream on the async session (issue 36 item 7;
//! 2025-11-25 `basic/transports.mdx` § Listening for Messages from the
//! Server, § Resumability and Redelivery), on tokio, smol and plain
//! threads, against a literal server.
//!
//! The server opens the session, answers the GET with an event stream
//! that carries a notification under event id `g-1` and a `retry` of
//! 20 ms, then closes it (a 2025-11-25 server closing the stream for
//! polling). While the client's `tools/call` waits, the client must open
//! the GET again with `Last-Event-ID: g-1`; on that stream the server asks
//! for an elicitation, and answers the call only once the client has
//! POSTed the elicitation's result.

#![cfg(all(feature = "tokio", feature = "smol"))]

use std::future::Future;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use snodo_client::{AsyncHttpTransport, AsyncSession, ClientRuntime, Handler};
use snodo_proto::client::{ClientConfig, OpId, Wire};

/// Read one request (head, and `Content-Length` bytes of body).
fn read_request(conn: &mut TcpStream) -> String {
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
                .find_map(|l| {
                    l.to_lowercase()
                        .strip_prefix("content-length: ")
                        .map(String::from)
                })
                .map_or(0, |v| v.trim().parse().unwrap());
            if request.len() >= end + 4 + len {
                return text;
            }
        }
    }
}

/// The literal server; returns what it checked of the requests.
fn serve(listener: TcpListener) {
    let accept = || listener.accept().unwrap().0;
    let mut init = accept();
    assert!(read_request(&mut init).contains("\"method\":\"initialize\""));
    init.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s-9\r\nConnection: close\r\nContent-Length: 84\r\n\r\n\
{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}").unwrap();
    drop(init);
    let mut initialized = accept();
    assert!(read_request(&mut initialized).contains("notifications/initialized"));
    initialized
        .write_all(b"HTTP/1.1 202 Accepted\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
        .unwrap();
    drop(initialized);

    let mut get = accept();
    let head = read_request(&mut get);
    assert!(head.starts_with("GET /mcp HTTP/1.1\r\n"), "{head}");
    assert!(head.contains("\r\nMcp-Session-Id: s-9\r\n"), "{head}");
    assert!(!head.to_lowercase().contains("last-event-id"), "{head}");

    let mut call = accept();
    assert!(read_request(&mut call).contains("\"method\":\"tools/call\""));
    // The stream's one event, then the server closes it for polling.
    get.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n\
id: g-1\nretry: 20\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"on the GET stream\"}}\n\n").unwrap();
    drop(get);

    let mut again = accept();
    let head = read_request(&mut again);
    assert!(head.starts_with("GET /mcp HTTP/1.1\r\n"), "{head}");
    assert!(head.contains("\r\nLast-Event-ID: g-1\r\n"), "{head}");
    again.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n\
id: g-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"e1\",\"method\":\"elicitation/create\",\"params\":{\"message\":\"Name?\",\"requestedSchema\":{\"type\":\"object\"}}}\n\n").unwrap();

    let mut answer = accept();
    let posted = read_request(&mut answer);
    answer
        .write_all(b"HTTP/1.1 202 Accepted\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
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
    // Hold the resumed stream until the client is done.
    std::thread::sleep(Duration::from_millis(500));
}

/// Answers the elicitation as Ada and keeps the notifications.
#[derive(Default)]
struct Ada(Vec<Value>);

impl Handler for Ada {
    fn elicit(&mut self, _: &Value) -> Result<Value, snodo_proto::ErrorObject> {
        Ok(json!({"action": "accept", "content": {"name": "Ada"}}))
    }
    fn notification(&mut self, _: Option<OpId>, message: &Value) {
        self.0.push(message.clone());
    }
}

async fn requests_on_a_resumed_get_stream_are_answered_while_a_call_waits<R: ClientRuntime>(
    runtime: R,
) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || serve(listener));

    let mut config = ClientConfig::new("wire", "1", Wire::Http);
    config.versions = vec![String::from("2025-11-25")];
    config.capabilities.insert("elicitation".into(), json!({}));
    let transport = AsyncHttpTransport::new(runtime, &url)
        .unwrap()
        .with_timeout(Duration::from_secs(10));
    let mut session = AsyncSession::connect(transport, config, Ada::default())
        .await
        .unwrap();
    let result = session.call_tool("t", json!({})).await.unwrap();
    assert_eq!(result.content, [snodo_proto::Content::text("ok")]);
    assert_eq!(
        session.handler_mut().0,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "on the GET stream"}})
        ]
    );
    drop(session);
    server.join().unwrap();
}

fn on_tokio<F: Future>(run: impl FnOnce(snodo_tokio::Tokio) -> F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run(snodo_tokio::Tokio))
}

#[test]
fn on_tokio_runtime() {
    on_tokio(requests_on_a_resumed_get_stream_are_answered_while_a_call_waits)
}

#[test]
fn on_smol_runtime() {
    let ex = Arc::new(smol::Executor::new());
    smol::block_on(ex.run(
        requests_on_a_resumed_get_stream_are_answered_while_a_call_waits(snodo_smol::Smol(
            ex.clone(),
        )),
    ))
}

#[cfg(feature = "threads")]
#[test]
fn on_plain_threads() {
    snodo_blocking::block_on(
        requests_on_a_resumed_get_stream_are_answered_while_a_call_waits(
            snodo_blocking::Threads::new(1).unwrap(),
        ),
    )
}
