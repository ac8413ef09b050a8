//! Bugs the property tests and fuzz targets found, each pinned with
//! literal wire bytes.

mod support;

use snodo_proto::{CallToolResult, Implementation, Limits, NoArgs, Service, Tool, Transport};
use support::Harness;

fn service(limits: Limits) -> Service {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .limits(limits)
        .tool(Tool::new("work", "Does work"), |_: NoArgs, _| async {
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

/// Found by `properties.rs` (seed 33): cancelling a running call freed its
/// slot but did not start the call queued behind it, which then waited
/// until some other call finished; with none left, forever (and at end of
/// input the connection never closed).
#[test]
fn cancelling_a_running_call_starts_the_next_queued_one() {
    let s = service(Limits {
        max_concurrent_calls: 1,
        max_queued_calls: 4,
        ..Limits::default()
    });
    let mut h = Harness::new(&s, Transport::Stdio);
    h.run_handlers = false;
    assert_eq!(h.send(call(1).as_bytes()), "");
    assert_eq!(h.send(call(2).as_bytes()), "");
    assert_eq!((h.conn.in_flight(), h.conn.queued()), (1, 1));
    let cancel = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}\n";
    assert_eq!(h.send(cancel.as_bytes()), "");
    assert_eq!(h.cancelled.len(), 1, "call 1 is cancelled");
    assert_eq!(
        (h.conn.in_flight(), h.conn.queued()),
        (1, 0),
        "call 2 starts in the freed slot"
    );
    assert_eq!(h.pending.len(), 2, "call 2 was handed out");
    let out = h.run_pending();
    assert_eq!(
        out,
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"t\",\"version\":\"1\"}},\"content\":[{\"text\":\"done\",\"type\":\"text\"}],\"resultType\":\"complete\"}}\n"
    );
    assert_eq!(h.close_input(), "");
    assert!(h.closed, "closes at end of input once every call is done");
}
