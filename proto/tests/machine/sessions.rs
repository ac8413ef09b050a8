//! Initialize-era sessions under arbitrary operations: handshakes, session
//! requests with real, stale and forged `Mcp-Session-Id`s, answers to the
//! server's requests (right, wrong, forged, late), cancellations, GET
//! streams, DELETE, hang-ups, reconnections, garbage and time jumps, on
//! four HTTP connections and one stdio connection of one service. Calls of
//! the `slow` tool on HTTP are held until a step finishes them, so a
//! client can hang up while one runs.
//!
//! Checked after every step, from the client's side: every HTTP byte
//! belongs to a well-formed response (`wire::Responses`), never more
//! responses than requests on a connection; every message is JSON-RPC,
//! and the only requests the server sends are the session ServerRequests
//! (`elicitation/create` here); stdio answers each request id at most once
//! and never an id it was not sent; the store never holds more than
//! `max_sessions`. A connection whose client hung up while a session call
//! ran (2025-11-25: that is not a cancellation) writes nothing more and
//! closes once its calls end, by finishing, cancellation or timeout.
//! Shared by the property test (`properties.rs`) and the `sessions` fuzz
//! target.

use std::collections::{BTreeSet, VecDeque};
use std::task::{Context, Waker};
use std::time::Duration;

use serde_json::{json, Value};
use snodo_proto::{
    CallToolResult, ElicitRequest, Implementation, InputRequired, Instant, Limits, NoArgs,
    Notifications, Output, ReadResourceResult, Reply, Resource, ResourceArgs, ResourceContents,
    Service, Transport,
};

use super::source::Source;
use super::wire::{Part, Responses};

pub const MAX_SESSIONS: usize = 3;

/// A service with every dialect, few sessions, and a tool that asks.
pub fn service() -> Service {
    Service::builder()
        .server_info(Implementation::new("sessions", "1"))
        .limits(
            Limits::default()
                .max_message_bytes(4096)
                .max_sessions(MAX_SESSIONS)
                .session_idle_timeout(Duration::from_secs(5))
                .call_timeout(Some(Duration::from_secs(3))),
        )
        .logging()
        .notifications(Notifications::default().resource_updates())
        .tool(snodo_proto::Tool::new("echo", "Echo"), |_: NoArgs| async {
            CallToolResult::text("echo")
        })
        .tool(
            snodo_proto::Tool::new("slow", "Answers when the model lets it"),
            |_: NoArgs| async { CallToolResult::text("slow") },
        )
        .tool(
            snodo_proto::Tool::new("ask", "Asks for a name"),
            |_: NoArgs, ctx: snodo_proto::Context| async move {
                if let Some(a) = ctx.elicitation("name") {
                    return Reply::Complete(CallToolResult::text(format!("{:?}", a.action)));
                }
                InputRequired::new()
                    .elicit(
                        "name",
                        ElicitRequest::form(
                            "Name?",
                            json!({"type":"object","properties":{"name":{"type":"string"}}}),
                        ),
                    )
                    .into()
            },
        )
        .resource(
            Resource::new("test://a", "a"),
            |args: ResourceArgs| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri,
                    "text/plain",
                    "A",
                )]))
            },
        )
        .build()
        .expect("the sessions fixture builds")
}

struct Http {
    conn: snodo_proto::Connection,
    parser: Responses,
    sent: usize,
    heads: usize,
    closed: bool,
    /// Random bytes were sent: they may hold no request at all (RFC 9112
    /// § 2.2 lets a server ignore empty lines), so `sent` is only a bound.
    junk: bool,
    /// The method of each request sent and not yet answered, in order.
    pending: VecDeque<&'static str>,
    /// The method of the request the latest response head answered.
    answering: Option<&'static str>,
    /// Calls of `slow`, not run yet.
    held: Vec<snodo_proto::Invocation>,
}

/// A connection whose client hung up while calls of it still ran.
struct Zombie {
    conn: snodo_proto::Connection,
    held: Vec<snodo_proto::Invocation>,
}

struct World {
    service: Service,
    now: Instant,
    http: Vec<Http>,
    zombies: Vec<Zombie>,
    /// Hang-ups that left a connection open for its calls.
    zombies_made: usize,
    stdio: snodo_proto::Connection,
    stdio_sent: BTreeSet<String>,
    stdio_answered: BTreeSet<String>,
    /// Request ids a `notifications/cancelled` named: a request cancelled
    /// in flight is owed no answer.
    cancelled: BTreeSet<String>,
    stdio_buf: Vec<u8>,
    /// Session ids the server issued.
    sids: Vec<String>,
    /// Ids of the server's requests seen.
    server_requests: Vec<u64>,
    next_id: u64,
}

const METHODS: &[&str] = &[
    "ping",
    "tools/list",
    "tools/call",
    "tools/call",
    "resources/read",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "initialize",
    "server/discover",
    "nope",
];

fn initialize(id: u64, caps: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{caps},"clientInfo":{{"name":"f","version":"1"}}}}}}"#
    )
}

fn post(sid: Option<&str>, body: &str) -> Vec<u8> {
    let sid = sid.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
    format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{sid}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Call events are not under test here.
struct NullSink;

impl snodo_proto::CallSink for NullSink {
    fn send(&self, _: snodo_proto::CallId, _: snodo_proto::CallEvent) {}
}

/// The fixture's handlers never wait: one poll finishes them.
fn ready<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => panic!("a fixture handler waited"),
    }
}

/// Carry out what `conn` asks; calls of `slow` go to `held` when given one.
fn run_invocations(
    conn: &mut snodo_proto::Connection,
    now: Instant,
    out: &mut Vec<u8>,
    mut held: Option<&mut Vec<snodo_proto::Invocation>>,
) {
    while let Some(o) = conn.poll_output() {
        match o {
            Output::Transmit(b) => out.extend_from_slice(&b),
            Output::Invoke(inv) => {
                if let (Some(held), snodo_proto::Request::CallTool { name, .. }) =
                    (held.as_deref_mut(), &inv.request)
                {
                    if &**name == "slow" {
                        held.push(inv);
                        continue;
                    }
                }
                let call = inv.call;
                let outcome = ready(inv.run(std::sync::Arc::new(NullSink)));
                let _ = conn.complete(call, outcome, now);
            }
            Output::Cancel(_) | Output::Close | Output::Respond(_) => {}
        }
    }
}

/// Run the held calls: their answers are taken, or refused if the call
/// already ended (cancelled, timed out).
fn finish_held(
    conn: &mut snodo_proto::Connection,
    held: &mut Vec<snodo_proto::Invocation>,
    now: Instant,
) {
    for inv in held.drain(..) {
        let call = inv.call;
        let outcome = ready(inv.run(std::sync::Arc::new(NullSink)));
        let _ = conn.complete(call, outcome, now);
    }
}

impl World {
    fn new() -> World {
        let service = service();
        let now = Instant::from_millis(1_000);
        let http = (0..4).map(|_| Http::new(&service, now)).collect();
        World {
            zombies: Vec::new(),
            zombies_made: 0,
            stdio: snodo_proto::Connection::new(&service, Transport::Stdio, now),
            service,
            now,
            http,
            stdio_sent: BTreeSet::new(),
            stdio_answered: BTreeSet::new(),
            cancelled: BTreeSet::new(),
            stdio_buf: Vec::new(),
            sids: Vec::new(),
            server_requests: Vec::new(),
            next_id: 1,
        }
    }

    fn sid(&mut self, s: &mut Source) -> Option<String> {
        match s.below(8) {
            0 => None,
            1 => Some(String::from("00000000000000000000000000000000")),
            2 => Some(String::from_utf8_lossy(s.bytes(12)).replace(['\r', '\n'], "")),
            _ if self.sids.is_empty() => None,
            _ => Some(s.pick(&self.sids).clone()),
        }
    }

    fn body(&mut self, s: &mut Source) -> String {
        let id = self.next_id;
        self.next_id += 1;
        match s.below(6) {
            0 => {
                const CAPS: [&str; 3] = [r#"{"elicitation":{}}"#, "{}", "[]"];
                initialize(id, CAPS[s.below(3)])
            }
            1 => {
                let rid = if self.server_requests.is_empty() || s.chance(1, 4) {
                    u64::from(s.byte())
                } else {
                    *s.pick(&self.server_requests)
                };
                let result = s.pick(&[
                    r#""result":{"action":"accept","content":{"name":"x"}}"#,
                    r#""result":{"action":"decline"}"#,
                    r#""result":{"action":"accept","content":{"name":1}}"#,
                    r#""error":{"code":-1,"message":"no"}"#,
                    r#""result":7"#,
                ]);
                format!(r#"{{"jsonrpc":"2.0","id":{rid},{result}}}"#)
            }
            2 => {
                let target = if s.chance(1, 2) {
                    id.saturating_sub(1 + s.below(3) as u64)
                } else {
                    id
                };
                self.cancelled.insert(target.to_string());
                format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{target}}}}}"#
                )
            }
            3 => String::from(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            // Often enough that clients hang up while one runs.
            4 => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"slow"}}}}"#
            ),
            _ => {
                let method = *s.pick(METHODS);
                let params = match method {
                    "tools/call" => json!({"name": s.pick(&["echo", "ask", "slow", "missing"])}),
                    "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                        json!({"uri": s.pick(&["test://a", "test://b"])})
                    }
                    "logging/setLevel" => json!({"level": s.pick(&["debug", "error", "loud"])}),
                    "initialize" => json!({"protocolVersion": "2025-06-18"}),
                    _ => json!({}),
                };
                json!({"jsonrpc":"2.0","id": id, "method": method, "params": params}).to_string()
            }
        }
    }

    fn step(&mut self, s: &mut Source) {
        match s.below(11) {
            0..=4 => {
                let i = s.below(self.http.len());
                let sid = self.sid(s);
                let body = self.body(s);
                let bytes = post(sid.as_deref(), &body);
                self.send_http(i, &bytes);
            }
            5 => {
                let i = s.below(self.http.len());
                let sid = self.sid(s).unwrap_or_default();
                let verb = *s.pick(&["GET", "DELETE"]);
                let bytes = format!(
                    "{verb} /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\nMcp-Session-Id: {sid}\r\n\r\n"
                );
                self.send_http(i, bytes.as_bytes());
            }
            6 => {
                let body = self.body(s);
                if let Ok(v) = serde_json::from_str::<Value>(&body) {
                    if v.get("method").is_some() {
                        if let Some(id) = v.get("id") {
                            self.stdio_sent.insert(id.to_string());
                        }
                    }
                }
                let mut line = body.into_bytes();
                line.push(b'\n');
                self.stdio.handle_input(&line, self.now);
            }
            7 => {
                let i = s.below(self.http.len());
                self.http[i].conn.handle_input_closed(self.now);
                self.settle();
                let old = std::mem::replace(&mut self.http[i], Http::new(&self.service, self.now));
                if !old.conn.is_closed() {
                    assert!(
                        old.conn.in_flight() > 0,
                        "connection {i}: open after its client hung up, with no call left"
                    );
                    self.zombies_made += 1;
                    self.zombies.push(Zombie {
                        conn: old.conn,
                        held: old.held,
                    });
                }
            }
            8 => {
                self.now =
                    Instant::from_nanos(self.now.as_nanos() + u64::from(s.u16()) * 1_000_000);
                self.handle_timeouts();
            }
            9 => {
                // The held calls of a connection, or of one whose client left.
                let n = self.http.len() + self.zombies.len();
                let i = s.below(n);
                let now = self.now;
                if i < self.http.len() {
                    let h = &mut self.http[i];
                    finish_held(&mut h.conn, &mut h.held, now);
                } else {
                    let z = &mut self.zombies[i - self.http.len()];
                    finish_held(&mut z.conn, &mut z.held, now);
                }
            }
            _ => {
                let i = s.below(self.http.len());
                let junk = s.bytes(64).to_vec();
                self.send_http(i, &junk);
            }
        }
        self.settle();
    }

    fn send_http(&mut self, i: usize, bytes: &[u8]) {
        let h = &mut self.http[i];
        if h.closed {
            return;
        }
        let verb = [
            ("POST", b"POST ".as_slice()),
            ("GET", b"GET "),
            ("DELETE", b"DELETE "),
        ]
        .into_iter()
        .find(|(_, prefix)| bytes.starts_with(prefix));
        if let Some((verb, _)) = verb {
            h.sent += 1;
            h.pending.push_back(verb);
        } else {
            // Garbage may hold anything; count it as one more request.
            h.sent += 1;
            h.junk = true;
        }
        h.conn.handle_input(bytes, self.now);
    }

    /// Drain every connection (running handlers at once) and deliver what
    /// the store routed, until nothing moves; check what was written.
    fn settle(&mut self) {
        let mut cx = Context::from_waker(Waker::noop());
        for _ in 0..8 {
            let mut moved = false;
            for i in 0..self.http.len() {
                let mut out = Vec::new();
                if self.http[i].conn.poll_changes(&mut cx).is_ready() {
                    self.http[i].conn.handle_changes(self.now);
                }
                let h = &mut self.http[i];
                run_invocations(&mut h.conn, self.now, &mut out, Some(&mut h.held));
                if self.http[i].conn.is_closed() {
                    self.http[i].closed = true;
                }
                if !out.is_empty() {
                    moved = true;
                    self.check_http(i, &out);
                }
            }
            for (z, zombie) in self.zombies.iter_mut().enumerate() {
                if zombie.conn.poll_changes(&mut cx).is_ready() {
                    zombie.conn.handle_changes(self.now);
                }
                let mut out = Vec::new();
                run_invocations(&mut zombie.conn, self.now, &mut out, Some(&mut zombie.held));
                assert!(
                    out.is_empty(),
                    "hung-up connection {z} wrote {:?}",
                    String::from_utf8_lossy(&out)
                );
            }
            self.zombies.retain(|z| !z.conn.is_closed());
            let mut out = Vec::new();
            run_invocations(&mut self.stdio, self.now, &mut out, None);
            if !out.is_empty() {
                moved = true;
                self.check_stdio(&out);
            }
            if !moved {
                break;
            }
        }
        if let Some(store) = self.service.sessions() {
            assert!(
                store.stats().open <= MAX_SESSIONS,
                "more sessions than the limit"
            );
        }
    }

    fn check_http(&mut self, i: usize, out: &[u8]) {
        let mut parts = Vec::new();
        if let Err(e) = self.http[i].parser.push(out, &mut parts) {
            panic!(
                "connection {i} wrote malformed HTTP: {e}\n{}",
                String::from_utf8_lossy(out)
            );
        }
        for p in parts {
            match p {
                Part::Head(h) => {
                    if h.status == 100 {
                        continue;
                    }
                    self.http[i].heads += 1;
                    self.http[i].answering = self.http[i].pending.pop_front();
                    assert!(
                        self.http[i].heads <= self.http[i].sent,
                        "connection {i}: more responses than requests"
                    );
                    if let Some(sid) = h.get("mcp-session-id") {
                        assert_eq!(sid.len(), 32, "session ids are 32 hex digits");
                        self.sids.push(sid.to_owned());
                    }
                }
                // Plain-text refusals (404, 405) carry no JSON.
                Part::Body(b) if serde_json::from_slice::<Value>(&b).is_ok() => {
                    self.check_message(&b);
                }
                Part::Event(Some(data)) => {
                    self.check_message(&data);
                }
                _ => {}
            }
        }
    }

    fn check_stdio(&mut self, out: &[u8]) {
        self.stdio_buf.extend_from_slice(out);
        while let Some(n) = self.stdio_buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.stdio_buf.drain(..=n).collect();
            let v = self.check_message(&line[..line.len() - 1]);
            if v.get("method").is_none() {
                if let Some(id) = v.get("id") {
                    let key = id.to_string();
                    assert!(
                        self.stdio_sent.contains(&key),
                        "stdio answered an id it was not sent: {key}"
                    );
                    assert!(
                        self.stdio_answered.insert(key.clone()),
                        "stdio answered {key} twice"
                    );
                }
            }
        }
    }

    /// One server message: JSON-RPC, and a request only if it is an
    /// `elicitation/create` with an integer id.
    fn check_message(&mut self, text: &[u8]) -> Value {
        let v: Value = serde_json::from_slice(text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(text)));
        assert_eq!(v["jsonrpc"], json!("2.0"), "{v}");
        let method = v.get("method").and_then(Value::as_str);
        let id = v.get("id");
        match (method, id) {
            (Some(m), Some(id)) => {
                assert_eq!(m, "elicitation/create", "an unexpected server request: {v}");
                let n = id
                    .as_u64()
                    .unwrap_or_else(|| panic!("server request ids are integers: {v}"));
                self.server_requests.push(n);
            }
            (Some(_), None) => {}
            (None, _) => assert!(
                v.get("result").is_some() ^ v.get("error").is_some(),
                "a response has exactly one of result and error: {v}"
            ),
        }
        v
    }
}

impl Http {
    /// A new client connection.
    fn new(service: &Service, now: Instant) -> Http {
        Http {
            conn: snodo_proto::Connection::new(service, Transport::Http, now),
            parser: Responses::default(),
            sent: 0,
            heads: 0,
            closed: false,
            junk: false,
            pending: VecDeque::new(),
            answering: None,
            held: Vec::new(),
        }
    }

    /// A session's GET stream stays open and legitimately holds the
    /// requests pipelined behind it.
    fn streaming(&self) -> bool {
        !self.parser.idle() && self.answering == Some("GET")
    }

    /// Open, and a request sent here has no finished response yet.
    fn owes(&self) -> bool {
        !self.closed
            && !self.junk
            && !self.streaming()
            && (self.heads < self.sent || !self.parser.idle())
    }
}

impl World {
    /// Let `seconds` pass on every connection.
    fn advance(&mut self, seconds: u64) {
        self.now = Instant::from_nanos(self.now.as_nanos() + seconds * 1_000_000_000);
        self.handle_timeouts();
        self.settle();
    }

    /// Every connection acts on what is due; none leaves a deadline in the
    /// past (a hung-up one included: its calls still time out).
    fn handle_timeouts(&mut self) {
        let now = self.now;
        let conns = self
            .http
            .iter_mut()
            .map(|h| &mut h.conn)
            .chain(self.zombies.iter_mut().map(|z| &mut z.conn))
            .chain(std::iter::once(&mut self.stdio));
        for conn in conns {
            conn.handle_timeout(now);
            assert!(
                conn.poll_timeout().is_none_or(|d| d > now),
                "a deadline left in the past after handle_timeout"
            );
        }
    }

    /// Every request is answered exactly once, unless its connection
    /// closed (a refusal, `Connection: close`, the client hanging up) or it
    /// was cancelled. First the request deadlines (30 s) pass; then time
    /// moves on in steps just past the 3 s call timeout while some open
    /// connection still owes an answer, since requests pipelined behind a
    /// call that waits for the client each wait in turn. A response never
    /// written keeps its connection owing until the last step, and the
    /// check below fails.
    fn check_everything_answered(&mut self) {
        self.advance(31);
        for _ in 0..512 {
            if !self.http.iter().any(Http::owes) {
                break;
            }
            self.advance(4);
        }
        // Their calls' deadlines have passed: every connection whose
        // client hung up is closed.
        assert!(
            self.zombies.is_empty(),
            "{} hung-up connections never closed",
            self.zombies.len()
        );
        for (i, h) in self.http.iter().enumerate() {
            if h.closed || h.streaming() {
                continue;
            }
            if h.junk {
                assert!(
                    h.heads <= h.sent,
                    "connection {i}: more responses than requests"
                );
                continue;
            }
            assert!(
                h.parser.idle(),
                "connection {i}: the response to a {:?} request never ended",
                h.answering
            );
            assert_eq!(
                h.heads, h.sent,
                "connection {i} is open and idle, yet answered {} of {} requests",
                h.heads, h.sent
            );
        }
        for h in &mut self.http {
            h.conn.handle_input_closed(self.now);
        }
        // EOF on stdio ends calls waiting for an answer with an error.
        self.stdio.handle_input_closed(self.now);
        self.settle();
        for id in self.stdio_sent.difference(&self.stdio_answered) {
            assert!(
                self.cancelled.contains(id),
                "stdio request {id} was never answered nor cancelled"
            );
        }
    }
}

/// Run the operations `data` decodes to.
pub fn run(data: &[u8]) {
    let mut s = Source::new(data);
    let mut w = World::new();
    let mut steps = 0;
    while !s.is_empty() && steps < 200 {
        w.step(&mut s);
        steps += 1;
    }
    w.check_everything_answered();
    if std::env::var_os("SESSIONS_STATS").is_some() {
        eprintln!(
            "sessions issued {}, server requests {}, stdio answered {}, http responses {}, hang-ups with calls running {}",
            w.sids.len(),
            w.server_requests.len(),
            w.stdio_answered.len(),
            w.http.iter().map(|h| h.heads).sum::<usize>(),
            w.zombies_made
        );
    }
}
