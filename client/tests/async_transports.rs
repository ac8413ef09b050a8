//! The async transports, written once over `ClientRuntime`, on tokio and
//! smol against snodo's own server on the same runtime: a tool call with
//! an MRTR round, and a run of calls on one kept-alive connection.

#![cfg(all(feature = "tokio", feature = "smol"))]

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

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
                .http(snodo_proto::HttpConfig {
                    idle_timeout: std::time::Duration::from_millis(100),
                    ..Default::default()
                })
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
    assert_eq!(tools[0]["name"], "greet");
    let result = session.call_tool("greet", json!({})).await.unwrap();
    assert_eq!(result["content"][0]["text"], "Hello, Ada!");
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
