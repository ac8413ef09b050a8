//! Operations decoded from a [`Source`]: what clients write (mostly
//! well-formed messages from a small vocabulary, so ids collide, requests
//! queue and cancellations hit; sometimes damaged or raw bytes), what the
//! application does (complete, report, run handlers), and what the world
//! does (time passes, change events fire, peers hang up).

use serde_json::{json, Map, Value};
use snodo_proto::{CallEvent, ChangeEvent, LogLevel, LogMessage, Progress};

use super::fixture::{MAX_MESSAGE, MAX_SUBSCRIPTIONS};
use super::source::Source;

/// Connection slots: two stdio streams, then two HTTP connections.
pub const SLOTS: usize = 4;
pub const STDIO_SLOTS: usize = 2;

pub fn is_http(slot: usize) -> bool {
    slot >= STDIO_SLOTS
}

/// A request (or notification) sent over HTTP, as the client knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Sent {
    /// The JSON-RPC id, if the body is a request with a valid one.
    pub id: Option<Value>,
    /// The body is a notification (answered 202).
    pub notification: bool,
    /// The progress token in its `_meta`.
    pub token: Option<Value>,
    /// Its method and params, to retry it.
    pub request: Option<(String, Map<String, Value>)>,
}

/// What the application answers a call with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    Text,
    ToolError,
    RpcError(i64),
    Structured(bool),
    Resource,
    EmptyResource,
    Prompt,
    Completion(usize),
    AskElicit,
    AskRoots,
    AskSampling,
    AskNothing,
    StateOnly,
    Natural,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Bytes a client writes; on HTTP with the requests they carry
    /// (`None` when the bytes are not a well-framed request).
    Send {
        slot: usize,
        data: Vec<u8>,
        sent: Option<Vec<Sent>>,
    },
    /// Retry the last input-required request with its `requestState`
    /// (damaged when `damage` is set) and answers to its input requests.
    Retry {
        slot: usize,
        damage: Option<(usize, u8)>,
    },
    /// The peer hangs up (EOF on stdio; a disconnect on HTTP).
    CloseInput { slot: usize },
    /// The server begins a graceful shutdown of the connection.
    Shutdown { slot: usize },
    /// A closed slot gets a new connection.
    Reconnect { slot: usize },
    /// Finish a call in flight.
    Complete {
        slot: usize,
        pick: usize,
        answer: Answer,
    },
    /// Run a call's registered handler.
    Run { slot: usize, pick: usize },
    /// A running handler reports something.
    Report {
        slot: usize,
        pick: usize,
        event: CallEvent,
    },
    /// The application reports for or completes a call that already ended.
    Stale {
        slot: usize,
        pick: usize,
        complete: bool,
    },
    /// A change event, through the hub to every connection or straight
    /// into one.
    Publish {
        event: ChangeEvent,
        slot: Option<usize>,
    },
    /// Time passes.
    Advance { millis: u64 },
}

const VERSION: &str = "2026-07-28";

/// Decodes operations. `seq` numbers every generated request; it travels
/// in `_meta` (`fuzz.example/seq`) so an invocation names its request.
pub struct Gen<'s, 'a> {
    pub src: &'s mut Source<'a>,
    pub seq: u64,
    /// The last message was damaged: what the client believes it sent is
    /// no longer what it sent.
    pub damaged: bool,
}

pub fn ops(data: &[u8], max_ops: usize) -> Vec<Op> {
    let mut src = Source::new(data);
    let mut g = Gen {
        src: &mut src,
        seq: 0,
        damaged: false,
    };
    let mut out = Vec::new();
    while !g.src.is_empty() && out.len() < max_ops {
        out.push(g.op());
    }
    out
}

impl Gen<'_, '_> {
    pub fn op(&mut self) -> Op {
        let slot = self.src.below(SLOTS);
        match self.src.below(100) {
            0..=39 => self.send(slot),
            40..=44 => Op::Retry {
                slot,
                damage: if self.src.chance(1, 2) {
                    Some((self.src.below(4096), self.src.byte()))
                } else {
                    None
                },
            },
            45..=46 => Op::CloseInput { slot },
            47 => Op::Shutdown { slot },
            48..=50 => Op::Reconnect { slot },
            51..=64 => Op::Complete {
                slot,
                pick: self.src.below(8),
                answer: self.answer(),
            },
            65..=72 => Op::Run {
                slot,
                pick: self.src.below(8),
            },
            73..=80 => Op::Report {
                slot,
                pick: self.src.below(8),
                event: self.event(),
            },
            81..=82 => Op::Stale {
                slot,
                pick: self.src.below(8),
                complete: self.src.chance(1, 2),
            },
            83..=87 => Op::Publish {
                event: self.change(),
                slot: if self.src.chance(1, 3) {
                    Some(slot)
                } else {
                    None
                },
            },
            _ => Op::Advance {
                millis: if self.src.chance(4, 5) {
                    *self.src.pick(&[0, 1, 10, 500, 999, 1000, 1001])
                } else {
                    *self.src.pick(&[1999, 2000, 2001, 4999, 5000, 6000, 30_001])
                },
            },
        }
    }

    fn answer(&mut self) -> Answer {
        match self.src.below(16) {
            0 => Answer::Text,
            1 => Answer::ToolError,
            2 => Answer::RpcError(*self.src.pick(&[-32603, -32602, -32000, 7, -32601])),
            3 => Answer::Structured(self.src.chance(1, 2)),
            4 => Answer::Resource,
            5 => Answer::EmptyResource,
            6 => Answer::Prompt,
            7 => Answer::Completion(*self.src.pick(&[0, 1, 100, 101, 150])),
            8 => Answer::AskElicit,
            9 => Answer::AskRoots,
            10 => Answer::AskSampling,
            11 => Answer::AskNothing,
            12 | 13 => Answer::StateOnly,
            _ => Answer::Natural,
        }
    }

    fn event(&mut self) -> CallEvent {
        if self.src.chance(2, 3) {
            CallEvent::Progress(Progress {
                progress: *self.src.pick(&[
                    0.0,
                    0.5,
                    1.0,
                    1.0,
                    2.0,
                    -1.0,
                    f64::NAN,
                    f64::INFINITY,
                    1e300,
                ]),
                total: *self
                    .src
                    .pick(&[None, Some(2.0), Some(f64::NAN), Some(-3.0)]),
                message: if self.src.chance(1, 3) {
                    Some(String::from("step"))
                } else {
                    None
                },
            })
        } else {
            CallEvent::Log(LogMessage {
                level: *self.src.pick(&[
                    LogLevel::Debug,
                    LogLevel::Info,
                    LogLevel::Warning,
                    LogLevel::Error,
                    LogLevel::Emergency,
                ]),
                logger: if self.src.chance(1, 2) {
                    Some(String::from("l"))
                } else {
                    None
                },
                data: json!({"n": self.src.byte()}),
            })
        }
    }

    fn change(&mut self) -> ChangeEvent {
        match self.src.below(5) {
            0 => ChangeEvent::ToolsListChanged,
            1 => ChangeEvent::PromptsListChanged,
            2 => ChangeEvent::ResourcesListChanged,
            _ => ChangeEvent::ResourceUpdated {
                uri: String::from(*self.src.pick(&["file:///a.txt", "note://1", "x:y"])),
            },
        }
    }

    fn send(&mut self, slot: usize) -> Op {
        if is_http(slot) {
            let (data, sent) = self.http_bytes();
            Op::Send { slot, data, sent }
        } else {
            Op::Send {
                slot,
                data: self.stdio_bytes(),
                sent: None,
            }
        }
    }

    /// One or a few lines for a stdio stream.
    fn stdio_bytes(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        let lines = 1 + usize::from(self.src.chance(1, 4)) * self.src.below(3);
        for _ in 0..lines {
            match self.src.below(40) {
                0 => out.extend_from_slice(self.src.bytes(64)),
                1 => {
                    // Over the limit, by a little.
                    let n = MAX_MESSAGE - 1 + self.src.below(4);
                    out.extend(std::iter::repeat_n(b'x', n));
                    out.push(b'\n');
                }
                2 => {
                    // Valid JSON padded past the limit.
                    let (text, _, _) = self.message();
                    out.extend_from_slice(&text);
                    out.extend(std::iter::repeat_n(b' ', MAX_MESSAGE));
                    out.push(b'\n');
                }
                3 => out.extend_from_slice(b"\n \r\n\t\n"),
                39 => out.extend_from_slice(self.src.bytes(4096)),
                4 => {
                    // A line without its end: it joins the next one.
                    let (text, _, _) = self.message();
                    out.extend_from_slice(&text[..self.src.below(text.len() + 1)]);
                }
                _ => {
                    let (text, _, _) = self.message();
                    out.extend_from_slice(&text);
                    if self.src.chance(1, 8) {
                        out.push(b'\r');
                    }
                    out.push(b'\n');
                }
            }
        }
        out
    }

    /// One HTTP request (sometimes damaged, or raw bytes).
    fn http_bytes(&mut self) -> (Vec<u8>, Option<Vec<Sent>>) {
        if self.src.chance(1, 40) {
            return (self.src.bytes(4096).to_vec(), None);
        }
        self.damaged = false;
        let (body, sent, mirror) = self.message();
        let mut shape = Shape::good();
        let mut framed_ok = !self.damaged;
        match self.src.below(30) {
            0 => shape.drop = Some(self.src.below(8)),
            1 => {
                let name = self.src.pick(&[
                    "X-Junk",
                    "Accept",
                    "Origin",
                    "Host",
                    "Content-Type",
                    "Mcp-Method",
                ]);
                let value = self.src.bytes(24).to_vec();
                framed_ok = !value.iter().any(|&b| b == b'\r' || b == b'\n');
                shape.extra.push((String::from(*name), value));
            }
            2 => {
                shape.path =
                    String::from(*self.src.pick(&["/other", "/mcp?x=1", "/mcp/", "*", "/MCP"]))
            }
            3 => shape.method = String::from(*self.src.pick(&["GET", "DELETE", "PUT", "post"])),
            4 => shape.extra.push((
                String::from("Origin"),
                self.src
                    .pick(&[&b"http://evil.example"[..], b"http://localhost:1", b"null"])
                    .to_vec(),
            )),
            5 => shape.close = true,
            6 => shape.expect_continue = true,
            7..=10 => shape.chunks = Some(1 + self.src.below(5)),
            11 => shape.minor = 0,
            12 => {
                shape.length_delta = *self.src.pick(&[-1i64, 1, 100_000]);
                framed_ok = false;
            }
            13 => shape
                .extra
                .push((String::from("Transfer-Encoding"), b"gzip".to_vec())),
            14 => shape
                .extra
                .push((String::from("X-Pad"), vec![b'p'; MAX_MESSAGE])),
            15 => {
                for i in 0..14 {
                    shape.extra.push((format!("X-H{i}"), b"1".to_vec()));
                }
            }
            _ => {}
        }
        let data = http_request(&body, &mirror, &shape);
        let sent = framed_ok.then(|| vec![sent]);
        (data, sent)
    }

    fn id(&mut self) -> Value {
        match self.src.below(20) {
            0..=13 => self
                .src
                .pick(&[json!(1), json!(2), json!(3), json!("a"), json!("b")])
                .clone(),
            14..=16 => json!(format!("u{}", self.seq)),
            17 => json!(*self.src.pick(&[0i64, -1, i64::MAX, i64::MIN])),
            18 => json!(u64::MAX),
            _ => self
                .src
                .pick(&[
                    json!(null),
                    json!(1.5),
                    json!(true),
                    json!([]),
                    json!({}),
                    json!(""),
                    json!(1e3),
                ])
                .clone(),
        }
    }

    fn meta(&mut self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert(
            String::from("io.modelcontextprotocol/protocolVersion"),
            if self.src.chance(1, 30) {
                self.src
                    .pick(&[json!("2025-06-18"), json!(""), json!(5)])
                    .clone()
            } else {
                json!(VERSION)
            },
        );
        let caps = match self.src.below(40) {
            0 => None,
            1 => Some(json!("none")),
            2..=15 => Some(json!({})),
            _ => Some(json!({"elicitation": {"form": {}}, "roots": {}, "sampling": {}})),
        };
        if let Some(c) = caps {
            m.insert(
                String::from("io.modelcontextprotocol/clientCapabilities"),
                c,
            );
        }
        m.insert(String::from("fuzz.example/seq"), json!(self.seq));
        if self.src.chance(1, 3) {
            let token = if self.src.chance(1, 2) {
                json!(format!("t{}", self.seq))
            } else {
                json!(self.seq)
            };
            m.insert(String::from("progressToken"), token);
        }
        if self.src.chance(1, 4) {
            m.insert(
                String::from("io.modelcontextprotocol/logLevel"),
                json!(*self
                    .src
                    .pick(&["debug", "info", "error", "debug", "info", "error", "loud"])),
            );
        }
        m
    }

    /// One JSON-RPC message as text, what the client knows about it, and
    /// the HTTP header mirrors a conforming client derives from it.
    pub fn message(&mut self) -> (Vec<u8>, Sent, Mirror) {
        self.seq += 1;
        let mut mirror = Mirror::default();
        let kind = self.src.below(24);
        let (method, params): (&str, Option<Value>) = match kind {
            0 => ("server/discover", None),
            1 => ("tools/list", self.cursor()),
            2..=7 => {
                let name = *self.src.pick(&[
                    "a", "a", "b", "typed", "hdr", "echo", "report", "ask", "nope",
                ]);
                mirror.name = Some(String::from(name));
                let args = match name {
                    "typed" => self
                        .src
                        .pick(&[json!({"n": 1}), json!({"n": "x"}), json!({})])
                        .clone(),
                    "hdr" => {
                        let r = *self.src.pick(&["eu", "us", ""]);
                        mirror.param = Some(String::from(r));
                        json!({"region": r})
                    }
                    "echo" => json!({"text": "hi"}),
                    _ => json!({"k": self.src.byte()}),
                };
                let mut p = json!({"name": name});
                if self.src.chance(4, 5) {
                    p["arguments"] = args;
                }
                ("tools/call", Some(p))
            }
            8..=9 => {
                let uri = *self.src.pick(&[
                    "file:///a.txt",
                    "note://1",
                    "note://x",
                    "nope://",
                    "tree://a/b/c.txt",
                    "tree://a/b/c.tx",
                ]);
                mirror.name = Some(String::from(uri));
                ("resources/read", Some(json!({"uri": uri})))
            }
            10 => (
                *self
                    .src
                    .pick(&["resources/list", "resources/templates/list", "prompts/list"]),
                self.cursor(),
            ),
            11 => {
                mirror.name = Some(String::from("p"));
                let p = if self.src.chance(3, 4) {
                    json!({"name": "p", "arguments": {"x": "1"}})
                } else {
                    json!({"name": "p"})
                };
                ("prompts/get", Some(p))
            }
            12 => (
                "completion/complete",
                Some(
                    json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "x", "value": "v"}}),
                ),
            ),
            13..=14 => {
                let mut filter = Map::new();
                for key in [
                    "toolsListChanged",
                    "promptsListChanged",
                    "resourcesListChanged",
                ] {
                    if self.src.chance(1, 2) {
                        filter.insert(String::from(key), json!(true));
                    }
                }
                if self.src.chance(1, 2) {
                    filter.insert(
                        String::from("resourceSubscriptions"),
                        json!(["file:///a.txt", "note://1"]),
                    );
                }
                (
                    "subscriptions/listen",
                    Some(json!({"notifications": filter})),
                )
            }
            15..=18 => {
                let id = self.id();
                return self.notification(
                    "notifications/cancelled",
                    json!({"requestId": id, "reason": "fuzz"}),
                    mirror,
                );
            }
            19 => {
                let m =
                    *self
                        .src
                        .pick(&["notifications/initialized", "notifications/progress", "x/y"]);
                return self.notification(m, json!({}), mirror);
            }
            20 => (
                *self
                    .src
                    .pick(&["initialize", "ping", "nope/nope", "sampling/createMessage"]),
                None,
            ),
            21 => return self.malformed(mirror),
            _ => (
                "tools/call",
                Some(json!({"name": "a", "arguments": {"s": self.seq}})),
            ),
        };
        if method == "tools/call" && mirror.name.is_none() {
            mirror.name = Some(String::from("a"));
        }
        mirror.method = String::from(method);
        let mut params = match params {
            Some(Value::Object(p)) => p,
            _ => Map::new(),
        };
        let meta = self.meta();
        let token = meta.get("progressToken").cloned();
        if !self.src.chance(1, 40) {
            params.insert(String::from("_meta"), Value::Object(meta));
        }
        let id = self.id();
        let mut msg = json!({"jsonrpc": "2.0", "id": id.clone(), "method": method});
        msg["params"] = Value::Object(params.clone());
        let text = self.damage(serde_json::to_vec(&msg).unwrap_or_default());
        let valid_id =
            matches!(&id, Value::String(_)) || id.as_i64().is_some() || id.as_u64().is_some();
        (
            text,
            Sent {
                id: valid_id.then_some(id),
                notification: false,
                token,
                request: Some((String::from(method), params)),
            },
            mirror,
        )
    }

    fn cursor(&mut self) -> Option<Value> {
        match self.src.below(6) {
            0 => Some(json!({"cursor": "bogus"})),
            1 => Some(json!({"cursor": 3})),
            _ => None,
        }
    }

    fn notification(
        &mut self,
        method: &str,
        params: Value,
        mut mirror: Mirror,
    ) -> (Vec<u8>, Sent, Mirror) {
        mirror.method = String::from(method);
        let msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let text = self.damage(serde_json::to_vec(&msg).unwrap_or_default());
        (
            text,
            Sent {
                id: None,
                notification: true,
                token: None,
                request: None,
            },
            mirror,
        )
    }

    fn malformed(&mut self, mut mirror: Mirror) -> (Vec<u8>, Sent, Mirror) {
        mirror.method = String::from("tools/list");
        let cases: &[&str] = &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}"#,
            r#"{"jsonrpc":"1.0","id":2,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":"a"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/list"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#,
            r#"[]"#,
            r#"42"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}},"id":2}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":\"\u{0}\",\"method\":\"tools/list\"}",
            r#"{"jsonrpc":"2.0","id":1e400,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":1.5}}}"#,
        ];
        let text = cases[self.src.below(cases.len())].as_bytes().to_vec();
        let parsed: Option<Value> = serde_json::from_slice(&text).ok();
        let id = parsed
            .as_ref()
            .and_then(|v| v.get("id"))
            .filter(|id| id.is_string() || id.as_i64().is_some() || id.as_u64().is_some())
            .cloned();
        let notification = parsed.as_ref().is_some_and(|v| {
            v.get("id").is_none() && v.get("method").is_some_and(Value::is_string)
        });
        (
            text,
            Sent {
                id,
                notification,
                token: None,
                request: None,
            },
            mirror,
        )
    }

    /// Occasionally break the text: truncate it, or overwrite one byte.
    fn damage(&mut self, mut text: Vec<u8>) -> Vec<u8> {
        match self.src.below(40) {
            0 => {
                self.damaged = true;
                text.truncate(self.src.below(text.len() + 1));
            }
            1 if !text.is_empty() => {
                self.damaged = true;
                let i = self.src.below(text.len());
                text[i] = self.src.byte();
                if text[i] == b'\n' {
                    text[i] = b' ';
                }
            }
            _ => {}
        }
        text
    }
}

/// What the headers of a request mirror from its body.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mirror {
    pub method: String,
    pub name: Option<String>,
    pub param: Option<String>,
}

/// How a request is framed on HTTP, and how it deviates.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    pub method: String,
    pub path: String,
    pub minor: u8,
    /// Index of a standard header to leave out.
    pub drop: Option<usize>,
    pub extra: Vec<(String, Vec<u8>)>,
    pub close: bool,
    pub expect_continue: bool,
    /// Chunked, in this many chunks.
    pub chunks: Option<usize>,
    /// Added to the true `Content-Length`.
    pub length_delta: i64,
}

impl Shape {
    pub fn good() -> Shape {
        Shape {
            method: String::from("POST"),
            path: String::from("/mcp"),
            minor: 1,
            drop: None,
            extra: Vec::new(),
            close: false,
            expect_continue: false,
            chunks: None,
            length_delta: 0,
        }
    }
}

/// An HTTP/1.1 request carrying `body`, with the headers a conforming
/// client sends (`streamable-http.mdx` § Sending Messages, § Request
/// Metadata), shaped by `shape`.
pub fn http_request(body: &[u8], mirror: &Mirror, shape: &Shape) -> Vec<u8> {
    let mut headers: Vec<(String, Vec<u8>)> = vec![
        (String::from("Host"), b"127.0.0.1:3000".to_vec()),
        (String::from("Content-Type"), b"application/json".to_vec()),
        (
            String::from("Accept"),
            b"application/json, text/event-stream".to_vec(),
        ),
        (
            String::from("MCP-Protocol-Version"),
            VERSION.as_bytes().to_vec(),
        ),
        (
            String::from("Mcp-Method"),
            mirror.method.as_bytes().to_vec(),
        ),
    ];
    if let Some(n) = &mirror.name {
        headers.push((String::from("Mcp-Name"), n.as_bytes().to_vec()));
    }
    if let Some(p) = &mirror.param {
        headers.push((String::from("Mcp-Param-Region"), p.as_bytes().to_vec()));
    }
    if let Some(i) = shape.drop {
        if i < headers.len() {
            headers.remove(i);
        }
    }
    headers.extend(shape.extra.iter().cloned());
    if shape.close {
        headers.push((String::from("Connection"), b"close".to_vec()));
    }
    if shape.expect_continue {
        headers.push((String::from("Expect"), b"100-continue".to_vec()));
    }
    let mut out = Vec::with_capacity(body.len() + 256);
    out.extend_from_slice(
        format!("{} {} HTTP/1.{}\r\n", shape.method, shape.path, shape.minor).as_bytes(),
    );
    for (n, v) in &headers {
        out.extend_from_slice(n.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(v);
        out.extend_from_slice(b"\r\n");
    }
    match shape.chunks {
        Some(n) => {
            out.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
            let size = body.len().div_ceil(n.max(1)).max(1);
            for chunk in body.chunks(size) {
                out.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
                out.extend_from_slice(chunk);
                out.extend_from_slice(b"\r\n");
            }
            out.extend_from_slice(b"0\r\n\r\n");
        }
        None => {
            let length = (body.len() as i64 + shape.length_delta).max(0);
            out.extend_from_slice(format!("Content-Length: {length}\r\n\r\n").as_bytes());
            out.extend_from_slice(body);
        }
    }
    out
}

/// Most listen streams a connection may hold (for the oracles).
pub const STREAMS: usize = MAX_SUBSCRIPTIONS;

/// The operations as text, client bytes shown as (lossy) UTF-8: for
/// failure messages and fuzz crash triage.
pub fn describe(ops: &[Op]) -> String {
    let mut out = String::new();
    for (n, op) in ops.iter().enumerate() {
        let line = match op {
            Op::Send { slot, data, sent } => format!(
                "send slot {slot}{}: {:?}",
                if sent.is_none() && is_http(*slot) {
                    " (unframed)"
                } else {
                    ""
                },
                String::from_utf8_lossy(data)
            ),
            other => format!("{other:?}"),
        };
        out.push_str(&format!("{n:4} {line}\n"));
    }
    out
}

/// Input that decodes to `Op::Send { slot, data: literal }`: how a wire
/// vector becomes a fuzzer seed. Mirrors the choices `op`, `stdio_bytes`
/// and `http_bytes` read (the raw-bytes cases), so it lives beside them.
pub fn encode_send(slot: usize, literal: &[u8]) -> Vec<u8> {
    let len = literal.len().min(4096);
    let mut out = vec![slot as u8, 0];
    if is_http(slot) {
        out.push(0);
    } else {
        out.extend_from_slice(&[1, 0, 39]);
    }
    out.extend_from_slice(&(len as u32).to_be_bytes());
    out.extend_from_slice(&literal[..len]);
    out
}

/// Input that decodes to running (if it has a handler) and then
/// completing, naturally, the first call in flight on `slot`.
pub fn encode_finish_call(slot: usize) -> Vec<u8> {
    vec![slot as u8, 65, 0, slot as u8, 51, 0, 15]
}
