//! The driver: runs [`Op`]s against several connections of one service the
//! way an adapter would (reads only while the connection wants input, in
//! reads of at most [`READ`] bytes; drains after every input; fires
//! deadlines when due), checks the machine's own guarantees after every
//! step, feeds everything written to the client oracles, and records a
//! transcript for comparing runs.
//!
//! Guarantees checked here (`connection.rs` § Guarantees): calls in flight
//! never exceed `max_concurrent_calls`, waiting ones `max_queued_calls`,
//! and a call waits only while every slot is busy; the driver's view of the
//! calls in flight is the connection's; a call ends once (completion,
//! cancellation or timeout) and later reports about it are ignored without
//! output; nothing follows `Close`; on HTTP nothing is written after the
//! client hung up; no deadline is left in the past after `handle_timeout`;
//! at the end, every connection closes once its input ends and its calls
//! finish.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Waker};

use serde_json::{json, Map, Value};
use snodo_proto::{
    BoxFuture, CallEvent, CallId, CallSink, CallToolResult, Completion, Connection, Content,
    CreateMessageRequest, ElicitRequest, ErrorObject, GetPromptResult, Hub, InputRequired, Instant,
    Invocation, Outcome, Output, PromptMessage, ReadResourceResult, Request, ResourceContents,
    Service, Transport,
};

use super::fixture::{MAX_CONCURRENT, MAX_MESSAGE, MAX_QUEUED, MAX_SUBSCRIPTIONS};
use super::gen::{self, is_http, Answer, Mirror, Op, Sent, Shape, SLOTS};
use super::oracle::{self, Retry};

/// Bytes per read, like an adapter's read buffer.
pub const READ: usize = 512;

/// How the bytes a client writes are cut into reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cuts {
    /// At every newline (so one read holds at most one stdio line end)
    /// and every [`READ`] bytes.
    Lines,
    /// Additionally at pseudo-random points drawn from this seed.
    Scattered(u64),
}

/// Reports of running handlers, fed back into the connection.
#[derive(Default)]
struct Reports(Mutex<Vec<(CallId, CallEvent)>>);

impl CallSink for Reports {
    fn send(&self, call: CallId, event: CallEvent) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((call, event));
    }
}

struct Live {
    inv: Option<Invocation>,
    fut: Option<BoxFuture<Outcome>>,
    request: Request,
}

struct Slot {
    http: bool,
    conn: Connection,
    backlog: VecDeque<u8>,
    eof_asked: bool,
    eof_done: bool,
    /// The HTTP client disconnected.
    hung_up: bool,
    live: BTreeMap<CallId, Live>,
    dead: Vec<CallId>,
    seen: BTreeSet<CallId>,
    closed: bool,
    /// When the connection began to wind down (stdio EOF or shutdown):
    /// calls still running `SHUTDOWN_GRACE` later are given up unanswered.
    winding_down: Option<Instant>,
    /// It closed with its grace expired, so requests may be left unanswered.
    abandoned: bool,
    stdio: oracle::Stdio,
    client: oracle::Http,
    transcript: Vec<u8>,
}

impl Slot {
    fn new(service: &Service, http: bool, now: Instant) -> Slot {
        let transport = if http {
            Transport::Http
        } else {
            Transport::Stdio
        };
        Slot {
            http,
            conn: Connection::new(service, transport, now),
            backlog: VecDeque::new(),
            eof_asked: false,
            eof_done: false,
            hung_up: false,
            live: BTreeMap::new(),
            dead: Vec::new(),
            seen: BTreeSet::new(),
            closed: false,
            winding_down: None,
            abandoned: false,
            stdio: oracle::Stdio::new(MAX_MESSAGE),
            client: oracle::Http::default(),
            transcript: Vec::new(),
        }
    }

    fn mark(&mut self, what: &str) {
        self.transcript.extend_from_slice(b"\n@@ ");
        self.transcript.extend_from_slice(what.as_bytes());
        self.transcript.push(b'\n');
    }

    fn retry(&self) -> Option<&Retry> {
        if self.http {
            self.client.retry.as_ref()
        } else {
            self.stdio.retry.as_ref()
        }
    }
}

/// Several connections of one service, and a clock.
pub struct Machine<'s> {
    service: &'s Service,
    hub: &'s Hub,
    now: Instant,
    slots: Vec<Slot>,
    cuts: Cuts,
    rng: u64,
    retries: u64,
    reports: Arc<Reports>,
}

/// Run `ops` and the finale; return each slot's transcript.
pub fn run(service: &Service, hub: &Hub, ops: &[Op], cuts: Cuts) -> Vec<Vec<u8>> {
    let mut m = Machine::new(service, hub, cuts);
    for op in ops {
        m.op(op);
    }
    m.finale();
    m.slots.into_iter().map(|s| s.transcript).collect()
}

/// What a run exercised, to see that the generator reaches the machine's
/// corners (printed by the property tests with `MACHINE_STATS=1`).
pub fn stats(transcripts: &[Vec<u8>]) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    let mut bump = |k: String| *m.entry(k).or_insert(0) += 1;
    for t in transcripts {
        let text = String::from_utf8_lossy(t);
        for line in text.split('\n') {
            if let Some(mark) = line.strip_prefix("@@ ") {
                bump(format!("mark {}", mark.split(' ').next().unwrap_or("")));
                if mark.contains("Some(\"state\")")
                    || mark.starts_with("invoke") && mark.contains("seq Some(10000")
                {
                    bump(String::from("retry invoked"));
                }
            }
            if let Some(i) = line.find("HTTP/1.1 ") {
                bump(format!("http {}", &line[i + 9..(i + 12).min(line.len())]));
            }
            for key in [
                "\"code\":-32",
                "input_required",
                "notifications/progress",
                "notifications/message",
                "acknowledged",
                "list_changed",
                "resources/updated",
                "Invalid requestState",
                "Expired requestState",
                "different request",
                "timed out",
            ] {
                if line.contains(key) {
                    let code = if key.starts_with("\"code") {
                        line.find(key)
                            .map(|i| &line[i + 7..(i + 13).min(line.len())])
                            .unwrap_or("")
                    } else {
                        ""
                    };
                    bump(format!("{key}{code}"));
                    if std::env::var_os("MACHINE_STATS_MESSAGES").is_some()
                        && key.starts_with("\"code")
                    {
                        if let Some(i) = line.find("\"message\":\"") {
                            let rest = &line[i + 11..];
                            let msg: String =
                                rest.chars().take_while(|&c| c != '"').take(60).collect();
                            bump(format!("msg {code} {msg}"));
                        }
                    }
                }
            }
        }
    }
    m
}

/// Run `ops` with every check, then again (determinism) and with scattered
/// reads (split invariance): all three transcripts must agree.
pub fn check(service: &Service, hub: &Hub, ops: &[Op], scatter_seed: u64) {
    let a = run(service, hub, ops, Cuts::Lines);
    let b = run(service, hub, ops, Cuts::Lines);
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        if normalize(x) != normalize(y) {
            panic!(
                "{}",
                difference("the same inputs gave different outputs", i, x, y)
            );
        }
    }
    let c = run(service, hub, ops, Cuts::Scattered(scatter_seed));
    for (i, (x, y)) in a.iter().zip(&c).enumerate() {
        if normalize(x) != normalize(y) {
            panic!(
                "{}",
                difference("cutting reads differently changed the outputs", i, x, y)
            );
        }
    }
}

fn difference(what: &str, slot: usize, a: &[u8], b: &[u8]) -> String {
    let at = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let from = at.saturating_sub(200);
    format!(
        "{what} (slot {slot}, byte {at}):\n--- first ---\n{}\n--- second ---\n{}",
        String::from_utf8_lossy(&a[from.min(a.len())..(at + 200).min(a.len())]),
        String::from_utf8_lossy(&b[from.min(b.len())..(at + 200).min(b.len())]),
    )
}

/// Sealed `requestState` differs between runs (a random nonce seed):
/// blank its characters out (its length does not vary).
pub fn normalize(t: &[u8]) -> Vec<u8> {
    const KEY: &[u8] = b"\"requestState\":\"";
    let mut out = t.to_vec();
    let mut i = 0;
    while let Some(p) = out[i..].windows(KEY.len()).position(|w| w == KEY) {
        let mut j = i + p + KEY.len();
        while j < out.len() && out[j] != b'"' {
            out[j] = b'X';
            j += 1;
        }
        i = j;
    }
    out
}

impl<'s> Machine<'s> {
    pub fn new(service: &'s Service, hub: &'s Hub, cuts: Cuts) -> Self {
        let now = Instant::from_millis(1_700_000_000_000);
        let rng = match cuts {
            Cuts::Lines => 0,
            Cuts::Scattered(s) => s | 1,
        };
        Machine {
            service,
            hub,
            now,
            slots: (0..SLOTS)
                .map(|i| Slot::new(service, is_http(i), now))
                .collect(),
            cuts,
            rng,
            retries: 0,
            reports: Arc::new(Reports::default()),
        }
    }

    pub fn op(&mut self, op: &Op) {
        match op {
            Op::Send { slot, data, sent } => {
                let s = &mut self.slots[*slot];
                if s.closed || s.eof_asked || s.hung_up {
                    return;
                }
                if s.http {
                    s.client.sent(sent.as_deref());
                }
                s.backlog.extend(data.iter().copied());
                self.feed(*slot);
            }
            Op::Retry { slot, damage } => self.retry(*slot, *damage),
            Op::CloseInput { slot } => self.close_input(*slot),
            Op::Shutdown { slot } => {
                let now = self.now;
                let s = &mut self.slots[*slot];
                if s.closed {
                    return;
                }
                s.mark("shutdown");
                s.winding_down.get_or_insert(now);
                s.conn.begin_shutdown(now);
                self.drain(*slot);
                let s = &self.slots[*slot];
                assert!(!s.conn.wants_input(), "wants input after begin_shutdown");
            }
            Op::Reconnect { slot } => {
                if self.slots[*slot].closed {
                    let mut fresh = Slot::new(self.service, is_http(*slot), self.now);
                    fresh.transcript = std::mem::take(&mut self.slots[*slot].transcript);
                    fresh.mark("reconnect");
                    self.slots[*slot] = fresh;
                }
            }
            Op::Complete { slot, pick, answer } => {
                let Some(call) = nth(&self.slots[*slot].live, *pick) else {
                    return;
                };
                let live = &self.slots[*slot].live[&call];
                let outcome = outcome(*answer, &live.request);
                self.complete(*slot, call, outcome);
            }
            Op::Run { slot, pick } => {
                let Some(call) = nth(&self.slots[*slot].live, *pick) else {
                    return;
                };
                self.run_handler(*slot, call);
            }
            Op::Report { slot, pick, event } => {
                let Some(call) = nth(&self.slots[*slot].live, *pick) else {
                    return;
                };
                let now = self.now;
                self.slots[*slot].conn.call_event(call, event.clone(), now);
                self.drain(*slot);
            }
            Op::Stale {
                slot,
                pick,
                complete,
            } => {
                let s = &mut self.slots[*slot];
                if s.dead.is_empty() {
                    return;
                }
                let call = s.dead[pick % s.dead.len()];
                let now = self.now;
                if *complete {
                    let r =
                        s.conn
                            .complete(call, Outcome::CallTool(CallToolResult::text("late")), now);
                    assert!(
                        r.is_err(),
                        "a completion of {call}, which had ended, was accepted"
                    );
                } else {
                    s.conn.call_event(
                        call,
                        CallEvent::Progress(snodo_proto::Progress {
                            progress: 1e9,
                            total: None,
                            message: None,
                        }),
                        now,
                    );
                }
                if let Some(out) = s.conn.poll_output() {
                    panic!("a report about {call}, which had ended, produced {out:?}");
                }
            }
            Op::Publish { event, slot } => {
                let now = self.now;
                match slot {
                    Some(i) => {
                        if !self.slots[*i].closed {
                            self.slots[*i].conn.publish(event, now);
                            self.drain(*i);
                        }
                    }
                    None => {
                        self.hub.publish(event.clone());
                        for i in 0..SLOTS {
                            if !self.slots[i].closed {
                                self.slots[i].conn.handle_changes(now);
                                self.drain(i);
                            }
                        }
                    }
                }
            }
            Op::Advance { millis } => self.advance(*millis),
        }
    }

    fn advance(&mut self, millis: u64) {
        self.now = self.now + std::time::Duration::from_millis(millis);
        let now = self.now;
        for i in 0..SLOTS {
            let due = self.slots[i].conn.poll_timeout().is_some_and(|t| t <= now);
            if due {
                self.slots[i].conn.handle_timeout(now);
                self.drain(i);
                if let Some(t) = self.slots[i].conn.poll_timeout() {
                    assert!(
                        t > now,
                        "slot {i}: a deadline left in the past after handle_timeout"
                    );
                }
                self.feed(i);
            }
        }
    }

    fn close_input(&mut self, i: usize) {
        let now = self.now;
        let s = &mut self.slots[i];
        if s.closed || s.eof_asked || s.hung_up {
            return;
        }
        if s.http {
            s.hung_up = true;
            s.backlog.clear();
            s.mark("hang up");
            s.conn.handle_input_closed(now);
            self.drain(i);
            let s = &self.slots[i];
            assert!(
                s.live.is_empty(),
                "HTTP: calls left running after the client hung up"
            );
            assert!(s.closed, "HTTP: not closed after the client hung up");
        } else {
            s.eof_asked = true;
            self.feed(i);
        }
    }

    /// Read what the client wrote, as far as the connection wants it.
    fn feed(&mut self, i: usize) {
        let now = self.now;
        loop {
            let s = &mut self.slots[i];
            if s.closed || s.backlog.is_empty() || !s.conn.wants_input() {
                break;
            }
            let mut n = s.backlog.len().min(READ);
            if !s.http {
                if let Some(p) = s.backlog.iter().take(n).position(|&b| b == b'\n') {
                    n = p + 1;
                }
            }
            if let Cuts::Scattered(_) = self.cuts {
                self.rng ^= self.rng << 13;
                self.rng ^= self.rng >> 7;
                self.rng ^= self.rng << 17;
                n = 1 + (self.rng as usize) % n;
            }
            let s = &mut self.slots[i];
            let piece: Vec<u8> = s.backlog.drain(..n).collect();
            if !s.http {
                s.stdio.input(&piece);
            }
            s.conn.handle_input(&piece, now);
            self.drain(i);
        }
        let s = &mut self.slots[i];
        if s.eof_asked && !s.eof_done && s.backlog.is_empty() && !s.closed && s.conn.wants_input() {
            s.eof_done = true;
            s.mark("eof");
            s.stdio.eof();
            s.winding_down.get_or_insert(now);
            s.conn.handle_input_closed(now);
            self.drain(i);
        }
    }

    fn complete(&mut self, i: usize, call: CallId, outcome: Outcome) {
        let now = self.now;
        let s = &mut self.slots[i];
        s.live.remove(&call);
        s.dead.push(call);
        s.mark(&format!("complete {}", call.as_u64()));
        let r = s.conn.complete(call, outcome, now);
        assert!(
            r.is_ok(),
            "completion of {call}, which is in flight, refused"
        );
        self.drain(i);
        self.feed(i);
    }

    fn run_handler(&mut self, i: usize, call: CallId) {
        let now = self.now;
        let live = self.slots[i]
            .live
            .get_mut(&call)
            .expect("picked a live call");
        if live.fut.is_none() {
            let Some(inv) = live.inv.take() else { return };
            live.fut = Some(inv.run(self.reports.clone()));
        }
        let mut cx = TaskContext::from_waker(Waker::noop());
        let ready = match live.fut.as_mut().map(|f| f.as_mut().poll(&mut cx)) {
            Some(Poll::Ready(o)) => Some(o),
            _ => None,
        };
        let reports: Vec<_> =
            std::mem::take(&mut *self.reports.0.lock().unwrap_or_else(|p| p.into_inner()));
        for (c, event) in reports {
            assert_eq!(c, call, "a handler reported for another call");
            self.slots[i].conn.call_event(c, event, now);
            self.drain(i);
        }
        if let Some(o) = ready {
            self.complete(i, call, o);
        }
    }

    fn retry(&mut self, i: usize, damage: Option<(usize, u8)>) {
        let s = &self.slots[i];
        if s.closed || s.eof_asked || s.hung_up {
            return;
        }
        let Some(r) = s
            .retry()
            .or_else(|| self.slots.iter().find_map(Slot::retry))
            .cloned()
        else {
            return;
        };
        self.retries += 1;
        let mut state = r.state.clone();
        if let Some((at, byte)) = damage {
            // Always a change, whatever the token (it differs between runs).
            let mut b = state.into_bytes();
            const SUBST: &[u8] = b"AB_-.09az~%";
            let sub = SUBST[usize::from(byte) % SUBST.len()];
            match (byte % 3, b.len()) {
                (_, 0) => b.push(sub),
                (0, n) => {
                    let at = at % n;
                    b[at] = if b[at] == sub {
                        b'~' ^ (b[at] & 1)
                    } else {
                        sub
                    };
                }
                (1, n) => b.insert(at % (n + 1), sub),
                (_, n) => b.truncate(at % n),
            }
            state = String::from_utf8(b).unwrap_or_default();
        }
        let mut params = r.params.clone();
        let seq = 1_000_000 + self.retries;
        params.insert(
            String::from("_meta"),
            json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}, "roots": {}, "sampling": {}},
                "fuzz.example/seq": seq,
            }),
        );
        params.insert(String::from("requestState"), Value::String(state));
        params.insert(
            String::from("inputResponses"),
            Value::Object(responses(&r.requests)),
        );
        let id = json!(format!("r{seq}"));
        let msg = json!({"jsonrpc": "2.0", "id": id.clone(), "method": r.method, "params": params.clone()});
        let body = serde_json::to_vec(&msg).unwrap_or_default();
        let s = &mut self.slots[i];
        if s.http {
            let name = params
                .get("name")
                .or_else(|| params.get("uri"))
                .and_then(Value::as_str)
                .map(String::from);
            let param = params
                .get("arguments")
                .and_then(|a| a.get("region"))
                .and_then(Value::as_str)
                .map(String::from);
            let mirror = Mirror {
                method: r.method.clone(),
                name,
                param,
            };
            let data = gen::http_request(&body, &mirror, &Shape::good());
            s.client.sent(Some(&[Sent {
                id: Some(id),
                notification: false,
                token: None,
                request: Some((r.method.clone(), params)),
            }]));
            s.backlog.extend(data);
        } else {
            s.backlog.extend(body);
            s.backlog.push_back(b'\n');
        }
        self.feed(i);
    }

    /// Drain the connection's outputs and check the machine's guarantees.
    fn drain(&mut self, i: usize) {
        let s = &mut self.slots[i];
        while let Some(out) = s.conn.poll_output() {
            match out {
                Output::Transmit(bytes) => {
                    assert!(!s.closed, "slot {i}: bytes after Close");
                    assert!(!s.hung_up, "slot {i}: HTTP bytes after the client hung up");
                    assert!(!bytes.is_empty(), "slot {i}: an empty Transmit");
                    s.transcript.extend_from_slice(&bytes);
                    if s.http {
                        s.client.output(&bytes);
                    } else {
                        s.stdio.output(&bytes);
                    }
                }
                Output::Invoke(inv) => {
                    assert!(!s.closed, "slot {i}: Invoke after Close");
                    assert!(
                        s.seen.insert(inv.call),
                        "slot {i}: {} handed out twice",
                        inv.call
                    );
                    let seq = inv
                        .meta()
                        .raw()
                        .get("fuzz.example/seq")
                        .and_then(Value::as_u64);
                    if !s.http {
                        s.stdio.invoked(seq);
                    }
                    s.mark(&format!(
                        "invoke {} seq {seq:?} {:?}",
                        inv.call.as_u64(),
                        inv.request
                    ));
                    let request = inv.request.clone();
                    s.live.insert(
                        inv.call,
                        Live {
                            inv: Some(inv),
                            fut: None,
                            request,
                        },
                    );
                }
                Output::Cancel(call) => {
                    assert!(
                        s.live.remove(&call).is_some(),
                        "slot {i}: Cancel of {call}, which is not in flight"
                    );
                    s.dead.push(call);
                    s.mark(&format!("cancel {}", call.as_u64()));
                }
                Output::Respond(r) => {
                    panic!("slot {i}: a byte transport answered with a head: {r:?}")
                }
                Output::Close => {
                    assert!(!s.closed, "slot {i}: Close twice");
                    s.closed = true;
                    s.abandoned = s
                        .winding_down
                        .is_some_and(|t| self.now >= t + super::fixture::SHUTDOWN_GRACE);
                    s.mark("close");
                }
            }
        }
        let c = &s.conn;
        assert!(
            c.in_flight() <= MAX_CONCURRENT,
            "slot {i}: {} calls in flight",
            c.in_flight()
        );
        assert_eq!(
            c.in_flight(),
            s.live.len(),
            "slot {i}: calls in flight, as the connection and the driver count them"
        );
        assert!(
            c.queued() <= MAX_QUEUED,
            "slot {i}: {} calls waiting",
            c.queued()
        );
        assert!(
            c.queued() == 0 || c.in_flight() == MAX_CONCURRENT,
            "slot {i}: {} calls wait while only {} of {MAX_CONCURRENT} slots are busy",
            c.queued(),
            c.in_flight()
        );
        assert!(
            c.subscriptions() <= MAX_SUBSCRIPTIONS,
            "slot {i}: {} streams",
            c.subscriptions()
        );
        if s.closed {
            assert!(c.is_closed());
            assert_eq!(
                (c.in_flight(), c.queued(), c.subscriptions()),
                (0, 0, 0),
                "slot {i}: closed with work left"
            );
            assert!(!c.wants_input(), "slot {i}: closed but wants input");
            assert_eq!(c.poll_timeout(), None, "slot {i}: closed with a deadline");
        }
        if !s.http {
            s.stdio.step_done();
        }
    }

    /// Let everything finish, end every connection, and check the ends.
    pub fn finale(&mut self) {
        self.settle();
        for i in 0..SLOTS {
            let s = &self.slots[i];
            if s.closed || s.hung_up {
                continue;
            }
            if s.http {
                if let Some(waiting) = s.client.waiting() {
                    if waiting > 0
                        && !s.client.mid_response()
                        && s.backlog.is_empty()
                        && !s.client.closed_by_server
                    {
                        panic!("slot {i}: {waiting} HTTP requests never answered");
                    }
                }
            } else if s.backlog.is_empty() && !s.eof_asked {
                let stuck: Vec<String> = s.stdio.open_ids();
                let streams = s.conn.subscriptions();
                assert!(
                    stuck.len() <= streams,
                    "slot {i}: requests {stuck:?} unanswered with nothing running ({streams} streams)"
                );
            }
        }
        for i in 0..SLOTS {
            if self.slots[i].http {
                if !self.slots[i].closed && !self.slots[i].hung_up {
                    let now = self.now;
                    self.slots[i].mark("shutdown");
                    self.slots[i].winding_down.get_or_insert(now);
                    self.slots[i].conn.begin_shutdown(now);
                    self.drain(i);
                }
            } else {
                self.close_input(i);
            }
        }
        self.settle();
        for (i, s) in self.slots.iter().enumerate() {
            assert!(
                s.closed,
                "slot {i}: never closed after its input ended and its calls finished ({:?})",
                s.conn
            );
            // Closing with requests unanswered is allowed only once the
            // shutdown grace is over (`Limits::shutdown_grace`).
            if !s.http && !s.abandoned {
                assert_eq!(
                    s.stdio.in_flight(),
                    0,
                    "slot {i}: requests never answered: {:?}",
                    s.stdio.open_ids()
                );
            }
        }
        self.advance(3_600_000);
    }

    /// Finish every call in flight (running handlers where there are
    /// some), reading what the client still has to say, until nothing moves.
    fn settle(&mut self) {
        for _ in 0..256 {
            let mut moved = false;
            for i in 0..SLOTS {
                self.feed(i);
                while let Some(call) = nth(&self.slots[i].live, 0) {
                    moved = true;
                    let live = &self.slots[i].live[&call];
                    if live.inv.as_ref().is_some_and(Invocation::has_handler) || live.fut.is_some()
                    {
                        self.run_handler(i, call);
                        if self.slots[i].live.contains_key(&call) {
                            let o = outcome(Answer::Natural, &self.slots[i].live[&call].request);
                            self.complete(i, call, o);
                        }
                    } else {
                        let o = outcome(Answer::Natural, &live.request);
                        self.complete(i, call, o);
                    }
                }
            }
            if !moved {
                return;
            }
        }
        panic!("the connections never settle");
    }
}

fn nth(live: &BTreeMap<CallId, Live>, pick: usize) -> Option<CallId> {
    if live.is_empty() {
        return None;
    }
    live.keys().nth(pick % live.len()).copied()
}

/// The answer to an input request, as a client would give it.
fn responses(requests: &Map<String, Value>) -> Map<String, Value> {
    requests
        .iter()
        .map(|(k, r)| {
            let answer = match r.get("method").and_then(Value::as_str) {
                Some("elicitation/create") => json!({"action": "accept", "content": {"name": "Ann"}}),
                Some("roots/list") => json!({"roots": [{"uri": "file:///r", "name": "r"}]}),
                _ => json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}),
            };
            (k.clone(), answer)
        })
        .collect()
}

/// What the application answers `request` with.
pub fn outcome(answer: Answer, request: &Request) -> Outcome {
    let name_form =
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    match answer {
        Answer::Text => Outcome::CallTool(CallToolResult::text("ok")),
        Answer::ToolError => Outcome::CallTool(CallToolResult::error("bad")),
        Answer::RpcError(code) => Outcome::Error(ErrorObject::new(code, "application error")),
        Answer::Structured(ok) => Outcome::CallTool(CallToolResult::structured(if ok {
            json!({"sum": 1})
        } else {
            json!({"sum": "one"})
        })),
        Answer::Resource => {
            let uri = match request {
                Request::ReadResource { uri, .. } => uri.clone(),
                _ => String::from("file:///a.txt"),
            };
            Outcome::ReadResource(ReadResourceResult::new(vec![ResourceContents::text(
                uri,
                "text/plain",
                "hi",
            )]))
        }
        Answer::EmptyResource => Outcome::ReadResource(ReadResourceResult::new(Vec::new())),
        Answer::Prompt => Outcome::GetPrompt(GetPromptResult::new(vec![PromptMessage::user(
            Content::text("hi"),
        )])),
        Answer::Completion(n) => {
            Outcome::Complete(Completion::new((0..n).map(|i| i.to_string()).collect()))
        }
        Answer::AskElicit => Outcome::InputRequired(
            InputRequired::new()
                .elicit("name", ElicitRequest::form("Name?", name_form))
                .state(&json!({"n": 1})),
        ),
        Answer::AskRoots => Outcome::InputRequired(InputRequired::new().list_roots("roots")),
        Answer::AskSampling => Outcome::InputRequired(
            InputRequired::new().sample("s", CreateMessageRequest::user_text("hi", 10)),
        ),
        Answer::AskNothing => Outcome::InputRequired(InputRequired::new()),
        Answer::StateOnly => {
            Outcome::InputRequired(InputRequired::new().state(&json!({"only": true})))
        }
        Answer::Natural => match request {
            Request::CallTool { name, .. } if &**name == "typed" => {
                Outcome::CallTool(CallToolResult::structured(json!({"sum": 1})))
            }
            Request::CallTool { .. } => Outcome::CallTool(CallToolResult::text("ok")),
            Request::ReadResource { uri, .. } => Outcome::ReadResource(ReadResourceResult::new(
                vec![ResourceContents::text(uri.clone(), "text/plain", "hi")],
            )),
            Request::GetPrompt { .. } => {
                Outcome::GetPrompt(GetPromptResult::new(vec![PromptMessage::user(
                    Content::text("hi"),
                )]))
            }
            Request::Complete(_) => Outcome::Complete(Completion::new(vec![String::from("v")])),
            #[allow(unreachable_patterns)]
            _ => Outcome::Error(ErrorObject::internal("unknown request")),
        },
    }
}
