//! The client's bookkeeping: what it sent, and whether what came back is
//! allowed. Panics (with the reason) on the first violation.
//!
//! stdio (`basic/transports/stdio.mdx`, `basic/patterns/cancellation.mdx`):
//! every request line gets exactly one response with its id, unless the
//! client cancelled it first, after which nothing about it is written;
//! lines that are not requests get an error at once, or nothing
//! (notifications); progress only for requests in flight, increasing;
//! listen-stream notifications only on open, acknowledged streams.
//!
//! HTTP (`basic/transports/streamable-http.mdx`): well-formed responses,
//! one per request, in order; each JSON body or SSE stream carries exactly
//! one response, last, with the request's id; nothing after a response
//! that closes the connection.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::{Map, Value};

use super::gen::Sent;
use super::wire::{self, key, Message, Part, Responses};

/// What a retry of an input-required request needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Retry {
    pub method: String,
    pub params: Map<String, Value>,
    pub state: String,
    pub requests: Map<String, Value>,
}

/// A request the client has in flight.
#[derive(Clone, Debug)]
struct Open {
    seq: Option<u64>,
    listen: bool,
    acked: bool,
    token: Option<String>,
    last_progress: Option<f64>,
    method: String,
    params: Map<String, Value>,
}

/// How the oracle classifies a received line (independently of proto).
#[derive(Debug)]
pub enum Line {
    /// Nothing to answer: blank.
    Blank,
    /// Answered at once with an error, with this id if any.
    Refused(Option<String>),
    /// A request.
    Request {
        id: Value,
        method: String,
        params: Map<String, Value>,
    },
    /// A notification; `Some` for a cancellation of that id.
    Notification(Option<Value>),
}

pub fn classify(line: &[u8]) -> Line {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Line::Blank;
    }
    let Ok(v) = serde_json::from_slice::<Value>(line) else {
        return Line::Refused(None);
    };
    let Value::Object(obj) = v else {
        return Line::Refused(None);
    };
    let valid = |id: &Value| id.is_string() || id.as_i64().is_some() || id.as_u64().is_some();
    let id = match obj.get("id") {
        None => None,
        Some(id) if valid(id) => Some(id.clone()),
        Some(_) => return Line::Refused(None),
    };
    let refused = |id: &Option<Value>| Line::Refused(id.as_ref().map(key));
    if obj.get("jsonrpc") != Some(&Value::from("2.0")) {
        return refused(&id);
    }
    let method = match obj.get("method") {
        Some(Value::String(m)) => m.clone(),
        Some(_) => return refused(&id),
        None if obj.contains_key("result") || obj.contains_key("error") => {
            return Line::Refused(None)
        }
        None => return refused(&id),
    };
    let params = match obj.get("params") {
        None => Map::new(),
        Some(Value::Object(p)) => p.clone(),
        Some(_) => return refused(&id),
    };
    match id {
        Some(id) => Line::Request { id, method, params },
        None if method == "notifications/cancelled" => {
            Line::Notification(params.get("requestId").filter(|id| valid(id)).cloned())
        }
        None => Line::Notification(None),
    }
}

fn seq_of(params: &Map<String, Value>) -> Option<u64> {
    params.get("_meta")?.get("fuzz.example/seq")?.as_u64()
}

fn token_of(params: &Map<String, Value>) -> Option<String> {
    let t = params.get("_meta")?.get("progressToken")?;
    (t.is_string() || t.as_i64().is_some()).then(|| key(t))
}

/// The stdio client.
#[derive(Debug)]
pub struct Stdio {
    max: usize,
    /// Input not yet ending in a newline, as the server's framer holds it.
    line: Vec<u8>,
    discarding: bool,
    /// Output not yet ending in a newline.
    out: Vec<u8>,
    open: BTreeMap<String, Open>,
    /// Answers due during the current step (`None`: an error without id).
    due: Vec<Option<String>>,
    /// Listen streams ended by the server: a `notifications/cancelled` may follow.
    ended: BTreeSet<String>,
    /// Requests whose invocation was seen, by seq.
    invoked: BTreeSet<u64>,
    pub retry: Option<Retry>,
    pub lines_in: usize,
}

impl Stdio {
    pub fn new(max: usize) -> Self {
        Stdio {
            max,
            line: Vec::new(),
            discarding: false,
            out: Vec::new(),
            open: BTreeMap::new(),
            due: Vec::new(),
            ended: BTreeSet::new(),
            invoked: BTreeSet::new(),
            retry: None,
            lines_in: 0,
        }
    }

    /// Requests in flight.
    pub fn in_flight(&self) -> usize {
        self.open.len()
    }

    pub fn open_ids(&self) -> Vec<String> {
        self.open.keys().cloned().collect()
    }

    /// Bytes the server is about to read (the driver feeds at most one
    /// newline at a time, so each step handles at most one complete line).
    pub fn input(&mut self, mut data: &[u8]) {
        if self.discarding {
            match data.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    self.discarding = false;
                    data = &data[i + 1..];
                }
                None => return,
            }
        }
        self.line.extend_from_slice(data);
        while let Some(i) = self.line.iter().position(|&b| b == b'\n') {
            let mut line: Vec<u8> = self.line.drain(..=i).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if line.len() > self.max {
                self.due.push(None);
            } else {
                self.line_in(&line);
            }
        }
        if self.line.len() > self.max + 1 {
            self.line.clear();
            self.discarding = true;
            self.due.push(None);
        }
    }

    /// End of input: the unterminated last line is read.
    pub fn eof(&mut self) {
        if self.discarding {
            self.discarding = false;
            return;
        }
        let mut line = std::mem::take(&mut self.line);
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if line.len() > self.max {
            self.due.push(None);
        } else {
            self.line_in(&line);
        }
    }

    fn line_in(&mut self, line: &[u8]) {
        self.lines_in += 1;
        match classify(line) {
            Line::Blank => {}
            Line::Refused(id) => self.due.push(id),
            Line::Request { id, method, params } => match self.open.entry(key(&id)) {
                // A duplicate of a request in flight: refused at once.
                Entry::Occupied(e) => self.due.push(Some(e.key().clone())),
                Entry::Vacant(e) => {
                    e.insert(Open {
                        seq: seq_of(&params),
                        listen: method == "subscriptions/listen",
                        acked: false,
                        token: token_of(&params),
                        last_progress: None,
                        method,
                        params,
                    });
                }
            },
            Line::Notification(Some(id)) => {
                // Cancelled: nothing more may be written about it.
                self.open.remove(&key(&id));
            }
            Line::Notification(None) => {}
        }
    }

    /// Bytes the server wrote.
    pub fn output(&mut self, data: &[u8]) {
        self.out.extend_from_slice(data);
        while let Some(i) = self.out.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.out.drain(..=i).collect();
            let line = &line[..line.len() - 1];
            let m = wire::message(line).unwrap_or_else(|e| panic!("stdio: {e}"));
            self.message(m, line);
        }
    }

    fn message(&mut self, m: Message, line: &[u8]) {
        let show = || String::from_utf8_lossy(line).into_owned();
        match m {
            Message::Response { id, outcome } => {
                let k = id.as_ref().map(key);
                if let Some(i) = self.due.iter().position(|d| d == &k) {
                    self.due.remove(i);
                    return;
                }
                let Some(k) = k else {
                    panic!(
                        "stdio: an error without id that nothing called for: {}",
                        show()
                    );
                };
                let Some(open) = self.open.remove(&k) else {
                    panic!(
                        "stdio: a response for id {k}, which is not in flight (answered already, or cancelled): {}",
                        show()
                    );
                };
                if open.listen {
                    self.ended.insert(k);
                }
                if let Ok(result) = outcome {
                    if result.get("resultType") == Some(&Value::from("input_required")) {
                        if let Some(state) = result.get("requestState").and_then(Value::as_str) {
                            self.retry = Some(Retry {
                                method: open.method.clone(),
                                params: open.params.clone(),
                                state: String::from(state),
                                requests: result
                                    .get("inputRequests")
                                    .and_then(Value::as_object)
                                    .cloned()
                                    .unwrap_or_default(),
                            });
                        }
                    }
                }
            }
            Message::Notification { method, params } => {
                self.notification(&method, &params, &show())
            }
        }
    }

    fn notification(&mut self, method: &str, params: &Value, show: &str) {
        match method {
            "notifications/progress" => {
                let token = params.get("progressToken").map(key);
                let progress = params.get("progress").and_then(Value::as_f64);
                let Some(open) = self
                    .open
                    .values_mut()
                    .find(|o| o.token.is_some() && o.token == token)
                else {
                    panic!("stdio: progress for no request in flight: {show}");
                };
                let Some(p) = progress.filter(|p| p.is_finite()) else {
                    panic!("stdio: progress without a finite value: {show}");
                };
                if open.last_progress.is_some_and(|last| p <= last) {
                    panic!("stdio: progress did not increase: {show}");
                }
                open.last_progress = Some(p);
            }
            "notifications/message" => {
                if !params.get("level").is_some_and(Value::is_string)
                    || params.get("data").is_none()
                {
                    panic!("stdio: malformed log message: {show}");
                }
                if !self.open.values().any(|o| !o.listen) {
                    panic!("stdio: a log message with no request in flight: {show}");
                }
            }
            "notifications/cancelled" => {
                let Some(id) = params.get("requestId").map(key) else {
                    panic!("stdio: cancelled without requestId: {show}");
                };
                if !self.ended.remove(&id) {
                    panic!("stdio: the server cancelled {id}, which is not a stream it just ended: {show}");
                }
            }
            "notifications/subscriptions/acknowledged"
            | "notifications/tools/list_changed"
            | "notifications/prompts/list_changed"
            | "notifications/resources/list_changed"
            | "notifications/resources/updated" => {
                let Some(id) = wire::subscription_id(params).map(key) else {
                    panic!("stdio: a stream notification without subscriptionId: {show}");
                };
                let ack = method == "notifications/subscriptions/acknowledged";
                match self.open.get_mut(&id) {
                    Some(o) if o.listen && ack && !o.acked => o.acked = true,
                    Some(o) if o.listen && !ack && o.acked => {}
                    _ => panic!(
                        "stdio: {method} on {id}, which is no open, acknowledged stream: {show}"
                    ),
                }
            }
            _ => panic!("stdio: unexpected notification {method}: {show}"),
        }
    }

    /// An invocation for the request numbered `seq` was handed out.
    pub fn invoked(&mut self, seq: Option<u64>) {
        let Some(seq) = seq else { return };
        if !self.invoked.insert(seq) {
            panic!("stdio: request seq {seq} invoked twice");
        }
        if !self.open.values().any(|o| o.seq == Some(seq)) {
            panic!("stdio: request seq {seq} invoked while not in flight (cancelled or answered)");
        }
    }

    /// The end of one step: every answer due was written.
    pub fn step_done(&mut self) {
        if !self.due.is_empty() {
            panic!("stdio: answers due but not written: {:?}", self.due);
        }
        if !self.out.is_empty() {
            panic!(
                "stdio: a step ended inside an output line: {:?}",
                String::from_utf8_lossy(&self.out)
            );
        }
    }
}

/// One response being read.
#[derive(Debug)]
struct Current {
    status: u16,
    closes: bool,
    json: bool,
    sse: bool,
    final_seen: bool,
    interim: bool,
}

/// The HTTP client of one connection.
#[derive(Debug, Default)]
pub struct Http {
    parser: Responses,
    sent: VecDeque<Sent>,
    /// Something not a well-framed request was sent: the order of
    /// requests and responses is no longer known.
    pub tainted: bool,
    current: Option<Current>,
    /// A response that closes the connection was completed.
    pub closed_by_server: bool,
    pub answered: usize,
    pub retry: Option<Retry>,
}

impl Http {
    pub fn sent(&mut self, sent: Option<&[Sent]>) {
        match sent {
            Some(s) => self.sent.extend(s.iter().cloned()),
            None => self.tainted = true,
        }
    }

    pub fn taint(&mut self) {
        self.tainted = true;
    }

    /// Requests not yet answered, when the order is known.
    pub fn waiting(&self) -> Option<usize> {
        (!self.tainted).then_some(self.sent.len())
    }

    /// A response is being written (an SSE stream, or the rest of a body).
    pub fn mid_response(&self) -> bool {
        self.current.is_some() || !self.parser.idle()
    }

    pub fn output(&mut self, data: &[u8]) {
        if self.closed_by_server {
            panic!(
                "HTTP: bytes after a response that closed the connection: {:?}",
                String::from_utf8_lossy(data)
            );
        }
        let mut parts = Vec::new();
        if let Err(e) = self.parser.push(data, &mut parts) {
            panic!("HTTP: malformed response: {e}");
        }
        for p in parts {
            self.part(p);
        }
    }

    fn part(&mut self, p: Part) {
        match p {
            Part::Head(h) => {
                if self.closed_by_server {
                    panic!("HTTP: a response after one that closed the connection");
                }
                if let Some(c) = &self.current {
                    if !c.interim {
                        panic!("HTTP: a head while a response is still being read");
                    }
                }
                if h.status == 100 {
                    self.current = Some(Current {
                        status: 100,
                        closes: false,
                        json: false,
                        sse: false,
                        final_seen: false,
                        interim: true,
                    });
                    return;
                }
                let ct = h.get("content-type").unwrap_or("").to_ascii_lowercase();
                let plain = ct == "text/plain; charset=utf-8";
                // Refused before the body is read (or not framed): the
                // rest of the stream cannot be trusted, so it closes.
                let refusal =
                    plain || matches!(h.status, 403 | 405 | 406 | 408 | 413 | 415 | 431 | 501);
                if refusal && !h.closes() {
                    panic!("HTTP: refusal {} that keeps the connection open", h.status);
                }
                if plain && !matches!(h.status, 404 | 405) || h.status == 405 && !plain {
                    panic!("HTTP: status {} with content type {ct:?}", h.status);
                }
                if h.status == 202 && (h.get("content-length") != Some("0") || !ct.is_empty()) {
                    panic!("HTTP: 202 with a body");
                }
                let json = ct == "application/json";
                let sse = ct == "text/event-stream";
                if !json && !sse && !plain && h.status != 202 {
                    panic!("HTTP: status {} with content type {ct:?}", h.status);
                }
                if sse && h.status != 200 {
                    panic!("HTTP: an SSE stream with status {}", h.status);
                }
                self.current = Some(Current {
                    status: h.status,
                    closes: h.closes(),
                    json,
                    sse,
                    final_seen: false,
                    interim: false,
                });
                if h.status == 202 {
                    // The body is empty: the parser yields it next.
                    let front = self.sent.front().cloned();
                    if !self.tainted && !front.as_ref().is_some_and(|s| s.notification) {
                        panic!("HTTP: 202 for something not a notification: {front:?}");
                    }
                }
            }
            Part::Body(body) => {
                let c = self.current.take().expect("a body follows a head");
                if c.json {
                    let m = wire::message(&body).unwrap_or_else(|e| panic!("HTTP: {e}"));
                    self.final_message(m, c.status, true);
                } else if c.status != 202 && body.is_empty() && c.status != 404 && c.status != 405 {
                    panic!("HTTP: empty body with status {}", c.status);
                }
                if c.status == 202 || !c.json {
                    self.pop_request(None);
                }
                self.finish(c.closes);
            }
            Part::Event(None) => {
                if !self.current.as_ref().is_some_and(|c| c.sse) {
                    panic!("HTTP: an SSE comment outside a stream");
                }
            }
            Part::Event(Some(data)) => {
                let (final_seen, status) = match &self.current {
                    Some(c) if c.sse => (c.final_seen, c.status),
                    _ => panic!("HTTP: an SSE event outside a stream"),
                };
                if final_seen {
                    panic!(
                        "HTTP: an event after the response ended the stream: {}",
                        String::from_utf8_lossy(&data)
                    );
                }
                let m = wire::message(&data).unwrap_or_else(|e| panic!("HTTP SSE: {e}"));
                match m {
                    Message::Notification { method, params } => {
                        self.stream_notification(&method, &params)
                    }
                    m @ Message::Response { .. } => {
                        if let Some(c) = self.current.as_mut() {
                            c.final_seen = true;
                        }
                        self.final_message(m, status, false);
                    }
                }
            }
            Part::End => {
                let c = self.current.take().expect("an end follows a head");
                if !c.final_seen {
                    panic!("HTTP: an SSE stream ended without a response");
                }
                self.finish(c.closes);
            }
        }
    }

    fn finish(&mut self, closes: bool) {
        self.answered += 1;
        if closes {
            self.closed_by_server = true;
        }
    }

    fn pop_request(&mut self, id: Option<&Value>) -> Option<Sent> {
        let s = self.sent.pop_front();
        if self.tainted {
            return s;
        }
        let Some(s) = s else {
            panic!("HTTP: a response to no request (id {id:?})");
        };
        if let (Some(got), Some(want)) = (id, &s.id) {
            if got != want {
                panic!("HTTP: response id {got} answers request id {want}");
            }
        }
        if id.is_some() && s.id.is_none() {
            panic!("HTTP: a response with id {id:?} to a request without one");
        }
        Some(s)
    }

    fn final_message(&mut self, m: Message, status: u16, json_body: bool) {
        let Message::Response { id, outcome } = m else {
            panic!("HTTP: a notification as the response body");
        };
        if json_body && !wire::status_allowed(&outcome, status) {
            let refusal = id.is_none() && outcome == Err(-32600) && status >= 400;
            if !refusal {
                panic!("HTTP: status {status} with outcome {outcome:?}");
            }
        }
        let sent = self.pop_request(id.as_ref());
        if let (Ok(result), Some((method, params))) = (&outcome, sent.and_then(|s| s.request)) {
            if result.get("resultType") == Some(&Value::from("input_required")) {
                if let Some(state) = result.get("requestState").and_then(Value::as_str) {
                    self.retry = Some(Retry {
                        method,
                        params,
                        state: String::from(state),
                        requests: result
                            .get("inputRequests")
                            .and_then(Value::as_object)
                            .cloned()
                            .unwrap_or_default(),
                    });
                }
            }
        }
    }

    fn stream_notification(&mut self, method: &str, params: &Value) {
        let front = if self.tainted {
            None
        } else {
            self.sent.front()
        };
        match method {
            "notifications/progress" => {
                if let Some(s) = front {
                    if s.token.as_ref().map(key) != params.get("progressToken").map(key) {
                        panic!("HTTP: progress for another request's token: {params}");
                    }
                }
            }
            "notifications/message" => {}
            "notifications/subscriptions/acknowledged"
            | "notifications/tools/list_changed"
            | "notifications/prompts/list_changed"
            | "notifications/resources/list_changed"
            | "notifications/resources/updated" => {
                let sub = wire::subscription_id(params);
                if let Some(s) = front {
                    if sub != s.id.as_ref() {
                        panic!(
                            "HTTP: stream notification for {sub:?} on the response to {:?}",
                            s.id
                        );
                    }
                }
            }
            _ => panic!("HTTP: unexpected notification {method} in a stream"),
        }
    }
}
