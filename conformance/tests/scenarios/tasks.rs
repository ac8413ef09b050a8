//! The Tasks-extension tools (`SCENARIOS-2026-07-28.md` § 2.2; scenarios
//! `tasks-*`, § 3.38–3.47) through a `Connection`, with the fixture's task
//! runner driven by hand: what each scenario sends, and what it checks.

use std::sync::Arc;

use serde_json::{json, Value};
use snodo_proto::{Instant, Service};
use snodo_tasks::{MemoryStore, RunnerOutput, TaskRunner, Work};

use crate::harness::{block_on, exchange_on};

const TASKS: &str = r#""io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"sampling":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;
const NONE: &str = r#""io.modelcontextprotocol/clientCapabilities":{}"#;

struct Fixture {
    service: Service,
    runner: TaskRunner,
    now: Instant,
}

impl Fixture {
    fn new() -> Fixture {
        let service = snodo_conformance::builder_with_tasks(Arc::new(MemoryStore::new()))
            .build()
            .expect("the fixture builds");
        let runner = TaskRunner::new(&service, snodo_conformance::tasks::runner_config())
            .expect("the fixture installs Tasks");
        Fixture {
            service,
            runner,
            // The harness feeds the connection `Instant::ZERO`; the runner shares
            // its clock.
            now: Instant::ZERO,
        }
    }

    fn send(&self, method: &str, params: &str, caps: &str) -> Value {
        let sep = if params.is_empty() { "" } else { "," };
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{params}{sep}"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28",{caps}}}}}}}"#
        );
        let mut lines = exchange_on(&self.service, &line);
        assert_eq!(lines.len(), 1, "{lines:?}");
        lines.remove(0)
    }

    fn create(&self, params: &str) -> String {
        let r = self.send("tools/call", params, TASKS);
        assert_eq!(r["result"]["resultType"], "task", "{r}");
        r["result"]["taskId"].as_str().unwrap().to_string()
    }

    fn get(&self, id: &str) -> Value {
        self.send("tasks/get", &format!(r#""taskId":"{id}""#), TASKS)["result"].clone()
    }

    /// Runs handed out by the runner now.
    fn claim(&mut self) -> Vec<Work> {
        self.runner.handle_timeout(self.now);
        let mut out = Vec::new();
        while let Some(o) = self.runner.poll_output() {
            if let RunnerOutput::Run(w) = o {
                out.push(w);
            }
        }
        out
    }

    fn finish(&mut self, works: Vec<Work>) {
        for w in works {
            let id = w.id;
            let outcome = block_on(w.run());
            self.runner.complete(id, outcome, self.now);
        }
    }

    fn run_all(&mut self) {
        for _ in 0..8 {
            let works = self.claim();
            if works.is_empty() {
                return;
            }
            self.finish(works);
        }
    }
}

#[test]
fn lifecycle() {
    let mut f = Fixture::new();
    // tasks-sync-tool-call
    let r = f.send(
        "tools/call",
        r#""name":"greet","arguments":{"name":"World"}"#,
        TASKS,
    );
    assert_eq!(r["result"]["content"][0]["text"], "Hello, World!");
    assert!(r["result"].get("taskId").is_none());
    // sep-2663-result-type-task-on-create
    let created = f.send(
        "tools/call",
        r#""name":"slow_compute","arguments":{"seconds":0,"label":"lifecycle-create"}"#,
        TASKS,
    );
    let c = &created["result"];
    assert_eq!(c["resultType"], "task");
    assert_eq!(c["status"], "working");
    for absent in ["task", "result", "error", "inputRequests", "requestState"] {
        assert!(c.get(absent).is_none(), "{absent} in {c}");
    }
    let id = c["taskId"].as_str().unwrap().to_string();
    // sep-2663-tasks-get-status-completed
    f.run_all();
    let t = f.get(&id);
    assert_eq!(t["status"], "completed");
    assert_eq!(
        t["result"]["content"][0]["text"],
        "lifecycle-create: computed after 0s"
    );
    // sep-2663-tool-error-uses-completed-status
    let job = f.create(r#""name":"failing_job""#);
    f.run_all();
    let t = f.get(&job);
    assert_eq!(
        (t["status"].clone(), t["result"]["isError"].clone()),
        (json!("completed"), json!(true))
    );
    // sep-2663-tasks-get-status-failed
    let job = f.create(r#""name":"protocol_error_job""#);
    f.run_all();
    let t = f.get(&job);
    assert_eq!(t["status"], "failed");
    assert_eq!(
        t["error"],
        json!({"code":-32603,"message":"The job hit an internal error"})
    );
    assert!(t.get("result").is_none());
    // sep-2663-cancel-ack-empty-result: the run is out, the cancel lands.
    let long =
        f.create(r#""name":"slow_compute","arguments":{"seconds":60,"label":"lifecycle-cancel"}"#);
    let out = f.claim();
    assert_eq!(out.len(), 1);
    let ack = f.send("tasks/cancel", &format!(r#""taskId":"{long}""#), TASKS);
    assert_eq!(ack["result"]["resultType"], "complete");
    for absent in ["taskId", "status", "result", "error", "inputRequests"] {
        assert!(ack["result"].get(absent).is_none(), "{absent} in {ack}");
    }
    assert_eq!(f.get(&long)["status"], "cancelled");
    assert!(
        out[0].cancel_flag().is_cancelled() || {
            f.claim();
            out[0].cancel_flag().is_cancelled()
        }
    );
    // tasks-cancel-terminal-idempotent-ack
    let again = f.send("tasks/cancel", &format!(r#""taskId":"{id}""#), TASKS);
    assert_eq!(again["result"]["resultType"], "complete");
}

#[test]
fn capability_negotiation_and_required_task_error() {
    let f = Fixture::new();
    let d = f.send("server/discover", "", TASKS);
    assert_eq!(
        d["result"]["capabilities"]["extensions"],
        json!({"io.modelcontextprotocol/tasks":{}})
    );
    assert!(d["result"]["capabilities"].get("tasks").is_none());
    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let e = f.send(method, r#""taskId":"gate-test","inputResponses":{}"#, NONE);
        assert_eq!(e["error"]["code"], -32021, "{method}");
    }
    let sync = f.send(
        "tools/call",
        r#""name":"slow_compute","arguments":{"seconds":0,"label":"capability-no-ext"}"#,
        NONE,
    );
    assert_eq!(
        sync["result"]["content"][0]["text"],
        "capability-no-ext: computed after 0s"
    );
    assert!(sync["result"].get("taskId").is_none());
    let e = f.send("tools/call", r#""name":"failing_job""#, NONE);
    assert_eq!(
        e["error"],
        json!({"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}})
    );
}

#[test]
fn wire_fields_and_no_request_state() {
    let mut f = Fixture::new();
    let created = f.send(
        "tools/call",
        r#""name":"slow_compute","arguments":{"seconds":0,"label":"wire-fields"}"#,
        TASKS,
    );
    let c = &created["result"];
    assert!(c["ttlMs"].as_u64().is_some_and(|t| t > 0), "{c}");
    assert!(c["pollIntervalMs"].as_u64().is_some_and(|t| t > 0), "{c}");
    assert!(c.get("ttl").is_none() && c.get("pollInterval").is_none());
    let id = c["taskId"].as_str().unwrap();
    f.run_all();
    let t = f.get(id);
    assert!(t.get("requestState").is_none());
    assert!(t["result"]["_meta"]
        .get("io.modelcontextprotocol/related-task")
        .is_none());
}

#[test]
fn mrtr_input_through_tasks_update() {
    let mut f = Fixture::new();
    // sep-2663-tasks-get-status-input-required, tasks-mrtr-tasks-update-resumes
    let id = f.create(r#""name":"confirm_delete","arguments":{"filename":"mrtr-resume.txt"}"#);
    f.run_all();
    let t = f.get(&id);
    assert_eq!(t["status"], "input_required");
    assert_eq!(
        t["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    // Unknown keys are acknowledged and ignored.
    let ack = f.send(
        "tasks/update",
        &format!(r#""taskId":"{id}","inputResponses":{{"unknown-key":{{"ignored":true}}}}"#),
        TASKS,
    );
    assert_eq!(ack["result"]["resultType"], "complete");
    assert_eq!(f.get(&id)["status"], "input_required");
    f.send("tasks/update", &format!(r#""taskId":"{id}","inputResponses":{{"confirm":{{"action":"accept","content":{{"confirm":true}}}}}}"#), TASKS);
    f.run_all();
    let t = f.get(&id);
    assert_eq!(t["status"], "completed");
    assert_eq!(t["result"]["content"][0]["text"], "Deleted mrtr-resume.txt");
    // tasks-mrtr-partial-fulfillment
    let id = f.create(r#""name":"multi_input""#);
    f.run_all();
    let t = f.get(&id);
    let keys: Vec<String> = t["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(keys.len(), 2);
    f.send("tasks/update", &format!(r#""taskId":"{id}","inputResponses":{{"{}":{{"action":"accept","content":{{"name":"partial-1","confirm":true}}}}}}"#, keys[0]), TASKS);
    let t = f.get(&id);
    assert_eq!(t["status"], "input_required");
    assert_eq!(
        t["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>(),
        vec![keys[1].clone()]
    );
    f.send("tasks/update", &format!(r#""taskId":"{id}","inputResponses":{{"{}":{{"action":"accept","content":{{"name":"partial-2","confirm":true}}}}}}"#, keys[1]), TASKS);
    f.run_all();
    let t = f.get(&id);
    assert_eq!(t["status"], "completed");
    assert_eq!(keys, ["first", "second"]);
    assert_eq!(
        t["result"]["content"][0]["text"],
        "Received partial-1 and partial-2"
    );
    // Without the extension confirm_delete is an MRTR round, same handler.
    let r = f.send(
        "tools/call",
        r#""name":"confirm_delete","arguments":{"filename":"sync.txt"}"#,
        r#""io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}"#,
    );
    assert_eq!(r["result"]["resultType"], "input_required");
    assert_eq!(
        r["result"]["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
}

#[test]
fn dispatch_and_envelope() {
    let f = Fixture::new();
    for removed in ["tasks/result", "tasks/list"] {
        let e = f.send(
            removed,
            r#""taskId":"tasks-conformance-isolation-probe""#,
            TASKS,
        );
        assert_eq!(e["error"]["code"], -32601, "{removed}");
    }
    // A legacy `task` params member is ignored: greet stays synchronous.
    let r = f.send("tools/call", r#""name":"greet","arguments":{"name":"legacy-hint"},"task":{"ttl":60000,"pollInterval":100}"#, TASKS);
    assert_eq!(r["result"]["content"][0]["text"], "Hello, legacy-hint!");
    let e = f.send(
        "tasks/get",
        r#""taskId":"tasks-conformance-nonexistent-12345""#,
        TASKS,
    );
    assert_eq!(e["error"]["code"], -32602);
}

#[test]
fn mrtr_composition() {
    let mut f = Fixture::new();
    let caps = r#""io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;
    let r1 = f.send("tools/call", r#""name":"test_tool_with_task""#, caps);
    assert_eq!(r1["result"]["resultType"], "input_required");
    assert!(r1["result"].get("taskId").is_none());
    let key = r1["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let state = r1["result"]["requestState"].as_str().unwrap();
    let r2 = f.send(
        "tools/call",
        &format!(r#""name":"test_tool_with_task","inputResponses":{{"{key}":{{"action":"accept","content":{{"name":"Alice"}}}}}},"requestState":"{state}""#),
        caps,
    );
    assert_eq!(r2["result"]["resultType"], "task");
    assert!(
        r2["result"].get("requestState").is_none() && r2["result"].get("inputRequests").is_none()
    );
    let id = r2["result"]["taskId"].as_str().unwrap().to_string();
    f.run_all();
    let t = f.get(&id);
    assert_eq!(t["status"], "completed");
    assert_eq!(t["result"]["content"][0]["text"], "Hello, Alice!");
}
