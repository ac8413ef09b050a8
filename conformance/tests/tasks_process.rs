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
//!
//! A kill at a random moment almost always lands while a handler runs.
//! The crash drills (`SNODO_TASKS_HALT_AT`, `conformance/src/drill.rs`)
//! land it exactly at the moments it almost never hits
//! (`snodo_tasks::fault`): before a claim is recorded, between a run's end
//! and its commit, and in the middle of the commit's write (a torn task
//! file). Each is checked for no loss (the next process finishes the
//! task) and no double completion (one terminal result, never replaced,
//! claims counted exactly). And a stale commit is fenced over a real
//! process boundary: a process stopped (SIGSTOP) after its run ended, while
//! a second process on the same store reclaims and completes the task,
//! has its commit refused when it resumes (SIGCONT).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
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
        Self::spawn(runtime, dir, &[], Stdio::null()).0
    }

    /// A server with `env` set, whose stderr lines the test reads.
    fn start_with(runtime: &str, dir: &Path, env: &[(&str, &str)]) -> (Server, Stderr) {
        let (server, stderr) = Self::spawn(runtime, dir, env, Stdio::piped());
        (server, stderr.expect("piped stderr"))
    }

    fn spawn(
        runtime: &str,
        dir: &Path,
        env: &[(&str, &str)],
        stderr: Stdio,
    ) -> (Server, Option<Stderr>) {
        let mut child = Command::new(FIXTURE)
            .args(["--listen", "127.0.0.1:0", "--runtime", runtime])
            .env("SNODO_TASKS_DIR", dir)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("the fixture starts");
        let lines = child.stderr.take().map(Stderr::read);
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, announced) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = announced
            .recv_timeout(Duration::from_secs(15))
            .expect("the fixture announces its address within 15 s");
        assert!(!line.trim().is_empty(), "no address announced");
        let server = Server {
            child,
            addr: line.trim().to_string(),
        };
        (server, lines)
    }

    fn pid(&self) -> i32 {
        i32::try_from(self.child.id()).expect("a pid")
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

/// A child's stderr, line by line, as it comes.
struct Stderr {
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Stderr {
    fn read(pipe: std::process::ChildStderr) -> Stderr {
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Stderr {
            lines,
            seen: Vec::new(),
        }
    }

    /// Whether a line containing every one of `needles` came, waiting at
    /// most `wait`.
    fn saw(&mut self, needles: &[&str], wait: Duration) -> bool {
        let matches = |l: &String| needles.iter().all(|n| l.contains(n));
        let deadline = Instant::now() + wait;
        loop {
            if self.seen.iter().any(matches) {
                return true;
            }
            match self
                .lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(line) => self.seen.push(line),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return false,
            }
        }
    }

    fn expect(&mut self, needles: &[&str], bound: Duration) {
        assert!(
            self.saw(needles, bound),
            "no stderr line with {needles:?} within {bound:?}; stderr: {:#?}",
            self.seen
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn task_file(dir: &Path, id: &str) -> PathBuf {
    dir.join("tasks").join(format!("{id}.json"))
}

/// Where a write of task `id` goes before it is renamed into place.
fn task_tmp(dir: &Path, id: &str) -> PathBuf {
    dir.join("tasks").join(format!("{id}.json.tmp"))
}

/// The stored record of task `id` (the file's second line).
fn record(dir: &Path, id: &str) -> Value {
    let text = std::fs::read_to_string(task_file(dir, id)).expect("the task file exists");
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

/// Run `drill` on every runtime at once; fail naming the runtimes it failed on.
fn on_every_runtime(what: &str, drill: fn(&str)) {
    let runs: Vec<_> = ["tokio", "smol", "blocking"]
        .into_iter()
        .map(|rt| (rt, std::thread::spawn(move || drill(rt))))
        .collect();
    let failed: Vec<_> = runs
        .into_iter()
        .filter_map(|(rt, run)| run.join().is_err().then_some(rt))
        .collect();
    assert!(failed.is_empty(), "{what} failed on {failed:?}");
}

/// How long `slow_compute` runs in a drill: past the fixture's first lease
/// renewal (every 1 s), so a crash after the work leaves a renewed lease
/// for the next process to wait out.
const DRILL_SECONDS: f64 = 1.5;

/// What a crash left on disk.
struct Crash {
    dir: PathBuf,
    id: String,
    /// The task's record.
    record: Value,
    /// The interrupted write of its next version, if one was left.
    torn: Option<Vec<u8>>,
}

/// The first process halts at `point` with the task, and is killed there;
/// a second process on the same store finishes it exactly once.
fn crash_at(runtime: &str, point: &str) -> Crash {
    let dir = temp_dir(&format!("{runtime}-{point}"));
    let (first, mut stderr) = Server::start_with(runtime, &dir, &[("SNODO_TASKS_HALT_AT", point)]);
    let id = first.create(
        "slow_compute",
        json!({"seconds": DRILL_SECONDS, "label": "drill"}),
    );
    stderr.expect(
        &[&format!("snodo-tasks drill: halted at {point} (task {id})")],
        Duration::from_secs(10),
    );
    first.kill();
    let text = std::fs::read_to_string(task_file(&dir, &id)).expect("the task file survives");
    let at_crash: Value = text
        .lines()
        .nth(1)
        .and_then(|body| serde_json::from_str(body).ok())
        .unwrap_or_else(|| {
            panic!("{runtime} {point}: the crash tore the task file itself: {text:?}")
        });
    assert_eq!(
        at_crash["status"], "working",
        "{runtime} {point}: {at_crash}"
    );
    let torn = std::fs::read(task_tmp(&dir, &id)).ok();

    let restarted = Instant::now();
    let second = Server::start(runtime, &dir);
    let (result, seen) = second.until(&id, RECOVERY_BOUND, |t| t["status"] == "completed");
    assert!(
        seen.iter().all(|s| s == "working" || s == "completed"),
        "{runtime} {point}: statuses seen {seen:?}"
    );
    assert_eq!(
        result["result"]["content"],
        json!([{"type": "text", "text": "drill: computed after 1.5s"}]),
        "{runtime} {point}"
    );
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(
            second.get(&id),
            result,
            "{runtime} {point}: the terminal state never changes"
        );
    }
    assert!(
        !task_tmp(&dir, &id).exists(),
        "{runtime} {point}: no interrupted write is left behind"
    );
    eprintln!(
        "[{runtime}] crash at {point}: recovered and finished {:?} after the restart",
        restarted.elapsed()
    );
    Crash {
        dir,
        id,
        record: at_crash,
        torn,
    }
}

/// Claims the stored task ended with.
fn attempts(dir: &Path, id: &str) -> Value {
    record(dir, id)["attempts"].clone()
}

fn crash_before_the_claim(runtime: &str) {
    let crash = crash_at(runtime, "before-claim");
    let at_crash = &crash.record;
    assert_eq!(at_crash["attempts"], 0, "{runtime}: {at_crash}");
    assert!(
        at_crash.get("lease").is_none(),
        "{runtime}: the claim never reached the disk: {at_crash}"
    );
    assert!(crash.torn.is_none(), "{runtime}: nothing was being written");
    assert_eq!(
        attempts(&crash.dir, &crash.id),
        1,
        "{runtime}: claimed once, by the process that finished it"
    );
    let _ = std::fs::remove_dir_all(&crash.dir);
}

fn crash_after_the_work(runtime: &str) {
    let crash = crash_at(runtime, "after-work");
    let at_crash = &crash.record;
    assert_eq!(at_crash["attempts"], 1, "{runtime}: {at_crash}");
    assert!(
        at_crash["lease"].is_object(),
        "{runtime}: the dead run still holds its lease: {at_crash}"
    );
    assert!(crash.torn.is_none(), "{runtime}: nothing was being written");
    assert_eq!(
        attempts(&crash.dir, &crash.id),
        2,
        "{runtime}: the lost outcome is recomputed under a second claim"
    );
    let _ = std::fs::remove_dir_all(&crash.dir);
}

fn crash_mid_commit(runtime: &str) {
    let crash = crash_at(runtime, "mid-commit");
    let at_crash = &crash.record;
    assert_eq!(at_crash["attempts"], 1, "{runtime}: {at_crash}");
    assert!(
        at_crash["lease"].is_object(),
        "{runtime}: the commit never landed, the lease is still there: {at_crash}"
    );
    let torn = crash
        .torn
        .as_deref()
        .expect("the commit's write was interrupted");
    let text = String::from_utf8_lossy(torn);
    assert!(
        text.starts_with(r#"{"format":"snodo-tasks/task","version":1,"sha256":""#)
            && !text.ends_with("}\n"),
        "{runtime}: a torn task file: {text}"
    );
    assert_eq!(
        attempts(&crash.dir, &crash.id),
        2,
        "{runtime}: the torn commit counts for nothing; a second claim completes the task"
    );
    let _ = std::fs::remove_dir_all(&crash.dir);
}

#[test]
fn a_crash_before_the_claim_is_recorded_loses_nothing_on_every_runtime() {
    on_every_runtime("a crash before the claim", crash_before_the_claim);
}

#[test]
fn a_crash_between_the_work_and_its_commit_runs_it_again_once_on_every_runtime() {
    on_every_runtime("a crash after the work", crash_after_the_work);
}

#[test]
fn a_crash_in_the_middle_of_the_commit_write_commits_nothing_on_every_runtime() {
    on_every_runtime("a crash mid-commit", crash_mid_commit);
}

#[cfg(target_os = "linux")]
/// Whether process `pid` is stopped (Linux: `/proc/<pid>/stat` state `T`).
fn stopped(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The state follows the parenthesized command name.
    stat.rsplit_once(')')
        .is_some_and(|(_, rest)| rest.trim_start().starts_with('T'))
}

#[cfg(target_os = "linux")]
fn resume(pid: i32) {
    // SAFETY: kill has no memory-safety preconditions.
    let sent = unsafe { libc::kill(pid, libc::SIGCONT) };
    assert_eq!(sent, 0, "SIGCONT: {}", std::io::Error::last_os_error());
}

/// A stopped process's late commit, after another process sharing the
/// store reclaimed and completed the task, is refused (fenced by the
/// claim's generation), and the completion stands byte for byte.
#[cfg(target_os = "linux")]
fn stale_commit_across_processes(runtime: &str) {
    let dir = temp_dir(&format!("{runtime}-stale"));
    let (first, mut first_err) = Server::start_with(
        runtime,
        &dir,
        &[
            ("SNODO_TASKS_STOP_AT", "after-work"),
            ("RUST_LOG", "snodo_tasks=info"),
        ],
    );
    let id = first.create("slow_compute", json!({"seconds": 0.2, "label": "stale"}));
    first_err.expect(
        &[&format!(
            "snodo-tasks drill: stopped at after-work (task {id})"
        )],
        Duration::from_secs(10),
    );
    let start_all = Instant::now();
    let start = Instant::now();
    while !stopped(first.pid()) {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{runtime}: never stopped"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let held = record(&dir, &id);
    assert_eq!(held["status"], "working", "{runtime}: {held}");
    assert_eq!(held["lease"]["generation"], 1, "{runtime}: {held}");

    // A second process on the same store waits out the stopped one's lease,
    // claims the task under a newer generation and completes it.
    let second = Server::start(runtime, &dir);
    let (done, seen) = second.until(&id, RECOVERY_BOUND, |t| t["status"] == "completed");
    assert!(
        seen.iter().all(|s| s == "working" || s == "completed"),
        "{runtime}: statuses seen {seen:?}"
    );
    let completed = std::fs::read(task_file(&dir, &id)).unwrap();
    let by_second = record(&dir, &id);
    assert_eq!(by_second["attempts"], 2, "{runtime}: {by_second}");
    assert_eq!(by_second["generation"], 2, "{runtime}: {by_second}");

    // The first process resumes right where it stopped: committing its
    // outcome under generation 1. It is refused, and nothing changes.
    resume(first.pid());
    let start = Instant::now();
    loop {
        let now = std::fs::read(task_file(&dir, &id)).unwrap();
        assert!(
            now == completed,
            "{runtime}: the stale commit of the resumed process replaced the newer claim's completion: {}",
            record(&dir, &id)
        );
        if first_err.saw(
            &["a run's outcome was fenced out", &id],
            Duration::from_millis(50),
        ) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{runtime}: the resumed process never reported its commit fenced; stderr: {:#?}",
            first_err.seen
        );
    }
    assert_eq!(
        std::fs::read(task_file(&dir, &id)).unwrap(),
        completed,
        "{runtime}"
    );
    assert_eq!(
        first.get(&id),
        done,
        "{runtime}: both processes see the one result"
    );
    assert_eq!(second.get(&id), done, "{runtime}");
    eprintln!(
        "[{runtime}] stale commit fenced across processes, {:?} after the first stopped",
        start_all.elapsed()
    );
    drop(first);
    drop(second);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(target_os = "linux")]
#[test]
fn a_stale_commit_is_fenced_across_processes_on_every_runtime() {
    on_every_runtime(
        "fencing a stale commit across processes",
        stale_commit_across_processes,
    );
}
