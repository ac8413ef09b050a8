//! The loop that drives one [`Connection`]: the only place bytes, reports
//! and time meet the state machine.
//!
//! It follows the driving contract of `snodo_proto::connection`: after every
//! input, drain `poll_output` until `None` (writing transmits, starting and
//! cancelling calls); then wait for whichever comes first of more input
//! (only while `wants_input`), a call's report, the connection's next
//! deadline, or the server's shutdown signal.
//!
//! Transmits are written in order before the loop waits again, so a peer
//! that does not read holds the loop (and, through `wants_input` and the
//! bounded report queue, everything behind it) instead of growing a buffer.

use smol::channel::Receiver;
use smol::future::{self, FutureExt};
use smol::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use smol::stream::StreamExt;
use smol::Timer;
use snodo_proto::{Connection, Output, Transport};
use std::io;
use std::pin::pin;
use std::time::{Duration, Instant};

use crate::calls::{Calls, Report};
use crate::clock::Clock;

/// What one connection needs besides its byte streams.
pub(crate) struct Driver {
    pub(crate) conn: Connection,
    pub(crate) calls: Calls,
    pub(crate) clock: Clock,
    /// Closed by the server when it shuts down; `None` for a stream that
    /// only ends at EOF.
    pub(crate) shutdown: Option<Receiver<()>>,
    pub(crate) read_buffer: usize,
    /// Once winding down (end of input, or shutdown), how long calls in
    /// flight may still run before they are cancelled and the stream closed.
    pub(crate) grace: Duration,
}

enum Event {
    Read(io::Result<usize>),
    Report(Report),
    Timeout,
    /// The hub queued change events for this connection's listen streams.
    Changes,
    Shutdown,
}

impl Driver {
    /// Run until the connection closes. Returns after the writer is flushed
    /// and closed; an I/O error on the writer ends it early. Calls still
    /// running when it returns are cancelled.
    ///
    /// What the loop waits on lives across iterations (one timer moved only
    /// when the deadline changes, one listener on the report channel, one
    /// on the shutdown signal): building them anew per event would register
    /// and deregister each with the reactor for every request.
    pub(crate) async fn run<R, W>(self, reader: R, writer: W) -> io::Result<()>
    where
        R: AsyncRead,
        W: AsyncWrite,
    {
        let Driver {
            mut conn,
            mut calls,
            clock,
            shutdown,
            read_buffer,
            grace,
        } = self;
        let mut reader = pin!(reader);
        let mut writer = pin!(writer);
        let mut buf = vec![0u8; read_buffer.max(1)];
        let mut reports = pin!(calls.reports());
        let mut stop = pin!(async {
            match &shutdown {
                // Resolves when the server closes the channel.
                Some(signal) => {
                    let _ = signal.recv().await;
                }
                None => future::pending().await,
            }
        });
        let mut timer = Timer::never();
        // When `timer` fires, while it has not.
        let mut armed: Option<Instant> = None;
        // False once the reader hit EOF or failed.
        let mut reading = true;
        // True once the server asked to shut down (`begin_shutdown`): from
        // then on reads only watch for the peer going away, which still
        // cancels the call in flight; what they return is discarded.
        let mut draining = false;
        // Set when winding down starts; calls must be done by then.
        let mut grace_until: Option<Instant> = None;
        // Winding down starts at end of input on stdio, not when an HTTP
        // client leaves: proto then cancels its calls, or lets an
        // initialize-era session's run to their own deadline (2025-11-25
        // `transports.mdx`: a disconnection is not a cancellation).
        let stdio = conn.transport() == Transport::Stdio;
        loop {
            match drain(&mut conn, &mut calls, &clock, &mut writer).await {
                Ok(true) => break,
                Ok(false) => {}
                // An HTTP client that cannot be written to has gone, like
                // one that closed its side.
                Err(e) if !stdio => {
                    tracing::debug!(error = %e, "write failed; the client is gone");
                    reading = false;
                    conn.handle_input_closed(clock.now());
                    continue;
                }
                Err(e) => return Err(e),
            }
            let idle = conn.in_flight() == 0 && conn.queued() == 0;
            let deadline = conn.poll_timeout();
            if idle && !reading && deadline.is_none() {
                // Nothing left that could ever wake this loop again (a
                // liveness guard: `proto` emits `Output::Close` first).
                break;
            }

            let want_input = reading && (draining || conn.wants_input());
            let wake = match (deadline.and_then(|t| clock.to_std(t)), grace_until) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            // The timer only ever moves earlier. A deadline that moved
            // later (each keep-alive request pushes its connection's) is
            // left to fire early: `handle_timeout` acts only on what is due,
            // and the loop then arms the next one. Resetting it for every
            // request would cost the reactor a timer update, and on
            // async-io three system calls, per request.
            if let Some(at) = wake.filter(|&at| armed.is_none_or(|armed| at < armed)) {
                timer.set_at(at);
                armed = Some(at);
            }
            let event = {
                let read = async {
                    if want_input {
                        Event::Read(reader.read(&mut buf).await)
                    } else {
                        future::pending().await
                    }
                };
                let report = async {
                    match reports.next().await {
                        Some(report) => Event::Report(report),
                        // `calls` keeps a sender: never closed while it runs.
                        None => future::pending().await,
                    }
                };
                let fire = async {
                    if armed.is_some() {
                        (&mut timer).await;
                        Event::Timeout
                    } else {
                        future::pending().await
                    }
                };
                let stop = async {
                    if draining {
                        future::pending().await
                    } else {
                        stop.as_mut().await;
                        Event::Shutdown
                    }
                };
                // Change events from the service's hub for listen streams.
                let changes = async {
                    future::poll_fn(|cx| conn.poll_changes(cx)).await;
                    Event::Changes
                };
                // Shutdown and deadlines first; reads, reports and changes at
                // random so no busy source starves the others.
                stop.or(fire).or(read.race(report).race(changes)).await
            };

            let now = clock.now();
            match event {
                Event::Read(Ok(0)) => {
                    reading = false;
                    if stdio {
                        grace_until.get_or_insert_with(|| Instant::now() + grace);
                    }
                    conn.handle_input_closed(now);
                }
                Event::Read(Ok(_)) if draining => {}
                Event::Read(Ok(n)) => conn.handle_input(&buf[..n], now),
                Event::Read(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Event::Read(Err(e)) => {
                    tracing::debug!(error = %e, "read failed: treating it as end of input");
                    reading = false;
                    if stdio {
                        grace_until.get_or_insert_with(|| Instant::now() + grace);
                    }
                    conn.handle_input_closed(now);
                }
                Event::Report(Report::Done(call, outcome)) => {
                    calls.finished(call);
                    // Refused when the call was cancelled or timed out first:
                    // its answer must not be written then.
                    let _ = conn.complete(call, outcome, now);
                }
                Event::Report(Report::Event(call, event)) => {
                    calls.took_event();
                    conn.call_event(call, event, now)
                }
                Event::Timeout => {
                    armed = None;
                    if grace_until.is_some_and(|g| g <= Instant::now()) {
                        tracing::warn!(
                            in_flight = conn.in_flight(),
                            "shutdown grace expired: cancelling the calls still running"
                        );
                        break;
                    }
                    conn.handle_timeout(now);
                }
                Event::Changes => conn.handle_changes(now),
                Event::Shutdown => {
                    tracing::debug!("shutting down: answering what is in progress");
                    draining = true;
                    grace_until.get_or_insert_with(|| Instant::now() + grace);
                    conn.begin_shutdown(now);
                }
            }
        }
        // Cancel whatever still runs before spending time on the close.
        drop(calls);
        writer.flush().await?;
        writer.close().await
    }
}

/// Carry out everything the connection asks for. Returns whether it
/// emitted `Output::Close`. What is transmitted meanwhile goes out in one
/// write (pipelined stdio answers: one system call for many); a lone
/// transmit is written from its own buffer.
async fn drain<W: AsyncWrite + Unpin>(
    conn: &mut Connection,
    calls: &mut Calls,
    clock: &Clock,
    writer: &mut W,
) -> io::Result<bool> {
    let mut first = None;
    let mut batch: Vec<u8> = Vec::new();
    let mut closed = false;
    while let Some(out) = conn.poll_output() {
        match out {
            Output::Transmit(bytes) => match first.take() {
                None if batch.is_empty() => first = Some(bytes),
                earlier => {
                    if let Some(earlier) = earlier {
                        batch.extend_from_slice(&earlier);
                    }
                    batch.extend_from_slice(&bytes);
                }
            },
            Output::Invoke(invocation) => {
                // Answered at once: completing is an input like any other,
                // and this loop goes on draining.
                if let Some((call, outcome)) = calls.start(invocation) {
                    let _ = conn.complete(call, outcome, clock.now());
                }
            }
            Output::Cancel(call) => calls.cancel(call),
            Output::Close => {
                closed = true;
                break;
            }
        }
    }
    let out: &[u8] = match &first {
        Some(bytes) => bytes,
        None => &batch,
    };
    if !out.is_empty() {
        writer.write_all(out).await?;
        writer.flush().await?;
    }
    Ok(closed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use smol::{Async, Executor};
    use snodo_proto::{CallToolResult, Context, Limits, NoArgs, Service, Tool};
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::pin::Pin;
    use std::sync::{mpsc, Arc, Mutex};
    use std::task::Poll;

    /// Takes `ok` writes (keeping their bytes), then fails every one as a
    /// reset socket does, and notes when it first failed.
    struct FailingWriter {
        ok: usize,
        written: Arc<Mutex<Vec<u8>>>,
        failed_at: Arc<Mutex<Option<Instant>>>,
    }

    impl AsyncWrite for FailingWriter {
        fn poll_write(
            mut self: Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            if self.ok == 0 {
                self.failed_at
                    .lock()
                    .unwrap()
                    .get_or_insert_with(Instant::now);
                return Poll::Ready(Err(io::ErrorKind::ConnectionReset.into()));
            }
            self.ok -= 1;
            self.written.lock().unwrap().extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }

        fn poll_flush(
            self: Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_close(
            self: Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    /// Sends when its call's future is dropped, and whether it was cancelled.
    struct DropReport(Context, mpsc::Sender<(Instant, bool)>);

    impl Drop for DropReport {
        fn drop(&mut self) {
            let _ = self.1.send((Instant::now(), self.0.is_cancelled()));
        }
    }

    fn post(session: Option<&str>, body: &str) -> String {
        let sid = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n{sid}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    }

    /// A write that fails on HTTP is the client going away, as a hang-up
    /// is: a 2025-11-25 session's call is not cancelled by it and runs on
    /// (here until its 1 s call timeout), where the connection used to fail
    /// and drop it at once.
    #[test]
    fn an_http_write_failure_does_not_cancel_a_session_call() {
        let (dropped_tx, dropped) = mpsc::channel();
        let service = Service::builder()
            .limits(Limits {
                call_timeout: Some(Duration::from_secs(1)),
                ..Limits::default()
            })
            .tool(
                Tool::new("wait", "Reports progress, then never answers"),
                move |_: NoArgs, ctx: Context| {
                    let tx = dropped_tx.clone();
                    async move {
                        ctx.progress(1.0, None, None);
                        let _report = DropReport(ctx, tx);
                        future::pending::<()>().await;
                        CallToolResult::text("unreachable")
                    }
                },
            )
            .build()
            .unwrap();
        // The first write (the initialize response) goes through; the
        // second (the call's progress event) fails.
        let written = Arc::new(Mutex::new(Vec::new()));
        let failed_at = Arc::new(Mutex::new(None));
        let writer = FailingWriter {
            ok: 1,
            written: written.clone(),
            failed_at: failed_at.clone(),
        };
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let ex = Arc::new(Executor::new());
        let clock = Clock::new();
        let driver = Driver {
            conn: Connection::new(&service, Transport::Http, clock.now()),
            calls: Calls::new(ex.clone(), 64),
            clock,
            shutdown: None,
            read_buffer: 4096,
            grace: Duration::from_secs(5),
        };
        // The client: initialize, read the session id the connection
        // wrote, call. It keeps its socket open, so only the failed write
        // tells the connection that the client is gone.
        let peer = std::thread::spawn(move || {
            let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
            client.write_all(post(None, init).as_bytes()).unwrap();
            let sid = loop {
                std::thread::sleep(Duration::from_millis(5));
                let head = String::from_utf8_lossy(&written.lock().unwrap()).into_owned();
                if let Some(sid) = head
                    .lines()
                    .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
                {
                    break sid.to_owned();
                }
            };
            let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","_meta":{"progressToken":"p"}}}"#;
            client.write_all(post(Some(&sid), call).as_bytes()).unwrap();
            client
        });
        let run = driver.run(Async::new(server).unwrap(), writer);
        smol::block_on(ex.run(run)).expect("the connection ends once its call has");
        let ended = Instant::now();
        let failed = failed_at.lock().unwrap().expect("the second write failed");
        assert!(
            ended.duration_since(failed) >= Duration::from_millis(500),
            "the connection went on for its call after the failed write ({:?})",
            ended.duration_since(failed)
        );
        // The cancelled task's future is dropped with its executor.
        drop(ex);
        let (_, cancelled) = dropped
            .recv_timeout(Duration::from_secs(1))
            .expect("the call's future was dropped");
        assert!(cancelled, "by its timeout");
        drop(peer.join().unwrap());
    }
}
