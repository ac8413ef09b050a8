//! What a typed tool costs per call against the same tool with a
//! hand-written schema: one `tools/call` through a stdio `Connection`
//! (bytes in, bytes out, the handler answered inline), four ways.
//!
//! - `hand_text` / `typed_text`: `{text}` in, one text block out; the
//!   typed tool's `inputSchema` is generated from its argument type.
//! - `hand_structured` / `typed_structured`: `{text}` in, `{text, length}`
//!   out as `structuredContent` validated against the `outputSchema`; by
//!   hand with `CallToolResult::structured(json!(…))`, typed with
//!   `Json<T>` (schema from the type, the value serialized from it).
//! - `typed_text_one_layer`: `typed_text` through one no-op service layer
//!   (`layer::from_fn(|call| call.run())`): what a layer costs a call.
//! - `macro_text`: `typed_text`'s tool written with `#[tool]`
//!   (`snodo-macros`): the generated registration against the closure.
//!
//! `cargo bench -p snodo-testkit --bench typed`
//!
//! 2026-12-01, the 2-core machine shared with other builds, medians of
//! three runs of 2,000 samples (`-- --sample-count 2000`): `hand_text`
//! 1.97-2.00 µs, `typed_text` 1.99-2.01 µs; `hand_structured` 2.43-2.45
//! µs, `typed_structured` 2.47-2.49 µs. A typed tool costs what the same
//! tool with a hand-written schema costs: the schema is generated once, at
//! registration, and the call path is the same (validate the `Value`,
//! deserialize the type); a structured result serializes a struct where
//! the hand-written one builds a `json!` value.
//!
//! 2026-12-05, same machine, three runs of 2,000 samples filtered to
//! `typed_text` (`-- --sample-count 2000 typed_text`): `typed_text`
//! medians 1.583, 1.582, 1.485 µs; `typed_text_one_layer` 1.555, 1.588,
//! 1.571 µs (means 1.603/1.604/1.508 against 1.602/1.601/1.616 µs).
//! Averaged over the three runs, medians 1.550 against 1.571 µs: +1.4%,
//! inside the run-to-run noise (the third run alone shows +5.8%, the
//! first two none). One no-op layer costs one boxed future and one more
//! `Arc`'d closure call per call.
//!
//! 2026-12-07, the machine quiet (load average 0.1), two runs of 3,000
//! samples filtered to `text` (`-- --sample-count 3000 text`), medians:
//! `typed_text` 1.437 and 1.422 µs, `macro_text` 1.422 and 1.407 µs (the
//! macro's registration is the closure's: same cost), `typed_text_one_layer`
//! 1.457 and 1.476 µs (+1.4% and +3.8%, issue 35's bound is 5%),
//! `hand_text` 1.441 and 1.451 µs.

use std::hint::black_box;

use serde::{Deserialize, Serialize};
use serde_json::json;
use snodo_proto::layer::{self, Call};
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::typed::Json;
use snodo_proto::{
    CallToolResult, Connection, Context, Instant, Output, Service, ServiceBuilder, Tool, Transport,
};

#[derive(Deserialize, JsonSchema)]
struct Echo {
    text: String,
}

#[derive(Serialize, JsonSchema)]
struct Echoed {
    text: String,
    length: usize,
}

fn hand() -> Service {
    let input = json!({
        "type": "object",
        "properties": { "text": { "type": "string" } },
        "required": ["text"]
    });
    Service::builder()
        .tool(
            Tool::new("echo", "Echo the text back").input_schema(input.clone()),
            |args: Echo, _: Context| async move { CallToolResult::text(args.text) },
        )
        .tool(
            Tool::new("echo_structured", "Echo the text back, measured")
                .input_schema(input)
                .output_schema(json!({
                    "type": "object",
                    "properties": {
                        "text": { "type": "string" },
                        "length": { "type": "integer", "minimum": 0 }
                    },
                    "required": ["text", "length"]
                })),
            |args: Echo, _: Context| async move {
                let length = args.text.len();
                CallToolResult::structured(json!({ "text": args.text, "length": length }))
            },
        )
        .build()
        .unwrap()
}

fn typed() -> Service {
    typed_builder().build().unwrap()
}

/// The typed tools through one layer that only runs the call: the cost of
/// a layer is its `around` (here one boxed future) per call.
fn typed_one_layer() -> Service {
    typed_builder()
        .layer(layer::from_fn(|call: Call| call.run()))
        .build()
        .unwrap()
}

fn typed_builder() -> ServiceBuilder {
    Service::builder()
        .tool(
            Tool::new("echo", "Echo the text back"),
            |args: Echo, _: Context| async move { args.text },
        )
        .tool(
            Tool::new("echo_structured", "Echo the text back, measured"),
            |args: Echo, _: Context| async move {
                let length = args.text.len();
                Json(Echoed {
                    text: args.text,
                    length,
                })
            },
        )
}

/// Echo the text back.
#[snodo_macros::tool(crate = snodo_proto)]
async fn echo(text: String) -> String {
    text
}

fn with_macro() -> Service {
    echo_tool(Service::builder()).build().unwrap()
}

const TEXT: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n";
const STRUCTURED: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo_structured\",\"arguments\":{\"text\":\"hello\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n";

/// One request through `conn`: the bytes written back.
fn call(conn: &mut Connection, request: &[u8]) -> usize {
    conn.handle_input(request, Instant::ZERO);
    let mut written = 0;
    while let Some(out) = conn.poll_output() {
        match out {
            Output::Transmit(bytes) => written += bytes.len(),
            Output::Invoke(invocation) => {
                let mut task = conn.task(invocation);
                let outcome = task.poll_inline().expect("the handler is ready at once");
                conn.complete(task.call(), outcome, Instant::ZERO).unwrap();
            }
            Output::Cancel(_) | Output::Close | Output::Respond(_) => {}
        }
    }
    written
}

fn bench(service: Service, request: &'static [u8], bencher: divan::Bencher) {
    let mut conn = Connection::new(&service, Transport::Stdio, Instant::ZERO);
    // Same answer both ways: checked once, outside the timing.
    assert!(call(&mut conn, request) > 0);
    bencher.bench_local(|| black_box(call(&mut conn, black_box(request))));
}

#[divan::bench]
fn hand_text(bencher: divan::Bencher) {
    bench(hand(), TEXT, bencher);
}

#[divan::bench]
fn typed_text(bencher: divan::Bencher) {
    bench(typed(), TEXT, bencher);
}

#[divan::bench]
fn typed_text_one_layer(bencher: divan::Bencher) {
    bench(typed_one_layer(), TEXT, bencher);
}

#[divan::bench]
fn macro_text(bencher: divan::Bencher) {
    bench(with_macro(), TEXT, bencher);
}

#[divan::bench]
fn hand_structured(bencher: divan::Bencher) {
    bench(hand(), STRUCTURED, bencher);
}

#[divan::bench]
fn typed_structured(bencher: divan::Bencher) {
    bench(typed(), STRUCTURED, bencher);
}

fn main() {
    divan::main();
}
