//! Capturing what the real server writes.
//!
//! Each cell of {stdio, Streamable HTTP} × {tokio, smol, blocking} starts
//! the fixture process and sends it every request of the literal vector
//! table (`tests/vectors/`: every method and every error class), then the
//! scenarios the table does not reach: first and second rounds of every
//! Multi Round-Trip tool and prompt, progress and log messages, and a
//! `subscriptions/listen` stream with change notifications (on stdio also
//! its graceful end, a result plus `notifications/cancelled`). The Tasks
//! extension too, its capability declared in `_meta` as `tasks.md`
//! requires: a `tools/call` answered with a task (`resultType: "task"`),
//! `tasks/get` on a completed, a failed, an `input_required` (answered by
//! `tasks/update`, then completed) and a working task, and the listen
//! stream watching the working task (`taskIds`) while `tasks/cancel`
//! cancels it: one `notifications/tasks`. The polls before a task reaches
//! the status waited for depend on timing and are not kept. Everything
//! the server writes is kept with the method of the request it answers, and
//! every capture checks that it got exactly the responses it expected, on
//! every transport, so a lost answer fails the corpus instead of shrinking
//! it.
//!
//! `-32603` has no trigger in the fixture, so [`internal_error`] takes it
//! from `snodo-proto`'s `Connection` in-process, serving the fixture with a
//! call timeout; and the fixture process announces no resource changes, so
//! [`registry_changes`] takes `notifications/resources/list_changed` and
//! `notifications/resources/updated` in-process too, from a registry commit
//! and a hub event on the fixture's service.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::{json, Value};
use snodo_proto::{Connection, Instant, Limits, Output};
use snodo_tests::http::mirror;
use snodo_tests::{spawn_http, spawn_stdio, Runtime, Transport, Wire, VECTORS};

/// One message the server wrote.
#[derive(Clone, Debug)]
pub struct Emission {
    /// `stdio/tokio`, `http/smol`, … or `direct`.
    pub cell: String,
    /// The vector or scenario that made the server write it.
    pub source: String,
    /// The method of the request it answers, when known.
    pub method: Option<String>,
    pub message: Value,
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}}"#;

fn call(id: &str, tool: &str, extra: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"{tool}","arguments":{{}},{extra}{META}}}}}"#
    )
}

/// The MRTR tools' first rounds: each answers `input_required`.
const FIRST_ROUNDS: &[&str] = &[
    "test_streaming_elicitation",
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
    "test_url_elicitation",
];

/// Second rounds: the answers for the tool's first-round request.
const SECOND_ROUNDS: &[(&str, &str)] = &[
    (
        "test_input_required_result_elicitation",
        r#"{"user_name":{"action":"accept","content":{"name":"Ada"}}}"#,
    ),
    (
        "test_input_required_result_sampling",
        r#"{"capital_question":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}}"#,
    ),
    (
        "test_input_required_result_list_roots",
        r#"{"client_roots":{"roots":[{"uri":"file:///a","name":"a"}]}}"#,
    ),
    (
        "test_url_elicitation",
        r#"{"authorize":{"action":"decline"}}"#,
    ),
];

/// The listen request: tools and prompts changes, and the status of the
/// task `task` (the Tasks extension's `taskIds`, its capability declared).
fn listen(task: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{{"notifications":{{"toolsListChanged":true,"promptsListChanged":true,"taskIds":["{task}"]}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"extensions":{{"io.modelcontextprotocol/tasks":{{}}}}}}}}}}}}"#
    )
}

/// The request `_meta` of a client declaring the Tasks extension
/// (`tasks.md` § Capability Negotiation).
/// Form elicitation is declared too, for the task that asks for input.
const TASKS_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

fn task_call(id: &str, tool: &str, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"{tool}","arguments":{arguments},{TASKS_META}}}}}"#
    )
}

fn task_request(id: &str, method: &str, task: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"{method}","params":{{"taskId":"{task}",{TASKS_META}}}}}"#
    )
}

/// How long a task may take to reach the status polled for.
const TASK_BOUND: Duration = Duration::from_secs(30);

/// Records everything a transport returns, with request methods.
struct Recorder<'a> {
    cell: String,
    t: &'a mut dyn Transport,
    out: Vec<Emission>,
}

/// `id → method` of every request line in `text`. An id sent again while
/// its first request is in flight is refused with an error, so the first
/// request's method is the one a result for that id answers.
fn methods_of(text: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for v in text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        if let (Some(id), Some(method)) = (v.get("id"), v.get("method").and_then(Value::as_str)) {
            out.entry(id.to_string())
                .or_insert_with(|| method.to_owned());
        }
    }
    out
}

fn record(
    cell: &str,
    source: &str,
    methods: &HashMap<String, String>,
    messages: &[Value],
) -> Vec<Emission> {
    messages
        .iter()
        .map(|m| Emission {
            cell: cell.to_owned(),
            source: source.to_owned(),
            method: m
                .get("id")
                .and_then(|id| methods.get(&id.to_string()))
                .cloned(),
            message: m.clone(),
        })
        .collect()
}

/// Responses (`result` or `error`) among `messages`.
fn responses_in(messages: &[Value]) -> usize {
    messages
        .iter()
        .filter(|m| m.get("result").is_some() || m.get("error").is_some())
        .count()
}

/// Fail the capture unless `messages` carry exactly `expected` responses:
/// a transport that returns what it has (HTTP returns the one answer its
/// framing delimits, or none) would otherwise let a lost answer shrink the
/// corpus without a word.
fn expect_responses(cell: &str, source: &str, expected: usize, messages: &[Value]) {
    let got = responses_in(messages);
    assert_eq!(
        got, expected,
        "[{cell}] {source}: {expected} responses expected, {got} captured: {messages:?}"
    );
}

impl Recorder<'_> {
    fn send(&mut self, source: &str, request: &str, responses: usize) -> Vec<Value> {
        let got = self.t.exchange(request, responses);
        expect_responses(&self.cell, source, responses, &got);
        self.out
            .extend(record(&self.cell, source, &methods_of(request), &got));
        got
    }

    fn vectors(&mut self) {
        for v in VECTORS.iter().flat_map(|g| g.iter()) {
            let expect = match self.t.wire() {
                Wire::Stream => Some(v.expect),
                Wire::Http => v.http.expected(v.expect).map(|(_, e)| e),
            };
            if let Some(e) = expect {
                self.send(v.name, v.request, e.responses());
            }
        }
    }

    /// Create a task with `tool` (its `CreateTaskResult` recorded); its id.
    fn create_task(&mut self, source: &str, tool: &str, arguments: &str) -> String {
        let r = self.send(source, &task_call("tc", tool, arguments), 1);
        assert_eq!(
            r[0]["result"]["resultType"], "task",
            "[{}] {source}: {}",
            self.cell, r[0]
        );
        r[0]["result"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("{source}: no taskId in {}", r[0]))
            .to_owned()
    }

    /// Poll `tasks/get` until the task is `status`, then record one more
    /// `tasks/get`: the polls before it depend on timing, so they are
    /// not part of the corpus (the count must not depend on timing).
    fn task_at(&mut self, source: &str, task: &str, status: &str) {
        let start = std::time::Instant::now();
        loop {
            let r = self.t.exchange(&task_request("tp", "tasks/get", task), 1);
            expect_responses(&self.cell, source, 1, &r);
            if r[0]["result"]["status"] == status {
                break;
            }
            assert!(
                start.elapsed() < TASK_BOUND,
                "[{}] {source}: not {status} within {TASK_BOUND:?}: {}",
                self.cell,
                r[0]
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let r = self.send(source, &task_request("tg", "tasks/get", task), 1);
        assert_eq!(
            r[0]["result"]["status"], status,
            "[{}] {source}: {}",
            self.cell, r[0]
        );
    }

    /// The Tasks extension (`tasks.md`): a task completed, a task failed
    /// with a JSON-RPC error, a task asking for input (`input_required`),
    /// answered with `tasks/update` and then completed, and a task left
    /// working, whose id is
    /// returned (the listen stream watches it, and it is cancelled there).
    fn tasks(&mut self) -> String {
        let done = self.create_task(
            "a task that completes",
            "slow_compute",
            r#"{"seconds":0,"label":"corpus"}"#,
        );
        self.task_at("a task that completes", &done, "completed");
        let failed = self.create_task("a task that fails", "protocol_error_job", "{}");
        self.task_at("a task that fails", &failed, "failed");
        let asking = self.create_task(
            "a task asking for input",
            "confirm_delete",
            r#"{"filename":"corpus.txt"}"#,
        );
        self.task_at("a task asking for input", &asking, "input_required");
        let update = format!(
            r#"{{"jsonrpc":"2.0","id":"tu","method":"tasks/update","params":{{"taskId":"{asking}","inputResponses":{{"confirm":{{"action":"accept","content":{{"confirm":false}}}}}},{TASKS_META}}}}}"#
        );
        self.send("a task asking for input", &update, 1);
        self.task_at("a task asking for input", &asking, "completed");
        let working = self.create_task("a task at work", "slow_compute", r#"{"seconds":3600}"#);
        self.send(
            "a task at work",
            &task_request("tg", "tasks/get", &working),
            1,
        );
        working
    }

    fn scenarios(&mut self) {
        for tool in FIRST_ROUNDS {
            self.send(&format!("{tool} round 1"), &call("r1", tool, ""), 1);
        }
        for (tool, answers) in SECOND_ROUNDS {
            let r1 = self.send(&format!("{tool} round 1"), &call("r1", tool, ""), 1);
            let state = r1[0]["result"]["requestState"]
                .as_str()
                .unwrap_or_else(|| panic!("{tool}: no requestState in {}", r1[0]));
            let extra = format!(r#""inputResponses":{answers},"requestState":"{state}","#);
            self.send(&format!("{tool} round 2"), &call("r2", tool, &extra), 1);
        }
        let prompt = |id: &str, extra: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":"{id}","method":"prompts/get","params":{{"name":"test_input_required_result_prompt",{extra}{META}}}}}"#
            )
        };
        let r1 = self.send("MRTR prompt round 1", &prompt("p1", ""), 1);
        let state = r1[0]["result"]["requestState"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let extra = format!(
            r#""inputResponses":{{"user_context":{{"action":"accept","content":{{"context":"c"}}}}}},"requestState":"{state}","#
        );
        self.send("MRTR prompt round 2", &prompt("p2", &extra), 1);
        self.send(
            "a finished wait",
            r#"{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"test_cancellable_wait","arguments":{"ms":0},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            1,
        );
        self.send(
            "log messages at debug",
            r#"{"jsonrpc":"2.0","id":"log","method":"tools/call","params":{"name":"test_logging_tool","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"}}}"#,
            1,
        );
        self.send(
            "progress with a string token",
            r#"{"jsonrpc":"2.0","id":"prog","method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"tok"}}}"#,
            1,
        );
    }
}

fn trigger(id: u32, tool: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    )
}

const TRIGGERS: [&str; 2] = ["test_trigger_tool_change", "test_trigger_prompt_change"];

/// The id of the listen stream's `tasks/cancel`.
const CANCEL: &str = "C";

fn listen_methods() -> HashMap<String, String> {
    let mut m = methods_of(&listen("t"));
    m.insert(format!("\"{CANCEL}\""), String::from("tasks/cancel"));
    for (i, _) in TRIGGERS.iter().enumerate() {
        m.insert((i as u32 + 1).to_string(), String::from("tools/call"));
    }
    m
}

/// A stdio cell: the table, the scenarios, then a listen stream that
/// stdin's end tears down.
pub fn stdio_cell(bin: &str, runtime: Runtime) -> Vec<Emission> {
    let cell = format!("stdio/{}", runtime.flag());
    let mut p = spawn_stdio(bin, runtime);
    let (mut out, task) = {
        let mut r = Recorder {
            cell: cell.clone(),
            t: &mut p,
            out: Vec::new(),
        };
        r.vectors();
        r.scenarios();
        let task = r.tasks();
        (r.out, task)
    };
    let methods = listen_methods();
    p.write_raw(format!("{}\n", listen(&task)).as_bytes());
    let mut got = vec![p.next_message().expect("the acknowledgement")];
    for (i, tool) in TRIGGERS.iter().enumerate() {
        p.write_raw(format!("{}\n", trigger(i as u32 + 1, tool)).as_bytes());
        got.push(p.next_message().expect("a notification or the answer"));
        got.push(p.next_message().expect("a notification or the answer"));
    }
    p.write_raw(format!("{}\n", task_request(CANCEL, "tasks/cancel", &task)).as_bytes());
    got.push(p.next_message().expect("a notification or the answer"));
    got.push(p.next_message().expect("a notification or the answer"));
    p.close_stdin();
    got.extend(p.read_to_end());
    // The triggers' two answers, the cancellation's and the listen
    // request's own result at stdin's end
    // (`basic/patterns/subscriptions.mdx`), around the acknowledgement,
    // the two changes, the task's `notifications/tasks` and
    // `notifications/cancelled`.
    expect_responses(&cell, "listen stream", 4, &got);
    assert_eq!(got.len(), 9, "[{cell}] listen stream: {got:?}");
    assert_eq!(
        got.iter()
            .filter(|m| m["method"] == "notifications/tasks")
            .count(),
        1,
        "[{cell}] the cancelled task's status: {got:?}"
    );
    out.extend(record(&cell, "listen stream", &methods, &got));
    out
}

/// An HTTP cell: the table, the scenarios, and a listen stream on its own
/// connection receiving the triggers' changes.
pub fn http_cell(bin: &str, runtime: Runtime) -> Vec<Emission> {
    let cell = format!("http/{}", runtime.flag());
    let mut p = spawn_http(bin, runtime);
    let (mut out, task) = {
        let mut r = Recorder {
            cell: cell.clone(),
            t: &mut p,
            out: Vec::new(),
        };
        r.vectors();
        r.scenarios();
        let task = r.tasks();
        (r.out, task)
    };
    let methods = listen_methods();
    let listen = listen(&task);
    let mut stream = TcpStream::connect(p.addr()).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a read timeout");
    let mut head = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\n", p.addr());
    for (k, v) in mirror::headers(&listen) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{listen}",
        listen.len()
    ));
    stream
        .write_all(head.as_bytes())
        .expect("send the listen request");
    let mut reader = BufReader::new(stream);
    // The stream carries the acknowledgement, then one change per trigger,
    // and no response while it is open.
    let mut got = sse_events(&mut reader, 1);
    for (i, tool) in TRIGGERS.iter().enumerate() {
        let request = trigger(i as u32 + 1, tool);
        let (_, answer) = p.post(&request);
        expect_responses(&cell, "listen trigger", 1, &answer);
        out.extend(record(&cell, "listen trigger", &methods, &answer));
        got.extend(sse_events(&mut reader, 1));
    }
    // The task it watches, cancelled: one `notifications/tasks`.
    let (_, answer) = p.post(&task_request(CANCEL, "tasks/cancel", &task));
    expect_responses(&cell, "listen trigger", 1, &answer);
    out.extend(record(&cell, "listen trigger", &methods, &answer));
    got.extend(sse_events(&mut reader, 1));
    assert_eq!(
        got.last().map(|m| &m["method"]),
        Some(&json!("notifications/tasks")),
        "[{cell}] {got:?}"
    );
    expect_responses(&cell, "listen stream", 0, &got);
    out.extend(record(&cell, "listen stream", &methods, &got));
    drop(reader);
    p.finish();
    out
}

/// The next `n` SSE `data:` messages of a stream.
fn sse_events(r: &mut impl BufRead, n: usize) -> Vec<Value> {
    let mut out = Vec::new();
    let mut line = String::new();
    while out.len() < n {
        line.clear();
        match r.read_line(&mut line) {
            Ok(0) => panic!("the listen stream ended after {out:?}"),
            Ok(_) => {}
            Err(e) => panic!("the listen stream fell silent after {out:?}: {e}"),
        }
        if let Some(data) = line.trim_end().strip_prefix("data: ") {
            out.push(serde_json::from_str(data).expect("an event's data is JSON"));
        }
    }
    out
}

/// `-32603`: a call that outlives the service's call timeout, in-process.
pub fn internal_error() -> Vec<Emission> {
    let service = snodo_conformance::builder()
        .limits(Limits::default().call_timeout(Some(Duration::from_secs(5))))
        .build()
        .expect("the fixture with a call timeout");
    let request = r#"{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"test_cancellable_wait","arguments":{"ms":60000},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let mut conn = Connection::new(&service, snodo_proto::Transport::Stdio, Instant::ZERO);
    conn.handle_input(format!("{request}\n").as_bytes(), Instant::ZERO);
    while conn.poll_output().is_some() {}
    conn.handle_timeout(Instant::from_millis(5_000));
    let mut written = Vec::new();
    while let Some(out) = conn.poll_output() {
        if let Output::Transmit(b) = out {
            written.extend_from_slice(&b);
        }
    }
    let messages: Vec<Value> = written
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("one JSON line"))
        .collect();
    assert_eq!(
        messages
            .iter()
            .map(|m| m["error"]["code"].clone())
            .collect::<Vec<_>>(),
        vec![json!(-32603)],
        "the timed-out call is answered with an internal error: {messages:?}"
    );
    record(
        "direct",
        "a call past its timeout",
        &methods_of(request),
        &messages,
    )
}

/// `notifications/resources/list_changed` from a registry commit and
/// `notifications/resources/updated` from a hub event, on a listen stream,
/// in-process: the fixture with every change notification declared.
pub fn registry_changes() -> Vec<Emission> {
    let service = snodo_conformance::builder()
        .notifications(
            snodo_proto::Notifications::default()
                .tools_list_changed()
                .prompts_list_changed()
                .resources_list_changed()
                .resource_updates(),
        )
        .build()
        .expect("the fixture with every change notification");
    let listen = r#"{"jsonrpc":"2.0","id":"R","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["test://registry/added"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let mut conn = Connection::new(&service, snodo_proto::Transport::Stdio, Instant::ZERO);
    let mut written = Vec::new();
    let mut drain = |conn: &mut Connection| {
        while let Some(out) = conn.poll_output() {
            if let Output::Transmit(b) = out {
                written.extend_from_slice(&b);
            }
        }
    };
    conn.handle_input(format!("{listen}\n").as_bytes(), Instant::ZERO);
    drain(&mut conn);
    service
        .registry()
        .change()
        .resource_declared(snodo_proto::Resource::new("test://registry/added", "added"))
        .tool_declared(snodo_proto::Tool::new(
            "registry_added",
            "Added at run time",
        ))
        .commit()
        .expect("the registry change commits");
    service.hub().expect("the fixture has a hub").publish(
        snodo_proto::ChangeEvent::ResourceUpdated {
            uri: String::from("test://registry/added"),
        },
    );
    conn.handle_changes(Instant::ZERO);
    drain(&mut conn);
    let messages: Vec<Value> = written
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("one JSON line"))
        .collect();
    assert_eq!(
        messages
            .iter()
            .map(|m| m["method"].clone())
            .collect::<Vec<_>>(),
        vec![
            json!("notifications/subscriptions/acknowledged"),
            json!("notifications/tools/list_changed"),
            json!("notifications/resources/list_changed"),
            json!("notifications/resources/updated"),
        ],
        "the acknowledgement, one change per list the commit changed, the update: {messages:?}"
    );
    record(
        "direct",
        "a registry commit and a resource update",
        &methods_of(listen),
        &messages,
    )
}
