//! Connection floods, with default options, on every runtime and on
//! `snodo-hyper`'s server: 3,000 idle
//! connections and 300 that trickle one header byte every half second are
//! all open, and a new well-behaved client is still answered within 1 s;
//! the slow heads are closed by their deadline (`HttpConfig::head_timeout`,
//! 10 s). At the connection cap (1024) each new client takes the place of
//! the connection idle longest.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use snodo_proto::{Implementation, Service};

const IDLE: usize = 3_000;
const SLOW: usize = 300;
/// The default head deadline, and the slack allowed past it.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
const SLACK: Duration = Duration::from_secs(3);

const DISCOVER: &[u8] = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\nContent-Length: 175\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}";

/// A head that takes far longer than its deadline at one byte per 500 ms.
const SLOW_HEAD: &[u8] = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";

/// One flood at a time: each holds thousands of sockets and threads.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn service() -> Service {
    Service::builder()
        .server_info(Implementation::new("flood", "1"))
        .build()
        .unwrap()
}

fn flood(addr: SocketAddr) {
    let mut idle = Vec::with_capacity(IDLE);
    for _ in 0..IDLE {
        idle.push(TcpStream::connect(addr).expect("connect an idle client"));
    }
    let mut slow = Vec::with_capacity(SLOW);
    for _ in 0..SLOW {
        let mut s = TcpStream::connect(addr).expect("connect a slow client");
        s.write_all(&SLOW_HEAD[..1]).unwrap();
        slow.push((s, Instant::now()));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let trickle = {
        let writers: Vec<TcpStream> = slow.iter().map(|(s, _)| s.try_clone().unwrap()).collect();
        let stop = stop.clone();
        thread::spawn(move || {
            let mut writers = writers;
            for i in 1..SLOW_HEAD.len() {
                for w in &mut writers {
                    // A closed connection refuses the byte: that is the point.
                    let _ = w.write_all(&SLOW_HEAD[i..=i]);
                }
                for _ in 0..5 {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    thread::sleep(Duration::from_millis(100));
                }
            }
        })
    };

    // `connect` returns once the kernel queued the connection, not once the
    // server accepted it: under load the server may still be draining the
    // flood from its backlog. Backlogs are FIFO, so when a probe behind the
    // flood is answered the server holds every flood connection; only then
    // is a new client timed.
    let accepted_by = discover(addr, Duration::from_secs(30));

    // A new, well-behaved client is answered at once.
    let began = Instant::now();
    discover(addr, Duration::from_secs(5));
    let waited = began.elapsed();
    assert!(
        waited < Duration::from_secs(1),
        "the new client waited {waited:?}"
    );

    // Every slow head is closed by its deadline: shed to make room, or
    // answered 408 at its head deadline.
    for (i, (s, first_byte)) in slow.iter_mut().enumerate() {
        // The head deadline runs from the server's accept, which came
        // after the first byte was sent and before the probe was answered.
        let by = (*first_byte).max(accepted_by) + HEAD_TIMEOUT + SLACK;
        let mut got = Vec::new();
        let mut buf = [0_u8; 512];
        loop {
            let left = by.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "slow client {i} still open after {:?}",
                HEAD_TIMEOUT + SLACK
            );
            s.set_read_timeout(Some(left)).unwrap();
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        assert!(
            got.is_empty() || got.starts_with(b"HTTP/1.1 408 Request Timeout\r\n"),
            "slow client {i} got {:?}",
            String::from_utf8_lossy(&got)
        );
    }
    stop.store(true, Ordering::Relaxed);
    trickle.join().unwrap();
    drop(idle);
}

/// Sends one discover on a new connection, asserts it is answered
/// `200 OK` within `wait`, and returns when.
fn discover(addr: SocketAddr, wait: Duration) -> Instant {
    let mut client = TcpStream::connect(addr).unwrap();
    client.set_read_timeout(Some(wait)).unwrap();
    client.write_all(DISCOVER).unwrap();
    let mut head = [0_u8; 15];
    client.read_exact(&mut head).expect("an answer");
    assert_eq!(&head, b"HTTP/1.1 200 OK");
    Instant::now()
}

#[test]
fn tokio_serves_a_new_client_through_a_flood() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let rt = two_workers();
    let listener = rt.block_on(snodo_tokio::bind_http("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = snodo_tokio::Shutdown::new();
    let service = service();
    let server = rt.spawn(snodo_tokio::serve_http(
        &service,
        listener,
        shutdown.clone(),
        snodo_tokio::Options::default(),
    ));
    flood(addr);
    shutdown.shutdown();
    rt.block_on(server).unwrap().unwrap();
}

#[test]
fn smol_serves_a_new_client_through_a_flood() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let ex = Arc::new(smol::Executor::new());
    let (done, finished) = smol::channel::bounded::<()>(1);
    let runners: Vec<_> = (0..2)
        .map(|_| {
            let (ex, finished) = (ex.clone(), finished.clone());
            thread::spawn(move || smol::block_on(ex.run(finished.recv())))
        })
        .collect();
    let listener = smol::block_on(snodo_smol::bind_http("127.0.0.1:0")).unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = snodo_smol::Shutdown::new();
    let service = service();
    let server = ex.spawn(snodo_smol::serve_http(
        &ex,
        &service,
        listener,
        shutdown.clone(),
        snodo_smol::Options::default(),
    ));
    flood(addr);
    shutdown.shutdown();
    smol::block_on(server).unwrap();
    drop(done);
    for r in runners {
        let _ = r.join();
    }
}

#[test]
fn blocking_serves_a_new_client_through_a_flood() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let listener = snodo_blocking::bind_http("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = snodo_blocking::Shutdown::new();
    let (service, stop) = (service(), shutdown.clone());
    let server = thread::spawn(move || {
        let threads = snodo_blocking::Threads::new(snodo_blocking::DEFAULT_WORKERS)?;
        snodo_blocking::serve_http(
            &threads,
            &service,
            listener,
            stop,
            snodo_blocking::Options::default(),
        )
    });
    flood(addr);
    shutdown.shutdown();
    server.join().unwrap().unwrap();
}

#[test]
fn hyper_serves_a_new_client_through_a_flood() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let rt = two_workers();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = snodo_hyper::Shutdown::new();
    let service = service();
    let server = rt.spawn({
        let shutdown = shutdown.clone();
        async move {
            snodo_hyper::serve(
                &service,
                listener,
                shutdown,
                snodo_hyper::Options::default(),
            )
            .await
        }
    });
    flood(addr);
    shutdown.shutdown();
    rt.block_on(server).unwrap().unwrap();
}

/// A tokio runtime as the fixture runs one on this machine.
fn two_workers() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}
