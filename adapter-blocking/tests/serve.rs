//! `serve` over in-memory stdin/stdout, speaking the wire: every request is
//! a literal JSON line, every expectation a literal JSON message or a value
//! read from one.

mod support;

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json as j, Value};
use snodo_proto::{CallToolResult, Implementation, Limits, NoArgs, Service, Tool};
use support::StdioOptions;
use support::{json, response_ids, sleep, Probes, Server, SOON};

#[derive(Deserialize)]
struct Text {
    text: String,
}

#[derive(Deserialize)]
struct SleepArgs {
    ms: u64,
    text: String,
}

/// The test service and the probes into its `wait` and `hang` tools.
struct Fixture {
    service: Service,
    probes: Probes,
}

fn fixture(limits: Limits) -> Fixture {
    let (probes, tools) = support::probes();
    let text_schema =
        j!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]});
    let sleep_schema = j!({
        "type":"object",
        "properties":{"ms":{"type":"integer","minimum":0,"maximum":1000},"text":{"type":"string"}},
        "required":["ms","text"]
    });
    let (w, h) = (tools.clone(), tools);
    let service = Service::builder()
        .server_info(Implementation::new("blocking-test", "1.0.0"))
        .limits(limits)
        .tool(
            Tool::new("echo", "Echo text").input_schema(text_schema),
            |a: Text, _ctx| async move { CallToolResult::text(a.text) },
        )
        .tool(
            Tool::new("sleep", "Answer after ms milliseconds").input_schema(sleep_schema),
            |a: SleepArgs, _ctx| async move {
                sleep(Duration::from_millis(a.ms)).await;
                CallToolResult::text(a.text)
            },
        )
        .tool(
            Tool::new("wait", "Answer once the test releases the latch"),
            move |_: NoArgs, _ctx| {
                let wait = w.wait();
                async move {
                    wait.await;
                    "released"
                }
            },
        )
        .tool(Tool::new("hang", "Never answer"), move |_: NoArgs, _ctx| {
            let hang = h.hang();
            async move {
                hang.await;
                "unreachable"
            }
        })
        .tool(Tool::new("boom", "Panic"), |_: NoArgs, _ctx| async move {
            if true {
                panic!("handler bug");
            }
            "unreachable"
        })
        .tool(
            Tool::new("steps", "Report progress twice"),
            |_: NoArgs, ctx| async move {
                ctx.progress(1.0, Some(2.0), Some("half".into()));
                sleep(Duration::from_millis(1)).await;
                ctx.progress(2.0, Some(2.0), None);
                "done"
            },
        )
        .build()
        .expect("test service builds");
    Fixture { service, probes }
}

fn default_fixture() -> Fixture {
    fixture(Limits::default())
}

const SERVER_META: &str =
    r#"{"io.modelcontextprotocol/serverInfo":{"name":"blocking-test","version":"1.0.0"}}"#;

fn text_result(id: u64, text: &str) -> Value {
    let mut v = json(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{text}"}}],"resultType":"complete"}}}}"#
    ));
    v["result"]["_meta"] = json(SERVER_META);
    v
}

#[test]
fn discover_is_answered_and_eof_ends_serve() {
    let f = default_fixture();
    let mut server = Server::start(&f.service, StdioOptions::default());
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    let reply = server.next();
    assert_eq!(reply["jsonrpc"], "2.0");
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["result"]["supportedVersions"], j!(["2026-07-28"]));
    assert_eq!(reply["result"]["capabilities"]["tools"], j!({}));
    assert_eq!(reply["result"]["resultType"], "complete");
    assert_eq!(
        reply["result"]["_meta"]["io.modelcontextprotocol/serverInfo"],
        json(SERVER_META)["io.modelcontextprotocol/serverInfo"]
    );
    let (result, all) = server.finish();
    result.expect("serve returns Ok on EOF");
    assert_eq!(all.len(), 1);
}

#[test]
fn a_tool_call_is_answered() {
    let f = default_fixture();
    let mut server = Server::start(&f.service, StdioOptions::default());
    server.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(server.next(), text_result(2, "hi"));
    server.finish().0.unwrap();
}

#[test]
fn a_protocol_error_is_answered_without_running_anything() {
    let f = default_fixture();
    let mut server = Server::start(&f.service, StdioOptions::default());
    server.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#);
    let reply = server.next();
    assert_eq!(reply["id"], 3);
    assert_eq!(reply["error"]["code"], -32602);
    server.send("not json");
    assert_eq!(server.next()["error"]["code"], -32700);
    server.finish().0.unwrap();
}

#[test]
fn concurrent_calls_are_answered_in_completion_order() {
    let f = default_fixture();
    let mut server = Server::start(&f.service, StdioOptions::default().workers(4));
    let started = Instant::now();
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":200,"text":"slowest"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    server.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":100,"text":"middle"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    server.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":0,"text":"fastest"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    let replies: Vec<Value> = (0..3).map(|_| server.next()).collect();
    let elapsed = started.elapsed();
    assert_eq!(response_ids(&replies), vec![j!(3), j!(2), j!(1)]);
    assert_eq!(replies[0], text_result(3, "fastest"));
    assert_eq!(replies[2], text_result(1, "slowest"));
    // Run one after the other they would take at least 300 ms.
    assert!(
        elapsed < Duration::from_millis(290),
        "calls ran concurrently, took {elapsed:?}"
    );
    server.finish().0.unwrap();
}

#[test]
fn calls_released_out_of_order_are_answered_out_of_order() {
    let f = default_fixture();
    let mut server = Server::start(&f.service, StdioOptions::default().workers(2));
    server.send(r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"wait","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(f.probes.started.recv_timeout(SOON), Ok("wait"));
    server.send(r#"{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"echo","arguments":{"text":"b"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(
        server.next()["id"],
        "b",
        "a later call overtakes one still running"
    );
    f.probes.latch.release();
    let a = server.next();
    assert_eq!(a["id"], "a");
    assert_eq!(
        a["result"]["content"],
        j!([{"type":"text","text":"released"}])
    );
    server.finish().0.unwrap();
}

#[test]
fn a_cancelled_call_is_dropped_and_never_answered() {
    let f = default_fixture();
    let mut server = Server::start(&f.service, StdioOptions::default());
    server.send(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(f.probes.started.recv_timeout(SOON), Ok("hang"));
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"changed my mind"}}"#);
    assert_eq!(
        f.probes.dropped.recv_timeout(SOON),
        Ok(()),
        "the handler's future is dropped"
    );
    server.send(r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(server.next(), text_result(8, "after"));
    let (result, all) = server.finish();
    result.unwrap();
    assert_eq!(
        response_ids(&all),
        vec![j!(8)],
        "nothing is written for the cancelled request"
    );
}

#[test]
fn a_panicking_handler_fails_only_its_call() {
    let f = default_fixture();
    let mut server = Server::start(&f.service, StdioOptions::default().workers(1));
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(
        server.next(),
        json(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#)
    );
    // The only worker survived the panic.
    server.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(server.next(), text_result(2, "still here"));
    server.finish().0.unwrap();
}

#[test]
fn progress_reports_reach_the_wire_before_the_result() {
    let f = default_fixture();
    let mut server = Server::start(&f.service, StdioOptions::default());
    server.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"steps","_meta":{"progressToken":"p5","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(
        server.next(),
        json(
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p5","progress":1.0,"total":2.0,"message":"half"}}"#
        )
    );
    assert_eq!(
        server.next(),
        json(
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p5","progress":2.0,"total":2.0}}"#
        )
    );
    assert_eq!(server.next(), text_result(5, "done"));
    server.finish().0.unwrap();
}

#[test]
fn eof_with_calls_in_flight_answers_them_then_returns() {
    let f = default_fixture();
    let mut server = Server::start(&f.service, StdioOptions::default());
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":150,"text":"one"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    server.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":50,"text":"two"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    server.wait_chunks_read(2);
    server.close_input();
    let (result, all) = server.finish();
    result.expect("serve returns Ok once the calls are answered");
    assert_eq!(all, vec![text_result(2, "two"), text_result(1, "one")]);
}

#[test]
fn an_unterminated_last_line_is_still_served_at_eof() {
    let f = default_fixture();
    let server = Server::start(&f.service, StdioOptions::default());
    server.send_raw(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"tail"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    let (result, all) = server.finish();
    result.unwrap();
    assert_eq!(all, vec![text_result(9, "tail")]);
}

#[test]
fn calls_outliving_the_grace_period_are_cancelled_and_serve_returns() {
    let f = fixture(Limits {
        shutdown_grace: Duration::from_millis(100),
        ..Limits::default()
    });
    let mut server = Server::start(&f.service, StdioOptions::default());
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(f.probes.started.recv_timeout(SOON), Ok("hang"));
    server.close_input();
    let began = Instant::now();
    let (result, all) = server.finish();
    result.unwrap();
    assert!(
        began.elapsed() < Duration::from_secs(2),
        "returned after {:?}",
        began.elapsed()
    );
    assert!(all.is_empty(), "an abandoned call is not answered: {all:?}");
    assert_eq!(
        f.probes.dropped.recv_timeout(SOON),
        Ok(()),
        "and its future is dropped"
    );
}

#[test]
fn a_call_past_its_timeout_is_answered_with_an_error_and_dropped() {
    let limits = Limits {
        call_timeout: Some(Duration::from_millis(100)),
        ..Limits::default()
    };
    let f = fixture(limits);
    let mut server = Server::start(&f.service, StdioOptions::default());
    server.send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(
        server.next(),
        json(r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Request timed out"}}"#)
    );
    assert_eq!(f.probes.dropped.recv_timeout(SOON), Ok(()));
    server.finish().0.unwrap();
}

#[test]
fn backpressure_stops_reading_until_a_slot_frees() {
    let limits = Limits {
        max_concurrent_calls: 1,
        max_queued_calls: 1,
        ..Limits::default()
    };
    let f = fixture(limits);
    let mut server = Server::start(&f.service, StdioOptions::default());
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(f.probes.started.recv_timeout(SOON), Ok("wait"));
    // Queued behind the running call: the queue is now full.
    server.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"two"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    server.wait_chunks_read(2);
    server.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"three"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    server.expect_silence(Duration::from_millis(150));
    assert_eq!(
        server.chunks_read(),
        2,
        "the reader must not take input while the queue is full"
    );
    f.probes.latch.release();
    let replies: Vec<Value> = (0..3).map(|_| server.next()).collect();
    assert_eq!(replies[0]["id"], 1);
    assert_eq!(
        replies[0]["result"]["content"],
        j!([{"type":"text","text":"released"}])
    );
    assert_eq!(replies[1], text_result(2, "two"));
    assert_eq!(replies[2], text_result(3, "three"));
    assert_eq!(server.chunks_read(), 3);
    server.finish().0.unwrap();
}

#[test]
fn a_queued_call_cancelled_before_it_starts_is_never_answered() {
    let limits = Limits {
        max_concurrent_calls: 1,
        ..Limits::default()
    };
    let f = fixture(limits);
    let mut server = Server::start(&f.service, StdioOptions::default());
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(f.probes.started.recv_timeout(SOON), Ok("wait"));
    server.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"two"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#);
    server.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"three"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    server.wait_chunks_read(4);
    server.expect_silence(Duration::from_millis(50));
    f.probes.latch.release();
    assert_eq!(server.next()["id"], 1);
    assert_eq!(server.next(), text_result(3, "three"));
    let (result, all) = server.finish();
    result.unwrap();
    assert_eq!(response_ids(&all), vec![j!(1), j!(3)]);
}

#[test]
fn a_backed_up_stdout_pauses_reading_until_it_drains() {
    let f = default_fixture();
    let mut server = Server::start(&f.service, StdioOptions::default().write_high_water(1));
    server.hold_output();
    // Answered by the connection itself, so its bytes go straight to the writer.
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    server.wait_chunks_read(1);
    server.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"two"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    std::thread::sleep(Duration::from_millis(150));
    assert_eq!(
        server.chunks_read(),
        1,
        "no input is read while output is backed up"
    );
    server.release_output();
    let discovered = server.next();
    assert_eq!(discovered["id"], 1);
    assert_eq!(
        discovered["result"]["supportedVersions"],
        j!(["2026-07-28"])
    );
    assert_eq!(server.next(), text_result(2, "two"));
    server.finish().0.unwrap();
}

/// Stdin that yields `lines` and then fails or ends.
struct ScriptedInput {
    lines: std::collections::VecDeque<&'static str>,
    then: Option<std::io::ErrorKind>,
}

impl std::io::Read for ScriptedInput {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.lines.pop_front() {
            Some(line) => {
                let bytes = format!("{line}\n").into_bytes();
                assert!(bytes.len() <= buf.len(), "test lines fit one read");
                buf[..bytes.len()].copy_from_slice(&bytes);
                Ok(bytes.len())
            }
            None => match self.then {
                Some(kind) => Err(std::io::Error::new(kind, "scripted failure")),
                None => Ok(0),
            },
        }
    }
}

struct SharedOutput(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for SharedOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Run `serve` on its own thread and wait for it, bounded.
fn serve_bounded<R, W>(service: &Service, input: R, output: W) -> std::io::Result<()>
where
    R: std::io::Read + Send + 'static,
    W: std::io::Write + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let service = service.clone();
    std::thread::spawn(move || {
        let _ = tx.send(StdioOptions::default().serve(&service, input, output));
    });
    rx.recv_timeout(SOON).expect("serve returned in time")
}

#[test]
fn a_read_error_ends_input_gracefully_and_is_returned() {
    let f = default_fixture();
    let input = ScriptedInput {
        lines: [r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":50,"text":"finished"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#]
            .into(),
        then: Some(std::io::ErrorKind::ConnectionReset),
    };
    let written = Arc::new(Mutex::new(Vec::new()));
    let err = serve_bounded(&f.service, input, SharedOutput(Arc::clone(&written)))
        .expect_err("the read error is reported");
    assert_eq!(err.kind(), std::io::ErrorKind::ConnectionReset);
    let out: Value = serde_json::from_slice(&written.lock().unwrap()).expect("one JSON line");
    assert_eq!(
        out,
        text_result(1, "finished"),
        "the call in flight was still answered"
    );
}

struct BrokenPipe;

impl std::io::Write for BrokenPipe {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::new(
            std::io::ErrorKind::BrokenPipe,
            "reader went away",
        ))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_write_error_ends_serve_with_that_error() {
    let f = default_fixture();
    // Input stays open (the reader blocks on an empty channel): only the
    // write failure can end `serve`.
    let (keep_open, rx) = mpsc::channel::<Vec<u8>>();
    keep_open
        .send(br#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
"#.to_vec())
        .unwrap();
    struct ChannelInput(mpsc::Receiver<Vec<u8>>);
    impl std::io::Read for ChannelInput {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match self.0.recv() {
                Ok(chunk) => {
                    buf[..chunk.len()].copy_from_slice(&chunk);
                    Ok(chunk.len())
                }
                Err(_) => Ok(0),
            }
        }
    }
    let err = serve_bounded(&f.service, ChannelInput(rx), BrokenPipe)
        .expect_err("the write error is reported");
    assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
    drop(keep_open);
}
