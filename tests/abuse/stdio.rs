//! Hostile input on stdio: the fixture process (`snodo-fixture --stdio`,
//! default limits: 4 MiB lines) gets lines over the limit, absurd JSON and
//! a URI of 1 MiB against its resource template, each answered promptly
//! with the right error, then a valid request still answered; its peak
//! memory stays bounded.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use snodo_tests::Runtime;

const FIXTURE: &str = env!("CARGO_BIN_EXE_snodo-fixture-wire");
/// Every answer comes within this (debug builds, a loaded machine).
const PROMPT: Duration = Duration::from_secs(10);
/// The ceiling on the fixture's peak resident memory (`VmHWM`), at most
/// twice what it was measured to use. Measured on 2026-12-01 (debug build,
/// 2 cores, three runs each): tokio 26,524-26,848 KiB, smol 34,892-35,184
/// KiB, blocking 26,388-26,696 KiB, most of it the 5 MiB and 3 MiB lines.
/// 48 MiB is 1.4x the highest peak and under 2x the lowest.
const PEAK_RSS_CEILING_KB: u64 = 48 * 1024;

fn peak_rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

pub fn stdio_abuse(runtime: Runtime) {
    let label = format!("stdio {}", runtime.flag());
    let mut child = Command::new(FIXTURE)
        .args(["--stdio", "--runtime", runtime.flag()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the fixture starts");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().expect("stdout");
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next = |what: &str| -> Value {
        let started = Instant::now();
        let line = rx
            .recv_timeout(PROMPT)
            .unwrap_or_else(|_| panic!("{label}: no answer to {what} within {PROMPT:?}"));
        let v: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{label}: {what}: {e}: {line}"));
        assert!(
            started.elapsed() < PROMPT,
            "{label}: {what} took {:?}",
            started.elapsed()
        );
        v
    };

    let mut over = vec![b'x'; 5 * 1024 * 1024];
    over.push(b'\n');
    stdin.write_all(&over).unwrap();
    let v = next("a 5 MiB line");
    assert_eq!(v["error"]["code"], -32600, "{label}: {v}");
    assert!(v.get("id").is_none(), "{label}: {v}");

    let mut deep = vec![b'['; 3 * 1024 * 1024];
    deep.push(b'\n');
    stdin.write_all(&deep).unwrap();
    assert_eq!(
        next("3 MiB of open brackets")["error"]["code"],
        -32700,
        "{label}"
    );

    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\xff\"}\n")
        .unwrap();
    assert_eq!(next("invalid UTF-8")["error"]["code"], -32700, "{label}");

    let uri = format!("test://template/{}/dat", "a".repeat(1024 * 1024));
    let read = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{{"uri":"{uri}",{META}}}}}"#
    );
    stdin.write_all(read.as_bytes()).unwrap();
    stdin.write_all(b"\n").unwrap();
    let v = next("a 1 MiB URI against the template");
    assert_eq!(
        (v["id"].clone(), v["error"]["code"].clone()),
        (Value::from(2), Value::from(-32602)),
        "{label}"
    );

    let discover =
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{{{META}}}}}"#);
    stdin.write_all(discover.as_bytes()).unwrap();
    stdin.write_all(b"\n").unwrap();
    let v = next("server/discover afterwards");
    assert_eq!(v["id"], 3, "{label}: {v}");
    assert!(v["result"]["supportedVersions"].is_array(), "{label}: {v}");

    let peak = peak_rss_kb(pid);
    drop(stdin);
    let _ = child.wait();
    eprintln!("{label}: peak RSS {peak} KiB");
    assert!(
        peak <= PEAK_RSS_CEILING_KB,
        "{label}: peak RSS {peak} KiB over {PEAK_RSS_CEILING_KB} KiB"
    );
}
