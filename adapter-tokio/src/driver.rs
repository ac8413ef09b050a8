//! The loop that drives one [`Connection`] over a byte stream: bytes and
//! time in, bytes out, handler calls run on their own tasks.
//!
//! The driving contract (`proto/src/connection.rs`): after every input,
//! drain `poll_output` until `None`; then wait for input, a handler report,
//! the next deadline, or write progress, whichever comes first. Input is
//! read only while the connection wants it and the output backlog is under
//! its high-water mark.

use std::io;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};
use tokio::sync::watch;
use tokio::time::Instant as TokioInstant;

use snodo_proto::{Connection, Output, Service, Transport};

use crate::calls::{Calls, Report};
use crate::clock::Clock;
use crate::options::Options;
use crate::outbox::Outbox;

/// The server-wide shutdown signal, as one connection sees it.
pub(crate) struct Stop(Option<watch::Receiver<bool>>);

impl Stop {
    /// A connection that only ends by itself (stdio).
    pub(crate) fn never() -> Self {
        Stop(None)
    }

    pub(crate) fn on(rx: watch::Receiver<bool>) -> Self {
        Stop(Some(rx))
    }

    /// Resolves once shutdown is requested; never if no one can request it.
    async fn requested(mut self) {
        if let Some(rx) = &mut self.0 {
            if rx.wait_for(|stop| *stop).await.is_ok() {
                return;
            }
        }
        std::future::pending().await
    }
}

/// Serve one connection until it closes, fails, or winds down.
pub(crate) async fn drive<R, W>(
    service: &Service,
    transport: Transport,
    mut reader: R,
    mut writer: W,
    options: &Options,
    stop: Stop,
) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let clock = Clock::start();
    let mut conn = Connection::new(service, transport, clock.now());
    let mut calls = Calls::new(options.report_capacity);
    let mut out = Outbox::default();
    let mut buf = vec![0_u8; options.read_chunk_bytes.max(1)];

    let mut input_open = true;
    // `Output::Close` was emitted: write what is left, then close.
    let mut closed = false;
    // Server shutdown: read nothing more, end once no call is left.
    let mut stopping = false;
    // While winding down (end of input, or shutdown), calls must finish by this.
    let mut grace_until: Option<TokioInstant> = None;

    let timer = tokio::time::sleep_until(TokioInstant::now());
    tokio::pin!(timer);
    // One wait on the shutdown signal for the connection's life: a new one
    // per event would join and leave the signal's waiter list every time.
    let stop = stop.requested();
    tokio::pin!(stop);
    let mut armed: Option<TokioInstant> = None;

    loop {
        while let Some(output) = conn.poll_output() {
            match output {
                Output::Transmit(bytes) => out.push(bytes),
                Output::Invoke(invocation) => {
                    // Answered at once: completing here is an input like
                    // any other, and this loop goes on draining.
                    if let Some((call, outcome)) = calls.start(invocation) {
                        let _ = conn.complete(call, outcome, clock.now());
                    }
                }
                Output::Cancel(call) => calls.cancel(call),
                Output::Close => closed = true,
            }
        }
        if closed && out.is_idle() {
            break;
        }
        if stopping && conn.in_flight() == 0 && conn.queued() == 0 && out.is_idle() {
            break;
        }

        let wake = earliest(
            conn.poll_timeout().and_then(|t| clock.to_tokio(t)),
            grace_until,
        );
        // The timer only ever moves earlier. A deadline that moved later
        // (each keep-alive request pushes its connection's) is left to fire
        // early: `handle_timeout` acts only on what is due, and the loop
        // then arms the next one. Resetting it per request would move it in
        // the timer wheel per request.
        if let Some(at) = wake.filter(|&at| armed.is_none_or(|armed| at < armed)) {
            timer.as_mut().reset(at);
            armed = Some(at);
        }

        let below_high_water = out.queued() < options.write_high_water;
        let read_more =
            input_open && !closed && !stopping && conn.wants_input() && below_high_water;

        tokio::select! {
            read = reader.read(&mut buf), if read_more => match read {
                Ok(0) => {
                    input_open = false;
                    input_ended(&mut conn, &clock, &mut grace_until, options);
                }
                Ok(n) => conn.handle_input(&buf[..n], clock.now()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    tracing::debug!(error = %e, "read failed; treating it as end of input");
                    input_open = false;
                    input_ended(&mut conn, &clock, &mut grace_until, options);
                }
            },
            report = calls.next(), if below_high_water => match report {
                Report::Done(call, outcome) => {
                    // Err: the call was cancelled or timed out meanwhile; its
                    // late outcome is dropped by design.
                    let _ = conn.complete(call, outcome, clock.now());
                }
                Report::Event(call, event) => conn.call_event(call, event, clock.now()),
            },
            written = out.step(&mut writer), if !out.is_idle() => match written {
                Ok(()) => {}
                // An HTTP client that cannot be written to has gone, like
                // one that closed its side.
                Err(e) if transport == Transport::Http => {
                    tracing::debug!(error = %e, "write failed; the client is gone");
                    out.discard();
                    input_open = false;
                    input_ended(&mut conn, &clock, &mut grace_until, options);
                }
                Err(e) => return Err(e),
            },
            () = &mut timer, if armed.is_some() => {
                armed = None;
                if grace_until.is_some_and(|g| g <= TokioInstant::now()) {
                    tracing::warn!(
                        running = calls.running(),
                        "shutdown grace expired; cancelling the calls still running"
                    );
                    break;
                }
                conn.handle_timeout(clock.now());
            },
            // Change events from the service's hub, for listen streams; not
            // polled while the write backlog is high, so the hub's bounded
            // queue (and its overflow policy) absorbs a slow reader.
            () = std::future::poll_fn(|cx| conn.poll_changes(cx)), if below_high_water && !closed => {
                conn.handle_changes(clock.now());
            },
            () = &mut stop, if !stopping => {
                stopping = true;
                // proto answers what is in progress, ends listen streams
                // gracefully, and reads nothing more.
                conn.begin_shutdown(clock.now());
                grace_until.get_or_insert(TokioInstant::now() + options.shutdown_grace);
            },
        }
    }

    // Abort whatever still runs before spending time on the close.
    drop(calls);
    close(
        &mut out,
        &mut writer,
        input_open.then_some(&mut reader),
        &mut buf,
        options,
    )
    .await
}

/// Write the last bytes and shut the writer; then read and discard what
/// the peer still sends, until its EOF, so closing a socket with unread
/// input does not reset it and destroy the response in flight (RFC 9112
/// § 9.6, "tear-down"). Both are bounded by `close_linger`.
async fn close<R, W>(
    out: &mut Outbox,
    writer: &mut W,
    reader: Option<&mut R>,
    buf: &mut [u8],
    options: &Options,
) -> io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let deadline = TokioInstant::now() + options.close_linger;
    match tokio::time::timeout_at(deadline, out.finish(writer)).await {
        Ok(result) => result?,
        Err(_) => {
            tracing::debug!(
                unwritten = out.queued(),
                "peer did not take the last bytes in time"
            );
            return Ok(());
        }
    }
    if let Some(reader) = reader {
        let discard = async {
            while let Ok(n) = reader.read(buf).await {
                if n == 0 {
                    break;
                }
            }
        };
        let _ = tokio::time::timeout_at(deadline, discard).await;
    }
    Ok(())
}

/// The peer closed its side or went away. On stdio the connection winds
/// down: calls in flight are answered within the grace period. On HTTP the
/// client left: proto cancels its calls, or lets an initialize-era
/// session's run to their own deadline (2025-11-25 `transports.mdx`: a
/// disconnection is not a cancellation), so no grace applies.
fn input_ended(
    conn: &mut Connection,
    clock: &Clock,
    grace_until: &mut Option<TokioInstant>,
    options: &Options,
) {
    conn.handle_input_closed(clock.now());
    if conn.transport() == Transport::Stdio {
        grace_until.get_or_insert(TokioInstant::now() + options.shutdown_grace);
    }
}

fn earliest(a: Option<TokioInstant>, b: Option<TokioInstant>) -> Option<TokioInstant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use snodo_proto::{CallToolResult, Context, Limits, NoArgs, Tool};
    use std::pin::Pin;
    use std::sync::{mpsc, Arc, Mutex};
    use std::task::Poll;
    use std::time::{Duration, Instant};
    use tokio::io::AsyncWriteExt;

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

        fn poll_shutdown(
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
    #[tokio::test]
    async fn an_http_write_failure_does_not_cancel_a_session_call() {
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
                        std::future::pending::<()>().await;
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
        let (mut client, reader) = tokio::io::duplex(64 * 1024);
        let driven = tokio::spawn(async move {
            drive(
                &service,
                Transport::Http,
                reader,
                writer,
                &Options::default(),
                Stop::never(),
            )
            .await
        });
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        client.write_all(post(None, init).as_bytes()).await.unwrap();
        let sid = loop {
            tokio::time::sleep(Duration::from_millis(5)).await;
            let head = String::from_utf8_lossy(&written.lock().unwrap()).into_owned();
            if let Some(sid) = head
                .lines()
                .find_map(|l| l.strip_prefix("Mcp-Session-Id: "))
            {
                break sid.to_owned();
            }
        };
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","_meta":{"progressToken":"p"}}}"#;
        client
            .write_all(post(Some(&sid), call).as_bytes())
            .await
            .unwrap();
        let (at, cancelled) = tokio::task::spawn_blocking(move || {
            dropped
                .recv_timeout(Duration::from_secs(5))
                .expect("the call ends by its timeout")
        })
        .await
        .unwrap();
        let failed = failed_at.lock().unwrap().expect("the second write failed");
        assert!(cancelled);
        assert!(
            at.duration_since(failed) >= Duration::from_millis(500),
            "the call ran on after the failed write ({:?})",
            at.duration_since(failed)
        );
        tokio::time::timeout(Duration::from_secs(5), driven)
            .await
            .expect("the connection ends once its call has")
            .unwrap()
            .unwrap();
        drop(client);
    }
}
