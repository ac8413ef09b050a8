//! snodo-client against the real fixture binary, a separate process: on
//! stdio (`snodo-fixture --stdio`) the 2026-07-28 dialect with an MRTR
//! round, the 2025-11-25 dialect whose elicitation comes as a server
//! request on stdout and is answered on stdin, and tasks; on Streamable
//! HTTP (`--listen 127.0.0.1:0`) tasks, whose methods carry `Mcp-Name`.

use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};
use snodo_client::{Handler, Session, StdioTransport};
use snodo_proto::client::{ClientConfig, Wire};
use snodo_proto::ErrorObject;

const FIXTURE: &str = env!("CARGO_BIN_EXE_snodo-fixture");

/// Accepts every elicitation with a name (and an email, for the forms
/// that ask for one), and records the questions.
#[derive(Default)]
struct Answers {
    asked: Vec<Value>,
}

impl Handler for Answers {
    fn elicit(&mut self, params: &Value) -> Result<Value, ErrorObject> {
        self.asked.push(params.clone());
        let known = json!({"name": "Ada", "username": "ada", "email": "ada@example.com"});
        let mut content = serde_json::Map::new();
        let properties = params["requestedSchema"]["properties"].as_object();
        for (field, schema) in properties.into_iter().flatten() {
            let value = match (&known[field], schema["type"].as_str()) {
                (Value::Null, Some("boolean")) => json!(true),
                (Value::Null, _) => json!("yes"),
                (v, _) => v.clone(),
            };
            content.insert(field.clone(), value);
        }
        Ok(json!({"action": "accept", "content": content}))
    }
}

fn session(version: &str) -> Session<StdioTransport, Answers> {
    let mut config = ClientConfig::new("client-process-test", "1.0.0", Wire::Stdio);
    config.versions = vec![String::from(version)];
    connect(config)
}

fn connect(mut config: ClientConfig) -> Session<StdioTransport, Answers> {
    let mut command = Command::new(FIXTURE);
    command.arg("--stdio");
    let transport = StdioTransport::spawn(command)
        .unwrap()
        .with_timeout(Duration::from_secs(30));
    config.capabilities.insert("elicitation".into(), json!({}));
    Session::connect(transport, config, Answers::default()).unwrap()
}

fn names(tools: &[snodo_proto::Tool]) -> Vec<&str> {
    tools.iter().map(|t| t.name.as_str()).collect()
}

/// The first text block of a tool's result.
fn text(result: &snodo_proto::CallToolResult) -> &str {
    match result.content.first() {
        Some(snodo_proto::Content::Text(t)) => &t.text,
        _ => "",
    }
}

#[test]
fn stateless_dialect_over_stdio_with_an_mrtr_round() {
    let mut s = session("2026-07-28");
    assert!(s
        .client()
        .server()
        .versions
        .iter()
        .any(|v| v == "2026-07-28"));
    let tools = s.list_tools().unwrap();
    assert!(names(&tools).contains(&"test_input_required_result_elicitation"));
    let result = s
        .call_tool("test_input_required_result_elicitation", json!({}))
        .unwrap();
    assert_eq!(text(&result), "Hello, Ada!");
    assert_eq!(s.handler_mut().asked.len(), 1);
}

#[test]
fn initialize_dialect_over_stdio_answers_server_requests() {
    let mut s = session("2025-11-25");
    assert_eq!(s.client().version(), "2025-11-25");
    let tools = s.list_tools().unwrap();
    assert!(
        names(&tools).contains(&"test_elicitation"),
        "{:?}",
        names(&tools)
    );
    let result = s
        .call_tool("test_elicitation", json!({"message": "Who are you?"}))
        .unwrap();
    let asked = &s.handler_mut().asked;
    assert_eq!(asked.len(), 1, "asked by a server request");
    assert_eq!(asked[0]["message"], "Who are you?");
    let text = text(&result);
    assert!(text.starts_with("User response: "), "{text}");
    assert!(text.contains("\"username\":\"ada\""), "{text}");
}

/// With the Tasks extension declared, a task-capable tool answers with a
/// task handle; the session polls `tasks/get` to the result, and answers
/// a task's input request through `tasks/update`.
#[test]
fn tasks_are_polled_to_their_result_and_their_input_answered() {
    let config = snodo_client::with_tasks(ClientConfig::new(
        "client-process-test",
        "1.0.0",
        Wire::Stdio,
    ));
    let mut s = connect(config);
    let step = s
        .start(
            "tools/call",
            json!({"name": "slow_compute", "arguments": {"seconds": 0.2, "label": "x"}}),
        )
        .unwrap();
    let snodo_client::Step::Task(task) = step else {
        panic!("{step:?}")
    };
    assert!(task["taskId"].is_string(), "{task}");
    let result = s.await_task(task).unwrap();
    assert!(result["content"][0]["text"].is_string(), "{result}");

    // A task from the start: its question can only come through the task.
    let step = s
        .start(
            "tools/call",
            json!({"name": "confirm_delete", "arguments": {"filename": "notes.txt"}}),
        )
        .unwrap();
    let snodo_client::Step::Task(task) = step else {
        panic!("{step:?}")
    };
    let result = s.await_task(task).unwrap();
    assert_eq!(s.handler_mut().asked.len(), 1, "{result}");
    assert!(result["content"][0]["text"].is_string(), "{result}");
}

/// The fixture serving Streamable HTTP on a port of its choosing, killed
/// on drop.
struct Listening {
    child: std::process::Child,
    url: String,
}

impl Listening {
    fn start() -> Listening {
        use std::io::BufRead;
        let mut child = Command::new(FIXTURE)
            .args(["--listen", "127.0.0.1:0", "--runtime", "blocking"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Its first stdout line is the address it bound.
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .trim()
            .trim_start_matches("http://")
            .trim_end_matches("/mcp");
        Listening {
            url: format!("http://{addr}/mcp"),
            child,
        }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn tasks_over_streamable_http() {
    let server = Listening::start();
    let mut config = snodo_client::with_tasks(ClientConfig::new(
        "client-process-test",
        "1.0.0",
        Wire::Http,
    ));
    config.capabilities.insert("elicitation".into(), json!({}));
    let transport = snodo_client::HttpTransport::new(&server.url).unwrap();
    let mut s = Session::connect(transport, config, Answers::default()).unwrap();
    let result = s
        .call_tool("slow_compute", json!({"seconds": 0.1}))
        .unwrap();
    assert!(!text(&result).is_empty(), "{result:?}");
    let result = s
        .call_tool("confirm_delete", json!({"filename": "notes.txt"}))
        .unwrap();
    assert_eq!(s.handler_mut().asked.len(), 1, "{result:?}");
}
