//! The per-connection state machine.
//!
//! A [`Connection`] owns everything one stdio stream or one HTTP/1.1
//! connection needs: framing state, the calls in flight and waiting, and the
//! bytes to write. It does no I/O and reads no clock; the driver feeds it
//! and drains it.
//!
//! On stdio, many requests are in flight at once and answered out of order,
//! each as one line. On HTTP, requests on one connection are answered in
//! order (pipelined requests wait, RFC 9112 § 9.3.2); each answer is a JSON
//! response, or an SSE stream when a notification (progress, log) precedes
//! the result (`streamable-http.mdx` § Receiving Messages).
//!
//! One public API serves both wires. This module is the call core they
//! share (admission's outcome carried out, calls and their slots, listen
//! streams, reports, wake-ups); a handler's outcome is shaped in
//! `outcome`, every deadline sits in one table (`timers`), and every
//! Streamable HTTP decision (framing an answer, 202, SSE, 100-continue,
//! 404/405/408, hang-ups, the session verbs) lives under [`crate::http`].
//!
//! # Driving contract
//!
//! The driver owns the socket (or pipe), the clock and the executor; the
//! connection owns everything else. Every input is a method call; every
//! output comes out of [`poll_output`](Connection::poll_output). After
//! **every** input, drain `poll_output` until it returns `None`: that is
//! also when the connection re-arms its wake callback. No order of inputs
//! loses a message: a handler's reports queue inside the connection, ahead
//! of its outcome, and the wake callback is armed before the driver waits.
//!
//! The repository's `examples/polling-http` is a whole driver on the
//! `polling` crate in under 250 lines; `snodo-driver` is the same loop on
//! any async runtime.
//!
//! ## Inputs
//!
//! | call | when |
//! |---|---|
//! | [`handle_input`](Connection::handle_input) | bytes were read from the peer (read only as the waiting rules below say) |
//! | [`handle_input_closed`](Connection::handle_input_closed) | the read side reached EOF or failed |
//! | [`handle_write_failed`](Connection::handle_write_failed) | writing a [`Transmit`](Output::Transmit) failed: drop what was not written |
//! | [`handle_timeout`](Connection::handle_timeout) | the time from [`poll_timeout`](Connection::poll_timeout) has come |
//! | [`handle_changes`](Connection::handle_changes) | the [`on_wake`](Connection::on_wake) callback ran, or [`poll_changes`](Connection::poll_changes) is ready: spawned calls reported or finished, a [`Hub`](crate::Hub) event for a listen stream, an answer or cancellation routed from another HTTP connection of a session |
//! | [`complete`](Connection::complete) | a call's [`CallTask::poll_inline`](crate::CallTask::poll_inline) returned its outcome (a spawned `CallTask` reports its outcome itself) |
//! | [`begin_shutdown`](Connection::begin_shutdown) | the server is going away |
//! | [`publish`](Connection::publish) | a change event, for an application without a [`Hub`](crate::Hub) |
//! | [`set_executor`](Connection::set_executor) | once, after making the connection: where its calls' blocking work runs ([`crate::blocking`]) |
//! | [`call_event`](Connection::call_event) | only for a handler run without a `CallTask` (an [`Invocation::run`] with your own [`CallSink`](crate::CallSink)): it reported progress or a log message; ignored once the call has ended, so feed it before `complete` |
//!
//! ## Outputs
//!
//! | output | what to do |
//! |---|---|
//! | [`Transmit`](Output::Transmit) | write the bytes, after those before them |
//! | [`Invoke`](Output::Invoke) | make its task with [`Connection::task`], [`poll_inline`](crate::CallTask::poll_inline) it once: `Some` goes to `complete`, `None` means spawn the task on any executor; it reports back through the connection's queue and wakes it. The same for a [`Request::Authenticate`]: a deferred authenticator's future (below) |
//! | [`Cancel`](Output::Cancel) | nothing, with a `CallTask`: the call's flag is set and its task ends at its next poll, dropping the handler's future. Without one, drop that future |
//! | [`Close`](Output::Close) | nothing more will be written: finish writing, then close as [`closing`](Connection::closing) says (shut the output, on HTTP read and discard until the client's EOF, both within its `linger`), and drop the connection |
//!
//! ## When to wait for what
//!
//! After the drain, wait for the first of:
//!
//! - **readable input**, while [`wants_input`](Connection::wants_input)
//!   or [`watches_hangup`](Connection::watches_hangup) is true, the input
//!   is not at EOF, and the write backlog is under your high-water mark;
//! - **writable output**, while bytes wait to be written;
//! - **the timer** at [`poll_timeout`](Connection::poll_timeout), read
//!   again after every drain (each input may move it), then
//!   `handle_timeout`;
//! - **the wake callback** registered once with
//!   [`on_wake`](Connection::on_wake) (a poller's notify), or in an async
//!   driver [`poll_changes`](Connection::poll_changes) with the task's
//!   context, then `handle_changes`;
//! - your server's shutdown signal, then `begin_shutdown`.
//!
//! `wants_input` turns false on backpressure and turns back on through an
//! input other than a read, so check it after every drain, not only after
//! a read. On stdio it is false while `max_queued_calls` admitted calls
//! wait for a slot: a call ending frees one (`complete`, `handle_changes`
//! delivering a spawned call's outcome, `handle_timeout` expiring a call).
//! On HTTP it is false while more than a request's worth of pipelined
//! bytes waits behind the request being answered: the answer (through the
//! same three inputs) lets the next request be decoded. After EOF,
//! `begin_shutdown` or [`Output::Close`] it stays false.
//!
//! A large pending write: stop reading, and defer `handle_changes` (the
//! wake stays pending: call it once the backlog drains), while the backlog
//! is over your high-water mark. The connection's bounds then absorb a
//! client that does not read: calls wait in `max_queued_calls`, progress
//! beyond `max_pending_reports` is dropped, and the hub applies its
//! overflow policy, instead of your buffer growing. Keep taking
//! [`handle_routed`](Connection::handle_routed) when
//! [`poll_routed`](Connection::poll_routed) is ready, though: a session's
//! cancellation from another connection must stop its call either way.
//!
//! # Guarantees
//!
//! - Every admitted request ends in exactly one response (result or error),
//!   except one the client cancelled: nothing at all is written for it
//!   after the cancellation, including a result that races it
//!   (`basic/patterns/cancellation.mdx`).
//! - At most [`Limits::max_concurrent_calls`](crate::Limits) invocations
//!   are out at once; up to `max_queued_calls` more wait, after which the
//!   connection stops wanting input. Cancellations are processed as soon as
//!   their line is read, also for waiting calls.
//! - A call running longer than `call_timeout` is cancelled and answered
//!   with `-32603`, so a handler that never finishes frees its slot.
//! - On HTTP with an [`Authorization`](crate::Authorization) whose
//!   authenticator defers ([`Authentication::Deferred`](crate::auth::Authentication)),
//!   the request is held (head and body, one per connection: pipelined
//!   requests behind it stay undecoded) and its future goes out as an
//!   `Invoke` of [`Request::Authenticate`],
//!   run like any call; its [`Outcome::Authenticated`]
//!   comes back through `complete` or `handle_changes` and the request
//!   carries on exactly as with a ready verdict. The client leaving, the
//!   shutdown grace running out or the connection being dropped cancels
//!   it (`Cancel`, its future dropped); past the request deadline
//!   ([`HttpConfig::request_timeout`](crate::HttpConfig)) it is cancelled
//!   and answered 503 with `Retry-After`. During a graceful shutdown it
//!   is finished and answered with `Connection: close`.
//! - [`handle_input_closed`](Connection::handle_input_closed) is EOF: on
//!   stdio, calls in flight finish and are answered before
//!   [`Output::Close`]; on HTTP the peer is gone, which is the
//!   cancellation of the request being answered (`streamable-http.mdx`
//!   § Cancellation), except for an initialize-era session's call: that
//!   runs on, to its end or its deadline, with nothing more written, and
//!   [`Output::Close`] follows it (2025-11-25 `transports.mdx`: a
//!   disconnection is not a cancellation).

use alloc::boxed::Box;
use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use bytes::Bytes;
use core::fmt;
use serde_json::{json, Map, Value};

use crate::admission::{self, Admission, Facts};
use crate::dispatch::{self, Admitted, Dispatch};
use crate::error::ErrorObject;
use crate::handler::{CallEvent, CallId, Invocation, Outcome, Request, Shared};
use crate::http::exchange::HttpWire;
use crate::http::rules;
use crate::jsonrpc::{self, RequestId};
use crate::meta::{LogLevel, ProgressToken};
use crate::service::Service;
use crate::stdio::{Line, LineFramer};
use crate::subscriptions::filter::notification_for;
use crate::subscriptions::{ChangeEvent, Filter};
use crate::time::Instant;

mod http;
mod legacy;
pub(crate) mod outbox;
mod outcome;
pub(crate) mod output;
mod table;
pub(crate) mod timers;

pub use output::{CompleteError, Output, Transport};

use outbox::Outbox;
use table::Table;
use timers::{Timer, Timers};

/// What kind of answer a call expects, kept to check and shape its outcome.
#[derive(Debug)]
pub(crate) enum Expect {
    Tool(Option<Arc<crate::registry::ToolEntry>>),
    Resource(Arc<str>),
    Prompt,
    Complete,
    /// An extension's deferred answer.
    Extension,
}

#[derive(Debug)]
pub(crate) struct Call {
    pub(crate) id: RequestId,
    pub(crate) expect: Expect,
    pub(crate) progress_token: Option<ProgressToken>,
    pub(crate) last_progress: Option<f64>,
    pub(crate) log_level: Option<LogLevel>,
    pub(crate) deadline: Option<Instant>,
    /// What an `InputRequiredResult` for this call is bound to (MRTR).
    pub(crate) origin: Option<crate::mrtr::Origin>,
    /// The call's `_meta` (its client capabilities check input requests),
    /// shared with its invocation.
    pub(crate) shared: Arc<Shared>,
    /// A call of an initialize-era session: how to run it again after
    /// asking the client for input inline.
    pub(crate) legacy: Option<Box<legacy::LegacyCall>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    Running(CallId),
    Queued,
    /// An open `subscriptions/listen` stream.
    Listening,
}

/// An open `subscriptions/listen` stream.
#[derive(Debug)]
pub(crate) struct Stream {
    id: RequestId,
    filter: Filter,
}

// One per connection, and a connection is one or the other for its life:
// boxing the HTTP state would only add an indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Wire {
    Stdio(LineFramer),
    Http(HttpWire),
}

/// A final message for a request.
pub(crate) enum Final<'a> {
    Result(&'a [u8]),
    Error(&'a ErrorObject, bool),
}

/// One stream's protocol state. See the [module docs](self) for the
/// driving contract.
pub struct Connection {
    pub(crate) service: Service,
    pub(crate) wire: Wire,
    /// What the driver is handed next.
    pub(crate) outbox: Outbox,
    /// A final message being serialized ahead of its HTTP head.
    pub(crate) scratch: Vec<u8>,
    /// A handler's result being shaped.
    pub(crate) result: Vec<u8>,
    pub(crate) calls: Table<CallId, Call>,
    pub(crate) by_request: Table<RequestId, Slot>,
    pub(crate) queued: VecDeque<Box<Admitted>>,
    pub(crate) streams: Vec<Stream>,
    #[cfg(feature = "std")]
    pub(crate) listener: Option<crate::subscriptions::hub::Listener>,
    pub(crate) next_call: u64,
    /// The initialize-era session of a stdio connection.
    pub(crate) session: Option<Box<crate::legacy::Session>>,
    /// Server-to-client requests waiting for their answers, by id.
    pub(crate) outbound: BTreeMap<u64, CallId>,
    /// Where answers routed from other HTTP connections arrive.
    #[cfg(feature = "std")]
    pub(crate) inbox: Option<Arc<crate::legacy::Inbox>>,
    pub(crate) input_closed: bool,
    /// [`Connection::begin_shutdown`] was called.
    pub(crate) shutting_down: bool,
    /// Every deadline: the connection's own and its calls'.
    pub(crate) timers: Timers,
    /// What the host attached to the request ([`Connection::http_request`]).
    pub(crate) host: Option<crate::handler::Host>,
    /// Who sent the request being answered ([`crate::auth`]).
    pub(crate) principal: Option<Arc<crate::auth::Principal>>,
    /// The client's capabilities as its last request sent them.
    pub(crate) memo: dispatch::fast::Memo,
    pub(crate) closed: bool,
    /// Reports and outcomes from this connection's running calls.
    #[cfg(feature = "std")]
    pub(crate) reports: Arc<crate::run::Reports>,
    /// The embedder's wake callback ([`Connection::on_wake`]), re-armed
    /// with every wake source after each drain of the outputs.
    #[cfg(feature = "std")]
    pub(crate) wake: Option<core::task::Waker>,
}

impl Drop for Connection {
    /// No handler outlives its connection: every call still running is
    /// cancelled, which wakes its [`CallTask`](crate::CallTask) to drop the
    /// handler's future.
    fn drop(&mut self) {
        for c in self.calls.values() {
            c.shared.cancel();
        }
        // And a request's deferred authentication.
        self.drop_parked();
    }
}

/// A wake callback as a [`Waker`](core::task::Waker), so every wake source
/// (the call reports, the hub, the session inbox) takes it as it takes an
/// async driver's.
#[cfg(feature = "std")]
struct WakeFn<F>(F);

#[cfg(feature = "std")]
impl<F: Fn() + Send + Sync + 'static> alloc::task::Wake for WakeFn<F> {
    fn wake(self: Arc<Self>) {
        (self.0)();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        (self.0)();
    }
}

/// How to close the transport once [`Output::Close`] was emitted: write
/// what is left, shut the output, and on HTTP read and discard what the
/// client still sends until it closes too, so the close does not reset a
/// response still in flight (RFC 9112 § 9.6, tear-down). Both steps
/// together take at most `linger`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Closing {
    /// The most time writing the last bytes and discarding input may take.
    pub linger: core::time::Duration,
    /// Whether to read and discard input after shutting the output.
    pub discard_input: bool,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("in_flight", &self.calls.len())
            .field("queued", &self.queued.len())
            .field("input_closed", &self.input_closed)
            .field("closed", &self.closed)
            .finish()
    }
}

impl Connection {
    /// A new connection on `transport`.
    pub fn new(service: &Service, transport: Transport, now: Instant) -> Self {
        let wire = match transport {
            Transport::Stdio => Wire::Stdio(LineFramer::new(service.limits().max_message_bytes)),
            Transport::Http => Wire::Http(HttpWire::new(service)),
        };
        let mut conn = Connection::with_wire(service, wire, now);
        if transport == Transport::Http {
            // Until its first request, a connection is idle.
            let idle = now + service.http_config().idle_timeout;
            conn.timers.set(Timer::Idle, idle);
        }
        conn
    }

    /// A new connection on `wire`, with no timer running.
    fn with_wire(service: &Service, wire: Wire, _now: Instant) -> Self {
        let principal = match wire {
            Wire::Stdio(_) => service.inner.stdio_principal.clone(),
            Wire::Http(_) => None,
        };
        Connection {
            wire,
            service: service.clone(),
            outbox: Outbox::default(),
            scratch: Vec::new(),
            result: Vec::new(),
            calls: Table::default(),
            by_request: Table::default(),
            queued: VecDeque::new(),
            streams: Vec::new(),
            #[cfg(feature = "std")]
            listener: None,
            next_call: 1,
            session: None,
            outbound: BTreeMap::new(),
            #[cfg(feature = "std")]
            inbox: None,
            input_closed: false,
            shutting_down: false,
            timers: Timers::default(),
            host: None,
            principal,
            memo: Default::default(),
            closed: false,
            #[cfg(feature = "std")]
            reports: crate::run::Reports::new(service.limits().max_pending_reports),
            #[cfg(feature = "std")]
            wake: None,
        }
    }

    /// The task that runs `invocation`'s handler and reports back to this
    /// connection: poll it once with [`CallTask::poll_inline`](crate::CallTask::poll_inline),
    /// and spawn it if it is not ready. Cancelling the call (an
    /// [`Output::Cancel`], or dropping this connection) ends the task and
    /// drops the handler's future.
    #[cfg(feature = "std")]
    pub fn task(&self, invocation: Invocation) -> crate::run::CallTask {
        crate::run::CallTask::new(invocation, self.reports.clone())
    }

    /// Where this connection's calls run their blocking work
    /// ([`Context::spawn_blocking`](crate::Context::spawn_blocking)): the
    /// runtime's blocking pool, given by its adapter. Without one, such
    /// work is refused with
    /// [`BlockingError::Unavailable`](crate::blocking::BlockingError::Unavailable).
    /// Calls already running see the new executor too.
    #[cfg(feature = "std")]
    pub fn set_executor(&mut self, executor: Arc<dyn crate::blocking::Executor>) {
        self.reports.set_executor(executor);
    }

    /// Bytes received from the peer.
    pub fn handle_input(&mut self, data: &[u8], now: Instant) {
        if self.input_closed || self.closed {
            return;
        }
        match &mut self.wire {
            Wire::Stdio(framer) => {
                framer.push(data);
                while let Some(line) = self.next_line() {
                    self.handle_line(line, now);
                }
            }
            Wire::Http(_) => self.http_input(data, now),
        }
    }

    fn next_line(&mut self) -> Option<Line> {
        match &mut self.wire {
            Wire::Stdio(f) => f.next_line(),
            Wire::Http(_) => None,
        }
    }

    /// The peer closed its side (EOF on stdin). A final unterminated line is
    /// processed; calls in flight finish and are answered; then
    /// [`Output::Close`] is emitted. On HTTP the client is gone (a hang-up,
    /// or a write that failed): see the [module docs](self) for what
    /// becomes of its call.
    pub fn handle_input_closed(&mut self, now: Instant) {
        if self.closed {
            return;
        }
        match &mut self.wire {
            Wire::Stdio(_) if self.input_closed => {}
            Wire::Stdio(framer) => {
                if let Some(line) = framer.finish() {
                    self.handle_line(line, now);
                }
                self.input_closed = true;
                self.start_grace(now);
                self.teardown_streams(now);
                // A session call waiting for the client's answer can never
                // get it now.
                self.fail_waiting_calls(now);
                self.maybe_close();
            }
            Wire::Http(_) => self.http_hang_up(now),
        }
    }

    /// The server is going away (graceful shutdown): read nothing more,
    /// answer what is in progress, then emit [`Output::Close`]. On stdio
    /// calls in flight and queued are finished; on HTTP the request being
    /// answered gets its response with `Connection: close`, and requests
    /// not yet fully received are dropped unanswered (the client may retry
    /// them elsewhere: nothing was processed). Calls still running at the
    /// adapter's grace deadline are the adapter's to cancel.
    ///
    /// [`wants_input`](Connection::wants_input) is false from here on; an
    /// adapter may still read and discard bytes only to notice that the
    /// peer went away, and report it with
    /// [`handle_input_closed`](Connection::handle_input_closed) (on HTTP that
    /// still cancels the call in flight).
    pub fn begin_shutdown(&mut self, now: Instant) {
        if self.shutting_down {
            return;
        }
        self.shutting_down = true;
        self.input_closed = true;
        self.start_grace(now);
        if let Some(http) = self.http() {
            http.closing = true;
        }
        self.teardown_streams(now);
        self.maybe_close();
    }

    /// Writing to the peer failed: it is gone. On HTTP this is the client
    /// leaving, as a hang-up is ([`handle_input_closed`](Connection::handle_input_closed)).
    /// On stdio nothing can reach the client any more: every call is
    /// cancelled and the connection closes. The driver drops what it had
    /// not written.
    pub fn handle_write_failed(&mut self, now: Instant) {
        if self.closed {
            return;
        }
        match self.wire {
            Wire::Http(_) => self.handle_input_closed(now),
            Wire::Stdio(_) => {
                self.input_closed = true;
                self.outbox.drop_unsent();
                self.abandon("the client cannot be written to");
            }
        }
    }

    /// How to close the transport once [`Output::Close`] was emitted.
    pub fn closing(&self) -> Closing {
        Closing {
            linger: self.service.limits().close_linger,
            discard_input: matches!(&self.wire, Wire::Http(h) if h.lingers()),
        }
    }

    fn start_grace(&mut self, now: Instant) {
        let grace = self.service.limits().shutdown_grace;
        self.timers.start(Timer::Grace, now + grace);
    }

    /// Give up on every call (the grace expired, or the client cannot be
    /// reached): cancel what runs, drop what waits, close.
    fn abandon(&mut self, why: &str) {
        if !self.calls.is_empty() || !self.queued.is_empty() {
            tracing::warn!(
                running = self.calls.len(),
                queued = self.queued.len(),
                "{why}: cancelling the calls still running"
            );
        }
        let calls = core::mem::take(&mut self.calls);
        self.timers.clear_calls();
        for (call, c) in calls {
            c.shared.cancel();
            self.push_event(Output::Cancel(call));
        }
        self.queued.clear();
        self.by_request.clear();
        self.outbound.clear();
        self.drop_parked();
        self.close();
    }

    /// Time passed: expire calls whose deadline is at or before `now`, and
    /// once the shutdown grace is over, give up on every call.
    pub fn handle_timeout(&mut self, now: Instant) {
        if self.closed {
            return;
        }
        if self.timers.due(Timer::Grace, now) {
            self.abandon("shutdown grace expired");
            return;
        }
        let expired: Vec<CallId> = self.timers.expired_calls(now).collect();
        for call in expired {
            if let Some(c) = self.remove_call(call) {
                self.by_request.remove(&c.id);
                self.untrack_session_call(&c);
                tracing::warn!(%call, id = %c.id, "call timed out");
                c.shared.cancel();
                self.push_event(Output::Cancel(call));
                let err = ErrorObject::internal("Request timed out");
                self.emit_final(Some(&c.id), Final::Error(&err, false), now);
            }
        }
        self.http_timeout(now);
        self.start_queued(now);
        self.maybe_close();
    }

    /// A handler finished `call` with `outcome`. Reports its
    /// [`CallTask`](crate::CallTask) queued before are delivered first, so
    /// none is lost or sent after the answer.
    pub fn complete(
        &mut self,
        call: CallId,
        outcome: Outcome,
        now: Instant,
    ) -> Result<(), CompleteError> {
        #[cfg(feature = "std")]
        self.take_reports(now);
        self.finish_call(call, outcome, now)
    }

    /// Deliver what this connection's call tasks reported.
    #[cfg(feature = "std")]
    fn take_reports(&mut self, now: Instant) {
        if self.reports.is_empty() {
            return;
        }
        for report in self.reports.drain() {
            match report {
                crate::run::Report::Event(call, event) => self.call_event(call, event, now),
                // Err: the call was cancelled or timed out meanwhile; its
                // late outcome is dropped by design.
                crate::run::Report::Done(call, outcome) => {
                    let _ = self.finish_call(call, outcome, now);
                }
            }
        }
    }

    fn finish_call(
        &mut self,
        call: CallId,
        outcome: Outcome,
        now: Instant,
    ) -> Result<(), CompleteError> {
        let Some(c) = self.remove_call(call) else {
            // Not a call: the parked request's authentication, or gone.
            return self.resume_parked(call, outcome, now);
        };
        let outcome = match outcome {
            Outcome::InputRequired(ir) if c.legacy.is_some() => {
                self.ask_inline(call, c, ir, now);
                self.start_queued(now);
                self.maybe_close();
                return Ok(());
            }
            other => other,
        };
        self.by_request.remove(&c.id);
        self.untrack_session_call(&c);
        self.write_outcome(&c, outcome, now);
        self.start_queued(now);
        self.maybe_close();
        Ok(())
    }

    /// A running handler reported progress or a log message.
    pub fn call_event(&mut self, call: CallId, event: CallEvent, _now: Instant) {
        let logging = self.service.inner.logging;
        let Some(c) = self.calls.get_mut(&call) else {
            return;
        };
        match event {
            CallEvent::Progress(p) => {
                let Some(token) = &c.progress_token else {
                    return;
                };
                // `progress.mdx`: the value MUST increase with every notification.
                if !p.progress.is_finite() || c.last_progress.is_some_and(|last| p.progress <= last)
                {
                    return;
                }
                c.last_progress = Some(p.progress);
                let mut params = Map::new();
                params.insert(
                    String::from("progressToken"),
                    serde_json::to_value(token).unwrap_or(Value::Null),
                );
                params.insert(String::from("progress"), json!(p.progress));
                if let Some(t) = p.total.filter(|t| t.is_finite()) {
                    params.insert(String::from("total"), json!(t));
                }
                if let Some(m) = p.message {
                    params.insert(String::from("message"), Value::String(m));
                }
                self.emit_notification("notifications/progress", &Value::Object(params));
            }
            CallEvent::Log(m) => {
                // `logging.mdx`: only for requests that set a level, at or
                // above it, and only if the server declared `logging`.
                if !logging || c.log_level.is_none_or(|min| m.level < min) {
                    return;
                }
                let mut params = Map::new();
                params.insert(
                    String::from("level"),
                    serde_json::to_value(m.level).unwrap_or(Value::Null),
                );
                if let Some(l) = m.logger {
                    params.insert(String::from("logger"), Value::String(l));
                }
                params.insert(String::from("data"), m.data);
                self.emit_notification("notifications/message", &Value::Object(params));
            }
        }
    }

    /// The next thing to do, or `None` when drained.
    pub fn poll_output(&mut self) -> Option<Output> {
        let next = self.outbox.poll();
        if next.is_none() {
            self.arm_wake();
        }
        next
    }

    /// The earliest deadline: a call's timeout, or on HTTP the slow-request
    /// and idle deadlines.
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.closed {
            return None;
        }
        self.timers.next(|t| !self.http_timer_applies(t))
    }

    /// Whether the driver should read more input now (backpressure).
    pub fn wants_input(&self) -> bool {
        if self.input_closed || self.closed {
            return false;
        }
        match &self.wire {
            Wire::Stdio(_) => self.queued.len() < self.service.limits().max_queued_calls,
            Wire::Http(h) => h.wants_input(&self.service),
        }
    }

    /// Whether to keep reading while [`wants_input`](Connection::wants_input)
    /// is false, only to notice the peer leaving: on HTTP during shutdown,
    /// where a hang-up still cancels the call being answered
    /// (`streamable-http.mdx` § Cancellation). What is read then is
    /// ignored by [`handle_input`](Connection::handle_input); end of input
    /// goes to [`handle_input_closed`](Connection::handle_input_closed).
    pub fn watches_hangup(&self) -> bool {
        self.shutting_down && !self.closed && matches!(&self.wire, Wire::Http(h) if !h.peer_gone)
    }

    /// Since when this connection could be closed without losing anything
    /// accepted: an HTTP connection between requests, or still receiving a
    /// request's head, with no call, stream or session answer in flight.
    /// `None` otherwise. A server at its connection cap [sheds](Connection::shed)
    /// the one idle longest to serve a new client, so idle keep-alive
    /// connections and slow request heads cannot starve it.
    pub fn idle_since(&self) -> Option<Instant> {
        if self.closed || !self.calls.is_empty() || !self.outbound.is_empty() {
            return None;
        }
        self.http_idle_since()
    }

    /// Close a connection that is [idle](Connection::idle_since) now, to
    /// make room for another: nothing is written (a request head being
    /// received is dropped unanswered, as at the idle timeout; the client
    /// may retry it). Does nothing to a connection that is not idle.
    pub fn shed(&mut self, _now: Instant) {
        if self.idle_since().is_some() {
            tracing::debug!("closing an idle HTTP connection to make room");
            self.shed_http();
        }
    }

    /// The transport this connection speaks.
    pub fn transport(&self) -> Transport {
        match self.wire {
            Wire::Stdio(_) => Transport::Stdio,
            Wire::Http(_) => Transport::Http,
        }
    }

    /// Calls handed to the application and not yet finished.
    pub fn in_flight(&self) -> usize {
        self.calls.len()
    }

    /// Admitted calls waiting for a slot.
    pub fn queued(&self) -> usize {
        self.queued.len()
    }

    /// Whether [`Output::Close`] was emitted.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    fn handle_line(&mut self, line: Line, now: Instant) {
        let bytes = match line {
            Line::Message(b) => b,
            Line::TooLong => {
                tracing::warn!(
                    limit = self.service.limits().max_message_bytes,
                    "message exceeds the line limit"
                );
                let err = ErrorObject::invalid_request(alloc::format!(
                    "Message exceeds the maximum size of {} bytes",
                    self.service.limits().max_message_bytes
                ));
                self.emit_final(None, Final::Error(&err, true), now);
                return;
            }
        };
        let facts = Facts {
            principal: self.principal.as_ref(),
            mirrors: None,
            session: self.session.is_some(),
        };
        match admission::admit(&self.service, &bytes, facts, &mut self.memo, now) {
            Admission::Stateless(dispatched) => self.carry_out(dispatched, &bytes, now),
            Admission::Session(incoming) => self.legacy_message(None, incoming, now),
        }
    }

    /// Carry out what dispatch decided about a message: the same on stdio
    /// and HTTP. (On HTTP an exchange is one message, so an id is never
    /// in use, nothing waits for a slot, and a cancellation finds no call:
    /// there, closing the stream is the cancellation.)
    pub(crate) fn carry_out(&mut self, dispatched: Dispatch, message: &Bytes, now: Instant) {
        match dispatched {
            Dispatch::Answer { id, result } => {
                if self.is_in_use(&id) {
                    self.write_duplicate(&id, now);
                    return;
                }
                self.emit_final(Some(&id), Final::Result(&result), now);
            }
            Dispatch::Error {
                id,
                error,
                admission,
            } => {
                tracing::debug!(code = error.code, "request rejected");
                self.emit_final(id.as_ref(), Final::Error(&error, admission), now);
            }
            Dispatch::Invoke(mut admitted) => {
                admitted.attach_message(message);
                if self.is_in_use(&admitted.id) {
                    self.write_duplicate(&admitted.id, now);
                    return;
                }
                if self.calls.len() < self.service.limits().max_concurrent_calls {
                    self.start(admitted, now);
                } else {
                    self.by_request.insert(admitted.id.clone(), Slot::Queued);
                    self.queued.push_back(admitted);
                }
            }
            Dispatch::Forbidden { id, missing } => self.refuse_scopes(&id, missing, now),
            Dispatch::Listen { id, filter } => {
                if self.is_in_use(&id) {
                    self.write_duplicate(&id, now);
                    return;
                }
                self.open_stream(id, filter, now);
            }
            Dispatch::Cancel { request_id } => {
                // On HTTP the notification is its own exchange, answered
                // 202, and cancels nothing: closing a request's stream is
                // its cancellation (`streamable-http.mdx` § Cancellation),
                // and the id may be a pipelined request's decoded since.
                if self.accept_notification(now) {
                    return;
                }
                self.cancel(&request_id);
                // A cancelled call frees its slot for the next waiting one.
                self.start_queued(now);
            }
            Dispatch::Ignore => {
                self.accept_notification(now);
            }
        }
    }

    /// Refuse the request `id`, whose principal lacks `missing`: on HTTP
    /// 403 with the `insufficient_scope` challenge naming them
    /// (`basic/authorization/index.mdx` § Runtime Insufficient Scope
    /// Errors); on stdio, which has no status, the same JSON-RPC error.
    pub(crate) fn refuse_scopes(&mut self, id: &RequestId, missing: Vec<String>, now: Instant) {
        tracing::debug!(%id, "request refused: insufficient scope");
        let challenge = crate::auth::Challenge::InsufficientScope(missing);
        match (&self.wire, self.service.inner.auth.clone()) {
            (Wire::Http(_), Some(auth)) => self.refuse_auth(&auth, &challenge, Some(id), now),
            _ => {
                let err = ErrorObject::invalid_request(challenge.message());
                self.emit_final(Some(id), Final::Error(&err, false), now);
            }
        }
    }

    fn is_in_use(&self, id: &RequestId) -> bool {
        self.by_request.contains_key(id)
    }

    fn write_duplicate(&mut self, id: &RequestId, now: Instant) {
        let err = ErrorObject::invalid_request("Request id is already used by a request in flight");
        self.emit_final(Some(id), Final::Error(&err, true), now);
    }

    fn cancel(&mut self, id: &RequestId) {
        match self.by_request.remove(id) {
            Some(Slot::Running(call)) => {
                if let Some(c) = self.remove_call(call) {
                    c.shared.cancel();
                }
                tracing::debug!(%call, %id, "cancelled by client");
                self.push_event(Output::Cancel(call));
            }
            Some(Slot::Queued) => {
                self.queued.retain(|a| &a.id != id);
                tracing::debug!(%id, "cancelled by client before it started");
            }
            Some(Slot::Listening) => {
                // The client ended its subscription: no response
                // (`subscriptions.mdx` § Cancellation).
                self.streams.retain(|st| &st.id != id);
                tracing::debug!(%id, "subscription cancelled by client");
                self.release_listener();
            }
            // Unknown or finished: ignored (`cancellation.mdx` § Behavior Requirements).
            None => {}
        }
        self.maybe_close();
    }

    fn start(&mut self, admitted: Box<Admitted>, now: Instant) {
        let call = CallId(self.next_call);
        self.next_call += 1;
        let Admitted {
            id,
            request,
            meta,
            round,
            origin,
            handler,
            tool,
            timeout,
            session,
        } = *admitted;
        let expect = match &request {
            _ if matches!(handler, Some(crate::handler::Handler::Deferred(_))) => Expect::Extension,
            Request::CallTool { .. } => Expect::Tool(tool),
            // The MRTR origin's target is the same URI: shared, not copied.
            Request::ReadResource { uri, .. } => Expect::Resource(match &origin {
                Some(o) if *o.target == **uri => o.target.clone(),
                _ => Arc::from(uri.as_str()),
            }),
            Request::GetPrompt { .. } => Expect::Prompt,
            Request::Complete(_) => Expect::Complete,
            // Never admitted: a parked request's token check is no call.
            Request::Extension { .. } | Request::Authenticate => Expect::Extension,
        };
        // The target's layers may replace the service's call timeout
        // (`crate::layer::Timeout`): one deadline per call, decided here.
        let deadline = timeout
            .or(self.service.limits().call_timeout)
            .map(|t| now + t);
        let shared = Shared::of_request(
            meta,
            round,
            self.host.clone(),
            self.principal.clone(),
            self.service.inner.states.clone(),
        );
        let legacy = session
            .map(|session| legacy::LegacyCall::new(session, &request, &shared.meta, &handler));
        self.insert_call(
            call,
            Call {
                id: id.clone(),
                expect,
                progress_token: shared.meta.progress_token.clone(),
                last_progress: None,
                log_level: shared.meta.log_level,
                deadline,
                origin,
                legacy,
                shared: shared.clone(),
            },
        );
        self.by_request.insert(id, Slot::Running(call));
        self.push_event(Output::Invoke(Invocation::new(
            call, request, shared, handler,
        )));
    }

    /// A call starts: it and its deadline enter their tables together.
    pub(crate) fn insert_call(&mut self, call: CallId, c: Call) {
        self.timers.set_call(call, c.deadline);
        self.calls.insert(call, c);
    }

    /// A call ends, or steps out to be run again: it and its deadline
    /// leave their tables together.
    pub(crate) fn remove_call(&mut self, call: CallId) -> Option<Call> {
        let c = self.calls.remove(&call)?;
        self.timers.clear_call(call, c.deadline);
        Some(c)
    }

    fn start_queued(&mut self, now: Instant) {
        while self.calls.len() < self.service.limits().max_concurrent_calls {
            let Some(next) = self.queued.pop_front() else {
                break;
            };
            self.by_request.remove(&next.id);
            self.start(next, now);
        }
    }

    pub(crate) fn maybe_close(&mut self) {
        let http_closing = matches!(&self.wire, Wire::Http(h) if h.closing && h.exchange.is_none());
        let parked = matches!(&self.wire, Wire::Http(h) if h.parked.is_some());
        if (self.input_closed || http_closing)
            && !parked
            && self.calls.is_empty()
            && self.queued.is_empty()
            && self.streams.is_empty()
        {
            self.close();
        }
    }

    /// Open a listen stream: acknowledge first, then deliver what its filter
    /// asked for (`subscriptions.mdx` § Acknowledgment).
    fn open_stream(&mut self, id: RequestId, filter: Filter, now: Instant) {
        let limits = self.service.limits();
        if self.streams.len() >= limits.max_subscriptions {
            let err = ErrorObject::invalid_params(alloc::format!(
                "Too many open subscriptions on this connection (at most {})",
                limits.max_subscriptions
            ));
            self.emit_final(Some(&id), Final::Error(&err, false), now);
            return;
        }
        if !self.open_http_stream(now) {
            return;
        }
        let mut params = Map::new();
        params.insert(String::from("notifications"), filter.to_json());
        self.by_request.insert(id.clone(), Slot::Listening);
        self.streams.push(Stream {
            id: id.clone(),
            filter,
        });
        self.emit_stream_notification(&id, "notifications/subscriptions/acknowledged", params);
        self.listen_to_hub();
        tracing::debug!(%id, "subscription opened");
    }

    /// Hear the service's change events, if it has a hub.
    pub(crate) fn listen_to_hub(&mut self) {
        #[cfg(feature = "std")]
        if self.listener.is_none() {
            self.listener = self.service.hub().map(|h| h.listen());
        }
    }

    /// Deliver `event` to every listen stream of this connection that asked
    /// for it, tagged with the stream's subscription id. Events are
    /// normally fed from the service's [`Hub`](crate::Hub) by
    /// [`handle_changes`](Connection::handle_changes); this is the same
    /// path for an application (or a `no_std` build) without one.
    pub fn publish(&mut self, event: &ChangeEvent, now: Instant) {
        if self.closed {
            return;
        }
        self.publish_to_session(event, now);
        let targets: Vec<RequestId> = self
            .streams
            .iter()
            .filter(|st| st.filter.wants(event))
            .map(|st| st.id.clone())
            .collect();
        if targets.is_empty() {
            return;
        }
        let (method, params) = notification_for(event);
        let method = String::from(method);
        for id in targets {
            self.emit_stream_notification(&id, &method, params.clone());
        }
    }

    /// Ready when [`handle_changes`](Connection::handle_changes) has
    /// something to deliver: reports or outcomes of this connection's
    /// spawned [`CallTask`](crate::CallTask)s, change events the service's
    /// hub queued for its listen streams, or answers and cancellations
    /// routed from other HTTP connections of its initialize-era session.
    /// Otherwise registers `cx`'s waker with each of them, to be woken when
    /// one has something. New sources appear through inputs (a listen
    /// stream opened, a call spawned), after which the driver polls again.
    /// A loop without a runtime registers [`on_wake`](Connection::on_wake)
    /// instead. An adapter whose write backlog is high should stop polling
    /// this until it drains: the hub then applies its overflow policy
    /// instead of the connection's output growing.
    #[cfg(feature = "std")]
    pub fn poll_changes(&mut self, cx: &mut core::task::Context<'_>) -> core::task::Poll<()> {
        // What this connection's call tasks reported.
        if self.reports.poll(cx).is_ready() {
            return core::task::Poll::Ready(());
        }
        // Answers to this connection's server-to-client requests that
        // arrived on other connections of their session (`legacy`).
        if let Some(inbox) = &self.inbox {
            if inbox.poll(cx).is_ready() {
                return core::task::Poll::Ready(());
            }
        }
        // A session's GET stream listens through the session, which
        // says whether this connection still holds it.
        if let (Some((sid, claim)), Some(sessions)) =
            (self.get_stream_claim(), &self.service.inner.sessions)
        {
            if sessions.poll_get_events(sid, claim, cx).is_ready() {
                return core::task::Poll::Ready(());
            }
        }
        // So does a GET resuming one of the session's POST streams.
        if let (
            Some((
                sid,
                crate::http::session::SessionStream::Resumed {
                    stream,
                    claim,
                    through,
                },
            )),
            Some(sessions),
        ) = (self.session_stream(), &self.service.inner.sessions)
        {
            if sessions
                .poll_post_events(sid, stream, claim, through, cx)
                .is_ready()
            {
                return core::task::Poll::Ready(());
            }
        }
        match &self.listener {
            Some(l) => l.poll(cx),
            None => core::task::Poll::Pending,
        }
    }

    /// Deliver what [`poll_changes`](Connection::poll_changes) or the
    /// [`on_wake`](Connection::on_wake) callback announced: the call tasks'
    /// reports and outcomes (each call's reports ahead of its answer), routed
    /// session answers and cancellations, and hub events for listen streams.
    #[cfg(feature = "std")]
    pub fn handle_changes(&mut self, now: Instant) {
        self.take_reports(now);
        self.handle_routed(now);
        self.take_get_events(now);
        self.take_resumed_events(now);
        let Some(l) = &self.listener else { return };
        for event in l.drain() {
            self.publish(&event, now);
        }
    }

    /// Ready when answers or cancellations were routed here from another
    /// HTTP connection of this connection's initialize-era session. Unlike
    /// the rest of [`poll_changes`](Connection::poll_changes), poll this
    /// even while the write backlog is high: a cancellation must stop its
    /// call whether or not the client reads (the call's own answer is
    /// dropped, not written).
    #[cfg(feature = "std")]
    pub fn poll_routed(&mut self, cx: &mut core::task::Context<'_>) -> core::task::Poll<()> {
        match &self.inbox {
            Some(inbox) => inbox.poll(cx),
            None => core::task::Poll::Pending,
        }
    }

    /// Deliver what [`poll_routed`](Connection::poll_routed) found.
    #[cfg(feature = "std")]
    pub fn handle_routed(&mut self, now: Instant) {
        if let Some(inbox) = &self.inbox {
            for routed in inbox.drain() {
                match routed {
                    crate::legacy::Routed::Answer { id, outcome } => {
                        self.answered(id, outcome, now)
                    }
                    crate::legacy::Routed::Cancel { request } => {
                        self.cancel_session_call(&request, now)
                    }
                }
            }
        }
    }

    /// Call `wake` whenever [`handle_changes`](Connection::handle_changes)
    /// has something to deliver: a report or the outcome of a spawned
    /// [`CallTask`](crate::CallTask), a [`Hub`](crate::Hub) event for a
    /// listen stream, an answer or a cancellation routed here from another
    /// HTTP connection of an initialize-era session. This is the runtime-free
    /// form of [`poll_changes`](Connection::poll_changes): a loop on
    /// `polling`, `mio` or `epoll` passes its poller's notify, and calls
    /// `handle_changes` on the next turn.
    ///
    /// The registration is persistent: the connection re-arms it with every
    /// source each time [`poll_output`](Connection::poll_output) runs dry,
    /// which the driving contract already requires after every input, and
    /// calls `wake` at once if something is already waiting then. A wake is
    /// never lost, and there is at most one per drain.
    ///
    /// `wake` may run on any thread (the one where a spawned call finished,
    /// or the hub's publisher), and on the embedder's own thread inside this
    /// connection's methods: it must only signal (notify a poller, push to
    /// a queue), never call into the connection. Use this or
    /// `poll_changes`, not both: each replaces the other's registration.
    #[cfg(feature = "std")]
    pub fn on_wake<F>(&mut self, wake: F)
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.wake = Some(core::task::Waker::from(Arc::new(WakeFn(wake))));
        self.arm_wake();
    }

    /// Register the wake callback with every source, or call it now if one
    /// already has something queued.
    fn arm_wake(&mut self) {
        #[cfg(feature = "std")]
        if let Some(waker) = self.wake.take() {
            if self
                .poll_changes(&mut core::task::Context::from_waker(&waker))
                .is_ready()
            {
                waker.wake_by_ref();
            }
            self.wake = Some(waker);
        }
    }

    /// Open listen streams on this connection.
    pub fn subscriptions(&self) -> usize {
        self.streams.len()
    }

    /// A notification on a listen stream: `_meta.subscriptionId` is the
    /// stream's id (`subscriptions.mdx` § Receiving Notifications).
    fn emit_stream_notification(
        &mut self,
        id: &RequestId,
        method: &str,
        mut params: Map<String, Value>,
    ) {
        let mut meta = match params.remove("_meta") {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        meta.insert(String::from(SUBSCRIPTION_ID), id.to_value());
        params.insert(String::from("_meta"), Value::Object(meta));
        self.emit_notification(method, &Value::Object(params));
    }

    /// The server ends every listen stream (shutdown, or EOF on stdio): a
    /// successful `subscriptions/listen` result carrying the subscription id
    /// (`subscriptions.mdx` § Graceful Closure), and on stdio also
    /// `notifications/cancelled` for it (`cancellation.mdx`: the server MUST
    /// send it when it tears a subscription down).
    fn teardown_streams(&mut self, now: Instant) {
        self.finish_get_stream();
        let streams = core::mem::take(&mut self.streams);
        for st in streams {
            self.by_request.remove(&st.id);
            let mut meta = Map::clone(&self.service.inner.server_meta);
            meta.insert(String::from(SUBSCRIPTION_ID), st.id.to_value());
            let mut result = Map::new();
            result.insert(String::from("_meta"), Value::Object(meta));
            result.insert(
                String::from("resultType"),
                Value::String(String::from("complete")),
            );
            let mut bytes = Vec::new();
            crate::json::write(&mut bytes, &result);
            self.emit_final(Some(&st.id), Final::Result(&bytes), now);
            if let Wire::Stdio(_) = self.wire {
                let params = serde_json::json!({
                    "requestId": st.id.to_value(),
                    "reason": "The server ended the subscription",
                });
                self.emit_notification("notifications/cancelled", &params);
            }
        }
        self.release_listener();
    }

    fn release_listener(&mut self) {
        #[cfg(feature = "std")]
        if self.streams.is_empty() && !self.has_get_stream() {
            self.listener = None;
        }
    }

    pub(crate) fn close(&mut self) {
        if !self.closed {
            self.closed = true;
            self.release_stream_claim();
            self.forget_outbound();
            self.streams.clear();
            self.release_listener();
            self.push_event(Output::Close);
        }
    }

    pub(crate) fn push_event(&mut self, e: Output) {
        self.outbox.push(e);
    }

    /// The HTTP client left while session calls still run (see
    /// [`handle_input_closed`](Connection::handle_input_closed)).
    pub(crate) fn peer_gone(&self) -> bool {
        self.outbox.is_discarding()
    }

    /// Write the final message for a request: a line on stdio; on HTTP the
    /// JSON response (or the SSE stream's last event), ending the exchange.
    fn emit_final(&mut self, id: Option<&RequestId>, message: Final<'_>, now: Instant) {
        if let (Wire::Stdio(_), Final::Result(result)) = (&self.wire, &message) {
            // Straight into the output: no intermediate buffer, and room
            // for a large answer made at once rather than by doubling.
            if let Some(id) = id {
                self.outbox.bytes().reserve(result.len() + 64);
                jsonrpc::write_result_raw(self.outbox.bytes(), id, result);
            }
            self.outbox.bytes().push(b'\n');
            return;
        }
        // The message, serialized before the HTTP head that gives its
        // length, in a buffer kept for the next answer.
        let mut json = core::mem::take(&mut self.scratch);
        json.clear();
        let (status, retry_after) = match message {
            Final::Result(result) => {
                if let Some(id) = id {
                    // At once: a host request's connection is new, and its
                    // buffer would otherwise grow by doubling from empty.
                    json.reserve(result.len() + 64);
                    jsonrpc::write_result_raw(&mut json, id, result);
                }
                (200, None)
            }
            Final::Error(e, admission) => {
                jsonrpc::write_error(&mut json, id, e);
                (rules::status_of(e, admission), e.retry_after())
            }
        };
        match self.wire {
            Wire::Stdio(_) => {
                self.outbox.bytes().extend_from_slice(&json);
                self.outbox.bytes().push(b'\n');
            }
            Wire::Http(_) => self.http_final(&json, status, retry_after, now),
        }
        self.scratch = json;
    }

    /// Write a notification about a request in flight: a line on stdio; on
    /// HTTP an SSE event, switching the response to SSE first if needed.
    fn emit_notification(&mut self, method: &str, params: &Value) {
        let mut json = Vec::with_capacity(128);
        jsonrpc::write_notification(&mut json, method, params);
        self.emit_on_stream(&json);
    }

    /// A message about the request in flight (a notification, or in a
    /// session a server-to-client request): a line on stdio; on HTTP an SSE
    /// event of the exchange, switching its response to SSE first if needed.
    fn emit_on_stream(&mut self, json: &[u8]) {
        match &mut self.wire {
            Wire::Stdio(_) => {
                self.outbox.bytes().extend_from_slice(json);
                self.outbox.bytes().push(b'\n');
            }
            Wire::Http(_) => self.http_on_stream(json),
        }
    }
}

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
