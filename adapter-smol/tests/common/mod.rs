//! Shared test scaffolding: an in-memory duplex, a line client, a service
//! with probe tools, and a bounded runner. No protocol text lives here; the
//! tests write their requests and expected answers literally.

#![allow(dead_code)]

use serde::Deserialize;
use smol::channel::{self, Receiver, Sender};
use smol::future::{self, FutureExt};
use smol::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use smol::stream::Stream;
use smol::{Executor, Timer};
use snodo_proto::{CallToolResult, Context, Implementation, Limits, NoArgs, Service, Tool};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

/// Run `body` on a fresh executor driven by this thread, failing the test
/// if it takes longer than `limit`.
pub fn run<F, Fut>(limit: Duration, body: F)
where
    F: FnOnce(Arc<Executor<'static>>) -> Fut,
    Fut: Future<Output = ()>,
{
    run_on_threads(1, limit, body)
}

/// [`run`] with the executor driven by `threads` threads (this one included).
pub fn run_on_threads<F, Fut>(threads: usize, limit: Duration, body: F)
where
    F: FnOnce(Arc<Executor<'static>>) -> Fut,
    Fut: Future<Output = ()>,
{
    /// Stops the helper threads however the body ends, panics included.
    struct StopOnDrop(Sender<()>);
    impl Drop for StopOnDrop {
        fn drop(&mut self) {
            self.0.close();
        }
    }

    let ex = Arc::new(Executor::new());
    let (stop, stopped) = channel::bounded::<()>(1);
    std::thread::scope(|scope| {
        for _ in 1..threads {
            let ex = ex.clone();
            let stopped = stopped.clone();
            scope.spawn(move || {
                smol::block_on(ex.run(async move {
                    let _ = stopped.recv().await;
                }))
            });
        }
        let _stop = StopOnDrop(stop);
        let fut = body(ex.clone());
        smol::block_on(ex.run(fut.or(async {
            Timer::after(limit).await;
            panic!("test did not finish within {limit:?}");
        })));
    });
}

/// Await `fut` for at most `limit`.
pub async fn within<T>(limit: Duration, what: &str, fut: impl Future<Output = T>) -> T {
    fut.or(async {
        Timer::after(limit).await;
        panic!("timed out after {limit:?} waiting for {what}");
    })
    .await
}

/// The writing end of an in-memory pipe. Dropping or closing it is EOF.
pub struct PipeWriter(Sender<Vec<u8>>);

/// The reading end of an in-memory pipe.
pub struct PipeReader {
    rx: Pin<Box<Receiver<Vec<u8>>>>,
    chunk: Vec<u8>,
    pos: usize,
}

/// A one-way in-memory byte pipe (unbounded: tests write little).
pub fn pipe() -> (PipeWriter, PipeReader) {
    let (tx, rx) = channel::unbounded();
    (
        PipeWriter(tx),
        PipeReader {
            rx: Box::pin(rx),
            chunk: Vec::new(),
            pos: 0,
        },
    )
}

impl AsyncWrite for PipeWriter {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.0.try_send(buf.to_vec()) {
            Ok(()) => Poll::Ready(Ok(buf.len())),
            Err(_) => Poll::Ready(Err(io::ErrorKind::BrokenPipe.into())),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _: &mut TaskContext<'_>) -> Poll<io::Result<()>> {
        self.0.close();
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for PipeReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        while this.pos == this.chunk.len() {
            match this.rx.as_mut().poll_next(cx) {
                Poll::Ready(Some(chunk)) => {
                    this.chunk = chunk;
                    this.pos = 0;
                }
                Poll::Ready(None) => return Poll::Ready(Ok(0)),
                Poll::Pending => return Poll::Pending,
            }
        }
        let n = buf.len().min(this.chunk.len() - this.pos);
        buf[..n].copy_from_slice(&this.chunk[this.pos..this.pos + n]);
        this.pos += n;
        Poll::Ready(Ok(n))
    }
}

/// The client's side of a stdio-style connection.
pub struct LineClient {
    to_server: Option<PipeWriter>,
    from_server: BufReader<PipeReader>,
}

impl LineClient {
    /// Serve `service` over a fresh pipe pair; returns the client and the
    /// server task (which resolves when the server closes its output).
    pub fn start(
        ex: &Arc<Executor<'static>>,
        service: Service,
    ) -> (Self, smol::Task<io::Result<()>>) {
        Self::start_with(ex, service, snodo_smol::Options::default())
    }

    /// [`start`](Self::start) with these options.
    pub fn start_with(
        ex: &Arc<Executor<'static>>,
        service: Service,
        options: snodo_smol::Options,
    ) -> (Self, smol::Task<io::Result<()>>) {
        let (client_w, server_r) = pipe();
        let (server_w, client_r) = pipe();
        let server = ex.spawn(snodo_smol::serve_stream(
            ex, &service, server_r, server_w, options,
        ));
        (
            LineClient {
                to_server: Some(client_w),
                from_server: BufReader::new(client_r),
            },
            server,
        )
    }

    /// Write `text` as-is (include the newline).
    pub fn send(&mut self, text: &str) {
        let w = self.to_server.as_ref().expect("input already closed");
        w.0.try_send(text.as_bytes().to_vec())
            .expect("server input is gone");
    }

    /// Close the server's input (EOF on its stdin).
    pub fn close_input(&mut self) {
        self.to_server = None;
    }

    /// The next line the server writes, parsed, within two seconds.
    pub async fn recv(&mut self) -> serde_json::Value {
        let line = self.recv_line().await.expect("server closed its output");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
    }

    /// The next raw line (without the newline), or `None` at EOF.
    pub async fn recv_line(&mut self) -> Option<String> {
        let mut line = String::new();
        let n = within(
            Duration::from_secs(2),
            "a line from the server",
            self.from_server.read_line(&mut line),
        )
        .await
        .expect("read failed");
        if n == 0 {
            return None;
        }
        assert!(
            line.ends_with('\n'),
            "a line must end with a newline: {line:?}"
        );
        line.pop();
        Some(line)
    }

    /// Assert nothing arrives for `quiet`.
    pub async fn assert_silent(&mut self, quiet: Duration) {
        let mut line = String::new();
        let read = async { Some(self.from_server.read_line(&mut line).await) };
        let timer = async {
            Timer::after(quiet).await;
            None
        };
        if let Some(r) = read.or(timer).await {
            panic!("expected silence, got {r:?}: {line:?}");
        }
    }
}

/// Parse a literal expected message.
pub fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("bad literal ({e}): {text}"))
}

/// What the probe tools report to the test.
#[derive(Clone)]
pub struct Probes {
    /// `hang` sends here when it starts.
    pub started: Sender<()>,
    /// `hang`'s future sends whether its call was flagged cancelled when it is dropped.
    pub dropped: Sender<bool>,
    /// `sleep` sends here when it starts.
    pub sleep_started: Sender<()>,
}

/// The receiving ends of [`Probes`].
pub struct ProbeEvents {
    pub started: Receiver<()>,
    pub dropped: Receiver<bool>,
    pub sleep_started: Receiver<()>,
}

pub fn probes() -> (Probes, ProbeEvents) {
    let (started_tx, started_rx) = channel::unbounded();
    let (dropped_tx, dropped_rx) = channel::unbounded();
    let (sleep_tx, sleep_rx) = channel::unbounded();
    (
        Probes {
            started: started_tx,
            dropped: dropped_tx,
            sleep_started: sleep_tx,
        },
        ProbeEvents {
            started: started_rx,
            dropped: dropped_rx,
            sleep_started: sleep_rx,
        },
    )
}

#[derive(Deserialize)]
struct EchoArgs {
    text: String,
}

#[derive(Deserialize)]
struct SleepArgs {
    ms: u64,
    text: String,
}

struct DropProbe {
    ctx: Context,
    dropped: Sender<bool>,
}

impl Drop for DropProbe {
    fn drop(&mut self) {
        let _ = self.dropped.try_send(self.ctx.is_cancelled());
    }
}

/// Tools: `echo {text}`, `sleep {ms, text}`, `hang` (never finishes),
/// `panic`, `progress` (reports 1/2 then answers "done").
pub fn service(probes: Probes) -> Service {
    service_with(probes, Limits::default())
}

/// [`service`] with these limits.
pub fn service_with(probes: Probes, limits: Limits) -> Service {
    let text_schema = serde_json::json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"]
    });
    let sleep_schema = serde_json::json!({
        "type": "object",
        "properties": {"ms": {"type": "integer", "minimum": 0}, "text": {"type": "string"}},
        "required": ["ms", "text"]
    });
    Service::builder()
        .server_info(Implementation::new("smol-test", "1.0.0"))
        .limits(limits)
        .tool(
            Tool::new("echo", "Echo the text").input_schema(text_schema),
            |a: EchoArgs, _ctx| async move { CallToolResult::text(a.text) },
        )
        .tool(
            Tool::new("sleep", "Answer the text after ms milliseconds").input_schema(sleep_schema),
            {
                let started = probes.sleep_started.clone();
                move |a: SleepArgs, _ctx| {
                    let _ = started.try_send(());
                    async move {
                        Timer::after(Duration::from_millis(a.ms)).await;
                        CallToolResult::text(a.text)
                    }
                }
            },
        )
        .tool(
            Tool::new("hang", "Never finish"),
            move |_: NoArgs, ctx: Context| {
                let probes = probes.clone();
                async move {
                    let _probe = DropProbe {
                        ctx,
                        dropped: probes.dropped.clone(),
                    };
                    let _ = probes.started.try_send(());
                    future::pending::<CallToolResult>().await
                }
            },
        )
        .tool(Tool::new("panic", "Panic"), |_: NoArgs, _ctx| async move {
            if true {
                panic!("tool panicked on purpose");
            }
            CallToolResult::text("unreachable")
        })
        .tool(
            Tool::new("progress", "Report progress"),
            |_: NoArgs, ctx: Context| async move {
                ctx.progress(1.0, Some(2.0), None);
                Timer::after(Duration::from_millis(20)).await;
                CallToolResult::text("done")
            },
        )
        .build()
        .expect("test service builds")
}

/// A server from `serve_http` on 127.0.0.1 with a port of its own.
pub struct HttpServer {
    pub addr: std::net::SocketAddr,
    stop: Sender<()>,
    pub task: smol::Task<io::Result<()>>,
}

impl HttpServer {
    pub async fn start(
        ex: &Arc<Executor<'static>>,
        service: Service,
        options: snodo_smol::Options,
    ) -> Self {
        let listener = snodo_smol::bind_http("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("local addr");
        let (stop, stopped) = channel::bounded::<()>(1);
        let shutdown = async move {
            let _ = stopped.recv().await;
        };
        let task = ex.spawn(snodo_smol::serve_http(
            ex, &service, listener, shutdown, options,
        ));
        HttpServer { addr, stop, task }
    }

    /// Resolve the shutdown future.
    pub fn shut_down(&self) {
        self.stop.close();
    }
}

/// One HTTP/1.1 response as read off the wire.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {:?}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// A raw HTTP client: writes the bytes it is given, parses what comes back
/// just enough to split responses (status, headers, Content-Length or
/// chunked bodies).
pub struct HttpClient {
    pub stream: smol::net::TcpStream,
    buf: Vec<u8>,
}

impl HttpClient {
    pub async fn connect(addr: std::net::SocketAddr) -> Self {
        let stream = within(
            Duration::from_secs(5),
            "connect",
            smol::net::TcpStream::connect(addr),
        )
        .await
        .expect("connect");
        HttpClient {
            stream,
            buf: Vec::new(),
        }
    }

    pub async fn send(&mut self, bytes: &[u8]) {
        use smol::io::AsyncWriteExt;
        self.stream.write_all(bytes).await.expect("write request");
    }

    async fn fill(&mut self) -> usize {
        use smol::io::AsyncReadExt;
        let mut chunk = [0u8; 8192];
        let n = self.stream.read(&mut chunk).await.unwrap_or(0);
        self.buf.extend_from_slice(&chunk[..n]);
        n
    }

    async fn take_until(&mut self, delim: &[u8]) -> Vec<u8> {
        loop {
            if let Some(i) = self.buf.windows(delim.len()).position(|w| w == delim) {
                let line: Vec<u8> = self.buf.drain(..i + delim.len()).collect();
                return line[..i].to_vec();
            }
            if self.fill().await == 0 {
                panic!(
                    "connection closed mid-response: {:?}",
                    String::from_utf8_lossy(&self.buf)
                );
            }
        }
    }

    async fn take(&mut self, n: usize) -> Vec<u8> {
        while self.buf.len() < n {
            if self.fill().await == 0 {
                panic!("connection closed mid-body");
            }
        }
        self.buf.drain(..n).collect()
    }

    /// The next response, within `limit`.
    pub async fn response_within(&mut self, limit: Duration) -> Response {
        within(limit, "an HTTP response", self.read_response()).await
    }

    /// The next response, within two seconds.
    pub async fn response(&mut self) -> Response {
        self.response_within(Duration::from_secs(2)).await
    }

    async fn read_response(&mut self) -> Response {
        let head = self.take_until(b"\r\n\r\n").await;
        let head = String::from_utf8(head).expect("head is UTF-8");
        let mut lines = head.split("\r\n");
        let status_line = lines.next().unwrap_or_default();
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
            .collect();
        let mut response = Response {
            status,
            headers,
            body: Vec::new(),
        };
        if let Some(len) = response.header("content-length") {
            let len: usize = len.parse().expect("Content-Length is a number");
            response.body = self.take(len).await;
        } else if response
            .header("transfer-encoding")
            .is_some_and(|t| t.eq_ignore_ascii_case("chunked"))
        {
            loop {
                let size = self.take_until(b"\r\n").await;
                let size = usize::from_str_radix(std::str::from_utf8(&size).unwrap().trim(), 16)
                    .expect("chunk size");
                let data = self.take(size + 2).await;
                if size == 0 {
                    break;
                }
                response.body.extend_from_slice(&data[..size]);
            }
        }
        response
    }

    /// Assert the server closes the connection within `limit` with no more bytes.
    pub async fn expect_eof(&mut self, limit: Duration) {
        let n = within(limit, "the server to close the connection", self.fill()).await;
        assert_eq!(
            n,
            0,
            "expected EOF, got {:?}",
            String::from_utf8_lossy(&self.buf)
        );
    }

    /// Assert nothing arrives for `quiet` (the connection stays open and silent).
    pub async fn assert_silent(&mut self, quiet: Duration) {
        let read = async { Some(self.fill().await) };
        let timer = async {
            Timer::after(quiet).await;
            None
        };
        if let Some(n) = read.or(timer).await {
            panic!(
                "expected silence, got {n} bytes: {:?}",
                String::from_utf8_lossy(&self.buf)
            );
        }
    }
}

/// A POST to `/mcp` with the standard headers, `Mcp-Method` = `method`,
/// `Mcp-Name` when given, and `body` (whose length fills Content-Length).
pub fn post(method: &str, name: Option<&str>, body: &str) -> Vec<u8> {
    let name = name
        .map(|n| format!("Mcp-Name: {n}\r\n"))
        .unwrap_or_default();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n{name}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}
