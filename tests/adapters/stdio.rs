//! The stdio framing over in-memory pipes (`basic/transports/stdio.mdx`):
//! literal JSON lines in, literal JSON messages expected out.

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use snodo_tokio::Options;

use crate::client::{json, Stdio};
use crate::harness::Rt;
use crate::service::{limits, service, SOON};

/// `text`'s answer to request `id` (a JSON literal: a number or a string).
pub fn text_result(id: &str, text: &str) -> Value {
    json(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"t","version":"1"}}}},"content":[{{"text":"{text}","type":"text"}}],"resultType":"complete"}}}}"#
    ))
}

const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

const DISCOVERED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete","ttlMs":60000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}}}"#;

pub fn stdio_discover_is_answered_and_eof_ends_serve<R: Rt>() {
    let (service, _) = service(limits());
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(DISCOVER);
    assert_eq!(c.recv(), json(DISCOVERED));
    c.finish();
}

pub fn stdio_a_tool_call_is_answered<R: Rt>() {
    let (service, _) = service(limits());
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(c.recv(), text_result(r#""a""#, "hi"));
    c.finish();
}

pub fn stdio_two_messages_in_one_write_and_one_split_across_writes<R: Rt>() {
    let (service, _) = service(limits());
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send_raw(concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"one"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","#,
    ));
    c.send_raw(concat!(
        r#""arguments":{"text":"two"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        "\n"
    ));
    assert_eq!(c.recv(), text_result("1", "one"));
    assert_eq!(c.recv(), text_result("2", "two"));
    c.finish();
}

pub fn stdio_errors_are_answered_and_the_next_line_is_read<R: Rt>() {
    let (service, _) = service(limits());
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send("{not json");
    assert_eq!(
        c.recv(),
        json(r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"}}"#)
    );
    // A 2026-07-28 request without its `_meta` is invalid params.
    c.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#);
    let invalid = c.recv();
    assert_eq!(invalid["id"], 3, "{invalid}");
    assert_eq!(invalid["error"]["code"], -32602, "{invalid}");
    c.send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"fine"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(c.recv(), text_result("4", "fine"));
    c.finish();
}

pub fn stdio_concurrent_calls_are_answered_in_completion_order<R: Rt>() {
    let (service, _) = service(limits());
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":600,"text":"slowest"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    c.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":300,"text":"middle"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    c.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":0,"text":"fastest"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    // One at a time, they would be answered in the order asked.
    assert_eq!(c.recv(), text_result("3", "fastest"));
    assert_eq!(c.recv(), text_result("2", "middle"));
    assert_eq!(c.recv(), text_result("1", "slowest"));
    c.finish();
}

pub fn stdio_a_later_call_overtakes_one_still_running<R: Rt>() {
    let (service, probes) = service(limits());
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"wait","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    probes.expect_started("wait");
    c.send(r#"{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"echo","arguments":{"text":"b"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(c.recv(), text_result(r#""b""#, "b"));
    probes.latch.release();
    assert_eq!(c.recv(), text_result(r#""a""#, "released"));
    c.finish();
}

pub fn stdio_a_cancelled_call_is_dropped_and_never_answered<R: Rt>() {
    let (service, probes) = service(limits());
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    probes.expect_started("hang");
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"changed my mind"}}"#);
    probes.expect_dropped("hang");
    // Nothing is written for id 7, and the id is free again.
    c.send(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(c.recv(), text_result("7", "after"));
    c.finish();
}

pub fn stdio_a_panicking_handler_fails_only_its_call<R: Rt>() {
    let (service, _) = service(limits());
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(
        c.recv(),
        json(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#)
    );
    c.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(c.recv(), text_result("2", "still here"));
    c.finish();
}

pub fn stdio_progress_is_written_before_the_result<R: Rt>() {
    let (service, _) = service(limits());
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"p5","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(
        c.recv(),
        json(
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p5","progress":1.0,"total":2.0,"message":"half"}}"#
        )
    );
    assert_eq!(
        c.recv(),
        json(
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p5","progress":2.0,"total":2.0}}"#
        )
    );
    assert_eq!(c.recv(), text_result("5", "done"));
    c.finish();
}

pub fn stdio_eof_answers_the_calls_in_flight_then_ends<R: Rt>() {
    let (service, _) = service(limits());
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":300,"text":"one"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    c.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":100,"text":"two"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    c.close_input();
    assert_eq!(c.recv(), text_result("2", "two"));
    assert_eq!(c.recv(), text_result("1", "one"));
    c.expect_end();
    c.served.within(SOON).expect("serve returns Ok");
}

pub fn stdio_eof_with_nothing_in_flight_ends_at_once<R: Rt>() {
    let (service, _) = service(limits());
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.close_input();
    c.expect_end();
    c.served.within(SOON).expect("serve returns Ok");
}

pub fn stdio_an_unterminated_last_line_is_answered_at_eof<R: Rt>() {
    let (service, _) = service(limits());
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send_raw(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"tail"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    c.close_input();
    assert_eq!(c.recv(), text_result("9", "tail"));
    c.finish();
}

pub fn stdio_calls_outliving_the_grace_after_eof_are_cancelled<R: Rt>() {
    let grace = Duration::from_millis(300);
    let (service, probes) = service(limits().shutdown_grace(grace));
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    probes.expect_started("hang");
    let began = Instant::now();
    c.close_input();
    // Nothing is written for the abandoned call: the output just ends.
    c.expect_end();
    let waited = began.elapsed();
    assert!(waited >= grace, "ended after {waited:?}, inside the grace");
    probes.expect_dropped("hang");
    c.served.within(SOON).expect("serve returns Ok");
}

pub fn stdio_a_call_past_its_timeout_is_answered_and_dropped<R: Rt>() {
    let (service, probes) = service(limits().call_timeout(Some(Duration::from_millis(200))));
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(
        c.recv(),
        json(r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"Request timed out"}}"#)
    );
    probes.expect_dropped("hang");
    c.finish();
}

/// A writer thread pushing `lines` into the server's input, counting them.
fn flood(c: &mut Stdio, lines: Vec<String>) -> (Arc<AtomicUsize>, thread::JoinHandle<()>) {
    let mut input = c.take_input();
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = sent.clone();
    let writer = thread::spawn(move || {
        for line in lines {
            if input.write_all(format!("{line}\n").as_bytes()).is_err() {
                return;
            }
            counter.fetch_add(1, Ordering::SeqCst);
        }
    });
    (sent, writer)
}

/// With every call slot taken and the queue full, the server reads no
/// more input (the client's writes stall) rather than refusing calls; a
/// freed slot lets everything through, each call answered.
pub fn stdio_a_full_call_queue_stops_reading_input<R: Rt>() {
    const CALLS: usize = 1000;
    let (service, probes) = service(limits().max_concurrent_calls(1).max_queued_calls(1));
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"wait","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    probes.expect_started("wait");
    let calls = (1..=CALLS)
        .map(|i| format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{i}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#))
        .collect();
    let (sent, writer) = flood(&mut c, calls);
    c.expect_silence(Duration::from_millis(300));
    let stalled = sent.load(Ordering::SeqCst);
    assert!(
        stalled < CALLS,
        "the server took all {stalled} calls while its queue was full"
    );
    probes.latch.release();
    assert_eq!(c.recv(), text_result("0", "released"));
    for i in 1..=CALLS {
        assert_eq!(c.recv(), text_result(&i.to_string(), &i.to_string()));
    }
    writer.join().unwrap();
    c.expect_end();
    c.served.within(SOON).expect("serve returns Ok");
}

pub fn stdio_a_queued_call_cancelled_before_it_starts_is_never_answered<R: Rt>() {
    let (service, probes) = service(limits().max_concurrent_calls(1));
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"wait","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    probes.expect_started("wait");
    c.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"two"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#);
    c.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"three"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    // Answered by the connection itself, after the lines before it were read.
    c.send(DISCOVER);
    assert_eq!(c.recv(), json(DISCOVERED));
    probes.latch.release();
    assert_eq!(c.recv(), text_result("10", "released"));
    assert_eq!(c.recv(), text_result("3", "three"));
    c.finish();
}

/// A client that does not read its output: once a pipe's worth of
/// answers and the high-water mark are waiting, the server stops reading,
/// so the client's writes stall; reading lets everything through.
pub fn stdio_a_backed_up_output_stops_reading_input<R: Rt>() {
    const REQUESTS: usize = 2000;
    let (service, _) = service(limits());
    let options = Options::default().write_high_water(4096);
    let mut c = Stdio::start_with::<R>(&service, options, 4096);
    let (sent, writer) = flood(&mut c, vec![DISCOVER.to_owned(); REQUESTS]);
    thread::sleep(Duration::from_millis(300));
    let stalled = sent.load(Ordering::SeqCst);
    assert!(
        stalled < REQUESTS,
        "the server answered all {stalled} into its buffers"
    );
    for _ in 0..REQUESTS {
        assert_eq!(c.recv(), json(DISCOVERED));
    }
    writer.join().unwrap();
    c.expect_end();
    c.served.within(SOON).expect("serve returns Ok");
}

/// Stdin that yields its lines, then fails.
struct FailingInput {
    lines: Vec<&'static str>,
}

impl Read for FailingInput {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.lines.is_empty() {
            return Err(io::Error::new(io::ErrorKind::ConnectionReset, "scripted"));
        }
        let line = format!("{}\n", self.lines.remove(0));
        assert!(line.len() <= buf.len(), "a test line fits one read");
        buf[..line.len()].copy_from_slice(line.as_bytes());
        Ok(line.len())
    }
}

/// Stdout collected in memory.
#[derive(Clone, Default)]
struct Collected(Arc<Mutex<Vec<u8>>>);

impl Write for Collected {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A read error ends input like EOF: the call in flight is answered, then
/// serve returns the error.
pub fn stdio_a_read_error_is_returned_after_the_calls_are_answered<R: Rt>() {
    let (service, _) = service(limits());
    let input = FailingInput {
        lines: vec![
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":100,"text":"finished"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ],
    };
    let output = Collected::default();
    let served = R::stdio(
        service,
        Options::default(),
        Box::new(input),
        Box::new(output.clone()),
    );
    let err = served.within(SOON).expect_err("the read error is returned");
    assert_eq!(err.kind(), io::ErrorKind::ConnectionReset, "{err}");
    let written = output.0.lock().unwrap().clone();
    let answer: Value = serde_json::from_slice(&written).expect("one JSON line");
    assert_eq!(answer, text_result("1", "finished"));
}

/// Output nobody can read ends serve with the write's error, though input
/// is still open.
pub fn stdio_a_write_error_ends_serve_with_it<R: Rt>() {
    let (service, _) = service(limits());
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.close_output();
    c.send(DISCOVER);
    let err = c
        .served
        .within(SOON)
        .expect_err("the write error is returned");
    assert_eq!(err.kind(), io::ErrorKind::BrokenPipe, "{err}");
}

/// A registry change committed while a stdio `subscriptions/listen`
/// stream is open reaches it as `notifications/tools/list_changed`; the
/// tool added is called at once (`server/tools.mdx` § List Changed
/// Notification).
pub fn stdio_a_registry_commit_reaches_a_listen_stream<R: Rt>() {
    let (service, _) = crate::service::service_with(limits(), |b| {
        b.changing(snodo_proto::Kinds::default().tools())
            .notifications(snodo_proto::Notifications::default().tools_list_changed())
    });
    let mut c = Stdio::start::<R>(&service, Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(
        c.recv(),
        json(
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":5},"notifications":{"toolsListChanged":true}}}"#
        )
    );
    service
        .registry()
        .change()
        .tool(
            snodo_proto::Tool::new("added", "Added at run time"),
            |_: snodo_proto::NoArgs| async { snodo_proto::CallToolResult::text("added") },
        )
        .commit()
        .expect("the change commits");
    assert_eq!(
        c.recv(),
        json(
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":5}}}"#
        )
    );
    c.send(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"added","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(c.recv(), text_result("6", "added"));
    // The client ends its stream, then its input.
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}"#);
    c.finish();
}
