//! The ready layers on every runtime (`snodo_proto::layer`): a tool's
//! [`Timeout`] is its call's deadline wherever the connection's timers
//! run, and a [`ConcurrencyLimit`] makes calls wait (not fail) on any
//! executor, a cancelled waiter leaving the queue.

use std::time::Duration;

use snodo_proto::layer::{ConcurrencyLimit, Timeout};
use snodo_tokio::Options;

use crate::client::{json, json_response, Server, Stdio};
use crate::harness::Rt;
use crate::http::{call, text_result};
use crate::service::{limits, service_with, Probes};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn line(id: u64, tool: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}",{META}}}}}"#
    )
}

const TIMED_OUT: &str =
    r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Request timed out"}}"#;

/// No call starts for a while.
fn expect_none_started(probes: &Probes) {
    if let Ok(tool) = probes.started.recv_timeout(Duration::from_millis(300)) {
        panic!("a {tool} call started past the concurrency limit");
    }
}

/// `hang` times out after 200 ms, however long `call_timeout` (300 s).
pub fn stdio_a_tool_timeout_is_its_calls_deadline<R: Rt>() {
    let (service, probes) = service_with(limits(), |b| {
        b.tool_layer("hang", Timeout::new(Duration::from_millis(200)))
    });
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(&line(4, "hang"));
    assert_eq!(c.recv(), json(TIMED_OUT));
    probes.expect_dropped("hang");
    c.finish();
}

pub fn http_a_tool_timeout_is_its_calls_deadline<R: Rt>() {
    let (service, probes) = service_with(limits(), |b| {
        b.tool_layer("hang", Timeout::new(Duration::from_millis(200)))
    });
    let server = Server::<R>::http(&service, Options::default());
    let mut client = server.connect();
    client.send(&call(4, "hang"));
    client.expect(&json_response("200 OK", "", TIMED_OUT));
    probes.expect_dropped("hang");
    drop(client);
    server.finish();
}

/// One `wait` at a time: the second waits for the first, a waiter
/// cancelled leaves the queue, and the next one runs once a slot frees.
pub fn stdio_a_concurrency_limit_queues_calls_and_a_cancelled_waiter_leaves<R: Rt>() {
    let (service, probes) =
        service_with(limits(), |b| b.tool_layer("wait", ConcurrencyLimit::new(1)));
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(&line(1, "wait"));
    probes.expect_started("wait");
    c.send(&line(2, "wait"));
    expect_none_started(&probes);
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#);
    c.send(&line(3, "wait"));
    expect_none_started(&probes);
    probes.latch.release();
    // Had the cancelled call kept its place, the freed slot would be its,
    // and call 3 would never start.
    probes.expect_started("wait");
    // Call 3 finishes at once (the latch is open), so its answer may be
    // written before call 1's: the order of the two is not the test's.
    let mut answers = [c.recv(), c.recv()];
    answers.sort_by_key(|a| a["id"].as_u64());
    assert_eq!(
        answers,
        [
            json(&text_result(1, "released")),
            json(&text_result(3, "released"))
        ]
    );
    c.finish();
}

/// The limit holds across connections: it is the layer's, not theirs.
pub fn http_a_concurrency_limit_holds_across_connections<R: Rt>() {
    let (service, probes) =
        service_with(limits(), |b| b.tool_layer("wait", ConcurrencyLimit::new(1)));
    let server = Server::<R>::http(&service, Options::default());
    let (mut first, mut second) = (server.connect(), server.connect());
    first.send(&call(1, "wait"));
    probes.expect_started("wait");
    second.send(&call(2, "wait"));
    expect_none_started(&probes);
    probes.latch.release();
    first.expect(&json_response("200 OK", "", &text_result(1, "released")));
    probes.expect_started("wait");
    second.expect(&json_response("200 OK", "", &text_result(2, "released")));
    drop((first, second));
    server.finish();
}
