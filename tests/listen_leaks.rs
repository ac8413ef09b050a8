//! Thousands of `subscriptions/listen` streams opened and dropped leave
//! nothing behind, on every runtime: the hub has no listeners left, tokio
//! has no tasks left, and the live heap (counted exactly by this test
//! binary's global allocator) is back to where it was.
//!
//! The server runs in this process on the real adapters over loopback HTTP;
//! the clients are plain blocking sockets that send a literal listen
//! request, read the acknowledgement, receive one published event, and are
//! then dropped without a word (the way a client that goes away does).

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener as StdListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use snodo_proto::{ChangeEvent, Hub, Service};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator and only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            LIVE.fetch_add(new_size, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const LISTEN: &str = r#"{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const ACK: &str = r#"data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{"toolsListChanged":true}}}"#;
const EVENT: &str = r#"data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}"#;

fn request() -> Vec<u8> {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: {}\r\n\r\n{LISTEN}",
        LISTEN.len()
    )
    .into_bytes()
}

/// Read from `s` until `needle` has arrived (bounded).
fn read_until(s: &mut TcpStream, seen: &mut String, needle: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut buf = [0u8; 2048];
    while !seen.contains(needle) {
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {needle}; got {seen:?}"
        );
        let n = s
            .read(&mut buf)
            .unwrap_or_else(|e| panic!("read failed ({e}) after {seen:?}"));
        assert!(n > 0, "server closed the stream early; got {seen:?}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
}

fn open(addr: SocketAddr, n: usize) -> Vec<(TcpStream, String)> {
    (0..n)
        .map(|_| {
            let mut s = TcpStream::connect(addr).expect("connect");
            s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            s.write_all(&request()).unwrap();
            let mut seen = String::new();
            read_until(&mut s, &mut seen, ACK);
            (s, seen)
        })
        .collect()
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Open `n` streams, deliver one event to each, drop them all, and check
/// the hub and the heap are back to baseline. The first round only warms
/// up: runtimes keep the capacity their reactors and queues grew to (smol's
/// I/O registry keeps its slab, for example), which is reuse, not a leak.
/// The second round must then come back to exactly where the first ended,
/// give or take 64 KiB. `extra` checks more (tokio's task count).
/// What may differ between the two rounds' ends: far below one byte per
/// stream (a leak of even 32 bytes per stream would exceed it).
const TOLERANCE: usize = 64 * 1024;

fn cycle(hub: &Hub, addr: SocketAddr, n: usize, extra: &dyn Fn() -> usize) {
    let mut rounds = Vec::new();
    for round in 0..2 {
        let base_live = LIVE.load(Ordering::SeqCst);
        let base_extra = extra();
        let mut streams = open(addr, n);
        wait_for("every stream registered with the hub", || {
            hub.stats().listeners == n
        });
        let open_live = LIVE.load(Ordering::SeqCst);
        hub.publish(ChangeEvent::ToolsListChanged);
        for (s, seen) in &mut streams {
            read_until(s, seen, EVENT);
        }
        assert_eq!(hub.stats().dropped, 0);
        drop(streams);
        wait_for("every listener to unregister", || {
            hub.stats().listeners == 0
        });
        wait_for("the runtime's tasks to end", || extra() <= base_extra);
        // Connection state is freed as each connection's task or thread
        // ends, which under load can trail the hub's bookkeeping by a while:
        // round 0 waits for the heap to stop moving; round 1 waits (up to a
        // generous deadline) for it to come back to where round 0 ended.
        let target = rounds
            .first()
            .map(|&(_, _, end): &(usize, usize, usize)| end + TOLERANCE);
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut after = LIVE.load(Ordering::SeqCst);
        loop {
            std::thread::sleep(Duration::from_millis(100));
            let now = LIVE.load(Ordering::SeqCst);
            let settled = match target {
                Some(t) => now <= t,
                None => now == after,
            };
            after = now;
            if settled || Instant::now() > deadline {
                break;
            }
        }
        eprintln!(
            "round {round}: {n} streams: live heap {base_live} -> {open_live} (~{} B/stream incl. client) -> {after} bytes after dropping them",
            open_live.saturating_sub(base_live) / n
        );
        rounds.push((base_live, open_live, after));
    }
    let (_, _, first_end) = rounds[0];
    let (_, peak, second_end) = rounds[1];
    assert!(peak > second_end + n * 1024, "the streams were counted");
    assert!(
        second_end <= first_end + TOLERANCE,
        "live heap grew from round to round: {first_end} after the first, {second_end} after the second (peak {peak})"
    );
}

fn fixture() -> (Service, Hub) {
    let service = snodo_conformance::service();
    let hub = service.hub().expect("the fixture attaches a hub").clone();
    (service, hub)
}

#[test]
fn tokio_listen_streams_leave_nothing_behind() {
    let (service, hub) = fixture();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = rt.block_on(snodo_tokio::bind_http("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let svc = service.clone();
    let server = rt.spawn(async move {
        snodo_tokio::serve_http(
            &svc,
            listener,
            async {
                let _ = stopped.await;
            },
            snodo_tokio::Options::default().max_connections(4096),
        )
        .await
    });
    let metrics = rt.metrics();
    cycle(&hub, addr, 2000, &|| metrics.num_alive_tasks());
    let _ = stop.send(());
    rt.block_on(server).unwrap().unwrap();
}

#[test]
fn smol_listen_streams_leave_nothing_behind() {
    let (service, hub) = fixture();
    let ex = Arc::new(smol::Executor::new());
    let (stop_threads, threads_stopped) = smol::channel::unbounded::<()>();
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let (ex, rx) = (ex.clone(), threads_stopped.clone());
            std::thread::spawn(move || smol::block_on(ex.run(rx.recv())))
        })
        .collect();
    let listener = smol::block_on(snodo_smol::bind_http("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = smol::channel::bounded::<()>(1);
    let server = ex.spawn(snodo_smol::serve_http(
        &ex,
        &service,
        listener,
        async move {
            let _ = stopped.recv().await;
        },
        snodo_smol::Options::default().max_connections(4096),
    ));
    cycle(&hub, addr, 2000, &|| 0);
    smol::block_on(stop.send(())).unwrap();
    smol::block_on(server).unwrap();
    drop(stop_threads);
    for t in threads {
        let _ = t.join().unwrap();
    }
}

#[test]
fn blocking_listen_streams_leave_nothing_behind() {
    let (service, hub) = fixture();
    let listener: StdListener = snodo_blocking::bind_http("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = snodo_blocking::Shutdown::new();
    let svc = service.clone();
    let handle = shutdown.clone();
    let server = std::thread::spawn(move || {
        let options = snodo_blocking::Options::default().max_connections(1024);
        let threads = snodo_blocking::Threads::new(snodo_blocking::DEFAULT_WORKERS)?;
        snodo_blocking::serve_http(&threads, &svc, listener, handle, options)
    });
    // A thread per connection: fewer streams than the async runtimes.
    cycle(&hub, addr, 300, &|| 0);
    shutdown.shutdown();
    server.join().unwrap().unwrap();
}
