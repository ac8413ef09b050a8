//! Blocking store work stays off connection loops (issue 16, item 9).
//!
//! A task's creation is acknowledged only once its record is durable
//! (`tasks.md` § Task Creation), so a `DiskStore` write sits between the
//! `tools/call` and its `CreateTaskResult`: file writes and fsyncs, and a
//! wait for the store's lock if another process holds it. Here that write
//! is made slow on purpose (the store's fault hook sleeps 500 ms in the
//! middle of it, as a stalled disk or a lock held elsewhere would), and a
//! second, unrelated request on the same connection must still be answered
//! promptly, on a runtime with a single thread: the write runs on the
//! Tasks extension's own threads, never on the loop that serves the
//! connection nor on the executor that polls handlers.
//!
//! Every message is a literal line of the stdio framing
//! (`basic/transports/stdio.mdx`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use snodo_proto::{CallToolResult, Implementation, NoArgs, Service, Tool};
use snodo_tasks::{DiskStore, FaultHook, FaultPoint, TaskSupport, Tasks};

/// How long the store's write stalls.
const STALL: Duration = Duration::from_millis(500);
/// How soon the unrelated request must be answered.
const PROMPT: Duration = Duration::from_millis(200);

/// A `tools/call` of `slow` that declares the Tasks extension: it becomes
/// a task, stored (slowly) before it is answered.
const CREATE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}"#;
/// A plain `tools/call`, nothing to do with tasks.
const PLAIN: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"plain","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "snodo-tasks-blocking-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A service whose tool `slow` becomes a task kept in a `DiskStore` whose
/// every write stalls for [`STALL`] halfway (under the store's lock), and
/// whose tool `plain` answers at once. Returns how many writes stalled.
fn service(dir: &TempDir) -> (Service, Arc<AtomicUsize>) {
    let stalls = Arc::new(AtomicUsize::new(0));
    let counted = stalls.clone();
    let hook: FaultHook = Arc::new(move |point: &FaultPoint<'_>| {
        if let FaultPoint::PartialWrite { .. } = point {
            counted.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(STALL);
        }
    });
    let store = DiskStore::open(&dir.0)
        .expect("the store opens")
        .with_fault_hook(hook);
    let service = Service::builder()
        .server_info(Implementation::new("blocking-test", "1"))
        .tool(Tool::new("slow", "Becomes a task"), |_: NoArgs| async {
            CallToolResult::text("done")
        })
        .tool(Tool::new("plain", "Answers at once"), |_: NoArgs| async {
            CallToolResult::text("plain")
        })
        .extension(
            Tasks::new(store)
                .tool("slow", TaskSupport::Optional)
                .build(),
        )
        .build()
        .expect("the service builds");
    (service, stalls)
}

/// What the client saw: each response with when it arrived, counted from
/// the moment both requests were written.
struct Seen {
    responses: Vec<(Duration, Value)>,
}

impl Seen {
    fn answer(&self, id: u64) -> (Duration, &Value) {
        self.responses
            .iter()
            .find(|(_, v)| v["id"] == json!(id))
            .map(|(at, v)| (*at, v))
            .unwrap_or_else(|| panic!("no answer to request {id}: {:?}", self.responses))
    }
}

fn parse(line: &str) -> Value {
    serde_json::from_str(line).expect("each line is JSON")
}

/// Both answers are right, and the plain one came promptly, before the
/// task's.
fn check(seen: &Seen, stalls: &AtomicUsize) {
    let (plain_at, plain) = seen.answer(2);
    assert_eq!(
        plain,
        &json!({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"plain"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"blocking-test","version":"1"}}}}),
    );
    let (task_at, task) = seen.answer(1);
    assert_eq!(task["result"]["resultType"], json!("task"), "{task}");
    assert_eq!(task["result"]["status"], json!("working"), "{task}");
    assert!(
        task["result"]["taskId"]
            .as_str()
            .is_some_and(|s| !s.is_empty()),
        "{task}"
    );
    assert_eq!(
        stalls.load(Ordering::SeqCst),
        1,
        "the task's creation is one stalled write"
    );
    assert!(
        task_at >= STALL - Duration::from_millis(50),
        "the task was acknowledged before its write finished ({task_at:?})"
    );
    assert!(
        plain_at < PROMPT,
        "the plain call waited {plain_at:?} behind the store's write (task answered after {task_at:?}): \
         blocking store work ran on the connection's loop"
    );
}

#[test]
fn a_stalled_disk_write_does_not_hold_up_a_current_thread_tokio_connection() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    let dir = TempDir::new("tokio");
    let (service, stalls) = service(&dir);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let seen = rt.block_on(async move {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        let serving = tokio::spawn(async move {
            snodo_tokio::serve_stream(&service, server_read, server_write, Default::default()).await
        });
        let (client_read, mut client_write) = tokio::io::split(client);
        client_write
            .write_all(format!("{CREATE}\n{PLAIN}\n").as_bytes())
            .await
            .expect("write");
        let start = Instant::now();
        let mut lines = BufReader::new(client_read).lines();
        let mut responses = Vec::new();
        while responses.len() < 2 {
            let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
                .await
                .expect("both answers within 10 s")
                .expect("read")
                .expect("the server answers before closing");
            responses.push((start.elapsed(), parse(&line)));
        }
        serving.abort();
        Seen { responses }
    });
    check(&seen, &stalls);
}

#[test]
fn a_stalled_disk_write_does_not_hold_up_a_single_threaded_smol_connection() {
    use smol::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    use smol::stream::StreamExt;

    let dir = TempDir::new("smol");
    let (service, stalls) = service(&dir);
    // One executor, run by this thread alone.
    let ex = Arc::new(smol::Executor::new());
    let (client, server) = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let client =
            std::net::TcpStream::connect(listener.local_addr().expect("addr")).expect("connect");
        let (server, _) = listener.accept().expect("accept");
        (client, server)
    };
    let seen = smol::block_on(ex.run({
        let ex = ex.clone();
        async move {
            let server = smol::Async::new(server).expect("async socket");
            let client = smol::Async::new(client).expect("async socket");
            let (server_read, server_write) = smol::io::split(server);
            let serving = ex.spawn(snodo_smol::serve_stream(
                &ex,
                &service,
                server_read,
                server_write,
                Default::default(),
            ));
            let (client_read, mut client_write) = smol::io::split(client);
            client_write
                .write_all(format!("{CREATE}\n{PLAIN}\n").as_bytes())
                .await
                .expect("write");
            let start = Instant::now();
            let mut lines = BufReader::new(client_read).lines();
            let mut responses = Vec::new();
            while responses.len() < 2 {
                let line = smol::future::or(async { lines.next().await }, async {
                    smol::Timer::after(Duration::from_secs(10)).await;
                    panic!("both answers within 10 s");
                })
                .await
                .expect("the server answers before closing")
                .expect("read");
                responses.push((start.elapsed(), parse(&line)));
            }
            drop(serving);
            Seen { responses }
        }
    }));
    check(&seen, &stalls);
}

#[test]
fn a_stalled_disk_write_does_not_hold_up_a_connection_on_plain_threads() {
    use std::io::{BufRead, BufReader, Write};

    let dir = TempDir::new("threads");
    let (service, stalls) = service(&dir);
    // One worker for handler calls; the connection has its own thread.
    let threads = snodo_blocking::Threads::new(1).expect("threads");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let mut client =
        std::net::TcpStream::connect(listener.local_addr().expect("addr")).expect("connect");
    let (server, _) = listener.accept().expect("accept");
    let server_write = server.try_clone().expect("clone");
    let serving = std::thread::spawn(move || {
        snodo_blocking::serve_stream(&threads, &service, server, server_write, Default::default())
    });
    client
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    client
        .write_all(format!("{CREATE}\n{PLAIN}\n").as_bytes())
        .expect("write");
    let start = Instant::now();
    let mut lines = BufReader::new(client.try_clone().expect("clone")).lines();
    let mut responses = Vec::new();
    while responses.len() < 2 {
        let line = lines
            .next()
            .expect("the server answers before closing")
            .expect("both answers within 10 s");
        responses.push((start.elapsed(), parse(&line)));
    }
    client.shutdown(std::net::Shutdown::Both).expect("shutdown");
    let _ = serving.join();
    check(&Seen { responses }, &stalls);
}

/// The cost of a `tasks/get` round trip, one request at a time on one
/// current-thread tokio connection, over a memory store (answered inline)
/// and a disk store (answered from the extension's I/O threads). A
/// measurement, not a check of speed: run it by hand with
/// `cargo test -p snodo-conformance --test tasks_blocking -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement; run by hand"]
fn measure_tasks_get_round_trips() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    const ROUNDS: usize = 2000;
    let dir = TempDir::new("measure");
    let stores: Vec<(&str, Arc<dyn snodo_tasks::Store>)> = vec![
        ("memory", Arc::new(snodo_tasks::MemoryStore::new())),
        (
            "disk",
            Arc::new(DiskStore::open(&dir.0).expect("the store opens")),
        ),
    ];
    for (name, store) in stores {
        let service = Service::builder()
            .tool(Tool::new("slow", "Becomes a task"), |_: NoArgs| async {
                CallToolResult::text("done")
            })
            .extension(
                Tasks::with_store(store)
                    .tool("slow", TaskSupport::Optional)
                    .build(),
            )
            .build()
            .expect("the service builds");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let mut took: Vec<Duration> = rt.block_on(async move {
            let (client, server) = tokio::io::duplex(1 << 16);
            let (server_read, server_write) = tokio::io::split(server);
            let serving = tokio::spawn(async move {
                snodo_tokio::serve_stream(&service, server_read, server_write, Default::default())
                    .await
            });
            let (client_read, mut client_write) = tokio::io::split(client);
            let mut lines = BufReader::new(client_read).lines();
            client_write
                .write_all(format!("{CREATE}\n").as_bytes())
                .await
                .expect("write");
            let created = parse(&lines.next_line().await.expect("read").expect("a line"));
            let task = created["result"]["taskId"]
                .as_str()
                .expect("a CreateTaskResult")
                .to_string();
            let mut took = Vec::with_capacity(ROUNDS);
            for n in 0..ROUNDS {
                let get = format!(
                    r#"{{"jsonrpc":"2.0","id":{},"method":"tasks/get","params":{{"taskId":"{task}","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{"extensions":{{"io.modelcontextprotocol/tasks":{{}}}}}}}}}}}}"#,
                    n + 10
                );
                let start = Instant::now();
                client_write
                    .write_all(format!("{get}\n").as_bytes())
                    .await
                    .expect("write");
                let answer = parse(&lines.next_line().await.expect("read").expect("a line"));
                took.push(start.elapsed());
                assert_eq!(answer["id"], json!(n + 10), "{answer}");
                assert_eq!(answer["result"]["taskId"], json!(task), "{answer}");
                assert_eq!(answer["result"]["status"], json!("working"), "{answer}");
            }
            serving.abort();
            took
        });
        took.sort();
        let mean = took.iter().sum::<Duration>() / u32::try_from(ROUNDS).unwrap_or(u32::MAX);
        eprintln!(
            "tasks/get over {name}: {ROUNDS} round trips, mean {mean:?}, p50 {:?}, p99 {:?}",
            took[ROUNDS / 2],
            took[ROUNDS * 99 / 100]
        );
    }
}
