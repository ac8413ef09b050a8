//! `serve_http` over real sockets on 127.0.0.1, speaking the wire: every
//! request is literal HTTP/1.1 text and every expected response is the
//! literal bytes the client must receive.

mod support;

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use snodo_blocking::{bind_http, serve_http, Options, Shutdown, Threads};
use snodo_proto::{
    CallToolResult, ChangeEvent, Context, Hub, Implementation, Limits, NoArgs, Notifications,
    Service, Tool,
};
use support::{Probes, SOON};

/// A service with a tool for each case, and the probes into it.
fn service() -> (Service, Probes) {
    service_with(limits())
}

/// Limits that keep every test's closes short.
fn limits() -> Limits {
    Limits {
        close_linger: Duration::from_millis(200),
        ..Limits::default()
    }
}

fn service_with(limits: Limits) -> (Service, Probes) {
    let (probes, tools) = support::probes();
    let (w, h) = (tools.clone(), tools);
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .limits(limits)
        .tool(
            Tool::new("ping_tool", "Answers pong"),
            |_: NoArgs, _| async { CallToolResult::text("pong") },
        )
        .tool(
            Tool::new("progress_tool", "Reports progress"),
            |_: NoArgs, ctx: Context| async move {
                ctx.progress(1.0, Some(2.0), None);
                ctx.progress(2.0, Some(2.0), None);
                CallToolResult::text("done")
            },
        )
        .tool(
            Tool::new("wait_tool", "Answers once the test releases the latch"),
            move |_: NoArgs, _| {
                let wait = w.wait();
                async move {
                    wait.await;
                    CallToolResult::text("released")
                }
            },
        )
        .tool(
            Tool::new("hang_tool", "Never answers"),
            move |_: NoArgs, _| {
                let hang = h.hang();
                async move {
                    hang.await;
                    CallToolResult::text("unreachable")
                }
            },
        )
        .tool(
            Tool::new("boom_tool", "Panics"),
            |_: NoArgs, _| async move {
                if true {
                    panic!("handler bug");
                }
                CallToolResult::text("unreachable")
            },
        )
        .build()
        .expect("test service builds");
    (service, probes)
}

/// A running `serve_http` on an ephemeral loopback port.
struct Server {
    addr: SocketAddr,
    shutdown: Shutdown,
    done: Receiver<io::Result<()>>,
}

/// How a test server runs: its worker count and the driver's options.
#[derive(Clone, Default)]
struct HttpOptions {
    workers: Option<usize>,
    options: Options,
}

impl HttpOptions {
    fn workers(mut self, n: usize) -> Self {
        self.workers = Some(n);
        self
    }

    fn max_connections(mut self, n: usize) -> Self {
        self.options = self.options.max_connections(n);
        self
    }
}

impl Server {
    fn start(service: &Service, options: HttpOptions) -> Server {
        let listener = bind_http("127.0.0.1:0").expect("bind an ephemeral port");
        let addr = listener.local_addr().unwrap();
        let shutdown = Shutdown::new();
        let handle = shutdown.clone();
        let service = service.clone();
        let (tx, done) = mpsc::channel();
        let threads = Threads::new(options.workers.unwrap_or(snodo_blocking::DEFAULT_WORKERS))
            .expect("worker threads");
        thread::spawn(move || {
            let _ = tx.send(serve_http(
                &threads,
                &service,
                listener,
                handle,
                options.options,
            ));
        });
        Server {
            addr,
            shutdown,
            done,
        }
    }

    fn connect(&self) -> Client {
        let stream = TcpStream::connect(self.addr).expect("connect to the server");
        stream.set_read_timeout(Some(SOON)).unwrap();
        Client(stream)
    }

    /// `serve_http` has not returned within `period`.
    fn still_serving_after(&self, period: Duration) -> bool {
        self.done.recv_timeout(period).err() == Some(RecvTimeoutError::Timeout)
    }

    /// Wait, bounded, for `serve_http` to return by itself.
    fn returned(&self) -> io::Result<()> {
        self.done
            .recv_timeout(SOON)
            .expect("serve_http returned in time")
    }

    /// Request shutdown and wait, bounded, for `serve_http` to return.
    fn finish(self) -> io::Result<()> {
        self.shutdown.shutdown();
        self.returned()
    }
}

/// One client connection, reading with a timeout.
struct Client(TcpStream);

impl Client {
    fn send(&mut self, request: &str) {
        self.0.write_all(request.as_bytes()).expect("request sent");
    }

    /// Read exactly as many bytes as `expected` has (or what came before
    /// EOF or the timeout) and compare them with it.
    fn expect(&mut self, expected: &str) {
        let mut got = vec![0_u8; expected.len()];
        let mut filled = 0;
        while filled < got.len() {
            match self.0.read(&mut got[filled..]) {
                Ok(0) | Err(_) => break,
                Ok(n) => filled += n,
            }
        }
        assert_eq!(String::from_utf8_lossy(&got[..filled]), expected);
    }

    /// Call `ping_tool` as request `id` and expect its literal answer.
    fn ping(&mut self, id: u64) {
        self.send(&call_request(id, "ping_tool"));
        self.expect(&json_response("200 OK", "", &text_result(id, "pong")));
    }

    /// Everything until the server closes the connection.
    fn read_to_close(&mut self) -> String {
        let mut got = Vec::new();
        self.0
            .read_to_end(&mut got)
            .expect("the server closes the connection");
        String::from_utf8_lossy(&got).into_owned()
    }
}

fn options() -> HttpOptions {
    HttpOptions::default()
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// A POST with the standard headers plus `extra`, and a correct Content-Length.
fn post(extra: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// An `application/json` response: `status`, the length of `body`, then
/// the `extra` header lines.
fn json_response(status: &str, extra: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}\r\n{body}",
        body.len()
    )
}

const SERVER_INFO: &str =
    r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}"#;

const DISCOVER_HEADERS: &str =
    "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\n";

fn discover_request() -> String {
    post(
        DISCOVER_HEADERS,
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#),
    )
}

fn discover_response() -> String {
    json_response(
        "200 OK",
        "",
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{{SERVER_INFO},"cacheScope":"public","capabilities":{{"tools":{{}}}},"resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":60000}}}}"#
        ),
    )
}

fn call_request(id: u64, tool: &str) -> String {
    post(
        &format!(
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {tool}\r\n"
        ),
        &format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}",{META}}}}}"#
        ),
    )
}

fn text_result(id: u64, text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{{SERVER_INFO},"content":[{{"text":"{text}","type":"text"}}],"resultType":"complete"}}}}"#
    )
}

#[test]
fn discover_is_answered() {
    let (service, _) = service();
    let server = Server::start(&service, options());
    let mut client = server.connect();
    client.send(&discover_request());
    client.expect(&discover_response());
    drop(client);
    server.finish().expect("serve_http returns Ok");
}

#[test]
fn a_tool_call_is_answered_and_the_connection_kept_alive() {
    let (service, _) = service();
    let server = Server::start(&service, options());
    let mut client = server.connect();
    client.send(&call_request(2, "ping_tool"));
    client.expect(&json_response(
        "200 OK",
        "",
        r#"{"jsonrpc":"2.0","id":2,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"pong","type":"text"}],"resultType":"complete"}}"#,
    ));
    client.ping(3);
    drop(client);
    server.finish().unwrap();
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let (service, _) = service();
    let server = Server::start(&service, options());
    let mut client = server.connect();
    client.send(&(discover_request() + &call_request(2, "ping_tool")));
    client.expect(&(discover_response() + &json_response("200 OK", "", &text_result(2, "pong"))));
    drop(client);
    server.finish().unwrap();
}

#[test]
fn progress_turns_the_response_into_an_sse_stream() {
    let (service, _) = service();
    let server = Server::start(&service, options());
    let mut client = server.connect();
    client.send(&post(
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: progress_tool\r\n",
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress_tool","_meta":{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    ));
    client.expect(concat!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n",
        "76\r\n",
        r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1.0,"progressToken":"p1","total":2.0}}"#,
        "\n\n\r\n",
        "76\r\n",
        r#"data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2.0,"progressToken":"p1","total":2.0}}"#,
        "\n\n\r\n",
        "b7\r\n",
        r#"data: {"jsonrpc":"2.0","id":7,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"done","type":"text"}],"resultType":"complete"}}"#,
        "\n\n\r\n",
        "0\r\n\r\n",
    ));
    // The stream ended; the connection serves the next request.
    client.ping(8);
    drop(client);
    server.finish().unwrap();
}

#[test]
fn a_client_disconnecting_cancels_its_call_and_others_are_still_served() {
    let (service, probes) = service();
    let server = Server::start(&service, options());
    let mut leaving = server.connect();
    leaving.send(&call_request(9, "hang_tool"));
    assert_eq!(probes.started.recv_timeout(SOON), Ok("hang"));
    drop(leaving);
    assert_eq!(
        probes.dropped.recv_timeout(SOON),
        Ok(()),
        "the handler's future is dropped when its client goes away"
    );
    server.connect().ping(10);
    server.finish().unwrap();
}

/// A POST of an initialize-era session (2025-11-25): no `_meta`, the
/// session named in `Mcp-Session-Id` once it has one.
fn session_post(session: Option<&str>, body: &str) -> String {
    let sid = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n{sid}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// In a 2025-11-25 session a client that disconnects has not cancelled
/// its request (`transports.mdx` § Sending Messages: "Disconnection SHOULD
/// NOT be interpreted as the client cancelling its request"): the call
/// keeps running after the socket is gone, past the shutdown grace (which
/// is not for this), and the client can still cancel it from another
/// connection.
#[test]
fn a_session_call_outlives_its_clients_disconnect() {
    let (service, probes) = service_with(Limits {
        shutdown_grace: Duration::from_millis(100),
        ..limits()
    });
    let server = Server::start(&service, options());
    let mut leaving = server.connect();
    leaving.send(&session_post(
        None,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    ));
    // The head, up to its end: the session id is random.
    let mut head = Vec::new();
    let mut byte = [0_u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(leaving.0.read(&mut byte).expect("the head"), 1);
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    let sid = head
        .lines()
        .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
        .expect("a session")
        .to_owned();
    leaving.send(&session_post(
        Some(&sid),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang_tool"}}"#,
    ));
    assert_eq!(probes.started.recv_timeout(SOON), Ok("hang"));
    drop(leaving);
    assert_eq!(
        probes.dropped.recv_timeout(Duration::from_millis(300)),
        Err(RecvTimeoutError::Timeout),
        "the call still runs after the client disconnected"
    );
    let mut other = server.connect();
    other.send(&session_post(
        Some(&sid),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    ));
    other.expect("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n");
    assert_eq!(
        probes.dropped.recv_timeout(SOON),
        Ok(()),
        "the handler's future is dropped once the client cancelled"
    );
    drop(other);
    server.finish().unwrap();
}

#[test]
fn a_panicking_handler_fails_only_its_request() {
    let (service, _) = service();
    let server = Server::start(&service, options().workers(1));
    let mut client = server.connect();
    client.send(&call_request(1, "boom_tool"));
    client.expect(&json_response(
        "200 OK",
        "",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#,
    ));
    // Same connection, and the only worker survived the panic.
    client.ping(2);
    drop(client);
    server.finish().unwrap();
}

#[test]
fn an_unknown_method_is_refused_with_405_and_the_connection_closed() {
    let (service, _) = service();
    let server = Server::start(&service, options());
    let mut client = server.connect();
    // GET and DELETE belong to initialize-era sessions (`tests/legacy.rs`),
    // which this service also serves: the 405 names all three.
    client.send("PUT /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n");
    assert_eq!(
        client.read_to_close(),
        "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 65\r\nAllow: GET, POST, DELETE\r\nConnection: close\r\n\r\nMethod Not Allowed: the MCP endpoint accepts GET, POST and DELETE"
    );
    drop(client);
    server.finish().unwrap();
}

#[test]
fn a_foreign_origin_is_refused_with_403() {
    let (service, _) = service();
    let server = Server::start(&service, options());
    let mut client = server.connect();
    client.send(&post(
        &format!("Origin: http://evil.example.com\r\n{DISCOVER_HEADERS}"),
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#),
    ));
    assert_eq!(
        client.read_to_close(),
        json_response(
            "403 Forbidden",
            "Connection: close\r\n",
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Forbidden: Origin not allowed"}}"#
        )
    );
    drop(client);
    server.finish().unwrap();
}

/// 300 connections open at once, each answered, then each answered again
/// while all are still open. They are opened in waves of 100 because std's
/// listener backlog is 128: a larger burst of connects than the acceptor
/// has taken yet waits on the kernel's SYN retransmission (a second), which
/// is not what this measures.
#[test]
fn three_hundred_concurrent_connections_are_all_answered() {
    const CLIENTS: u64 = 300;
    const WAVE: usize = 100;
    let (service, _) = service();
    let server = Server::start(&service, options().max_connections(400));
    let began = Instant::now();
    let mut clients: Vec<Client> = Vec::new();
    while clients.len() < CLIENTS as usize {
        let first = clients.len();
        clients.extend((0..WAVE).map(|_| server.connect()));
        for (id, client) in (1..).zip(clients.iter_mut()).skip(first) {
            client.send(&call_request(id, "ping_tool"));
        }
        for (id, client) in (1..).zip(clients.iter_mut()).skip(first) {
            client.expect(&json_response("200 OK", "", &text_result(id, "pong")));
        }
    }
    for (id, client) in (CLIENTS + 1..).zip(clients.iter_mut()) {
        client.send(&call_request(id, "ping_tool"));
    }
    for (id, client) in (CLIENTS + 1..).zip(clients.iter_mut()) {
        client.expect(&json_response("200 OK", "", &text_result(id, "pong")));
    }
    let elapsed = began.elapsed();
    assert!(
        elapsed < Duration::from_secs(10),
        "{CLIENTS} connections took {elapsed:?}"
    );
    drop(clients);
    server.finish().unwrap();
}

/// At the cap a new connection takes the place of the one idle longest,
/// which is closed; with none idle the new one is closed at once.
#[test]
fn at_the_cap_a_new_connection_takes_an_idle_ones_place_or_is_closed() {
    let (service, probes) = service_with(Limits {
        shutdown_grace: Duration::from_millis(100),
        ..limits()
    });
    let server = Server::start(&service, options().max_connections(1));
    let mut first = server.connect();
    first.ping(1);
    // `first` is idle between requests: `second` takes its place.
    let mut second = server.connect();
    second.ping(2);
    assert_eq!(first.read_to_close(), "", "the idle connection was closed");
    // `second` is busy with a call: nothing is idle, `third` is refused.
    second.send(&call_request(4, "hang_tool"));
    assert_eq!(probes.started.recv_timeout(SOON), Ok("hang"));
    let mut third = server.connect();
    // Closed before anything is read, so sending may reset the connection.
    let _ = third.0.write_all(call_request(3, "ping_tool").as_bytes());
    let mut buf = [0_u8; 64];
    let read = third.0.read(&mut buf);
    assert!(
        matches!(read, Ok(0))
            || read
                .as_ref()
                .is_err_and(|e| e.kind() == io::ErrorKind::ConnectionReset),
        "nothing is served beyond the cap: {read:?}"
    );
    server.finish().unwrap();
}

#[test]
fn shutdown_lets_the_call_in_flight_finish_then_returns() {
    let (service, probes) = service();
    let server = Server::start(&service, options());
    let mut idle = server.connect();
    idle.ping(1);
    let mut busy = server.connect();
    busy.send(&call_request(4, "wait_tool"));
    assert_eq!(probes.started.recv_timeout(SOON), Ok("wait"));

    server.shutdown.shutdown();
    assert_eq!(
        idle.read_to_close(),
        "",
        "an idle connection is closed at once"
    );
    assert!(
        TcpStream::connect(server.addr).is_err(),
        "the listener is closed"
    );
    assert!(
        server.still_serving_after(Duration::from_millis(100)),
        "serve_http waits for the call in flight"
    );
    probes.latch.release();
    assert_eq!(
        busy.read_to_close(),
        json_response(
            "200 OK",
            "Connection: close\r\n",
            r#"{"jsonrpc":"2.0","id":4,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"released","type":"text"}],"resultType":"complete"}}"#
        ),
        "the call is answered, and the connection closed after it"
    );
    drop(busy);
    server.returned().expect("serve_http returns Ok");
}

#[test]
fn calls_outliving_the_shutdown_grace_are_cancelled() {
    let (service, probes) = service_with(Limits {
        shutdown_grace: Duration::from_millis(100),
        ..limits()
    });
    let server = Server::start(&service, options());
    let mut client = server.connect();
    client.send(&call_request(5, "hang_tool"));
    assert_eq!(probes.started.recv_timeout(SOON), Ok("hang"));
    let began = Instant::now();
    server.shutdown.shutdown();
    assert_eq!(
        client.read_to_close(),
        "",
        "an abandoned call is not answered"
    );
    assert_eq!(
        probes.dropped.recv_timeout(SOON),
        Ok(()),
        "and its future is dropped"
    );
    drop(client);
    server.returned().unwrap();
    assert!(
        began.elapsed() < Duration::from_secs(2),
        "returned after {:?}",
        began.elapsed()
    );
}

/// A service whose `subscriptions/listen` streams are fed by `hub`.
fn listening_service(hub: &Hub) -> Service {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .notifications(Notifications {
            tools_list_changed: true,
            ..Notifications::default()
        })
        .hub(hub.clone())
        .limits(limits())
        .tool(
            Tool::new("ping_tool", "Answers pong"),
            |_: NoArgs, _| async { CallToolResult::text("pong") },
        )
        .build()
        .expect("test service builds")
}

#[test]
fn a_listen_stream_carries_hub_events_and_ends_gracefully_on_shutdown() {
    let hub = Hub::default();
    let server = Server::start(&listening_service(&hub), options());
    let mut client = server.connect();
    client.send(&post(
        "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n",
        &format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{{{META},"notifications":{{"toolsListChanged":true}}}}}}"#
        ),
    ));
    client.expect(concat!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n",
        "b7\r\n",
        r#"data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":5},"notifications":{"toolsListChanged":true}}}"#,
        "\n\n\r\n",
    ));
    hub.publish(ChangeEvent::ToolsListChanged);
    client.expect(concat!(
        "85\r\n",
        r#"data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":5}}}"#,
        "\n\n\r\n",
    ));
    server.shutdown.shutdown();
    assert_eq!(
        client.read_to_close(),
        concat!(
            "b8\r\n",
            r#"data: {"jsonrpc":"2.0","id":5,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/subscriptionId":5},"resultType":"complete"}}"#,
            "\n\n\r\n",
            "0\r\n\r\n",
        ),
        "shutdown ends the stream with its result, then the connection"
    );
    drop(client);
    server.returned().expect("serve_http returns Ok");
}
