//! The driver: owns the [`Connection`] and follows its driving contract
//! (`proto` `connection.rs`): feed it one event, drain `poll_output` until
//! `None`, decide whether to read more, then sleep until the next event or
//! `poll_timeout`.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use snodo_proto::{CallId, Connection, Output, Service, Transport};

use crate::clock::Clock;
use crate::event::Event;
use crate::exec::JobState;
use crate::gate::ReadGate;
use crate::options::StdioOptions;
use crate::pool::{Job, Pool};
use crate::reader;
use crate::sink::ChannelSink;
use crate::writer::{Backlog, WriterHandle};

/// Room in the driver's queue besides one completion per worker: handlers'
/// reports beyond it are dropped (see `sink.rs`), everything else waits.
const EVENT_QUEUE_SLACK: usize = 256;

struct Driver {
    conn: Connection,
    clock: Clock,
    events: Receiver<Event>,
    gate: Arc<ReadGate>,
    backlog: Arc<Backlog>,
    writer: WriterHandle,
    pool: Pool,
    jobs: HashMap<CallId, Arc<JobState>>,
    /// A permit is out and its chunk (or EOF) has not come back yet.
    reading: bool,
    input_done: bool,
    read_error: Option<io::Error>,
    grace: Duration,
    /// When calls still running after EOF are abandoned.
    shutdown_at: Option<Instant>,
}

/// How the main loop ended.
enum End {
    /// The connection emitted `Output::Close`.
    Closed,
    /// The shutdown grace period ran out with calls still running.
    GraceExpired,
}

pub(crate) fn run<R, W>(
    service: &Service,
    input: R,
    output: W,
    options: StdioOptions,
) -> io::Result<()>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let clock = Clock::start();
    let workers = options.worker_count(service.limits());
    let (tx, rx) = mpsc::sync_channel(workers + EVENT_QUEUE_SLACK);
    let gate = Arc::new(ReadGate::default());
    let backlog = Arc::new(Backlog::new(options.write_high_water));
    let sink = Arc::new(ChannelSink {
        events: tx.clone(),
        backlog: Arc::clone(&backlog),
    });
    let pool = Pool::start(workers, sink, tx.clone())?;
    let writer = WriterHandle::spawn(output, Arc::clone(&backlog), tx.clone())?;
    // The reader is never joined: it may sit in a blocking `read` forever
    // (stdin of a parent that never closes it), and that must not keep
    // `serve` from returning once output is done.
    if let Err(e) = reader::spawn(input, options.read_chunk_bytes, Arc::clone(&gate), tx) {
        gate.close();
        return Err(e);
    }
    tracing::debug!(workers, "serving stdio");
    let mut driver = Driver {
        conn: Connection::new(service, Transport::Stdio, clock.now()),
        clock,
        events: rx,
        gate,
        backlog,
        writer,
        pool,
        jobs: HashMap::new(),
        reading: false,
        input_done: false,
        read_error: None,
        grace: options.shutdown_grace,
        shutdown_at: None,
    };
    let result = driver.serve();
    driver.stop_threads();
    result
}

impl Driver {
    fn serve(&mut self) -> io::Result<()> {
        match self.main_loop()? {
            End::Closed => {}
            End::GraceExpired => {
                tracing::warn!(
                    calls = self.jobs.len(),
                    grace_ms = u64::try_from(self.grace.as_millis()).unwrap_or(u64::MAX),
                    "calls still running after the shutdown grace period; cancelling them"
                );
            }
        }
        self.cancel_all();
        self.flush_writer()?;
        match self.read_error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn main_loop(&mut self) -> io::Result<End> {
        self.update_read_permit();
        loop {
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
            if self.drain() {
                return Ok(End::Closed);
            }
            if self.shutdown_at.is_some_and(|t| Instant::now() >= t) {
                return Ok(End::GraceExpired);
            }
            self.update_read_permit();
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
                tracing::error!(error = %e, "reading input failed; treating it as end of input");
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
            Event::Drained => {}
            Event::WriterClosed(Err(e)) => {
                tracing::error!(error = %e, "writing output failed");
                return Err(e);
            }
            Event::WriterClosed(Ok(())) => {
                return Err(io::Error::other("the output writer stopped unexpectedly"))
            }
        }
        Ok(())
    }

    fn end_input(&mut self) {
        self.reading = false;
        self.input_done = true;
        self.shutdown_at = Instant::now().checked_add(self.grace);
        self.conn.handle_input_closed(self.clock.now());
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
        self.reading = true;
        self.gate.grant();
    }

    fn cancel_all(&mut self) {
        for (_, state) in self.jobs.drain() {
            state.cancel();
        }
    }

    /// Close the writer's queue and wait, at most the grace period, for it
    /// to write and flush the rest.
    fn flush_writer(&mut self) -> io::Result<()> {
        self.writer.close();
        let deadline = Instant::now() + self.grace;
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
                    tracing::warn!("output was not flushed within the shutdown grace period");
                    return Ok(());
                }
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            }
        }
    }

    fn stop_threads(&mut self) {
        self.cancel_all();
        self.gate.close();
        self.pool.close();
        self.writer.close();
    }
}

fn channel_closed() -> io::Error {
    io::Error::other("every thread feeding the driver stopped")
}
