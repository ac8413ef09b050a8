//! snodo-client against a server built on the released official Python
//! SDK (`evidence/python-interop/server.py`, run by
//! `evidence/python-interop/run`): over stdio and Streamable HTTP, at
//! 2026-07-28 (`server/discover`, input as MRTR rounds) and 2025-11-25
//! (`initialize`, input as server requests).
//!
//! ```text
//! interop_py --python PYTHON --server server.py [--transport stdio|http]...
//!            [--revision 2026-07-28|2025-11-25]...
//! ```
//!
//! Every expected value (names, texts, schema fields, page sizes) is
//! written here, not read back from the server. Prints one line per check
//! and `python-interop <transport> <revision>: passed/total` per cell;
//! exits 1 on any failure.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};
use snodo_client::{Error, Handler, HttpTransport, Session, StdioTransport, Transport};
use snodo_proto::client::{ClientConfig, OpId, RequestOptions, Wire};
use snodo_proto::ErrorObject;

const REVISIONS: [&str; 2] = ["2026-07-28", "2025-11-25"];
const TRANSPORTS: [&str; 2] = ["stdio", "http"];

/// The application's answers, and a record of what the server asked.
#[derive(Default)]
struct Answers {
    elicited: Vec<Value>,
    progress: Vec<(Option<OpId>, Value)>,
}

impl Handler for Answers {
    /// Confirms whatever the form asks.
    fn elicit(&mut self, params: &Value) -> Result<Value, ErrorObject> {
        self.elicited.push(params.clone());
        Ok(json!({"action": "accept", "content": {"confirm": true}}))
    }

    fn notification(&mut self, op: Option<OpId>, message: &Value) {
        if message["method"] == "notifications/progress" {
            self.progress.push((op, message["params"].clone()));
        }
    }
}

type Verdict = Result<(), String>;
type Check<T> = fn(&mut Session<T, Answers>) -> Verdict;

fn expect_eq(what: &str, got: &Value, want: &Value) -> Verdict {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got}, want {want}"))
    }
}

fn json_of(value: impl serde::Serialize) -> Result<Value, String> {
    serde_json::to_value(value).map_err(|e| e.to_string())
}

fn text(result: &Value) -> Value {
    result["content"][0]["text"].clone()
}

fn call(
    s: &mut Session<impl Transport, Answers>,
    name: &str,
    args: Value,
) -> Result<Value, String> {
    s.call_tool(name, args)
        .map_err(|e| format!("tools/call {name}: {e}"))
        .and_then(json_of)
}

/// The first page of a list, raw: the server pages two items a page, so
/// it must carry `nextCursor` when more follow.
fn first_page(
    s: &mut Session<impl Transport, Answers>,
    method: &str,
    key: &str,
    want: &[&str],
) -> Verdict {
    let page = s
        .request(method, json!({}))
        .map_err(|e| format!("{method}: {e}"))?;
    let names: Vec<&Value> = page[key]
        .as_array()
        .into_iter()
        .flatten()
        .map(|item| item.get("uri").unwrap_or(&item["name"]))
        .collect();
    expect_eq(&format!("{method} first page"), &json!(names), &json!(want))?;
    expect_eq(
        &format!("{method} nextCursor"),
        &page["nextCursor"],
        &json!("2"),
    )
}

fn checks<T: Transport>() -> Vec<(&'static str, Check<T>)> {
    vec![
        ("connect: serverInfo, capabilities", connect::<T>),
        ("tools/list: pages (nextCursor)", tools_pages::<T>),
        ("tools/list: all pages, schemas", tools_list::<T>),
        ("tools/call: text", echo::<T>),
        ("tools/call: typed (call_tool_typed)", add_typed::<T>),
        ("tools/call: error result (isError)", fail::<T>),
        ("elicitation: one form", deploy::<T>),
        ("progress", progress::<T>),
        ("resources/list: pages, all", resources_list::<T>),
        ("resources/templates/list", templates_list::<T>),
        ("resources/read: static", read_readme::<T>),
        ("resources/read: template", read_greeting::<T>),
        ("prompts/list: pages, arguments", prompts_list::<T>),
        ("prompts/get", prompts_get::<T>),
    ]
}

fn connect<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let facts = s.client().server().clone();
    expect_eq(
        "serverInfo",
        facts.info.as_ref().unwrap_or(&Value::Null),
        &json!({"name": "snodo-interop-py", "version": "1.0.0"}),
    )?;
    for capability in ["tools", "resources", "prompts"] {
        if !facts.capabilities.contains_key(capability) {
            return Err(format!(
                "capabilities lack {capability}: {:?}",
                facts.capabilities
            ));
        }
    }
    Ok(())
}

fn tools_pages<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    first_page(s, "tools/list", "tools", &["echo", "add"])
}

fn tools_list<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let tools = json_of(s.list_tools().map_err(|e| format!("tools/list: {e}"))?)?;
    let tools = tools.as_array().cloned().unwrap_or_default();
    let names: Vec<&Value> = tools.iter().map(|t| &t["name"]).collect();
    expect_eq(
        "tool names",
        &json!(names),
        &json!(["echo", "add", "fail", "deploy", "steps"]),
    )?;
    let echo = &tools[0];
    expect_eq("echo title", &echo["title"], &json!("Echo"))?;
    expect_eq(
        "echo description",
        &echo["description"],
        &json!("Echoes the message back"),
    )?;
    expect_eq(
        "echo required",
        &echo["inputSchema"]["required"],
        &json!(["message"]),
    )?;
    expect_eq(
        "echo message type",
        &echo["inputSchema"]["properties"]["message"]["type"],
        &json!("string"),
    )?;
    let add = &tools[1];
    expect_eq(
        "add required",
        &add["inputSchema"]["required"],
        &json!(["a", "b"]),
    )?;
    expect_eq(
        "add output sum type",
        &add["outputSchema"]["properties"]["sum"]["type"],
        &json!("number"),
    )
}

fn echo<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = call(s, "echo", json!({"message": "hello, snodo"}))?;
    expect_eq("text", &text(&result), &json!("echo: hello, snodo"))?;
    expect_eq(
        "structuredContent",
        &result["structuredContent"],
        &json!({"result": "echo: hello, snodo"}),
    )
}

/// The `add` tool's output schema, as the SDK derives it from its pydantic
/// return type.
#[derive(Deserialize, Debug, PartialEq)]
struct Sum {
    sum: f64,
}

fn add_typed<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let sum: Sum = s
        .call_tool_typed("add", json!({"a": 2, "b": 3.5}))
        .map_err(|e| format!("tools/call add: {e}"))?;
    if sum == (Sum { sum: 5.5 }) {
        Ok(())
    } else {
        Err(format!("got {sum:?}, want Sum {{ sum: 5.5 }}"))
    }
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
    first_page(
        s,
        "resources/list",
        "resources",
        &["docs://readme", "docs://changelog"],
    )?;
    let resources = json_of(
        s.list_resources()
            .map_err(|e| format!("resources/list: {e}"))?,
    )?;
    let got: Vec<Value> = resources
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| json!([r["uri"], r["name"], r["title"], r["mimeType"]]))
        .collect();
    expect_eq(
        "resources",
        &json!(got),
        &json!([
            ["docs://readme", "readme", "Read me", "text/plain"],
            ["docs://changelog", "changelog", "Changes", "text/plain"],
            ["docs://license", "license", "Licence", "text/plain"]
        ]),
    )
}

fn templates_list<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let templates = json_of(
        s.list_resource_templates()
            .map_err(|e| format!("resources/templates/list: {e}"))?,
    )?;
    let got: Vec<Value> = templates
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| json!([r["uriTemplate"], r["name"], r["mimeType"]]))
        .collect();
    expect_eq(
        "templates",
        &json!(got),
        &json!([["greeting://{name}", "greeting", "text/plain"]]),
    )
}

fn read(s: &mut Session<impl Transport, Answers>, uri: &str) -> Result<Value, String> {
    s.read_resource(uri)
        .map_err(|e| format!("resources/read {uri}: {e}"))
        .and_then(json_of)
}

fn read_readme<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = read(s, "docs://readme")?;
    expect_eq(
        "contents",
        &result["contents"],
        &json!([{"uri": "docs://readme", "mimeType": "text/plain", "text": "A server on the released Python SDK."}]),
    )
}

fn read_greeting<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    let result = read(s, "greeting://Grace")?;
    expect_eq(
        "contents",
        &result["contents"],
        &json!([{"uri": "greeting://Grace", "mimeType": "text/plain", "text": "Hello, Grace!"}]),
    )
}

fn prompts_list<T: Transport>(s: &mut Session<T, Answers>) -> Verdict {
    first_page(s, "prompts/list", "prompts", &["review-code", "summarize"])?;
    let prompts = json_of(s.list_prompts().map_err(|e| format!("prompts/list: {e}"))?)?;
    let prompts = prompts.as_array().cloned().unwrap_or_default();
    let names: Vec<&Value> = prompts.iter().map(|p| &p["name"]).collect();
    expect_eq(
        "prompt names",
        &json!(names),
        &json!(["review-code", "summarize", "greet"]),
    )?;
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
    let result = json_of(
        s.get_prompt(
            "review-code",
            json!({"code": "fn main() {}", "language": "Rust"}),
        )
        .map_err(|e| format!("prompts/get: {e}"))?,
    )?;
    expect_eq(
        "messages",
        &result["messages"],
        &json!([{"role": "user", "content": {"type": "text", "text": "Please review this Rust code:\n\nfn main() {}"}}]),
    )
}

fn config(revision: &str, wire: Wire) -> ClientConfig {
    let mut config = ClientConfig::new("snodo-interop", "1.0.0", wire);
    config.versions = vec![String::from(revision)];
    config.capabilities.insert("elicitation".into(), json!({}));
    config
}

#[derive(Default)]
struct Tally {
    passed: usize,
    total: usize,
}

fn run_cell<T: Transport>(
    label: &str,
    revision: &str,
    session: Result<Session<T, Answers>, Error>,
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
        passed: 0,
        total: 1,
    };
    if s.client().version() == revision {
        tally.passed += 1;
        println!("  ok   {label}: connect: revision {revision} in use");
    } else {
        println!(
            "  FAIL {label}: connect: revision {} in use, want {revision}",
            s.client().version()
        );
    }
    for (name, check) in checks::<T>() {
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

/// The HTTP server process: `python server.py --http`, its URL from the
/// first line it prints; it exits when its stdin closes.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(python: &str, server: &str) -> Result<HttpServer, String> {
        let mut child = Command::new(python)
            .arg(server)
            .arg("--http")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("spawn {python}: {e}"))?;
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
        for _ in 0..100 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn cell(python: &str, server: &str, transport: &str, revision: &str) -> Tally {
    let label = format!("{transport} {revision}");
    let timeout = Duration::from_secs(30);
    if transport == "stdio" {
        let mut command = Command::new(python);
        command.arg(server).arg("--stdio");
        let session = StdioTransport::spawn(command)
            .map_err(Error::Transport)
            .and_then(|t| {
                let t = t.with_timeout(timeout);
                Session::connect(t, config(revision, Wire::Stdio), Answers::default())
            });
        return run_cell(&label, revision, session);
    }
    match HttpServer::start(python, server) {
        Ok(process) => {
            let session = HttpTransport::new(&process.url)
                .map_err(Error::Transport)
                .and_then(|t| {
                    let t = t.with_timeout(timeout);
                    Session::connect(t, config(revision, Wire::Http), Answers::default())
                });
            run_cell(&label, revision, session)
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

const USAGE: &str = "usage: interop_py --python PYTHON --server server.py [--transport stdio|http]... [--revision 2026-07-28|2025-11-25]...";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut python, mut server) = (None, None);
    let (mut transports, mut revisions) = (Vec::new(), Vec::new());
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let value = it.next().cloned();
        match (arg.as_str(), value) {
            ("--python", Some(v)) => python = Some(v),
            ("--server", Some(v)) => server = Some(v),
            ("--transport", Some(v)) if TRANSPORTS.contains(&v.as_str()) => transports.push(v),
            ("--revision", Some(v)) if REVISIONS.contains(&v.as_str()) => revisions.push(v),
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(python), Some(server)) = (python, server) else {
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
            let t = cell(&python, &server, transport, revision);
            lines.push(format!("{transport} {revision}: {}/{}", t.passed, t.total));
            sum.passed += t.passed;
            sum.total += t.total;
        }
    }
    for line in &lines {
        println!("python-interop {line}");
    }
    println!("python-interop: {}/{}", sum.passed, sum.total);
    if sum.passed == sum.total {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
