//! Streamable HTTP through `serve_http` over real loopback sockets: literal
//! request bytes in, raw response bytes out. Only what the adapter adds is
//! under test (sockets, tasks, cancellation on disconnect, the connection
//! cap, shutdown); HTTP and MCP rules are `proto`'s and tested there.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{service, Probe, STEP};
use serde_json::Value;
use snodo_tokio::{bind_http, serve_http, Options};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::timeout;

const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// A POST to `/mcp` with the standard headers and `extra` header lines.
fn post(extra: &str, body: &str) -> Vec<u8> {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn discover_request() -> Vec<u8> {
    post("Mcp-Method: server/discover\r\n", DISCOVER)
}

struct Server {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Server {
    async fn start(probe: Probe, options: Options) -> Server {
        let listener = bind_http("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let service = service(probe);
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let shutdown = async {
                let _ = stopped.await;
            };
            serve_http(&service, listener, shutdown, options).await
        });
        Server {
            addr,
            stop: Some(stop),
            task,
        }
    }

    /// Signal shutdown; the server task is awaited with [`Server::join`].
    fn signal(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    async fn join(mut self) {
        self.signal();
        timeout(Duration::from_secs(15), self.task)
            .await
            .expect("serve_http returns after shutdown")
            .expect("no panic")
            .expect("Ok");
    }
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// Read one response with a `Content-Length` body; `buf` keeps what was
/// read past it.
async fn read_response(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Response {
    timeout(STEP, async {
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i;
            }
            let mut chunk = [0_u8; 4096];
            let n = stream.read(&mut chunk).await.expect("read");
            assert!(
                n > 0,
                "EOF before a response head: {:?}",
                String::from_utf8_lossy(buf)
            );
            buf.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8(buf[..head_end].to_vec()).expect("ASCII head");
        buf.drain(..head_end + 4);
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap();
        let mut parts = status_line.splitn(3, ' ');
        assert_eq!(parts.next(), Some("HTTP/1.1"), "{status_line}");
        let status = parts.next().unwrap().parse().unwrap();
        let headers: Vec<(String, String)> = lines
            .map(|l| {
                let (n, v) = l.split_once(':').expect("header line");
                (n.trim().to_string(), v.trim().to_string())
            })
            .collect();
        let length: usize = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
            .expect("a Content-Length response")
            .1
            .parse()
            .unwrap();
        while buf.len() < length {
            let mut chunk = [0_u8; 4096];
            let n = stream.read(&mut chunk).await.expect("read");
            assert!(n > 0, "EOF inside a body");
            buf.extend_from_slice(&chunk[..n]);
        }
        let body = buf.drain(..length).collect();
        Response {
            status,
            headers,
            body,
        }
    })
    .await
    .expect("a response in time")
}

/// The server closed the connection: EOF (or a reset) with no byte sent.
async fn expect_closed(stream: &mut TcpStream) {
    let mut byte = [0_u8; 1];
    match timeout(STEP, stream.read(&mut byte))
        .await
        .expect("closed in time")
    {
        Ok(0) => {}
        Ok(_) => panic!("unexpected bytes from a connection that should be closed"),
        Err(e) => assert!(
            matches!(
                e.kind(),
                std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::ConnectionAborted
            ),
            "{e}"
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_over_http() {
    let server = Server::start(Probe::default(), Options::default()).await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    s.write_all(&discover_request()).await.unwrap();
    let mut buf = Vec::new();
    let r = read_response(&mut s, &mut buf).await;
    assert_eq!(r.status, 200);
    assert!(r
        .header("content-type")
        .unwrap()
        .starts_with("application/json"));
    let v = r.json();
    assert_eq!(v["id"], 1);
    assert_eq!(v["result"]["capabilities"]["tools"], serde_json::json!({}));
    assert!(v["result"]["supportedVersions"]
        .as_array()
        .unwrap()
        .contains(&Value::from("2026-07-28")));
    drop(s);
    server.join().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_alive_serves_requests_in_turn_and_a_panic_is_internal_error() {
    let server = Server::start(Probe::default(), Options::default()).await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    let mut buf = Vec::new();

    s.write_all(&post(
        "Mcp-Method: tools/call\r\nMcp-Name: boom\r\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    ))
    .await
    .unwrap();
    let r = read_response(&mut s, &mut buf).await;
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["id"], 1);
    assert_eq!(v["error"]["code"], -32603);
    assert_eq!(v["error"]["message"], "Internal error");

    s.write_all(&post(
        "Mcp-Method: tools/call\r\nMcp-Name: echo\r\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"same socket"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    ))
    .await
    .unwrap();
    let r = read_response(&mut s, &mut buf).await;
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["id"], 2);
    assert_eq!(v["result"]["content"][0]["text"], "same socket");
    drop(s);
    server.join().await;
}

/// Read until `needle` has arrived; returns everything read so far.
async fn read_until(stream: &mut TcpStream, buf: &mut Vec<u8>, needle: &[u8]) {
    timeout(STEP, async {
        while !buf.windows(needle.len()).any(|w| w == needle) {
            let mut chunk = [0_u8; 4096];
            let n = stream.read(&mut chunk).await.expect("read");
            assert!(n > 0, "EOF before {:?}", String::from_utf8_lossy(needle));
            buf.extend_from_slice(&chunk[..n]);
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{:?} in time", String::from_utf8_lossy(needle)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sse_events_reach_the_client_while_the_call_runs() {
    let probe = Probe::default();
    let release = probe.release.clone();
    let server = Server::start(probe, Options::default()).await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    s.write_all(&post(
        "Mcp-Method: tools/call\r\nMcp-Name: step\r\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"step","_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    ))
    .await
    .unwrap();
    let mut buf = Vec::new();
    // The progress event arrives while the handler still waits.
    read_until(&mut s, &mut buf, br#""message":"waiting""#).await;
    let text = String::from_utf8_lossy(&buf).into_owned();
    assert!(text.starts_with("HTTP/1.1 200 "), "{text}");
    assert!(
        text.contains("Content-Type: text/event-stream\r\n"),
        "{text}"
    );
    assert!(text.contains("Transfer-Encoding: chunked\r\n"), "{text}");
    assert!(
        text.contains(r#"data: {"jsonrpc":"2.0","method":"notifications/progress""#),
        "{text}"
    );
    assert!(!text.contains("released"), "the result is not there yet");
    release.notify_one();
    // Then the result, and the last chunk.
    read_until(&mut s, &mut buf, b"\r\n0\r\n\r\n").await;
    let text = String::from_utf8_lossy(&buf).into_owned();
    assert!(text.contains(r#""id":1"#), "{text}");
    assert!(text.contains(r#""text":"released""#), "{text}");
    drop(s);
    server.join().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_disconnect_cancels_the_call() {
    let (dropped_tx, mut dropped) = mpsc::unbounded_channel();
    let probe = Probe {
        dropped: Some(dropped_tx),
        ..Probe::default()
    };
    let started = probe.started.clone();
    let server = Server::start(probe, Options::default()).await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    s.write_all(&post(
        "Mcp-Method: tools/call\r\nMcp-Name: hang\r\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    ))
    .await
    .unwrap();
    timeout(STEP, started.notified())
        .await
        .expect("handler started");
    drop(s);
    let flagged = timeout(STEP, dropped.recv())
        .await
        .expect("the handler was dropped after the client left")
        .unwrap();
    assert!(flagged, "its CancelFlag was set");
    server.join().await;
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
/// keeps running after the socket is gone, and the client can still cancel
/// it from another connection.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_call_outlives_its_clients_disconnect() {
    let (dropped_tx, mut dropped) = mpsc::unbounded_channel();
    let probe = Probe {
        dropped: Some(dropped_tx),
        ..Probe::default()
    };
    let started = probe.started.clone();
    // A shutdown grace shorter than the wait below: it must not apply.
    let probe = probe.grace(Duration::from_millis(100));
    let options = Options::default();
    let server = Server::start(probe, options).await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    let mut buf = Vec::new();
    s.write_all(&session_post(
        None,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    ))
    .await
    .unwrap();
    let r = read_response(&mut s, &mut buf).await;
    assert_eq!(r.status, 200);
    let sid = r.header("mcp-session-id").expect("a session").to_owned();
    s.write_all(&session_post(
        Some(&sid),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang"}}"#,
    ))
    .await
    .unwrap();
    timeout(STEP, started.notified())
        .await
        .expect("handler started");
    drop(s);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        dropped.try_recv().is_err(),
        "the call still runs after the client disconnected"
    );
    let mut other = TcpStream::connect(server.addr).await.unwrap();
    other
        .write_all(&session_post(
            Some(&sid),
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        ))
        .await
        .unwrap();
    let mut buf = Vec::new();
    assert_eq!(read_response(&mut other, &mut buf).await.status, 202);
    let flagged = timeout(STEP, dropped.recv())
        .await
        .expect("the handler was dropped once the client cancelled")
        .unwrap();
    assert!(flagged, "its CancelFlag was set");
    drop(other);
    server.join().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_hundred_concurrent_connections() {
    const CLIENTS: usize = 300;
    let server = Server::start(Probe::default(), Options::default()).await;
    let addr = server.addr;
    let began = Instant::now();
    let mut clients = tokio::task::JoinSet::new();
    for i in 0..CLIENTS {
        clients.spawn(async move {
            let mut s = TcpStream::connect(addr).await.unwrap();
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"client {i}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
            );
            s.write_all(&post("Mcp-Method: tools/call\r\nMcp-Name: echo\r\n", &body))
                .await
                .unwrap();
            let mut buf = Vec::new();
            let r = read_response(&mut s, &mut buf).await;
            assert_eq!(r.status, 200);
            let v = r.json();
            assert_eq!(v["id"], i);
            assert_eq!(v["result"]["content"][0]["text"], format!("client {i}"));
            s
        });
    }
    let mut open = Vec::new();
    let all = async {
        while let Some(done) = clients.join_next().await {
            open.push(done.expect("client task"));
        }
    };
    timeout(Duration::from_secs(30), all)
        .await
        .expect("all clients answered in time");
    assert_eq!(open.len(), CLIENTS, "every connection was served at once");
    eprintln!("{CLIENTS} connections answered in {:?}", began.elapsed());
    drop(open);
    server.join().await;
}

/// At the cap a new connection takes the place of the one idle longest,
/// which is closed; with none idle the new one is closed at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_cap_a_new_connection_takes_an_idle_ones_place_or_is_closed() {
    let probe = Probe::default();
    let started = probe.started.clone();
    let server = Server::start(probe, Options::default().max_connections(2)).await;
    let hang = post(
        "Mcp-Method: tools/call\r\nMcp-Name: hang\r\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    // Both places are held by calls in flight: nothing is idle.
    let mut a = TcpStream::connect(server.addr).await.unwrap();
    a.write_all(&hang).await.unwrap();
    timeout(STEP, started.notified())
        .await
        .expect("a's call runs");
    let mut b = TcpStream::connect(server.addr).await.unwrap();
    b.write_all(&hang).await.unwrap();
    timeout(STEP, started.notified())
        .await
        .expect("b's call runs");
    let mut c = TcpStream::connect(server.addr).await.unwrap();
    expect_closed(&mut c).await;

    // A hang-up cancels a's call and frees its place (once the server
    // notices: retry for a bounded time).
    drop(a);
    let deadline = Instant::now() + STEP;
    let mut d = loop {
        let mut d = TcpStream::connect(server.addr).await.unwrap();
        let mut buf = Vec::new();
        let sent = d.write_all(&discover_request()).await;
        let mut probe = [0_u8; 1];
        let answered = sent.is_ok() && matches!(timeout(STEP, d.peek(&mut probe)).await, Ok(Ok(1)));
        if answered {
            assert_eq!(read_response(&mut d, &mut buf).await.status, 200);
            break d;
        }
        assert!(Instant::now() < deadline, "a freed place was never reused");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // `d` is idle between requests now: a new client takes its place.
    let mut e = TcpStream::connect(server.addr).await.unwrap();
    e.write_all(&discover_request()).await.unwrap();
    let mut buf = Vec::new();
    assert_eq!(read_response(&mut e, &mut buf).await.status, 200);
    expect_closed(&mut d).await;
    drop(b);
    server.join().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_lets_calls_in_flight_finish_then_closes() {
    let mut server = Server::start(Probe::default(), Options::default()).await;
    let addr = server.addr;
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(&post(
        "Mcp-Method: tools/call\r\nMcp-Name: sleep\r\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":300,"label":"finished"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    ))
    .await
    .unwrap();
    // Let the request reach the server before the shutdown signal.
    tokio::time::sleep(Duration::from_millis(50)).await;
    server.signal();
    let mut buf = Vec::new();
    let r = read_response(&mut s, &mut buf).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["content"][0]["text"], "finished");
    expect_closed(&mut s).await;
    // Closing our side too ends the server's lingering read at once.
    drop(s);
    let began = Instant::now();
    server.join().await;
    assert!(
        began.elapsed() < Duration::from_secs(1),
        "{:?}",
        began.elapsed()
    );
    // The listener is gone.
    assert!(TcpStream::connect(addr).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_grace_bounds_a_call_that_never_finishes() {
    let (dropped_tx, mut dropped) = mpsc::unbounded_channel();
    let probe = Probe {
        dropped: Some(dropped_tx),
        ..Probe::default()
    };
    let started = probe.started.clone();
    let probe = probe.grace(Duration::from_millis(200));
    let options = Options::default();
    let mut server = Server::start(probe, options).await;
    let mut s = TcpStream::connect(server.addr).await.unwrap();
    s.write_all(&post(
        "Mcp-Method: tools/call\r\nMcp-Name: hang\r\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    ))
    .await
    .unwrap();
    timeout(STEP, started.notified()).await.expect("started");
    let began = Instant::now();
    server.signal();
    expect_closed(&mut s).await;
    let waited = began.elapsed();
    assert!(
        waited >= Duration::from_millis(150),
        "closed after {waited:?}"
    );
    assert!(waited < Duration::from_secs(2), "closed after {waited:?}");
    assert!(timeout(STEP, dropped.recv()).await.unwrap().unwrap());
    drop(s);
    server.join().await;
    assert!(
        began.elapsed() < Duration::from_secs(3),
        "{:?}",
        began.elapsed()
    );
}

/// The connection's timer only moves earlier (`driver.rs`): a keep-alive
/// request that pushes the idle deadline later leaves the timer to fire
/// at the old one, which must do nothing, and the connection must still
/// close at the new one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_deadline_moved_later_by_a_request_is_kept() {
    const IDLE: Duration = Duration::from_millis(1500);
    let service = snodo_proto::Service::builder()
        .http(snodo_proto::HttpConfig {
            idle_timeout: IDLE,
            ..snodo_proto::HttpConfig::default()
        })
        .build()
        .unwrap();
    let listener = bind_http("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let shutdown = async {
            let _ = stopped.await;
        };
        serve_http(&service, listener, shutdown, Options::default()).await
    });
    let mut s = TcpStream::connect(addr).await.unwrap();
    let mut buf = Vec::new();
    s.write_all(&discover_request()).await.unwrap();
    assert_eq!(read_response(&mut s, &mut buf).await.status, 200);
    // Halfway to the first idle deadline, a second request moves it later.
    tokio::time::sleep(IDLE / 2).await;
    s.write_all(&discover_request()).await.unwrap();
    assert_eq!(read_response(&mut s, &mut buf).await.status, 200);
    let second = Instant::now();
    // Past the first deadline (by a tenth of it, and well before the
    // second) the connection is still open.
    tokio::time::sleep(IDLE * 3 / 5).await;
    s.write_all(&discover_request()).await.unwrap();
    assert_eq!(read_response(&mut s, &mut buf).await.status, 200);
    let third = Instant::now();
    // And it closes at the last one. The server started that deadline
    // when it answered, a moment before the client took `third`: hence
    // the tenth of slack; closing at the previous deadline would show as
    // 0.4 IDLE.
    expect_closed(&mut s).await;
    let idle = third.elapsed();
    assert!(
        idle >= IDLE * 9 / 10 && idle < IDLE * 3,
        "closed {idle:?} after the last request; {:?} after the second",
        second.elapsed()
    );
    let _ = stop.send(());
    timeout(Duration::from_secs(15), task)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}
