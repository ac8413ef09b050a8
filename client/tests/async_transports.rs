//! The async transports, written once over `ClientRuntime`, on tokio and
//! smol against snodo's own server on the same runtime: a tool call with
//! an MRTR round, and a run of calls on one kept-alive connection. Then,
//! on tokio, smol and plain threads (`on_each_runtime!`): the request
//! deadline (HTTP and stdio, also against a server that trickles bytes),
//! `listen` on the async session (HTTP and
//! stdio), and the stdio child killed when the transport is dropped.

#![cfg(all(feature = "tokio", feature = "smol"))]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Value};
use snodo_client::{AsyncHttpTransport, AsyncStdioTransport, AsyncTransport, ClientRuntime};
use snodo_proto::client::{Client, ClientConfig, Event, OpId, Wire};
use snodo_proto::{
    CallToolResult, Context, ElicitAction, ElicitRequest, InputRequired, NoArgs, Reply, Service,
    Tool,
};

#[derive(Deserialize)]
struct Name {
    name: String,
}

fn service() -> Service {
    Service::builder()
        .tool(
            Tool::new("greet", "Greets whoever answers"),
            |_: NoArgs, ctx: Context| async move {
                match ctx.elicitation("who") {
                    Some(r) if r.action == ElicitAction::Accept => {
                        let name = r.content_as::<Name>().map_or(String::from("?"), |n| n.name);
                        Reply::Complete(CallToolResult::text(format!("Hello, {name}!")))
                    }
                    _ => InputRequired::new()
                        .elicit(
                            "who",
                            ElicitRequest::form(
                                "Who is there?",
                                json!({"type": "object", "properties": {"name": {"type": "string"}}}),
                            ),
                        )
                        .into(),
                }
            },
        )
        .build()
        .expect("a valid service")
}

/// Send what the machine queued and read until `op` has an outcome.
async fn outcome<T: AsyncTransport>(transport: &mut T, client: &mut Client, op: OpId) -> Event {
    loop {
        while let Some(t) = client.poll_transmit() {
            transport.send(t, client, &mut |_| {}).await.expect("sent");
        }
        while let Some(event) = client.poll_event() {
            match &event {
                Event::Completed { op: o, .. }
                | Event::Failed { op: o, .. }
                | Event::InputRequired { op: o, .. }
                    if *o == op =>
                {
                    return event
                }
                _ => {}
            }
        }
        assert!(transport.receive(client).await.expect("read"), "no answer");
    }
}

fn text(event: &Event) -> String {
    match event {
        Event::Completed { result, .. } => result["content"][0]["text"].as_str().unwrap().into(),
        other => panic!("{other:?}"),
    }
}

/// discover, then `greet` twice (each an MRTR round answered), all on
/// one transport.
async fn greet_twice<T: AsyncTransport>(mut transport: T, wire: Wire) {
    let mut config = ClientConfig::new("t", "1", wire);
    config.capabilities.insert("elicitation".into(), json!({}));
    let mut client = Client::new(config);
    let op = client.discover();
    assert!(matches!(
        outcome(&mut transport, &mut client, op).await,
        Event::Completed { .. }
    ));
    for name in ["Ada", "Grace"] {
        let op = client.request("tools/call", json!({"name": "greet", "arguments": {}}));
        match outcome(&mut transport, &mut client, op).await {
            Event::InputRequired { requests, .. } => {
                assert_eq!(requests["who"]["method"], "elicitation/create");
            }
            other => panic!("{other:?}"),
        }
        let mut answers = serde_json::Map::new();
        answers.insert(
            "who".into(),
            json!({"action": "accept", "content": {"name": name}}),
        );
        client.answer(op, answers).unwrap();
        assert_eq!(
            text(&outcome(&mut transport, &mut client, op).await),
            format!("Hello, {name}!")
        );
    }
}

type Serve = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Serve `service` over Streamable HTTP on tokio, on an ephemeral port.
async fn serve_on_tokio(service: Service) -> std::net::SocketAddr {
    let listener = snodo_tokio::bind_http("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server: Serve = Box::pin(async move {
        let _ = snodo_tokio::serve_http(
            &service,
            listener,
            std::future::pending(),
            snodo_tokio::Options::default(),
        )
        .await;
    });
    tokio::spawn(server);
    addr
}

/// tokio, counting the connections the transport opens.
#[derive(Clone)]
struct Counting(Arc<AtomicUsize>);

impl snodo_driver::Runtime for Counting {
    type Timer = <snodo_tokio::Tokio as snodo_driver::Runtime>::Timer;

    fn now(&self) -> std::time::Instant {
        snodo_tokio::Tokio.now()
    }

    fn timer(&self, at: std::time::Instant) -> Self::Timer {
        snodo_tokio::Tokio.timer(at)
    }

    fn spawn<F: Future<Output = ()> + Send + 'static>(&self, future: F) {
        snodo_tokio::Tokio.spawn(future)
    }

    fn executor(&self) -> Arc<dyn snodo_proto::blocking::Executor> {
        snodo_tokio::Tokio.executor()
    }
}

impl ClientRuntime for Counting {
    async fn connect(
        &self,
        addrs: Vec<std::net::SocketAddr>,
    ) -> std::io::Result<(snodo_client::Reader, snodo_client::Writer)> {
        self.0.fetch_add(1, Ordering::SeqCst);
        snodo_tokio::Tokio.connect(addrs).await
    }

    fn spawn_process(
        &self,
        command: std::process::Command,
    ) -> std::io::Result<(
        Box<dyn snodo_client::ChildProcess>,
        snodo_client::Writer,
        snodo_client::Reader,
    )> {
        snodo_tokio::Tokio.spawn_process(command)
    }

    fn unblock<T, F>(&self, work: F) -> impl Future<Output = T> + Send
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        snodo_tokio::Tokio.unblock(work)
    }
}

#[test]
fn over_http_on_tokio() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let addr = serve_on_tokio(service()).await;
        let connects = Arc::new(AtomicUsize::new(0));
        let transport =
            AsyncHttpTransport::new(Counting(connects.clone()), &format!("http://{addr}/mcp"))
                .unwrap();
        greet_twice(transport, Wire::Http).await;
        // Five POSTs (discover, two calls of two rounds): one connection,
        // kept alive between them.
        assert_eq!(connects.load(Ordering::SeqCst), 1);
    });
}

#[test]
fn over_http_on_smol() {
    let ex = Arc::new(smol::Executor::new());
    let runtime = snodo_smol::Smol(ex.clone());
    smol::block_on(ex.run(async {
        let listener = snodo_smol::bind_http("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let service = service();
        let server = snodo_smol::serve_http(
            &ex,
            &service,
            listener,
            std::future::pending(),
            snodo_smol::Options::default(),
        );
        ex.spawn(async move {
            let _ = server.await;
        })
        .detach();
        let transport = AsyncHttpTransport::new(runtime, &format!("http://{addr}/mcp")).unwrap();
        greet_twice(transport, Wire::Http).await;
    }));
}

/// A server in sh: it answers the discover (id 1) with a literal
/// result, then exits; the transport reads the line, then the end.
fn sh_server() -> std::process::Command {
    let mut command = std::process::Command::new("sh");
    command.arg("-c").arg(
        r#"read line; printf '%s\n' 'not json' '{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"sh","version":"1"}}}}'"#,
    );
    command
}

async fn discover_over_stdio<R: ClientRuntime>(runtime: R) {
    let mut transport = AsyncStdioTransport::spawn(runtime, sh_server()).unwrap();
    let mut client = Client::new(ClientConfig::new("t", "1", Wire::Stdio));
    let op = client.discover();
    match outcome(&mut transport, &mut client, op).await {
        Event::Completed { result, .. } => {
            assert_eq!(result["supportedVersions"], json!(["2026-07-28"]))
        }
        other => panic!("{other:?}"),
    }
    let op = client.request("tools/list", Value::Null);
    let t = client.poll_transmit().unwrap();
    transport.send(t, &mut client, &mut |_| {}).await.ok();
    let _ = op;
    // The server has exited: the end of its stdout is an error.
    assert!(matches!(
        transport.receive(&mut client).await,
        Err(snodo_client::TransportError::Closed)
    ));
    transport.close(std::time::Duration::from_millis(200)).await;
}

#[test]
fn over_stdio_on_tokio() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(discover_over_stdio(snodo_tokio::Tokio));
}

#[test]
fn over_stdio_on_smol() {
    let ex = Arc::new(smol::Executor::new());
    let runtime = snodo_smol::Smol(ex.clone());
    smol::block_on(ex.run(discover_over_stdio(runtime)));
}

/// The server closes a kept connection after 100 ms idle: the next POST
/// finds it closed before any answer and goes on a new connection.
#[test]
fn a_kept_connection_the_server_closed_is_replaced() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let addr = serve_on_tokio(
            Service::builder()
                .http(
                    snodo_proto::HttpConfig::default()
                        .idle_timeout(std::time::Duration::from_millis(100)),
                )
                .build()
                .unwrap(),
        )
        .await;
        let connects = Arc::new(AtomicUsize::new(0));
        let mut transport =
            AsyncHttpTransport::new(Counting(connects.clone()), &format!("http://{addr}/mcp"))
                .unwrap();
        let mut client = Client::new(ClientConfig::new("t", "1", Wire::Http));
        for round in 1..=2 {
            let op = client.discover();
            assert!(
                matches!(
                    outcome(&mut transport, &mut client, op).await,
                    Event::Completed { .. }
                ),
                "round {round}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        }
        assert_eq!(connects.load(Ordering::SeqCst), 2);
    });
}

/// Answers the elicitation with a name.
struct Ada;

impl snodo_client::Handler for Ada {
    fn elicit(&mut self, _params: &Value) -> Result<Value, snodo_proto::ErrorObject> {
        Ok(json!({"action": "accept", "content": {"name": "Ada"}}))
    }
}

/// The session itself, awaited: discover, the catalog, and a call whose
/// MRTR round the handler answers.
async fn session_calls_greet<R: ClientRuntime>(runtime: R, url: String) {
    let mut config = ClientConfig::new("t", "1", Wire::Http);
    config.capabilities.insert("elicitation".into(), json!({}));
    let transport = AsyncHttpTransport::new(runtime, &url).unwrap();
    let mut session = snodo_client::AsyncSession::connect(transport, config, Ada)
        .await
        .unwrap();
    let tools = session.list_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "greet");
    let result = session.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(result.content, [snodo_proto::Content::text("Hello, Ada!")]);
    session.close().await.unwrap();
}

#[test]
fn the_async_session_on_tokio_and_smol() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let url = format!("http://{}/mcp", serve_on_tokio(service()).await);
        session_calls_greet(snodo_tokio::Tokio, url.clone()).await;
        // The same server, a client on smol.
        let ex = Arc::new(smol::Executor::new());
        let runtime = snodo_smol::Smol(ex.clone());
        std::thread::spawn(move || smol::block_on(ex.run(session_calls_greet(runtime, url))))
            .join()
            .unwrap();
    });
}

/// An authorizer that always says "try again" and a server that refuses
/// every request: the transport resends at most four times, then the
/// request fails with the server's 401 (no loop).
#[test]
fn an_authorizer_that_always_retries_is_asked_four_times_then_the_401_stands() {
    use std::io::{Read, Write};
    struct Again(AtomicUsize);
    impl snodo_client::Authorizer for Again {
        fn authorization(&self, _: &str) -> Option<String> {
            Some(String::from("Bearer t"))
        }
        fn challenged(
            &self,
            _: &str,
            status: u16,
            www_authenticate: &[String],
        ) -> Result<bool, snodo_client::AuthorizerError> {
            assert_eq!(
                (status, www_authenticate),
                (401, &[String::from("Bearer")][..])
            );
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(true)
        }
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let served = Arc::new(AtomicUsize::new(0));
    let count = served.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let mut conn = conn.unwrap();
            let mut buf = [0u8; 8192];
            let mut got = Vec::new();
            while !String::from_utf8_lossy(&got).contains("}") {
                let n = conn.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
            count.fetch_add(1, Ordering::SeqCst);
            let _ = conn.write_all(
                b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
            );
        }
    });
    let authorizer = Arc::new(Again(AtomicUsize::new(0)));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let event = rt.block_on(async {
        let mut transport = AsyncHttpTransport::new(snodo_tokio::Tokio, &url)
            .unwrap()
            .with_authorizer(authorizer.clone());
        let mut client = Client::new(ClientConfig::new("t", "1", Wire::Http));
        let op = client.discover();
        outcome(&mut transport, &mut client, op).await
    });
    assert!(
        matches!(
            event,
            Event::Failed {
                error: snodo_proto::client::ClientError::Http { status: 401 },
                ..
            }
        ),
        "{event:?}"
    );
    assert_eq!(authorizer.0.load(Ordering::SeqCst), 4);
    assert_eq!(served.load(Ordering::SeqCst), 5);
}

// The same checks on each runtime the transports run on: tokio, smol, and
// plain threads (feature `threads`).

fn on_tokio<F: Future>(run: impl FnOnce(snodo_tokio::Tokio) -> F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run(snodo_tokio::Tokio))
}

fn on_smol<F: Future>(run: impl FnOnce(snodo_smol::Smol) -> F) -> F::Output {
    let ex = Arc::new(smol::Executor::new());
    smol::block_on(ex.run(run(snodo_smol::Smol(ex.clone()))))
}

#[cfg(feature = "threads")]
fn on_threads<F: Future>(run: impl FnOnce(snodo_blocking::Threads) -> F) -> F::Output {
    snodo_blocking::block_on(run(snodo_blocking::Threads::new(1).unwrap()))
}

/// A module of three tests, `$check` on each runtime.
macro_rules! on_each_runtime {
    ($check:ident) => {
        mod $check {
            #[test]
            fn on_tokio() {
                super::on_tokio(super::$check::<snodo_tokio::Tokio>)
            }

            #[test]
            fn on_smol() {
                super::on_smol(super::$check::<snodo_smol::Smol>)
            }

            #[cfg(feature = "threads")]
            #[test]
            fn on_threads() {
                super::on_threads(super::$check::<snodo_blocking::Threads>)
            }
        }
    };
}

/// Read one HTTP request (head, then a `Content-Length` body) from
/// `conn`, `pending` holding what was read past the previous one; `None`
/// when the client closed the connection first.
fn read_one_request(conn: &mut std::net::TcpStream, pending: &mut Vec<u8>) -> Option<String> {
    use std::io::Read;
    let mut buf = [0u8; 8192];
    loop {
        if let Some(end) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&pending[..end]).to_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |n| n.trim().parse::<usize>().unwrap());
            if pending.len() >= end + 4 + length {
                let request: Vec<u8> = pending.drain(..end + 4 + length).collect();
                return Some(String::from_utf8(request).unwrap());
            }
        }
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => return None,
            Ok(n) => pending.extend_from_slice(&buf[..n]),
        }
    }
}

/// A server on one thread that answers the requests it reads, in
/// order, with `answers` (a kept connection serves the next; a closed
/// one is replaced by the next accepted), then holds the last connection
/// open without a word for 30 s. The requests are kept.
fn scripted(answers: Vec<&'static [u8]>) -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
    scripted_then(answers, Duration::from_secs(30))
}

/// [`scripted`], holding the last connection for `hold`, then closing it.
fn scripted_then(
    answers: Vec<&'static [u8]>,
    hold: Duration,
) -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
    use std::io::Write;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        let mut conn = listener.accept().unwrap().0;
        let mut pending = Vec::new();
        for answer in answers {
            let request = loop {
                match read_one_request(&mut conn, &mut pending) {
                    Some(request) => break request,
                    None => {
                        conn = listener.accept().unwrap().0;
                        pending.clear();
                    }
                }
            };
            log.lock().unwrap().push(request);
            conn.write_all(answer).unwrap();
        }
        std::thread::sleep(hold);
    });
    (url, seen)
}

const DISCOVER: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 88\r\n\r\n\
{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{}}}";

/// Connect (discover) to `url` with a 300 ms timeout: the call fails
/// with the transport's timeout (an I/O error of kind `TimedOut`) after
/// about 300 ms, not later than 3 s.
async fn times_out_at<R: ClientRuntime>(runtime: R, url: &str) {
    let transport = AsyncHttpTransport::new(runtime, url)
        .unwrap()
        .with_timeout(Duration::from_millis(300));
    let config = ClientConfig::new("t", "1", Wire::Http);
    let start = Instant::now();
    let outcome = snodo_client::AsyncSession::connect(transport, config, snodo_client::NoInput)
        .await
        .map(|_| ());
    let waited = start.elapsed();
    match outcome {
        Err(snodo_client::Error::Transport(snodo_client::TransportError::Io(e)))
            if e.kind() == std::io::ErrorKind::TimedOut => {}
        other => panic!("{other:?}"),
    }
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
}

/// [`times_out_at`] a server that answers with `answer` and then says
/// nothing more; it saw the one request.
async fn times_out_after<R: ClientRuntime>(runtime: R, answer: &'static [u8]) {
    let (url, seen) = scripted(vec![answer]);
    times_out_at(runtime, &url).await;
    let requests = seen.lock().unwrap();
    assert_eq!(requests.len(), 1);
    assert!(requests[0].contains("\"method\":\"server/discover\""));
}

/// The POST is read and never answered.
async fn http_times_out_without_an_answer<R: ClientRuntime>(runtime: R) {
    times_out_after(runtime, b"").await
}

on_each_runtime!(http_times_out_without_an_answer);

/// The head and the start of the body come, then nothing.
async fn http_times_out_mid_body<R: ClientRuntime>(runtime: R) {
    times_out_after(
        runtime,
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 88\r\n\r\n{\"jsonrpc\":\"2.0\",",
    )
    .await
}

on_each_runtime!(http_times_out_mid_body);

/// A listener whose accept queue is full: the kernel drops every further
/// SYN, so a connection to it neither succeeds nor fails. Keep the
/// returned streams (they fill the queue) for as long as that must hold.
fn full_listener() -> (socket2::Socket, String, Vec<std::net::TcpStream>) {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    let any: std::net::SocketAddr = "127.0.0.1:0".parse().unwrap();
    socket.bind(&any.into()).unwrap();
    socket.listen(0).unwrap();
    let addr = socket.local_addr().unwrap().as_socket().unwrap();
    let mut queued = Vec::new();
    while let Ok(stream) = std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
        queued.push(stream);
        assert!(queued.len() < 64, "the accept queue never filled");
    }
    (socket, format!("http://{addr}/mcp"), queued)
}

/// With a 300 ms timeout, connecting to a server that never accepts
/// fails with `TimedOut` after about 300 ms, not the system's minutes.
async fn http_times_out_connecting<R: ClientRuntime>(runtime: R) {
    let (_listener, url, _queued) = full_listener();
    times_out_at(runtime, &url).await
}

on_each_runtime!(http_times_out_connecting);

/// The host is looked up at each connection, not when the transport is
/// made (a name that does not resolve yet makes a transport; its first
/// connection fails with the resolver's error).
async fn http_resolves_the_host_at_connection<R: ClientRuntime>(runtime: R) {
    let transport = AsyncHttpTransport::new(runtime, "http://snodo-test.invalid/mcp").unwrap();
    let config = ClientConfig::new("t", "1", Wire::Http);
    match snodo_client::AsyncSession::connect(transport, config, snodo_client::NoInput).await {
        Err(snodo_client::Error::Transport(snodo_client::TransportError::Io(_))) => {}
        other => panic!("{:?}", other.map(|_| ())),
    }
}

on_each_runtime!(http_resolves_the_host_at_connection);

/// A server that answers the first request with a head promising
/// `DISCOVER`'s 88-byte body, then sends that body one byte every 100 ms
/// (8.8 s in all). Every read gets a byte well within any read timeout;
/// only a deadline for the whole request ends the wait.
fn trickling() -> String {
    use std::io::Write;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut pending = Vec::new();
        read_one_request(&mut conn, &mut pending).unwrap();
        let (head, body) = DISCOVER.split_at(DISCOVER.len() - 88);
        conn.write_all(head).unwrap();
        for byte in body {
            if conn.write_all(&[*byte]).is_err() {
                return; // The client gave up and closed.
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    url
}

/// A 1 s request timeout against [`trickling`]: the discover fails with
/// `TimedOut` at 1 s (not at the 8.8 s the body takes, when it would
/// succeed), on every runtime.
async fn http_deadline_holds_against_a_trickle<R: ClientRuntime>(runtime: R) {
    let transport = AsyncHttpTransport::new(runtime, &trickling())
        .unwrap()
        .with_timeout(Duration::from_secs(1));
    let config = ClientConfig::new("t", "1", Wire::Http);
    let start = Instant::now();
    let outcome = snodo_client::AsyncSession::connect(transport, config, snodo_client::NoInput)
        .await
        .map(|_| ());
    let waited = start.elapsed();
    match outcome {
        Err(snodo_client::Error::Transport(snodo_client::TransportError::Io(e)))
            if e.kind() == std::io::ErrorKind::TimedOut => {}
        other => panic!("after {waited:?}: {other:?}"),
    }
    assert!(
        waited >= Duration::from_millis(950) && waited < Duration::from_millis(2500),
        "{waited:?}"
    );
}

on_each_runtime!(http_deadline_holds_against_a_trickle);

/// A stdio server that, asked anything, writes one byte every 100 ms and
/// never a newline: with a 1 s timeout the wait for its line ends at 1 s.
async fn stdio_deadline_holds_against_a_trickle<R: ClientRuntime>(runtime: R) {
    let mut command = std::process::Command::new("sh");
    command
        .arg("-c")
        .arg("read line; while printf x; do sleep 0.1; done");
    let transport = AsyncStdioTransport::spawn(runtime, command)
        .unwrap()
        .with_timeout(Duration::from_secs(1));
    let config = ClientConfig::new("t", "1", Wire::Stdio);
    let start = Instant::now();
    let outcome = snodo_client::AsyncSession::connect(transport, config, snodo_client::NoInput)
        .await
        .map(|_| ());
    let waited = start.elapsed();
    match outcome {
        Err(snodo_client::Error::Transport(snodo_client::TransportError::Io(e)))
            if e.kind() == std::io::ErrorKind::TimedOut => {}
        other => panic!("after {waited:?}: {other:?}"),
    }
    assert!(
        waited >= Duration::from_millis(950) && waited < Duration::from_millis(2500),
        "{waited:?}"
    );
}

on_each_runtime!(stdio_deadline_holds_against_a_trickle);

/// Keeps the notifications that are not a listener's.
#[derive(Default)]
struct Others(Vec<(Option<OpId>, Value)>);

impl snodo_client::Handler for Others {
    fn notification(&mut self, op: Option<OpId>, message: &Value) {
        self.0.push((op, message.clone()));
    }
}

/// A session over HTTP to `url`, every read bounded by 5 s, its other
/// notifications kept in [`Others`].
async fn http_session<R: ClientRuntime>(
    runtime: R,
    url: &str,
) -> snodo_client::AsyncSession<AsyncHttpTransport<R>, Others> {
    let transport = AsyncHttpTransport::new(runtime, url)
        .unwrap()
        .with_timeout(Duration::from_secs(5));
    let config = ClientConfig::new("t", "1", Wire::Http);
    snodo_client::AsyncSession::connect(transport, config, Others::default())
        .await
        .unwrap()
}

/// `listen` on the async session over HTTP: the subscription's stream
/// carries the acknowledgment, a notification that is not the
/// subscription's, one that is, then the server's graceful end (the
/// listen's result). The listener gets exactly its two, the handler the
/// other, and the end is reported as the server's, with its result.
async fn http_listen_until_the_server_ends_it<R: ClientRuntime>(runtime: R) {
    let (url, seen) = scripted(vec![
        DISCOVER,
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n\
data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":2},\"notifications\":{\"toolsListChanged\":true}}}\n\n\
data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"not the subscription\"}}\n\n\
data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":2}}}\n\n\
data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":2}}}\n\n",
    ]);
    let mut session = http_session(runtime, &url).await;
    let mut heard = Vec::new();
    let ended = session
        .listen(json!({"toolsListChanged": true}), |n| {
            heard.push(n.clone());
            true
        })
        .await
        .unwrap();
    assert_eq!(
        heard,
        [
            json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"toolsListChanged":true}}}),
            json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}),
        ]
    );
    assert_eq!(
        ended,
        snodo_client::Ended::ByServer(
            json!({"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":2}})
        )
    );
    let others = &session.handler_mut().0;
    assert_eq!(others.len(), 1);
    assert_eq!(others[0].0, None);
    assert_eq!(others[0].1["params"]["data"], "not the subscription");
    let requests = seen.lock().unwrap();
    assert_eq!(requests.len(), 2);
    let body: Value = serde_json::from_str(requests[1].split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(
        (
            &body["id"],
            &body["method"],
            &body["params"]["notifications"]
        ),
        (
            &json!(2),
            &json!("subscriptions/listen"),
            &json!({"toolsListChanged": true})
        )
    );
}

on_each_runtime!(http_listen_until_the_server_ends_it);

/// A subscription outlives the request timeout: its stream is meant to
/// stay open, so each read waits the timeout (600 ms here) while the
/// server sends a notification every 200 ms for 1.6 s, then ends it.
async fn http_listen_outlives_the_request_timeout<R: ClientRuntime>(runtime: R) {
    use std::io::Write;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut pending = Vec::new();
        read_one_request(&mut conn, &mut pending).unwrap();
        conn.write_all(DISCOVER).unwrap();
        if read_one_request(&mut conn, &mut pending).is_none() {
            conn = listener.accept().unwrap().0;
            read_one_request(&mut conn, &mut Vec::new()).unwrap();
        }
        conn.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n\
data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":2},\"notifications\":{\"toolsListChanged\":true}}}\n\n").unwrap();
        for _ in 0..8 {
            std::thread::sleep(Duration::from_millis(200));
            conn.write_all(b"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":2}}}\n\n").unwrap();
        }
        conn.write_all(
            b"data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"resultType\":\"complete\"}}\n\n",
        )
        .unwrap();
    });
    let transport = AsyncHttpTransport::new(runtime, &url)
        .unwrap()
        .with_timeout(Duration::from_millis(600));
    let config = ClientConfig::new("t", "1", Wire::Http);
    let mut session = snodo_client::AsyncSession::connect(transport, config, Others::default())
        .await
        .unwrap();
    let mut heard = 0;
    let ended = session
        .listen(json!({"toolsListChanged": true}), |_| {
            heard += 1;
            true
        })
        .await
        .unwrap();
    assert_eq!(
        ended,
        snodo_client::Ended::ByServer(json!({"resultType": "complete"}))
    );
    assert_eq!(heard, 9);
}

on_each_runtime!(http_listen_outlives_the_request_timeout);

/// `listen` on the async session over stdio, as `Session::listen` is
/// tested in wire.rs: the listener ends the subscription at the second
/// notification, the client sends `notifications/cancelled` (the script
/// checks it before it answers the next call), and the session goes on.
#[cfg(unix)]
async fn stdio_listen_until_the_listener_ends_it<R: ClientRuntime>(runtime: R) {
    let script = r#"
read -r discover
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}'
read -r listen
case "$listen" in *'"id":2,'*'"method":"subscriptions/listen"'*'"toolsListChanged":true'*) ;; *) echo "bad: $listen" >&2; exit 1;; esac
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"toolsListChanged":true}}}'
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"not the subscription"}}'
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}'
read -r cancel
case "$cancel" in *'"method":"notifications/cancelled"'*'"requestId":2'*) ;; *) echo "bad: $cancel" >&2; exit 1;; esac
read -r call
printf '%s\n' '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"after"}]}}'
"#;
    let mut command = std::process::Command::new("sh");
    command.arg("-c").arg(script);
    let transport = AsyncStdioTransport::spawn(runtime, command)
        .unwrap()
        .with_timeout(Duration::from_secs(5));
    let config = ClientConfig::new("t", "1", Wire::Stdio);
    let mut session = snodo_client::AsyncSession::connect(transport, config, Others::default())
        .await
        .unwrap();
    let mut heard = Vec::new();
    let ended = session
        .listen(json!({"toolsListChanged": true}), |n| {
            heard.push(n["method"].clone());
            n["method"] != "notifications/tools/list_changed"
        })
        .await
        .unwrap();
    assert_eq!(ended, snodo_client::Ended::ByClient);
    assert_eq!(
        heard,
        [
            json!("notifications/subscriptions/acknowledged"),
            json!("notifications/tools/list_changed")
        ]
    );
    let others = &session.handler_mut().0;
    assert_eq!(others.len(), 1);
    assert_eq!(others[0].0, None);
    let result = session.call_tool("after", json!({})).await.unwrap();
    assert_eq!(result.content, [snodo_proto::Content::text("after")]);
}

#[cfg(unix)]
on_each_runtime!(stdio_listen_until_the_listener_ends_it);

/// Whether process `pid` is gone (or a zombie: killed, not yet reaped).
#[cfg(target_os = "linux")]
fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .unwrap()
            .trim_start()
            .starts_with('Z'),
    }
}

/// A server that reads the discover and never answers: the call fails
/// with the timeout after about 300 ms, and dropping the transport kills
/// the process (it would sleep 30 s).
#[cfg(target_os = "linux")]
async fn stdio_times_out_and_the_child_is_killed_on_drop<R: ClientRuntime>(runtime: R) {
    let pidfile = std::env::temp_dir().join(format!(
        "snodo-async-stdio-{}-{:?}.pid",
        std::process::id(),
        std::thread::current().id()
    ));
    let mut command = std::process::Command::new("sh");
    command
        .arg("-c")
        .arg(r#"echo $$ > "$0"; read -r line; exec sleep 30"#)
        .arg(&pidfile);
    let transport = AsyncStdioTransport::spawn(runtime.clone(), command)
        .unwrap()
        .with_timeout(Duration::from_millis(300));
    let config = ClientConfig::new("t", "1", Wire::Stdio);
    let start = Instant::now();
    let outcome =
        snodo_client::AsyncSession::connect(transport, config, snodo_client::NoInput).await;
    let waited = start.elapsed();
    match outcome.map(|_| ()) {
        Err(snodo_client::Error::Transport(snodo_client::TransportError::Io(e)))
            if e.kind() == std::io::ErrorKind::TimedOut => {}
        other => panic!("{other:?}"),
    }
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
    // The session (and its transport) went with the error.
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let _ = std::fs::remove_file(&pidfile);
    let deadline = Instant::now() + Duration::from_secs(2);
    while !is_dead(pid) {
        assert!(Instant::now() < deadline, "process {pid} still runs");
        let mut timer = runtime.timer(Instant::now() + Duration::from_millis(20));
        std::future::poll_fn(|cx| snodo_driver::Timer::poll_fired(&mut timer, cx)).await;
    }
}

#[cfg(target_os = "linux")]
on_each_runtime!(stdio_times_out_and_the_child_is_killed_on_drop);

/// `listen` over HTTP ended by the listener at the acknowledgment while
/// the server keeps the stream open: the client closes the stream (the
/// server sees the connection end before it reads the next request),
/// `listen` reports the listener's end at once, not at the read timeout,
/// and the session goes on with a call on a new connection.
async fn http_listen_until_the_listener_ends_it<R: ClientRuntime>(runtime: R) {
    let (url, seen) = scripted(vec![
        DISCOVER,
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n\
data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":2},\"notifications\":{\"toolsListChanged\":true}}}\n\n",
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 78\r\n\r\n\
{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"after\"}]}}",
    ]);
    let mut session = http_session(runtime, &url).await;
    let mut heard = Vec::new();
    let start = Instant::now();
    let ended = session
        .listen(json!({"toolsListChanged": true}), |n| {
            heard.push(n["method"].clone());
            false
        })
        .await
        .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(ended, snodo_client::Ended::ByClient);
    assert_eq!(heard, [json!("notifications/subscriptions/acknowledged")]);
    let result = session.call_tool("after", json!({})).await.unwrap();
    assert_eq!(result.content, [snodo_proto::Content::text("after")]);
    assert_eq!(seen.lock().unwrap().len(), 3);
}

on_each_runtime!(http_listen_until_the_listener_ends_it);

/// The subscription's stream ends (the server closes it) after the
/// acknowledgment, without the listen's result: `listen` reports that
/// end at once as the client error `NoResponse`, not as a graceful end
/// nor at the read timeout.
async fn http_listen_stream_closed_without_a_result<R: ClientRuntime>(runtime: R) {
    let (url, _) = scripted_then(
        vec![
            DISCOVER,
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n\
data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":2},\"notifications\":{\"toolsListChanged\":true}}}\n\n",
        ],
        Duration::ZERO,
    );
    let mut session = http_session(runtime, &url).await;
    let mut heard = Vec::new();
    let start = Instant::now();
    let ended = session
        .listen(json!({"toolsListChanged": true}), |n| {
            heard.push(n["method"].clone());
            true
        })
        .await;
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert!(
        matches!(
            ended,
            Err(snodo_client::Error::Client(
                snodo_proto::client::ClientError::NoResponse
            ))
        ),
        "{ended:?}"
    );
    assert_eq!(heard, [json!("notifications/subscriptions/acknowledged")]);
}

on_each_runtime!(http_listen_stream_closed_without_a_result);

/// A 2026-07-28 response stream that breaks before its answer (the
/// event stream ends with no event): a `tools/list` is sent
/// again as a new request with a new id (`changelog.mdx`, major change
/// 9), and its answer is the list's; a `tools/call` is not re-issued by
/// default (the loss is `NoResponse`), and is once the application opts
/// in.
async fn a_broken_stream_reissues_safe_requests<R: ClientRuntime>(runtime: R) {
    const BROKEN: &[u8] =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
    let (url, seen) = scripted(vec![
        DISCOVER,
        BROKEN,
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 114\r\n\r\n\
{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"tools\":[{\"name\":\"t\",\"inputSchema\":{\"type\":\"object\"}}],\"resultType\":\"complete\"}}",
        BROKEN,
        BROKEN,
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 99\r\n\r\n\
{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"resultType\":\"complete\"}}",
    ]);
    let mut session = http_session(runtime, &url).await;
    let tools = session.list_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    match session.call_tool("t", json!({})).await {
        Err(snodo_client::Error::Client(snodo_proto::client::ClientError::NoResponse)) => {}
        other => panic!("{other:?}"),
    }
    session.reissue_tool_calls(true);
    let result = session.call_tool("t", json!({})).await.unwrap();
    assert_eq!(result.content, [snodo_proto::Content::text("ok")]);
    let seen = seen.lock().unwrap();
    let body = |i: usize| -> Value {
        serde_json::from_str(seen[i].split("\r\n\r\n").nth(1).unwrap()).unwrap()
    };
    assert_eq!(seen.len(), 6);
    assert_eq!(
        (body(1)["method"].clone(), body(1)["id"].clone()),
        (json!("tools/list"), json!(2))
    );
    assert_eq!(
        (body(2)["method"].clone(), body(2)["id"].clone()),
        (json!("tools/list"), json!(3))
    );
    assert_eq!(
        (body(3)["method"].clone(), body(3)["id"].clone()),
        (json!("tools/call"), json!(4))
    );
    assert_eq!(
        (body(4)["method"].clone(), body(4)["id"].clone()),
        (json!("tools/call"), json!(5))
    );
    assert_eq!(
        (body(5)["method"].clone(), body(5)["id"].clone()),
        (json!("tools/call"), json!(6))
    );
}

on_each_runtime!(a_broken_stream_reissues_safe_requests);
