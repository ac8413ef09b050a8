//! The typed parser of the common requests against the general parser, on
//! the wire: every message is fed to a fresh `Connection` twice, once as
//! the machine runs (the typed parser first) and once with the typed
//! parser switched off (`dispatch::general_parser_only`), and the bytes
//! the connection writes must be the same, byte for byte: answers, errors
//! (which step refused, with what code, message and HTTP status), progress
//! and log notifications, and the admitted `_meta` itself, which the `meta`
//! tool writes back.
//!
//! Over a matrix of services: every dialect of `Dialect::ALL` or
//! 2026-07-28 only; with or without an extension that wraps `tools/call`
//! (and owns a method of its own); tools, resources, templates, prompts
//! and completion, or tools alone (so the other lists are not served).
//! Over stdio and over HTTP with header mirrors that agree with the body,
//! disagree on the method, the name or the version, or are missing.
//!
//! The messages are literal: the shapes the released clients send (the
//! TypeScript client's `tools/call`, captured from its socket), each
//! optional `_meta` member well-formed and not, and faults at each
//! admission step; then messages mutated from them by a seeded generator.

mod support;

use serde_json::{json, Map, Value};
use snodo_proto::dispatch::{general_parser_only, typed_parser_reads};
use snodo_proto::extension::{CoreCall, MethodCall};
use snodo_proto::CompletionRequest;
use snodo_proto::{CallEvent, CallId, CallSink};
use snodo_proto::{
    CallToolResult, Completion, Connection, Content, Context, Dialect, Extension, ExtensionMethod,
    GetPromptResult, Implementation, Instant, LogLevel, Output, Prompt, PromptArgument,
    PromptMessage, ReadResourceResult, Request, Resource, ResourceArgs, ResourceContents,
    ResourceTemplate, Service, Step, Tool, Transport, Wrap,
};
use std::sync::{Arc, Mutex};
use support::block_on;

/// The events handlers report, to feed back into the connection.
#[derive(Default)]
struct Events(Mutex<Vec<(CallId, CallEvent)>>);

impl CallSink for Events {
    fn send(&self, call: CallId, event: CallEvent) {
        self.0.lock().unwrap().push((call, event));
    }
}

const WRAP: &str = "com.example/wrap";

/// An extension over `tools/call`: it answers `noted` itself for a client
/// that declared it and requires it otherwise; it also owns `wrap/get`.
struct Wrapper;

const WRAPPER_METHODS: &[ExtensionMethod] = &[ExtensionMethod::named_by("wrap/get", "key")];

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("literal objects only"),
    }
}

impl Extension for Wrapper {
    fn id(&self) -> &str {
        WRAP
    }

    fn methods(&self) -> &[ExtensionMethod] {
        WRAPPER_METHODS
    }

    fn handle(&self, call: &MethodCall<'_>) -> Step {
        match call.params.get("key") {
            Some(Value::String(k)) => Step::Result(obj(json!({ "key": k }))),
            _ => Step::Error(snodo_proto::ErrorObject::invalid_params(
                "key must be a string",
            )),
        }
    }

    fn wraps(&self) -> &[&'static str] {
        &["tools/call"]
    }

    fn wrap(&self, call: &CoreCall<'_>, negotiated: bool) -> Wrap {
        let Request::CallTool { name, arguments } = call.request else {
            return Wrap::Pass;
        };
        match &**name {
            "noted" if negotiated => Wrap::Answer(Step::Result(obj(json!({
                "resultType": "note",
                "text": arguments.get("text").cloned().unwrap_or(Value::Null),
                "client": call.meta.client_info.as_ref().map(|i| i.name.clone()),
            })))),
            "noted" => Wrap::Require,
            _ => Wrap::Pass,
        }
    }
}

#[derive(serde::Deserialize, snodo_proto::schemars::JsonSchema)]
#[schemars(crate = "snodo_proto::schemars")]
struct Echo {
    text: String,
}

#[derive(serde::Deserialize, snodo_proto::schemars::JsonSchema)]
#[schemars(crate = "snodo_proto::schemars")]
struct Who {
    who: String,
}

/// One service of the matrix.
fn service(all_dialects: bool, extension: bool, full: bool) -> Service {
    let mut b = Service::builder()
        .server_info(Implementation::new("typed-parser", "1"))
        .tool(
            Tool::new("echo", "Echo").input_schema(json!({
                "type": "object",
                "properties": { "text": { "type": "string" } },
                "required": ["text"]
            })),
            |a: Echo| async move { CallToolResult::text(a.text) },
        )
        // The tool the released TypeScript client's capture calls.
        .tool(Tool::new("test_simple_text", "Text"), |_: Value| async {
            CallToolResult::text("simple")
        })
        // Writes back what admission made of `_meta`, and reports
        // progress and logs, which the token and the level decide.
        .tool(
            Tool::new("meta", "The admitted _meta"),
            |_: Value, ctx: Context| async move {
                ctx.progress(1.0, Some(2.0), None);
                ctx.log(LogLevel::Info, Some("meta"), json!("info"));
                CallToolResult::text(format!("{:?}", ctx.meta()))
            },
        )
        .tool(
            Tool::new("noted", "The extension answers"),
            |_: Value| async { CallToolResult::text("core") },
        );
    if !all_dialects {
        b = b.dialects([Dialect::V2026_07_28]);
    }
    if extension {
        b = b.extension(Wrapper);
    }
    if full {
        b = b
            .resource(
                Resource::new("file:///r.txt", "r"),
                |args: ResourceArgs| async move {
                    Ok(ReadResourceResult::new(vec![ResourceContents::text(
                        args.uri,
                        "text/plain",
                        "r",
                    )]))
                },
            )
            .resource_template(
                ResourceTemplate::new("file:///logs/{day}.txt", "logs"),
                |args: ResourceArgs| async move {
                    let day = args.variables.get("day").cloned().unwrap_or_default();
                    Ok(ReadResourceResult::new(vec![ResourceContents::text(
                        args.uri,
                        "text/plain",
                        day,
                    )]))
                },
            )
            .prompt(
                Prompt::new("greet", "Greets").argument(PromptArgument::required("who", "Whom")),
                |a: Who| async move {
                    Ok(GetPromptResult::new(vec![PromptMessage::user(
                        Content::text(format!("Hello, {}", a.who)),
                    )]))
                },
            )
            .completer(|request: CompletionRequest| async move {
                Ok(Completion::new(vec![format!("{}-done", request.value)]))
            });
    }
    b.build().expect("the matrix services build")
}

/// Every service of the matrix, named.
fn matrix() -> Vec<(String, Service)> {
    let mut out = Vec::new();
    for all_dialects in [true, false] {
        for extension in [false, true] {
            for full in [true, false] {
                out.push((
                    format!(
                        "{} dialects, {}, {}",
                        if all_dialects { "all" } else { "modern-only" },
                        if extension {
                            "wrapping extension"
                        } else {
                            "no extension"
                        },
                        if full { "full surface" } else { "tools only" },
                    ),
                    service(all_dialects, extension, full),
                ));
            }
        }
    }
    out
}

/// What a fresh connection writes for `input`, handlers run to completion
/// inline and their progress and log events fed back.
fn written(service: &Service, transport: Transport, input: &[u8]) -> Vec<u8> {
    let mut conn = Connection::new(service, transport, Instant::ZERO);
    conn.handle_input(input, Instant::ZERO);
    let mut out = Vec::new();
    while let Some(o) = conn.poll_output() {
        match o {
            Output::Transmit(bytes) => out.extend_from_slice(&bytes),
            Output::Invoke(inv) => {
                let call = inv.call;
                let events = Arc::new(Events::default());
                let outcome = block_on(inv.run(events.clone()));
                for (c, e) in events.0.lock().unwrap().drain(..) {
                    conn.call_event(c, e, Instant::ZERO);
                }
                let _ = conn.complete(call, outcome, Instant::ZERO);
            }
            Output::Cancel(_) | Output::Close | Output::Respond(_) => {}
        }
    }
    out
}

/// The ways a body is framed: a stdio line, and HTTP requests with
/// mirrors that agree or disagree with it.
fn framings(body: &[u8], method: &str, name: Option<&str>) -> Vec<(String, Transport, Vec<u8>)> {
    let mut line = body.to_vec();
    line.push(b'\n');
    let mut out = vec![(String::from("stdio"), Transport::Stdio, line)];
    let name_line = |n: Option<&str>| n.map(|n| format!("Mcp-Name: {n}\r\n")).unwrap_or_default();
    let heads = [
        ("http", "2026-07-28", method, name_line(name)),
        (
            "http, other method",
            "2026-07-28",
            "tools/list",
            name_line(name),
        ),
        (
            "http, other name",
            "2026-07-28",
            method,
            name_line(Some("other")),
        ),
        ("http, no name", "2026-07-28", method, String::new()),
        ("http, other version", "2025-11-25", method, name_line(name)),
    ];
    for (label, version, method, name) in heads {
        let mut http = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {version}\r\n\
             Mcp-Method: {method}\r\n{name}Content-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        http.extend_from_slice(body);
        out.push((String::from(label), Transport::Http, http));
    }
    out
}

/// The method and name member of a body, for its mirrors, when it parses.
fn mirrored(body: &[u8]) -> (String, Option<String>) {
    let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let method = v["method"].as_str().unwrap_or("tools/call").to_owned();
    let name = match method.as_str() {
        "tools/call" | "prompts/get" => v["params"]["name"].as_str().map(String::from),
        "resources/read" => v["params"]["uri"].as_str().map(String::from),
        _ => None,
    };
    (method, name)
}

/// What one comparison saw.
#[derive(Default)]
struct Seen {
    /// Bodies the typed parser reads.
    typed: usize,
    /// Of their framings, those answered with a JSON-RPC error.
    typed_errors: usize,
    /// Of their framings, those answered with a result.
    typed_results: usize,
}

/// Held around each pair of runs: the switch of the general parser is
/// process-wide, and the tests of this file run on several threads.
static SWITCH: Mutex<()> = Mutex::new(());

/// Feed `body` in every framing to `service` both ways; the bytes must be
/// the same.
fn compare(label: &str, service: &Service, body: &[u8], seen: &mut Seen) {
    let (method, name) = mirrored(body);
    let typed = typed_parser_reads(body);
    seen.typed += usize::from(typed);
    for (framing, transport, input) in framings(body, &method, name.as_deref()) {
        let (machine, general) = {
            let _one_at_a_time = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
            (
                written(service, transport, &input),
                general_parser_only(|| written(service, transport, &input)),
            )
        };
        assert!(
            machine == general,
            "{label}, {framing}: the typed parser's bytes differ from the general parser's\n\
             message: {}\ntyped:   {}\ngeneral: {}",
            String::from_utf8_lossy(body),
            String::from_utf8_lossy(&machine),
            String::from_utf8_lossy(&general),
        );
        if typed {
            let text = String::from_utf8_lossy(&machine);
            if text.contains(r#""error":{"code":"#) {
                seen.typed_errors += 1;
            } else if text.contains(r#""result":"#) || text.contains(r#""content":"#) {
                seen.typed_results += 1;
            }
        }
    }
}

/// `_meta` as the released TypeScript client (`@modelcontextprotocol/client`
/// 2.4.0, `evidence/client-interop`) writes it.
const TS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"snodo-client-interop","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}}"#;

/// The two required members alone.
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// `_meta` with every optional member the released clients send.
const FULL_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1","title":"C","description":"d","websiteUrl":"https://c.example"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"extensions":{"com.example/wrap":{}}},"io.modelcontextprotocol/logLevel":"info","progressToken":"p-1","traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"congo=t61rcWkgMzE","baggage":"userId=alice"}"#;

/// `_meta` objects the typed parser must read (or, where it leaves them to
/// the general parser, compare all the same): each optional member, well
/// and badly formed, repeated, escaped, unknown members beside them.
fn metas() -> Vec<String> {
    let required = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;
    let mut out = vec![
        String::from(META),
        String::from(TS_META),
        String::from(FULL_META),
    ];
    for member in [
        r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}"#,
        r#""io.modelcontextprotocol/clientInfo":{"version":"1","name":"c\u00e9"}"#,
        r#""io.modelcontextprotocol/clientInfo":{"name":"c"}"#,
        r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":1}"#,
        r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":"1","icons":[{"src":"https://c.example/i.png"}]}"#,
        r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":"1","extra":"\ud800"}"#,
        r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":"1","title":null}"#,
        r#""io.modelcontextprotocol/clientInfo":{"name":"a","name":"b","version":"1"}"#,
        r#""io.modelcontextprotocol/clientInfo":"c""#,
        r#""io.modelcontextprotocol/logLevel":"debug""#,
        r#""io.modelcontextprotocol/logLevel":"emergency""#,
        r#""io.modelcontextprotocol/logLevel":"loud""#,
        r#""io.modelcontextprotocol/logLevel":3"#,
        r#""io.modelcontextprotocol/logLevel":"warning","io.modelcontextprotocol/logLevel":"debug""#,
        r#""io.modelcontextprotocol/logLevel":"bogus","io.modelcontextprotocol/logLevel":"debug""#,
        r#""progressToken":"p""#,
        r#""progressToken":7"#,
        r#""progressToken":-7"#,
        r#""progressToken":9223372036854775807"#,
        r#""progressToken":9223372036854775808"#,
        r#""progressToken":1.5"#,
        r#""progressToken":null"#,
        r#""progressToken":"a","progressToken":2"#,
        r#""traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01""#,
        r#""tracestate":"a=b","baggage":"k=v""#,
        r#""baggage":1"#,
        r#""traceparent":null"#,
        r#""app/key":{"deep":[1,2.5,true,null,"x"]}"#,
        r#""app/key":"\ud800""#,
        r#""app/key":1e400"#,
        r#""app/key":"\u00e9","app/key":2"#,
        r#""progr\u0065ssToken":"escaped key""#,
        r#""io.modelcontextprotocol/protocolVersion":"2026-07-28""#,
    ] {
        out.push(format!(r#""_meta":{{{required},{member}}}"#));
        out.push(format!(r#""_meta":{{{member},{required}}}"#));
    }
    out.extend(
        [
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}"#,
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}"#,
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
            r#""_meta":{"io.modelcontextprotocol/clientCapabilities":{}}"#,
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{}}"#,
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}"#,
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2025-11-25"}"#,
            r#""_meta":{"io.modelcontextprotocol/protocolVers\u0069on":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"com.example/wrap":{}}}}"#,
            r#""_meta":[]"#,
        ]
        .map(String::from),
    );
    out
}

/// Literal requests: each method the typed parser reads, in its shapes
/// and beside them, with each `_meta` of [`metas`] where it matters.
fn literals() -> Vec<String> {
    let mut out = vec![
        // The released TypeScript client's `tools/call`, as captured.
        String::from(
            r#"{"method":"tools/call","params":{"name":"test_simple_text","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"snodo-client-interop","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}}},"jsonrpc":"2.0","id":0}"#,
        ),
        // Its `server/discover` probe.
        String::from(
            r#"{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"snodo-client-interop","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}}}}"#,
        ),
    ];
    for meta in metas() {
        out.push(format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"meta","arguments":{{}},{meta}}}}}"#
        ));
        out.push(format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{meta}}}}}"#
        ));
    }
    for meta in [META, TS_META, FULL_META] {
        out.extend([
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{meta}}}}}"#),
            format!(r#"{{"params":{{{meta},"arguments":{{"text":"h\u0069"}},"name":"echo"}},"method":"tools/call","id":"x","jsonrpc":"2.0"}}"#),
            format!(r#" {{"jsonrpc":"2.0","id":-3,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi","text":"again","more":[1,{{}}]}},{meta}}}}} "#),
            format!(r#"{{"jsonrpc":"2.0","id":18446744073709551615,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":1}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"nope","arguments":{{}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"ec\u0068o","arguments":{{"text":"hi"}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"noted","arguments":{{"text":"n"}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":null,{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo",{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":1,"arguments":{{}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},"requestState":"x",{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7.0,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"1.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"\ud800"}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{meta}}}}} x"#),
            format!(r#"{{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{{"uri":"file:///r.txt",{meta}}}}}"#),
            format!(r#"{{"params":{{{meta},"uri":"file:///logs/monday.txt"}},"id":"r","method":"resources/read","jsonrpc":"2.0"}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{{"uri":"file:///none",{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{{"uri":"file:\/\/\/r.txt",{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{{"uri":"file:///r.txt","requestState":"x",{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{{{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"prompts/list","params":{{{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"resources/list","params":{{{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"resources/templates/list","params":{{{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{{"cursor":"x",{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{{"name":"greet","arguments":{{"who":"you"}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{{"name":"greet",{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{{"ref":{{"type":"ref/prompt","name":"greet"}},"argument":{{"name":"who","value":"yo"}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{{"ref":{{"type":"ref/resource","uri":"file:///logs/{{day}}.txt"}},"argument":{{"name":"day","value":"mo"}},{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"wrap/get","params":{{"key":"k",{meta}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"uri":"file:///r.txt","name":"echo","arguments":{{}},{meta}}}}}"#),
            format!(r#"["2.0",7,"tools/call",{{"name":"echo","arguments":{{"text":"hi"}},{meta}}}]"#),
        ]);
    }
    out.extend([
        String::from(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#),
        String::from(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{}}"#),
        String::from(r#"{"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#),
    ]);
    out
}

/// Every literal, on every service of the matrix and in every framing,
/// gets the same bytes from both parsers; the client shapes are read by
/// the typed one.
#[test]
fn literal_requests_get_the_general_parsers_bytes() {
    let literals = literals();
    for must in [
        &literals[0],
        &literals[1],
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"meta","arguments":{{}},{FULL_META}}}}}"#
        ),
    ] {
        assert!(
            typed_parser_reads(must.as_bytes()),
            "not read typed: {must}"
        );
    }
    let mut seen = Seen::default();
    for (label, service) in matrix() {
        for body in &literals {
            compare(&label, &service, body.as_bytes(), &mut seen);
        }
    }
    // The typed parser answered results and errors both, or the
    // comparison would prove little.
    assert!(
        seen.typed > 500 && seen.typed_errors > 1_000 && seen.typed_results > 1_000,
        "typed {}, errors {}, results {}",
        seen.typed,
        seen.typed_errors,
        seen.typed_results
    );
}

/// The same comparison on messages mutated from the literals the typed
/// parser reads (a seeded generator: bytes replaced, inserted, deleted,
/// spans repeated, members spliced in).
#[test]
fn mutated_requests_get_the_general_parsers_bytes() {
    let seeds: Vec<String> = literals()
        .into_iter()
        .filter(|l| typed_parser_reads(l.as_bytes()))
        .collect();
    const BYTES: &[u8] = b"{}[]\",:\\ 0123456789.-+eEtrufalsn/_\x7f\xc3\xa9";
    const SPLICES: [&str; 20] = [
        r#""name":"echo","#,
        r#""arguments":{},"#,
        r#""uri":"file:///r.txt","#,
        r#""_meta":{},"#,
        r#""jsonrpc":"2.0","#,
        r#""id":1,"#,
        r#""requestState":"x","#,
        r#""cursor":"c","#,
        r#""io.modelcontextprotocol/logLevel":"debug","#,
        r#""io.modelcontextprotocol/logLevel":"nope","#,
        r#""io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"#,
        r#""io.modelcontextprotocol/clientCapabilities":{"extensions":{"com.example/wrap":{}}},"#,
        r#""io.modelcontextprotocol/protocolVersion":"2025-11-25","#,
        r#""progressToken":1,"#,
        r#""progressToken":1.5,"#,
        r#""traceparent":"t","#,
        r#""app":"\ud800","#,
        "1e400",
        "\\u0069",
        "null",
    ];
    let services = matrix();
    // xorshift64*: deterministic, no dependency.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move |below: usize| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % below.max(1)
    };
    let mut seen = Seen::default();
    for _ in 0..8_000 {
        let mut m = seeds[next(seeds.len())].clone().into_bytes();
        for _ in 0..1 + next(3) {
            let at = next(m.len() + 1);
            // Members spliced in after a `{` or `,` keep the message JSON
            // more often than not.
            let starts: Vec<usize> = (0..m.len())
                .filter(|&i| m[i] == b'{' || m[i] == b',')
                .map(|i| i + 1)
                .collect();
            let member_at = starts[next(starts.len())];
            match next(7) {
                0 if at < m.len() => m[at] = BYTES[next(BYTES.len())],
                1 => m.insert(at, BYTES[next(BYTES.len())]),
                2 if at < m.len() => {
                    m.remove(at);
                }
                3 if at < m.len() => {
                    let end = (at + 1 + next(24)).min(m.len());
                    let span = m[at..end].to_vec();
                    m.splice(at..at, span);
                }
                4 => {
                    let splice = SPLICES[next(SPLICES.len())].as_bytes();
                    m.splice(at..at, splice.iter().copied());
                }
                _ => {
                    let splice = SPLICES[next(SPLICES.len())].as_bytes();
                    m.splice(member_at..member_at, splice.iter().copied());
                }
            }
        }
        let (label, service) = &services[next(services.len())];
        compare(label, service, &m, &mut seen);
    }
    // The generator reaches the typed parser often, and it answers both
    // results and errors there.
    assert!(
        seen.typed > 500 && seen.typed_errors > 1_000 && seen.typed_results > 1_000,
        "typed {}, errors {}, results {}",
        seen.typed,
        seen.typed_errors,
        seen.typed_results
    );
}
