//! Test plumbing: an in-memory stdin/stdout pair around `serve`, and small
//! runtime-free futures for handlers to await.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::future::Future;
use std::io::{self, Read, Write};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use snodo_blocking::{serve_stream, Flushed, Options, Threads};

/// How a test connection runs: its worker count and the driver's options.
#[derive(Clone, Default)]
pub struct StdioOptions {
    pub workers: Option<usize>,
    pub options: Options,
}

impl StdioOptions {
    pub fn workers(mut self, n: usize) -> Self {
        self.workers = Some(n);
        self
    }

    pub fn write_high_water(mut self, bytes: usize) -> Self {
        self.options = self.options.write_high_water(bytes);
        self
    }

    /// Serve `service` over `reader` and `writer` on the calling thread.
    pub fn serve<R, W>(self, service: &Service, reader: R, writer: W) -> io::Result<()>
    where
        R: io::Read + Send + 'static,
        W: io::Write + Send + 'static,
    {
        let workers = self.workers.unwrap_or(snodo_blocking::DEFAULT_WORKERS);
        let threads = Threads::new(workers)?;
        serve_stream(&threads, service, reader, Flushed(writer), self.options)
    }
}
use snodo_proto::Service;

/// Generous bound for anything that should happen "soon".
pub const SOON: Duration = Duration::from_secs(5);

/// Stdin fed by the test one chunk per `send`; EOF once the sender drops.
struct ChunkReader {
    chunks: Receiver<Vec<u8>>,
    pending: VecDeque<u8>,
    taken: Arc<AtomicUsize>,
}

impl Read for ChunkReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pending.is_empty() {
            match self.chunks.recv() {
                Ok(chunk) => {
                    self.taken.fetch_add(1, Ordering::SeqCst);
                    self.pending.extend(chunk);
                }
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.pending.len());
        for (dst, src) in buf.iter_mut().zip(self.pending.drain(..n)) {
            *dst = src;
        }
        Ok(n)
    }
}

#[derive(Default)]
struct Captured {
    bytes: Mutex<Vec<u8>>,
    grew: Condvar,
    /// While true, writes block: a client not reading its stdout.
    held: Mutex<bool>,
    unheld: Condvar,
}

/// Stdout captured in memory.
struct CaptureWriter(Arc<Captured>);

impl Write for CaptureWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut held = self.0.held.lock().unwrap();
        while *held {
            held = self.0.unheld.wait(held).unwrap();
        }
        drop(held);
        self.0.bytes.lock().unwrap().extend_from_slice(buf);
        self.0.grew.notify_all();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A running `serve` with its ends of the pipes.
pub struct Server {
    input: Option<Sender<Vec<u8>>>,
    taken: Arc<AtomicUsize>,
    output: Arc<Captured>,
    lines_seen: usize,
    done: Receiver<io::Result<()>>,
}

impl Server {
    pub fn start(service: &Service, options: StdioOptions) -> Server {
        let (tx, rx) = mpsc::channel();
        let taken = Arc::new(AtomicUsize::new(0));
        let reader = ChunkReader {
            chunks: rx,
            pending: VecDeque::new(),
            taken: Arc::clone(&taken),
        };
        let output = Arc::new(Captured::default());
        let writer = CaptureWriter(Arc::clone(&output));
        let (done_tx, done) = mpsc::channel();
        let service = service.clone();
        thread::spawn(move || {
            let _ = done_tx.send(options.serve(&service, reader, writer));
        });
        Server {
            input: Some(tx),
            taken,
            output,
            lines_seen: 0,
            done,
        }
    }

    /// Write `line` and its newline to the server's stdin as one chunk.
    pub fn send(&self, line: &str) {
        let mut chunk = line.as_bytes().to_vec();
        chunk.push(b'\n');
        self.input
            .as_ref()
            .expect("input is open")
            .send(chunk)
            .expect("server reader alive");
    }

    /// Write `text` to the server's stdin as one chunk, as is.
    pub fn send_raw(&self, text: &str) {
        self.input
            .as_ref()
            .expect("input is open")
            .send(text.as_bytes().to_vec())
            .expect("server reader alive");
    }

    /// Make writes to stdout block until [`Server::release_output`].
    pub fn hold_output(&self) {
        *self.output.held.lock().unwrap() = true;
    }

    pub fn release_output(&self) {
        *self.output.held.lock().unwrap() = false;
        self.output.unheld.notify_all();
    }

    /// Close stdin (EOF).
    pub fn close_input(&mut self) {
        self.input = None;
    }

    /// How many chunks the server has read from stdin so far.
    pub fn chunks_read(&self) -> usize {
        self.taken.load(Ordering::SeqCst)
    }

    /// Wait until the server has read `n` chunks.
    pub fn wait_chunks_read(&self, n: usize) {
        let until = Instant::now() + SOON;
        while self.chunks_read() < n {
            assert!(
                Instant::now() < until,
                "server read {} chunks, expected {n}",
                self.chunks_read()
            );
            thread::sleep(Duration::from_millis(5));
        }
    }

    fn complete_lines(&self) -> Vec<Value> {
        let bytes = self.output.bytes.lock().unwrap();
        parse_lines(&bytes)
    }

    /// The next message written, waiting up to [`SOON`].
    pub fn next(&mut self) -> Value {
        self.next_within(SOON)
            .unwrap_or_else(|| panic!("no message after {} messages", self.lines_seen))
    }

    fn next_within(&mut self, timeout: Duration) -> Option<Value> {
        let until = Instant::now() + timeout;
        let mut bytes = self.output.bytes.lock().unwrap();
        loop {
            let lines = parse_lines(&bytes);
            if let Some(v) = lines.get(self.lines_seen) {
                self.lines_seen += 1;
                return Some(v.clone());
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            bytes = self.output.grew.wait_timeout(bytes, left).unwrap().0;
        }
    }

    /// Assert nothing more is written for `period`.
    pub fn expect_silence(&mut self, period: Duration) {
        if let Some(v) = self.next_within(period) {
            panic!("unexpected message: {v}");
        }
    }

    /// Close stdin if still open and wait for `serve` to return.
    pub fn finish(mut self) -> (io::Result<()>, Vec<Value>) {
        self.close_input();
        let result = self
            .done
            .recv_timeout(SOON)
            .expect("serve returned in time");
        (result, self.complete_lines())
    }

    /// Wait for `serve` to return without closing stdin.
    pub fn wait_return(&self) -> io::Result<()> {
        self.done
            .recv_timeout(SOON)
            .expect("serve returned in time")
    }
}

/// Every complete line of `bytes` as JSON; panics on anything else, since
/// stdout must carry protocol messages only.
fn parse_lines(bytes: &[u8]) -> Vec<Value> {
    let end = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    bytes[..end]
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_slice(l)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {l:?}"))
        })
        .collect()
}

/// Ids of the responses among `messages`.
pub fn response_ids(messages: &[Value]) -> Vec<Value> {
    messages
        .iter()
        .filter_map(|m| m.get("id").cloned())
        .collect()
}

/// Parse a literal expected message.
pub fn json(text: &str) -> Value {
    serde_json::from_str(text).expect("literal test JSON")
}

/// A future that resolves once released. Cloning shares the latch.
#[derive(Clone, Default)]
pub struct Latch(Arc<Mutex<(bool, Vec<Waker>)>>);

impl Latch {
    pub fn release(&self) {
        let wakers = {
            let mut s = self.0.lock().unwrap();
            s.0 = true;
            std::mem::take(&mut s.1)
        };
        for w in wakers {
            w.wake();
        }
    }

    pub fn wait(&self) -> LatchWait {
        LatchWait(self.clone())
    }
}

pub struct LatchWait(Latch);

impl Future for LatchWait {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = (self.0).0.lock().unwrap();
        if s.0 {
            return Poll::Ready(());
        }
        s.1.push(cx.waker().clone());
        Poll::Pending
    }
}

/// A timer future: a helper thread wakes it at the deadline. Like any
/// future, it wakes the waker of its latest poll (the first poll of a call
/// runs inline with a no-op waker, the next on the task it moved to).
pub fn sleep(d: Duration) -> Sleep {
    Sleep {
        until: Instant::now() + d,
        waker: None,
    }
}

pub struct Sleep {
    until: Instant,
    waker: Option<Arc<Mutex<Waker>>>,
}

impl Future for Sleep {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.until {
            return Poll::Ready(());
        }
        match &self.waker {
            Some(slot) => *slot.lock().unwrap() = cx.waker().clone(),
            None => {
                let slot = Arc::new(Mutex::new(cx.waker().clone()));
                self.waker = Some(slot.clone());
                let until = self.until;
                thread::spawn(move || {
                    thread::sleep(until.saturating_duration_since(Instant::now()));
                    slot.lock().unwrap().wake_by_ref();
                });
            }
        }
        Poll::Pending
    }
}

/// Sends on a channel when dropped: proves a handler's future was dropped.
pub struct DropSignal(pub Sender<()>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// The test's side of the probe tools: release their latch, and hear when
/// one started or had its future dropped.
pub struct Probes {
    pub latch: Latch,
    pub started: Receiver<&'static str>,
    pub dropped: Receiver<()>,
}

/// The handlers' side, cloned into tool closures.
#[derive(Clone)]
pub struct ProbeTools {
    latch: Latch,
    started: Sender<&'static str>,
    dropped: Sender<()>,
}

pub fn probes() -> (Probes, ProbeTools) {
    let latch = Latch::default();
    let (started_tx, started) = mpsc::channel();
    let (dropped_tx, dropped) = mpsc::channel();
    let tools = ProbeTools {
        latch: latch.clone(),
        started: started_tx,
        dropped: dropped_tx,
    };
    let probes = Probes {
        latch,
        started,
        dropped,
    };
    (probes, tools)
}

impl ProbeTools {
    /// Says "wait" once polled, then waits for [`Probes::latch`].
    pub fn wait(&self) -> impl Future<Output = ()> + Send + 'static {
        let (latch, started) = (self.latch.clone(), self.started.clone());
        async move {
            let _ = started.send("wait");
            latch.wait().await;
        }
    }

    /// Says "hang" once polled and never finishes; being dropped is
    /// reported on [`Probes::dropped`].
    pub fn hang(&self) -> impl Future<Output = ()> + Send + 'static {
        let started = self.started.clone();
        let guard = DropSignal(self.dropped.clone());
        async move {
            let _guard = guard;
            let _ = started.send("hang");
            std::future::pending::<()>().await;
        }
    }
}
