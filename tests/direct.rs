//! The in-process transport: a [`Connection`] fed the request bytes and
//! driven by hand, exactly as the driving contract in
//! `snodo_proto::connection` describes: after every input, drain
//! `poll_output` until `None`.
//!
//! Invocations are run one at a time on this thread, in the order they were
//! emitted, each to completion; the progress and log reports a handler makes
//! while running are handed to the connection before its outcome. Every
//! line of the request goes in with a single `handle_input`, so a second
//! line sees the first one's call still in flight.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use snodo_proto::{CallEvent, CallId, CallSink, Connection, Instant, Invocation, Output, Service};

use crate::block_on::block_on;
use crate::transport::{check_message, Transport};

/// A [`Connection`] on a [`Service`], driven in-process.
pub struct Direct {
    conn: Connection,
    pending: VecDeque<Invocation>,
    written: Vec<u8>,
    closed: bool,
    now: Instant,
}

/// Collects a running handler's reports until they are handed over.
#[derive(Default)]
struct Collect(Mutex<Vec<(CallId, CallEvent)>>);

impl CallSink for Collect {
    fn send(&self, call: CallId, event: CallEvent) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((call, event));
    }
}

impl Direct {
    /// A fresh connection on `service`.
    pub fn new(service: &Service) -> Self {
        Direct {
            conn: Connection::new(service, snodo_proto::Transport::Stdio, Instant::ZERO),
            pending: VecDeque::new(),
            written: Vec::new(),
            closed: false,
            now: Instant::ZERO,
        }
    }

    /// Feed raw bytes (no newline added) and run everything they cause to
    /// completion; return the complete lines written.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Value> {
        self.conn.handle_input(bytes, self.now);
        self.settle()
    }

    /// Signal end of input and run to completion; return the lines written.
    pub fn close_input(&mut self) -> Vec<Value> {
        self.conn.handle_input_closed(self.now);
        self.settle()
    }

    /// Whether the connection emitted [`Output::Close`].
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The raw bytes written so far that do not yet end a line (should be
    /// empty: every message is newline-terminated).
    pub fn partial(&self) -> &[u8] {
        &self.written
    }

    fn drain(&mut self) {
        while let Some(out) = self.conn.poll_output() {
            match out {
                Output::Transmit(bytes) => self.written.extend_from_slice(&bytes),
                Output::Invoke(inv) => self.pending.push_back(inv),
                Output::Cancel(call) => self.pending.retain(|i| i.call != call),
                Output::Close => self.closed = true,
                Output::Respond(r) => panic!("a byte transport answered with a head: {r:?}"),
            }
        }
    }

    fn settle(&mut self) -> Vec<Value> {
        self.drain();
        while let Some(inv) = self.pending.pop_front() {
            let call = inv.call;
            let sink = Arc::new(Collect::default());
            let outcome = block_on(inv.run(sink.clone()));
            let events = std::mem::take(&mut *sink.0.lock().unwrap_or_else(|e| e.into_inner()));
            for (c, event) in events {
                self.conn.call_event(c, event, self.now);
                self.drain();
            }
            self.conn
                .complete(call, outcome, self.now)
                .unwrap_or_else(|e| panic!("completing {call}: {e}"));
            self.drain();
        }
        let mut lines = Vec::new();
        while let Some(nl) = self.written.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.written.drain(..=nl).collect();
            let text = String::from_utf8(line[..nl].to_vec())
                .unwrap_or_else(|e| panic!("server wrote non-UTF-8 bytes: {e}"));
            lines.push(
                check_message(&text)
                    .unwrap_or_else(|e| panic!("server wrote an invalid message: {e}")),
            );
        }
        lines
    }
}

impl Transport for Direct {
    fn exchange(&mut self, request: &str, _responses: usize) -> Vec<Value> {
        // Everything runs to completion before `feed` returns, so there is
        // nothing to wait for.
        let mut bytes = Vec::with_capacity(request.len() + 1);
        bytes.extend_from_slice(request.as_bytes());
        bytes.push(b'\n');
        let out = self.feed(&bytes);
        assert!(
            self.written.is_empty(),
            "server left a partial line: {:?}",
            String::from_utf8_lossy(&self.written)
        );
        out
    }

    fn name(&self) -> String {
        String::from("direct (snodo-proto Connection)")
    }
}
