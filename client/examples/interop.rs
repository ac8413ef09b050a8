//! snodo-client against a server built on the released official
//! TypeScript SDK (`evidence/server-interop/server.mjs`, run by
//! `evidence/server-interop/run`): over stdio and Streamable HTTP (its 2025
//! leg stateless, and sessionful), at 2026-07-28 (`server/discover`,
//! per-request `_meta`, input as MRTR rounds) and 2025-11-25 (`initialize`,
//! input as server requests).
//!
//! ```text
//! interop --node NODE --server server.mjs [--transport stdio|http|http-sessions]...
//!         [--revision 2026-07-28|2025-11-25]...
//! ```
//!
//! Every expected value (names, texts, schema fields) is written here, not
//! read back from the server. Prints one line per check and
//! `<transport> <revision>: passed/total` per cell; exits 1 on any failure.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use snodo_client::{Error, Handler, HttpTransport, Session, StdioTransport, Transport};
use snodo_proto::client::{ClientConfig, ClientError, OpId, RequestOptions, Wire};
use snodo_proto::ErrorObject;

const REVISIONS: [&str; 2] = ["2026-07-28", "2025-11-25"];

/// `http`: `createMcpHandler` as documented (2025 traffic stateless, a
/// fresh server per POST); `http-sessions`: the documented composition
/// with a sessionful 2025 leg (`Mcp-Session-Id`).
const TRANSPORTS: [&str; 3] = ["stdio", "http", "http-sessions"];

/// The application's answers, and a record of what the server asked.
#[derive(Default)]
struct Answers {
    elicited: Vec<Value>,
    sampled: Vec<Value>,
    roots_asked: usize,
    progress: Vec<(Option<OpId>, Value)>,
}

impl Handler for Answers {
    /// Fills each field the form asks for from a fixed table.
    fn elicit(&mut self, params: &Value) -> Result<Value, ErrorObject> {
        self.elicited.push(params.clone());
        let known = json!({"confirm": true, "name": "Ada", "colour": "teal"});
        let mut content = serde_json::Map::new();
        for field in params["requestedSchema"]["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, _)| k)
        {
            content.insert(field.clone(), known[field].clone());
        }
        Ok(json!({"action": "accept", "content": content}))
    }

    fn sample(&mut self, params: &Value) -> Result<Value, ErrorObject> {
        self.sampled.push(params.clone());
        Ok(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "forty-two"},
            "model": "snodo-test-model",
            "stopReason": "endTurn"
        }))
    }

    fn roots(&mut self) -> Result<Value, ErrorObject> {
        self.roots_asked += 1;
        Ok(json!({"roots": [
            {"uri": "file:///srv/alpha", "name": "alpha"},
            {"uri": "file:///srv/beta"}
        ]}))
    }

    fn notification(&mut self, op: Option<OpId>, message: &Value) {
        if message["method"] == "notifications/progress" {
            self.progress.push((op, message["params"].clone()));
        }
    }
}

/// A check's verdict: `Err` says what differed.
type Verdict = Result<(), String>;

/// One check on a connected session.
type Check<T> = fn(&mut Session<T, Answers>) -> Verdict;

fn expect_eq(what: &str, got: &Value, want: &Value) -> Verdict {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got}, want {want}"))
    }
}

fn text(result: &Value) -> Value {
    result["content"][0]["text"].clone()
}

fn call(
    s: &mut Session<impl Transport, Answers>,
    name: &str,
    args: Value,
) -> Result<Value, String> {
    // Typed, then back to JSON for the checks: what the model types keep
    // of the server's answer is what is checked.
    s.call_tool(name, args)
        .map_err(|e| format!("tools/call {name}: {e}"))
        .and_then(|r| serde_json::to_value(r).map_err(|e| e.to_string()))
}

fn request(
    s: &mut Session<impl Transport, Answers>,
    method: &str,
    params: Value,
) -> Result<Value, String> {
    s.request(method, params)
        .map_err(|e| format!("{method}: {e}"))
}

/// How the server process serves the client.
#[derive(Clone, Copy, PartialEq)]
enum Serving {
    /// `serveStdio`: one connection, one server.
    Stdio,
    /// `createMcpHandler` as documented: 2025 traffic through its
    /// stateless fallback, a fresh server per POST.
    FreshPerPost,
    /// The documented composition with a sessionful 2025 leg.
    Sessions,
}

/// Whether a check needs the server to ask the client something.
#[derive(Clone, Copy, PartialEq)]
enum Input {
    /// No.
    None,
    /// Yes; on 2025-11-25 the SDK sends the request on the POST's own
    /// stream (`ctx.mcpReq.send`).
    OnPostStream,
    /// Yes; on 2025-11-25 the SDK sends it unrelated to the POST
    /// (`ctx.mcpReq.elicitInput`, `requestSampling`): over HTTP that is the
    /// standalone stream a client opens with GET
    /// (`basic/transports/streamable-http.mdx` § Earlier Streamable HTTP
    /// Revisions, and 2025-11-25's Streamable HTTP).
    Standalone,
}

/// Why a check does not run in a cell.
enum NotRun {
    /// The server cannot do it in this cell.
    Skip(&'static str),
}

/// Why a check does not run in a cell, or `None` when it runs.
fn not_run(stateless: bool, serving: Serving, input: Input) -> Option<NotRun> {
    if stateless || input == Input::None || serving == Serving::Stdio {
        return None;
    }
    match (serving, input) {
        (Serving::FreshPerPost, _) => Some(NotRun::Skip(
            "the SDK's stateless 2025 fallback cannot take a server request's answer; see http-sessions",
        )),
        _ => None,
    }
}

/// The checks, in order, with the input each needs from the client.
fn checks<T: Transport>() -> Vec<(&'static str, Input, Check<T>)> {
    use Input::{None as No, OnPostStream, Standalone};
    vec![
        ("connect: serverInfo, capabilities", No, connect::<T>),
        ("ping", No, ping::<T>),
        ("tools/list: names, schemas", No, tools_list::<T>),
        ("tools/call: text", No, echo::<T>),
        ("tools/call: structured output", No, add::<T>),
        ("tools/call: tool error", No, fail::<T>),
        ("tools/call: x-mcp-header, ASCII", No, region_ascii::<T>),
        (
            "tools/call: x-mcp-header, non-ASCII (Base64)",
            No,
            region_utf8::<T>,
        ),
        ("tools/call: unknown tool refused", No, unknown_tool::<T>),
        (
            "tools/call: invalid arguments refused",
            No,
            bad_arguments::<T>,
        ),
        ("elicitation: one form", Standalone, deploy::<T>),
        ("elicitation: two rounds", Standalone, interview::<T>),
        ("sampling", Standalone, ask_model::<T>),
        ("roots", OnPostStream, roots::<T>),
        ("progress", No, progress::<T>),
        ("resources/list", No, resources_list::<T>),
        ("resources/templates/list", No, templates_list::<T>),
        ("resources/read: static", No, read_readme::<T>),
        ("resources/read: template", No, read_greeting::<T>),
        (
            "resources/read: unknown URI refused",
            No,
            unknown_resource::<T>,
        ),
        ("prompts/list: arguments", No, prompts_list::<T>),
        ("prompts/get", No, prompts_get::<T>),
        (
            "completion/complete: prompt argument",
            No,
            complete_prompt::<T>,
        ),
        (
            "completion/complete: template variable",
            No,
            complete_template::<T>,
        ),
    ]
}

fn connect<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let facts = s.client().server().clone();
    expect_eq(
        "serverInfo",
        facts.info.as_ref().unwrap_or(&Value::Null),
        &json!({"name": "snodo-interop-ts", "version": "1.0.0"}),
    )?;
    for capability in ["tools", "resources", "prompts", "completions"] {
        if !facts.capabilities.contains_key(capability) {
            return Err(format!(
                "capabilities lack {capability}: {:?}",
                facts.capabilities
            ));
        }
    }
    if s.client().is_stateless() && !facts.versions.iter().any(|v| v == "2026-07-28") {
        return Err(format!(
            "supportedVersions lack 2026-07-28: {:?}",
            facts.versions
        ));
    }
    Ok(())
}

/// `ping` is answered with an empty result up to 2025-11-25; 2026-07-28
/// removed it (`changelog.mdx`, item 5), so there it is an unknown method
/// (`-32601`) that the client must surface as an error.
fn ping<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    if s.client().is_stateless() {
        return match s.request("ping", json!({})) {
            Err(Error::Client(ClientError::Rpc { code: -32601, .. })) => Ok(()),
            other => Err(format!("want error -32601, got {other:?}")),
        };
    }
    let result = request(s, "ping", json!({}))?;
    expect_eq("ping result", &result, &json!({}))
}

fn tools_list<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let tools: Vec<Value> = s
        .list_tools()
        .map_err(|e| format!("tools/list: {e}"))?
        .into_iter()
        .filter_map(|t| serde_json::to_value(t).ok())
        .collect();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    let want = [
        "echo",
        "add",
        "fail",
        "region",
        "deploy",
        "interview",
        "ask_model",
        "roots",
        "steps",
    ];
    if names != want {
        return Err(format!("tool names {names:?}, want {want:?}"));
    }
    let tool = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap_or_default()
    };
    let echo = tool("echo");
    expect_eq("echo title", &echo["title"], &json!("Echo"))?;
    expect_eq(
        "echo description",
        &echo["description"],
        &json!("Echoes the message back"),
    )?;
    expect_eq(
        "echo input type",
        &echo["inputSchema"]["type"],
        &json!("object"),
    )?;
    expect_eq(
        "echo input required",
        &echo["inputSchema"]["required"],
        &json!(["message"]),
    )?;
    expect_eq(
        "echo message type",
        &echo["inputSchema"]["properties"]["message"]["type"],
        &json!("string"),
    )?;
    let add = tool("add");
    expect_eq(
        "add output sum type",
        &add["outputSchema"]["properties"]["sum"]["type"],
        &json!("number"),
    )?;
    expect_eq(
        "add input required",
        &add["inputSchema"]["required"],
        &json!(["a", "b"]),
    )?;
    let region = tool("region");
    expect_eq(
        "region x-mcp-header",
        &region["inputSchema"]["properties"]["region"]["x-mcp-header"],
        &json!("Region"),
    )?;
    let steps = tool("steps");
    expect_eq(
        "steps maximum",
        &steps["inputSchema"]["properties"]["steps"]["maximum"],
        &json!(10),
    )
}

fn echo<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = call(s, "echo", json!({"message": "hello, snodo"}))?;
    expect_eq("text", &text(&result), &json!("echo: hello, snodo"))?;
    expect_eq(
        "isError",
        result.get("isError").unwrap_or(&json!(false)),
        &json!(false),
    )
}

fn add<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = call(s, "add", json!({"a": 2, "b": 3.5}))?;
    expect_eq(
        "structuredContent",
        &result["structuredContent"],
        &json!({"sum": 5.5}),
    )?;
    expect_eq("text", &text(&result), &json!("{\"sum\":5.5}"))
}

fn fail<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = call(s, "fail", json!({}))?;
    expect_eq("isError", &result["isError"], &json!(true))?;
    let t = text(&result);
    if t.as_str()
        .is_some_and(|t| t.contains("this tool always fails"))
    {
        Ok(())
    } else {
        Err(format!("tool error text {t}"))
    }
}

/// Over HTTP at 2026-07-28 the SDK checks the `Mcp-Param-Region` header
/// against `arguments.region` and refuses the call (`-32020`) when it is
/// missing or differs (`basic/transports/streamable-http.mdx` § custom
/// headers): this passes only if the client mirrored it right.
fn region_ascii<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = call(s, "region", json!({"region": "eu-west-1"}))?;
    expect_eq("text", &text(&result), &json!("region: eu-west-1"))
}

/// A value that is not plain ASCII travels Base64-encoded in the header
/// (`=?base64?...?=`); the server decodes it before comparing.
fn region_utf8<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = call(s, "region", json!({"region": "Zürich  "}))?;
    expect_eq("text", &text(&result), &json!("region: Zürich  "))
}

/// A tool the server does not have: a protocol error, `-32602`
/// (`server/tools.mdx` § Error Handling).
fn unknown_tool<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    match s.call_tool("no_such_tool", json!({})) {
        Err(Error::Client(ClientError::Rpc { code: -32602, .. })) => Ok(()),
        other => Err(format!("want error -32602, got {other:?}")),
    }
}

/// Arguments that fail the tool's input schema: a tool execution error
/// (`isError: true`) the model can correct (`server/tools.mdx` § Error
/// Handling, "Input validation errors").
fn bad_arguments<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = call(s, "add", json!({"a": "two", "b": 3}))?;
    expect_eq("isError", &result["isError"], &json!(true))?;
    if result.get("structuredContent").is_some() {
        return Err(format!("a failed call with structuredContent: {result}"));
    }
    Ok(())
}

/// A resource that does not exist: `-32602` (`server/resources.mdx` §
/// Error Handling; `-32002` is the code of earlier revisions, which
/// clients should also accept).
fn unknown_resource<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    match s.request("resources/read", json!({"uri": "docs://missing"})) {
        Err(Error::Client(ClientError::Rpc { code: -32602, .. })) => Ok(()),
        Err(Error::Client(ClientError::Rpc { code: -32002, .. })) if !s.client().is_stateless() => {
            Ok(())
        }
        other => Err(format!("want error -32602, got {other:?}")),
    }
}

fn deploy<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    s.handler_mut().elicited.clear();
    let result = call(s, "deploy", json!({"env": "staging"}))?;
    expect_eq("text", &text(&result), &json!("deployed to staging"))?;
    let asked = std::mem::take(&mut s.handler_mut().elicited);
    expect_eq("questions", &json!(asked.len()), &json!(1))?;
    expect_eq(
        "message",
        &asked[0]["message"],
        &json!("Deploy to staging?"),
    )?;
    expect_eq(
        "requested confirm type",
        &asked[0]["requestedSchema"]["properties"]["confirm"]["type"],
        &json!("boolean"),
    )
}

fn interview<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    s.handler_mut().elicited.clear();
    let result = call(s, "interview", json!({}))?;
    expect_eq("text", &text(&result), &json!("Ada likes teal"))?;
    let asked = std::mem::take(&mut s.handler_mut().elicited);
    let messages: Vec<&Value> = asked.iter().map(|a| &a["message"]).collect();
    expect_eq(
        "questions",
        &json!(messages),
        &json!(["Your name?", "Your favourite colour?"]),
    )
}

fn ask_model<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    s.handler_mut().sampled.clear();
    let result = call(
        s,
        "ask_model",
        json!({"question": "What is six times seven?"}),
    )?;
    expect_eq(
        "text",
        &text(&result),
        &json!("snodo-test-model said: forty-two"),
    )?;
    let sampled = std::mem::take(&mut s.handler_mut().sampled);
    expect_eq("sampling requests", &json!(sampled.len()), &json!(1))?;
    expect_eq(
        "sampled message",
        &sampled[0]["messages"][0],
        &json!({"role": "user", "content": {"type": "text", "text": "What is six times seven?"}}),
    )?;
    expect_eq("maxTokens", &sampled[0]["maxTokens"], &json!(64))
}

fn roots<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    s.handler_mut().roots_asked = 0;
    let result = call(s, "roots", json!({}))?;
    expect_eq(
        "text",
        &text(&result),
        &json!("file:///srv/alpha file:///srv/beta"),
    )?;
    expect_eq(
        "roots requests",
        &json!(s.handler_mut().roots_asked),
        &json!(1),
    )
}

fn progress<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    s.handler_mut().progress.clear();
    let result = s
        .request_with(
            "tools/call",
            json!({"name": "steps", "arguments": {"steps": 3}}),
            RequestOptions { progress: true },
        )
        .map_err(|e| format!("tools/call steps: {e}"))?;
    expect_eq("text", &text(&result), &json!("3 steps done"))?;
    let progress = std::mem::take(&mut s.handler_mut().progress);
    if progress.iter().any(|(op, _)| op.is_none()) {
        return Err(String::from(
            "a progress notification not tied to the operation",
        ));
    }
    let seen: Vec<Value> = progress
        .iter()
        .map(|(_, p)| json!([p["progress"], p["total"], p["message"]]))
        .collect();
    expect_eq(
        "progress",
        &json!(seen),
        &json!([[1, 3, "step 1"], [2, 3, "step 2"], [3, 3, "step 3"]]),
    )
}

fn resources_list<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let resources = s
        .list_all("resources/list", "resources")
        .map_err(|e| format!("resources/list: {e}"))?;
    let got: Vec<Value> = resources
        .iter()
        .map(|r| json!([r["uri"], r["name"], r["title"], r["mimeType"]]))
        .collect();
    expect_eq(
        "resources",
        &json!(got),
        &json!([["docs://readme", "readme", "Read me", "text/plain"]]),
    )
}

fn templates_list<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let templates = s
        .list_all("resources/templates/list", "resourceTemplates")
        .map_err(|e| format!("resources/templates/list: {e}"))?;
    let got: Vec<Value> = templates
        .iter()
        .map(|r| json!([r["uriTemplate"], r["name"], r["mimeType"]]))
        .collect();
    expect_eq(
        "templates",
        &json!(got),
        &json!([["greeting://{name}", "greeting", "text/plain"]]),
    )
}

fn read_readme<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = request(s, "resources/read", json!({"uri": "docs://readme"}))?;
    expect_eq(
        "contents",
        &result["contents"],
        &json!([{"uri": "docs://readme", "mimeType": "text/plain", "text": "A server on the released TypeScript SDK."}]),
    )
}

fn read_greeting<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = request(s, "resources/read", json!({"uri": "greeting://Grace"}))?;
    expect_eq(
        "contents",
        &result["contents"],
        &json!([{"uri": "greeting://Grace", "mimeType": "text/plain", "text": "Hello, Grace!"}]),
    )
}

fn prompts_list<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let prompts = s
        .list_all("prompts/list", "prompts")
        .map_err(|e| format!("prompts/list: {e}"))?;
    let names: Vec<&Value> = prompts.iter().map(|p| &p["name"]).collect();
    expect_eq("prompt names", &json!(names), &json!(["review-code"]))?;
    let arguments: Vec<Value> = prompts[0]["arguments"]
        .as_array()
        .ok_or("review-code has no arguments")?
        .iter()
        .map(|a| json!([a["name"], a.get("required").unwrap_or(&json!(false))]))
        .collect();
    expect_eq(
        "arguments",
        &json!(arguments),
        &json!([["code", true], ["language", false]]),
    )?;
    expect_eq("title", &prompts[0]["title"], &json!("Code Review"))
}

fn prompts_get<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = request(
        s,
        "prompts/get",
        json!({"name": "review-code", "arguments": {"code": "fn main() {}", "language": "Rust"}}),
    )?;
    expect_eq(
        "messages",
        &result["messages"],
        &json!([{"role": "user", "content": {"type": "text", "text": "Please review this Rust code:\n\nfn main() {}"}}]),
    )
}

fn complete_prompt<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = request(
        s,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "review-code"}, "argument": {"name": "language", "value": "r"}}),
    )?;
    expect_eq(
        "values",
        &result["completion"]["values"],
        &json!(["Rust", "Ruby"]),
    )?;
    expect_eq("hasMore", &result["completion"]["hasMore"], &json!(false))
}

fn complete_template<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = request(
        s,
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "greeting://{name}"}, "argument": {"name": "name", "value": "A"}}),
    )?;
    expect_eq(
        "values",
        &result["completion"]["values"],
        &json!(["Ada", "Alan"]),
    )
}

fn config(revision: &str, wire: Wire) -> ClientConfig {
    let mut config = ClientConfig::new("snodo-interop", "1.0.0", wire);
    config.versions = vec![String::from(revision)];
    for capability in ["elicitation", "sampling", "roots"] {
        config.capabilities.insert(capability.into(), json!({}));
    }
    config
}

/// What a cell came to.
#[derive(Default)]
struct Tally {
    passed: usize,
    total: usize,
}

/// Run every check of one cell on a connected session.
fn run_cell<T: Transport>(
    label: &str,
    revision: &str,
    session: Result<Session<T, Answers>, Error>,
    serving: Serving,
) -> Tally {
    let mut s = match session {
        Ok(s) => s,
        Err(e) => {
            println!("  FAIL {label}: connect: {e}");
            return Tally {
                passed: 0,
                total: 1,
            };
        }
    };
    let mut tally = Tally {
        passed: 1,
        total: 1,
    };
    if s.client().version() == revision {
        println!("  ok   {label}: connect: revision {revision} in use");
    } else {
        println!(
            "  FAIL {label}: connect: revision {} in use, want {revision}",
            s.client().version()
        );
        tally.passed = 0;
    }
    let stateless = s.client().is_stateless();
    if serving == Serving::Sessions && !stateless {
        // Every later request is refused (400) without it; this says why.
        tally.total += 1;
        match s.client().session_id() {
            Some(id) if !id.is_empty() => {
                tally.passed += 1;
                println!("  ok   {label}: connect: Mcp-Session-Id held");
            }
            _ => println!("  FAIL {label}: connect: no Mcp-Session-Id from initialize"),
        }
    }
    for (name, input, check) in checks::<T>() {
        if let Some(NotRun::Skip(why)) = not_run(stateless, serving, input) {
            println!("  skip {label}: {name} ({why})");
            continue;
        }
        tally.total += 1;
        match check(&mut s) {
            Ok(()) => {
                tally.passed += 1;
                println!("  ok   {label}: {name}");
            }
            Err(why) => println!("  FAIL {label}: {name}: {why}"),
        }
    }
    tally
}

/// The HTTP server process: `node server.mjs --http`, its URL from the
/// first line it prints; it exits when its stdin closes.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(node: &str, server: &str, mode: &str) -> Result<HttpServer, String> {
        let mut child = Command::new(node)
            .arg(server)
            .arg(format!("--{mode}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("spawn {node}: {e}"))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .map_err(|e| format!("read the server's address: {e}"))?;
        let url = line
            .trim()
            .strip_prefix("listening ")
            .ok_or_else(|| format!("unexpected first line {line:?}"))?
            .to_string();
        Ok(HttpServer { child, url })
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start one cell's server and run its checks.
fn cell(node: &str, server: &str, transport: &str, revision: &str) -> Tally {
    let label = format!("{transport} {revision}");
    let timeout = Duration::from_secs(30);
    if transport == "stdio" {
        let mut command = Command::new(node);
        command.arg(server).arg("--stdio");
        let session = StdioTransport::spawn(command)
            .map_err(Error::Transport)
            .and_then(|t| {
                let t = t.with_timeout(timeout);
                Session::connect(t, config(revision, Wire::Stdio), Answers::default())
            });
        return run_cell(&label, revision, session, Serving::Stdio);
    }
    let serving = if transport == "http" {
        Serving::FreshPerPost
    } else {
        Serving::Sessions
    };
    match HttpServer::start(node, server, transport) {
        Ok(process) => {
            let session = HttpTransport::new(&process.url)
                .map_err(Error::Transport)
                .and_then(|t| {
                    let t = t.with_timeout(timeout);
                    Session::connect(t, config(revision, Wire::Http), Answers::default())
                });
            run_cell(&label, revision, session, serving)
        }
        Err(why) => {
            println!("  FAIL {label}: {why}");
            Tally {
                passed: 0,
                total: 1,
            }
        }
    }
}

const USAGE: &str = "usage: interop --node NODE --server server.mjs [--transport stdio|http|http-sessions]... [--revision 2026-07-28|2025-11-25]...";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut node, mut server) = (None, None);
    let (mut transports, mut revisions) = (Vec::new(), Vec::new());
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let value = it.next().cloned();
        match (arg.as_str(), value) {
            ("--node", Some(v)) => node = Some(v),
            ("--server", Some(v)) => server = Some(v),
            ("--transport", Some(v)) if TRANSPORTS.contains(&v.as_str()) => transports.push(v),
            ("--revision", Some(v)) if REVISIONS.contains(&v.as_str()) => revisions.push(v),
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(node), Some(server)) = (node, server) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if transports.is_empty() {
        transports = TRANSPORTS.iter().map(|t| String::from(*t)).collect();
    }
    if revisions.is_empty() {
        revisions = REVISIONS.iter().map(|r| String::from(*r)).collect();
    }

    let mut sum = Tally::default();
    let mut lines = Vec::new();
    for transport in &transports {
        for revision in &revisions {
            let t = cell(&node, &server, transport, revision);
            lines.push(format!("{transport} {revision}: {}/{}", t.passed, t.total));
            sum.passed += t.passed;
            sum.total += t.total;
        }
    }
    for line in &lines {
        println!("server-interop {line}");
    }
    println!("server-interop: {}/{}", sum.passed, sum.total);
    if sum.passed == sum.total {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
