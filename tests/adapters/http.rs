//! Streamable HTTP over real loopback sockets
//! (`basic/transports/streamable-http.mdx`): literal HTTP/1.1 requests in,
//! the literal bytes the client must receive expected out. What is under
//! test is what a runtime adds: one task per connection, keep-alive,
//! hanging up as cancellation, the connection cap, graceful shutdown.

use std::io::Write;
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use snodo_proto::{ChangeEvent, HttpConfig, Hub, Kinds, Notifications, Tool};
use snodo_tokio::Options;

use crate::client::{
    json_response, post, session_post, sse_event, Client, Server, LAST_CHUNK, SSE_HEAD,
};
use crate::harness::Rt;
use crate::service::{limits, service, service_with, SOON};

pub const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

pub fn discover_request() -> String {
    post(
        "Mcp-Method: server/discover\r\n",
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{{META}}}}}"#),
    )
}

pub fn discover_response() -> String {
    json_response(
        "200 OK",
        "",
        r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"cacheScope":"public","capabilities":{"tools":{}},"resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":60000}}"#,
    )
}

/// A call of `tool` without arguments as request `id`.
pub fn call(id: u64, tool: &str) -> String {
    post(
        &format!("Mcp-Method: tools/call\r\nMcp-Name: {tool}\r\n"),
        &format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}",{META}}}}}"#
        ),
    )
}

/// A call of `echo` with `text` as request `id`.
pub fn echo(id: u64, text: &str) -> String {
    post(
        "Mcp-Method: tools/call\r\nMcp-Name: echo\r\n",
        &format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}},{META}}}}}"#
        ),
    )
}

/// The JSON-RPC answer `text` to request `id`.
pub fn text_result(id: u64, text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"t","version":"1"}}}},"content":[{{"text":"{text}","type":"text"}}],"resultType":"complete"}}}}"#
    )
}

/// `echo`'s answer, as a whole HTTP response.
pub fn echoed(id: u64, text: &str) -> String {
    json_response("200 OK", "", &text_result(id, text))
}

pub fn http_discover_is_answered<R: Rt>() {
    let (service, _) = service(limits());
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    client.send(&discover_request());
    client.expect(&discover_response());
    drop(client);
    server.finish();
}

pub fn http_keep_alive_serves_requests_in_turn<R: Rt>() {
    let (service, _) = service(limits());
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    for (id, text) in [(1, "first"), (2, "second"), (3, "third")] {
        client.send(&echo(id, text));
        client.expect(&echoed(id, text));
    }
    drop(client);
    server.finish();
}

pub fn http_pipelined_requests_are_answered_in_order<R: Rt>() {
    let (service, _) = service(limits());
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    client.send(&(discover_request() + &echo(2, "two") + &echo(3, "three")));
    client.expect(&(discover_response() + &echoed(2, "two") + &echoed(3, "three")));
    drop(client);
    server.finish();
}

pub fn http_connection_close_is_honoured<R: Rt>() {
    let (service, _) = service(limits());
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    client.send(&post("Connection: close\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n", &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"bye"}},{META}}}}}"#)));
    assert_eq!(
        client.read_to_close(),
        json_response("200 OK", "Connection: close\r\n", &text_result(1, "bye"))
    );
    server.finish();
}

pub fn http_refused_requests_are_answered_and_the_connection_closed<R: Rt>() {
    let (service, _) = service(limits());
    let server = Server::<R>::http(&service, Options::default());

    let mut client = server.connect();
    client.send("GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    let refused = client.read_to_close();
    assert!(
        refused.starts_with("HTTP/1.1 404 Not Found\r\n"),
        "{refused}"
    );
    assert!(refused.contains("\r\nConnection: close\r\n"), "{refused}");

    let mut client = server.connect();
    client.send("PUT /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n");
    assert_eq!(
        client.read_to_close(),
        "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 65\r\nAllow: GET, POST, DELETE\r\nConnection: close\r\n\r\nMethod Not Allowed: the MCP endpoint accepts GET, POST and DELETE"
    );

    let mut client = server.connect();
    client.send(&post(
        "Origin: http://evil.example.com\r\nMcp-Method: server/discover\r\n",
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
    server.finish();
}

pub fn http_a_panicking_handler_fails_only_its_request<R: Rt>() {
    let (service, _) = service(limits());
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    client.send(&call(1, "boom"));
    client.expect(&json_response(
        "200 OK",
        "",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#,
    ));
    client.send(&echo(2, "still here"));
    client.expect(&echoed(2, "still here"));
    drop(client);
    server.finish();
}

pub fn http_progress_turns_the_response_into_an_sse_stream<R: Rt>() {
    let (service, _) = service(limits());
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    client.send(&post(
        "Mcp-Method: tools/call\r\nMcp-Name: progress\r\n",
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    ));
    client.expect(SSE_HEAD);
    client.expect(&sse_event(
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"half","progress":1.0,"progressToken":"p1","total":2.0}}"#,
    ));
    client.expect(&sse_event(
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":2.0,"progressToken":"p1","total":2.0}}"#,
    ));
    client.expect(&sse_event(&text_result(7, "done")));
    client.expect(LAST_CHUNK);
    // The stream ended; the connection serves the next request.
    client.send(&echo(8, "next"));
    client.expect(&echoed(8, "next"));
    drop(client);
    server.finish();
}

/// An event is written as soon as it is reported, while its call runs.
pub fn http_sse_events_reach_the_client_while_the_call_runs<R: Rt>() {
    let (service, probes) = service(limits());
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    client.send(&post(
        "Mcp-Method: tools/call\r\nMcp-Name: step\r\n",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"step","_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    ));
    client.expect(SSE_HEAD);
    client.expect(&sse_event(
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"waiting","progress":1.0,"progressToken":"p"}}"#,
    ));
    probes.expect_started("step");
    probes.latch.release();
    client.expect(&sse_event(&text_result(1, "released")));
    client.expect(LAST_CHUNK);
    drop(client);
    server.finish();
}

pub fn http_a_client_hanging_up_cancels_its_call_and_others_are_served<R: Rt>() {
    let (service, probes) = service(limits());
    let server = Server::<R>::http(&service, Options::default());
    let mut leaving = server.connect();
    leaving.send(&call(9, "hang"));
    probes.expect_started("hang");
    drop(leaving);
    probes.expect_dropped("hang");
    let mut other = server.connect();
    other.send(&echo(10, "served"));
    other.expect(&echoed(10, "served"));
    drop(other);
    server.finish();
}

/// In a 2025-11-25 session a client that disconnects has not cancelled
/// its request (`mcp-2025-11-25/basic/transports.mdx` § Sending Messages:
/// "Disconnection SHOULD NOT be interpreted as the client cancelling its
/// request"): the call runs on after the socket is gone, past the
/// shutdown grace (which is not for this), and the client can still
/// cancel it from another connection.
pub fn http_a_session_call_outlives_its_clients_disconnect<R: Rt>() {
    let (service, probes) = service(limits().shutdown_grace(Duration::from_millis(100)));
    let server = Server::<R>::http(&service, Options::default());
    let sid = open_session(&server);
    let mut leaving = server.connect();
    leaving.send(&session_post(
        Some(&sid),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang"}}"#,
    ));
    probes.expect_started("hang");
    drop(leaving);
    probes.expect_none_dropped(Duration::from_millis(300));
    let mut other = server.connect();
    other.send(&session_post(
        Some(&sid),
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    ));
    other.expect("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n");
    probes.expect_dropped("hang");
    drop(other);
    server.finish();
}

/// The session a `200 OK` response head names.
pub fn session_id(head: &str) -> String {
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    head.lines()
        .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
        .expect("a session")
        .to_owned()
}

pub fn http_a_call_past_its_timeout_is_answered_and_dropped<R: Rt>() {
    let (service, probes) = service(limits().call_timeout(Some(Duration::from_millis(200))));
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    client.send(&call(1, "hang"));
    client.expect(&json_response(
        "200 OK",
        "",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Request timed out"}}"#,
    ));
    probes.expect_dropped("hang");
    drop(client);
    server.finish();
}

/// 300 connections open at once, each answered, then each answered again
/// while all are still open. They are opened in waves of 100: a larger
/// burst of connects than the listener's backlog (128 with std) waits on
/// the kernel's SYN retransmission, which is not what this measures.
pub fn http_three_hundred_concurrent_connections_are_all_answered<R: Rt>() {
    const CLIENTS: u64 = 300;
    const WAVE: usize = 100;
    let (service, _) = service(limits());
    let server = Server::<R>::http(&service, Options::default().max_connections(400));
    let mut clients: Vec<Client> = Vec::new();
    while clients.len() < CLIENTS as usize {
        let first = clients.len();
        clients.extend((0..WAVE).map(|_| server.connect()));
        for (id, client) in (1..).zip(clients.iter_mut()).skip(first) {
            client.send(&echo(id, "pong"));
        }
        for (id, client) in (1..).zip(clients.iter_mut()).skip(first) {
            client.expect(&echoed(id, "pong"));
        }
    }
    for (id, client) in (CLIENTS + 1..).zip(clients.iter_mut()) {
        client.send(&echo(id, "again"));
    }
    for (id, client) in (CLIENTS + 1..).zip(clients.iter_mut()) {
        client.expect(&echoed(id, "again"));
    }
    drop(clients);
    server.finish();
}

/// At the cap a new connection takes the place of the one idle longest,
/// which is closed; with none idle it is closed before a byte is read. A
/// place freed by a client leaving is taken by the next.
pub fn http_at_the_cap_a_new_connection_takes_an_idle_place_or_is_closed<R: Rt>() {
    let (service, probes) = service(limits());
    let server = Server::<R>::http(&service, Options::default().max_connections(2));
    let mut a = server.connect();
    a.send(&echo(1, "in"));
    a.expect(&echoed(1, "in"));
    let mut b = server.connect();
    b.send(&call(2, "hang"));
    probes.expect_started("hang");
    // `a` is idle between requests: `c` takes its place.
    let mut c = server.connect();
    c.send(&echo(3, "in"));
    c.expect(&echoed(3, "in"));
    a.expect_closed();
    // Both places now hold calls in flight: nothing is idle.
    c.send(&call(4, "hang"));
    probes.expect_started("hang");
    let mut over = server.connect();
    // Closed before anything is read, so sending may reset it.
    let _ = over.stream.write_all(echo(5, "over").as_bytes());
    over.expect_closed();
    // A hang-up cancels `b`'s call; the place is released once the server
    // notices.
    drop(b);
    let until = Instant::now() + SOON;
    loop {
        let mut next = server.connect();
        let _ = next.stream.write_all(echo(6, "next").as_bytes());
        let answer = next.read_until_or_close("\r\n\r\n");
        if answer.starts_with("HTTP/1.1 200 OK\r\n") {
            break;
        }
        assert_eq!(answer, "", "closed with nothing, or answered");
        assert!(Instant::now() < until, "a freed place was never reused");
        thread::sleep(Duration::from_millis(20));
    }
    drop(c);
    server.finish();
}

pub fn http_shutdown_grace_expiry_cancels_what_is_left<R: Rt>() {
    let grace = Duration::from_millis(300);
    let (service, probes) = service(limits().shutdown_grace(grace));
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    client.send(&call(5, "hang"));
    probes.expect_started("hang");
    let began = Instant::now();
    server.shutdown.shutdown();
    client.expect_closed();
    assert!(
        began.elapsed() >= grace,
        "closed after {:?}, inside the grace",
        began.elapsed()
    );
    probes.expect_dropped("hang");
    drop(client);
    server.served.within(SOON).expect("serve_http returns Ok");
}

/// Hanging up during the grace is a cancellation like any other.
pub fn http_a_disconnect_during_shutdown_still_cancels_the_call<R: Rt>() {
    let (service, probes) = service(limits().shutdown_grace(Duration::from_secs(30)));
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    client.send(&call(1, "hang"));
    probes.expect_started("hang");
    server.shutdown.shutdown();
    thread::sleep(Duration::from_millis(50));
    drop(client);
    // Long before the 30 s grace: hanging up is the cancellation.
    probes.expect_dropped("hang");
    server.served.within(SOON).expect("serve_http returns Ok");
}

/// The driver's timer only moves earlier: a keep-alive request that moves
/// the idle deadline later leaves the timer to fire at the old one, which
/// must do nothing, and the connection still closes at the new one.
pub fn http_an_idle_deadline_moved_later_by_a_request_is_kept<R: Rt>() {
    const IDLE: Duration = Duration::from_millis(1200);
    let (service, _) = service_with(limits(), |b| {
        b.http(HttpConfig::default().idle_timeout(IDLE))
    });
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    client.send(&echo(1, "a"));
    client.expect(&echoed(1, "a"));
    // Halfway to the first idle deadline, a request moves it later.
    thread::sleep(IDLE / 2);
    client.send(&echo(2, "b"));
    client.expect(&echoed(2, "b"));
    // Past the first deadline, well before the second: still open.
    thread::sleep(IDLE * 3 / 5);
    client.send(&echo(3, "c"));
    client.expect(&echoed(3, "c"));
    let last = Instant::now();
    // It closes at the deadline the last request set (started when the
    // server answered, a moment before `last`: hence the tenth of slack;
    // closing at the previous deadline would show as 0.4 IDLE).
    client.expect_closed();
    assert!(
        last.elapsed() >= IDLE * 9 / 10,
        "closed {:?} after the last request",
        last.elapsed()
    );
    server.finish();
}

/// A `subscriptions/listen` stream carries the hub's events and is ended
/// with its result by a graceful shutdown.
pub fn http_a_listen_stream_carries_events_and_ends_on_shutdown<R: Rt>() {
    let hub = Hub::default();
    let (service, _) = service_with(limits(), |b| {
        b.notifications(Notifications::default().tools_list_changed())
            .hub(hub.clone())
    });
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    client.send(&post(
        "Mcp-Method: subscriptions/listen\r\n",
        &format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{{{META},"notifications":{{"toolsListChanged":true}}}}}}"#
        ),
    ));
    client.expect(SSE_HEAD);
    client.expect(&sse_event(
        r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":5},"notifications":{"toolsListChanged":true}}}"#,
    ));
    hub.publish(ChangeEvent::ToolsListChanged);
    client.expect(&sse_event(
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":5}}}"#,
    ));
    server.shutdown.shutdown();
    assert_eq!(
        client.read_to_close(),
        sse_event(
            r#"{"jsonrpc":"2.0","id":5,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/subscriptionId":5},"resultType":"complete"}}"#
        ) + LAST_CHUNK,
        "shutdown ends the stream with its result, then the connection"
    );
    drop(client);
    server.served.within(SOON).expect("serve_http returns Ok");
}

/// A registry change committed while a `subscriptions/listen` stream is
/// open reaches it as `notifications/tools/list_changed`, once; a
/// `tools/list` on another connection after it gets the new list
/// (`server/tools.mdx` § List Changed Notification).
pub fn http_a_registry_commit_reaches_a_listen_stream<R: Rt>() {
    let (service, _) = service_with(limits(), |b| {
        b.changing(Kinds::default().tools())
            .notifications(Notifications::default().tools_list_changed())
    });
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    client.send(&post(
        "Mcp-Method: subscriptions/listen\r\n",
        &format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{{{META},"notifications":{{"toolsListChanged":true}}}}}}"#
        ),
    ));
    client.expect(SSE_HEAD);
    client.expect(&sse_event(
        r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":5},"notifications":{"toolsListChanged":true}}}"#,
    ));
    service
        .registry()
        .change()
        .tool_declared(Tool::new("added", "Added at run time"))
        .remove_tool("echo")
        .commit()
        .expect("the change commits");
    client.expect(&sse_event(
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":5}}}"#,
    ));
    let mut other = server.connect();
    other.send(&post(
        "Mcp-Method: tools/call\r\nMcp-Name: echo\r\n",
        &format!(
            r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{{META},"name":"echo","arguments":{{"text":"x"}}}}}}"#
        ),
    ));
    let body = r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Unknown tool: echo"}}"#;
    assert_eq!(
        other.read_until(body),
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
        "the removed tool is an unknown tool (a method error: 200, as for any unknown tool)"
    );
    drop(other);
    server.shutdown.shutdown();
    client.read_to_close();
    drop(client);
    server.served.within(SOON).expect("serve_http returns Ok");
}

/// A served 2025-11-25 session on a service whose registry changes tell
/// the session's GET stream: the service, the server, the session id.
fn changing_session<R: Rt>() -> (snodo_proto::Service, Server<R>, String) {
    let (service, _) = service_with(limits(), |b| {
        b.changing(Kinds::default().tools())
            .notifications(Notifications::default().tools_list_changed())
    });
    let server = Server::<R>::http(&service, Options::default());
    let sid = open_session(&server);
    (service, server, sid)
}

/// A 2025-11-25 session, initialized on a connection of its own: its id.
fn open_session<R: Rt>(server: &Server<R>) -> String {
    let mut init = server.connect();
    init.send(&session_post(
        None,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    ));
    session_id(&init.head())
}

/// The GET of session `sid`, with a `Last-Event-ID` when resuming.
fn session_get(sid: &str, last: Option<&str>) -> String {
    let last = last.map_or(String::new(), |l| format!("Last-Event-ID: {l}\r\n"));
    format!("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: {sid}\r\n{last}\r\n")
}

/// `notifications/tools/list_changed` as GET stream event `g<n>`, one chunk.
fn list_changed(n: u32) -> String {
    let data = format!(
        "id: g{n}\ndata: {}\n\n",
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}"#
    );
    format!("{:x}\r\n{data}\r\n", data.len())
}

/// Add the tool `name` to `service`'s registry.
fn add_tool(service: &snodo_proto::Service, name: &str) {
    service
        .registry()
        .change()
        .tool_declared(Tool::new(name, "Added at run time"))
        .commit()
        .expect("the change commits");
}

/// A session's GET stream resumes (2025-11-25 `basic/transports.mdx`
/// § Resumability and Redelivery): its events carry ids, and after the
/// client vanished mid-stream a new GET with `Last-Event-ID` gets the
/// change published after that event, whether the old connection wrote it
/// to nobody or it came while no stream was open, and then the next one.
pub fn http_a_session_get_stream_resumes_after_its_client_vanished<R: Rt>() {
    let (service, server, sid) = changing_session::<R>();
    let mut stream = server.connect();
    stream.send(&session_get(&sid, None));
    stream.expect(SSE_HEAD);
    add_tool(&service, "first");
    stream.expect(&list_changed(1));
    drop(stream);
    // Whether or not the server has seen the old connection go yet, the
    // resume is served.
    add_tool(&service, "second");
    let mut resumed = server.connect();
    resumed.send(&session_get(&sid, Some("g1")));
    resumed.expect(SSE_HEAD);
    resumed.expect(&list_changed(2));
    add_tool(&service, "third");
    resumed.expect(&list_changed(3));
    // The session ends: its stream ends too, woken by the DELETE.
    let mut delete = server.connect();
    delete.send(&format!("DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nMCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: {sid}\r\n\r\n"));
    assert!(delete.head().starts_with("HTTP/1.1 200 OK\r\n"));
    assert_eq!(
        resumed.read_to_close(),
        LAST_CHUNK,
        "the stream ends with the session"
    );
    drop(delete);
    server.finish();
}

/// A resume while the old stream is still open (its client's proxy cut
/// it, say, and the server has not noticed): the new GET takes the stream
/// over, the old one ends with its last chunk, and the next event goes out
/// once, on the new stream.
pub fn http_a_session_get_stream_resume_takes_over_an_open_stream<R: Rt>() {
    let (service, server, sid) = changing_session::<R>();
    let mut old = server.connect();
    old.send(&session_get(&sid, None));
    old.expect(SSE_HEAD);
    add_tool(&service, "first");
    old.expect(&list_changed(1));
    let mut resumed = server.connect();
    resumed.send(&session_get(&sid, Some("g1")));
    resumed.expect(SSE_HEAD);
    assert_eq!(
        old.read_to_close(),
        LAST_CHUNK,
        "the old stream ends, with nothing more"
    );
    add_tool(&service, "second");
    resumed.expect(&list_changed(2));
    server.shutdown.shutdown();
    resumed.read_to_close();
    drop(resumed);
    server.served.within(SOON).expect("serve_http returns Ok");
}

/// A session POST's stream resumes (2025-11-25 `basic/transports.mdx`
/// § Sending Messages to the Server 6, § Resumability and Redelivery): it
/// opens with a priming event, its client vanishes after the call's
/// progress, the call runs on, and a GET with `Last-Event-ID` naming the
/// priming event gets the progress again, then the call's answer as it
/// comes, and the stream's end; the connection stays usable.
pub fn http_a_session_post_stream_resumes_after_its_client_vanished<R: Rt>() {
    let (service, probes) = service(limits());
    let server = Server::<R>::http(&service, Options::default());
    let sid = open_session(&server);
    let mut leaving = server.connect();
    leaving.send(&session_post(
        Some(&sid),
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"step","_meta":{"progressToken":"p"}}}"#,
    ));
    let progress = "id: p1-1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"message\":\"waiting\",\"progress\":1.0,\"progressToken\":\"p\"}}\n\n";
    leaving.expect(&format!(
        "{SSE_HEAD}11\r\nid: p1-0\ndata: \n\n\r\n{:x}\r\n{progress}\r\n",
        progress.len()
    ));
    probes.expect_started("step");
    drop(leaving);
    let mut resumed = server.connect();
    resumed.send(&session_get(&sid, Some("p1-0")));
    resumed.expect(&format!("{SSE_HEAD}{:x}\r\n{progress}\r\n", progress.len()));
    probes.latch.release();
    let answer = "id: p1-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"text\":\"released\",\"type\":\"text\"}]}}\n\n";
    resumed.expect(&format!("{:x}\r\n{answer}\r\n{LAST_CHUNK}", answer.len()));
    resumed.send(&session_post(
        Some(&sid),
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
    ));
    resumed.expect(&json_response(
        "200 OK",
        "",
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
    ));
    drop(resumed);
    server.finish();
}

/// The stdio framing over TCP (`serve_tcp`): each connection is served on
/// its own, so one's slow call does not hold up another's answer, and end
/// of input closes each after its answers.
pub fn tcp_line_framed_clients_are_served_independently<R: Rt>() {
    let (service, probes) = service(limits());
    let server = Server::<R>::tcp(&service, Options::default(), snodo_proto::Transport::Stdio);
    let mut slow = server.connect();
    let mut fast = server.connect();
    slow.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"wait\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n");
    probes.expect_started("wait");
    fast.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"fast\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n");
    fast.expect(&(text_result(1, "fast") + "\n"));
    probes.latch.release();
    slow.expect(&(text_result(1, "released") + "\n"));
    for client in [&mut fast, &mut slow] {
        client.stream.shutdown(std::net::Shutdown::Write).unwrap();
        client.expect_closed();
    }
    server.finish();
}

/// Whether a new connection to `server` is refused.
pub fn refused<R>(server: &Server<R>) -> bool {
    TcpStream::connect(server.addr).is_err()
}
