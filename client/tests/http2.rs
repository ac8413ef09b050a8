//! HTTP/2 by ALPN on the async transport (feature `http2`), on tokio,
//! smol and plain threads, on the wire.
//!
//! Against snodo's own hyper listener on TLS (`snodo_hyper::serve_tls`,
//! offering `h2` and `http/1.1`), behind a TCP forwarder that counts
//! connections: the server picks `h2`, and a whole session runs on one
//! connection, its requests streams of it: discovery, `tools/list`,
//! `tools/call` with an SSE answer carrying progress; a 2025-11-25
//! session's POSTs, its GET stream (a list change the server publishes
//! mid-call reaches the handler on it) and its DELETE. A server that
//! offers `http/1.1` alone, or a client told `http1_only`, speaks
//! HTTP/1.1 instead.
//!
//! Against h2's own server misbehaving: a reset stream and a GOAWAY are
//! errors that say so, and a server that never answers a stream is held
//! to the request's deadline.

#![cfg(all(
    feature = "tokio",
    feature = "smol",
    feature = "threads",
    feature = "http2"
))]

#[macro_use]
mod common;
use common::Pki;

use std::future::Future;
use std::io;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use snodo_client::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use snodo_client::rustls::ServerConfig;
use snodo_client::{
    AsyncHttpTransport, AsyncSession, ClientRuntime, Error, Handler, HttpVersion, TlsConfig,
    TransportError,
};
use snodo_proto::client::{ClientConfig, OpId, RequestOptions, Wire};
use snodo_proto::{
    CallToolResult, ChangeEvent, Content, Context, Hub, NoArgs, Notifications, Service, Tool,
};

/// One CA and certificate for the whole test binary.
fn pki() -> &'static Pki {
    static PKI: OnceLock<Pki> = OnceLock::new();
    PKI.get_or_init(|| common::pki("snodo h2 test CA"))
}

/// The server's TLS configuration, offering `alpn` (snodo-hyper's offers
/// `h2` and `http/1.1`).
fn server_tls(alpn: &[&[u8]]) -> Arc<ServerConfig> {
    let pki = pki();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pki.key.clone()));
    let config = snodo_hyper::tls::config(vec![pki.leaf.clone()], key).unwrap();
    let mut config = (*config).clone();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Arc::new(config)
}

fn service() -> Service {
    let hub = Hub::default();
    let publisher = hub.clone();
    Service::builder()
        .tool(Tool::new("hello", "Say hello"), |_: NoArgs| async {
            CallToolResult::text("hello over h2")
        })
        .tool(
            Tool::new("count", "Counts to two, reporting progress"),
            |_: NoArgs, ctx: Context| async move {
                ctx.progress(1.0, Some(2.0), None);
                tokio::time::sleep(Duration::from_millis(20)).await;
                ctx.progress(2.0, Some(2.0), None);
                CallToolResult::text("counted")
            },
        )
        .tool(
            Tool::new("announce", "Publishes a list change mid-call"),
            move |_: NoArgs| {
                let hub = publisher.clone();
                async move {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    hub.publish(ChangeEvent::ToolsListChanged);
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    CallToolResult::text("announced")
                }
            },
        )
        .notifications(Notifications::default().tools_list_changed())
        .hub(hub)
        .build()
        .unwrap()
}

/// Run `serve` on a tokio runtime of its own thread, for the whole test
/// binary; the port it listens on.
fn on_a_server_thread<F, Fut>(serve: F) -> u16
where
    F: FnOnce(tokio::net::TcpListener) -> Fut + Send + 'static,
    Fut: Future<Output = ()>,
{
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap().port()).unwrap();
            serve(listener).await
        })
    });
    rx.recv().unwrap()
}

/// snodo-hyper on TLS offering `alpn`.
fn snodo_server(alpn: &'static [&'static [u8]]) -> u16 {
    on_a_server_thread(move |listener| async move {
        let _ = snodo_hyper::serve_tls(
            &service(),
            listener,
            server_tls(alpn),
            std::future::pending(),
            snodo_hyper::Options::default(),
        )
        .await;
    })
}

/// The server that offers `h2` and `http/1.1`.
fn h2_server() -> u16 {
    static PORT: OnceLock<u16> = OnceLock::new();
    *PORT.get_or_init(|| snodo_server(&[b"h2", b"http/1.1"]))
}

/// The server that offers `http/1.1` alone.
fn http1_server() -> u16 {
    static PORT: OnceLock<u16> = OnceLock::new();
    *PORT.get_or_init(|| snodo_server(&[b"http/1.1"]))
}

/// A TCP forwarder to `port`: its own port, and how many connections
/// it took.
fn counting(port: u16) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let own = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let counted = count.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { return };
            counted.fetch_add(1, Ordering::SeqCst);
            let Ok(origin) = TcpStream::connect(("127.0.0.1", port)) else {
                continue;
            };
            splice(conn, origin);
        }
    });
    (own, count)
}

/// Copy both ways until either side ends.
fn splice(a: TcpStream, b: TcpStream) {
    let (mut a_in, mut b_out) = (a.try_clone().unwrap(), b.try_clone().unwrap());
    let (mut b_in, mut a_out) = (b, a);
    std::thread::spawn(move || {
        let _ = io::copy(&mut a_in, &mut b_out);
        let _ = b_out.shutdown(std::net::Shutdown::Write);
    });
    std::thread::spawn(move || {
        let _ = io::copy(&mut b_in, &mut a_out);
        let _ = a_out.shutdown(std::net::Shutdown::Write);
    });
}

/// The test's CA, and no other root.
fn trusting_the_test_ca() -> TlsConfig {
    TlsConfig::no_roots()
        .with_root_pem(pki().ca_pem.as_bytes())
        .unwrap()
}

fn url(port: u16) -> String {
    format!("https://localhost:{port}/mcp")
}

fn config() -> ClientConfig {
    ClientConfig::new("h2", "1", Wire::Http)
}

fn legacy_config() -> ClientConfig {
    let mut config = config();
    config.versions = vec![String::from("2025-11-25")];
    config
}

/// Keeps every notification, with the operation it belongs to.
#[derive(Default)]
struct Seen(Vec<(Option<OpId>, Value)>);

impl Handler for Seen {
    fn notification(&mut self, op: Option<OpId>, message: &Value) {
        self.0.push((op, message.clone()));
    }
}

/// A 2026-07-28 session on HTTP/2: discovery, the catalog, a JSON
/// answer, an SSE answer whose progress reaches the handler, all streams
/// of one connection.
async fn a_session_runs_on_one_h2_connection<R: ClientRuntime>(runtime: R) {
    let (port, connections) = counting(h2_server());
    let transport = AsyncHttpTransport::new(runtime, &url(port))
        .unwrap()
        .with_tls(&trusting_the_test_ca());
    assert_eq!(transport.http_version(), None, "nothing opened yet");
    let mut session = AsyncSession::connect(transport, config(), Seen::default())
        .await
        .unwrap();
    assert_eq!(session.transport().http_version(), Some(HttpVersion::Http2));
    let mut names: Vec<String> = session
        .list_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    names.sort();
    assert_eq!(names, ["announce", "count", "hello"]);
    let hello = session.call_tool("hello", json!({})).await.unwrap();
    assert_eq!(hello.content, [Content::text("hello over h2")]);
    let counted = session
        .request_with(
            "tools/call",
            json!({"name": "count", "arguments": {}}),
            RequestOptions { progress: true },
        )
        .await
        .unwrap();
    assert_eq!(counted["content"][0]["text"], "counted");
    let progress: Vec<Option<f64>> = session
        .handler_mut()
        .0
        .iter()
        .filter(|(op, m)| op.is_some() && m["method"] == "notifications/progress")
        .map(|(_, m)| m["params"]["progress"].as_f64())
        .collect();
    assert_eq!(progress, [Some(1.0), Some(2.0)]);
    let again = session.call_tool("hello", json!({})).await.unwrap();
    assert_eq!(again.content, [Content::text("hello over h2")]);
    assert_eq!(
        connections.load(Ordering::SeqCst),
        1,
        "every request a stream of one connection"
    );
}

/// A 2025-11-25 session on HTTP/2: `initialize`, its GET stream, a call
/// during which the server publishes a list change (it comes on the GET
/// stream, while the POST's stream is read), and the DELETE: all on one
/// connection (on HTTP/1.1 the GET stream alone needs one of its own).
async fn a_2025_session_multiplexes_its_get_stream<R: ClientRuntime>(runtime: R) {
    let (port, connections) = counting(h2_server());
    let transport = AsyncHttpTransport::new(runtime, &url(port))
        .unwrap()
        .with_tls(&trusting_the_test_ca())
        .with_timeout(Duration::from_secs(10));
    let mut session = AsyncSession::connect(transport, legacy_config(), Seen::default())
        .await
        .unwrap();
    assert_eq!(session.version(), "2025-11-25");
    let result = session.call_tool("announce", json!({})).await.unwrap();
    assert_eq!(result.content, [Content::text("announced")]);
    let seen = &session.handler_mut().0;
    assert!(
        seen.iter()
            .any(|(op, m)| op.is_none() && m["method"] == "notifications/tools/list_changed"),
        "{seen:?}"
    );
    assert_eq!(session.transport().http_version(), Some(HttpVersion::Http2));
    session.close().await.unwrap();
    assert_eq!(
        connections.load(Ordering::SeqCst),
        1,
        "the POSTs, the GET stream and the DELETE on one connection"
    );
}

/// A server that offers `http/1.1` alone: the client speaks HTTP/1.1
/// (its kept connection serves the calls).
async fn an_http1_server_is_spoken_http1<R: ClientRuntime>(runtime: R) {
    let transport = AsyncHttpTransport::new(runtime, &url(http1_server()))
        .unwrap()
        .with_tls(&trusting_the_test_ca());
    let mut session = AsyncSession::connect(transport, config(), Seen::default())
        .await
        .unwrap();
    let hello = session.call_tool("hello", json!({})).await.unwrap();
    assert_eq!(hello.content, [Content::text("hello over h2")]);
    let counted = session
        .request_with(
            "tools/call",
            json!({"name": "count", "arguments": {}}),
            RequestOptions { progress: true },
        )
        .await
        .unwrap();
    assert_eq!(counted["content"][0]["text"], "counted");
    assert_eq!(
        session.transport().http_version(),
        Some(HttpVersion::Http11)
    );
}

/// `http1_only`: the client offers `http/1.1` alone, and an HTTP/2
/// server speaks HTTP/1.1 with it.
async fn http1_only_offers_http1_alone<R: ClientRuntime>(runtime: R) {
    assert!(trusting_the_test_ca().offers_http2());
    let tls = trusting_the_test_ca().http1_only();
    assert!(!tls.offers_http2());
    let transport = AsyncHttpTransport::new(runtime, &url(h2_server()))
        .unwrap()
        .with_tls(&tls);
    let mut session = AsyncSession::connect(transport, legacy_config(), Seen::default())
        .await
        .unwrap();
    let hello = session.call_tool("hello", json!({})).await.unwrap();
    assert_eq!(hello.content, [Content::text("hello over h2")]);
    assert_eq!(
        session.transport().http_version(),
        Some(HttpVersion::Http11)
    );
    session.close().await.unwrap();
}

/// How h2's own server misbehaves with every stream.
#[derive(Clone, Copy, Debug)]
enum Misbehaviour {
    /// `RST_STREAM` with `INTERNAL_ERROR` at once.
    Reset,
    /// An event-stream head and a comment, then GOAWAY with
    /// `INTERNAL_ERROR`, and the connection closed.
    GoAway,
    /// The stream taken and never answered.
    Silent,
    /// A head of about 100 KiB of fields (the client takes 64 KiB).
    HugeHead,
}

fn misbehaving(how: Misbehaviour) -> u16 {
    on_a_server_thread(move |listener| async move {
        let acceptor = tokio_rustls::TlsAcceptor::from(server_tls(&[b"h2"]));
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(mut conn) = h2::server::handshake(tls).await else {
                    return;
                };
                let mut held = Vec::new();
                let mut unanswered = Vec::new();
                while let Some(Ok((_request, mut respond))) = conn.accept().await {
                    match how {
                        Misbehaviour::Reset => respond.send_reset(h2::Reason::INTERNAL_ERROR),
                        Misbehaviour::GoAway => {
                            let head = http::Response::builder()
                                .status(200)
                                .header("content-type", "text/event-stream")
                                .body(())
                                .unwrap();
                            let mut body = respond.send_response(head, false).unwrap();
                            body.send_data(bytes::Bytes::from_static(b": hold on\n\n"), false)
                                .unwrap();
                            conn.abrupt_shutdown(h2::Reason::INTERNAL_ERROR);
                            held.push(body);
                        }
                        Misbehaviour::Silent => unanswered.push(respond),
                        Misbehaviour::HugeHead => {
                            let mut head = http::Response::builder()
                                .status(200)
                                .header("content-type", "application/json");
                            let filler = "x".repeat(1000);
                            for i in 0..100 {
                                head = head.header(format!("x-filler-{i}"), filler.as_str());
                            }
                            let _ = respond.send_response(head.body(()).unwrap(), true);
                        }
                    }
                }
            });
        }
    })
}

/// How [`mcp_over_h2`] answers.
#[derive(Clone, Copy)]
enum Answering {
    /// One request per connection, then a graceful shutdown (GOAWAY); a
    /// stream that comes after on it is refused (`REFUSED_STREAM`).
    OnePerConnection,
    /// Every request, but the first `tools/call` is refused
    /// (`REFUSED_STREAM`: not processed).
    RefusingTheFirstCall,
}

/// An h2 server (h2's own, on tokio-rustls) that answers MCP requests
/// with JSON: discovery, and a tool call's `ok`.
fn mcp_over_h2(how: Answering) -> u16 {
    let refused = Arc::new(std::sync::atomic::AtomicBool::new(false));
    on_a_server_thread(move |listener| async move {
        let acceptor = tokio_rustls::TlsAcceptor::from(server_tls(&[b"h2"]));
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let (acceptor, refused) = (acceptor.clone(), refused.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(mut conn) = h2::server::handshake(tls).await else {
                    return;
                };
                let mut accepted = 0;
                // Each stream is answered on a task of its own: the
                // connection is driven by `accept` alone.
                while let Some(Ok((request, respond))) = conn.accept().await {
                    accepted += 1;
                    if matches!(how, Answering::OnePerConnection) {
                        if accepted > 1 {
                            let mut respond = respond;
                            respond.send_reset(h2::Reason::REFUSED_STREAM);
                            continue;
                        }
                        conn.graceful_shutdown();
                    }
                    tokio::spawn(answer(how, request, respond, refused.clone()));
                }
            });
        }
    })
}

/// Answer one MCP request: discovery, or a tool call's `ok` (the first
/// refused, `REFUSED_STREAM`, when `how` says so).
async fn answer(
    how: Answering,
    request: http::Request<h2::RecvStream>,
    mut respond: h2::server::SendResponse<bytes::Bytes>,
    refused: Arc<std::sync::atomic::AtomicBool>,
) {
    let mut body = request.into_body();
    let mut bytes = Vec::new();
    while let Some(Ok(data)) = body.data().await {
        let _ = body.flow_control().release_capacity(data.len());
        bytes.extend_from_slice(&data);
    }
    let message: Value = serde_json::from_slice(&bytes).unwrap();
    let result = match message["method"].as_str() {
        Some("server/discover") => {
            json!({"supportedVersions": ["2026-07-28"], "capabilities": {}})
        }
        _ => {
            if matches!(how, Answering::RefusingTheFirstCall)
                && !refused.swap(true, Ordering::SeqCst)
            {
                respond.send_reset(h2::Reason::REFUSED_STREAM);
                return;
            }
            json!({"content": [{"type": "text", "text": "ok"}]})
        }
    };
    let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
    let head = http::Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .body(())
        .unwrap();
    let mut out = respond.send_response(head, false).unwrap();
    out.send_data(answer.to_string().into_bytes().into(), true)
        .unwrap();
}

/// A tool call, straight: the session does not send one again by itself
/// (a list it would), so what the transport does is what is seen.
async fn call_ok<T: snodo_client::AsyncTransport, H: Handler + Send>(
    session: &mut AsyncSession<T, H>,
) {
    let result = session
        .request("tools/call", json!({"name": "t", "arguments": {}}))
        .await
        .unwrap();
    assert_eq!(result["content"][0]["text"], "ok");
}

/// A kept HTTP/2 connection the server has shut down (GOAWAY) is not
/// used again: the next request goes on a new connection, whether the
/// client saw the GOAWAY before sending (the stream fails unsent) or
/// after (the stream is refused unprocessed, and sent once more).
async fn after_a_goaway_the_next_request_takes_a_new_connection<R: ClientRuntime>(runtime: R) {
    let (port, connections) = counting(mcp_over_h2(Answering::OnePerConnection));
    let transport = AsyncHttpTransport::new(runtime, &url(port))
        .unwrap()
        .with_tls(&trusting_the_test_ca());
    let mut session = AsyncSession::connect(transport, config(), Seen::default())
        .await
        .unwrap();
    call_ok(&mut session).await;
    call_ok(&mut session).await;
    assert_eq!(session.transport().http_version(), Some(HttpVersion::Http2));
    assert_eq!(
        connections.load(Ordering::SeqCst),
        3,
        "one connection per answer"
    );
}

/// A stream the server refused unprocessed (`REFUSED_STREAM`, RFC 9113
/// § 8.7) is sent once more, on a new connection.
async fn a_refused_stream_goes_once_more<R: ClientRuntime>(runtime: R) {
    let (port, connections) = counting(mcp_over_h2(Answering::RefusingTheFirstCall));
    let transport = AsyncHttpTransport::new(runtime, &url(port))
        .unwrap()
        .with_tls(&trusting_the_test_ca());
    let mut session = AsyncSession::connect(transport, config(), Seen::default())
        .await
        .unwrap();
    call_ok(&mut session).await;
    call_ok(&mut session).await;
    assert_eq!(
        connections.load(Ordering::SeqCst),
        2,
        "the refused call went on a new connection, which served the next"
    );
}

fn misbehaving_port(how: Misbehaviour) -> u16 {
    static RESET: OnceLock<u16> = OnceLock::new();
    static GOAWAY: OnceLock<u16> = OnceLock::new();
    static SILENT: OnceLock<u16> = OnceLock::new();
    static HUGE_HEAD: OnceLock<u16> = OnceLock::new();
    let cell = match how {
        Misbehaviour::Reset => &RESET,
        Misbehaviour::GoAway => &GOAWAY,
        Misbehaviour::Silent => &SILENT,
        Misbehaviour::HugeHead => &HUGE_HEAD,
    };
    *cell.get_or_init(|| misbehaving(how))
}

/// Connect to a misbehaving server with a `timeout` per request: the
/// I/O error it ends with, and how long it took.
async fn connect_to<R: ClientRuntime>(
    runtime: R,
    how: Misbehaviour,
    timeout: Duration,
) -> (io::Error, Duration) {
    let transport = AsyncHttpTransport::new(runtime, &url(misbehaving_port(how)))
        .unwrap()
        .with_tls(&trusting_the_test_ca())
        .with_timeout(timeout);
    let started = Instant::now();
    let outcome = AsyncSession::connect(transport, config(), Seen::default()).await;
    let took = started.elapsed();
    match outcome {
        Err(Error::Transport(TransportError::Io(e))) => (e, took),
        Err(other) => panic!("{how:?}: {other:?}"),
        Ok(_) => panic!("{how:?}: connected"),
    }
}

async fn a_reset_stream_is_an_error_that_says_so<R: ClientRuntime>(runtime: R) {
    let (e, took) = connect_to(runtime, Misbehaviour::Reset, Duration::from_secs(10)).await;
    assert_eq!(e.kind(), io::ErrorKind::ConnectionReset, "{e}");
    let text = e.to_string();
    assert!(text.contains("reset the HTTP/2 stream"), "{text}");
    assert!(text.contains("INTERNAL_ERROR"), "{text}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

async fn a_goaway_mid_answer_is_an_error_that_says_so<R: ClientRuntime>(runtime: R) {
    let (e, took) = connect_to(runtime, Misbehaviour::GoAway, Duration::from_secs(10)).await;
    assert_eq!(e.kind(), io::ErrorKind::ConnectionAborted, "{e}");
    let text = e.to_string();
    // The GOAWAY let this stream (the last it names) finish, so the
    // connection's close is what cuts it off; a stream beyond the
    // GOAWAY's last one is told the GOAWAY and its reason.
    assert!(
        text.contains("the HTTP/2 connection closed before the answer's end")
            || text.contains("the server closed the HTTP/2 connection (GOAWAY"),
        "{text}"
    );
    if text.contains("GOAWAY") {
        assert!(text.contains("INTERNAL_ERROR"), "{text}");
    }
    assert!(took < Duration::from_secs(5), "{took:?}");
}

/// A server whose answer's head is larger than the client takes
/// (`MAX_HEADER_LIST`, 64 KiB: what the HTTP/1.1 decoder takes too): an
/// error at once, not a head held in memory, nor a hang.
async fn a_head_past_the_header_list_limit_is_refused<R: ClientRuntime>(runtime: R) {
    let (e, took) = connect_to(runtime, Misbehaviour::HugeHead, Duration::from_secs(10)).await;
    assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
    let text = e.to_string();
    assert!(text.contains("HTTP/2 answer was refused"), "{text}");
    assert!(!text.contains("the server reset"), "{text}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

async fn a_silent_stream_is_held_to_the_deadline<R: ClientRuntime>(runtime: R) {
    let (e, took) = connect_to(runtime, Misbehaviour::Silent, Duration::from_millis(300)).await;
    assert_eq!(e.kind(), io::ErrorKind::TimedOut, "{e}");
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");
}

on_each_runtime!(a_session_runs_on_one_h2_connection);
on_each_runtime!(a_2025_session_multiplexes_its_get_stream);
on_each_runtime!(an_http1_server_is_spoken_http1);
on_each_runtime!(http1_only_offers_http1_alone);
on_each_runtime!(a_reset_stream_is_an_error_that_says_so);
on_each_runtime!(a_goaway_mid_answer_is_an_error_that_says_so);
on_each_runtime!(a_silent_stream_is_held_to_the_deadline);
on_each_runtime!(a_head_past_the_header_list_limit_is_refused);
on_each_runtime!(after_a_goaway_the_next_request_takes_a_new_connection);
on_each_runtime!(a_refused_stream_goes_once_more);
