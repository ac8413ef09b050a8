//! The HTTP path over real TCP on 127.0.0.1: literal request bytes in, the
//! server's responses parsed just enough to check status, headers and JSON
//! (`basic/transports/streamable-http.mdx`). What is checked is what the
//! adapter adds: one task per connection, keep-alive, disconnect =
//! cancellation, the connection cap, many connections at once, graceful
//! shutdown.

mod common;

use common::{
    json, post, probes, run, run_on_threads, service, service_with, within, HttpClient, HttpServer,
};
use smol::future::FutureExt;
use smol::Timer;
use snodo_proto::Limits;
use snodo_smol::Options;
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(20);

const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const DISCOVER_RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete","ttlMs":60000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#;

#[test]
fn discover_over_http() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let server = HttpServer::start(&ex, service(probes), Options::default()).await;
        let mut client = HttpClient::connect(server.addr).await;
        client.send(&post("server/discover", None, DISCOVER)).await;
        let response = client.response().await;
        assert_eq!(response.status, 200);
        assert_eq!(response.header("content-type"), Some("application/json"));
        assert_eq!(response.json(), json(DISCOVER_RESULT));
    });
}

#[test]
fn keep_alive_serves_requests_one_after_another() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let server = HttpServer::start(&ex, service(probes), Options::default()).await;
        let mut client = HttpClient::connect(server.addr).await;
        for text in ["first", "second", "third"] {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
            );
            client.send(&post("tools/call", Some("echo"), &body)).await;
            let response = client.response().await;
            assert_eq!(response.status, 200);
            assert_eq!(
                response.json(),
                json(&format!(
                    r#"{{"jsonrpc":"2.0","id":5,"result":{{"content":[{{"type":"text","text":"{text}"}}],"resultType":"complete","_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"smol-test","version":"1.0.0"}}}}}}}}"#
                ))
            );
        }
    });
}

#[test]
fn connection_close_is_honoured() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let server = HttpServer::start(&ex, service(probes), Options::default()).await;
        let mut client = HttpClient::connect(server.addr).await;
        let body = DISCOVER;
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        client.send(request.as_bytes()).await;
        let response = client.response().await;
        assert_eq!(response.status, 200);
        assert_eq!(response.header("connection"), Some("close"));
        assert_eq!(response.json(), json(DISCOVER_RESULT));
        client.expect_eof(Duration::from_secs(2)).await;
    });
}

#[test]
fn a_refused_request_is_answered_and_the_connection_closed() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let server = HttpServer::start(&ex, service(probes), Options::default()).await;
        let mut client = HttpClient::connect(server.addr).await;
        client
            .send(b"GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .await;
        let response = client.response().await;
        assert_eq!(response.status, 404);
        client.expect_eof(Duration::from_secs(2)).await;
    });
}

#[test]
fn a_panicking_handler_gets_internal_error_and_the_connection_goes_on() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let server = HttpServer::start(&ex, service(probes), Options::default()).await;
        let mut client = HttpClient::connect(server.addr).await;
        client
            .send(&post(
                "tools/call",
                Some("panic"),
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"panic","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            ))
            .await;
        let response = client.response().await;
        assert_eq!(
            response.json(),
            json(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#)
        );
        client.send(&post("server/discover", None, DISCOVER)).await;
        assert_eq!(client.response().await.json(), json(DISCOVER_RESULT));
    });
}

#[test]
fn progress_streams_as_sse_before_the_result() {
    run(LIMIT, |ex| async move {
        let (probes, _) = probes();
        let server = HttpServer::start(&ex, service(probes), Options::default()).await;
        let mut client = HttpClient::connect(server.addr).await;
        client
            .send(&post(
                "tools/call",
                Some("progress"),
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":9,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            ))
            .await;
        let response = client.response().await;
        assert_eq!(response.status, 200);
        assert_eq!(response.header("content-type"), Some("text/event-stream"));
        let body = String::from_utf8(response.body).unwrap();
        let events: Vec<serde_json::Value> = body
            .split("\n\n")
            .filter(|e| !e.is_empty())
            .map(|e| json(e.strip_prefix("data: ").expect("one data line per event")))
            .collect();
        assert_eq!(
            events,
            vec![
                json(
                    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":9,"progress":1.0,"total":2.0}}"#
                ),
                json(
                    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
                ),
            ]
        );
    });
}

#[test]
fn client_disconnect_cancels_the_call_in_flight() {
    run(LIMIT, |ex| async move {
        let (probes, events) = probes();
        let server = HttpServer::start(&ex, service(probes), Options::default()).await;
        let mut client = HttpClient::connect(server.addr).await;
        client
            .send(&post(
                "tools/call",
                Some("hang"),
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            ))
            .await;
        within(LIMIT, "the handler to start", events.started.recv())
            .await
            .unwrap();
        drop(client);
        let flagged = within(
            Duration::from_secs(2),
            "the handler to be dropped",
            events.dropped.recv(),
        )
        .await
        .unwrap();
        assert!(
            flagged,
            "CancelFlag must be set before the future is dropped"
        );
    });
}

/// A POST of an initialize-era session (2025-11-25): no `_meta`, the
/// session named in `Mcp-Session-Id` once it has one.
fn session_post(session: Option<&str>, body: &str) -> Vec<u8> {
    let sid = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n{sid}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// In a 2025-11-25 session a client that disconnects has not cancelled
/// its request (`transports.mdx` § Sending Messages: "Disconnection SHOULD
/// NOT be interpreted as the client cancelling its request"): the call
/// keeps running after the socket is gone, past the shutdown grace (which
/// is not for this), and the client can still cancel it from another
/// connection.
#[test]
fn a_session_call_outlives_its_clients_disconnect() {
    run(LIMIT, |ex| async move {
        let (probes, events) = probes();
        let options = Options::default();
        let grace = Limits {
            shutdown_grace: Duration::from_millis(100),
            ..Limits::default()
        };
        let server = HttpServer::start(&ex, service_with(probes, grace), options).await;
        let mut client = HttpClient::connect(server.addr).await;
        client
            .send(&session_post(
                None,
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            ))
            .await;
        let response = client.response().await;
        assert_eq!(response.status, 200);
        let sid = response
            .header("mcp-session-id")
            .expect("a session")
            .to_owned();
        client
            .send(&session_post(
                Some(&sid),
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang"}}"#,
            ))
            .await;
        within(LIMIT, "the handler to start", events.started.recv())
            .await
            .unwrap();
        drop(client);
        Timer::after(Duration::from_millis(300)).await;
        assert!(
            events.dropped.try_recv().is_err(),
            "the call still runs after the client disconnected"
        );
        let mut other = HttpClient::connect(server.addr).await;
        other
            .send(&session_post(
                Some(&sid),
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            ))
            .await;
        assert_eq!(other.response().await.status, 202);
        let flagged = within(
            Duration::from_secs(2),
            "the handler to be dropped once the client cancelled",
            events.dropped.recv(),
        )
        .await
        .unwrap();
        assert!(flagged, "its CancelFlag was set");
    });
}

#[test]
fn call_timeout_answers_and_drops_the_handler() {
    run(LIMIT, |ex| async move {
        let (probes, events) = probes();
        let limits = Limits {
            call_timeout: Some(Duration::from_millis(200)),
            ..Limits::default()
        };
        let server = HttpServer::start(&ex, service_with(probes, limits), Options::default()).await;
        let mut client = HttpClient::connect(server.addr).await;
        let started = Instant::now();
        client
            .send(&post(
                "tools/call",
                Some("hang"),
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            ))
            .await;
        let response = client.response().await;
        assert!(started.elapsed() >= Duration::from_millis(200));
        assert_eq!(
            response.json(),
            json(
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Request timed out"}}"#
            )
        );
        let flagged = within(
            Duration::from_secs(2),
            "the handler to be dropped",
            events.dropped.recv(),
        )
        .await
        .unwrap();
        assert!(flagged);
    });
}

#[test]
fn hundreds_of_concurrent_connections() {
    const CLIENTS: usize = 300;
    // Two threads drive the executor, so connections and handlers really
    // run in parallel.
    run_on_threads(2, Duration::from_secs(60), |ex| async move {
        let (probes, _) = probes();
        let server = HttpServer::start(&ex, service(probes), Options::default()).await;
        let addr = server.addr;
        // Every client connects and sends before any reads, so all the
        // connections and their calls are open at the same time.
        let mut clients = Vec::with_capacity(CLIENTS);
        for i in 0..CLIENTS {
            let mut client = HttpClient::connect(addr).await;
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"sleep","arguments":{{"ms":200,"text":"client {i}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
            );
            client.send(&post("tools/call", Some("sleep"), &body)).await;
            clients.push(client);
        }
        let started = Instant::now();
        let tasks: Vec<_> = clients
            .into_iter()
            .enumerate()
            .map(|(i, mut client)| {
                ex.spawn(async move {
                    let response = client.response_within(Duration::from_secs(30)).await;
                    assert_eq!(response.status, 200);
                    assert_eq!(
                        response.json(),
                        json(&format!(
                            r#"{{"jsonrpc":"2.0","id":{i},"result":{{"content":[{{"type":"text","text":"client {i}"}}],"resultType":"complete","_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"smol-test","version":"1.0.0"}}}}}}}}"#
                        ))
                    );
                })
            })
            .collect();
        for task in tasks {
            task.await;
        }
        // The sleeps overlapped: 300 sequential 200 ms calls would take a minute.
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "took {:?}",
            started.elapsed()
        );
    });
}

/// At the cap a new connection takes the place of the one idle longest,
/// which is closed; with none idle the new one is closed at once.
#[test]
fn at_the_cap_a_new_connection_takes_an_idle_ones_place_or_is_closed() {
    run(LIMIT, |ex| async move {
        let (probes, events) = probes();
        let server =
            HttpServer::start(&ex, service(probes), Options::default().max_connections(2)).await;
        let hang = post(
            "tools/call",
            Some("hang"),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        );
        // `a` idles between requests; `b` holds a call in flight.
        let mut a = HttpClient::connect(server.addr).await;
        a.send(&post("server/discover", None, DISCOVER)).await;
        assert_eq!(a.response().await.json(), json(DISCOVER_RESULT));
        let mut b = HttpClient::connect(server.addr).await;
        b.send(&hang).await;
        within(LIMIT, "b's call to start", events.started.recv())
            .await
            .unwrap();
        // `c` takes the idle one's place.
        let mut c = HttpClient::connect(server.addr).await;
        c.send(&post("server/discover", None, DISCOVER)).await;
        assert_eq!(c.response().await.json(), json(DISCOVER_RESULT));
        a.expect_eof(Duration::from_secs(2)).await;
        // Now both places hold calls in flight: nothing is idle.
        c.send(&hang).await;
        within(LIMIT, "c's call to start", events.started.recv())
            .await
            .unwrap();
        let mut d = HttpClient::connect(server.addr).await;
        d.expect_eof(Duration::from_secs(2)).await;
        drop((b, c));
    });
}

#[test]
fn graceful_shutdown_answers_calls_in_flight_and_closes_idle_connections() {
    run(LIMIT, |ex| async move {
        let (probes, events) = probes();
        let server = HttpServer::start(&ex, service(probes), Options::default()).await;
        let mut idle = HttpClient::connect(server.addr).await;
        idle.send(&post("server/discover", None, DISCOVER)).await;
        assert_eq!(idle.response().await.json(), json(DISCOVER_RESULT));
        let mut busy = HttpClient::connect(server.addr).await;
        busy.send(&post(
            "tools/call",
            Some("sleep"),
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":300,"text":"finished"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ))
        .await;
        within(LIMIT, "the call to start", events.sleep_started.recv())
            .await
            .unwrap();
        server.shut_down();
        idle.expect_eof(Duration::from_secs(2)).await;
        let response = busy.response().await;
        // The last response on a connection that is going away says so.
        assert_eq!(response.header("connection"), Some("close"));
        assert_eq!(
            response.json(),
            json(
                r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"finished"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"smol-test","version":"1.0.0"}}}}"#
            )
        );
        busy.expect_eof(Duration::from_secs(2)).await;
        // The idle client keeps its side open, so its connection lingers
        // (`Limits::close_linger`, 2 s) before the server is done.
        within(Duration::from_secs(4), "serve_http to return", server.task)
            .await
            .unwrap();
        // The listener is gone: new connections are refused.
        let refused = smol::net::TcpStream::connect(server.addr)
            .or(async {
                Timer::after(Duration::from_secs(2)).await;
                Err(std::io::ErrorKind::TimedOut.into())
            })
            .await;
        assert!(
            refused.is_err(),
            "the listener must be closed after shutdown"
        );
    });
}

#[test]
fn shutdown_grace_expiry_cancels_what_is_left() {
    run(LIMIT, |ex| async move {
        let (probes, events) = probes();
        let options = Options::default();
        let grace = Limits {
            shutdown_grace: Duration::from_millis(200),
            ..Limits::default()
        };
        let server = HttpServer::start(&ex, service_with(probes, grace), options).await;
        let mut client = HttpClient::connect(server.addr).await;
        client
            .send(&post(
                "tools/call",
                Some("hang"),
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            ))
            .await;
        within(LIMIT, "the handler to start", events.started.recv())
            .await
            .unwrap();
        let started = Instant::now();
        server.shut_down();
        // No answer: the connection closes when the grace period ends.
        client.expect_eof(Duration::from_secs(2)).await;
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_millis(200),
            "closed after {waited:?}, before the grace period"
        );
        let flagged = within(
            Duration::from_secs(2),
            "the handler to be dropped",
            events.dropped.recv(),
        )
        .await
        .unwrap();
        assert!(flagged);
        drop(client);
        within(Duration::from_secs(2), "serve_http to return", server.task)
            .await
            .unwrap();
    });
}

#[test]
fn a_disconnect_during_shutdown_still_cancels_the_call() {
    run(LIMIT, |ex| async move {
        let (probes, events) = probes();
        let options = Options::default();
        let grace = Limits {
            shutdown_grace: Duration::from_secs(30),
            ..Limits::default()
        };
        let server = HttpServer::start(&ex, service_with(probes, grace), options).await;
        let mut client = HttpClient::connect(server.addr).await;
        client
            .send(&post(
                "tools/call",
                Some("hang"),
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            ))
            .await;
        within(LIMIT, "the handler to start", events.started.recv())
            .await
            .unwrap();
        server.shut_down();
        Timer::after(Duration::from_millis(50)).await;
        drop(client);
        // Long before the 30 s grace period: the disconnect is the cancellation.
        let flagged = within(
            Duration::from_secs(2),
            "the handler to be dropped",
            events.dropped.recv(),
        )
        .await
        .unwrap();
        assert!(flagged);
        within(Duration::from_secs(2), "serve_http to return", server.task)
            .await
            .unwrap();
    });
}

/// The connection's timer only moves earlier (`driver.rs`): a keep-alive
/// request that pushes the idle deadline later leaves the timer to fire at
/// the old one, which must do nothing, and the connection must still close
/// at the new one.
#[test]
fn an_idle_deadline_moved_later_by_a_request_is_kept() {
    const IDLE: Duration = Duration::from_millis(1500);
    run(LIMIT, |ex| async move {
        let service = snodo_proto::Service::builder()
            .http(snodo_proto::HttpConfig {
                idle_timeout: IDLE,
                ..snodo_proto::HttpConfig::default()
            })
            .build()
            .unwrap();
        let server = HttpServer::start(&ex, service, Options::default()).await;
        let mut client = HttpClient::connect(server.addr).await;
        client.send(&post("server/discover", None, DISCOVER)).await;
        assert_eq!(client.response().await.status, 200);
        // Halfway to the first idle deadline, a second request moves it later.
        Timer::after(IDLE / 2).await;
        client.send(&post("server/discover", None, DISCOVER)).await;
        assert_eq!(client.response().await.status, 200);
        // Past the first deadline (by a tenth of it, and well before the
        // second) the connection is still open.
        Timer::after(IDLE * 3 / 5).await;
        client.send(&post("server/discover", None, DISCOVER)).await;
        assert_eq!(client.response().await.status, 200);
        let last = Instant::now();
        // And it closes at the last one. The server started that deadline
        // when it answered, a moment before the client took `last`: hence
        // the tenth of slack; closing at the previous deadline would show
        // as 0.4 IDLE.
        client.expect_eof(IDLE * 3).await;
        assert!(
            last.elapsed() >= IDLE * 9 / 10,
            "closed {:?} after the last request",
            last.elapsed()
        );
    });
}
