//! What one request costs inside the machine: bytes in, bytes out, with a
//! handler that answers at once, over the stdio framing and the HTTP codec.
//! Beside each, the bare floor of the same work: `serde_json` parsing the
//! same request bytes and writing the same response bytes.
//!
//! `cargo bench -p snodo-proto --bench machine` first prints allocations
//! per request (a counting global allocator), then divan's timings.
//! `-- --list` lists the cases; `registry_change_one_tool` times a
//! registry commit instead of a request. Two shares are counted apart from the
//! machine's own:
//!
//! - `handler`: what the handler allocates while it runs (building and
//!   polling its future, its result), counted around the call;
//! - `json_value`: the `serde_json::Value` tree of a `tools/call`'s
//!   `arguments`, which the machine builds because the `jsonschema`
//!   validator of the tool's `inputSchema` reads a `Value` (and the typed
//!   handler then deserializes from it, moving its strings). It is not
//!   counted around the machine's own code: it is the allocations of
//!   parsing the same `arguments` text into a `Map<String, Value>` alone.
//!
//! `machine` is `total - handler - json_value`.
//!
//! Two floors: `floor_value` parses into a `serde_json::Value` and writes
//! a prebuilt response `Value` (what a server that keeps the message
//! generic must at least do); `floor_borrowed` parses into borrowed typed
//! structs and writes the response with `serde_json::to_writer` (the
//! least JSON work possible).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll, Waker};

use serde::Deserialize;
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{
    CallToolResult, Connection, Instant, NoArgs, NullSink, Output, ReadResourceResult, Resource,
    ResourceArgs, ResourceContents, Service, Tool, Transport,
};

/// Counts every allocation of the process (the bench is single-threaded).
struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

#[derive(Deserialize, JsonSchema)]
struct Echo {
    text: String,
}

fn service() -> Service {
    let mut builder = Service::builder()
        .tool(
            Tool::new("echo", "Echo the text back").input_schema(serde_json::json!({
                "type": "object",
                "properties": { "text": { "type": "string" } },
                "required": ["text"]
            })),
            |a: Echo| async move { CallToolResult::text(a.text) },
        )
        .resource(
            Resource::new("file:///readme.txt", "readme"),
            |args: ResourceArgs| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri,
                    "text/plain",
                    "hello, world",
                )]))
            },
        );
    // 99 more tools, so that tools/list answers 100.
    for i in 1..100 {
        builder = builder.tool(
            Tool::new(format!("tool_{i:03}"), format!("Tool number {i}")),
            |_: NoArgs| async { CallToolResult::text("ok") },
        );
    }
    builder.build().expect("the bench service builds")
}

/// The `arguments` object of the `tools/call` case.
const ARGUMENTS: &str = r#"{"text":"hello, world"}"#;

/// The `_meta` the released TypeScript client (`@modelcontextprotocol/client`
/// 2.4.0, as `evidence/client-interop` runs it) writes in every request:
/// captured from its socket, with the capabilities that lane declares.
const TS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"snodo-client-interop","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}}"#;

/// One request of each kind, as the body (JSON) a client sends.
#[derive(Clone, Copy, Debug)]
enum Case {
    ToolsCall,
    /// `tools/call echo` exactly as the released TypeScript client sends
    /// it: members in its order, its `_meta`, its HTTP header lines.
    ToolsCallTs,
    ToolsList,
    ResourcesRead,
}

impl Case {
    const ALL: [Case; 4] = [
        Case::ToolsCall,
        Case::ToolsCallTs,
        Case::ToolsList,
        Case::ResourcesRead,
    ];

    fn name(self) -> &'static str {
        match self {
            Case::ToolsCall => "tools/call",
            Case::ToolsCallTs => "tools/call (ts)",
            Case::ToolsList => "tools/list",
            Case::ResourcesRead => "resources/read",
        }
    }

    fn body(self) -> String {
        match self {
            Case::ToolsCall => format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{ARGUMENTS},{META}}}}}"#
            ),
            Case::ToolsCallTs => format!(
                r#"{{"method":"tools/call","params":{{"name":"echo","arguments":{ARGUMENTS},{TS_META}}},"jsonrpc":"2.0","id":0}}"#
            ),
            Case::ToolsList => {
                format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{{{META}}}}}"#)
            }
            Case::ResourcesRead => format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{{"uri":"file:///readme.txt",{META}}}}}"#
            ),
        }
    }

    fn stdio(self) -> Vec<u8> {
        let mut b = self.body().into_bytes();
        b.push(b'\n');
        b
    }

    fn http(self) -> Vec<u8> {
        let body = self.body();
        if let Case::ToolsCallTs = self {
            // The header lines of Node's fetch under the client, in order.
            return format!(
                "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:8080\r\nconnection: keep-alive\r\n\
                 mcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: echo\r\n\
                 content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
                 accept-language: *\r\nsec-fetch-mode: cors\r\nuser-agent: node\r\n\
                 accept-encoding: gzip, deflate\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
            .into_bytes();
        }
        let name = match self {
            Case::ToolsCall | Case::ToolsCallTs => "Mcp-Name: echo\r\n",
            Case::ResourcesRead => "Mcp-Name: file:///readme.txt\r\n",
            Case::ToolsList => "",
        };
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: {}\r\n{name}Content-Length: {}\r\n\r\n{body}",
            self.name(),
            body.len()
        )
        .into_bytes()
    }
}

thread_local! {
    /// Allocations made while handlers ran (building and polling their futures).
    static HANDLER_ALLOCS: Cell<u64> = const { Cell::new(0) };
}

/// Feed one request and drain the connection, running each invocation to
/// completion inline. Returns the bytes written.
fn round_trip(conn: &mut Connection, input: &[u8]) -> usize {
    conn.handle_input(input, Instant::ZERO);
    let mut written = 0;
    while let Some(out) = conn.poll_output() {
        match out {
            Output::Transmit(bytes) => written += black_box(bytes).len(),
            Output::Invoke(inv) => {
                let before = ALLOCS.load(Ordering::Relaxed);
                let call = inv.call;
                let mut fut = inv.run(Arc::new(NullSink));
                let mut cx = TaskContext::from_waker(Waker::noop());
                let outcome = loop {
                    if let Poll::Ready(o) = fut.as_mut().poll(&mut cx) {
                        break o;
                    }
                };
                drop(fut);
                HANDLER_ALLOCS.with(|h| h.set(h.get() + ALLOCS.load(Ordering::Relaxed) - before));
                conn.complete(call, outcome, Instant::ZERO)
                    .expect("the call is in flight");
            }
            Output::Cancel(_) | Output::Close | Output::Respond(_) => {}
        }
    }
    written
}

/// The response bytes the machine writes for `case` on stdio (the body of
/// the HTTP response is the same), to give the floors the same output.
fn response(service: &Service, case: Case) -> Vec<u8> {
    let mut conn = Connection::new(service, Transport::Stdio, Instant::ZERO);
    conn.handle_input(&case.stdio(), Instant::ZERO);
    let mut out = Vec::new();
    while let Some(o) = conn.poll_output() {
        match o {
            Output::Transmit(b) => out.extend_from_slice(&b),
            Output::Invoke(inv) => {
                let call = inv.call;
                let mut fut = inv.run(Arc::new(NullSink));
                let mut cx = TaskContext::from_waker(Waker::noop());
                let outcome = loop {
                    if let Poll::Ready(o) = fut.as_mut().poll(&mut cx) {
                        break o;
                    }
                };
                conn.complete(call, outcome, Instant::ZERO).unwrap();
            }
            _ => {}
        }
    }
    assert!(out.ends_with(b"\n"), "one line answered");
    out.pop();
    out
}

/// The generic floor: parse into a `Value`, write a prebuilt `Value`.
fn floor_value(request: &[u8], response: &serde_json::Value, out: &mut Vec<u8>) {
    let v: serde_json::Value = serde_json::from_slice(request).expect("valid JSON");
    black_box(&v);
    out.clear();
    serde_json::to_writer(&mut *out, response).expect("writes");
    out.push(b'\n');
}

#[derive(Deserialize)]
struct Borrowed<'a> {
    #[serde(borrow)]
    #[allow(dead_code)]
    method: &'a str,
    #[allow(dead_code)]
    params: serde::de::IgnoredAny,
}

/// The least JSON work: a borrowed parse of the envelope and write the
/// response bytes with the serializer's string escaping.
fn floor_borrowed(request: &[u8], response: &serde_json::Value, out: &mut Vec<u8>) {
    let v: Borrowed = serde_json::from_slice(request).expect("valid JSON");
    black_box(&v);
    out.clear();
    serde_json::to_writer(&mut *out, response).expect("writes");
    out.push(b'\n');
}

fn count<R>(f: impl FnOnce() -> R) -> (R, u64, u64) {
    let a = ALLOCS.load(Ordering::Relaxed);
    let b = BYTES.load(Ordering::Relaxed);
    let r = f();
    (
        r,
        ALLOCS.load(Ordering::Relaxed) - a,
        BYTES.load(Ordering::Relaxed) - b,
    )
}

/// Allocations per request, averaged over many requests on one connection.
fn allocation_report(service: &Service) {
    const N: u64 = 1000;
    println!("allocations per request (averaged over {N} requests on one connection;");
    println!("machine = total - handler - json_value, see the bench's docs):");
    println!(
        "{:<16} {:<6} {:>8} {:>8} {:>11} {:>8} {:>8} {:>12}",
        "case", "wire", "total", "handler", "json_value", "machine", "bytes", "floor_value"
    );
    for case in Case::ALL {
        // The arguments' `Value` tree, parsed alone.
        let json_value = match case {
            Case::ToolsCall | Case::ToolsCallTs => {
                let (_, n, _) = count(|| {
                    black_box(serde_json::from_str::<
                        serde_json::Map<String, serde_json::Value>,
                    >(black_box(ARGUMENTS)))
                });
                n
            }
            Case::ToolsList | Case::ResourcesRead => 0,
        };
        let resp: serde_json::Value =
            serde_json::from_slice(&response(service, case)).expect("a JSON answer");
        for (wire, input, transport) in [
            ("stdio", case.stdio(), Transport::Stdio),
            ("http", case.http(), Transport::Http),
        ] {
            let mut conn = Connection::new(service, transport, Instant::ZERO);
            round_trip(&mut conn, &input); // warm
            HANDLER_ALLOCS.with(|h| h.set(0));
            let (_, allocs, bytes) = count(|| {
                for _ in 0..N {
                    round_trip(&mut conn, &input);
                }
            });
            let handler = HANDLER_ALLOCS.with(|h| h.get());
            let body = case.body().into_bytes();
            let mut out = Vec::with_capacity(4096);
            let (_, floor, _) = count(|| {
                for _ in 0..N {
                    floor_value(&body, &resp, &mut out);
                }
            });
            println!(
                "{:<16} {:<6} {:>8.1} {:>8.1} {:>11.1} {:>8.1} {:>8.0} {:>12.1}",
                case.name(),
                wire,
                allocs as f64 / N as f64,
                handler as f64 / N as f64,
                json_value as f64,
                (allocs - handler - json_value * N) as f64 / N as f64,
                bytes as f64 / N as f64,
                floor as f64 / N as f64,
            );
        }
    }
    println!();
}

/// `SNODO_BENCH_PROFILE="tools/call http"`: run that case 10,000 times
/// and exit, for a profiler (`valgrind --tool=callgrind
/// --toggle-collect='*round_trip*'`).
fn profile(service: &Service, spec: &str) {
    let (name, wire) = match spec.rsplit_once(' ') {
        Some((name, wire @ ("stdio" | "http"))) => (name, wire),
        _ => (spec, "stdio"),
    };
    let case = case_of(name);
    let (input, transport) = match wire {
        "http" => (case.http(), Transport::Http),
        _ => (case.stdio(), Transport::Stdio),
    };
    let mut conn = Connection::new(service, transport, Instant::ZERO);
    for _ in 0..10_000 {
        round_trip(&mut conn, &input);
    }
}

fn main() {
    let service = service();
    if let Ok(spec) = std::env::var("SNODO_BENCH_PROFILE") {
        profile(&service, &spec);
        return;
    }
    // SNODO_BENCH_NO_ALLOCS=1 skips the allocation report (for profiling
    // one case under callgrind).
    if !std::env::args().any(|a| a == "--list")
        && std::env::var_os("SNODO_BENCH_NO_ALLOCS").is_none()
    {
        allocation_report(&service);
    }
    divan::main();
}

fn case_of(name: &str) -> Case {
    Case::ALL
        .into_iter()
        .find(|c| c.name() == name)
        .expect("a known case")
}

const CASES: [&str; 4] = [
    "tools/call",
    "tools/call (ts)",
    "tools/list",
    "resources/read",
];

/// One request through the machine on stdio framing.
#[divan::bench(args = CASES, name = "machine_stdio")]
fn machine_stdio(bencher: divan::Bencher, case: &str) {
    let case = case_of(case);
    let service = service();
    let input = case.stdio();
    let mut conn = Connection::new(&service, Transport::Stdio, Instant::ZERO);
    bencher.bench_local(|| round_trip(&mut conn, black_box(&input)));
}

/// One request through the machine on the HTTP codec (keep-alive).
#[divan::bench(args = CASES, name = "machine_http")]
fn machine_http(bencher: divan::Bencher, case: &str) {
    let case = case_of(case);
    let service = service();
    let input = case.http();
    let mut conn = Connection::new(&service, Transport::Http, Instant::ZERO);
    bencher.bench_local(|| round_trip(&mut conn, black_box(&input)));
}

/// The generic serde_json floor for the same bytes.
#[divan::bench(args = CASES)]
fn floor_value_json(bencher: divan::Bencher, case: &str) {
    let case = case_of(case);
    let service = service();
    let body = case.body().into_bytes();
    let resp: serde_json::Value = serde_json::from_slice(&response(&service, case)).unwrap();
    let mut out = Vec::with_capacity(8192);
    bencher.bench_local(|| floor_value(black_box(&body), &resp, &mut out));
}

/// The borrowed serde_json floor for the same bytes.
#[divan::bench(args = CASES)]
fn floor_borrowed_json(bencher: divan::Bencher, case: &str) {
    let case = case_of(case);
    let service = service();
    let body = case.body().into_bytes();
    let resp: serde_json::Value = serde_json::from_slice(&response(&service, case)).unwrap();
    let mut out = Vec::with_capacity(8192);
    bencher.bench_local(|| floor_borrowed(black_box(&body), &resp, &mut out));
}

/// Committing a change of one tool in a registry of `n` tools: the tool
/// list's index and pages are rebuilt, in one pass (O(n)); the other
/// entries are shared, not derived again, and the other lists are kept.
#[divan::bench(args = [100, 1_000, 10_000])]
fn registry_change_one_tool(bencher: divan::Bencher, n: usize) {
    let mut builder = Service::builder();
    for i in 0..n {
        builder = builder.tool_declared(Tool::new(
            format!("tool_{i:05}"),
            format!("Tool number {i}"),
        ));
    }
    let service = builder.build().expect("the bench service builds");
    let registry = service.registry();
    let mut flip = false;
    bencher.bench_local(|| {
        flip = !flip;
        let description = if flip { "Replaced" } else { "Tool number 0" };
        registry
            .change()
            .tool_declared(Tool::new("tool_00000", description))
            .commit()
            .expect("the change commits")
    });
}
