//! The hostile clients over HTTP/2 with prior knowledge (h2c), against
//! `snodo-hyper`'s server, with the oracles of the HTTP/1.1 suite carried
//! over to streams (a stream reset where HTTP/1.1 closes the connection):
//! slow bodies get 408 by the request deadline, bodies declared or grown
//! over the limit 413 unread, absurd JSON its parse error, a half-closed
//! client that sent a whole request is answered, idle connections are
//! shed or closed by the idle deadline. Then HTTP/2's own attacks, each
//! ending with the attacker's streams refused or its connection closed:
//! rapid reset (CVE-2023-44487), streams beyond the concurrency limit,
//! a CONTINUATION flood, an oversized header list, SETTINGS and PING
//! floods, and a reader that never opens its flow-control window. A
//! well-behaved HTTP/1.1 client is served throughout, and a new HTTP/2
//! client after each attack; the memory each attack adds to the server's
//! peak is printed and bounded.
//!
//! Well-formed requests go through the `h2` crate (its HPACK decodes the
//! answers); what no HTTP/2 library sends is hand-written (`frames.rs`).

use std::net::SocketAddr;
use std::thread;
use std::time::{Duration, Instant};

use bytes::Bytes;
use h2::client::SendRequest;
use http::Request;

use crate::frames::{self, Frame, Raw};
use crate::{discover_body, Good, Listener, Server, Wire, IDLE_TIMEOUT, MAX_MESSAGE, SLACK};
use crate::{peak_rss_ceiling_kb, REQUEST_TIMEOUT};

const PARSE_ERROR: &str =
    r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"}}"#;
const LATE: &str = r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request Timeout: the request was not received in time"}}"#;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// A new HTTP/2 connection.
async fn connect(addr: SocketAddr) -> SendRequest<Bytes> {
    let tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let (client, conn) = h2::client::handshake(tcp).await.expect("the handshake");
    tokio::spawn(async move {
        let _ = conn.await;
    });
    client
}

/// The head of a POST to `/mcp` for `method`.
fn post(addr: SocketAddr, method: &str) -> http::request::Builder {
    Request::post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
}

/// The status and body of the answer to `body` on a new connection.
async fn ask(addr: SocketAddr, method: &str, name: Option<&str>, body: Vec<u8>) -> (u16, String) {
    let mut client = connect(addr).await.ready().await.expect("ready");
    let mut head = post(addr, method);
    if let Some(name) = name {
        head = head.header("mcp-name", name);
    }
    let (response, mut send) = client
        .send_request(head.body(()).unwrap(), false)
        .expect("a stream");
    send.send_data(Bytes::from(body), true).expect("the body");
    let response = tokio::time::timeout(SLACK * 2, response)
        .await
        .expect("an answer in time")
        .expect("an answer");
    let status = response.status().as_u16();
    let mut body = response.into_body();
    let mut text = Vec::new();
    while let Some(chunk) = body.data().await {
        let chunk = chunk.expect("the body");
        let _ = body.flow_control().release_capacity(chunk.len());
        text.extend_from_slice(&chunk);
    }
    (status, String::from_utf8_lossy(&text).into_owned())
}

/// A new HTTP/2 client is still served, promptly.
fn still_served(label: &str, addr: SocketAddr) {
    let started = Instant::now();
    let (status, body) = runtime().block_on(ask(addr, "server/discover", None, discover_body(21)));
    assert_eq!(
        (status, body.contains("\"id\":21,")),
        (200, true),
        "{label}: a new HTTP/2 client: {body}"
    );
    assert!(
        started.elapsed() < SLACK,
        "{label}: a new HTTP/2 client waited {:?}",
        started.elapsed()
    );
}

/// The answer to a request whose body `send` writes, and the stream's
/// reset after it (`None`: the stream ended without one).
async fn answer_then_reset(
    addr: SocketAddr,
    length: Option<u64>,
    send: impl AsyncFnOnce(&mut h2::SendStream<Bytes>),
) -> (u16, String, Option<h2::Reason>, Duration) {
    let started = Instant::now();
    let mut client = connect(addr).await.ready().await.expect("ready");
    let mut head = post(addr, "server/discover");
    if let Some(n) = length {
        head = head.header("content-length", n);
    }
    let (response, mut stream) = client
        .send_request(head.body(()).unwrap(), false)
        .expect("a stream");
    let mut response = std::pin::pin!(response);
    let sending = async {
        send(&mut stream).await;
        std::future::pending::<()>().await
    };
    let response = tokio::select! {
        r = &mut response => r,
        () = sending => unreachable!(),
        () = tokio::time::sleep(REQUEST_TIMEOUT + SLACK) => panic!("no answer in time"),
    }
    .expect("an answer");
    let after = started.elapsed();
    let status = response.status().as_u16();
    let text = response
        .into_body()
        .data()
        .await
        .and_then(Result::ok)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let reset = tokio::time::timeout(SLACK, std::future::poll_fn(|cx| stream.poll_reset(cx)))
        .await
        .ok()
        .and_then(Result::ok);
    (status, text, reset, after)
}

fn slow_bodies(label: &str, addr: SocketAddr) {
    let clients: Vec<_> = (0..20)
        .map(|_| {
            thread::spawn(move || {
                runtime().block_on(answer_then_reset(addr, Some(1000), async |s| {
                    for _ in 0..100 {
                        if s.send_data(Bytes::from_static(b" "), false).is_err() {
                            return;
                        }
                        tokio::time::sleep(Duration::from_millis(250)).await;
                    }
                }))
            })
        })
        .collect();
    for (i, c) in clients.into_iter().enumerate() {
        let (status, body, reset, after) = c.join().expect("slow client");
        assert_eq!(
            (status, body.as_str()),
            (408, LATE),
            "{label}: slow body {i}"
        );
        // RFC 9113 § 8.1: the rest of the request is no longer wanted.
        assert!(
            reset.is_some(),
            "{label}: slow body {i}: the stream was not reset"
        );
        assert!(
            after <= REQUEST_TIMEOUT + SLACK,
            "{label}: slow body {i} held {after:?}"
        );
    }
}

fn bodies_over_the_limit(label: &str, addr: SocketAddr) {
    let rt = runtime();
    for declared in [MAX_MESSAGE as u64 + 1, 64 << 20, 1 << 30] {
        let (status, _, reset, after) =
            rt.block_on(answer_then_reset(addr, Some(declared), async |_| {}));
        assert_eq!(status, 413, "{label}: content-length {declared}");
        assert!(
            reset.is_some(),
            "{label}: content-length {declared}: not reset"
        );
        assert!(
            after < SLACK,
            "{label}: content-length {declared}: answered after {after:?}"
        );
    }
    // No declared length: DATA frames past the limit.
    let (status, _, reset, _) = rt.block_on(answer_then_reset(addr, None, async |s| {
        for _ in 0..(MAX_MESSAGE / (16 * 1024) + 2) {
            s.reserve_capacity(16 * 1024);
            if s.send_data(Bytes::from(vec![b' '; 16 * 1024]), false)
                .is_err()
            {
                return;
            }
            tokio::task::yield_now().await;
        }
    }));
    assert_eq!(status, 413, "{label}: DATA over the limit");
    assert!(reset.is_some(), "{label}: DATA over the limit: not reset");
}

fn absurd_json(label: &str, addr: SocketAddr) {
    let rt = runtime();
    let deep = vec![b'['; 200_000];
    let mut nested = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"#.to_vec();
    nested.extend(std::iter::repeat_n(&b"{\"a\":"[..], 20_000).flatten());
    nested.extend_from_slice(b"1");
    nested.extend(std::iter::repeat_n(b'}', 20_003));
    let exponent = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":1e999999999},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#.to_vec();
    let utf8 =
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"server/discover\xff\xfe\",\"params\":{}}"
            .to_vec();
    let cases: [(&str, &str, Option<&str>, Vec<u8>); 4] = [
        ("200k open brackets", "server/discover", None, deep),
        ("20k nested objects", "tools/call", Some("echo"), nested),
        ("1e999999999", "tools/call", Some("echo"), exponent),
        ("invalid UTF-8", "server/discover", None, utf8),
    ];
    for (case, method, name, body) in cases {
        let (status, text) = rt.block_on(ask(addr, method, name, body));
        assert_eq!(
            (status, text.as_str()),
            (400, PARSE_ERROR),
            "{label}: {case}"
        );
    }
}

/// Field lines HTTP/2 calls malformed (RFC 9113 § 8.2.1: no CR, LF or
/// NUL in a value, no uppercase or SP in a name): the stream is reset
/// with PROTOCOL_ERROR (§ 8.1.1) and nothing is answered or echoed.
fn header_injection(label: &str, addr: SocketAddr) {
    let cases: [(&[u8], &[u8]); 5] = [
        (b"x-a", b"a\rX-Injected: 1"),
        (b"x-a", b"a\nX-Injected: 1"),
        (b"x-a", b"a\x00X-Injected"),
        (b"x-injected ", b"spaced"),
        (b"X-Injected", b"upper"),
    ];
    for (name, value) in cases {
        let shown = String::from_utf8_lossy(value);
        let mut raw = Raw::connect(addr, &[]);
        let block = frames::request_block(addr, "server/discover", &[(name, value)]);
        let mut wire = frames::frame(frames::HEADERS, frames::END_HEADERS, 1, &block);
        wire.extend(frames::frame(
            frames::DATA,
            frames::END_STREAM,
            1,
            &discover_body(9),
        ));
        raw.send(&wire);
        let mut verdict = None;
        let deadline = Instant::now() + SLACK;
        while verdict.is_none() && Instant::now() < deadline {
            let Some(f) = raw.next(SLACK) else { break };
            assert!(
                !String::from_utf8_lossy(&f.payload).contains("Injected"),
                "{label}: {shown:?}: the server echoed an injected field: {f:?}"
            );
            assert!(
                !(f.kind == frames::HEADERS && f.stream == 1),
                "{label}: {shown:?} was answered"
            );
            if (f.kind == frames::RST_STREAM && f.stream == 1) || f.kind == frames::GOAWAY {
                verdict = f.code();
            }
        }
        assert_eq!(
            verdict,
            Some(frames::PROTOCOL_ERROR),
            "{label}: {shown:?} is refused as malformed"
        );
    }
}

/// Clients that half-close: one that sent a whole request is answered,
/// then closed; one that sent nothing is closed without a stream.
fn half_closed_sockets(label: &str, addr: SocketAddr) {
    let clients: Vec<_> = (0..40u64)
        .map(|i| {
            thread::spawn(move || {
                let mut raw = Raw::connect(addr, &[]);
                if i % 2 == 1 {
                    let block = frames::request_block(addr, "server/discover", &[]);
                    let mut wire = frames::frame(frames::HEADERS, frames::END_HEADERS, 1, &block);
                    wire.extend(frames::frame(
                        frames::DATA,
                        frames::END_STREAM,
                        1,
                        &discover_body(i),
                    ));
                    raw.send(&wire);
                }
                let _ = raw.conn.shutdown(std::net::Shutdown::Write);
                (i, raw.until_closed(IDLE_TIMEOUT + SLACK))
            })
        })
        .collect();
    for c in clients {
        let (i, (frames, closed)) = c.join().unwrap();
        assert!(closed, "{label}: half-closed client {i} was never closed");
        let answered = frames
            .iter()
            .any(|f| f.kind == frames::HEADERS && f.stream == 1);
        let body: Vec<u8> = frames
            .iter()
            .filter(|f| f.kind == frames::DATA && f.stream == 1)
            .flat_map(|f| f.payload.clone())
            .collect();
        if i % 2 == 0 {
            assert!(!answered, "{label}: half-closed client {i} sent nothing");
            continue;
        }
        assert!(
            answered && String::from_utf8_lossy(&body).contains(&format!("\"id\":{i},")),
            "{label}: half-closed client {i} sent a request and got {frames:?}"
        );
    }
}

/// Rapid reset: streams opened and reset at once, thousands of them on
/// one connection. The connection is closed with GOAWAY ENHANCE_YOUR_CALM
/// (`Options::h2_max_pending_accept_reset_streams`), within the slack.
fn rapid_reset(label: &str, addr: SocketAddr) {
    let mut raw = Raw::connect(addr, &[]);
    let block = frames::request_block(addr, "server/discover", &[]);
    let started = Instant::now();
    let mut wire = Vec::new();
    for i in 0..10_000u32 {
        let stream = 2 * i + 1;
        wire.extend(frames::frame(
            frames::HEADERS,
            frames::END_HEADERS,
            stream,
            &block,
        ));
        wire.extend(frames::rst_stream(stream, frames::CANCEL));
        if wire.len() > 64 * 1024 {
            if !raw.send(&wire) {
                break;
            }
            wire.clear();
        }
    }
    raw.send(&wire);
    let (frames, closed) = raw.until_closed(SLACK);
    let goaway = frames.iter().find(|f| f.kind == frames::GOAWAY);
    assert!(
        closed && goaway.and_then(Frame::code) == Some(frames::ENHANCE_YOUR_CALM),
        "{label}: the rapid-reset connection was not closed with GOAWAY ENHANCE_YOUR_CALM after {:?}: {goaway:?}",
        started.elapsed()
    );
}

/// Streams beyond SETTINGS_MAX_CONCURRENT_STREAMS (the service's
/// `max_concurrent_calls`, 64) are refused (RFC 9113 § 5.1.2); the ones
/// admitted, whose bodies never come, get 408 by the request deadline.
fn stream_flood(label: &str, addr: SocketAddr) {
    let mut raw = Raw::connect(addr, &[]);
    let mut wire = Vec::new();
    let block = frames::request_block(addr, "server/discover", &[(b"content-length", b"100")]);
    for i in 0..200u32 {
        wire.extend(frames::frame(
            frames::HEADERS,
            frames::END_HEADERS,
            2 * i + 1,
            &block,
        ));
    }
    raw.send(&wire);
    let (mut refused, mut answered) = (0, 0);
    let deadline = Instant::now() + REQUEST_TIMEOUT + SLACK;
    while refused + answered < 200 && Instant::now() < deadline {
        let Some(f) = raw.next(REQUEST_TIMEOUT + SLACK) else {
            break;
        };
        match f.kind {
            frames::RST_STREAM if f.code() == Some(frames::REFUSED_STREAM) => refused += 1,
            frames::HEADERS => answered += 1,
            _ => {}
        }
    }
    assert_eq!(
        (refused, answered),
        (136, 64),
        "{label}: 200 streams at once"
    );
}

/// A CONTINUATION flood (CVE-2024-27316 and kin): a header block that
/// never ends. h2 counts its frames against the header list limit and
/// closes the connection with GOAWAY ENHANCE_YOUR_CALM.
fn continuation_flood(label: &str, addr: SocketAddr) {
    let mut raw = Raw::connect(addr, &[]);
    let block = frames::request_block(addr, "server/discover", &[]);
    raw.send(&frames::frame(frames::HEADERS, 0, 1, &block));
    let mut piece = Vec::new();
    frames::literal(&mut piece, b"x-flood", b"aaaaaaaaaaaaaaaa");
    let one = frames::frame(frames::CONTINUATION, 0, 1, &piece);
    let batch: Vec<u8> = one.iter().copied().cycle().take(one.len() * 1000).collect();
    let started = Instant::now();
    while started.elapsed() < SLACK && raw.send(&batch) {}
    let (frames, closed) = raw.until_closed(SLACK);
    let goaway = frames.iter().find(|f| f.kind == frames::GOAWAY);
    assert!(
        closed && goaway.and_then(Frame::code) == Some(frames::ENHANCE_YOUR_CALM),
        "{label}: the CONTINUATION flood was not ended with GOAWAY ENHANCE_YOUR_CALM: {goaway:?}"
    );
}

/// A header list over SETTINGS_MAX_HEADER_LIST_SIZE (the native head
/// limit, 16 KiB) is answered 431 and its stream refused; the connection
/// goes on.
fn oversized_header_list(label: &str, addr: SocketAddr) {
    let (status, _) = runtime().block_on(async {
        let mut client = connect(addr).await.ready().await.expect("ready");
        let head = post(addr, "server/discover")
            .header("x-big", "a".repeat(20 * 1024))
            .body(())
            .unwrap();
        let (response, mut send) = client.send_request(head, false).expect("a stream");
        let _ = send.send_data(Bytes::from(discover_body(5)), true);
        let response = tokio::time::timeout(SLACK, response)
            .await
            .expect("an answer in time")
            .expect("an answer");
        // The same connection still serves a request.
        let mut client = client.ready().await.expect("the connection goes on");
        let head = post(addr, "server/discover").body(()).unwrap();
        let (second, mut send) = client.send_request(head, false).expect("a stream");
        let _ = send.send_data(Bytes::from(discover_body(6)), true);
        let second = tokio::time::timeout(SLACK, second).await;
        assert!(
            matches!(&second, Ok(Ok(r)) if r.status() == 200),
            "{label}: after the 431: {second:?}"
        );
        (response.status().as_u16(), ())
    });
    assert_eq!(status, 431, "{label}: a 20 KiB header list");
}

/// SETTINGS and PING frames as fast as the server takes them, their
/// acknowledgements never read: the server stops reading once its writes
/// back up, and the connection (no stream in flight) is closed by the
/// idle deadline, with a GOAWAY that says nothing went wrong if its writes
/// get that far (and otherwise within the close's linger, 2 s).
fn settings_and_ping_flood(label: &str, addr: SocketAddr) {
    let mut raw = Raw::connect(addr, &[]);
    let _ = raw.conn.set_write_timeout(Some(Duration::from_millis(200)));
    let mut batch = Vec::new();
    for i in 0..2000u64 {
        batch.extend(frames::settings(&[]));
        batch.extend(frames::frame(frames::PING, 0, 0, &i.to_be_bytes()));
    }
    let started = Instant::now();
    let (mut sent, mut at) = (0usize, 0usize);
    while started.elapsed() < IDLE_TIMEOUT + SLACK {
        // Frames stay whole: a short write goes on where it stopped.
        match std::io::Write::write(&mut raw.conn, &batch[at..]) {
            Ok(0) => break,
            Ok(n) => {
                sent += n;
                at = (at + n) % batch.len();
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => break,
        }
    }
    let ended = started.elapsed();
    // Drain what the server wrote, to its close: acknowledgements only.
    let (frames, closed) = raw.until_closed(SLACK);
    let goaway = frames.iter().find(|f| f.kind == frames::GOAWAY);
    assert!(
        closed && goaway.is_none_or(|g| g.code() == Some(0)) && ended <= IDLE_TIMEOUT + SLACK,
        "{label}: the SETTINGS/PING flood ({sent} bytes) was not ended by the idle deadline after {ended:?}: {goaway:?}"
    );
}

/// A client that never opens its window (SETTINGS_INITIAL_WINDOW_SIZE 0)
/// and asks for 200 answers of 4 KiB: 64 streams are admitted and their
/// answers wait, at most `h2_max_send_buffer` each; the rest are refused.
/// (Its requests stay within the server's 1 MiB connection window, as a
/// client must: RFC 9113 § 6.9.1.)
fn slow_reader(label: &str, addr: SocketAddr) {
    let mut raw = Raw::connect(addr, &[(frames::INITIAL_WINDOW_SIZE, 0)]);
    // The connection's window opens past its initial 65,535 bytes with the
    // server's first WINDOW_UPDATE (RFC 9113 § 6.9.2).
    while let Some(f) = raw.next(SLACK) {
        if f.kind == frames::WINDOW_UPDATE && f.stream == 0 {
            break;
        }
    }
    let text = "x".repeat(4 * 1024);
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    let block = frames::request_block(addr, "tools/call", &[(b"mcp-name", b"echo")]);
    for i in 0..200u32 {
        let stream = 2 * i + 1;
        let mut wire = frames::frame(frames::HEADERS, frames::END_HEADERS, stream, &block);
        for (j, piece) in body.as_bytes().chunks(16 * 1024).enumerate() {
            let last = (j + 1) * 16 * 1024 >= body.len();
            let flags = if last { frames::END_STREAM } else { 0 };
            wire.extend(frames::frame(frames::DATA, flags, stream, piece));
        }
        if !raw.send(&wire) {
            break;
        }
    }
    let (mut refused, mut heads, mut data) = (0, 0, 0);
    while let Some(f) = raw.next(Duration::from_secs(1)) {
        if std::env::var_os("ABUSE_VERBOSE").is_some() {
            eprintln!("{label}: frame {} on {}: {:?}", f.kind, f.stream, f.code());
        }
        match f.kind {
            frames::RST_STREAM if f.code() == Some(frames::REFUSED_STREAM) => refused += 1,
            frames::HEADERS => heads += 1,
            frames::DATA if !f.payload.is_empty() => data += 1,
            _ => {}
        }
    }
    assert_eq!(
        (refused, heads, data),
        (136, 64, 0),
        "{label}: a reader with no window"
    );
}

/// One connection carrying 5,000 requests, 64 at a time, each body sent
/// after its head: a long-lived HTTP/2 connection holds nothing per stream
/// once the stream is done (each request's hang-up watch leaves with it;
/// when it did not, each stream's task stayed allocated: +3,456 KiB here).
fn many_streams(label: &str, addr: SocketAddr) {
    runtime().block_on(async {
        let client = connect(addr).await;
        let mut tasks = tokio::task::JoinSet::new();
        for lane in 0..64u64 {
            let mut client = client.clone();
            tasks.spawn(async move {
                for i in 0..(5_000 / 64) {
                    client = client.ready().await.expect("ready");
                    let head = post(addr, "server/discover").body(()).unwrap();
                    let (response, mut send) = client.send_request(head, false).expect("a stream");
                    // The body after the head has gone out: the server
                    // waits for it, as a real client's request makes it.
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    let id = lane * 1000 + i;
                    send.send_data(Bytes::from(discover_body(id)), true)
                        .expect("the body");
                    let response = response.await.expect("an answer");
                    assert_eq!(response.status(), 200, "request {id}");
                    let mut body = response.into_body();
                    while let Some(chunk) = body.data().await {
                        let chunk = chunk.expect("the body");
                        let _ = body.flow_control().release_capacity(chunk.len());
                    }
                }
            });
        }
        while let Some(done) = tasks.join_next().await {
            done.unwrap_or_else(|e| panic!("{label}: {e}"));
        }
    });
}

/// 1,500 HTTP/2 connections that send their preface and nothing more:
/// shed at the cap or closed by the idle deadline, each told so first with
/// a GOAWAY of NO_ERROR (RFC 9113 § 6.8: an endpoint SHOULD send GOAWAY
/// before it closes a connection); then a new client is served.
fn idle_flood(label: &str, addr: SocketAddr) {
    let _one = crate::ONE_FLOOD.lock().unwrap_or_else(|p| p.into_inner());
    let started = Instant::now();
    let mut idle: Vec<Raw> = (0..1500).map(|_| Raw::connect(addr, &[])).collect();
    let deadline = started + IDLE_TIMEOUT + SLACK;
    for (i, raw) in idle.iter_mut().take(50).enumerate() {
        let left = deadline.saturating_duration_since(Instant::now());
        let (frames, closed) = raw.until_closed(left.max(Duration::from_millis(1)));
        assert!(
            closed,
            "{label}: idle connection {i} open after {:?}",
            started.elapsed()
        );
        assert!(
            frames.iter().all(|f| f.kind != frames::HEADERS),
            "{label}: an idle connection got a stream"
        );
        let goaway = frames.iter().find(|f| f.kind == frames::GOAWAY);
        assert!(
            goaway.is_some_and(|g| g.code() == Some(0) && g.stream == 0),
            "{label}: idle connection {i} closed without a GOAWAY of NO_ERROR: {frames:?}"
        );
    }
    drop(idle);
}

/// Twenty HTTP/2 clients at once, each with a few requests, so that what
/// a server allocates once (worker threads, h2's buffers, the allocator's
/// arenas) is in its peak before any attack's cost is measured.
fn warm_up(addr: SocketAddr) {
    let clients: Vec<_> = (0..20)
        .map(|_| {
            thread::spawn(move || {
                for _ in 0..5 {
                    still_served("warm-up", addr);
                }
            })
        })
        .collect();
    for c in clients {
        c.join().expect("a warm-up client");
    }
}

/// One HTTP/2 abuse.
type Scenario = fn(&str, SocketAddr);

/// The most an HTTP/2 attack may add to the server's peak memory. Measured
/// on 2026-12-03 (debug build, 2 cores, each on a server already warmed by
/// the cases before it): rapid reset 4-12 KiB, streams beyond the limit
/// 76-112 KiB, CONTINUATION flood 0, oversized header list 0-8 KiB,
/// SETTINGS and PING flood 0-8 KiB, slow reader 136-508 KiB, 5,000
/// streams on one connection 308-400 KiB. 1 MiB is twice the highest;
/// each attack is bounded by a setting, not by luck.
const ATTACK_PEAK_KB: u64 = 1024;

pub fn h2c_abuse() {
    let listener = Listener::Hyper(Wire::H2c);
    let label = listener.label();
    let mut server = Server::spawn(listener);
    let addr = server.addr;
    let good = Good::start(addr);
    // Each case, and whether it is one of HTTP/2's own attacks, held to
    // `ATTACK_PEAK_KB`.
    let scenarios: &[(&str, Scenario, bool)] = &[
        ("slow bodies", slow_bodies, false),
        ("bodies over the limit", bodies_over_the_limit, false),
        ("absurd JSON", absurd_json, false),
        ("header injection", header_injection, false),
        ("half-closed sockets", half_closed_sockets, false),
        ("rapid reset", rapid_reset, true),
        ("streams beyond the limit", stream_flood, true),
        ("CONTINUATION flood", continuation_flood, true),
        ("oversized header list", oversized_header_list, true),
        ("SETTINGS and PING flood", settings_and_ping_flood, true),
        ("slow reader", slow_reader, true),
        ("5,000 streams on one connection", many_streams, true),
        ("idle flood", idle_flood, false),
    ];
    warm_up(addr);
    let only = std::env::var("ABUSE_ONLY").ok();
    let mut report = Vec::new();
    for (name, scenario, attack) in scenarios {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let (_, before) = server.memory();
        let t = Instant::now();
        let tagged = format!("{label}: {name}");
        scenario(&tagged, addr);
        let elapsed = t.elapsed();
        assert!(server.alive(), "{label}: the server died during {name}");
        still_served(&tagged, addr);
        let (_, after) = server.memory();
        let added = after.saturating_sub(before);
        report.push(format!("{name} {elapsed:.1?} +{added} KiB"));
        assert!(
            !attack || added <= ATTACK_PEAK_KB,
            "{label}: {name} added {added} KiB to the peak"
        );
    }
    let answered = good.finish(label);
    let (rss, peak) = server.memory();
    eprintln!(
        "{label}: {} | good client answered {answered} | RSS KiB: end {rss}, peak {peak}",
        report.join(", ")
    );
    let ceiling = peak_rss_ceiling_kb(listener);
    assert!(
        peak <= ceiling,
        "{label}: peak RSS {peak} KiB over {ceiling} KiB\n{}",
        String::from_utf8_lossy(&server.stderr.lock().unwrap())
    );
}
