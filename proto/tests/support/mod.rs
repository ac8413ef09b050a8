//! A deterministic harness: feeds a `Connection` literal bytes, runs its
//! invocations to completion on the calling thread, and returns what it
//! wrote. No sockets, no threads, no sleeps: time is a value.

#![allow(dead_code)]

use snodo_proto::{CallEvent, CallId, CallSink, Connection, Instant, Output, Service, Transport};
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

/// Collects `CallEvent`s reported by handlers, to feed back into the connection.
#[derive(Default)]
pub struct Events(Mutex<Vec<(CallId, CallEvent)>>);

impl CallSink for Events {
    fn send(&self, call: CallId, event: CallEvent) {
        self.0.lock().unwrap().push((call, event));
    }
}

pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

pub struct Harness {
    pub conn: Connection,
    pub now: Instant,
    /// When false, invocations are held in `pending` instead of run.
    pub run_handlers: bool,
    pub pending: Vec<snodo_proto::Invocation>,
    pub cancelled: Vec<CallId>,
    pub closed: bool,
}

impl Harness {
    pub fn new(service: &Service, transport: Transport) -> Self {
        Harness {
            conn: Connection::new(service, transport, Instant::ZERO),
            now: Instant::ZERO,
            run_handlers: true,
            pending: Vec::new(),
            cancelled: Vec::new(),
            closed: false,
        }
    }

    /// Feed bytes and return everything written in response (as text).
    pub fn send(&mut self, bytes: &[u8]) -> String {
        self.conn.handle_input(bytes, self.now);
        self.drain()
    }

    pub fn close_input(&mut self) -> String {
        self.conn.handle_input_closed(self.now);
        self.drain()
    }

    pub fn advance(&mut self, millis: u64) -> String {
        self.now = Instant::from_nanos(self.now.as_nanos() + millis * 1_000_000);
        self.conn.handle_timeout(self.now);
        self.drain()
    }

    /// Run held invocations now.
    pub fn run_pending(&mut self) -> String {
        let pending = std::mem::take(&mut self.pending);
        let mut out = String::new();
        for inv in pending {
            out.push_str(&self.run(inv));
        }
        out + &self.drain()
    }

    fn run(&mut self, inv: snodo_proto::Invocation) -> String {
        let call = inv.call;
        let events = Arc::new(Events::default());
        let outcome = block_on(inv.run(events.clone()));
        for (c, e) in events.0.lock().unwrap().drain(..) {
            self.conn.call_event(c, e, self.now);
        }
        let _ = self.conn.complete(call, outcome, self.now);
        String::new()
    }

    pub fn drain(&mut self) -> String {
        let mut written = Vec::new();
        loop {
            let Some(out) = self.conn.poll_output() else {
                break;
            };
            match out {
                Output::Transmit(b) => written.extend_from_slice(&b),
                Output::Invoke(inv) => {
                    if self.run_handlers {
                        self.run(inv);
                    } else {
                        self.pending.push(inv);
                    }
                }
                Output::Cancel(c) => self.cancelled.push(c),
                Output::Close => self.closed = true,
                Output::Respond(r) => panic!("a byte transport answered with a head: {r:?}"),
            }
        }
        String::from_utf8(written).expect("output is UTF-8")
    }
}

/// Decode unpadded base64url (test-side, independent of the crate's).
pub fn b64url(text: &str) -> Vec<u8> {
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => panic!("not base64url: {text}"),
        };
        bits = bits << 6 | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    out
}
