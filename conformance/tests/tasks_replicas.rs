//! Replicas on one shared task store, end to end on the real fixture
//! binary, on every runtime: two `snodo-fixture --listen` processes with
//! `--tasks-store` naming the same SQLite file (and, when
//! `SNODO_TEST_POSTGRES` names a database, the same PostgreSQL schema) and
//! `--state-key-file` naming the same key.
//!
//! - A task created through replica A is found, answered and finished
//!   through replica B, and the other way round (`tasks.md` § Task
//!   Polling: any replica resolves any task).
//! - A task's status changed through replica A reaches a listen stream held
//!   on replica B, carried by the change bus (`--bus`, PostgreSQL only).
//! - The replica running a task is killed (SIGKILL) mid-work: the other
//!   replica, left running, recovers it once the dead one's lease lapses
//!   and completes it exactly once (two claims recorded, one result that
//!   never changes).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use snodo_conformance::store_spec::StoreSpec;
use snodo_tasks::TaskId;

const FIXTURE: &str = env!("CARGO_BIN_EXE_snodo-fixture");
/// The fixture's lease is 3 s; recovery takes about that.
const RECOVERY_BOUND: Duration = Duration::from_secs(25);

struct Replica {
    child: Child,
    addr: String,
}

impl Replica {
    fn start(runtime: &str, store: &str, key_file: &str) -> Replica {
        Self::start_with(runtime, store, key_file, &[])
    }

    fn start_with(runtime: &str, store: &str, key_file: &str, more: &[&str]) -> Replica {
        let mut child = Command::new(FIXTURE)
            .args(["--listen", "127.0.0.1:0", "--runtime", runtime])
            .args(["--tasks-store", store, "--state-key-file", key_file])
            .args(more)
            .env_remove("SNODO_TASKS_DIR")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the fixture starts");
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
        assert!(!line.trim().is_empty(), "no address announced ({store})");
        Replica {
            child,
            addr: line.trim().to_string(),
        }
    }

    fn call(&self, method: &str, name: &str, params: Value) -> Value {
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}
        });
        let body = json!({"jsonrpc":"2.0","id":1,"method":method,"params":params}).to_string();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nMcp-Name: {name}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        let mut stream = TcpStream::connect(&self.addr).expect("connects");
        stream
            .set_read_timeout(Some(Duration::from_secs(15)))
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
            tool,
            json!({"name": tool, "arguments": arguments}),
        );
        assert_eq!(r["result"]["resultType"], "task", "{r}");
        r["result"]["taskId"].as_str().unwrap().to_string()
    }

    fn get(&self, id: &str) -> Value {
        let r = self.call("tasks/get", id, json!({"taskId": id}));
        assert!(r.get("result").is_some(), "tasks/get {id}: {r}");
        r["result"].clone()
    }

    fn until(&self, id: &str, bound: Duration, done: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        loop {
            let t = self.get(id);
            if done(&t) {
                return t;
            }
            assert!(
                start.elapsed() < bound,
                "task {id} not there within {bound:?}: {t}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn kill(mut self) {
        self.child.kill().expect("SIGKILL delivered");
        let _ = self.child.wait();
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn status(s: &'static str) -> impl Fn(&Value) -> bool {
    move |t| t["status"] == s
}

fn unique(tag: &str) -> String {
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{tag}_{}_{n}", std::process::id())
}

/// Two replicas of `runtime` on the store `spec`.
fn replicas(runtime: &str, spec: &str) {
    let key = std::env::temp_dir().join(unique(&format!("snodo-replica-key-{runtime}")));
    std::fs::write(&key, "5e".repeat(32)).unwrap();
    let key = key.to_string_lossy().into_owned();
    let store = StoreSpec::parse(spec)
        .expect("a store spec")
        .open()
        .expect("the test opens the store too");
    let attempts = |id: &str| {
        store
            .get(&TaskId::parse(id).unwrap())
            .unwrap()
            .expect("stored")
            .attempts
    };

    // A alone claims the victim, so A is the replica to kill.
    let a = Replica::start(runtime, spec, &key);
    let victim = a.create("slow_compute", json!({"seconds": 3, "label": "victim"}));
    let start = Instant::now();
    while attempts(&victim) != 1 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{runtime}: never claimed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let b = Replica::start(runtime, spec, &key);

    // Created on A, finished and read on B; created on B, read on A.
    let quick = a.create("slow_compute", json!({"seconds": 0, "label": "quick"}));
    let done = b.until(&quick, Duration::from_secs(10), status("completed"));
    assert_eq!(
        done["result"]["content"][0]["text"],
        "quick: computed after 0s"
    );
    assert_eq!(a.get(&quick), done, "{runtime}: both replicas answer alike");
    // Input asked through one, answered half through each.
    let asked = b.create("multi_input", json!({}));
    a.until(&asked, Duration::from_secs(10), status("input_required"));
    let ack = a.call(
        "tasks/update",
        &asked,
        json!({"taskId": asked, "inputResponses": {"first": {"action": "accept", "content": {"name": "via-a"}}}}),
    );
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let ack = b.call(
        "tasks/update",
        &asked,
        json!({"taskId": asked, "inputResponses": {"second": {"action": "accept", "content": {"name": "via-b"}}}}),
    );
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let answered = a.until(&asked, Duration::from_secs(10), status("completed"));
    assert_eq!(
        answered["result"]["content"][0]["text"],
        "Received via-a and via-b"
    );

    // The victim's replica dies mid-work; B recovers it, once.
    assert_eq!(b.get(&victim)["status"], "working");
    a.kill();
    let killed = Instant::now();
    let finished = b.until(&victim, RECOVERY_BOUND, status("completed"));
    assert_eq!(
        finished["result"]["content"],
        json!([{"type": "text", "text": "victim: computed after 3s"}])
    );
    for _ in 0..3 {
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(
            b.get(&victim),
            finished,
            "{runtime}: the result never changes"
        );
    }
    assert_eq!(
        attempts(&victim),
        2,
        "{runtime}: run, killed, recovered once"
    );
    eprintln!(
        "[{runtime}] {spec}: B finished A's task {:?} after the kill",
        killed.elapsed()
    );
    let _ = std::fs::remove_file(&key);
}

/// Run `on` on every runtime at once; fail naming the runtimes it failed on.
fn on_every_runtime(on: impl Fn(&'static str) + Send + Sync + Copy + 'static) {
    let runs: Vec<_> = ["tokio", "smol", "blocking"]
        .into_iter()
        .map(|rt| (rt, std::thread::spawn(move || on(rt))))
        .collect();
    let failed: Vec<_> = runs
        .into_iter()
        .filter_map(|(rt, run)| run.join().is_err().then_some(rt))
        .collect();
    assert!(failed.is_empty(), "failed on {failed:?}");
}

#[test]
fn replicas_on_one_sqlite_file_share_tasks_and_recover_a_killed_replicas_task() {
    on_every_runtime(|rt| {
        let dir = std::env::temp_dir().join(unique(&format!("snodo-replicas-{rt}")));
        std::fs::create_dir_all(&dir).unwrap();
        replicas(rt, &format!("sqlite:{}", dir.join("tasks.db").display()));
        let _ = std::fs::remove_dir_all(&dir);
    });
}

#[test]
fn replicas_on_one_postgres_schema_share_tasks_and_recover_a_killed_replicas_task() {
    if std::env::var_os("SNODO_TEST_POSTGRES").is_none() {
        println!("skipped: SNODO_TEST_POSTGRES not set");
        return;
    }
    on_every_runtime(|rt| {
        let url = std::env::var("SNODO_TEST_POSTGRES").unwrap_or_default();
        let schema = unique(&format!("snodo_replicas_{rt}"));
        let sep = if url.contains('?') { '&' } else { '?' };
        replicas(rt, &format!("{url}{sep}schema={schema}"));
        drop_schema(&url, &schema);
    });
}

/// A task cancelled through replica A: the listen stream on replica B
/// that asked for the task hears it, carried by the bus (`--bus`), within
/// a bound. B's own engine never sees the cancel, so nothing else could
/// tell the stream (without `--bus` on B this test fails: checked).
fn status_across_the_bus(runtime: &str, url: &str) {
    let key = std::env::temp_dir().join(unique(&format!("snodo-bus-key-{runtime}")));
    std::fs::write(&key, "6f".repeat(32)).unwrap();
    let key = key.to_string_lossy().into_owned();
    let schema = unique(&format!("snodo_bus_{runtime}"));
    let sep = if url.contains('?') { '&' } else { '?' };
    let store = format!("{url}{sep}schema={schema}");
    let bus = format!("{url}{sep}channel={schema}");
    let a = Replica::start_with(runtime, &store, &key, &["--bus", &bus]);
    let b = Replica::start_with(runtime, &store, &key, &["--bus", &bus]);
    let id = a.create("slow_compute", json!({"seconds": 30, "label": "cancelled"}));
    let body = json!({"jsonrpc":"2.0","id":77,"method":"subscriptions/listen","params":{
        "notifications": {"taskIds": [id]},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
        }
    }})
    .to_string();
    let mut stream = TcpStream::connect(&b.addr).expect("connects to B");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{body}",
        b.addr,
        body.len()
    )
    .unwrap();
    let mut lines = BufReader::new(stream).lines();
    let mut next = || -> Value {
        loop {
            let line = lines
                .next()
                .expect("B's stream stays open")
                .expect("readable");
            if let Some(data) = line.strip_prefix("data: ") {
                return serde_json::from_str(data).expect("one JSON message per data line");
            }
        }
    };
    assert_eq!(
        next()["method"],
        "notifications/subscriptions/acknowledged",
        "{runtime}"
    );
    let cancelled_at = Instant::now();
    let ack = a.call("tasks/cancel", &id, json!({"taskId": id}));
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let heard = loop {
        let event = next();
        if event["params"]["status"] == "cancelled" {
            break event;
        }
    };
    let took = cancelled_at.elapsed();
    assert_eq!(heard["method"], "notifications/tasks");
    assert_eq!(heard["params"]["taskId"], id.as_str());
    assert_eq!(
        heard["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        77
    );
    assert!(took < Duration::from_secs(2), "{runtime}: took {took:?}");
    eprintln!("[{runtime}] A's cancel reached B's listen stream in {took:?}");
    drop((a, b));
    drop_schema(url, &schema);
    let _ = std::fs::remove_file(&key);
}

#[test]
fn a_status_change_through_one_replica_reaches_a_listen_stream_on_another() {
    if std::env::var_os("SNODO_TEST_POSTGRES").is_none() {
        println!("skipped: SNODO_TEST_POSTGRES not set");
        return;
    }
    on_every_runtime(|rt| {
        let url = std::env::var("SNODO_TEST_POSTGRES").unwrap_or_default();
        status_across_the_bus(rt, &url);
    });
}

/// Drop a test's schema, on a connection of its own.
fn drop_schema(url: &str, schema: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .expect("connects to drop the test schema");
        let conn = tokio::spawn(conn);
        client
            .batch_execute(&format!("DROP SCHEMA IF EXISTS \"{schema}\" CASCADE"))
            .await
            .expect("the test schema is dropped");
        drop(client);
        let _ = conn.await;
    });
}
