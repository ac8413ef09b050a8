//! The loop that drives one [`Connection`] over a byte stream, on any
//! [`Runtime`]. It follows the driving contract of `snodo-proto` and
//! decides nothing of its own: bytes, time and handler tasks in, bytes out.

use std::future::poll_fn;
use std::io;
use std::task::Poll;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use snodo_proto::time::Clock;
use snodo_proto::{Connection, Output, Service, Transport};

use crate::options::Options;
use crate::outbox::Outbox;
use crate::runtime::{Read, Runtime, Timer, Write};
use crate::server::Place;

/// The wall-clock-plus-monotonic clock on `rt`'s monotonic clock.
pub(crate) fn clock<R: Runtime>(rt: &R) -> Clock {
    let wall = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    Clock::anchored(wall, rt.now())
}

enum Event {
    Stop,
    Shed,
    Timer,
    Changes,
    Routed,
    Written(io::Result<()>),
    Read(io::Result<usize>),
}

/// Serve one connection until it closes. `Err` only for a stdio stream that
/// failed (on HTTP a failed read or write is the client leaving).
pub(crate) async fn drive<R, I, O>(
    rt: &R,
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
    let clock = clock(rt);
    let now = || clock.at(rt.now());
    let mut conn = Connection::new(service, transport, now());
    let mut out = Outbox::default();
    let chunk = options.read_buffer.max(1);
    let mut timer = rt.timer(rt.now());
    let mut armed: Option<Instant> = None;
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
            match output {
                Output::Transmit(bytes) => out.push(bytes),
                Output::Invoke(invocation) => {
                    let mut task = conn.task(invocation);
                    // Most handlers are ready at once: answered here, with
                    // no task and no wake-up.
                    match task.poll_inline() {
                        Some(outcome) => {
                            let _ = conn.complete(task.call(), outcome, now());
                        }
                        None => rt.spawn(task),
                    }
                }
                // proto has set the call's flag, which ends its task.
                Output::Cancel(_) => {}
                Output::Close => closed = true,
                // Only a connection made for one parsed request answers
                // with a head of its own (`crate::Exchange`).
                Output::Respond(_) => {}
            }
        }
        if closed {
            break;
        }

        // The timer only ever moves earlier. A deadline that moved later
        // (each keep-alive request pushes its connection's) is left to fire
        // early: `handle_timeout` acts only on what is due, and the loop
        // then arms the next one.
        let wake = conn.poll_timeout().and_then(|t| clock.monotonic(t));
        if let Some(at) = wake.filter(|&at| armed.is_none_or(|armed| at < armed)) {
            timer.reset(at);
            armed = Some(at);
        }
        // And after: the answers just drained may have left it idle.
        if let Some(place) = &place {
            place.seat.set_idle(conn.idle_since());
        }
        let below_high_water = out.queued() + writer.buffered() < options.write_high_water;
        let read_more =
            input_open && below_high_water && (conn.wants_input() || conn.watches_hangup());

        let event = poll_fn(|cx| {
            if let Some(place) = place.as_mut() {
                if !stopping && place.stop.poll(cx).is_ready() {
                    return Poll::Ready(Event::Stop);
                }
                if !shed && place.shed.poll(cx).is_ready() {
                    return Poll::Ready(Event::Shed);
                }
            }
            if armed.is_some() && timer.poll_fired(cx).is_ready() {
                return Poll::Ready(Event::Timer);
            }
            // Reports from the connection's calls and change events for its
            // listen streams; not taken while the write backlog is high, so
            // the bounds in proto and the hub absorb a slow reader.
            if below_high_water && conn.poll_changes(cx).is_ready() {
                return Poll::Ready(Event::Changes);
            }
            // A session's cancellation routed from another connection
            // stops its call even while this client reads nothing.
            if !below_high_water && conn.poll_routed(cx).is_ready() {
                return Poll::Ready(Event::Routed);
            }
            if !out.is_idle() {
                if let Poll::Ready(r) = out.poll_step(&mut writer, cx) {
                    return Poll::Ready(Event::Written(r));
                }
            }
            if read_more {
                let mut feed = |bytes: &[u8]| {
                    if !bytes.is_empty() {
                        conn.handle_input(bytes, now());
                    }
                };
                if let Poll::Ready(r) = reader.poll_read_with(cx, chunk, &mut feed) {
                    return Poll::Ready(Event::Read(r));
                }
            }
            Poll::Pending
        })
        .await;

        match event {
            Event::Stop => {
                stopping = true;
                conn.begin_shutdown(now());
            }
            Event::Shed => {
                shed = true;
                conn.shed(now());
            }
            Event::Timer => {
                armed = None;
                conn.handle_timeout(now());
            }
            Event::Changes => conn.handle_changes(now()),
            Event::Routed => conn.handle_routed(now()),
            Event::Written(Ok(())) => {}
            Event::Written(Err(e)) => {
                tracing::debug!(error = %e, "write failed; the client is gone");
                out.discard();
                conn.handle_write_failed(now());
                if transport == Transport::Stdio {
                    stream_error = Some(e);
                }
            }
            Event::Read(Ok(0)) => {
                input_open = false;
                conn.handle_input_closed(now());
            }
            // Fed to the connection as they were read.
            Event::Read(Ok(_)) => {}
            Event::Read(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
            Event::Read(Err(e)) => {
                tracing::debug!(error = %e, "read failed; treating it as end of input");
                input_open = false;
                conn.handle_input_closed(now());
                if transport == Transport::Stdio {
                    stream_error.get_or_insert(e);
                }
            }
        }
    }

    let closing = conn.closing();
    // Cancels whatever still runs before time is spent on the close.
    drop(conn);
    let reader = (closing.discard_input && input_open).then_some(&mut reader);
    let closed = close(rt, &mut out, &mut writer, reader, chunk, closing.linger).await;
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
