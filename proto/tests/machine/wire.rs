//! What a server may write, checked from the client's side with no help
//! from the code under test: JSON-RPC 2.0 messages as MCP 2026-07-28 shapes
//! them, and HTTP/1.1 responses (RFC 9112) carrying JSON or an SSE stream.

use serde_json::Value;

/// A message the server wrote.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A response: `id` absent only for errors about an unreadable request.
    Response {
        id: Option<Value>,
        /// `Ok(result)` or `Err(code)`.
        outcome: Result<Value, i64>,
    },
    /// A notification.
    Notification { method: String, params: Value },
}

/// Check one JSON text as a server-to-client message; `Err` says what is wrong.
pub fn message(text: &[u8]) -> Result<Message, String> {
    let v: Value = serde_json::from_slice(text)
        .map_err(|e| format!("not JSON ({e}): {}", String::from_utf8_lossy(text)))?;
    let show = || String::from_utf8_lossy(text).into_owned();
    let obj = v
        .as_object()
        .ok_or_else(|| format!("not an object: {}", show()))?;
    if obj.get("jsonrpc") != Some(&Value::from("2.0")) {
        return Err(format!("jsonrpc is not \"2.0\": {}", show()));
    }
    if let Some(method) = obj.get("method") {
        // The 2026-07-28 server sends no requests: a method means a notification.
        let method = method
            .as_str()
            .ok_or_else(|| format!("method not a string: {}", show()))?;
        if obj.contains_key("id") || obj.contains_key("result") || obj.contains_key("error") {
            return Err(format!("a server request or a hybrid: {}", show()));
        }
        let params = obj.get("params").cloned().unwrap_or(Value::Null);
        if !params.is_object() {
            return Err(format!("notification params not an object: {}", show()));
        }
        return Ok(Message::Notification {
            method: String::from(method),
            params,
        });
    }
    let id = match obj.get("id") {
        None => None,
        Some(id) if id.is_string() || id.as_i64().is_some() || id.as_u64().is_some() => {
            Some(id.clone())
        }
        Some(other) => return Err(format!("invalid id {other}: {}", show())),
    };
    let outcome = match (obj.get("result"), obj.get("error")) {
        (Some(r), None) => {
            if id.is_none() {
                return Err(format!("a result without an id: {}", show()));
            }
            let result = r
                .as_object()
                .ok_or_else(|| format!("result not an object: {}", show()))?;
            match result.get("resultType").and_then(Value::as_str) {
                Some("complete" | "input_required") => {}
                _ => return Err(format!("result without a valid resultType: {}", show())),
            }
            Ok(r.clone())
        }
        (None, Some(e)) => {
            let code = e
                .get("code")
                .and_then(Value::as_i64)
                .ok_or_else(|| format!("error without an integer code: {}", show()))?;
            if !e.get("message").is_some_and(Value::is_string) {
                return Err(format!("error without a message: {}", show()));
            }
            if e.as_object().is_some_and(|o| {
                o.keys()
                    .any(|k| !["code", "message", "data"].contains(&k.as_str()))
            }) {
                return Err(format!("error with unknown members: {}", show()));
            }
            Err(code)
        }
        _ => return Err(format!("not exactly one of result and error: {}", show())),
    };
    if obj
        .keys()
        .any(|k| !["jsonrpc", "id", "result", "error"].contains(&k.as_str()))
    {
        return Err(format!("response with unknown members: {}", show()));
    }
    Ok(Message::Response { id, outcome })
}

/// A canonical text for an id, for use as a map key (`1` and `"1"` differ).
pub fn key(id: &Value) -> String {
    id.to_string()
}

/// The `_meta` subscription id of a listen-stream notification.
pub fn subscription_id(params: &Value) -> Option<&Value> {
    params
        .get("_meta")?
        .get("io.modelcontextprotocol/subscriptionId")
}

/// One HTTP response head.
#[derive(Clone, Debug, PartialEq)]
pub struct Head {
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl Head {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn closes(&self) -> bool {
        self.get("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"))
    }
}

/// What the response parser produced.
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// A complete head (interim `100` included).
    Head(Head),
    /// A complete `Content-Length` body.
    Body(Vec<u8>),
    /// One SSE event's `data`, or a comment (`None`).
    Event(Option<Vec<u8>>),
    /// The end of a chunked body.
    End,
}

#[derive(Debug)]
enum State {
    Head,
    Length(usize),
    ChunkSize,
    ChunkData(usize),
    ChunkEnd,
    LastCrlf,
}

/// An incremental, strict HTTP/1.1 response parser: a server that writes
/// anything else is wrong.
#[derive(Debug)]
pub struct Responses {
    buf: Vec<u8>,
    state: State,
    /// SSE bytes of the current chunked body not yet forming a whole event.
    sse: Vec<u8>,
}

impl Default for Responses {
    fn default() -> Self {
        Responses {
            buf: Vec::new(),
            state: State::Head,
            sse: Vec::new(),
        }
    }
}

impl Responses {
    /// Whether the parser sits between responses with nothing pending.
    pub fn idle(&self) -> bool {
        matches!(self.state, State::Head) && self.buf.is_empty()
    }

    pub fn push(&mut self, data: &[u8], parts: &mut Vec<Part>) -> Result<(), String> {
        self.buf.extend_from_slice(data);
        loop {
            match self.state {
                State::Head => {
                    let Some(end) = find(&self.buf, b"\r\n\r\n") else {
                        if self.buf.len() > 64 * 1024 {
                            return Err(String::from("response head longer than 64 KiB"));
                        }
                        return Ok(());
                    };
                    let head_bytes: Vec<u8> = self.buf.drain(..end + 4).collect();
                    let head = parse_head(&head_bytes[..end])?;
                    let length = head.get("content-length");
                    let chunked = head.get("transfer-encoding");
                    if head.status == 100 {
                        if length.is_some() || chunked.is_some() {
                            return Err(String::from("100 Continue with a body"));
                        }
                        parts.push(Part::Head(head));
                        continue;
                    }
                    match (length, chunked) {
                        (Some(n), None) => {
                            let n: usize = n
                                .parse()
                                .map_err(|_| format!("bad Content-Length {n:?}"))?;
                            self.state = State::Length(n);
                        }
                        (None, Some(te)) if te.eq_ignore_ascii_case("chunked") => {
                            self.state = State::ChunkSize;
                            let sse = head
                                .get("content-type")
                                .is_some_and(|c| c.eq_ignore_ascii_case("text/event-stream"));
                            if !sse {
                                return Err(String::from("a chunked body that is not SSE"));
                            }
                        }
                        _ => {
                            return Err(format!(
                                "response framing: Content-Length {length:?}, Transfer-Encoding {chunked:?}"
                            ))
                        }
                    }
                    parts.push(Part::Head(head));
                }
                State::Length(n) => {
                    if self.buf.len() < n {
                        return Ok(());
                    }
                    let body: Vec<u8> = self.buf.drain(..n).collect();
                    self.state = State::Head;
                    parts.push(Part::Body(body));
                }
                State::ChunkSize => {
                    let Some(end) = find(&self.buf, b"\r\n") else {
                        if self.buf.len() > 32 {
                            return Err(String::from("chunk size line too long"));
                        }
                        return Ok(());
                    };
                    let line: Vec<u8> = self.buf.drain(..end + 2).collect();
                    let text =
                        std::str::from_utf8(&line[..end]).map_err(|_| "chunk size not ASCII")?;
                    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return Err(format!("bad chunk size line {text:?}"));
                    }
                    let size =
                        usize::from_str_radix(text, 16).map_err(|_| "chunk size overflow")?;
                    self.state = if size == 0 {
                        State::LastCrlf
                    } else {
                        State::ChunkData(size)
                    };
                }
                State::ChunkData(n) => {
                    if self.buf.is_empty() {
                        return Ok(());
                    }
                    let take = n.min(self.buf.len());
                    let data: Vec<u8> = self.buf.drain(..take).collect();
                    self.sse.extend_from_slice(&data);
                    self.state = if take == n {
                        State::ChunkEnd
                    } else {
                        State::ChunkData(n - take)
                    };
                    self.events(parts)?;
                }
                State::ChunkEnd | State::LastCrlf => {
                    if self.buf.len() < 2 {
                        return Ok(());
                    }
                    if &self.buf[..2] != b"\r\n" {
                        return Err(String::from(
                            "chunk not followed by CRLF (trailers are not sent)",
                        ));
                    }
                    self.buf.drain(..2);
                    if matches!(self.state, State::LastCrlf) {
                        if !self.sse.is_empty() {
                            return Err(format!(
                                "SSE stream ends inside an event: {:?}",
                                String::from_utf8_lossy(&self.sse)
                            ));
                        }
                        self.state = State::Head;
                        parts.push(Part::End);
                    } else {
                        self.state = State::ChunkSize;
                    }
                }
            }
        }
    }

    /// Split whole SSE events off `self.sse`. snodo writes each event as
    /// `data: <one line of JSON>\n\n`, on a session's resumable stream
    /// after an `id: g<n>` or `id: p<k>-<n>` line, a POST stream's priming
    /// event as `id: p<k>-0\ndata: \n\n` (read as carrying no message, like
    /// a keep-alive), and keep-alives as `:\n\n`.
    fn events(&mut self, parts: &mut Vec<Part>) -> Result<(), String> {
        while let Some(end) = find(&self.sse, b"\n\n") {
            let whole: Vec<u8> = self.sse.drain(..end + 2).collect();
            let mut event = &whole[..end];
            let mut id = None;
            if let Some(rest) = event.strip_prefix(b"id: ") {
                let line = find(rest, b"\n").ok_or("an SSE id without data")?;
                if !event_id(&rest[..line]) {
                    return Err(format!(
                        "malformed SSE id {:?}",
                        String::from_utf8_lossy(&rest[..line])
                    ));
                }
                id = Some(&rest[..line]);
                event = &rest[line + 1..];
            }
            if event == b"data: " {
                if !id.is_some_and(|id| id.starts_with(b"p") && id.ends_with(b"-0")) {
                    return Err(String::from("an empty data that is not a priming event"));
                }
                parts.push(Part::Event(None));
            } else if event.starts_with(b":") {
                if event.contains(&b'\n') {
                    return Err(String::from("multi-line SSE comment"));
                }
                parts.push(Part::Event(None));
            } else if let Some(data) = event.strip_prefix(b"data: ") {
                if data.contains(&b'\n') || data.contains(&b'\r') {
                    return Err(String::from("SSE data spans lines"));
                }
                parts.push(Part::Event(Some(data.to_vec())));
            } else {
                return Err(format!(
                    "unexpected SSE event {:?}",
                    String::from_utf8_lossy(event)
                ));
            }
        }
        Ok(())
    }
}

/// `g<n>` or `p<k>-<n>`, as snodo names its events.
fn event_id(id: &[u8]) -> bool {
    let digits = |d: &[u8]| !d.is_empty() && d.iter().all(u8::is_ascii_digit);
    match id.split_first() {
        Some((b'g', n)) => digits(n),
        Some((b'p', rest)) => {
            let mut halves = rest.splitn(2, |&b| b == b'-');
            matches!((halves.next(), halves.next()), (Some(k), Some(n)) if digits(k) && digits(n))
        }
        _ => false,
    }
}

fn parse_head(bytes: &[u8]) -> Result<Head, String> {
    let text =
        std::str::from_utf8(bytes).map_err(|_| String::from("response head is not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let rest = status_line
        .strip_prefix("HTTP/1.1 ")
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    let (code, reason) = rest
        .split_once(' ')
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_digit()) || reason.is_empty() {
        return Err(format!("bad status line {status_line:?}"));
    }
    let status: u16 = code.parse().map_err(|_| format!("bad status {code}"))?;
    let mut headers = Vec::new();
    for line in lines {
        let (name, value) = line
            .split_once(": ")
            .ok_or_else(|| format!("bad header line {line:?}"))?;
        let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        if name.is_empty() || !name.bytes().all(tchar) {
            return Err(format!("bad header name {name:?}"));
        }
        if !value
            .bytes()
            .all(|b| b == b'\t' || (0x20..0x7f).contains(&b))
        {
            return Err(format!("bad header value {value:?}"));
        }
        if headers
            .iter()
            .any(|(n, _): &(String, String)| n.eq_ignore_ascii_case(name))
        {
            return Err(format!("header {name} repeated"));
        }
        headers.push((String::from(name), String::from(value)));
    }
    Ok(Head { status, headers })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The HTTP status a JSON-RPC outcome may travel with (the transport's
/// mapping, `streamable-http.mdx` and `basic/index.mdx`).
pub fn status_allowed(outcome: &Result<Value, i64>, status: u16) -> bool {
    match outcome {
        Ok(_) => status == 200,
        Err(-32700 | -32600 | -32020 | -32021 | -32022) => status == 400,
        Err(-32601) => status == 404,
        Err(-32602) => status == 400 || status == 200,
        Err(_) => status == 200,
    }
}
