//! The stdio path end to end over `tokio::io::duplex`: literal JSON lines
//! in, parsed lines out.

mod common;

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{service, Probe, STEP};
use serde_json::Value;
use snodo_tokio::{serve_stream, Options};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::timeout;

struct Client {
    input: DuplexStream,
    output: Lines<BufReader<DuplexStream>>,
    server: JoinHandle<io::Result<()>>,
}

impl Client {
    fn start(probe: Probe, options: Options) -> Client {
        let (input, server_in) = tokio::io::duplex(64 * 1024);
        let (server_out, output) = tokio::io::duplex(64 * 1024);
        let service = service(probe);
        let server =
            tokio::spawn(
                async move { serve_stream(&service, server_in, server_out, options).await },
            );
        Client {
            input,
            output: BufReader::new(output).lines(),
            server,
        }
    }

    async fn send(&mut self, line: &str) {
        assert!(!line.contains('\n'), "one message per line");
        let mut bytes = line.as_bytes().to_vec();
        bytes.push(b'\n');
        timeout(STEP, self.input.write_all(&bytes))
            .await
            .expect("write in time")
            .expect("write");
    }

    async fn recv(&mut self) -> Value {
        let line = timeout(STEP, self.output.next_line())
            .await
            .expect("a line in time")
            .expect("read")
            .expect("a line, not EOF");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Close our side and expect the server to end its output and return.
    async fn close_and_expect_eof(mut self) {
        self.input.shutdown().await.unwrap();
        let rest = timeout(STEP, self.output.next_line())
            .await
            .expect("EOF in time")
            .expect("read");
        assert_eq!(rest, None, "nothing after the last answer");
        timeout(STEP, self.server)
            .await
            .expect("server returns in time")
            .expect("server task did not panic")
            .expect("server returns Ok");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_is_answered() {
    let mut c = Client::start(Probe::default(), Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#).await;
    let r = c.recv().await;
    assert_eq!(r["jsonrpc"], "2.0");
    assert_eq!(r["id"], 1);
    assert!(r.get("error").is_none(), "{r}");
    assert!(r["result"]["supportedVersions"]
        .as_array()
        .unwrap()
        .contains(&Value::from("2026-07-28")));
    assert_eq!(r["result"]["capabilities"]["tools"], serde_json::json!({}));
    assert_eq!(r["result"]["resultType"], "complete");
    c.close_and_expect_eof().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_call_runs_the_handler() {
    let mut c = Client::start(Probe::default(), Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"text":"over tokio"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#).await;
    let r = c.recv().await;
    assert_eq!(r["id"], "a");
    assert_eq!(r["result"]["content"][0]["type"], "text");
    assert_eq!(r["result"]["content"][0]["text"], "over tokio");
    assert!(r["result"].get("isError").is_none(), "{r}");
    c.close_and_expect_eof().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_answer_out_of_order() {
    let mut c = Client::start(Probe::default(), Options::default());
    let began = Instant::now();
    c.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":600,"label":"slow"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#).await;
    c.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":10,"label":"fast"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#).await;
    let first = c.recv().await;
    assert_eq!(first["id"], 2);
    assert_eq!(first["result"]["content"][0]["text"], "fast");
    assert!(
        began.elapsed() < Duration::from_millis(600),
        "the fast call did not wait for the slow one"
    );
    let second = c.recv().await;
    assert_eq!(second["id"], 1);
    assert_eq!(second["result"]["content"][0]["text"], "slow");
    c.close_and_expect_eof().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_drops_the_handler_and_suppresses_its_answer() {
    let (dropped_tx, mut dropped) = mpsc::unbounded_channel();
    let probe = Probe {
        dropped: Some(dropped_tx),
        ..Probe::default()
    };
    let started = probe.started.clone();
    let mut c = Client::start(probe, Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#).await;
    timeout(STEP, started.notified())
        .await
        .expect("the hang handler started");
    c.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user gave up"}}"#).await;
    let flag_was_set = timeout(STEP, dropped.recv())
        .await
        .expect("the handler's future was dropped")
        .expect("a report");
    assert!(
        flag_was_set,
        "the CancelFlag is set before the future is dropped"
    );
    // Nothing is written for id 7: the next line answers id 8.
    c.send(r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"after"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#).await;
    let r = c.recv().await;
    assert_eq!(r["id"], 8);
    assert_eq!(r["result"]["content"][0]["text"], "after");
    c.close_and_expect_eof().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_handler_answers_internal_error_and_the_connection_goes_on() {
    let mut c = Client::start(Probe::default(), Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#).await;
    let r = c.recv().await;
    assert_eq!(r["id"], 1);
    assert_eq!(r["error"]["code"], -32603);
    assert_eq!(r["error"]["message"], "Internal error");
    assert!(r.get("result").is_none());
    c.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#).await;
    let r = c.recv().await;
    assert_eq!(r["id"], 2);
    assert_eq!(r["result"]["content"][0]["text"], "still here");
    c.close_and_expect_eof().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reports_arrive_before_the_result() {
    let mut c = Client::start(Probe::default(), Options::default());
    c.send(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"count","_meta":{"progressToken":"tok","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#).await;
    for i in 1..=3 {
        let n = c.recv().await;
        assert_eq!(n["method"], "notifications/progress", "{n}");
        assert!(n.get("id").is_none());
        assert_eq!(n["params"]["progressToken"], "tok");
        assert_eq!(n["params"]["progress"], f64::from(i));
        assert_eq!(n["params"]["total"], 3.0);
    }
    let r = c.recv().await;
    assert_eq!(r["id"], 5);
    assert_eq!(r["result"]["content"][0]["text"], "counted");
    c.close_and_expect_eof().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eof_answers_calls_in_flight_then_closes() {
    let mut c = Client::start(Probe::default(), Options::default());
    // The last line has no newline: EOF terminates it.
    c.input
        .write_all(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":100,"label":"late"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#)
        .await
        .unwrap();
    c.input.shutdown().await.unwrap();
    let r = c.recv().await;
    assert_eq!(r["id"], 3);
    assert_eq!(r["result"]["content"][0]["text"], "late");
    c.close_and_expect_eof().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eof_with_a_hung_call_ends_after_the_grace() {
    let (dropped_tx, mut dropped) = mpsc::unbounded_channel();
    let probe = Probe {
        dropped: Some(dropped_tx),
        ..Probe::default()
    };
    let started = probe.started.clone();
    let probe = probe.grace(Duration::from_millis(200));
    let options = Options::default();
    let mut c = Client::start(probe, options);
    c.send(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"hang","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#).await;
    timeout(STEP, started.notified()).await.expect("started");
    let began = Instant::now();
    // No answer for the hung call; the output just ends.
    c.close_and_expect_eof().await;
    let waited = began.elapsed();
    assert!(
        waited >= Duration::from_millis(150),
        "waited only {waited:?}"
    );
    assert!(waited < Duration::from_secs(3), "waited {waited:?}");
    let flag = timeout(STEP, dropped.recv()).await.unwrap().unwrap();
    assert!(flag, "the abandoned call was flagged cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_lines_get_errors_and_the_next_line_is_read() {
    let mut c = Client::start(Probe::default(), Options::default());
    c.send("this is not json").await;
    let r = c.recv().await;
    assert_eq!(r["error"]["code"], -32700);
    assert_eq!(r["id"], Value::Null);
    c.send(r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#).await;
    let r = c.recv().await;
    assert_eq!(r["id"], 4);
    assert_eq!(r["result"]["content"][0]["text"], "ok");
    c.close_and_expect_eof().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_output_ends_the_server_with_an_error() {
    let (mut input, server_in) = tokio::io::duplex(1024);
    let (server_out, output) = tokio::io::duplex(1024);
    drop(output);
    let service = service(Probe::default());
    let server = tokio::spawn(async move {
        serve_stream(&service, server_in, server_out, Options::default()).await
    });
    input
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n")
        .await
        .unwrap();
    let result = timeout(STEP, server).await.expect("in time").unwrap();
    let err = result.expect_err("writing to a closed pipe fails");
    assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_stops_the_server_reading() {
    const REQUESTS: usize = 2000;
    let (mut input, server_in) = tokio::io::duplex(4096);
    let (server_out, output) = tokio::io::duplex(4096);
    let service = service(Probe::default());
    let options = Options::default().write_high_water(4096);
    let server =
        tokio::spawn(async move { serve_stream(&service, server_in, server_out, options).await });
    let sent = Arc::new(AtomicUsize::new(0));
    let writer = {
        let sent = sent.clone();
        tokio::spawn(async move {
            for _ in 0..REQUESTS {
                input.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n").await.unwrap();
                sent.fetch_add(1, Ordering::Relaxed);
            }
            input.shutdown().await.unwrap();
        })
    };
    // Nobody reads the output: once a pipe's worth of answers and the
    // high-water mark are queued, the server stops reading, so the client's
    // writes stall.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = sent.load(Ordering::Relaxed);
    assert!(
        before < REQUESTS,
        "the server buffered all {before} answers"
    );
    // Reading the output lets everything through.
    let mut lines = BufReader::new(output).lines();
    let mut answered = 0;
    timeout(STEP, async {
        while let Some(l) = lines.next_line().await.unwrap() {
            let v: Value = serde_json::from_str(&l).unwrap();
            assert_eq!(v["id"], 1);
            answered += 1;
        }
    })
    .await
    .expect("all answers once the output is read");
    assert_eq!(answered, REQUESTS);
    writer.await.unwrap();
    timeout(STEP, server).await.unwrap().unwrap().unwrap();
}
