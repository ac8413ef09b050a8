//! The glue between the call core and the Streamable HTTP wire
//! ([`crate::http`]): every way a [`Connection`] on
//! [`Transport::Http`](super::Transport) reaches into its HTTP side. The HTTP decisions (head
//! checks, decoding, framing, which refusal, which session error) are made
//! in `crate::http` and come back as values; this module only applies them
//! to the connection's own state (its timers, calls, outbox and sessions).

use alloc::boxed::Box;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use bytes::Bytes;

use super::outbox::Outbox;
use super::timers::Timer;
use super::{CompleteError, Connection, Output, Wire};
use crate::admission::{self, Admission, Facts};
use crate::auth::{Authorization, Challenge, Checked, DeferredVerdict};
use crate::handler::{CallId, Handler, Invocation, Outcome, Request, Shared};
use crate::http::exchange::{self, Gate, HttpWire, Parked, Step, REQUEST_TIMEOUT};
use crate::http::rules;
use crate::http::session::{self, SessionRefusal, SessionStream};
use crate::http::Head;
use crate::jsonrpc::{Incoming, RequestId};
use crate::legacy::replay::EventId;
use crate::service::Service;
use crate::time::Instant;

impl Connection {
    /// A connection that answers one request a host HTTP stack parsed
    /// (hyper, say): the same Streamable HTTP rules as on
    /// [`Transport::Http`](crate::Transport), with the answer framed as an
    /// [`Output::Respond`] head followed by [`Output::Transmit`]s of body
    /// bytes (SSE events as they are, no chunked framing) and
    /// [`Output::Close`] at the end of the body. It has no HTTP/1.1 codec:
    /// the request is the connection's only one. A body the host could not
    /// read ([`BodyError`](crate::BodyError)) is answered as on the native
    /// listener (413 over [`Limits::max_message_bytes`](crate::Limits), 400
    /// when unreadable, 408 when late); the head's field count and size
    /// are held to [`HttpConfig`](crate::HttpConfig)'s limits (431). A
    /// client that goes away (its response body dropped, its HTTP/2 stream
    /// reset) is [`handle_input_closed`](Connection::handle_input_closed).
    /// `host` is what the host attached to the request, which handlers
    /// read with [`Context::host`](crate::Context::host).
    pub fn http_request(
        service: &Service,
        head: Head,
        body: Result<Bytes, crate::BodyError>,
        host: Option<crate::handler::Host>,
        now: Instant,
    ) -> Self {
        let mut conn = Connection::with_wire(service, Wire::Http(HttpWire::parts()), now);
        conn.host = host;
        conn.input_closed = true;
        if let Err(r) = exchange::check_parts(service, &head, &body) {
            tracing::debug!(status = r.status, "HTTP request refused");
            conn.refuse_http(r);
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

    pub(crate) fn http(&mut self) -> Option<&mut HttpWire> {
        match &mut self.wire {
            Wire::Http(h) => Some(h),
            Wire::Stdio(_) => None,
        }
    }

    fn http_ref(&self) -> Option<&HttpWire> {
        match &self.wire {
            Wire::Http(h) => Some(h),
            Wire::Stdio(_) => None,
        }
    }

    /// A whole non-streamed answer to the exchange, which ends it.
    pub(crate) fn http_answer(
        &mut self,
        status: u16,
        content_type: Option<&'static str>,
        body: &[u8],
        extra: &[&str],
        now: Instant,
    ) {
        self.frame_last(now, |http, out, shutting_down| {
            http.answer(out, shutting_down, status, content_type, body, extra)
        });
    }

    /// A JSON answer decided in [`crate::http`], which ends the exchange.
    fn http_json(&mut self, answer: crate::http::Answer, now: Instant) {
        let extra = answer.header.as_slice();
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        self.http_answer(
            answer.status,
            Some("application/json"),
            &answer.json,
            &extra,
            now,
        );
    }

    /// The final message of the exchange, which ends it.
    pub(crate) fn http_final(
        &mut self,
        json: &[u8],
        status: u16,
        retry_after: Option<u64>,
        now: Instant,
    ) {
        let id = self.post_event(json, true);
        self.frame_last(now, |http, out, shutting_down| {
            http.final_message(out, shutting_down, json, id, status, retry_after)
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
        let id = self.post_event(json, false);
        if let Wire::Http(http) = &mut self.wire {
            http.on_stream_event(&mut self.outbox, id, json);
        }
    }

    /// A session call's message on its POST stream (`answer`: the final
    /// one): recorded in the session for a resume, with the id it goes out
    /// under (2025-11-25 `transports.mdx` § Resumability and Redelivery).
    /// The stream gets its number, and on 2025-11-25 its priming event,
    /// when its first message turns the answer into an event stream; a
    /// JSON answer is no stream and has no id. Once a resume has taken
    /// the stream over, the resuming connection writes the message, and
    /// this one lets its client go: it writes nothing more.
    #[cfg(feature = "std")]
    fn post_event(&mut self, json: &[u8], answer: bool) -> Option<EventId> {
        use crate::legacy::replay::StreamId;
        use crate::legacy::Recorded;
        // Only a session POST has a stream to record: a 2026-07-28
        // exchange has no session, and goes no further than this.
        let (sid, k) = match self.session_stream() {
            Some((sid, SessionStream::Post(k))) => (String::from(sid), k),
            _ => return None,
        };
        let peer_gone = self.peer_gone();
        let sessions = self.service.inner.sessions.clone()?;
        let Wire::Http(http) = &mut self.wire else {
            return None;
        };
        let k = match k {
            Some(k) => k,
            // An answer as JSON, a stream begun without ids, or a client
            // that left before it had any id: nothing can resume it.
            None if answer || peer_gone || http.is_sse() => return None,
            None => {
                let (k, prime) = sessions.open_post_stream(&sid)?;
                http.set_session_stream(SessionStream::Post(Some(k)));
                if prime {
                    let id = EventId {
                        stream: StreamId::Post(k),
                        n: 0,
                    };
                    http.prime(&mut self.outbox, id);
                }
                k
            }
        };
        match sessions.record_post_event(&sid, k, json, answer) {
            Recorded::Here(id) => Some(id),
            Recorded::Unnumbered => None,
            Recorded::Resumed => {
                tracing::debug!("session POST stream taken over by a resume");
                self.let_client_go();
                None
            }
        }
    }

    #[cfg(not(feature = "std"))]
    fn post_event(&mut self, _: &[u8], _: bool) -> Option<EventId> {
        None
    }

    /// The session of the exchange being answered, and which of its
    /// streams the exchange is.
    pub(crate) fn session_stream(&self) -> Option<(&str, SessionStream)> {
        self.http_ref()?.session_stream()
    }

    /// Whether the exchange is a session POST whose stream a client can
    /// resume: its answer became an event stream with ids.
    pub(crate) fn resumable_post_stream(&self) -> bool {
        matches!(
            self.session_stream(),
            Some((_, SessionStream::Post(Some(_))))
        )
    }

    /// Another connection writes this one's stream now (a resume took it
    /// over): nothing more is read or written here, and the connection
    /// closes once its call ends.
    #[cfg(feature = "std")]
    fn let_client_go(&mut self) {
        self.input_closed = true;
        if let Some(http) = self.http() {
            http.closing = true;
            http.peer_gone = true;
        }
        self.outbox.discard();
    }

    pub(crate) fn http_input(&mut self, data: &[u8], now: Instant) {
        if let Some(http) = self.http() {
            http.push(data);
            self.pump_http(now);
        }
    }

    /// The exchange's answer is written: the connection closes after it,
    /// or waits idle for the next request, which is decoded now.
    fn end_exchange(&mut self, keep_alive: bool, now: Instant) {
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
        // A session call waiting for the client's answer can never get it
        // now, unless the client resumes the call's stream: without that,
        // it ends (into the void, like all that follows). With it, what
        // the call sends is kept for the resume, which also carries its
        // requests to the client, whose answers come back here.
        if !self.resumable_post_stream() {
            self.forget_outbound();
            self.fail_waiting_calls(now);
        }
        // 2026-07-28: the response stream is gone, which cancels what it
        // was for (`streamable-http.mdx` § Cancellation). An initialize-era
        // session's call goes on: there, "disconnection SHOULD NOT be
        // interpreted as the client cancelling its request" (2025-11-25
        // `transports.mdx` § Sending Messages); the client cancels with
        // `notifications/cancelled` on another connection, or ends the
        // session. What it sends goes to the session's record of its
        // stream, for a resume, once the stream has ids; else nowhere.
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
            self.refuse_http(rules::Refusal {
                status: 408,
                message: String::from(REQUEST_TIMEOUT),
                allow: None,
            });
        } else if http.exchange.is_none() && self.timers.due(Timer::Idle, now) {
            tracing::debug!("closing idle HTTP connection");
            http.closed_idle = true;
            self.close();
        }
    }

    /// Which of the connection's own timers apply now: on HTTP as the wire
    /// says, on stdio only the shutdown grace.
    pub(crate) fn http_timer_applies(&self, t: Timer) -> bool {
        match self.http_ref() {
            Some(h) => h.timer_applies(t),
            None => t == Timer::Grace,
        }
    }

    /// Since when the connection is between requests or still receiving a
    /// head (see [`Connection::idle_since`]).
    pub(crate) fn http_idle_since(&self) -> Option<Instant> {
        if !self.http_ref()?.is_idle() {
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
    fn pump_http(&mut self, now: Instant) {
        loop {
            let closed = self.closed;
            let Wire::Http(http) = &mut self.wire else {
                return;
            };
            if http.exchange.is_some() || http.closing || closed {
                return;
            }
            match http.step(&self.service, &mut self.outbox) {
                Step::Wait { receiving: true } => {
                    let head = self.service.http_config().head_timeout;
                    self.timers.start(Timer::Request, now + head);
                    return;
                }
                Step::Wait { receiving: false } => {
                    self.timers.stop(Timer::Request);
                    return;
                }
                Step::Refused => {
                    self.maybe_close();
                    return;
                }
                Step::Head => {
                    let body = self.service.http_config().request_timeout;
                    self.timers.set(Timer::Request, now + body);
                }
                Step::Request(head, body) => {
                    self.timers.stop(Timer::Request);
                    self.timers.stop(Timer::Idle);
                    self.handle_request(&head, body, now);
                    if let Some(http) = self.http() {
                        http.recycle(head);
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
        let auth = service.inner.auth.as_ref();
        match exchange::gate(auth, head) {
            Gate::Open => {}
            Gate::Metadata(doc) => {
                self.http_answer(200, Some("application/json"), &doc, &[], now);
                return;
            }
            Gate::MetadataMethod => {
                self.refuse_http(rules::Refusal {
                    status: 405,
                    message: String::from("Method Not Allowed"),
                    allow: Some("Allow: GET"),
                });
                return;
            }
            Gate::Checked(Checked::Deferred(future)) => {
                self.park(head, body, future, now);
                return;
            }
            Gate::Checked(Checked::Ready(checked)) => {
                let Some(auth) = auth else { return };
                if !self.authenticated(auth, checked, now) {
                    return;
                }
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
            session: head.get(session::SESSION_HEADER).is_some(),
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

    /// Answer a request that authorization refused (see
    /// [`exchange::auth_refusal`]). The connection stays usable: the
    /// request was well framed.
    pub(crate) fn refuse_auth(
        &mut self,
        auth: &Authorization,
        challenge: &Challenge,
        id: Option<&RequestId>,
        now: Instant,
    ) {
        self.http_json(exchange::auth_refusal(auth, challenge, id), now);
    }

    /// Answer an HTTP request refused before or instead of admission, and
    /// close: the rest of the stream cannot be trusted to be framed.
    fn refuse_http(&mut self, r: rules::Refusal) {
        let Wire::Http(http) = &mut self.wire else {
            return;
        };
        http.refuse(&mut self.outbox, r.status, &r.message, r.allow);
        self.maybe_close();
    }

    /// A session's transport-level refusal, which ends the exchange.
    pub(crate) fn session_refused(
        &mut self,
        refusal: SessionRefusal,
        id: Option<&RequestId>,
        now: Instant,
    ) {
        self.http_json(refusal.answer(id), now);
    }

    /// Bind the exchange being answered to a session.
    pub(crate) fn bind_exchange(&mut self, session: String, created: bool, stream: SessionStream) {
        if let Some(http) = self.http() {
            http.bind_session(session, created, stream);
        }
    }

    /// The session of the exchange being answered, if it is a session's
    /// GET stream.
    pub(crate) fn get_stream_session(&self) -> Option<&str> {
        self.get_stream_claim().map(|(sid, _)| sid)
    }

    /// [`get_stream_session`](Self::get_stream_session) and the number of
    /// the stream's claim.
    pub(crate) fn get_stream_claim(&self) -> Option<(&str, u64)> {
        self.http_ref()?.get_stream_claim()
    }

    /// A POST that belongs to a session: `initialize`, or a message naming
    /// its session with `Mcp-Session-Id` (2025-11-25 `transports.mdx`
    /// § Session Management).
    fn handle_session_post(&mut self, head: &Head, incoming: Incoming, now: Instant) {
        let request_id = match &incoming {
            Incoming::Request { id, .. } => Some(id.clone()),
            _ => None,
        };
        // Without a session id only `initialize` is a session message
        // ([`crate::legacy::era`]); anything else without one was read as
        // a 2026-07-28 request before reaching here.
        let Some(sid) = session::session_id(head) else {
            self.legacy_message(None, incoming, now);
            return;
        };
        let checked = match self.with_session(Some(&sid), now, |_| ()) {
            None => Err(SessionRefusal::NotFound),
            Some(()) => session::check_version(&self.service, head),
        };
        if let Err(refusal) = checked {
            self.session_refused(refusal, request_id.as_ref(), now);
            return;
        }
        self.bind_exchange(sid.clone(), false, SessionStream::Post(None));
        self.legacy_message(Some(sid), incoming, now);
    }

    /// GET (the session's standalone SSE stream) or DELETE (end the
    /// session), already past the head checks.
    fn handle_session_verb(&mut self, head: &Head, now: Instant) {
        if let Err(refusal) = self.session_verb(head, now) {
            self.session_refused(refusal, None, now);
        }
    }

    #[cfg(not(feature = "std"))]
    fn session_verb(&mut self, head: &Head, _now: Instant) -> Result<(), SessionRefusal> {
        session::verb(head)?;
        Err(SessionRefusal::NotAllowed)
    }

    #[cfg(feature = "std")]
    fn session_verb(&mut self, head: &Head, now: Instant) -> Result<(), SessionRefusal> {
        use crate::http::session::Verb;
        let verb = session::verb(head)?;
        let sessions = self
            .service
            .inner
            .sessions
            .clone()
            .ok_or(SessionRefusal::NotAllowed)?;
        match verb {
            Verb::Delete(sid) => {
                if !sessions.delete(&sid) {
                    return Err(SessionRefusal::NotFound);
                }
                tracing::debug!("session ended by the client");
                self.http_answer(200, None, &[], &[], now);
            }
            Verb::Get(sid) => {
                sessions
                    .with(&sid, now, |_| ())
                    .ok_or(SessionRefusal::NotFound)?;
                // A client resuming a stream names the last event it got
                // (§ Resumability and Redelivery): a POST stream's or the
                // GET stream's; an id that is not one of ours opens the GET
                // stream afresh.
                let last = head.get("last-event-id").and_then(EventId::parse);
                if let Some(last) = last {
                    if let Some(resumed) = sessions.resume_post_stream(&sid, last) {
                        self.resume_post_stream(sid, last, resumed, now);
                        return Ok(());
                    }
                }
                let last = match last {
                    Some(EventId {
                        stream: crate::legacy::replay::StreamId::Get,
                        n,
                    }) => Some(n),
                    _ => None,
                };
                let stream = sessions
                    .open_get_stream(&sid, last, self.service.hub())
                    .ok_or(SessionRefusal::Conflict)?;
                self.bind_exchange(
                    sid,
                    false,
                    SessionStream::Get {
                        claim: stream.claim,
                    },
                );
                self.open_http_stream(now);
                self.write_events(&stream.replay);
                tracing::debug!(
                    resumed = last.is_some(),
                    replayed = stream.replay.len(),
                    "session GET stream opened"
                );
            }
        }
        Ok(())
    }

    /// A GET resuming a session's POST stream: what the client missed,
    /// then the call's later messages as they come
    /// ([`take_resumed_events`](Self::take_resumed_events)), until its
    /// answer ends the stream. Only that stream's messages: never the GET
    /// stream's (§ Resumability and Redelivery 2).
    #[cfg(feature = "std")]
    fn resume_post_stream(
        &mut self,
        sid: String,
        last: EventId,
        resumed: crate::legacy::ResumedStream,
        now: Instant,
    ) {
        let crate::legacy::replay::StreamId::Post(stream) = last.stream else {
            return;
        };
        let binding = SessionStream::Resumed {
            stream,
            claim: resumed.claim,
            through: resumed.through,
        };
        self.bind_exchange(sid, false, binding);
        self.open_http_stream(now);
        self.write_events(&resumed.replay);
        tracing::debug!(
            replayed = resumed.replay.len(),
            answered = resumed.done,
            "session POST stream resumed"
        );
        if resumed.done {
            self.end_resumed_stream(now);
        }
    }

    /// Write on the resumed POST stream this connection serves what its
    /// call sent since; end it after the call's answer, or once another
    /// resume took it over (or the session ended).
    #[cfg(feature = "std")]
    pub(crate) fn take_resumed_events(&mut self, now: Instant) {
        let Some((
            sid,
            SessionStream::Resumed {
                stream,
                claim,
                through,
            },
        )) = self.session_stream()
        else {
            return;
        };
        let Some(sessions) = self.service.inner.sessions.clone() else {
            return;
        };
        match sessions.take_post_events(sid, stream, claim, through) {
            Ok(taken) => {
                self.write_events(&taken.events);
                if let Wire::Http(http) = &mut self.wire {
                    http.set_session_stream(SessionStream::Resumed {
                        stream,
                        claim,
                        through: taken.through,
                    });
                }
                if taken.done {
                    self.end_resumed_stream(now);
                }
            }
            Err(crate::legacy::TakenOver) => {
                tracing::debug!("resumed POST stream taken over by another resume");
                self.end_event_stream(now);
            }
        }
    }

    /// Events a session kept, on the stream this exchange serves, each
    /// under its id.
    #[cfg(feature = "std")]
    fn write_events(&mut self, events: &[(EventId, alloc::boxed::Box<[u8]>)]) {
        if let Wire::Http(http) = &mut self.wire {
            for (id, json) in events {
                http.on_stream_event(&mut self.outbox, Some(*id), json);
            }
        }
    }

    /// The resumed POST stream carried its call's answer: let go of it and
    /// end the response, keeping the connection for the next request.
    #[cfg(feature = "std")]
    fn end_resumed_stream(&mut self, now: Instant) {
        self.release_stream_claim();
        self.end_event_stream(now);
    }

    /// The exchange's response ends here as an event stream (carrying no
    /// message if it had none), and the connection stays usable: a session
    /// call cancelled from another connection, a resumed stream that is
    /// over.
    pub(crate) fn end_event_stream(&mut self, now: Instant) {
        let Wire::Http(http) = &mut self.wire else {
            return;
        };
        if let Some(keep_alive) = http.end_empty_stream(&mut self.outbox) {
            self.end_exchange(keep_alive, now);
        }
    }

    /// The session call of this exchange ended unanswered (cancelled): a
    /// resume of its POST stream gets no answer to wait for.
    pub(crate) fn end_post_stream(&mut self) {
        #[cfg(feature = "std")]
        if let (Some((sid, SessionStream::Post(Some(k)))), Some(sessions)) =
            (self.session_stream(), &self.service.inner.sessions)
        {
            sessions.end_post_stream(sid, k);
        }
    }

    /// Release the session's claim on the stream this exchange serves, its
    /// GET stream or a resumed POST stream (the connection is closing, or
    /// the stream is over).
    pub(crate) fn release_stream_claim(&mut self) {
        #[cfg(feature = "std")]
        if let (Some((sid, stream)), Some(sessions)) =
            (self.session_stream(), &self.service.inner.sessions)
        {
            match stream {
                SessionStream::Get { claim } => sessions.close_get_stream(sid, claim),
                SessionStream::Resumed { stream, claim, .. } => {
                    sessions.release_post_stream(sid, stream, claim)
                }
                SessionStream::Post(_) => {}
            }
        }
    }

    /// Publish on the GET stream this connection serves what was published
    /// for its session since; end the stream once another connection took
    /// it over (a client resuming it, `legacy::Sessions::open_get_stream`)
    /// or the session ended.
    #[cfg(feature = "std")]
    pub(crate) fn take_get_events(&mut self, now: Instant) {
        let (Some((sid, claim)), Some(sessions)) =
            (self.get_stream_claim(), self.service.inner.sessions.clone())
        else {
            return;
        };
        match sessions.take_get_events(sid, claim) {
            Ok(events) => {
                for event in events {
                    self.publish(&event, now);
                }
            }
            Err(crate::legacy::TakenOver) => {
                tracing::debug!("session GET stream taken over by a resume");
                self.finish_get_stream();
                self.maybe_close();
            }
        }
    }

    /// End an HTTP GET stream gracefully (shutdown): the last chunk, then
    /// the connection closes.
    pub(crate) fn finish_get_stream(&mut self) {
        if self.get_stream_session().is_none() {
            return;
        }
        self.release_stream_claim();
        if let Wire::Http(http) = &mut self.wire {
            http.finish_stream(&mut self.outbox);
        }
    }
}
