//! A tiny driver: feed one request line to a fresh connection on the
//! fixture, run every invocation to completion on this thread (forwarding
//! the handler's progress/log events before its outcome, as an adapter
//! would), and return the lines written.

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Wake, Waker};
use std::thread::{self, Thread};

use serde_json::Value;
use snodo_proto::{
    CallEvent, CallId, CallSink, Connection, Instant, Invocation, Output, Transport,
};

/// Every line the connection wrote in answer to `request`, parsed.
pub fn exchange(request: &str) -> Vec<Value> {
    exchange_on(&snodo_conformance::service(), request)
}

/// [`exchange`] on a given build of the fixture (so several exchanges can
/// share its request-state key).
pub fn exchange_on(service: &snodo_proto::Service, request: &str) -> Vec<Value> {
    let mut conn = Connection::new(service, Transport::Stdio, Instant::ZERO);
    let mut written = Vec::new();
    conn.handle_input(request.as_bytes(), Instant::ZERO);
    conn.handle_input(b"\n", Instant::ZERO);
    conn.handle_input_closed(Instant::ZERO);
    let mut pending = drain(&mut conn, &mut written);
    while let Some(inv) = pending.pop() {
        let call = inv.call;
        let sink = Arc::new(Recorder::default());
        let outcome = block_on(inv.run(sink.clone()));
        let events = std::mem::take(&mut *sink.events.lock().unwrap());
        for (id, event) in events {
            assert_eq!(id, call, "a handler reported for another call");
            conn.call_event(id, event, Instant::ZERO);
        }
        conn.complete(call, outcome, Instant::ZERO)
            .expect("the call is in flight");
        pending.extend(drain(&mut conn, &mut written));
    }
    assert!(
        conn.is_closed(),
        "the connection did not close after its last call"
    );
    let text = String::from_utf8(written).expect("output is UTF-8");
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "output does not end with a newline: {text:?}"
    );
    text.lines()
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("not one JSON value per line ({e}): {l}"))
        })
        .collect()
}

/// The single response to `request` (which must have id 1), after any
/// notifications.
pub fn response(request: &str) -> Value {
    let lines = exchange(request);
    let last = lines
        .last()
        .unwrap_or_else(|| panic!("no response to {request}"));
    assert_eq!(last["jsonrpc"], "2.0");
    assert_eq!(last["id"], 1, "response id: {last}");
    for early in &lines[..lines.len() - 1] {
        assert!(
            early.get("id").is_none(),
            "more than one response: {lines:?}"
        );
    }
    last.clone()
}

/// The result of `request`, which must succeed; checks the members every
/// 2026-07-28 result carries.
pub fn result(request: &str) -> Value {
    let resp = response(request);
    assert!(resp.get("error").is_none(), "unexpected error: {resp}");
    let r = resp["result"].clone();
    assert_eq!(r["resultType"], "complete", "{r}");
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "snodo-fixture"
    );
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    r
}

/// The error of `request`, which must fail.
pub fn error(request: &str) -> Value {
    let resp = response(request);
    assert!(resp.get("result").is_none(), "expected an error: {resp}");
    resp["error"].clone()
}

fn drain(conn: &mut Connection, written: &mut Vec<u8>) -> Vec<Invocation> {
    let mut invocations = Vec::new();
    while let Some(out) = conn.poll_output() {
        match out {
            Output::Transmit(bytes) => written.extend_from_slice(&bytes),
            Output::Invoke(inv) => invocations.push(inv),
            Output::Cancel(call) => panic!("unexpected cancellation of {call}"),
            Output::Close => {}
            Output::Respond(r) => panic!("a byte transport answered with a head: {r:?}"),
        }
    }
    invocations
}

#[derive(Default)]
struct Recorder {
    events: Mutex<Vec<(CallId, CallEvent)>>,
}

impl CallSink for Recorder {
    fn send(&self, call: CallId, event: CallEvent) {
        self.events.lock().unwrap().push((call, event));
    }
}

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Poll `f` to completion, parking between polls until woken.
pub fn block_on<F: Future>(f: F) -> F::Output {
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = TaskContext::from_waker(&waker);
    let mut f = pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        thread::park();
    }
}

/// Decode standard base64 (with padding), or `None` if it is not.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    fn sextet(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let bytes = s.as_bytes();
    if bytes.is_empty() || bytes.len() % 4 != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for (i, chunk) in bytes.chunks(4).enumerate() {
        let last = i == bytes.len() / 4 - 1;
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &chunk[..4 - pad] {
            n = (n << 6) | sextet(c)?;
        }
        n <<= 6 * pad as u32;
        let decoded = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&decoded[..3 - pad]);
    }
    Some(out)
}

/// Whether `data` is base64 of a PNG file (signature, then an IHDR chunk).
pub fn is_png(data: &str) -> bool {
    base64_decode(data)
        .is_some_and(|b| b.starts_with(b"\x89PNG\r\n\x1a\n") && b.get(12..16) == Some(b"IHDR"))
}

/// Whether `data` is base64 of a RIFF/WAVE file whose RIFF size matches.
pub fn is_wav(data: &str) -> bool {
    base64_decode(data).is_some_and(|b| {
        b.len() >= 44
            && &b[0..4] == b"RIFF"
            && &b[8..12] == b"WAVE"
            && &b[12..16] == b"fmt "
            && u32::from_le_bytes([b[4], b[5], b[6], b[7]]) as usize == b.len() - 8
    })
}

#[test]
fn base64_decoder_matches_known_vectors() {
    assert_eq!(base64_decode("SGVsbG8=").as_deref(), Some(&b"Hello"[..]));
    assert_eq!(base64_decode("SGVsbG8h").as_deref(), Some(&b"Hello!"[..]));
    assert_eq!(base64_decode("SGk=").as_deref(), Some(&b"Hi"[..]));
    assert_eq!(base64_decode("SGVsbG8"), None);
    assert_eq!(base64_decode("SG=k"), None);
}
