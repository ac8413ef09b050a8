//! A connection's Streamable HTTP side (`basic/transports/streamable-http.mdx`):
//! which request is being answered, how its answer is framed, and every
//! decision about it that is not the message's own. The shared call core
//! in [`crate::connection`] decides *what* to say; this module decides how
//! it goes out on HTTP:
//!
//! - requests are decoded one at a time, pipelined ones wait (RFC 9112
//!   § 9.3.2), and `Expect: 100-continue` is answered before the body;
//! - the head checks of [`rules`] refuse with 400/403/404/405/406/415/431,
//!   a request not received in time gets 408;
//! - a notification is accepted with 202 and no body (§ Sending Messages 5);
//! - an answer is one JSON response, or an SSE stream once a message about
//!   the request precedes it (§ Receiving Messages), with keep-alive
//!   comments while it is open;
//! - the client closing the connection cancels the request it was for
//!   (§ Cancellation), except an initialize-era session's call;
//! - an idle keep-alive connection closes, or is shed for a new client.
//!
//! The initialize-era session verbs live in [`super::session`].

use alloc::boxed::Box;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use bytes::Bytes;

use super::codec::{self, CodecLimits, Decoded, Decoder, Head};
use super::rules;
use super::session::LegacyExchange;
use crate::admission::{self, Admission, Facts};
use crate::auth::{Authorization, Challenge, Checked, DeferredVerdict};
use crate::connection::outbox::Outbox;
use crate::connection::timers::Timer;
use crate::connection::{CompleteError, Connection, Output, Wire};
use crate::error::ErrorObject;
use crate::handler::{CallId, Handler, Invocation, Outcome, Request, Shared};
use crate::jsonrpc;
use crate::service::Service;
use crate::time::Instant;

/// The reason of the 408 for a request not whole in time.
const REQUEST_TIMEOUT: &str = "Request Timeout: the request was not received in time";

/// The HTTP side of a connection.
#[derive(Debug)]
pub(crate) struct HttpWire {
    /// How answers are framed.
    framing: Framing,
    decoder: Decoder,
    /// The head whose body is being read.
    head: Option<Head>,
    /// The request being answered; pipelined ones wait in the decoder.
    pub(crate) exchange: Option<Exchange>,
    /// A response that closes the connection was written.
    pub(crate) closing: bool,
    /// The client went away while initialize-era session calls were
    /// running: they go on, and what they write is dropped.
    pub(crate) peer_gone: bool,
    /// Closed between requests (idle timeout, shed): no response is in
    /// flight, so the close needs no lingering.
    closed_idle: bool,
    /// The request being answered, held while a deferred authenticator
    /// checks its token ([`crate::auth`]).
    pub(crate) parked: Option<Box<Parked>>,
}

/// A request held while its bearer token is checked by a deferred
/// authenticator: its head and body wait here, its future runs outside as
/// the call `call` ([`Request::Authenticate`]). At most one per
/// connection: it is the exchange's request, and pipelined ones stay
/// undecoded behind it (RFC 9112 § 9.3.2).
pub(crate) struct Parked {
    pub(crate) call: CallId,
    head: Head,
    body: Bytes,
    /// The future's cancel flag: set, its task drops the future.
    shared: Arc<Shared>,
}

impl core::fmt::Debug for Parked {
    /// Without the head: it carries the token.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Parked")
            .field("call", &self.call)
            .finish_non_exhaustive()
    }
}

/// How a connection's answers leave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Framing {
    /// As HTTP/1.1 bytes, on a connection whose bytes proto decodes.
    H1,
    /// As an [`Output::Respond`] head and unframed body bytes, for one
    /// request a host HTTP stack parsed ([`Connection::http_request`]).
    Parts,
}

/// The request an HTTP connection is answering.
#[derive(Debug)]
pub(crate) struct Exchange {
    keep_alive: bool,
    /// The SSE response head was written.
    sse: bool,
    /// The exchange belongs to an initialize-era session.
    pub(crate) legacy: Option<Box<LegacyExchange>>,
}

impl Exchange {
    /// The client asked to keep the connection open after this answer.
    pub(crate) fn keep_alive(&self) -> bool {
        self.keep_alive
    }
}

impl HttpWire {
    pub(crate) fn new(service: &Service) -> Self {
        let http = service.http_config();
        HttpWire {
            framing: Framing::H1,
            decoder: Decoder::new(CodecLimits {
                max_head_bytes: http.max_head_bytes,
                max_headers: http.max_headers,
                max_body_bytes: service.limits().max_message_bytes,
            }),
            head: None,
            exchange: None,
            closing: false,
            peer_gone: false,
            closed_idle: false,
            parked: None,
        }
    }

    /// Read on while a request is answered, so that a client that goes
    /// away is noticed, up to one more request's worth of bytes.
    pub(crate) fn wants_input(&self, service: &Service) -> bool {
        !self.closing
            && self.decoder.buffered()
                <= service.limits().max_message_bytes + service.http_config().max_head_bytes
    }

    /// Whether the close should read and discard what the client still
    /// sends (a response may be in flight: RFC 9112 § 9.6).
    pub(crate) fn lingers(&self) -> bool {
        !self.peer_gone && !self.closed_idle
    }

    /// Nothing accepted would be lost by closing now.
    pub(crate) fn is_idle(&self) -> bool {
        !self.closing && self.exchange.is_none() && self.head.is_none()
    }

    /// Write a response head: HTTP/1.1 bytes, or an [`Output::Respond`].
    /// `extra` are whole `Name: value` lines.
    fn head(
        &self,
        out: &mut Outbox,
        status: u16,
        content_type: Option<&str>,
        length: Option<usize>,
        close: bool,
        extra: &[&str],
    ) {
        match self.framing {
            Framing::H1 => {
                codec::write_head(out.bytes(), status, content_type, length, close, extra)
            }
            Framing::Parts => {
                // Every parts answer ends its exchange: what a host stack
                // is told is whether its connection must end as well.
                let mut headers = Vec::with_capacity(extra.len() + 1);
                if let Some(ct) = content_type {
                    headers.push((String::from("content-type"), String::from(ct)));
                }
                for line in extra {
                    if let Some((name, value)) = line.split_once(':') {
                        headers
                            .push((name.trim().to_ascii_lowercase(), String::from(value.trim())));
                    }
                }
                out.push(Output::Respond(super::Response {
                    status,
                    headers,
                    content_length: length,
                    close: self.closing,
                }));
            }
        }
    }

    /// Part of a streamed body: a chunk on HTTP/1.1, the bytes as they are
    /// otherwise.
    fn chunk(&self, out: &mut Outbox, data: &[u8]) {
        match self.framing {
            Framing::H1 => codec::write_chunk(out.bytes(), data),
            Framing::Parts => out.bytes().extend_from_slice(data),
        }
    }

    /// The end of a streamed body.
    pub(crate) fn end_body(&self, out: &mut Outbox) {
        if self.framing == Framing::H1 {
            codec::write_last_chunk(out.bytes());
        }
    }

    /// The exchange's response becomes an SSE stream, once
    /// (`streamable-http.mdx` § Receiving Messages: `X-Accel-Buffering: no`
    /// so proxies do not hold events back; chunked, so the connection can
    /// be reused after the final event).
    pub(crate) fn start_sse(&mut self, out: &mut Outbox) {
        let Some(ex) = self.exchange.as_mut() else {
            return;
        };
        if !ex.sse {
            ex.sse = true;
            let close = !ex.keep_alive;
            self.head(
                out,
                200,
                Some("text/event-stream"),
                None,
                close,
                &["Cache-Control: no-cache", "X-Accel-Buffering: no"],
            );
        }
    }

    /// One SSE event carrying one JSON-RPC message on a single `data:`
    /// line.
    fn sse_event(&self, out: &mut Outbox, json: &[u8]) {
        let mut event = Vec::with_capacity(json.len() + 8);
        event.extend_from_slice(b"data: ");
        event.extend_from_slice(json);
        event.extend_from_slice(b"\n\n");
        self.chunk(out, &event);
    }

    /// An SSE comment line: ignored by clients, keeps intermediaries from
    /// timing the stream out.
    fn keep_alive_comment(&self, out: &mut Outbox) {
        self.chunk(out, b":\n\n");
    }

    /// A whole non-streamed answer to the exchange, which ends it: whether
    /// the client asked to keep the connection, `None` without an exchange.
    fn answer(
        &mut self,
        out: &mut Outbox,
        shutting_down: bool,
        status: u16,
        content_type: Option<&str>,
        body: &[u8],
        extra: &[&str],
    ) -> Option<bool> {
        let Some(ex) = self.exchange.take() else {
            tracing::error!("HTTP answer without an exchange");
            return None;
        };
        let close = !ex.keep_alive || shutting_down;
        self.head(out, status, content_type, Some(body.len()), close, extra);
        out.bytes().extend_from_slice(body);
        Some(ex.keep_alive)
    }

    /// The final message of the exchange, which ends it: the last event of
    /// its SSE stream, or its JSON response with `status` (and
    /// `Retry-After` for a retryable error). Whether the client asked to
    /// keep the connection, `None` without an exchange.
    fn final_message(
        &mut self,
        out: &mut Outbox,
        shutting_down: bool,
        json: &[u8],
        status: u16,
        retry_after: Option<u64>,
    ) -> Option<bool> {
        let Some(ex) = self.exchange.as_ref() else {
            tracing::error!("HTTP final message without an exchange");
            return None;
        };
        if ex.sse {
            let keep_alive = ex.keep_alive;
            self.sse_event(out, json);
            self.end_body(out);
            self.exchange = None;
            return Some(keep_alive);
        }
        // A session's JSON-RPC errors travel with 200: the initialize-era
        // transports give HTTP statuses only to transport faults.
        let (status, header) = match &ex.legacy {
            Some(l) => (200, l.session_header()),
            // A retryable failure (503 or 429: `rules::status_of`) says
            // when to try again (RFC 9110 § 10.2.3).
            None if retry_after.is_some() && status != 200 => (
                status,
                retry_after.map(|s| alloc::format!("Retry-After: {s}")),
            ),
            None => (status, None),
        };
        let extra: &[&str] = match &header {
            Some(h) => &[h.as_str()],
            None => &[],
        };
        self.answer(
            out,
            shutting_down,
            status,
            Some("application/json"),
            json,
            extra,
        )
    }

    /// A message about the request being answered (a notification, or in
    /// a session a server-to-client request): an SSE event, switching the
    /// response to SSE first if needed.
    fn on_stream(&mut self, out: &mut Outbox, json: &[u8]) {
        if self.exchange.is_some() {
            self.start_sse(out);
            self.sse_event(out, json);
        }
    }

    /// Answer a request refused before or instead of admission, and stop
    /// answering: the rest of the stream cannot be trusted to be framed.
    fn refuse(&mut self, out: &mut Outbox, status: u16, message: &str, allow: Option<&str>) {
        self.exchange = None;
        self.closing = true;
        let allow = allow.as_slice();
        if status == 404 || status == 405 {
            // Not an MCP answer: a plain body, so a 404 is never mistaken
            // for the -32601 "method not found" of the MCP endpoint.
            let ct = Some("text/plain; charset=utf-8");
            self.head(out, status, ct, Some(message.len()), true, allow);
            out.bytes().extend_from_slice(message.as_bytes());
        } else {
            // `§ Security & Endpoint`: the body MAY be a JSON-RPC error
            // without an id.
            let mut json = Vec::with_capacity(128);
            let error = ErrorObject::invalid_request(String::from(message));
            jsonrpc::write_error(&mut json, None, &error);
            let ct = Some("application/json");
            self.head(out, status, ct, Some(json.len()), true, allow);
            out.bytes().extend_from_slice(&json);
        }
    }
}

impl Connection {
    /// A connection that answers one request a host HTTP stack parsed
    /// (hyper, say): the same Streamable HTTP rules as on
    /// [`Transport::Http`](crate::Transport), with the answer framed as an
    /// [`Output::Respond`] head followed by [`Output::Transmit`]s of body
    /// bytes (SSE events as they are, no chunked framing) and
    /// [`Output::Close`] at the end of the body. A body the host could not
    /// read ([`BodyError`](crate::BodyError)) is answered as on the native
    /// listener (413 over [`Limits::max_message_bytes`](crate::Limits), 400
    /// when unreadable); the head's field count
    /// and size are held to [`HttpConfig`](crate::HttpConfig)'s limits
    /// (431). A client that goes away (its response body dropped, its
    /// HTTP/2 stream reset) is [`handle_input_closed`](Connection::handle_input_closed).
    /// `host` is what the host attached to the request, which handlers
    /// read with [`Context::host`](crate::Context::host).
    pub fn http_request(
        service: &Service,
        head: Head,
        body: Result<Bytes, crate::BodyError>,
        host: Option<crate::handler::Host>,
        now: Instant,
    ) -> Self {
        let mut conn = Connection::new(service, crate::Transport::Http, now);
        conn.host = host;
        conn.timers.stop(Timer::Idle);
        conn.input_closed = true;
        let config = service.http_config();
        let Some(http) = conn.http() else {
            return conn;
        };
        http.framing = Framing::Parts;
        let too_large = head.size() > config.max_head_bytes;
        let refusal = match &body {
            _ if head.count_fields() > config.max_headers => {
                Some((431, "Too many request header fields"))
            }
            _ if too_large => Some((431, "Request header fields too large")),
            Err(crate::BodyError::TooLarge) => Some((413, "Request body too large")),
            Err(crate::BodyError::Unreadable) => Some((400, "Malformed HTTP request body")),
            Err(crate::BodyError::TimedOut) => Some((408, REQUEST_TIMEOUT)),
            Ok(_) => None,
        };
        http.exchange = Some(Exchange {
            keep_alive: false,
            sse: false,
            legacy: None,
        });
        if let Some((status, reason)) = refusal {
            conn.refuse_http(status, reason, None);
            return conn;
        }
        if let Err(r) = check_head(service, &head) {
            tracing::debug!(status = r.status, "HTTP request refused");
            conn.refuse_http(r.status, &r.message, r.allow);
            return conn;
        }
        #[cfg(feature = "std")]
        let shared = &service.inner.host_memo;
        #[cfg(feature = "std")]
        if let Ok(mut memo) = shared.try_lock() {
            conn.memo = core::mem::take(&mut *memo);
        }
        conn.handle_request(&head, body.unwrap_or_default(), now);
        #[cfg(feature = "std")]
        if let Ok(mut memo) = shared.try_lock() {
            *memo = core::mem::take(&mut conn.memo);
        }
        conn
    }

    /// A whole non-streamed answer to the exchange, which ends it.
    pub(crate) fn http_answer(
        &mut self,
        status: u16,
        content_type: Option<&str>,
        body: &[u8],
        extra: &[&str],
        now: Instant,
    ) {
        self.frame_last(now, |http, out, shutting_down| {
            http.answer(out, shutting_down, status, content_type, body, extra)
        });
    }

    /// The final message of the exchange, which ends it.
    pub(crate) fn http_final(
        &mut self,
        json: &[u8],
        status: u16,
        retry_after: Option<u64>,
        now: Instant,
    ) {
        self.frame_last(now, |http, out, shutting_down| {
            http.final_message(out, shutting_down, json, status, retry_after)
        });
    }

    /// Frame the exchange's last write with `frame`, then end the exchange
    /// as the client asked (the keep-alive `frame` returns).
    fn frame_last(
        &mut self,
        now: Instant,
        frame: impl FnOnce(&mut HttpWire, &mut Outbox, bool) -> Option<bool>,
    ) {
        let Wire::Http(http) = &mut self.wire else {
            return;
        };
        if let Some(keep_alive) = frame(http, &mut self.outbox, self.shutting_down) {
            self.end_exchange(keep_alive, now);
        }
    }

    /// A message about the request being answered, on its SSE stream.
    pub(crate) fn http_on_stream(&mut self, json: &[u8]) {
        if let Wire::Http(http) = &mut self.wire {
            http.on_stream(&mut self.outbox, json);
        }
    }

    pub(crate) fn http(&mut self) -> Option<&mut HttpWire> {
        match &mut self.wire {
            Wire::Http(h) => Some(h),
            Wire::Stdio(_) => None,
        }
    }

    pub(crate) fn http_input(&mut self, data: &[u8], now: Instant) {
        if let Some(http) = self.http() {
            http.decoder.push(data);
            self.pump_http(now);
        }
    }

    /// The exchange's answer is written: the connection closes after it,
    /// or waits idle for the next request, which is decoded now.
    pub(crate) fn end_exchange(&mut self, keep_alive: bool, now: Instant) {
        let shutting_down = self.shutting_down;
        let idle = self.service.http_config().idle_timeout;
        let Wire::Http(http) = &mut self.wire else {
            return;
        };
        http.exchange = None;
        self.timers.stop(Timer::Heartbeat);
        if !keep_alive || shutting_down {
            http.closing = true;
        } else {
            self.timers.set(Timer::Idle, now + idle);
        }
        self.maybe_close();
        if !self.closed {
            self.pump_http(now);
        }
    }

    /// The exchange becomes a stream that stays open (a listen stream, a
    /// session's GET stream), with keep-alive comments while it is.
    pub(crate) fn open_http_stream(&mut self, now: Instant) -> bool {
        let heartbeat = self.service.limits().heartbeat;
        let Wire::Http(http) = &mut self.wire else {
            return true;
        };
        if http.exchange.is_none() {
            return false;
        }
        http.start_sse(&mut self.outbox);
        self.timers.set(Timer::Heartbeat, now + heartbeat);
        true
    }

    /// The client closed the connection, or a write to it failed.
    pub(crate) fn http_hang_up(&mut self, now: Instant) {
        if self.input_closed && self.peer_gone() {
            return;
        }
        self.input_closed = true;
        if let Some(http) = self.http() {
            // Nothing more is read, answered or written here.
            http.closing = true;
            http.peer_gone = true;
        }
        self.outbox.discard();
        self.forget_outbound();
        // A session call waiting for the client's answer can never get it
        // now: it ends (into the void, like all that follows).
        self.fail_waiting_calls(now);
        // 2026-07-28: the response stream is gone, which cancels what it
        // was for (`streamable-http.mdx` § Cancellation). An initialize-era
        // session's call goes on: there, "disconnection SHOULD NOT be
        // interpreted as the client cancelling its request" (2025-11-25
        // `transports.mdx` § Sending Messages); the client cancels with
        // `notifications/cancelled` on another connection, or ends the
        // session. Its answer is dropped: streams are not resumable.
        let cancel: Vec<CallId> = self
            .calls
            .iter()
            .filter(|(_, c)| c.legacy.is_none())
            .map(|(k, _)| *k)
            .collect();
        for call in cancel {
            if let Some(c) = self.remove_call(call) {
                self.by_request.remove(&c.id);
                c.shared.cancel();
            }
            tracing::debug!(%call, "cancelled: HTTP client closed the connection");
            self.push_event(Output::Cancel(call));
        }
        // A request waiting for its token's verdict is dropped with the
        // future computing it.
        if self.drop_parked() {
            tracing::debug!("HTTP client closed the connection while its token was checked");
        }
        // Nothing waits for a slot on HTTP (an exchange is one request),
        // and a connection answering a session call has no listen or GET
        // stream: only the call is left.
        if self.calls.is_empty() {
            self.by_request.clear();
            self.close();
            return;
        }
        tracing::debug!(
            running = self.calls.len(),
            "HTTP client closed the connection; its session calls go on"
        );
    }

    /// The HTTP timers that came due: a keep-alive comment on an open
    /// stream, 408 for a request not received in time, the idle close.
    pub(crate) fn http_timeout(&mut self, now: Instant) {
        let heartbeat = self.service.limits().heartbeat;
        let Wire::Http(http) = &mut self.wire else {
            return;
        };
        // Once the client is gone, only the calls' deadlines matter.
        if http.peer_gone {
            return;
        }
        if http.exchange.is_some() && self.timers.due(Timer::Heartbeat, now) {
            http.keep_alive_comment(&mut self.outbox);
            self.timers.set(Timer::Heartbeat, now + heartbeat);
        }
        let Wire::Http(http) = &mut self.wire else {
            return;
        };
        if self.timers.due(Timer::Request, now) {
            self.timers.stop(Timer::Request);
            if self.drop_parked() {
                // The authenticator did not decide within the request
                // deadline: the server's fault, not the token's.
                tracing::warn!("bearer token not checked in time");
                self.refuse_unchecked(crate::error::RETRY_AFTER_SECONDS, now);
                return;
            }
            tracing::debug!("HTTP request not received in time");
            self.refuse_http(408, REQUEST_TIMEOUT, None);
        } else if http.exchange.is_none() && self.timers.due(Timer::Idle, now) {
            tracing::debug!("closing idle HTTP connection");
            http.closed_idle = true;
            self.close();
        }
    }

    /// Which of the connection's own timers apply to HTTP now.
    pub(crate) fn http_timer_applies(&self, t: Timer) -> bool {
        let Wire::Http(h) = &self.wire else {
            return t == Timer::Grace;
        };
        match t {
            Timer::Grace => true,
            _ if h.peer_gone => false,
            Timer::Request => true,
            Timer::Idle => h.exchange.is_none(),
            Timer::Heartbeat => h.exchange.is_some(),
        }
    }

    /// Since when the connection is between requests or still receiving a
    /// head (see [`Connection::idle_since`]).
    pub(crate) fn http_idle_since(&self) -> Option<Instant> {
        let Wire::Http(h) = &self.wire else {
            return None;
        };
        if !h.is_idle() {
            return None;
        }
        let idle = self.service.http_config().idle_timeout;
        self.timers
            .get(Timer::Idle)
            .map(|d| Instant::from_nanos(d.as_nanos().saturating_sub(idle.as_nanos() as u64)))
    }

    /// Close an idle connection to make room for another (see
    /// [`Connection::shed`]).
    pub(crate) fn shed_http(&mut self) {
        if let Some(h) = self.http() {
            h.closed_idle = true;
        }
        self.close();
    }

    /// Decode and answer HTTP requests until one is in progress.
    pub(crate) fn pump_http(&mut self, now: Instant) {
        loop {
            let closed = self.closed;
            let Wire::Http(http) = &mut self.wire else {
                return;
            };
            if http.exchange.is_some() || http.closing || closed {
                return;
            }
            let Some(event) = http.decoder.decode() else {
                if http.decoder.in_request() {
                    let head = self.service.http_config().head_timeout;
                    self.timers.start(Timer::Request, now + head);
                } else {
                    self.timers.stop(Timer::Request);
                }
                return;
            };
            match event {
                Decoded::Error(e) => {
                    tracing::debug!(status = e.status, "malformed HTTP request");
                    let reason = e.reason.clone();
                    self.refuse_http(e.status, &reason, None);
                    return;
                }
                Decoded::Head(head) => {
                    if let Err(r) = check_head(&self.service, &head) {
                        tracing::debug!(status = r.status, "HTTP request refused");
                        self.refuse_http(r.status, &r.message, r.allow);
                        return;
                    }
                    if head.expects_continue() {
                        self.outbox
                            .bytes()
                            .extend_from_slice(b"HTTP/1.1 100 Continue\r\n\r\n");
                    }
                    http.head = Some(head);
                    let body = self.service.http_config().request_timeout;
                    self.timers.set(Timer::Request, now + body);
                }
                Decoded::Body(body) => {
                    self.timers.stop(Timer::Request);
                    self.timers.stop(Timer::Idle);
                    let Some(head) = http.head.take() else { return };
                    http.exchange = Some(Exchange {
                        keep_alive: head.keep_alive(),
                        sse: false,
                        legacy: None,
                    });
                    self.handle_request(&head, body, now);
                    if let Some(http) = self.http() {
                        http.decoder.recycle(head);
                    }
                }
            }
        }
    }

    /// A request, past the head checks: the resource metadata, or once
    /// authenticated ([`crate::auth`]) a session verb or a message. A
    /// deferred authenticator parks it until its verdict comes back
    /// ([`Connection::resume_parked`]), which carries on from the same
    /// point as a ready verdict does.
    fn handle_request(&mut self, head: &Head, body: Bytes, now: Instant) {
        let service = self.service.clone();
        if let Some(auth) = &service.inner.auth {
            if auth.is_metadata_path(head.path.as_str()) {
                if head.method == "GET" {
                    let doc = auth.metadata_document();
                    self.http_answer(200, Some("application/json"), &doc, &[], now);
                } else {
                    self.refuse_http(405, "Method Not Allowed", Some("Allow: GET"));
                }
                return;
            }
            let checked = match auth.check(head) {
                Checked::Ready(checked) => checked,
                Checked::Deferred(future) => {
                    self.park(head, body, future, now);
                    return;
                }
            };
            if !self.authenticated(auth, checked, now) {
                return;
            }
        }
        self.admit_request(head, body, now);
    }

    /// Apply authentication's result: the principal is the request's, or
    /// the request is answered with the challenge (`false`).
    fn authenticated(
        &mut self,
        auth: &Authorization,
        checked: Result<crate::auth::Principal, Challenge>,
        now: Instant,
    ) -> bool {
        match checked {
            Ok(principal) => {
                self.principal = Some(Arc::new(principal));
                true
            }
            Err(challenge) => {
                tracing::debug!(status = challenge.status(), "HTTP request not authorized");
                self.refuse_auth(auth, &challenge, None, now);
                false
            }
        }
    }

    /// Hold the request while `future` decides on its token: the future
    /// goes out as an [`Output::Invoke`] of [`Request::Authenticate`],
    /// and the request deadline ([`HttpConfig::request_timeout`](crate::HttpConfig))
    /// bounds it.
    fn park(&mut self, head: &Head, body: Bytes, future: DeferredVerdict, now: Instant) {
        let call = CallId(self.next_call);
        self.next_call += 1;
        let shared = Arc::new(Shared::default());
        let deadline = now + self.service.http_config().request_timeout;
        self.timers.set(Timer::Request, deadline);
        let Some(http) = self.http() else { return };
        http.parked = Some(Box::new(Parked {
            call,
            head: head.clone(),
            body,
            shared: shared.clone(),
        }));
        tracing::debug!(%call, "HTTP request waits for its token's verdict");
        let run: crate::handler::BoxFuture<Outcome> =
            Box::pin(async move { Outcome::Authenticated(future.await) });
        let handler = Some(Handler::Deferred(run));
        let invocation = Invocation::new(call, Request::Authenticate, shared, handler);
        self.push_event(Output::Invoke(invocation));
    }

    /// The outcome of `call`, if it is the parked request's deferred
    /// authentication: the request goes on as if its verdict had been
    /// ready (admitted, or answered with its challenge). A panicking
    /// authenticator's `-32603` is a 500.
    pub(crate) fn resume_parked(
        &mut self,
        call: CallId,
        outcome: Outcome,
        now: Instant,
    ) -> Result<(), CompleteError> {
        let parked = match self.http() {
            Some(http) if http.parked.as_ref().is_some_and(|p| p.call == call) => {
                http.parked.take()
            }
            _ => None,
        };
        let (Some(parked), Some(auth)) = (parked, self.service.inner.auth.clone()) else {
            return Err(CompleteError::UnknownCall);
        };
        self.timers.stop(Timer::Request);
        let checked = match outcome {
            Outcome::Authenticated(verdict) => auth.admit(verdict),
            _ => {
                tracing::error!(%call, "the authenticator failed without a verdict");
                Err(Challenge::Failed)
            }
        };
        if self.authenticated(&auth, checked, now) {
            let Parked { head, body, .. } = *parked;
            self.admit_request(&head, body, now);
        }
        self.maybe_close();
        Ok(())
    }

    /// Drop the parked request and cancel its authentication, whose task
    /// then drops the future. Whether there was one.
    pub(crate) fn drop_parked(&mut self) -> bool {
        let Some(parked) = self.http().and_then(|h| h.parked.take()) else {
            return false;
        };
        parked.shared.cancel();
        self.push_event(Output::Cancel(parked.call));
        true
    }

    /// The parked request's token could not be checked in time: 503 with
    /// `Retry-After` (see [`Verdict::Unavailable`](crate::auth::Verdict)).
    fn refuse_unchecked(&mut self, retry_after: u64, now: Instant) {
        let service = self.service.clone();
        if let Some(auth) = &service.inner.auth {
            self.refuse_auth(auth, &Challenge::Unavailable(retry_after), None, now);
        }
    }

    /// An authenticated request (or any, without authorization): a
    /// session verb, or a message to admit.
    fn admit_request(&mut self, head: &Head, body: Bytes, now: Instant) {
        if head.method != "POST" {
            self.handle_session_verb(head, now);
            return;
        }
        let mirrors = rules::Mirrors {
            head,
            service: &self.service,
        };
        let facts = Facts {
            principal: self.principal.as_ref(),
            mirrors: Some(&mirrors),
            session: head.get(super::session::SESSION_HEADER).is_some(),
        };
        match admission::admit(&self.service, &body, facts, &mut self.memo, now) {
            Admission::Stateless(dispatched) => self.carry_out(dispatched, &body, now),
            Admission::Session(incoming) => self.handle_session_post(head, incoming, now),
        }
    }

    /// A notification was taken: on HTTP `§ Sending Messages` 5, 202 and
    /// no body, and whether it was (none is acted on over HTTP).
    pub(crate) fn accept_notification(&mut self, now: Instant) -> bool {
        if self.http().is_none() {
            return false;
        }
        self.http_answer(202, None, &[], &[], now);
        true
    }

    /// Answer a request that authorization refused: its status, the
    /// `WWW-Authenticate` challenge, and a JSON-RPC error as the body. The
    /// connection stays usable: the request was well framed.
    pub(crate) fn refuse_auth(
        &mut self,
        auth: &crate::auth::Authorization,
        challenge: &crate::auth::Challenge,
        id: Option<&crate::jsonrpc::RequestId>,
        now: Instant,
    ) {
        let mut json = Vec::with_capacity(128);
        let status = challenge.status();
        let header = match challenge {
            // Retryable, and no challenge: the token may be fine.
            Challenge::Unavailable(retry_after) => {
                let error = ErrorObject::unavailable(challenge.message()).with_data(
                    serde_json::json!({"retryable": true, "retryAfterSeconds": retry_after}),
                );
                jsonrpc::write_error(&mut json, id, &error);
                alloc::format!("Retry-After: {retry_after}")
            }
            Challenge::Failed => {
                jsonrpc::write_error(&mut json, id, &ErrorObject::internal(challenge.message()));
                self.http_answer(status, Some("application/json"), &json, &[], now);
                return;
            }
            _ => {
                let error = ErrorObject::invalid_request(challenge.message());
                jsonrpc::write_error(&mut json, id, &error);
                auth.www_authenticate(challenge)
            }
        };
        self.http_answer(status, Some("application/json"), &json, &[&header], now);
    }

    /// Answer an HTTP request refused before or instead of admission, and
    /// close: the rest of the stream cannot be trusted to be framed.
    pub(crate) fn refuse_http(&mut self, status: u16, message: &str, allow: Option<&str>) {
        let Wire::Http(http) = &mut self.wire else {
            return;
        };
        http.refuse(&mut self.outbox, status, message, allow);
        self.maybe_close();
    }
}

/// The Streamable HTTP head checks, but for the Protected Resource
/// Metadata, which is not the MCP endpoint and is answered on its own.
fn check_head(service: &Service, head: &Head) -> Result<(), rules::Refusal> {
    let metadata = service
        .inner
        .auth
        .as_ref()
        .is_some_and(|a| a.is_metadata_path(head.path.as_str()));
    if metadata {
        return Ok(());
    }
    let sessions = !service.inner.legacy.is_empty();
    rules::check_head_with(service.http_config(), head, sessions)
}
