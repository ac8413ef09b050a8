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
use snodo_proto::{Connection, Output};
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
        loop {
            if drain(&mut conn, &mut calls, &clock, &mut writer).await? {
                break;
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
                    grace_until.get_or_insert_with(|| Instant::now() + grace);
                    conn.handle_input_closed(now);
                }
                Event::Read(Ok(_)) if draining => {}
                Event::Read(Ok(n)) => conn.handle_input(&buf[..n], now),
                Event::Read(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Event::Read(Err(e)) => {
                    tracing::debug!(error = %e, "read failed: treating it as end of input");
                    reading = false;
                    grace_until.get_or_insert_with(|| Instant::now() + grace);
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
