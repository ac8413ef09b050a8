//! The task lifecycle on the wire (`tasks.md`): creation, polling, each
//! status and its payload, input through `tasks/update`, cancellation,
//! capability negotiation, and status notifications on listen streams.
//! Every scenario runs on both stores.

mod support;

use std::sync::Arc;

use serde_json::{json, Value};
use snodo_tasks::{DiskStore, MemoryStore, Store};
use support::{lit, req, task_id, World, DECLARED, PLAIN};

const SERVER: &str = r#"{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}"#;

fn stores() -> Vec<(&'static str, Arc<dyn Store>, Option<TempDir>)> {
    let dir = TempDir::new("lifecycle");
    let disk = DiskStore::open(dir.path()).expect("a fresh disk store");
    vec![
        ("memory", Arc::new(MemoryStore::new()), None),
        ("disk", Arc::new(disk), Some(dir)),
    ]
}

/// A directory removed when dropped.
pub struct TempDir(std::path::PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let n: u64 = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        let p = std::env::temp_dir().join(format!("snodo-tasks-{tag}-{}-{n}", std::process::id()));
        TempDir(p)
    }
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn with_meta(v: &str) -> String {
    v.replace("SERVER", SERVER)
}

#[test]
fn a_task_is_created_polled_and_completed() {
    for (name, store, _dir) in stores() {
        let mut w = World::new(store);
        let created = w.call(&req(
            1,
            "tools/call",
            r#""name":"echo","arguments":{"text":"hi"}"#,
            DECLARED,
        ));
        let id = task_id(&created);
        assert_eq!(id.len(), 32, "{name}");
        // `tasks.md` § Task Creation: flat, resultType "task", no payload.
        assert_eq!(
            created,
            lit(
                &with_meta(
                    r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":SERVER,"createdAt":"2026-07-28T00:00:00.000Z","lastUpdatedAt":"2026-07-28T00:00:00.000Z","pollIntervalMs":250,"resultType":"task","status":"working","taskId":"{id}","ttlMs":60000}}"#
                ),
                &id
            ),
            "{name}"
        );
        // Durable before the answer: tasks/get resolves at once.
        let get = req(2, "tasks/get", &format!(r#""taskId":"{id}""#), DECLARED);
        assert_eq!(
            w.call(&get),
            lit(
                &with_meta(
                    r#"{"jsonrpc":"2.0","id":2,"result":{"_meta":SERVER,"createdAt":"2026-07-28T00:00:00.000Z","lastUpdatedAt":"2026-07-28T00:00:00.000Z","pollIntervalMs":250,"resultType":"complete","status":"working","taskId":"{id}","ttlMs":60000}}"#
                ),
                &id
            ),
            "{name}"
        );
        w.advance(1500);
        w.settle();
        assert_eq!(
            w.call(&get),
            lit(
                &with_meta(
                    r#"{"jsonrpc":"2.0","id":2,"result":{"_meta":SERVER,"createdAt":"2026-07-28T00:00:00.000Z","lastUpdatedAt":"2026-07-28T00:00:01.500Z","pollIntervalMs":250,"resultType":"complete","status":"completed","taskId":"{id}","ttlMs":60000,"result":{"_meta":SERVER,"content":[{"type":"text","text":"hi"}],"resultType":"complete"}}}"#
                ),
                &id
            ),
            "{name}"
        );
        // Terminal is immutable: nothing changes it any more.
        w.advance(1000);
        w.settle();
        assert_eq!(
            w.call(&get)["result"]["lastUpdatedAt"],
            "2026-07-28T00:00:01.500Z"
        );
    }
}

#[test]
fn errors_fail_the_task_and_tool_errors_complete_it() {
    for (name, store, _dir) in stores() {
        let mut w = World::new(store);
        let fail = task_id(&w.call(&req(1, "tools/call", r#""name":"fail""#, DECLARED)));
        let oops = task_id(&w.call(&req(2, "tools/call", r#""name":"oops""#, DECLARED)));
        w.settle();
        // § Task Execution Errors: a JSON-RPC error is `failed` with `error`
        // and a diagnostic statusMessage, and no result.
        assert_eq!(
            w.call(&req(
                3,
                "tasks/get",
                &format!(r#""taskId":"{fail}""#),
                DECLARED
            )),
            lit(
                &with_meta(
                    r#"{"jsonrpc":"2.0","id":3,"result":{"_meta":SERVER,"createdAt":"2026-07-28T00:00:00.000Z","lastUpdatedAt":"2026-07-28T00:00:00.000Z","pollIntervalMs":250,"resultType":"complete","status":"failed","statusMessage":"Tool execution failed: Upstream API rate limit exceeded","taskId":"{id}","ttlMs":60000,"error":{"code":-32603,"message":"Upstream API rate limit exceeded"}}}"#
                ),
                &fail
            ),
            "{name}"
        );
        // A tool error (isError: true) is `completed` with the result.
        assert_eq!(
            w.call(&req(
                4,
                "tasks/get",
                &format!(r#""taskId":"{oops}""#),
                DECLARED
            )),
            lit(
                &with_meta(
                    r#"{"jsonrpc":"2.0","id":4,"result":{"_meta":SERVER,"createdAt":"2026-07-28T00:00:00.000Z","lastUpdatedAt":"2026-07-28T00:00:00.000Z","pollIntervalMs":250,"resultType":"complete","status":"completed","taskId":"{id}","ttlMs":60000,"result":{"_meta":SERVER,"content":[{"type":"text","text":"Failed to process request: invalid input"}],"isError":true,"resultType":"complete"}}}"#
                ),
                &oops
            ),
            "{name}"
        );
    }
}

#[test]
fn input_is_asked_through_tasks_get_and_given_through_tasks_update() {
    for (name, store, _dir) in stores() {
        let mut w = World::new(store);
        let id = task_id(&w.call(&req(1, "tools/call", r#""name":"ask_two""#, DECLARED)));
        w.settle();
        let get = req(2, "tasks/get", &format!(r#""taskId":"{id}""#), DECLARED);
        assert_eq!(
            w.call(&get),
            lit(
                &with_meta(
                    r#"{"jsonrpc":"2.0","id":2,"result":{"_meta":SERVER,"createdAt":"2026-07-28T00:00:00.000Z","lastUpdatedAt":"2026-07-28T00:00:00.000Z","pollIntervalMs":250,"resultType":"complete","status":"input_required","statusMessage":"Waiting for input from the client","taskId":"{id}","ttlMs":60000,"inputRequests":{"first":{"method":"elicitation/create","params":{"mode":"form","message":"First?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}}},"second":{"method":"elicitation/create","params":{"mode":"form","message":"Second?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}}}}}}"#
                ),
                &id
            ),
            "{name}"
        );
        let ack = lit(
            &with_meta(
                r#"{"jsonrpc":"2.0","id":3,"result":{"_meta":SERVER,"resultType":"complete"}}"#,
            ),
            &id,
        );
        // A malformed answer to an outstanding key is refused, nothing applied.
        let bad = req(
            3,
            "tasks/update",
            &format!(
                r#""taskId":"{id}","inputResponses":{{"first":{{"action":"accept","content":{{"confirm":"yes"}}}}}}"#
            ),
            DECLARED,
        );
        let refused = w.call(&bad);
        assert_eq!(refused["error"]["code"], -32602, "{name}: {refused}");
        // Partial: one key answered (plus an unknown one, ignored) -> acked,
        // and the very next tasks/get drops exactly that key.
        w.advance(10);
        let partial = req(
            3,
            "tasks/update",
            &format!(
                r#""taskId":"{id}","inputResponses":{{"first":{{"action":"accept","content":{{"confirm":true}}}},"unknown-key":{{"ignored":true}}}}"#
            ),
            DECLARED,
        );
        assert_eq!(w.call(&partial), ack, "{name}");
        let after = w.call(&get);
        assert_eq!(after["result"]["status"], "input_required");
        assert_eq!(
            after["result"]["inputRequests"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            vec!["second"],
            "{name}"
        );
        assert_eq!(after["result"]["lastUpdatedAt"], "2026-07-28T00:00:00.010Z");
        // Answering the same key again is acknowledged and ignored.
        assert_eq!(w.call(&partial), ack, "{name}");
        // The last answer makes it working, and the handler runs again with both.
        let rest = req(
            3,
            "tasks/update",
            &format!(
                r#""taskId":"{id}","inputResponses":{{"second":{{"action":"accept","content":{{"confirm":true}}}}}}"#
            ),
            DECLARED,
        );
        assert_eq!(w.call(&rest), ack, "{name}");
        assert_eq!(w.call(&get)["result"]["status"], "working", "{name}");
        w.settle();
        let done = w.call(&get);
        assert_eq!(done["result"]["status"], "completed", "{name}");
        assert_eq!(
            done["result"]["result"]["content"],
            json!([{"type":"text","text":"both"}])
        );
        assert!(done["result"].get("inputRequests").is_none());
        // An update after the end is acknowledged and changes nothing.
        assert_eq!(w.call(&rest), ack, "{name}");
        assert_eq!(w.call(&get), done);
    }
}

#[test]
fn cancel_ends_a_task_and_is_idempotent_on_terminal_ones() {
    for (name, store, _dir) in stores() {
        let mut w = World::new(store);
        let id = task_id(&w.call(&req(
            1,
            "tools/call",
            r#""name":"echo","arguments":{"text":"x"}"#,
            DECLARED,
        )));
        let cancel = req(2, "tasks/cancel", &format!(r#""taskId":"{id}""#), DECLARED);
        // § Task Cancellation: an empty acknowledgement, resultType complete.
        let ack = lit(
            &with_meta(
                r#"{"jsonrpc":"2.0","id":2,"result":{"_meta":SERVER,"resultType":"complete"}}"#,
            ),
            &id,
        );
        w.advance(5);
        assert_eq!(w.call(&cancel), ack, "{name}");
        let get = req(3, "tasks/get", &format!(r#""taskId":"{id}""#), DECLARED);
        assert_eq!(
            w.call(&get),
            lit(
                &with_meta(
                    r#"{"jsonrpc":"2.0","id":3,"result":{"_meta":SERVER,"createdAt":"2026-07-28T00:00:00.000Z","lastUpdatedAt":"2026-07-28T00:00:00.005Z","pollIntervalMs":250,"resultType":"complete","status":"cancelled","statusMessage":"The task was cancelled by the client","taskId":"{id}","ttlMs":60000}}"#
                ),
                &id
            ),
            "{name}"
        );
        // Cancelled before it ran: the runner never runs it.
        w.tick();
        assert!(w.held.is_empty(), "{name}");
        // Cancelling a terminal task: the same ack, nothing changes.
        assert_eq!(w.call(&cancel), ack, "{name}");
        let done = task_id(&w.call(&req(
            4,
            "tools/call",
            r#""name":"echo","arguments":{"text":"y"}"#,
            DECLARED,
        )));
        w.settle();
        let cancel_done = req(
            2,
            "tasks/cancel",
            &format!(r#""taskId":"{done}""#),
            DECLARED,
        );
        assert_eq!(w.call(&cancel_done), ack, "{name}");
        assert_eq!(
            w.call(&req(
                5,
                "tasks/get",
                &format!(r#""taskId":"{done}""#),
                DECLARED
            ))["result"]["status"],
            "completed"
        );
    }
}

#[test]
fn unknown_and_malformed_task_ids_are_invalid_params() {
    let mut w = World::new(Arc::new(MemoryStore::new()));
    for (method, verb) in [
        ("tasks/get", "retrieve"),
        ("tasks/update", "update"),
        ("tasks/cancel", "cancel"),
    ] {
        for id in [
            "tasks-conformance-nonexistent-12345",
            "0123456789abcdef0123456789abcdef",
            "../../store.json",
        ] {
            let extra = if method == "tasks/update" {
                r#","inputResponses":{}"#
            } else {
                ""
            };
            let got = w.call(&req(
                7,
                method,
                &format!(r#""taskId":"{id}"{extra}"#),
                DECLARED,
            ));
            assert_eq!(
                got,
                json!({"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":format!("Failed to {verb} task: Task not found")}}),
                "{method} {id}"
            );
        }
    }
    let got = w.call(&req(8, "tasks/get", r#""taskId":5"#, DECLARED));
    assert_eq!(
        got,
        json!({"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Parameter taskId must be a string"}})
    );
    let got = w.call(&req(
        9,
        "tasks/update",
        r#""taskId":"0123456789abcdef0123456789abcdef""#,
        DECLARED,
    ));
    assert_eq!(
        got,
        json!({"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"Missing required parameter inputResponses"}})
    );
}

#[test]
fn without_the_extension_on_the_request_there_are_no_tasks() {
    let mut w = World::new(Arc::new(MemoryStore::new()));
    let missing = |id: u64| json!({"jsonrpc":"2.0","id":id,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}});
    // The gate comes before the lookup.
    for (n, method) in ["tasks/get", "tasks/update", "tasks/cancel"]
        .iter()
        .enumerate()
    {
        let id = n as u64 + 1;
        let got = w.call(&req(
            id,
            method,
            r#""taskId":"gate-test","inputResponses":{}"#,
            PLAIN,
        ));
        assert_eq!(got, missing(id), "{method}");
    }
    // Optional: synchronous. Required: -32021. Not task-capable: synchronous.
    assert_eq!(
        w.call(&req(
            4,
            "tools/call",
            r#""name":"echo","arguments":{"text":"now"}"#,
            PLAIN
        )),
        lit(
            &with_meta(
                r#"{"jsonrpc":"2.0","id":4,"result":{"_meta":SERVER,"content":[{"type":"text","text":"now"}],"resultType":"complete"}}"#
            ),
            ""
        )
    );
    assert_eq!(
        w.call(&req(5, "tools/call", r#""name":"must""#, PLAIN)),
        missing(5)
    );
    assert_eq!(
        w.call(&req(6, "tools/call", r#""name":"sync""#, DECLARED)),
        lit(
            &with_meta(
                r#"{"jsonrpc":"2.0","id":6,"result":{"_meta":SERVER,"content":[{"type":"text","text":"sync"}],"resultType":"complete"}}"#
            ),
            ""
        )
    );
    // Declared on one request, not the next: the next is synchronous.
    let _ = w.call(&req(
        7,
        "tools/call",
        r#""name":"echo","arguments":{"text":"a"}"#,
        DECLARED,
    ));
    assert_eq!(
        w.call(&req(
            8,
            "tools/call",
            r#""name":"echo","arguments":{"text":"b"}"#,
            PLAIN
        ))["result"]["resultType"],
        "complete"
    );
    // And discover advertises it, with no top-level capabilities.tasks.
    let d = w.call(&req(9, "server/discover", "", PLAIN));
    assert_eq!(
        d["result"]["capabilities"]["extensions"],
        json!({"io.modelcontextprotocol/tasks":{}})
    );
    assert!(d["result"]["capabilities"].get("tasks").is_none());
}

#[test]
fn status_notifications_reach_listen_streams_that_asked() {
    let mut w = World::new(Arc::new(MemoryStore::new()));
    let id = task_id(&w.call(&req(1, "tools/call", r#""name":"ask""#, DECLARED)));
    // Without the extension declared: -32021.
    let refused = w.call(&req(
        2,
        "subscriptions/listen",
        &format!(r#""notifications":{{"taskIds":["{id}"]}}"#),
        PLAIN,
    ));
    assert_eq!(refused["error"]["code"], -32021);
    let ack = w.call(&req(
        3,
        "subscriptions/listen",
        &format!(r#""notifications":{{"taskIds":["{id}","not-an-id"]}}"#),
        DECLARED,
    ));
    assert_eq!(
        ack,
        lit(
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":3},"notifications":{"taskIds":["{id}"]}}}"#,
            &id
        )
    );
    w.settle();
    w.conn.handle_changes(w.now);
    let notes = w.drain_conn();
    assert_eq!(notes.len(), 1, "{notes:?}");
    // § Task Status Notifications: the full DetailedTask, what tasks/get
    // would return (without resultType), tagged with the subscription.
    let get = w.call(&req(
        4,
        "tasks/get",
        &format!(r#""taskId":"{id}""#),
        DECLARED,
    ));
    let mut expected = get["result"].clone();
    let obj = expected.as_object_mut().unwrap();
    obj.remove("resultType");
    obj.insert(
        "_meta".into(),
        json!({"io.modelcontextprotocol/subscriptionId":3}),
    );
    assert_eq!(
        notes[0],
        json!({"jsonrpc":"2.0","method":"notifications/tasks","params":expected})
    );
    assert_eq!(notes[0]["params"]["status"], "input_required");
    // Another task's changes are not delivered to this stream.
    let _ = w.call(&req(
        5,
        "tools/call",
        r#""name":"echo","arguments":{"text":"z"}"#,
        DECLARED,
    ));
    w.settle();
    w.conn.handle_changes(w.now);
    assert_eq!(w.drain_conn(), Vec::<Value>::new());
}

#[test]
fn a_mrtr_round_is_resolved_before_the_task_when_the_policy_says_so() {
    use snodo_proto::{
        CallToolResult, ElicitRequest, Implementation, InputRequired, Reply, Service, Tool,
    };
    use snodo_tasks::{TaskSupport, Tasks};
    // Round 1 without answers runs synchronously (InputRequiredResult);
    // the retry carrying the answer becomes a task that sees it.
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .tool(Tool::new("greet_later", "Asks a name, then greets as a task"), |_: snodo_proto::NoArgs, ctx: snodo_proto::Context| async move {
            match ctx.elicitation("name").and_then(|r| r.content_as::<Value>()) {
                Some(c) => Reply::Complete(CallToolResult::text(format!("Hello, {}!", c["name"].as_str().unwrap_or("?")))),
                None => Reply::InputRequired(InputRequired::new().elicit("name", ElicitRequest::form("Name?", json!({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]})))),
            }
        })
        .extension(
            Tasks::new(MemoryStore::new())
                .tool_when("greet_later", TaskSupport::Optional, |call| call.round.is_retry())
                .build(),
        )
        .build()
        .unwrap();
    let mut w = World::new(Arc::new(MemoryStore::new()));
    w.conn = snodo_proto::Connection::new(&service, snodo_proto::Transport::Stdio, w.now);
    w.runner = snodo_tasks::TaskRunner::new(&service, support::runner_config()).unwrap();
    let r1 = w.call(&req(1, "tools/call", r#""name":"greet_later""#, DECLARED));
    assert_eq!(r1["result"]["resultType"], "input_required");
    assert!(r1["result"].get("taskId").is_none());
    let state = r1["result"]["requestState"].as_str().unwrap().to_string();
    let r2 = w.call(&req(
        2,
        "tools/call",
        &format!(r#""name":"greet_later","inputResponses":{{"name":{{"action":"accept","content":{{"name":"Alice"}}}}}},"requestState":"{state}""#),
        DECLARED,
    ));
    assert_eq!(r2["result"]["resultType"], "task");
    assert!(
        r2["result"].get("requestState").is_none() && r2["result"].get("inputRequests").is_none()
    );
    let id = task_id(&r2);
    w.settle();
    let done = w.call(&req(
        3,
        "tasks/get",
        &format!(r#""taskId":"{id}""#),
        DECLARED,
    ));
    assert_eq!(done["result"]["status"], "completed");
    assert_eq!(
        done["result"]["result"]["content"][0]["text"],
        "Hello, Alice!"
    );
}
