//! The per-connection state machine.
//!
//! A [`Connection`] owns everything one stdio stream needs: framing state,
//! the calls in flight and waiting, and the bytes to write. It does no I/O
//! and reads no clock; the driver feeds it and drains it.
//!
//! # Driving contract
//!
//! After **every** input ([`handle_input`](Connection::handle_input),
//! [`handle_input_closed`](Connection::handle_input_closed),
//! [`handle_timeout`](Connection::handle_timeout),
//! [`complete`](Connection::complete), [`call_event`](Connection::call_event)),
//! drain [`poll_output`](Connection::poll_output) until it returns `None`.
//! Then wait for the next input or until [`poll_timeout`](Connection::poll_timeout),
//! whichever comes first. Read more input only while
//! [`wants_input`](Connection::wants_input) is true.
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

use alloc::boxed::Box;
use alloc::collections::{BTreeMap, VecDeque};
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use bytes::Bytes;
use core::fmt;
use serde_json::{json, Map, Value};

use crate::dispatch::{self, Admitted, Dispatch};
use crate::error::ErrorObject;
use crate::handler::{CallEvent, CallId, CancelFlag, Invocation, Outcome, Request};
use crate::jsonrpc::{self, RequestId};
use crate::meta::{LogLevel, ProgressToken};
use crate::service::Service;
use crate::stdio::{Line, LineFramer};
use crate::time::Instant;

/// The transport a connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// Newline-delimited JSON-RPC over a byte stream (stdin/stdout, or any
    /// reliable bidirectional stream: `basic/transports/stdio.mdx`).
    Stdio,
}

/// Something the driver must do.
#[derive(Debug)]
pub enum Output {
    /// Write these bytes, in order.
    Transmit(Bytes),
    /// Run this call: [`Invocation::run`] it, or answer its request by hand.
    /// Report the outcome with [`Connection::complete`].
    Invoke(Invocation),
    /// Stop this call: drop its future and set its [`CancelFlag`]. Any
    /// later completion of it is ignored.
    Cancel(CallId),
    /// Nothing more will be written: close the output.
    Close,
}

/// Why [`Connection::complete`] did not accept an outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompleteError {
    /// The call already ended (cancelled, timed out, or completed).
    UnknownCall,
}

impl fmt::Display for CompleteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the call is no longer in flight")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for CompleteError {}

/// What kind of answer a call expects, kept to check and shape its outcome.
#[derive(Debug)]
enum Expect {
    Tool(Option<usize>),
    Resource(String),
    Prompt,
    Complete,
}

#[derive(Debug)]
struct Call {
    id: RequestId,
    expect: Expect,
    progress_token: Option<ProgressToken>,
    last_progress: Option<f64>,
    log_level: Option<LogLevel>,
    deadline: Option<Instant>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Running(CallId),
    Queued,
}

/// One stdio stream's protocol state. See the [module docs](self) for the
/// driving contract.
pub struct Connection {
    service: Service,
    framer: LineFramer,
    out: Vec<u8>,
    events: VecDeque<Output>,
    calls: BTreeMap<CallId, Call>,
    by_request: BTreeMap<RequestId, Slot>,
    queued: VecDeque<Box<Admitted>>,
    next_call: u64,
    input_closed: bool,
    closed: bool,
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
    pub fn new(service: &Service, transport: Transport, _now: Instant) -> Self {
        let Transport::Stdio = transport;
        Connection {
            framer: LineFramer::new(service.limits().max_message_bytes),
            service: service.clone(),
            out: Vec::new(),
            events: VecDeque::new(),
            calls: BTreeMap::new(),
            by_request: BTreeMap::new(),
            queued: VecDeque::new(),
            next_call: 1,
            input_closed: false,
            closed: false,
        }
    }

    /// Bytes received from the peer.
    pub fn handle_input(&mut self, data: &[u8], now: Instant) {
        if self.input_closed {
            return;
        }
        self.framer.push(data);
        while let Some(line) = self.framer.next_line() {
            self.handle_line(line, now);
        }
    }

    /// The peer closed its side (EOF on stdin). A final unterminated line is
    /// processed; calls in flight finish and are answered; then
    /// [`Output::Close`] is emitted.
    pub fn handle_input_closed(&mut self, now: Instant) {
        if self.input_closed {
            return;
        }
        if let Some(line) = self.framer.finish() {
            self.handle_line(line, now);
        }
        self.input_closed = true;
        self.maybe_close();
    }

    /// Time passed: expire calls whose deadline is at or before `now`.
    pub fn handle_timeout(&mut self, now: Instant) {
        let expired: Vec<CallId> = self
            .calls
            .iter()
            .filter(|(_, c)| c.deadline.is_some_and(|d| d <= now))
            .map(|(k, _)| *k)
            .collect();
        for call in expired {
            if let Some(c) = self.calls.remove(&call) {
                self.by_request.remove(&c.id);
                tracing::warn!(%call, id = %c.id, "call timed out");
                self.push_event(Output::Cancel(call));
                let err = ErrorObject::internal("Request timed out");
                jsonrpc::write_error(&mut self.out, Some(&c.id), &err);
                self.out.push(b'\n');
            }
        }
        self.start_queued(now);
        self.maybe_close();
    }

    /// A handler finished `call` with `outcome`.
    pub fn complete(
        &mut self,
        call: CallId,
        outcome: Outcome,
        now: Instant,
    ) -> Result<(), CompleteError> {
        let Some(c) = self.calls.remove(&call) else {
            return Err(CompleteError::UnknownCall);
        };
        self.by_request.remove(&c.id);
        self.write_outcome(&c, outcome);
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
                jsonrpc::write_notification(
                    &mut self.out,
                    "notifications/progress",
                    &Value::Object(params),
                );
                self.out.push(b'\n');
            }
            CallEvent::Log(m) => {
                // `logging.mdx`: only for requests that set a level, at or
                // above it, and only if the server declared `logging`.
                if !logging || !c.log_level.is_some_and(|min| m.level >= min) {
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
                jsonrpc::write_notification(
                    &mut self.out,
                    "notifications/message",
                    &Value::Object(params),
                );
                self.out.push(b'\n');
            }
        }
    }

    /// The next thing to do, or `None` when drained.
    pub fn poll_output(&mut self) -> Option<Output> {
        if let Some(e) = self.events.pop_front() {
            return Some(e);
        }
        if self.out.is_empty() {
            return None;
        }
        Some(Output::Transmit(Bytes::from(core::mem::take(
            &mut self.out,
        ))))
    }

    /// The earliest deadline, if any call has one.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.calls.values().filter_map(|c| c.deadline).min()
    }

    /// Whether the driver should read more input now (backpressure).
    pub fn wants_input(&self) -> bool {
        !self.input_closed && self.queued.len() < self.service.limits().max_queued_calls
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
                jsonrpc::write_error(&mut self.out, None, &err);
                self.out.push(b'\n');
                return;
            }
        };
        let incoming = jsonrpc::parse(&bytes);
        match dispatch::dispatch(&self.service, incoming, None) {
            Dispatch::Answer { id, result } => {
                if self.is_in_use(&id) {
                    self.write_duplicate(&id);
                    return;
                }
                jsonrpc::write_result_raw(&mut self.out, &id, &result);
                self.out.push(b'\n');
            }
            Dispatch::Error { id, error } => {
                tracing::debug!(code = error.code, "request rejected");
                jsonrpc::write_error(&mut self.out, id.as_ref(), &error);
                self.out.push(b'\n');
            }
            Dispatch::Invoke(admitted) => {
                if self.is_in_use(&admitted.id) {
                    self.write_duplicate(&admitted.id);
                    return;
                }
                if self.calls.len() < self.service.limits().max_concurrent_calls {
                    self.start(admitted, now);
                } else {
                    self.by_request.insert(admitted.id.clone(), Slot::Queued);
                    self.queued.push_back(admitted);
                }
            }
            Dispatch::Cancel { request_id } => self.cancel(&request_id),
            Dispatch::Ignore => {}
        }
    }

    fn is_in_use(&self, id: &RequestId) -> bool {
        self.by_request.contains_key(id)
    }

    fn write_duplicate(&mut self, id: &RequestId) {
        let err = ErrorObject::invalid_request("Request id is already used by a request in flight");
        jsonrpc::write_error(&mut self.out, Some(id), &err);
        self.out.push(b'\n');
    }

    fn cancel(&mut self, id: &RequestId) {
        match self.by_request.remove(id) {
            Some(Slot::Running(call)) => {
                self.calls.remove(&call);
                tracing::debug!(%call, %id, "cancelled by client");
                self.push_event(Output::Cancel(call));
            }
            Some(Slot::Queued) => {
                self.queued.retain(|a| &a.id != id);
                tracing::debug!(%id, "cancelled by client before it started");
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
            handler,
            tool,
        } = *admitted;
        let expect = match &request {
            Request::CallTool { .. } => Expect::Tool(tool),
            Request::ReadResource { uri, .. } => Expect::Resource(uri.clone()),
            Request::GetPrompt { .. } => Expect::Prompt,
            Request::Complete(_) => Expect::Complete,
        };
        let deadline = self.service.limits().call_timeout.map(|t| now + t);
        self.calls.insert(
            call,
            Call {
                id: id.clone(),
                expect,
                progress_token: meta.progress_token.clone(),
                last_progress: None,
                log_level: meta.log_level,
                deadline,
            },
        );
        self.by_request.insert(id, Slot::Running(call));
        self.push_event(Output::Invoke(Invocation {
            call,
            request,
            meta: Arc::new(meta),
            handler,
            cancel: CancelFlag::default(),
        }));
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

    fn maybe_close(&mut self) {
        if self.input_closed && !self.closed && self.calls.is_empty() && self.queued.is_empty() {
            self.closed = true;
            self.push_event(Output::Close);
        }
    }

    fn push_event(&mut self, e: Output) {
        if !self.out.is_empty() {
            let bytes = Bytes::from(core::mem::take(&mut self.out));
            self.events.push_back(Output::Transmit(bytes));
        }
        self.events.push_back(e);
    }

    fn write_outcome(&mut self, call: &Call, outcome: Outcome) {
        let inner = &self.service.inner;
        let shaped: Result<Vec<u8>, ErrorObject> = match (&call.expect, outcome) {
            (_, Outcome::Error(e)) => Err(e),
            (Expect::Tool(tool), Outcome::CallTool(r)) => {
                #[cfg(feature = "std")]
                if let Some(schema) = tool.and_then(|i| inner.tools[i].output.as_ref()) {
                    if r.is_error != Some(true) {
                        let valid = match &r.structured_content {
                            Some(sc) => schema.validate(sc).map_err(|why| {
                                tracing::error!(id = %call.id, %why, "tool result does not match its outputSchema");
                            }),
                            None => {
                                tracing::error!(id = %call.id, "tool with an outputSchema returned no structuredContent");
                                Err(())
                            }
                        };
                        if valid.is_err() {
                            let err = ErrorObject::internal("Tool returned structured content that does not match its outputSchema");
                            jsonrpc::write_error(&mut self.out, Some(&call.id), &err);
                            self.out.push(b'\n');
                            return;
                        }
                    }
                }
                #[cfg(not(feature = "std"))]
                let _ = tool;
                Ok(crate::shape::complete(
                    to_value(&r),
                    None,
                    &inner.server_meta,
                ))
            }
            (Expect::Resource(uri), Outcome::ReadResource(r)) => {
                if r.contents.is_empty() {
                    // `resources.mdx`: never an empty `contents` for a
                    // resource that does not exist.
                    Err(dispatch::resource_not_found(uri))
                } else {
                    let hint = r.cache.unwrap_or(inner.cache.reads);
                    Ok(crate::shape::complete(
                        to_value(&r),
                        Some(hint),
                        &inner.server_meta,
                    ))
                }
            }
            (Expect::Prompt, Outcome::GetPrompt(r)) => Ok(crate::shape::complete(
                to_value(&r),
                None,
                &inner.server_meta,
            )),
            (Expect::Complete, Outcome::Complete(mut c)) => {
                // `completion.mdx` § Completion Results: at most 100 values.
                if c.values.len() > 100 {
                    let total = c.values.len() as u64;
                    c.values.truncate(100);
                    c.has_more = Some(true);
                    c.total = Some(c.total.map_or(total, |t| t.max(total)));
                }
                Ok(crate::shape::complete(
                    json!({ "completion": c }),
                    None,
                    &inner.server_meta,
                ))
            }
            (expect, _) => {
                tracing::error!(id = %call.id, ?expect, "handler returned an outcome of the wrong kind");
                Err(ErrorObject::internal("Internal error"))
            }
        };
        match shaped {
            Ok(result) => jsonrpc::write_result_raw(&mut self.out, &call.id, &result),
            Err(e) => jsonrpc::write_error(&mut self.out, Some(&call.id), &e),
        }
        self.out.push(b'\n');
    }
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}
