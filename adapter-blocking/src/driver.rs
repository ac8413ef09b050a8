//! The driver: owns the [`Connection`] and follows its driving contract
//! (`proto` `connection.rs`): feed it one event, drain `poll_output` until
//! `None`, decide whether to read more, then sleep until the next event or
//! `poll_timeout`.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use snodo_proto::{CallId, Connection, Output, Service, Transport};

use crate::changes::Changes;
use crate::clock::Clock;
use crate::event::Event;
use crate::exec::JobState;
use crate::gate::ReadGate;
use crate::pool::{Job, Pool};
use crate::reader;
use crate::registry::StopFlag;
use crate::sink::ChannelSink;
use crate::writer::{Backlog, WriterHandle};

/// Room in the driver's queue besides one completion per call that can run
/// at once: handlers' reports beyond it are dropped (see `sink.rs`),
/// everything else waits.
const EVENT_QUEUE_SLACK: usize = 256;

/// The driver's queue: every other thread of the connection sends to it.
pub(crate) struct Mailbox {
    pub(crate) tx: SyncSender<Event>,
    rx: Receiver<Event>,
}

impl Mailbox {
    /// A queue for a connection that runs at most `calls` calls at once.
    pub(crate) fn new(calls: usize) -> Self {
        let (tx, rx) = mpsc::sync_channel(calls + EVENT_QUEUE_SLACK);
        Mailbox { tx, rx }
    }
}

/// How one connection is run, whatever its stream.
pub(crate) struct Settings {
    /// Bytes asked of the reader per `read`.
    pub(crate) read_chunk_bytes: usize,
    /// Writer backlog above which input and reports pause.
    pub(crate) write_high_water: usize,
    /// How long calls may run once the connection winds down (end of input
    /// on stdio, server shutdown on HTTP) before they are cancelled.
    pub(crate) grace: Duration,
    /// Once the connection is done, how long flushing the last bytes (and on
    /// a socket, reading what the peer still sends) may take.
    pub(crate) linger: Duration,
}

/// What a connection is plugged into besides its stream.
pub(crate) struct Wiring {
    pub(crate) transport: Transport,
    pub(crate) pool: Arc<Pool>,
    pub(crate) mailbox: Mailbox,
    /// The server's shutdown signal; `None` where only end of input ends
    /// the connection (stdio).
    pub(crate) stop: Option<StopFlag>,
    pub(crate) settings: Settings,
}

struct Driver<'s> {
    conn: Connection,
    clock: Clock,
    events: Receiver<Event>,
    gate: Arc<ReadGate>,
    backlog: Arc<Backlog>,
    writer: WriterHandle,
    pool: Arc<Pool>,
    sink: Arc<ChannelSink>,
    changes: Changes,
    jobs: HashMap<CallId, Arc<JobState>>,
    /// A permit is out and its chunk (or EOF) has not come back yet.
    reading: bool,
    input_done: bool,
    read_error: Option<io::Error>,
    /// The writer failed on an HTTP connection (the client is gone) and
    /// the connection went on for calls that outlive it.
    write_error: Option<io::Error>,
    stop: Option<StopFlag>,
    stopping: bool,
    settings: Settings,
    /// When calls still running are abandoned (after EOF or a shutdown).
    shutdown_at: Option<Instant>,
    /// Half-closed once everything is written (`None` on stdio).
    socket: Option<&'s TcpStream>,
}

/// How the main loop ended.
enum End {
    /// The connection emitted `Output::Close`.
    Closed,
    /// The shutdown grace period ran out with calls still running.
    GraceExpired,
}

/// Serve one connection on `input` and `output` until it closes. With a
/// `socket` (the stream `input` and `output` read and write), its sending
/// side is shut once everything is written, and input is drained for up to
/// [`Settings::linger`] so the close does not reset a response in flight.
pub(crate) fn run<R, W>(
    service: &Service,
    input: R,
    output: W,
    socket: Option<&TcpStream>,
    wiring: Wiring,
) -> io::Result<()>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let Wiring {
        transport,
        pool,
        mailbox: Mailbox { tx, rx },
        stop,
        settings,
    } = wiring;
    let clock = Clock::start();
    let gate = Arc::new(ReadGate::default());
    let backlog = Arc::new(Backlog::new(settings.write_high_water));
    let sink = Arc::new(ChannelSink {
        events: tx.clone(),
        backlog: Arc::clone(&backlog),
    });
    let changes = Changes::new(tx.clone());
    let writer = WriterHandle::spawn(output, Arc::clone(&backlog), tx.clone())?;
    // The reader is never joined: it may sit in a blocking `read` forever
    // (stdin of a parent that never closes it), and that must not keep
    // `serve` from returning once output is done. A socket's reader is
    // released by the caller shutting the socket down.
    if let Err(e) = reader::spawn(input, settings.read_chunk_bytes, Arc::clone(&gate), tx) {
        gate.close();
        return Err(e);
    }
    let mut driver = Driver {
        conn: Connection::new(service, transport, clock.now()),
        clock,
        events: rx,
        gate,
        backlog,
        writer,
        pool,
        sink,
        changes,
        jobs: HashMap::new(),
        reading: false,
        input_done: false,
        read_error: None,
        write_error: None,
        stop,
        stopping: false,
        settings,
        shutdown_at: None,
        socket,
    };
    driver.serve()
}

impl Driver<'_> {
    fn serve(&mut self) -> io::Result<()> {
        match self.main_loop()? {
            End::Closed => {}
            End::GraceExpired => {
                tracing::warn!(
                    calls = self.jobs.len(),
                    grace_ms = u64::try_from(self.settings.grace.as_millis()).unwrap_or(u64::MAX),
                    "calls still running after the shutdown grace period; cancelling them"
                );
            }
        }
        self.cancel_all();
        let deadline = Instant::now() + self.settings.linger;
        self.flush_writer(deadline)?;
        if let Some(socket) = self.socket {
            self.linger(socket, deadline);
        }
        match self.write_error.take().or_else(|| self.read_error.take()) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn main_loop(&mut self) -> io::Result<End> {
        loop {
            self.check_stop();
            self.deliver_changes();
            if self.drain() {
                return Ok(End::Closed);
            }
            if self.shutdown_at.is_some_and(|t| Instant::now() >= t) {
                return Ok(End::GraceExpired);
            }
            self.update_read_permit();
            let event = match self.next_wake() {
                None => Some(self.events.recv().map_err(|_| channel_closed())?),
                Some(at) => match self
                    .events
                    .recv_timeout(at.saturating_duration_since(Instant::now()))
                {
                    Ok(e) => Some(e),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return Err(channel_closed()),
                },
            };
            if let Some(event) = event {
                self.handle(event)?;
            }
            let now = self.clock.now();
            if self.conn.poll_timeout().is_some_and(|d| d <= now) {
                self.conn.handle_timeout(now);
            }
        }
    }

    /// The earlier of the connection's next deadline and the shutdown deadline.
    fn next_wake(&self) -> Option<Instant> {
        let call_deadline = self.conn.poll_timeout().and_then(|d| self.clock.to_std(d));
        match (call_deadline, self.shutdown_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn handle(&mut self, event: Event) -> io::Result<()> {
        let now = self.clock.now();
        match event {
            Event::Input(bytes) => {
                self.reading = false;
                self.conn.handle_input(&bytes, now);
            }
            Event::Eof => {
                tracing::debug!("end of input");
                self.end_input();
            }
            Event::ReadError(e) => {
                // Returned by `serve`; logged here for when it is not seen.
                tracing::debug!(error = %e, "reading input failed; treating it as end of input");
                self.read_error = Some(e);
                self.end_input();
            }
            Event::Completed(call, outcome) => {
                self.jobs.remove(&call);
                // Refused only for a call that already ended (cancelled or
                // timed out): its outcome must not be written.
                if self.conn.complete(call, outcome, now).is_err() {
                    tracing::debug!(%call, "discarding the outcome of a call that already ended");
                }
            }
            Event::Report(call, e) => self.conn.call_event(call, e, now),
            Event::Drained | Event::Changes | Event::Stop => {}
            // An HTTP client that cannot be written to has gone, like one
            // that closed its side.
            Event::WriterClosed(Err(e))
                if self.conn.transport() == Transport::Http && self.write_error.is_none() =>
            {
                tracing::debug!(error = %e, "write failed; the client is gone");
                self.write_error = Some(e);
                self.writer.join();
                self.end_input();
            }
            Event::WriterClosed(Err(e)) => {
                tracing::debug!(error = %e, "writing output failed");
                return Err(e);
            }
            Event::WriterClosed(Ok(())) => {
                return Err(io::Error::other("the output writer stopped unexpectedly"))
            }
        }
        Ok(())
    }

    /// The peer closed its side or went away. On stdio the connection winds
    /// down: calls in flight are answered within the grace period. On HTTP
    /// the client left: proto cancels its calls, or lets an initialize-era
    /// session's run to their own deadline (2025-11-25 `transports.mdx`: a
    /// disconnection is not a cancellation), so no grace applies.
    fn end_input(&mut self) {
        self.reading = false;
        self.input_done = true;
        if self.conn.transport() == Transport::Stdio {
            self.start_grace();
        }
        self.conn.handle_input_closed(self.clock.now());
    }

    /// On the server's shutdown signal: the connection reads nothing more,
    /// answers what is in progress and closes; calls get the grace period.
    fn check_stop(&mut self) {
        if self.stopping || !self.stop.as_ref().is_some_and(StopFlag::is_raised) {
            return;
        }
        tracing::debug!("server shutting down; winding the connection down");
        self.stopping = true;
        self.start_grace();
        self.conn.begin_shutdown(self.clock.now());
    }

    /// Change events for listen streams, unless output is backed up: then
    /// the hub's bounded queue (and its overflow policy) absorbs them until
    /// the writer drains and wakes the driver.
    fn deliver_changes(&mut self) {
        if self.backlog.is_high() && self.backlog.notify_when_low() {
            return;
        }
        self.changes.deliver(&mut self.conn, self.clock.now());
    }

    fn start_grace(&mut self) {
        if self.shutdown_at.is_none() {
            self.shutdown_at = Instant::now().checked_add(self.settings.grace);
        }
    }

    /// Carry out everything the connection asks; `true` on `Output::Close`.
    fn drain(&mut self) -> bool {
        let mut closed = false;
        while let Some(out) = self.conn.poll_output() {
            match out {
                Output::Transmit(bytes) => self.writer.send(bytes),
                Output::Invoke(invocation) => {
                    let call = invocation.call;
                    let state = Arc::new(JobState::new(invocation.cancel_flag()));
                    self.jobs.insert(call, Arc::clone(&state));
                    self.pool.submit(Job {
                        call,
                        invocation,
                        state,
                        sink: Arc::clone(&self.sink),
                    });
                }
                Output::Cancel(call) => {
                    if let Some(state) = self.jobs.remove(&call) {
                        state.cancel();
                    }
                }
                Output::Close => closed = true,
            }
        }
        closed
    }

    /// Let the reader take one more chunk if the connection wants input and
    /// the writer is keeping up.
    fn update_read_permit(&mut self) {
        if self.input_done || self.reading || !self.conn.wants_input() {
            return;
        }
        if self.backlog.is_high() && self.backlog.notify_when_low() {
            tracing::debug!("output backlog is high; pausing input");
            return;
        }
        self.grant_read();
    }

    fn grant_read(&mut self) {
        self.reading = true;
        self.gate.grant();
    }

    fn cancel_all(&mut self) {
        for (_, state) in self.jobs.drain() {
            state.cancel();
        }
    }

    /// Close the writer's queue and wait, until `deadline` at most, for it
    /// to write and flush the rest.
    fn flush_writer(&mut self, deadline: Instant) -> io::Result<()> {
        self.writer.close();
        if self.write_error.is_some() {
            // It already stopped, and was joined.
            return Ok(());
        }
        loop {
            match self
                .events
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(Event::WriterClosed(result)) => {
                    self.writer.join();
                    return result;
                }
                // Late completions and reports of cancelled calls.
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    tracing::warn!("output was not flushed in time; dropping the rest");
                    return Ok(());
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            }
        }
    }

    /// Shut the socket's sending side (the peer sees the end of the
    /// response), then read and discard what the peer still sends until its
    /// EOF or `deadline`: closing a socket with unread input resets it, which
    /// can destroy the response before the peer reads it (RFC 9112 § 9.6).
    fn linger(&mut self, socket: &TcpStream, deadline: Instant) {
        if let Err(e) = socket.shutdown(Shutdown::Write) {
            tracing::debug!(error = %e, "could not shut down the sending side");
            return;
        }
        if self.input_done {
            return;
        }
        if !self.reading {
            self.grant_read();
        }
        loop {
            match self
                .events
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(Event::Input(_)) => self.grant_read(),
                Ok(Event::Eof | Event::ReadError(_)) | Err(_) => return,
                Ok(_) => {}
            }
        }
    }
}

/// However `serve` ends, a panic included: calls still running are
/// cancelled (freeing their workers), the reader is released and the
/// writer's queue closed.
impl Drop for Driver<'_> {
    fn drop(&mut self) {
        self.cancel_all();
        self.gate.close();
        self.writer.close();
    }
}

fn channel_closed() -> io::Error {
    io::Error::other("every thread feeding the driver stopped")
}

#[cfg(test)]
mod tests {
    use super::*;
    use snodo_proto::{CallToolResult, Context, Limits, NoArgs, Tool};
    use std::net::TcpListener;
    use std::sync::Mutex;

    /// Takes `ok` writes (keeping their bytes), then fails every one as a
    /// reset socket does, and notes when it first failed.
    struct FailingWriter {
        ok: usize,
        written: Arc<Mutex<Vec<u8>>>,
        failed_at: Arc<Mutex<Option<Instant>>>,
    }

    impl Write for FailingWriter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.ok == 0 {
                self.failed_at
                    .lock()
                    .unwrap()
                    .get_or_insert_with(Instant::now);
                return Err(io::ErrorKind::ConnectionReset.into());
            }
            self.ok -= 1;
            self.written.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
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
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let wiring = Wiring {
            transport: Transport::Http,
            pool: Arc::new(Pool::start(2).unwrap()),
            mailbox: Mailbox::new(4),
            stop: None,
            settings: Settings {
                read_chunk_bytes: 4096,
                write_high_water: 1 << 20,
                grace: Duration::from_secs(5),
                // Long, so that waiting on the writer that already
                // stopped would show in the time the connection takes.
                linger: Duration::from_secs(5),
            },
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
        let result = run(&service, server.try_clone().unwrap(), writer, None, wiring);
        let ended = Instant::now();
        let failed = failed_at.lock().unwrap().expect("the second write failed");
        assert_eq!(
            result.map_err(|e| e.kind()),
            Err(io::ErrorKind::ConnectionReset),
            "the failed write is still reported once the connection ends"
        );
        assert!(
            ended.duration_since(failed) >= Duration::from_millis(500),
            "the connection went on for its call after the failed write ({:?})",
            ended.duration_since(failed)
        );
        assert!(
            ended.duration_since(failed) < Duration::from_secs(3),
            "the connection ended soon after its call, not after the linger ({:?})",
            ended.duration_since(failed)
        );
        let (_, cancelled) = dropped
            .recv_timeout(Duration::from_secs(1))
            .expect("the call's future was dropped");
        assert!(cancelled, "by its timeout");
        drop(peer.join().unwrap());
        drop(server);
    }
}
