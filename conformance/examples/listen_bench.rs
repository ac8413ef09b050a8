//! Benchmark (not a test): memory per idle `subscriptions/listen` stream and
//! publish-to-delivery latency, with many listeners over loopback HTTP.
//!
//! ```text
//! cargo run --release -p snodo-conformance --example listen_bench -- [LISTENERS] [RUNTIME]
//! ```
//!
//! The server is the conformance fixture in a child process (this binary
//! re-run with `--serve RUNTIME`), so its memory is measured alone
//! (`VmRSS` from `/proc`). The parent opens `LISTENERS` (default 10,000)
//! HTTP connections, each a `subscriptions/listen` stream asking for
//! `toolsListChanged`, waits for every acknowledgement, then calls
//! `test_trigger_tool_change` five times and records when each stream
//! receives `notifications/tools/list_changed`, relative to the moment the
//! trigger request was sent. Everything stays on 127.0.0.1.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const ROUNDS: usize = 5;

fn request(method: &str, name: Option<&str>, body: &str) -> Vec<u8> {
    let name = name
        .map(|n| format!("Mcp-Name: {n}\r\n"))
        .unwrap_or_default();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n{name}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// One listen stream: connect, subscribe, report the acknowledgement, then
/// report the arrival time of every list-changed notification.
async fn listener(
    addr: std::net::SocketAddr,
    id: usize,
    acked: mpsc::UnboundedSender<()>,
    events: mpsc::UnboundedSender<Instant>,
) -> std::io::Result<()> {
    let mut s = TcpStream::connect(addr).await?;
    s.set_nodelay(true)?;
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"subscriptions/listen","params":{{{META},"notifications":{{"toolsListChanged":true}}}}}}"#
    );
    s.write_all(&request("subscriptions/listen", None, &body))
        .await?;
    let mut buf = vec![0u8; 4096];
    let mut seen = String::new();
    let mut acknowledged = false;
    loop {
        let n = s.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        let now = Instant::now();
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
        if !acknowledged && seen.contains("notifications/subscriptions/acknowledged") {
            acknowledged = true;
            let _ = acked.send(());
        }
        while let Some(i) = seen.find("notifications/tools/list_changed") {
            let _ = events.send(now);
            seen.drain(..i + 10);
        }
        if seen.len() > 8192 {
            seen.drain(..seen.len() - 1024);
        }
    }
}

async fn trigger(addr: std::net::SocketAddr, id: usize) -> std::io::Result<()> {
    let mut s = TcpStream::connect(addr).await?;
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"test_trigger_tool_change","arguments":{{}},{META}}}}}"#
    );
    s.write_all(&request(
        "tools/call",
        Some("test_trigger_tool_change"),
        &body,
    ))
    .await?;
    let mut buf = vec![0u8; 4096];
    let n = s.read(&mut buf).await?;
    if !String::from_utf8_lossy(&buf[..n]).contains("\"result\"") {
        return Err(std::io::Error::other(
            "the trigger tool did not answer with a result",
        ));
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve") {
        return serve(args.get(2).map(String::as_str).unwrap_or("tokio"));
    }
    let listeners: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let runtime = args
        .get(2)
        .cloned()
        .unwrap_or_else(|| String::from("tokio"));

    let mut child = Command::new(std::env::current_exe()?)
        .args(["--serve", &runtime])
        .env("SNODO_MAX_CONNECTIONS", (listeners + 64).to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let pid = child.id();
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("piped")).read_line(&mut first)?;
    let addr: std::net::SocketAddr = first
        .trim()
        .parse()
        .map_err(|_| std::io::Error::other(format!("bad address line {first:?}")))?;
    std::thread::sleep(Duration::from_millis(200));
    let rss_idle = rss_kib(pid);

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let result = rt.block_on(async move {
        let (ack_tx, mut ack_rx) = mpsc::unbounded_channel();
        let (ev_tx, mut ev_rx) = mpsc::unbounded_channel();
        let opened = Instant::now();
        for id in 0..listeners {
            let (a, e) = (ack_tx.clone(), ev_tx.clone());
            tokio::spawn(async move {
                if let Err(err) = listener(addr, id + 1, a, e).await {
                    eprintln!("listener {id}: {err}");
                }
            });
            if id % 500 == 499 {
                // Let the accept queue drain between bursts.
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        for _ in 0..listeners {
            tokio::time::timeout(Duration::from_secs(60), ack_rx.recv())
                .await
                .map_err(|_| std::io::Error::other("timed out waiting for acknowledgements"))?;
        }
        let open_time = opened.elapsed();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let rss_open = rss_kib(pid);

        let mut latencies = Vec::with_capacity(listeners * ROUNDS);
        let mut round_totals = Vec::new();
        for round in 0..ROUNDS {
            let sent = Instant::now();
            trigger(addr, 1_000_000 + round).await?;
            let answered = sent.elapsed();
            for _ in 0..listeners {
                let at = tokio::time::timeout(Duration::from_secs(60), ev_rx.recv())
                    .await
                    .map_err(|_| std::io::Error::other("timed out waiting for deliveries"))?
                    .ok_or_else(|| std::io::Error::other("listeners ended"))?;
                latencies.push(at.saturating_duration_since(sent));
            }
            round_totals.push(sent.elapsed());
            if std::env::var_os("LISTEN_BENCH_VERBOSE").is_some() {
                eprintln!(
                    "round {round}: trigger answered after {answered:?}, all delivered after {:?}",
                    sent.elapsed()
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        latencies.sort();
        Ok::<_, std::io::Error>((open_time, rss_open, latencies, round_totals))
    });
    let _ = child.kill();
    let _ = child.wait();
    let (open_time, rss_open, latencies, totals) = result?;
    let per_stream = (rss_open.saturating_sub(rss_idle) as f64 * 1024.0) / listeners as f64;
    println!("listen streams: {listeners} on {runtime} (server in a child process, HTTP/1.1 on loopback)");
    println!(
        "opened and acknowledged in {:.2} s",
        open_time.as_secs_f64()
    );
    println!(
        "server RSS: idle {:.1} MiB, with {listeners} idle streams {:.1} MiB -> {:.1} KiB per stream",
        rss_idle as f64 / 1024.0,
        rss_open as f64 / 1024.0,
        per_stream / 1024.0
    );
    println!(
        "publish -> delivery over {ROUNDS} publishes x {listeners} streams: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; all delivered within {:.1} ms (median round)",
        percentile(&latencies, 0.50).as_secs_f64() * 1e3,
        percentile(&latencies, 0.99).as_secs_f64() * 1e3,
        latencies.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
        {
            let mut t = totals.clone();
            t.sort();
            percentile(&t, 0.5).as_secs_f64() * 1e3
        }
    );
    Ok(())
}

/// The child: serve the fixture on an ephemeral port, print it, serve.
fn serve(runtime: &str) -> std::io::Result<()> {
    let runtime = match runtime {
        "smol" => snodo_conformance::cli::Runtime::Smol,
        "blocking" => snodo_conformance::cli::Runtime::Blocking,
        _ => snodo_conformance::cli::Runtime::Tokio,
    };
    snodo_conformance::cli::serve_http("127.0.0.1:0".parse().expect("literal address"), runtime)
}
