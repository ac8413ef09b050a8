//! The loop that drives one [`Connection`] over a byte stream, on any
//! [`Runtime`]. It follows the driving contract of `snodo-proto` and
//! decides nothing of its own: bytes, time and handler tasks in, bytes out.

use std::future::poll_fn;
use std::io;
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use snodo_proto::time::Clock;
use snodo_proto::{Connection, Output, Service, Transport};

use crate::options::Options;
use crate::outbox::Outbox;
use crate::runtime::{Read, Runtime, Timer, Write};
use crate::server::Place;

/// What every loop over a [`Connection`] shares, whether it serves a byte
/// stream ([`drive`]) or one parsed request ([`HostRequest`](crate::HostRequest)):
/// the runtime, the wall-clock-plus-monotonic clock on its monotonic
/// clock, and a timer at the connection's next deadline.
pub(crate) struct Core<R: Runtime> {
    pub(crate) rt: R,
    clock: Clock,
    timer: R::Timer,
    armed: Option<Instant>,
}

impl<R: Runtime> Core<R> {
    pub(crate) fn new(rt: R) -> Self {
        let wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let (clock, timer) = (Clock::anchored(wall, rt.now()), rt.timer(rt.now()));
        Core {
            rt,
            clock,
            timer,
            armed: None,
        }
    }

    /// The same runtime and clock, with a timer of its own.
    pub(crate) fn fork(&self) -> Self {
        let timer = self.rt.timer(self.rt.now());
        Core {
            rt: self.rt.clone(),
            clock: self.clock,
            timer,
            armed: None,
        }
    }

    pub(crate) fn now(&self) -> snodo_proto::Instant {
        self.clock.at(self.rt.now())
    }

    /// Carry out what only the runtime can; hand back what is left (bytes,
    /// a response head, the close). A call is answered inline when its
    /// handler is ready at once (most are: no task, no wake-up) and spawned
    /// otherwise; a cancellation needs nothing (proto has set the call's
    /// flag, which ends its task).
    pub(crate) fn carry(&self, conn: &mut Connection, output: Output) -> Option<Output> {
        match output {
            Output::Invoke(invocation) => {
                let mut task = conn.task(invocation);
                match task.poll_inline() {
                    Some(outcome) => {
                        let _ = conn.complete(task.call(), outcome, self.now());
                    }
                    None => self.rt.spawn(task),
                }
                None
            }
            Output::Cancel(_) => None,
            other => Some(other),
        }
    }

    /// Ready once the connection's next deadline has come and
    /// `handle_timeout` has run. The timer only ever moves earlier: a
    /// deadline that moved later (each keep-alive request pushes its
    /// connection's) is left to fire early, `handle_timeout` acts only on
    /// what is due, and the next poll arms the next one.
    pub(crate) fn poll_timer(&mut self, conn: &mut Connection, cx: &mut Context<'_>) -> Poll<()> {
        let wake = conn.poll_timeout().and_then(|t| self.clock.monotonic(t));
        if let Some(at) = wake.filter(|&at| self.armed.is_none_or(|armed| at < armed)) {
            self.timer.reset(at);
            self.armed = Some(at);
        }
        if self.armed.is_none() || self.timer.poll_fired(cx).is_pending() {
            return Poll::Pending;
        }
        self.armed = None;
        conn.handle_timeout(self.now());
        Poll::Ready(())
    }
}

/// Serve one connection until it closes. `Err` only for a stdio stream that
/// failed (on HTTP a failed read or write is the client leaving).
pub(crate) async fn drive<R, I, O>(
    rt: R,
    service: &Service,
    transport: Transport,
    mut reader: I,
    mut writer: O,
    options: &Options,
    mut place: Option<Place>,
) -> io::Result<()>
where
    R: Runtime,
    I: Read,
    O: Write,
{
    let mut core = Core::new(rt);
    let mut conn = Connection::new(service, transport, core.now());
    conn.set_executor(core.rt.executor());
    let mut out = Outbox::default();
    let chunk = options.read_buffer.max(1);
    let mut input_open = true;
    let (mut stopping, mut shed) = (false, false);
    // On stdio the caller learns why its stream failed, once the calls in
    // flight were answered (a read error) or given up (a write error).
    let mut stream_error: Option<io::Error> = None;

    loop {
        // Before a new call's task is spawned: the server must not take a
        // connection that has just become busy for an idle one.
        if let Some(place) = &place {
            place.seat.set_idle(conn.idle_since());
        }
        let mut closed = false;
        while let Some(output) = conn.poll_output() {
            match core.carry(&mut conn, output) {
                Some(Output::Transmit(bytes)) => out.push(bytes),
                Some(Output::Close) => closed = true,
                // Only a connection made for one parsed request answers
                // with a head of its own (`crate::HostRequest`).
                _ => {}
            }
        }
        if closed {
            break;
        }
        // And after: the answers just drained may have left it idle.
        if let Some(place) = &place {
            place.seat.set_idle(conn.idle_since());
        }

        // Wait for one input, hand it to the connection, and go drain what
        // it caused.
        poll_fn(|cx| {
            // Write what waits, as far as the peer takes it.
            while !out.is_idle() {
                let Poll::Ready(written) = out.poll_step(&mut writer, cx) else {
                    break;
                };
                if let Err(e) = written {
                    tracing::debug!(error = %e, "write failed; the client is gone");
                    out.discard();
                    conn.handle_write_failed(core.now());
                    if transport == Transport::Stdio {
                        stream_error = Some(e);
                    }
                    return Poll::Ready(());
                }
            }
            if let Some(place) = place.as_mut() {
                if !stopping && place.stop.poll(cx).is_ready() {
                    stopping = true;
                    conn.begin_shutdown(core.now());
                    return Poll::Ready(());
                }
                if !shed && place.seat.poll_shed(cx).is_ready() {
                    shed = true;
                    conn.shed(core.now());
                    return Poll::Ready(());
                }
            }
            if core.poll_timer(&mut conn, cx).is_ready() {
                return Poll::Ready(());
            }
            // Reports from the connection's calls and change events for its
            // listen streams; not taken while the write backlog is high, so
            // the bounds in proto and the hub absorb a slow reader.
            let below_high_water = out.queued() < options.write_high_water;
            if below_high_water && conn.poll_changes(cx).is_ready() {
                conn.handle_changes(core.now());
                return Poll::Ready(());
            }
            // A session's cancellation routed from another connection
            // stops its call even while this client reads nothing.
            if !below_high_water && conn.poll_routed(cx).is_ready() {
                conn.handle_routed(core.now());
                return Poll::Ready(());
            }
            if !(input_open && below_high_water && (conn.wants_input() || conn.watches_hangup())) {
                return Poll::Pending;
            }
            let mut feed = |bytes: &[u8]| {
                if !bytes.is_empty() {
                    conn.handle_input(bytes, core.now());
                }
            };
            let error = match reader.poll_read_with(cx, chunk, &mut feed) {
                Poll::Pending => return Poll::Pending,
                // Fed to the connection as they were read.
                Poll::Ready(Ok(n)) if n > 0 => return Poll::Ready(()),
                Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {
                    return Poll::Ready(())
                }
                Poll::Ready(Ok(_)) => None,
                Poll::Ready(Err(e)) => {
                    tracing::debug!(error = %e, "read failed; treating it as end of input");
                    Some(e)
                }
            };
            input_open = false;
            conn.handle_input_closed(core.now());
            if let (Transport::Stdio, Some(e)) = (transport, error) {
                stream_error.get_or_insert(e);
            }
            Poll::Ready(())
        })
        .await;
    }

    let closing = conn.closing();
    // Cancels whatever still runs before time is spent on the close.
    drop(conn);
    let reader = (closing.discard_input && input_open).then_some(&mut reader);
    let closed = close(
        &core.rt,
        &mut out,
        &mut writer,
        reader,
        chunk,
        closing.linger,
    )
    .await;
    match stream_error {
        Some(e) => Err(e),
        None => closed,
    }
}

/// Write the last bytes and shut the output; then read and discard what
/// the peer still sends until its EOF, so closing a socket with unread
/// input does not reset it and destroy the response in flight. Both
/// within `linger`.
async fn close<R, I, O>(
    rt: &R,
    out: &mut Outbox,
    writer: &mut O,
    mut reader: Option<&mut I>,
    chunk: usize,
    linger: Duration,
) -> io::Result<()>
where
    R: Runtime,
    I: Read,
    O: Write,
{
    let mut timer = rt.timer(rt.now() + linger);
    let finished = poll_fn(|cx| {
        if let Poll::Ready(r) = out.poll_finish(writer, cx) {
            return Poll::Ready(Some(r));
        }
        timer.poll_fired(cx).map(|()| None)
    })
    .await;
    match finished {
        Some(result) => result?,
        None => {
            tracing::debug!(
                unwritten = out.queued(),
                "peer did not take the last bytes in time"
            );
            return Ok(());
        }
    }
    if let Some(reader) = reader.as_mut() {
        poll_fn(|cx| loop {
            if timer.poll_fired(cx).is_ready() {
                return Poll::Ready(());
            }
            match reader.poll_read_with(cx, chunk, &mut |_| {}) {
                Poll::Ready(Ok(0)) | Poll::Ready(Err(_)) => return Poll::Ready(()),
                Poll::Ready(Ok(_)) => continue,
                Poll::Pending => return Poll::Pending,
            }
        })
        .await;
    }
    Ok(())
}
