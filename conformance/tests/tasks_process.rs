//! The Tasks extension end to end on the real fixture binary, on every
//! runtime: status notifications on a Streamable HTTP listen stream, and
//! crash recovery.
//!
//! Crash recovery: the real fixture
//! binary serves Streamable HTTP with its tasks on disk
//! (`SNODO_TASKS_DIR`), is killed with SIGKILL while a task runs, and is
//! started again on the same directory. From the client's view the task
//! finishes exactly once (it stays `working`, then is `completed` with its
//! result, and stays so), and nothing else is lost: a finished task keeps
//! its result byte for byte, a cancelled one stays cancelled, and input
//! accepted before the kill is still accepted after it. On every runtime,
//! each within a time bound.
//!
//! Inside, execution was at least once: the task file records a second
//! claim, which the recovering process made after the dead one's lease
//! lapsed (the fixture's lease is 3 s).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const FIXTURE: &str = env!("CARGO_BIN_EXE_snodo-fixture");
/// Everything after the restart must be done within this.
const RECOVERY_BOUND: Duration = Duration::from_secs(25);

struct Server {
    child: Child,
    addr: String,
}

impl Server {
    fn start(runtime: &str, dir: &Path) -> Server {
        let mut child = Command::new(FIXTURE)
            .args(["--listen", "127.0.0.1:0", "--runtime", runtime])
            .env("SNODO_TASKS_DIR", dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the fixture starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the fixture announces its address");
        assert!(!line.trim().is_empty(), "no address announced");
        Server {
            child,
            addr: line.trim().to_string(),
        }
    }

    /// SIGKILL: no shutdown path runs, nothing is released or flushed.
    fn kill(mut self) {
        self.child.kill().expect("SIGKILL delivered");
        let _ = self.child.wait();
    }

    /// One request with the standard headers; the JSON-RPC response.
    fn call(&self, method: &str, name: Option<&str>, params: Value) -> Value {
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}
        });
        let body = json!({"jsonrpc":"2.0","id":1,"method":method,"params":params}).to_string();
        let name = name
            .map(|n| format!("Mcp-Name: {n}\r\n"))
            .unwrap_or_default();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n{name}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        let mut stream = TcpStream::connect(&self.addr).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("a response");
        let body = response
            .split_once("\r\n\r\n")
            .map(|(_, b)| b)
            .unwrap_or_else(|| panic!("no HTTP body in {response:?}"));
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
    }

    fn create(&self, tool: &str, arguments: Value) -> String {
        let r = self.call(
            "tools/call",
            Some(tool),
            json!({"name": tool, "arguments": arguments}),
        );
        assert_eq!(r["result"]["resultType"], "task", "{r}");
        r["result"]["taskId"].as_str().unwrap().to_string()
    }

    fn get(&self, id: &str) -> Value {
        let r = self.call("tasks/get", Some(id), json!({"taskId": id}));
        assert!(r.get("result").is_some(), "tasks/get {id}: {r}");
        r["result"].clone()
    }

    fn until(
        &self,
        id: &str,
        bound: Duration,
        done: impl Fn(&Value) -> bool,
    ) -> (Value, Vec<String>) {
        let start = Instant::now();
        let mut seen = Vec::new();
        loop {
            let t = self.get(id);
            let status = t["status"].as_str().unwrap_or("?").to_string();
            if seen.last() != Some(&status) {
                seen.push(status);
            }
            if done(&t) {
                return (t, seen);
            }
            assert!(
                start.elapsed() < bound,
                "task {id} did not get there within {bound:?}: {t}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The stored record of task `id` (the file's second line).
fn record(dir: &Path, id: &str) -> Value {
    let text = std::fs::read_to_string(dir.join("tasks").join(format!("{id}.json")))
        .expect("the task file exists");
    serde_json::from_str(text.lines().nth(1).expect("a record line")).expect("JSON")
}

fn temp_dir(runtime: &str) -> PathBuf {
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    std::env::temp_dir().join(format!("snodo-crash-{runtime}-{}-{n}", std::process::id()))
}

fn crash_and_recover(runtime: &str) {
    let dir = temp_dir(runtime);
    let first = Server::start(runtime, &dir);

    // Before the crash: one task finished, one cancelled, one with part of
    // its input accepted, and the victim, running.
    let done = first.create("slow_compute", json!({"seconds": 0, "label": "before"}));
    let (finished, _) = first.until(&done, Duration::from_secs(10), |t| {
        t["status"] == "completed"
    });
    let cancelled = first.create("slow_compute", json!({"seconds": 60, "label": "cancelled"}));
    first.call(
        "tasks/cancel",
        Some(&cancelled),
        json!({"taskId": cancelled}),
    );
    let asked = first.create("multi_input", json!({}));
    first.until(&asked, Duration::from_secs(10), |t| {
        t["status"] == "input_required"
    });
    let ack = first.call(
        "tasks/update",
        Some(&asked),
        json!({"taskId": asked, "inputResponses": {"first": {"action": "accept", "content": {"name": "before-crash"}}}}),
    );
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let victim = first.create("slow_compute", json!({"seconds": 3, "label": "victim"}));
    // Wait until a worker holds it (claimed, lease on disk), then kill.
    let start = Instant::now();
    while record(&dir, &victim)["attempts"] != 1 {
        assert!(start.elapsed() < Duration::from_secs(10), "never claimed");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(first.get(&victim)["status"], "working");
    first.kill();
    let held = record(&dir, &victim);
    assert!(
        held["lease"].is_object(),
        "the dead process still holds the lease: {held}"
    );

    // A new process on the same store.
    let restarted = Instant::now();
    let second = Server::start(runtime, &dir);
    assert_eq!(
        second.get(&done),
        finished,
        "{runtime}: a finished task is kept exactly"
    );
    assert_eq!(second.get(&cancelled)["status"], "cancelled", "{runtime}");
    let waiting = second.get(&asked);
    assert_eq!(waiting["status"], "input_required", "{runtime}");
    assert_eq!(
        waiting["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        vec!["second"],
        "{runtime}: the answer accepted before the crash is kept"
    );

    // The victim: working until recovered, then completed once.
    let (result, seen) = second.until(&victim, RECOVERY_BOUND, |t| t["status"] == "completed");
    assert_eq!(
        seen.last().map(String::as_str),
        Some("completed"),
        "{runtime}: {seen:?}"
    );
    assert!(
        seen.iter().all(|s| s == "working" || s == "completed"),
        "{runtime}: statuses seen {seen:?}"
    );
    assert_eq!(
        result["result"]["content"],
        json!([{"type": "text", "text": "victim: computed after 3s"}])
    );
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(
            second.get(&victim),
            result,
            "{runtime}: the terminal state never changes"
        );
    }
    let stored = record(&dir, &victim);
    assert_eq!(
        stored["attempts"], 2,
        "{runtime}: run once, killed, recovered once: {stored}"
    );

    // The remaining input completes the waiting task with both answers.
    second.call(
        "tasks/update",
        Some(&asked),
        json!({"taskId": asked, "inputResponses": {"second": {"action": "accept", "content": {"name": "after-restart"}}}}),
    );
    let (answered, _) = second.until(&asked, Duration::from_secs(10), |t| {
        t["status"] == "completed"
    });
    assert_eq!(
        answered["result"]["content"][0]["text"],
        "Received before-crash and after-restart"
    );
    assert!(
        restarted.elapsed() < RECOVERY_BOUND,
        "{runtime}: took {:?}",
        restarted.elapsed()
    );
    eprintln!(
        "[{runtime}] recovered and finished {:?} after the restart",
        restarted.elapsed()
    );
    second.kill();
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tasks.md` § Task Status Notifications over Streamable HTTP: a listen
/// stream naming a task gets its acknowledgement, then `notifications/tasks`
/// with the full task as it changes, tagged with the subscription id.
fn notifications_on_a_listen_stream(runtime: &str) {
    let dir = temp_dir(&format!("{runtime}-listen"));
    let server = Server::start(runtime, &dir);
    let id = server.create("slow_compute", json!({"seconds": 1, "label": "notified"}));
    let body = json!({"jsonrpc":"2.0","id":77,"method":"subscriptions/listen","params":{
        "notifications": {"taskIds": [id]},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
        }
    }})
    .to_string();
    let mut stream = TcpStream::connect(&server.addr).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        server.addr,
        body.len()
    )
    .unwrap();
    let mut events = Vec::new();
    for line in BufReader::new(stream).lines() {
        let line = line.expect("the stream stays readable");
        let Some(data) = line.strip_prefix("data: ") else {
            continue;
        };
        let event: Value = serde_json::from_str(data).expect("one JSON message per data line");
        let done = event["params"]["status"] == "completed";
        events.push(event);
        if done {
            break;
        }
    }
    assert_eq!(
        events[0],
        json!({"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{
            "_meta": {"io.modelcontextprotocol/subscriptionId": 77},
            "notifications": {"taskIds": [id]}
        }}),
        "{runtime}"
    );
    let last = events.last().unwrap();
    assert_eq!(last["method"], "notifications/tasks", "{runtime}");
    assert_eq!(
        last["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        77
    );
    assert_eq!(last["params"]["taskId"], id.as_str());
    assert_eq!(
        last["params"]["result"]["content"],
        json!([{"type": "text", "text": "notified: computed after 1s"}])
    );
    let mut polled = server.get(&id);
    polled.as_object_mut().unwrap().remove("resultType");
    let mut pushed = last["params"].clone();
    pushed.as_object_mut().unwrap().remove("_meta");
    polled.as_object_mut().unwrap().remove("_meta");
    assert_eq!(
        pushed, polled,
        "{runtime}: the notification is what tasks/get returns"
    );
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn status_notifications_reach_http_listen_streams_on_every_runtime() {
    for runtime in ["tokio", "smol", "blocking"] {
        notifications_on_a_listen_stream(runtime);
    }
}

#[test]
fn a_task_survives_sigkill_and_finishes_exactly_once_on_every_runtime() {
    let runs: Vec<_> = ["tokio", "smol", "blocking"]
        .into_iter()
        .map(|rt| (rt, std::thread::spawn(move || crash_and_recover(rt))))
        .collect();
    let mut failed = Vec::new();
    for (rt, run) in runs {
        if run.join().is_err() {
            failed.push(rt);
        }
    }
    assert!(failed.is_empty(), "crash recovery failed on {failed:?}");
}
