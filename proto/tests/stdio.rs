//! The stdio machine's guarantees, with literal lines: exactly one terminal
//! message per admitted request, nothing after a cancellation, bounded
//! concurrency and queueing, deadlines, and shutdown.

mod support;

use snodo_proto::{
    CallToolResult, Implementation, Limits, NoArgs, Outcome, Service, Tool, Transport,
};
use std::time::Duration;
use support::Harness;

fn service(limits: Limits) -> Service {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .limits(limits)
        .tool(Tool::new("work", "Does work"), |_: NoArgs| async {
            CallToolResult::text("done")
        })
        .build()
        .unwrap()
}

fn call(id: u64) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"work\",\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}}}}}\n"
    )
}

fn done(id: u64) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"_meta\":{{\"io.modelcontextprotocol/serverInfo\":{{\"name\":\"t\",\"version\":\"1\"}}}},\"content\":[{{\"text\":\"done\",\"type\":\"text\"}}],\"resultType\":\"complete\"}}}}\n"
    )
}

fn cancel(id: u64) -> String {
    format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{id},\"reason\":\"user\"}}}}\n")
}

#[test]
fn answered_out_of_order_and_cancelled_calls_stay_silent() {
    let mut h = Harness::new(&service(Limits::default()), Transport::Stdio);
    h.run_handlers = false;
    assert_eq!(h.send((call(1) + &call(2) + &call(3)).as_bytes()), "");
    assert_eq!(h.pending.len(), 3);
    // Cancel 2, then finish 3 before 1.
    assert_eq!(h.send(cancel(2).as_bytes()), "");
    assert_eq!(h.cancelled, vec![h.pending[1].call]);
    let mut p = std::mem::take(&mut h.pending);
    let c3 = p.pop().unwrap();
    let c2 = p.pop().unwrap();
    let c1 = p.pop().unwrap();
    h.conn
        .complete(
            c3.call,
            Outcome::CallTool(CallToolResult::text("done")),
            h.now,
        )
        .unwrap();
    assert_eq!(h.drain(), done(3));
    // The cancelled call's result races the cancel: dropped, and reported so.
    assert!(h
        .conn
        .complete(
            c2.call,
            Outcome::CallTool(CallToolResult::text("done")),
            h.now
        )
        .is_err());
    assert_eq!(h.drain(), "");
    h.conn
        .complete(
            c1.call,
            Outcome::CallTool(CallToolResult::text("done")),
            h.now,
        )
        .unwrap();
    assert_eq!(h.drain(), done(1));
    // A cancel for an unknown or finished request is ignored.
    assert_eq!(h.send((cancel(1) + &cancel(99)).as_bytes()), "");
}

#[test]
fn concurrency_cap_queues_then_stops_reading() {
    let limits = Limits::default()
        .max_concurrent_calls(2)
        .max_queued_calls(2);
    let mut h = Harness::new(&service(limits), Transport::Stdio);
    h.run_handlers = false;
    h.send((call(1) + &call(2) + &call(3)).as_bytes());
    assert_eq!((h.conn.in_flight(), h.conn.queued()), (2, 1));
    assert!(h.conn.wants_input());
    h.send(call(4).as_bytes());
    assert_eq!(h.conn.queued(), 2);
    assert!(!h.conn.wants_input(), "the queue is full: backpressure");
    // A cancellation still gets through, also for a queued call; its slot frees.
    h.send(cancel(4).as_bytes());
    assert_eq!(h.conn.queued(), 1);
    assert!(h.conn.wants_input());
    // Finishing one starts the next queued call.
    let first = h.pending.remove(0);
    h.conn
        .complete(
            first.call,
            Outcome::CallTool(CallToolResult::text("done")),
            h.now,
        )
        .unwrap();
    assert_eq!(h.drain(), done(1));
    assert_eq!((h.conn.in_flight(), h.conn.queued()), (2, 0));
    assert_eq!(
        h.run_pending(),
        done(2) + &done(3),
        "4 was cancelled before it started: never answered"
    );
}

#[test]
fn call_timeout_cancels_and_answers_once() {
    let limits = Limits::default().call_timeout(Some(Duration::from_millis(100)));
    let mut h = Harness::new(&service(limits), Transport::Stdio);
    h.run_handlers = false;
    h.send(call(5).as_bytes());
    assert_eq!(
        h.conn.poll_timeout(),
        Some(snodo_proto::Instant::from_millis(100))
    );
    assert_eq!(h.advance(99), "");
    assert_eq!(
        h.advance(1),
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32603,\"message\":\"Request timed out\"}}\n"
    );
    assert_eq!(h.cancelled.len(), 1);
    assert_eq!(h.run_pending(), "", "a late result is dropped");
    assert_eq!(h.conn.poll_timeout(), None);
}

#[test]
fn duplicate_in_flight_id_is_refused() {
    let mut h = Harness::new(&service(Limits::default()), Transport::Stdio);
    h.run_handlers = false;
    h.send(call(7).as_bytes());
    assert_eq!(
        h.send(call(7).as_bytes()),
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32600,\"message\":\"Request id is already used by a request in flight\"}}\n"
    );
    assert_eq!(h.run_pending(), done(7));
    // Once answered, the id may be used again.
    h.run_handlers = true;
    assert_eq!(h.send(call(7).as_bytes()), done(7));
}

#[test]
fn eof_finishes_calls_in_flight_then_closes() {
    let mut h = Harness::new(&service(Limits::default()), Transport::Stdio);
    h.run_handlers = false;
    // The last line has no newline: it is still a message.
    let last = call(2);
    h.send((call(1) + last.trim_end()).as_bytes());
    assert_eq!(h.pending.len(), 1);
    h.close_input();
    assert_eq!(h.pending.len(), 2);
    assert!(!h.closed);
    assert!(!h.conn.wants_input());
    assert_eq!(h.run_pending(), done(1) + &done(2));
    assert!(h.closed);
}

#[test]
fn begin_shutdown_stops_reading_and_finishes_work() {
    let mut h = Harness::new(&service(Limits::default()), Transport::Stdio);
    h.run_handlers = false;
    h.send((call(1) + "{\"jsonrpc\":").as_bytes());
    h.conn.begin_shutdown(h.now);
    assert!(!h.conn.wants_input());
    assert_eq!(
        h.send(call(2).as_bytes()),
        "",
        "nothing is read after shutdown began"
    );
    assert_eq!(h.run_pending(), done(1));
    assert!(h.closed);
}

#[test]
fn oversized_line_then_recovery() {
    let limits = Limits::default().max_message_bytes(512);
    let mut h = Harness::new(&service(limits), Transport::Stdio);
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"pad\":\"{}\"}}\n",
        "a".repeat(600)
    );
    let out = h.send((big + &call(2)).as_bytes());
    assert_eq!(
        out,
        "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"Message exceeds the maximum size of 512 bytes\"}}\n".to_string()
            + &done(2)
    );
}
