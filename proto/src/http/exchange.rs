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
//! The decisions come back to the connection as values ([`Step`],
//! [`Gate`], [`Answer`], [`rules::Refusal`]) that its one HTTP glue module
//! applies to its timers and calls; nothing here reaches into a
//! connection. The initialize-era session verbs live in [`super::session`].

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use bytes::Bytes;

use super::codec::{self, CodecLimits, Decoded, Decoder, Head};
use super::rules;
use super::session::{LegacyExchange, SessionStream};
use super::Answer;
use crate::auth::{Authorization, Challenge, Checked};
use crate::connection::outbox::Outbox;
use crate::connection::output::Output;
use crate::connection::timers::Timer;
use crate::error::ErrorObject;
use crate::handler::{CallId, Shared};
use crate::jsonrpc;
use crate::legacy::replay::EventId;
use crate::service::Service;

/// The reason of the 408 for a request not whole in time.
pub(crate) const REQUEST_TIMEOUT: &str = "Request Timeout: the request was not received in time";

/// The HTTP side of a connection.
#[derive(Debug)]
pub(crate) struct HttpWire {
    /// How requests arrive and answers are framed.
    framing: Framing,
    /// The request being answered; pipelined ones wait in the decoder.
    pub(crate) exchange: Option<Exchange>,
    /// A response that closes the connection was written.
    pub(crate) closing: bool,
    /// The client went away while initialize-era session calls were
    /// running: they go on, and what they write is dropped.
    pub(crate) peer_gone: bool,
    /// Closed between requests (idle timeout, shed): no response is in
    /// flight, so the close needs no lingering.
    pub(crate) closed_idle: bool,
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
    pub(crate) head: Head,
    pub(crate) body: Bytes,
    /// The future's cancel flag: set, its task drops the future.
    pub(crate) shared: Arc<Shared>,
}

impl core::fmt::Debug for Parked {
    /// Without the head: it carries the token.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Parked")
            .field("call", &self.call)
            .finish_non_exhaustive()
    }
}

/// How a connection's requests arrive and its answers leave it.
#[derive(Debug)]
enum Framing {
    /// As HTTP/1.1 bytes that proto decodes and frames; boxed, so that a
    /// host request's wire does not carry a decoder's worth of space.
    H1(Box<H1>),
    /// One request a host HTTP stack parsed, answered as an
    /// [`Output::Respond`] head and unframed body bytes
    /// ([`Connection::http_request`](crate::Connection::http_request)): no
    /// codec, nothing more is read.
    Parts,
}

/// A native HTTP/1.1 connection's decoding state.
#[derive(Debug)]
struct H1 {
    decoder: Decoder,
    /// The head whose body is being read.
    head: Option<Head>,
}

/// What the decoder yielded, for the connection to act on
/// ([`HttpWire::step`]).
#[derive(Debug)]
pub(crate) enum Step {
    /// Nothing whole yet; `receiving`: part of a request is in, so the
    /// head deadline runs ([`HttpConfig::head_timeout`](crate::HttpConfig)).
    Wait { receiving: bool },
    /// A head passed its checks (and `100 Continue` was written if asked
    /// for): its body is read against the request deadline.
    Head,
    /// A whole request: it is the exchange now.
    Request(Head, Bytes),
    /// Refused and answered: the connection closes.
    Refused,
}

/// What authorization ([`crate::auth`]) makes of a request that passed the
/// head checks, before any of it is admitted.
pub(crate) enum Gate {
    /// No authorization is configured.
    Open,
    /// A GET of the Protected Resource Metadata: this document, with 200
    /// (`basic/authorization/index.mdx` § Authorization Server Location).
    Metadata(Vec<u8>),
    /// Another method on the metadata path: 405 `Allow: GET`.
    MetadataMethod,
    /// The bearer token's check, ready or deferred.
    Checked(Checked),
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
    /// The wire of a connection whose HTTP/1.1 bytes proto decodes.
    pub(crate) fn new(service: &Service) -> Self {
        let http = service.http_config();
        HttpWire {
            framing: Framing::H1(Box::new(H1 {
                decoder: Decoder::new(CodecLimits {
                    max_head_bytes: http.max_head_bytes,
                    max_headers: http.max_headers,
                    max_body_bytes: service.limits().max_message_bytes,
                }),
                head: None,
            })),
            exchange: None,
            closing: false,
            peer_gone: false,
            closed_idle: false,
            parked: None,
        }
    }

    /// The wire of one request a host HTTP stack parsed: that request is
    /// the exchange, and it is the connection's last.
    pub(crate) fn parts() -> Self {
        HttpWire {
            framing: Framing::Parts,
            exchange: Some(Exchange {
                keep_alive: false,
                sse: false,
                legacy: None,
            }),
            closing: false,
            peer_gone: false,
            closed_idle: false,
            parked: None,
        }
    }

    /// Read on while a request is answered, so that a client that goes
    /// away is noticed, up to one more request's worth of bytes.
    pub(crate) fn wants_input(&self, service: &Service) -> bool {
        let Framing::H1(h1) = &self.framing else {
            return false;
        };
        !self.closing
            && h1.decoder.buffered()
                <= service.limits().max_message_bytes + service.http_config().max_head_bytes
    }

    /// Bytes from the client, decoded by [`HttpWire::step`].
    pub(crate) fn push(&mut self, data: &[u8]) {
        if let Framing::H1(h1) = &mut self.framing {
            h1.decoder.push(data);
        }
    }

    /// Decode the next request, if none is being answered: its head
    /// checked ([`check_head`]), `Expect: 100-continue` answered before
    /// its body (RFC 9110 § 10.1.1), a malformed or refused one answered.
    /// Pipelined requests stay in the decoder until the exchange ends
    /// (RFC 9112 § 9.3.2).
    pub(crate) fn step(&mut self, service: &Service, out: &mut Outbox) -> Step {
        let Framing::H1(h1) = &mut self.framing else {
            return Step::Wait { receiving: false };
        };
        let H1 { decoder, head } = &mut **h1;
        let Some(event) = decoder.decode() else {
            return Step::Wait {
                receiving: decoder.in_request(),
            };
        };
        match event {
            Decoded::Error(e) => {
                tracing::debug!(status = e.status, "malformed HTTP request");
                let reason = e.reason.clone();
                self.refuse(out, e.status, &reason, None);
                Step::Refused
            }
            Decoded::Head(h) => {
                if let Err(r) = check_head(service, &h) {
                    tracing::debug!(status = r.status, "HTTP request refused");
                    self.refuse(out, r.status, &r.message, r.allow);
                    return Step::Refused;
                }
                if h.expects_continue() {
                    out.bytes()
                        .extend_from_slice(b"HTTP/1.1 100 Continue\r\n\r\n");
                }
                *head = Some(h);
                Step::Head
            }
            Decoded::Body(body) => {
                let Some(h) = head.take() else {
                    return Step::Wait { receiving: false };
                };
                self.exchange = Some(Exchange {
                    keep_alive: h.keep_alive(),
                    sse: false,
                    legacy: None,
                });
                Step::Request(h, body)
            }
        }
    }

    /// Hand a request's head back to the decoder, whose buffers it reuses.
    pub(crate) fn recycle(&mut self, head: Head) {
        if let Framing::H1(h1) = &mut self.framing {
            h1.decoder.recycle(head);
        }
    }

    /// Which of the connection's timers apply to HTTP now: the grace
    /// period always; once the client is gone, nothing else; the head and
    /// request deadlines; the idle close between exchanges; keep-alive
    /// comments during one.
    pub(crate) fn timer_applies(&self, t: Timer) -> bool {
        match t {
            Timer::Grace => true,
            _ if self.peer_gone => false,
            Timer::Request => true,
            Timer::Idle => self.exchange.is_none(),
            Timer::Heartbeat => self.exchange.is_some(),
        }
    }

    /// Whether the close should read and discard what the client still
    /// sends (a response may be in flight: RFC 9112 § 9.6).
    pub(crate) fn lingers(&self) -> bool {
        !self.peer_gone && !self.closed_idle
    }

    /// Nothing accepted would be lost by closing now.
    pub(crate) fn is_idle(&self) -> bool {
        let reading = matches!(&self.framing, Framing::H1(h1) if h1.head.is_some());
        !self.closing && self.exchange.is_none() && !reading
    }

    /// Write a response head: HTTP/1.1 bytes, or an [`Output::Respond`].
    /// `extra` are whole `Name: value` lines.
    fn head(
        &self,
        out: &mut Outbox,
        status: u16,
        content_type: Option<&'static str>,
        length: Option<usize>,
        close: bool,
        extra: &[&str],
    ) {
        match self.framing {
            Framing::H1(_) => {
                codec::write_head(out.bytes(), status, content_type, length, close, extra)
            }
            Framing::Parts => {
                // Every parts answer ends its exchange: what a host stack
                // is told is whether its connection must end as well.
                let mut headers = Vec::with_capacity(extra.len() + 1);
                if let Some(ct) = content_type {
                    headers.push((Cow::Borrowed("content-type"), Cow::Borrowed(ct)));
                }
                for line in extra {
                    if let Some((name, value)) = line.split_once(':') {
                        headers.push((field_name(name.trim()), Cow::Owned(value.trim().into())));
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
            Framing::H1(_) => codec::write_chunk(out.bytes(), data),
            Framing::Parts => out.bytes().extend_from_slice(data),
        }
    }

    /// The end of a streamed body.
    pub(crate) fn end_body(&self, out: &mut Outbox) {
        if let Framing::H1(_) = self.framing {
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
    /// line, with its `id` on a session's resumable stream
    /// (`crate::legacy::replay`).
    fn sse_event(&self, out: &mut Outbox, id: Option<EventId>, json: &[u8]) {
        let mut event = Vec::with_capacity(json.len() + 32);
        if let Some(id) = id {
            event.extend_from_slice(b"id: ");
            id.write(&mut event);
            event.push(b'\n');
        }
        event.extend_from_slice(b"data: ");
        event.extend_from_slice(json);
        event.extend_from_slice(b"\n\n");
        self.chunk(out, &event);
    }

    /// An SSE comment line: ignored by clients, keeps intermediaries from
    /// timing the stream out.
    pub(crate) fn keep_alive_comment(&self, out: &mut Outbox) {
        self.chunk(out, b":\n\n");
    }

    /// A whole non-streamed answer to the exchange, which ends it: whether
    /// the client asked to keep the connection, `None` without an exchange.
    pub(crate) fn answer(
        &mut self,
        out: &mut Outbox,
        shutting_down: bool,
        status: u16,
        content_type: Option<&'static str>,
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
    /// its SSE stream (with `id` on a resumable one), or its JSON response
    /// with `status` (and `Retry-After` for a retryable error). Whether
    /// the client asked to keep the connection, `None` without an exchange.
    pub(crate) fn final_message(
        &mut self,
        out: &mut Outbox,
        shutting_down: bool,
        json: &[u8],
        id: Option<EventId>,
        status: u16,
        retry_after: Option<u64>,
    ) -> Option<bool> {
        let Some(ex) = self.exchange.as_ref() else {
            tracing::error!("HTTP final message without an exchange");
            return None;
        };
        if ex.sse {
            let keep_alive = ex.keep_alive;
            self.sse_event(out, id, json);
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
    /// With the event's `id`, if it has one.
    pub(crate) fn on_stream_event(&mut self, out: &mut Outbox, id: Option<EventId>, json: &[u8]) {
        if self.exchange.is_some() {
            self.start_sse(out);
            self.sse_event(out, id, json);
        }
    }

    /// Answer a request refused before or instead of admission, and stop
    /// answering: the rest of the stream cannot be trusted to be framed.
    pub(crate) fn refuse(
        &mut self,
        out: &mut Outbox,
        status: u16,
        message: &str,
        allow: Option<&str>,
    ) {
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

/// The exchange as a session's ([`super::session`]).
impl HttpWire {
    /// Bind the exchange being answered to a session.
    pub(crate) fn bind_session(&mut self, session: String, created: bool, stream: SessionStream) {
        if let Some(ex) = self.exchange.as_mut() {
            ex.legacy = Some(Box::new(LegacyExchange {
                session,
                created,
                stream,
            }));
        }
    }

    /// The session of the exchange being answered and which of its
    /// streams it is.
    pub(crate) fn session_stream(&self) -> Option<(&str, SessionStream)> {
        let l = self.exchange.as_ref()?.legacy.as_ref()?;
        Some((l.session.as_str(), l.stream))
    }

    /// Set which of its session's streams the exchange is.
    #[cfg(feature = "std")]
    pub(crate) fn set_session_stream(&mut self, stream: SessionStream) {
        if let Some(l) = self.exchange.as_mut().and_then(|ex| ex.legacy.as_mut()) {
            l.stream = stream;
        }
    }

    /// The session of the exchange being answered and the number of its
    /// claim, if it is a session's GET stream.
    pub(crate) fn get_stream_claim(&self) -> Option<(&str, u64)> {
        match self.session_stream()? {
            (sid, SessionStream::Get { claim }) => Some((sid, claim)),
            _ => None,
        }
    }

    /// Whether the exchange's response is an event stream already.
    #[cfg(feature = "std")]
    pub(crate) fn is_sse(&self) -> bool {
        self.exchange.as_ref().is_some_and(|ex| ex.sse)
    }

    /// A POST stream's priming event: its id and empty `data`, so that a
    /// client cut off before any message can still resume (2025-11-25
    /// `transports.mdx` § Sending Messages to the Server 6).
    #[cfg(feature = "std")]
    pub(crate) fn prime(&mut self, out: &mut Outbox, id: EventId) {
        self.on_stream_event(out, Some(id), b"");
    }

    /// End the exchange's response as an event stream that carries no
    /// message, so the connection stays usable (its session call was
    /// cancelled from elsewhere). Whether the client asked to keep the
    /// connection, `None` without an exchange.
    pub(crate) fn end_empty_stream(&mut self, out: &mut Outbox) -> Option<bool> {
        let keep_alive = self.exchange.as_ref()?.keep_alive();
        self.start_sse(out);
        self.end_body(out);
        Some(keep_alive)
    }

    /// End a GET stream gracefully: the last chunk, and nothing after it.
    pub(crate) fn finish_stream(&mut self, out: &mut Outbox) {
        self.end_body(out);
        self.exchange = None;
        self.closing = true;
    }
}

/// The checks of a request a host HTTP stack parsed: its head held to
/// [`HttpConfig`](crate::HttpConfig)'s limits (431), a body the host could
/// not read answered as the native listener answers it (413, 400, 408),
/// then the head checks every request passes.
pub(crate) fn check_parts(
    service: &Service,
    head: &Head,
    body: &Result<Bytes, crate::BodyError>,
) -> Result<(), rules::Refusal> {
    let config = service.http_config();
    let refusal = match body {
        _ if head.count_fields() > config.max_headers => {
            Some((431, "Too many request header fields"))
        }
        _ if head.size() > config.max_head_bytes => Some((431, "Request header fields too large")),
        Err(crate::BodyError::TooLarge) => Some((413, "Request body too large")),
        Err(crate::BodyError::Unreadable) => Some((400, "Malformed HTTP request body")),
        Err(crate::BodyError::TimedOut) => Some((408, REQUEST_TIMEOUT)),
        Ok(_) => None,
    };
    if let Some((status, reason)) = refusal {
        return Err(rules::Refusal {
            status,
            message: String::from(reason),
            allow: None,
        });
    }
    check_head(service, head)
}

/// Where authorization sends a request that passed the head checks.
pub(crate) fn gate(auth: Option<&Authorization>, head: &Head) -> Gate {
    let Some(auth) = auth else {
        return Gate::Open;
    };
    if auth.is_metadata_path(head.path.as_str()) {
        return match head.method.as_str() {
            "GET" => Gate::Metadata(auth.metadata_document()),
            _ => Gate::MetadataMethod,
        };
    }
    Gate::Checked(auth.check(head))
}

/// The answer to a request that authorization refused: its status, the
/// `WWW-Authenticate` challenge (`basic/authorization/index.mdx` § Error
/// Handling), and a JSON-RPC error as the body, answering `id` when the
/// refusal came after the message was read.
pub(crate) fn auth_refusal(
    auth: &Authorization,
    challenge: &Challenge,
    id: Option<&jsonrpc::RequestId>,
) -> Answer {
    let mut json = Vec::with_capacity(128);
    let status = challenge.status();
    let header = match challenge {
        // Retryable, and no challenge: the token may be fine.
        Challenge::Unavailable(retry_after) => {
            let error = ErrorObject::unavailable(challenge.message()).with_data(
                serde_json::json!({"retryable": true, "retryAfterSeconds": retry_after}),
            );
            jsonrpc::write_error(&mut json, id, &error);
            Some(alloc::format!("Retry-After: {retry_after}"))
        }
        Challenge::Failed => {
            jsonrpc::write_error(&mut json, id, &ErrorObject::internal(challenge.message()));
            None
        }
        _ => {
            let error = ErrorObject::invalid_request(challenge.message());
            jsonrpc::write_error(&mut json, id, &error);
            Some(auth.www_authenticate(challenge))
        }
    };
    Answer {
        status,
        json,
        header,
    }
}

/// A response field name as a host stack is given it: lower-cased, and
/// without an allocation for the names proto writes.
fn field_name(name: &str) -> Cow<'static, str> {
    const KNOWN: [&str; 6] = [
        "cache-control",
        "x-accel-buffering",
        "mcp-session-id",
        "retry-after",
        "www-authenticate",
        "allow",
    ];
    match KNOWN.iter().find(|k| k.eq_ignore_ascii_case(name)) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(name.to_ascii_lowercase()),
    }
}
