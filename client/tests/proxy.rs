//! The transports through an HTTP proxy written here (a std listener and
//! a thread per connection), which keeps the literal bytes it receives:
//! an `http://` endpoint's requests in absolute form (RFC 9112 § 3.2.2)
//! with `Proxy-Authorization`, an `https://` endpoint's `CONNECT` tunnel
//! (RFC 9110 § 9.3.6) to snodo's own TLS listener, TLS naming the origin;
//! 407 and other refusals as typed errors; `NO_PROXY` going direct. On the
//! blocking transport and the async one on tokio. The environment is
//! never read: settings come from a map (`ProxySettings::from_vars`), so
//! no test races another over process variables.

#![cfg(all(feature = "tokio", feature = "smol", feature = "threads"))]

#[macro_use]
mod common;
use common::{on_smol, on_threads, on_tokio, pki};

use std::collections::{HashMap, VecDeque};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::json;
use snodo_client::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use snodo_client::{
    AsyncHttpTransport, AsyncSession, ClientRuntime, Error, HttpTransport, HttpVersion, NoInput,
    Proxy, ProxyError, ProxySettings, Session, TlsConfig, TransportError,
};
use snodo_proto::client::{ClientConfig, Wire};
use snodo_proto::{CallToolResult, Content, NoArgs, Service, Tool};

/// What the test proxy does with what it is sent.
#[derive(Clone)]
enum Behaviour {
    /// Answer each request itself with the next of these (the origin
    /// behind a forwarding proxy, faked).
    Answer(Arc<Mutex<VecDeque<&'static [u8]>>>),
    /// Open the tunnels `CONNECT` asks for, to wherever it names.
    Tunnel,
    /// Answer the first request with these bytes and close.
    Refuse(&'static [u8]),
    /// Read the first request and never answer (the connection held).
    Silent,
    /// Answer each request with what this function picks for it (when
    /// requests go on connections of their own at once, their order is
    /// not the test's to fix).
    Pick(fn(&str) -> &'static [u8]),
}

/// The requests' heads (and bodies) as the proxy received them, in order.
type Log = Arc<Mutex<Vec<String>>>;

/// A proxy on an ephemeral port behaving as `behaviour`: its URL
/// (`http://[user:p%40ss@]127.0.0.1:PORT`) and what it received.
fn proxy(behaviour: Behaviour, credentials: bool) -> (String, Log) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let log: Log = Arc::default();
    let seen = log.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let (behaviour, seen) = (behaviour.clone(), seen.clone());
            std::thread::spawn(move || serve(conn.unwrap(), behaviour, seen));
        }
    });
    let url = match credentials {
        true => format!("http://user:p%40ss@127.0.0.1:{port}"),
        false => format!("http://127.0.0.1:{port}"),
    };
    (url, log)
}

fn serve(mut conn: TcpStream, behaviour: Behaviour, seen: Log) {
    while let Some(request) = read_request(&mut conn) {
        seen.lock().unwrap().push(request.clone());
        match &behaviour {
            Behaviour::Answer(answers) => {
                let Some(answer) = answers.lock().unwrap().pop_front() else {
                    return;
                };
                conn.write_all(answer).unwrap();
            }
            Behaviour::Pick(pick) => conn.write_all(pick(&request)).unwrap(),
            Behaviour::Silent => {
                std::thread::sleep(std::time::Duration::from_secs(30));
                return;
            }
            Behaviour::Refuse(answer) => {
                let _ = conn.write_all(answer);
                return;
            }
            Behaviour::Tunnel => {
                // `CONNECT localhost:PORT HTTP/1.1`: the authority form.
                let target = request
                    .strip_prefix("CONNECT ")
                    .and_then(|r| r.split(' ').next())
                    .expect("a CONNECT")
                    .to_owned();
                let origin = TcpStream::connect(target).unwrap();
                conn.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .unwrap();
                splice(conn, origin);
                return;
            }
        }
    }
}

/// Copy bytes both ways until either side ends.
fn splice(client: TcpStream, origin: TcpStream) {
    let (mut c_read, mut o_write) = (client.try_clone().unwrap(), origin.try_clone().unwrap());
    let up = std::thread::spawn(move || {
        let _ = std::io::copy(&mut c_read, &mut o_write);
        let _ = o_write.shutdown(std::net::Shutdown::Write);
    });
    let (mut o_read, mut c_write) = (origin, client);
    let _ = std::io::copy(&mut o_read, &mut c_write);
    let _ = c_write.shutdown(std::net::Shutdown::Write);
    let _ = up.join();
}

/// One request, head and `Content-Length` body; `None` at the end of input.
fn read_request(conn: &mut impl Read) -> Option<String> {
    let mut request = Vec::new();
    let mut byte = [0u8; 1];
    // A byte at a time: nothing past this request (a tunnel's first TLS
    // record) is taken from the socket.
    loop {
        match conn.read(&mut byte) {
            Ok(0) | Err(_) => return None,
            Ok(_) => request.push(byte[0]),
        }
        if request.ends_with(b"\r\n\r\n") {
            break;
        }
    }
    let head = String::from_utf8(request.clone()).unwrap();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .map_or(0, |v| v.trim().parse().unwrap());
    let mut body = vec![0u8; len];
    conn.read_exact(&mut body).ok()?;
    request.extend_from_slice(&body);
    Some(String::from_utf8(request).unwrap())
}

const DISCOVER: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 88\r\n\r\n\
{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{}}}";

const TOOLS: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 46\r\n\r\n\
{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[]}}";

const NEEDS_AUTH: &[u8] = b"HTTP/1.1 407 Proxy Authentication Required\r\n\
Proxy-Authenticate: Basic realm=\"snodo-test\"\r\nContent-Length: 0\r\n\r\n";

/// base64("user:p@ss"), the proxy URL's credentials decoded.
const BASIC: &str = "Proxy-Authorization: Basic dXNlcjpwQHNz\r\n";

fn answering(answers: Vec<&'static [u8]>) -> Behaviour {
    Behaviour::Answer(Arc::new(Mutex::new(answers.into())))
}

/// Settings as an environment would give them, from a map.
fn from_vars(pairs: &[(&str, &str)]) -> ProxySettings {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    ProxySettings::from_vars(|name| map.get(name).cloned()).unwrap()
}

/// An origin port nothing answers on: the listener is held, never
/// accepted, so a connection that went there instead of to the proxy is
/// seen (a non-blocking accept finds it).
fn unreached_origin() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

fn assert_unreached(origin: &TcpListener) {
    assert!(
        origin.accept().is_err(),
        "a connection went to the origin, not the proxy"
    );
}

fn config() -> ClientConfig {
    ClientConfig::new("proxy", "1", Wire::Http)
}

/// The proxy received discover then tools/list, each in absolute form,
/// each with the proxy's credentials.
fn assert_forwarded(log: &Log, origin: u16) {
    let requests = log.lock().unwrap().clone();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let head = format!(
        "POST http://127.0.0.1:{origin}/mcp HTTP/1.1\r\nHost: 127.0.0.1:{origin}\r\n\
Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
    );
    for request in &requests {
        assert!(request.starts_with(&head), "{request}");
        assert!(request.contains(&format!("\r\n{BASIC}")), "{request}");
    }
    assert!(requests[1].contains("\r\nMcp-Method: tools/list\r\n"));
}

#[test]
fn blocking_http_goes_to_the_proxy_in_absolute_form_with_its_credentials() {
    let (proxy_url, log) = proxy(answering(vec![DISCOVER, TOOLS]), true);
    let (origin, port) = unreached_origin();
    let transport = HttpTransport::new(&format!("http://127.0.0.1:{port}/mcp"))
        .unwrap()
        .with_proxy(&ProxySettings::all(Proxy::parse(&proxy_url).unwrap()));
    let mut session = Session::connect(transport, config(), NoInput).unwrap();
    assert!(session.list_tools().unwrap().is_empty());
    assert_forwarded(&log, port);
    assert_unreached(&origin);
}

#[test]
fn tokio_http_goes_to_the_proxy_in_absolute_form_with_its_credentials() {
    let (proxy_url, log) = proxy(answering(vec![DISCOVER, TOOLS]), true);
    let (origin, port) = unreached_origin();
    // From the environment's names: `http_proxy` for an http:// endpoint.
    let settings = from_vars(&[("http_proxy", &proxy_url)]);
    on_tokio(|rt| async move {
        let transport = AsyncHttpTransport::new(rt, &format!("http://127.0.0.1:{port}/mcp"))
            .unwrap()
            .with_proxy(&settings);
        let mut session = AsyncSession::connect(transport, config(), NoInput)
            .await
            .unwrap();
        assert!(session.list_tools().await.unwrap().is_empty());
    });
    assert_forwarded(&log, port);
    assert_unreached(&origin);
}

#[test]
fn no_proxy_sends_the_host_direct() {
    let (proxy_url, log) = proxy(answering(vec![DISCOVER, TOOLS]), false);
    // The origin this time answers, itself.
    let (origin_url, origin_log) = proxy(answering(vec![DISCOVER, TOOLS]), false);
    let port = origin_url.rsplit(':').next().unwrap().to_owned();
    let settings = from_vars(&[
        ("HTTP_PROXY", &proxy_url),
        ("NO_PROXY", "example.com"),
        ("no_proxy", "localhost, 127.0.0.0/8"),
    ]);
    let transport = HttpTransport::new(&format!("http://127.0.0.1:{port}/mcp"))
        .unwrap()
        .with_proxy(&settings);
    let mut session = Session::connect(transport, config(), NoInput).unwrap();
    assert!(session.list_tools().unwrap().is_empty());
    assert!(log.lock().unwrap().is_empty());
    let requests = origin_log.lock().unwrap().clone();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert!(
            request.starts_with(&format!("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n")),
            "{request}"
        );
        assert!(!request.contains("Proxy-Authorization"), "{request}");
    }
}

/// An initialize-era session (2025-11-25): its POSTs, its GET stream and
/// its closing DELETE all go to the proxy in absolute form with the
/// proxy's credentials. The GET and the DELETE may cross: each request
/// gets the answer its method and message call for.
fn initialize_era_answer(request: &str) -> &'static [u8] {
    let answer = if request.starts_with("GET ") {
        2
    } else if request.starts_with("DELETE ") {
        3
    } else if request.contains("\"method\":\"initialize\"") {
        0
    } else {
        1
    };
    INITIALIZE_ERA[answer]
}

const INITIALIZE_ERA: [&[u8]; 4] = [
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: abc-123\r\nContent-Length: 84\r\n\r\n\
{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}",
    b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n",
    // The GET stream: this server offers none.
    b"HTTP/1.1 405 Method Not Allowed\r\nAllow: POST, DELETE\r\nContent-Length: 0\r\n\r\n",
    b"HTTP/1.1 204 No Content\r\n\r\n",
];

fn assert_initialize_era_forwarded(log: &Log, origin: u16) {
    // The GET may reach the proxy after the session is closed (it went
    // on a connection of its own): wait for it a while.
    let waited = std::time::Instant::now();
    while log.lock().unwrap().len() < 4 && waited.elapsed().as_secs() < 5 {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let mut requests = log.lock().unwrap().clone();
    assert_eq!(requests.len(), 4, "{requests:?}");
    // POST, POST in this order; then the GET and the DELETE, in either.
    requests[2..].sort_by_key(|r| !r.starts_with("GET "));
    let methods = ["POST", "POST", "GET", "DELETE"];
    for (request, method) in requests.iter().zip(methods) {
        assert!(
            request.starts_with(&format!(
                "{method} http://127.0.0.1:{origin}/mcp HTTP/1.1\r\nHost: 127.0.0.1:{origin}\r\n"
            )),
            "{request}"
        );
        assert!(request.contains(&format!("\r\n{BASIC}")), "{request}");
    }
    assert!(requests[1].contains("\"method\":\"notifications/initialized\""));
    assert!(requests[3].contains("\r\nMcp-Session-Id: abc-123\r\n"));
}

fn initialize_era() -> ClientConfig {
    let mut config = config();
    config.versions = vec![String::from("2025-11-25")];
    config
}

#[test]
fn blocking_initialize_era_get_and_delete_go_through_the_proxy() {
    let (proxy_url, log) = proxy(Behaviour::Pick(initialize_era_answer), true);
    let (origin, port) = unreached_origin();
    let transport = HttpTransport::new(&format!("http://127.0.0.1:{port}/mcp"))
        .unwrap()
        .with_proxy(&ProxySettings::all(Proxy::parse(&proxy_url).unwrap()));
    let session = Session::connect(transport, initialize_era(), NoInput).unwrap();
    session.close().unwrap();
    assert_initialize_era_forwarded(&log, port);
    assert_unreached(&origin);
}

#[test]
fn tokio_initialize_era_get_and_delete_go_through_the_proxy() {
    let (proxy_url, log) = proxy(Behaviour::Pick(initialize_era_answer), true);
    let (origin, port) = unreached_origin();
    on_tokio(|rt| async move {
        let transport = AsyncHttpTransport::new(rt, &format!("http://127.0.0.1:{port}/mcp"))
            .unwrap()
            .with_proxy(&ProxySettings::all(Proxy::parse(&proxy_url).unwrap()));
        let session = AsyncSession::connect(transport, initialize_era(), NoInput)
            .await
            .unwrap();
        session.close().await.unwrap();
    });
    assert_initialize_era_forwarded(&log, port);
    assert_unreached(&origin);
}

/// A 407 to a forwarded request is the proxy's refusal, not the server's.
fn assert_needs_auth<T>(outcome: Result<T, Error>) {
    match outcome {
        Err(Error::Transport(TransportError::Proxy(ProxyError::AuthRequired { challenges }))) => {
            assert_eq!(challenges, ["Basic realm=\"snodo-test\""]);
        }
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("connected"),
    }
}

#[test]
fn blocking_http_407_is_a_proxy_error() {
    let (proxy_url, _) = proxy(Behaviour::Refuse(NEEDS_AUTH), false);
    let (_origin, port) = unreached_origin();
    let transport = HttpTransport::new(&format!("http://127.0.0.1:{port}/mcp"))
        .unwrap()
        .with_proxy(&ProxySettings::all(Proxy::parse(&proxy_url).unwrap()));
    assert_needs_auth(Session::connect(transport, config(), NoInput));
}

#[test]
fn tokio_http_407_is_a_proxy_error() {
    let (proxy_url, _) = proxy(Behaviour::Refuse(NEEDS_AUTH), false);
    let (_origin, port) = unreached_origin();
    on_tokio(|rt| async move {
        let transport = AsyncHttpTransport::new(rt, &format!("http://127.0.0.1:{port}/mcp"))
            .unwrap()
            .with_proxy(&ProxySettings::all(Proxy::parse(&proxy_url).unwrap()));
        assert_needs_auth(AsyncSession::connect(transport, config(), NoInput).await);
    });
}

// ---- https:// through CONNECT, to snodo's TLS listener ----

/// One TLS server (snodo-hyper) for the test binary: its port and the
/// PEM of its CA. Its certificate names `localhost` only: a client that
/// checked it against the proxy's address (127.0.0.1) would refuse it.
fn tls_server() -> &'static (u16, String) {
    static SERVER: OnceLock<(u16, String)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let pki = pki("snodo proxy test CA");
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pki.key));
        let config = snodo_hyper::tls::config(vec![pki.leaf], key).unwrap();
        let service = Service::builder()
            .tool(Tool::new("hello", "Say hello"), |_: NoArgs| async {
                CallToolResult::text("hello through the tunnel")
            })
            .build()
            .unwrap();
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
                snodo_hyper::serve_tls(
                    &service,
                    listener,
                    config,
                    std::future::pending(),
                    snodo_hyper::Options::default(),
                )
                .await
            })
        });
        (rx.recv().unwrap(), pki.ca_pem)
    })
}

fn trusting_the_test_ca() -> TlsConfig {
    TlsConfig::no_roots()
        .with_root_pem(tls_server().1.as_bytes())
        .unwrap()
}

fn https_url() -> String {
    format!("https://localhost:{}/mcp", tls_server().0)
}

fn assert_hello(result: &CallToolResult) {
    assert_eq!(result.content, [Content::text("hello through the tunnel")]);
}

/// `CONNECT localhost:PORT`, `Host` the same, the proxy's credentials:
/// byte for byte, and nothing else (the rest went through the tunnel).
fn assert_connects(log: &Log, count: usize) {
    let port = tls_server().0;
    let connect =
        format!("CONNECT localhost:{port} HTTP/1.1\r\nHost: localhost:{port}\r\n{BASIC}\r\n");
    assert_eq!(*log.lock().unwrap(), vec![connect; count]);
}

#[test]
fn blocking_https_goes_through_a_connect_tunnel() {
    let (proxy_url, log) = proxy(Behaviour::Tunnel, true);
    let settings = from_vars(&[("https_proxy", &proxy_url), ("NO_PROXY", "example.com")]);
    let transport = HttpTransport::new(&https_url())
        .unwrap()
        .with_tls(&trusting_the_test_ca())
        .with_proxy(&settings);
    let mut session = Session::connect(transport, config(), NoInput).unwrap();
    assert_hello(&session.call_tool("hello", json!({})).unwrap());
    // A connection (so a tunnel) per request on the blocking transport:
    // discover, tools/list (the call's output schema), tools/call.
    let n = log.lock().unwrap().len();
    assert!(n >= 2, "{n}");
    assert_connects(&log, n);
}

/// On each runtime: the async transport's TLS (one adapter over every
/// runtime's connection) inside the tunnel.
async fn async_https_goes_through_a_connect_tunnel<R: ClientRuntime>(runtime: R) {
    let (proxy_url, log) = proxy(Behaviour::Tunnel, true);
    let settings = ProxySettings::all(Proxy::parse(&proxy_url).unwrap());
    let transport = AsyncHttpTransport::new(runtime, &https_url())
        .unwrap()
        .with_tls(&trusting_the_test_ca())
        .with_proxy(&settings);
    let mut session = AsyncSession::connect(transport, config(), NoInput)
        .await
        .unwrap();
    assert_hello(&session.call_tool("hello", json!({})).await.unwrap());
    assert_hello(&session.call_tool("hello", json!({})).await.unwrap());
    // The connection is kept: one tunnel for every request.
    assert_connects(&log, 1);
    // Inside the tunnel the origin picked `h2` by ALPN (with the feature).
    let expected = if cfg!(feature = "http2") {
        HttpVersion::Http2
    } else {
        HttpVersion::Http11
    };
    assert_eq!(session.transport().http_version(), Some(expected));
}

mod async_https_goes_through_a_connect_tunnel {
    #[test]
    fn on_tokio() {
        super::on_tokio(super::async_https_goes_through_a_connect_tunnel)
    }

    #[test]
    fn on_smol() {
        super::on_smol(super::async_https_goes_through_a_connect_tunnel)
    }

    #[test]
    fn on_threads() {
        super::on_threads(super::async_https_goes_through_a_connect_tunnel)
    }
}

/// A proxy that takes the `CONNECT` and never answers holds the client
/// no longer than its connect timeout.
#[test]
fn blocking_a_silent_proxy_times_out() {
    let (proxy_url, _) = proxy(Behaviour::Silent, false);
    let transport = HttpTransport::new(&https_url())
        .unwrap()
        .with_connect_timeout(std::time::Duration::from_millis(300))
        .with_proxy(&ProxySettings::all(Proxy::parse(&proxy_url).unwrap()));
    let started = std::time::Instant::now();
    match Session::connect(transport, config(), NoInput) {
        Err(Error::Transport(TransportError::Io(e))) => {
            assert_eq!(e.kind(), std::io::ErrorKind::TimedOut, "{e}");
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn tokio_a_silent_proxy_times_out() {
    let (proxy_url, _) = proxy(Behaviour::Silent, false);
    on_tokio(|rt| async move {
        let transport = AsyncHttpTransport::new(rt, &https_url())
            .unwrap()
            .with_connect_timeout(std::time::Duration::from_millis(300))
            .with_proxy(&ProxySettings::all(Proxy::parse(&proxy_url).unwrap()));
        let started = std::time::Instant::now();
        match AsyncSession::connect(transport, config(), NoInput).await {
            Err(Error::Transport(TransportError::Io(e))) => {
                assert_eq!(e.kind(), std::io::ErrorKind::TimedOut, "{e}");
            }
            other => panic!("{:?}", other.map(|_| ())),
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    });
}

#[test]
fn blocking_connect_407_is_a_proxy_error() {
    let (proxy_url, log) = proxy(Behaviour::Refuse(NEEDS_AUTH), false);
    let transport = HttpTransport::new(&https_url())
        .unwrap()
        .with_tls(&trusting_the_test_ca())
        .with_proxy(&ProxySettings::all(Proxy::parse(&proxy_url).unwrap()));
    assert_needs_auth(Session::connect(transport, config(), NoInput));
    let port = tls_server().0;
    assert_eq!(
        *log.lock().unwrap(),
        [format!(
            "CONNECT localhost:{port} HTTP/1.1\r\nHost: localhost:{port}\r\n\r\n"
        )]
    );
}

#[test]
fn tokio_connect_407_is_a_proxy_error() {
    let (proxy_url, _) = proxy(Behaviour::Refuse(NEEDS_AUTH), false);
    on_tokio(|rt| async move {
        let transport = AsyncHttpTransport::new(rt, &https_url())
            .unwrap()
            .with_tls(&trusting_the_test_ca())
            .with_proxy(&ProxySettings::all(Proxy::parse(&proxy_url).unwrap()));
        assert_needs_auth(AsyncSession::connect(transport, config(), NoInput).await);
    });
}

#[test]
fn a_connect_refused_carries_its_status() {
    let (proxy_url, _) = proxy(
        Behaviour::Refuse(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n"),
        true,
    );
    let transport = HttpTransport::new(&https_url())
        .unwrap()
        .with_tls(&trusting_the_test_ca())
        .with_proxy(&ProxySettings::all(Proxy::parse(&proxy_url).unwrap()));
    match Session::connect(transport, config(), NoInput) {
        Err(Error::Transport(TransportError::Proxy(ProxyError::Refused(403)))) => {}
        other => panic!("{:?}", other.map(|_| ())),
    }
}

/// An `https://` origin written here (rustls over a std socket, a
/// certificate for `localhost` from a CA of its own), answering each
/// request with the next of `answers` and keeping the plaintext it got:
/// what the origin reads inside the tunnel. Its port, its CA, its log.
/// It speaks HTTP/1.1 alone, so it offers `http/1.1` alone by ALPN (a
/// client that offers `h2` too falls back to HTTP/1.1 with it).
fn tls_origin(answers: Vec<&'static [u8]>) -> (u16, TlsConfig, Log) {
    let pki = pki("snodo proxy test CA");
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pki.key));
    let config = snodo_hyper::tls::config(vec![pki.leaf], key).unwrap();
    let mut config = (*config).clone();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let answers = Arc::new(Mutex::new(VecDeque::from(answers)));
    let log: Log = Arc::default();
    let seen = log.clone();
    std::thread::spawn(move || {
        for tcp in listener.incoming() {
            let (config, answers, seen) = (config.clone(), answers.clone(), seen.clone());
            std::thread::spawn(move || {
                let conn = snodo_client::rustls::ServerConnection::new(config).unwrap();
                let mut tls = snodo_client::rustls::StreamOwned::new(conn, tcp.unwrap());
                while let Some(request) = read_request(&mut tls) {
                    seen.lock().unwrap().push(request);
                    let Some(answer) = answers.lock().unwrap().pop_front() else {
                        return;
                    };
                    tls.write_all(answer).unwrap();
                    tls.flush().unwrap();
                }
            });
        }
    });
    let roots = TlsConfig::no_roots()
        .with_root_pem(pki.ca_pem.as_bytes())
        .unwrap();
    (port, roots, log)
}

/// Inside the tunnel the origin read origin-form requests, and never the
/// proxy's credentials.
fn assert_origin_saw_no_proxy_credentials(origin: &Log, port: u16) {
    let requests = origin.lock().unwrap().clone();
    assert_eq!(requests.len(), 2, "{requests:?}");
    for request in &requests {
        assert!(
            request.starts_with(&format!("POST /mcp HTTP/1.1\r\nHost: localhost:{port}\r\n")),
            "{request}"
        );
        assert!(!request.contains("Proxy-Authorization"), "{request}");
        assert!(!request.contains("dXNlcjpwQHNz"), "{request}");
    }
}

#[test]
fn blocking_the_origin_never_sees_the_proxy_credentials() {
    let (port, roots, origin) = tls_origin(vec![DISCOVER, TOOLS]);
    let (proxy_url, log) = proxy(Behaviour::Tunnel, true);
    let transport = HttpTransport::new(&format!("https://localhost:{port}/mcp"))
        .unwrap()
        .with_tls(&roots)
        .with_proxy(&ProxySettings::all(Proxy::parse(&proxy_url).unwrap()));
    let mut session = Session::connect(transport, config(), NoInput).unwrap();
    assert!(session.list_tools().unwrap().is_empty());
    assert_origin_saw_no_proxy_credentials(&origin, port);
    let connect =
        format!("CONNECT localhost:{port} HTTP/1.1\r\nHost: localhost:{port}\r\n{BASIC}\r\n");
    assert_eq!(*log.lock().unwrap(), vec![connect; 2]);
}

#[test]
fn tokio_the_origin_never_sees_the_proxy_credentials() {
    let (port, roots, origin) = tls_origin(vec![DISCOVER, TOOLS]);
    let (proxy_url, log) = proxy(Behaviour::Tunnel, true);
    on_tokio(|rt| async move {
        let transport = AsyncHttpTransport::new(rt, &format!("https://localhost:{port}/mcp"))
            .unwrap()
            .with_tls(&roots)
            .with_proxy(&ProxySettings::all(Proxy::parse(&proxy_url).unwrap()));
        let mut session = AsyncSession::connect(transport, config(), NoInput)
            .await
            .unwrap();
        assert!(session.list_tools().await.unwrap().is_empty());
        // The origin offered `http/1.1` alone: the client fell back to it.
        assert_eq!(
            session.transport().http_version(),
            Some(HttpVersion::Http11)
        );
    });
    assert_origin_saw_no_proxy_credentials(&origin, port);
    assert_eq!(log.lock().unwrap().len(), 1);
}

/// The proxy's host is looked up at each connection, as the endpoint's
/// is: a proxy name that does not resolve (`.invalid` never does) makes a
/// transport, and its first connection fails with the resolver's error.
#[test]
fn the_proxy_host_is_resolved_at_connection() {
    let transport = HttpTransport::new("http://127.0.0.1:9/mcp")
        .unwrap()
        .with_proxy(&ProxySettings::all(
            Proxy::parse("http://snodo-proxy-test.invalid:3128").unwrap(),
        ));
    match Session::connect(transport, config(), NoInput) {
        Err(Error::Transport(TransportError::Io(_))) => {}
        other => panic!("{:?}", other.map(|_| ())),
    }
}
