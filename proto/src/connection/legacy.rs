//! The connection side of the initialize-era dialects ([`crate::legacy`]):
//! the `initialize` handshake, session requests, the HTTP session verbs
//! (GET stream, DELETE), and input requests sent inline as
//! server-to-client requests whose answers run the handler again.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{Map, Value};

use super::{Call, Connection, Final, Output, Slot, Wire};
use crate::dispatch::Admitted;
use crate::error::ErrorObject;
use crate::handler::{CallId, Handler, Invocation, Request, Shared};
use crate::http::session::SessionRefusal;
use crate::jsonrpc::{self, Incoming, RequestId};
use crate::legacy::admit::{self, Action, View};
use crate::legacy::{code, Session};
use crate::meta::RequestMeta;
use crate::mrtr::{InputRequired, Issued};
use crate::subscriptions::filter::notification_for;
use crate::subscriptions::ChangeEvent;
use crate::time::Instant;

/// How many times one call may ask for input before it is failed: a
/// handler that never stops asking must not hold its slot forever.
const MAX_ROUNDS: u32 = 16;

/// A session call, kept to run it again with the client's answers.
pub(crate) struct LegacyCall {
    /// The HTTP session (`None`: the stdio connection's own).
    session: Option<String>,
    request: Request,
    meta: RequestMeta,
    handler: Option<Handler>,
    /// Server request id → input request key, for the answers still due.
    waiting: BTreeMap<u64, String>,
    responses: Map<String, Value>,
    issued: BTreeMap<String, Issued>,
    state: Option<Value>,
    rounds: u32,
}

impl core::fmt::Debug for LegacyCall {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LegacyCall")
            .field("session", &self.session)
            .field("waiting", &self.waiting)
            .field("rounds", &self.rounds)
            .finish()
    }
}

impl LegacyCall {
    pub(super) fn new(
        session: Option<String>,
        request: &Request,
        meta: &RequestMeta,
        handler: &Option<Handler>,
    ) -> Box<LegacyCall> {
        Box::new(LegacyCall {
            session,
            request: request.clone(),
            meta: meta.clone(),
            handler: handler.as_ref().and_then(Handler::try_clone),
            waiting: BTreeMap::new(),
            responses: Map::new(),
            issued: BTreeMap::new(),
            state: None,
            rounds: 0,
        })
    }
}

impl Connection {
    /// Run `f` on the session `id` (HTTP) or on this stdio connection's own.
    pub(crate) fn with_session<R>(
        &mut self,
        id: Option<&str>,
        now: Instant,
        f: impl FnOnce(&mut Session) -> R,
    ) -> Option<R> {
        match id {
            None => self.session.as_deref_mut().map(f),
            #[cfg(feature = "std")]
            Some(id) => self.service.inner.sessions.as_ref()?.with(id, now, f),
            #[cfg(not(feature = "std"))]
            Some(_) => {
                let _ = (now, f);
                None
            }
        }
    }

    /// A message of a session: `session` names the HTTP session (`None` on
    /// stdio, and for the `initialize` that creates one on HTTP).
    pub(crate) fn legacy_message(
        &mut self,
        session: Option<String>,
        incoming: Incoming,
        now: Instant,
    ) {
        let http = matches!(self.wire, Wire::Http(_));
        match incoming {
            Incoming::Invalid { id, error } => {
                self.emit_final(id.as_ref(), Final::Error(&error, true), now);
            }
            // The handshake that opens a session; inside one, `initialize`
            // is refused by the session's admission (`legacy::admit`).
            Incoming::Request { id, method, params }
                if method == "initialize"
                    && if http {
                        session.is_none()
                    } else {
                        self.session.is_none()
                    } =>
            {
                self.initialize(id, params, now);
            }
            Incoming::Request { id, method, params } => {
                let Some(view) = self.with_session(session.as_deref(), now, |s| View::of(s)) else {
                    // The session expired or was deleted since the transport
                    // named it.
                    let e = ErrorObject::new(
                        code::BAD_REQUEST,
                        "Bad Request: the session is not initialized; send initialize first",
                    );
                    self.emit_final(Some(&id), Final::Error(&e, false), now);
                    return;
                };
                if !http && self.is_in_use(&id) {
                    self.write_duplicate(&id, now);
                    return;
                }
                let action = admit::request(
                    &self.service,
                    &view,
                    &id,
                    &method,
                    params,
                    self.principal.as_ref(),
                    now,
                );
                self.act(session, id, action, now);
            }
            Incoming::Notification { method, params } => {
                match &*method {
                    // Requests are served from the `initialize` response on
                    // (`lifecycle.mdx` lets the server wait; nothing here
                    // depends on it), so the notification only marks the
                    // session active.
                    "notifications/initialized" => {
                        self.with_session(session.as_deref(), now, |_| ());
                    }
                    "notifications/cancelled" => {
                        // Invalid cancellations are ignored
                        // (`cancellation.mdx` § Error Handling).
                        if let Some(request_id) = params
                            .as_ref()
                            .and_then(|p| p.get("requestId"))
                            .and_then(RequestId::from_value)
                        {
                            if http {
                                // The call runs on another connection of
                                // the session (this one is busy with the
                                // notification's own POST).
                                self.cancel_elsewhere(session.as_deref(), request_id);
                            } else {
                                self.cancel(&request_id);
                                self.start_queued(now);
                            }
                        }
                    }
                    _ => tracing::debug!(
                        method = %crate::error::truncate(&method, 64),
                        "session notification ignored"
                    ),
                }
                if http {
                    self.http_answer(202, None, &[], &[], now);
                }
            }
            Incoming::Response { id, outcome } => {
                let rid = match &id {
                    RequestId::Int(n) => u64::try_from(*n).ok(),
                    RequestId::Uint(n) => Some(*n),
                    RequestId::Str(_) => None,
                };
                match (http, rid) {
                    (false, Some(rid)) => self.answered(rid, outcome, now),
                    (false, None) => tracing::debug!("an answer nothing waits for"),
                    (true, Some(rid))
                        if self.deliver_routed(session.as_deref(), rid, outcome, now) =>
                    {
                        self.http_answer(202, None, &[], &[], now);
                    }
                    (true, _) => self.session_refused(SessionRefusal::NothingWaits, None, now),
                }
            }
        }
    }

    /// Hand the answer to the request `rid` of `session` to the call
    /// waiting for it, here or on another connection.
    #[cfg(feature = "std")]
    fn deliver_routed(
        &mut self,
        session: Option<&str>,
        rid: u64,
        outcome: Result<Value, Value>,
        now: Instant,
    ) -> bool {
        let (Some(sessions), Some(sid)) = (self.service.inner.sessions.clone(), session) else {
            return false;
        };
        if self.outbound.contains_key(&rid) {
            sessions.unroute(sid, rid);
            self.answered(rid, outcome, now);
            return true;
        }
        sessions.deliver(sid, rid, outcome)
    }

    #[cfg(not(feature = "std"))]
    fn deliver_routed(
        &mut self,
        _: Option<&str>,
        _: u64,
        _: Result<Value, Value>,
        _: Instant,
    ) -> bool {
        false
    }

    fn initialize(&mut self, id: RequestId, params: Option<Map<String, Value>>, now: Instant) {
        let (session, result) =
            match crate::legacy::session::initialize(&self.service, params.as_ref(), now) {
                Ok(x) => x,
                Err(e) => {
                    self.emit_final(Some(&id), Final::Error(&e, false), now);
                    return;
                }
            };
        tracing::debug!(version = session.profile.version, "session initialized");
        if let Wire::Stdio(_) = self.wire {
            self.session = Some(Box::new(session));
            self.listen_for_session();
            self.emit_final(Some(&id), Final::Result(&result), now);
            return;
        }
        #[cfg(feature = "std")]
        {
            let created = self
                .service
                .inner
                .sessions
                .as_ref()
                .map(|s| s.create(session, now));
            let Some(Ok(sid)) = created else {
                tracing::warn!("initialize refused: no session could be created");
                self.session_refused(SessionRefusal::Full, Some(&id), now);
                return;
            };
            self.bind_exchange(sid, true, crate::http::session::SessionStream::Post(None));
            self.emit_final(Some(&id), Final::Result(&result), now);
        }
        #[cfg(not(feature = "std"))]
        {
            let _ = (session, result);
            self.session_refused(SessionRefusal::Unsupported, Some(&id), now);
        }
    }

    /// A stdio session hears the service's change events directly (there
    /// is no GET stream on stdio).
    fn listen_for_session(&mut self) {
        #[cfg(feature = "std")]
        if self.listener.is_none() && self.service.inner.notifications.any() {
            self.listener = self.service.hub().map(|h| h.listen());
        }
    }

    fn act(&mut self, session: Option<String>, id: RequestId, action: Action, now: Instant) {
        let sid = session.as_deref();
        match action {
            Action::Answer(result) => self.emit_final(Some(&id), Final::Result(&result), now),
            Action::Error(e) => self.emit_final(Some(&id), Final::Error(&e, false), now),
            Action::SetLevel(level) => {
                self.with_session(sid, now, |s| s.log_level = Some(level));
                self.emit_final(Some(&id), Final::Result(admit::EMPTY), now);
            }
            Action::Subscribe(uri) => {
                let added = self.with_session(sid, now, |s| {
                    if s.subscribed.len() >= crate::legacy::session::MAX_SUBSCRIBED
                        && !s.subscribed.contains(&uri)
                    {
                        return false;
                    }
                    s.subscribed.insert(uri);
                    true
                });
                if added == Some(true) {
                    self.emit_final(Some(&id), Final::Result(admit::EMPTY), now);
                } else {
                    let e = ErrorObject::invalid_params(
                        "Too many resource subscriptions in this session",
                    );
                    self.emit_final(Some(&id), Final::Error(&e, false), now);
                }
            }
            Action::Unsubscribe(uri) => {
                self.with_session(sid, now, |s| s.subscribed.remove(&uri));
                self.emit_final(Some(&id), Final::Result(admit::EMPTY), now);
            }
            Action::Forbidden(missing) => self.refuse_scopes(&id, missing, now),
            Action::Invoke(mut admitted) => {
                admitted.session = Some(session);
                self.admit_call(admitted, now);
            }
        }
    }

    /// Start an admitted session call, or queue it on stdio when every
    /// slot is busy.
    fn admit_call(&mut self, admitted: Box<Admitted>, now: Instant) {
        match self.wire {
            Wire::Http(_) => {
                #[cfg(feature = "std")]
                if let (Some(Some(sid)), Some(sessions)) =
                    (&admitted.session, &self.service.inner.sessions)
                {
                    let inbox = self.inbox.get_or_insert_with(Default::default);
                    sessions.track(sid, &admitted.id, inbox);
                }
                self.start(admitted, now)
            }
            Wire::Stdio(_) => {
                if self.calls.len() < self.service.limits().max_concurrent_calls {
                    self.start(admitted, now);
                } else {
                    self.by_request.insert(admitted.id.clone(), Slot::Queued);
                    self.queued.push_back(admitted);
                }
            }
        }
    }

    /// A handler of a session call asked for input: send each input request
    /// to the client on the call's stream and wait for the answers
    /// (`client/elicitation.mdx`, `client/sampling.mdx`, `client/roots.mdx`
    /// of the initialize-era revisions).
    pub(super) fn ask_inline(
        &mut self,
        call: CallId,
        mut c: Call,
        ir: InputRequired,
        now: Instant,
    ) {
        let sid = c.legacy.as_ref().and_then(|l| l.session.clone());
        let Some(capabilities) = self.with_session(sid.as_deref(), now, |s| s.capabilities.clone())
        else {
            self.fail_call(&c, ErrorObject::internal("The session ended"), now);
            return;
        };
        let inline = crate::mrtr::inline(ir, &capabilities);
        let Some(lc) = c.legacy.as_mut() else { return };
        lc.rounds += 1;
        if lc.rounds > MAX_ROUNDS {
            tracing::error!(id = %c.id, "a handler kept asking for input");
            self.fail_call(&c, ErrorObject::internal("Internal error"), now);
            return;
        }
        let inline = match inline {
            Ok(i) => i,
            Err(e) => {
                self.fail_call(&c, e, now);
                return;
            }
        };
        lc.issued = inline.issued;
        lc.state = inline.state;
        lc.responses = Map::new();
        lc.waiting.clear();
        if inline.requests.is_empty() {
            // Only state: run again at once, as an MRTR client would retry.
            self.rerun(call, c, now);
            return;
        }
        if self.peer_gone() && !self.resumable_post_stream() {
            let e = ErrorObject::internal(
                "The client closed the connection before the server could ask it for input",
            );
            self.fail_call(&c, e, now);
            return;
        }
        let mut sent = Vec::with_capacity(inline.requests.len());
        for (key, request) in &inline.requests {
            let Some(rid) = self.with_session(sid.as_deref(), now, Session::request_id) else {
                self.fail_call(&c, ErrorObject::internal("The session ended"), now);
                return;
            };
            // Unique among the server's sessions, so that it names one
            // elicitation wherever it is seen.
            let id = || match &sid {
                Some(sid) => alloc::format!("{sid}-{rid}"),
                None => alloc::format!("{rid}"),
            };
            let params = crate::mrtr::inline_params(request, id);
            if let Some(Value::String(eid)) = params.get("elicitationId") {
                let eid = eid.clone();
                self.with_session(sid.as_deref(), now, |s| s.sent_elicitation(eid));
            }
            sent.push((rid, request.method(), params));
            if let Some(lc) = c.legacy.as_mut() {
                lc.waiting.insert(rid, key.clone());
            }
        }
        for (rid, method, params) in sent {
            self.outbound.insert(rid, call);
            self.route_here(sid.as_deref(), rid);
            self.emit_request(rid, method, &params);
        }
        self.insert_call(call, c);
    }

    #[cfg(feature = "std")]
    fn route_here(&mut self, session: Option<&str>, rid: u64) {
        let (Some(sid), Some(sessions)) = (session, self.service.inner.sessions.as_ref()) else {
            return;
        };
        let inbox = self.inbox.get_or_insert_with(Default::default);
        sessions.route(sid, rid, inbox);
    }

    #[cfg(not(feature = "std"))]
    fn route_here(&mut self, _: Option<&str>, _: u64) {}

    /// A server-to-client request: a line on stdio, an SSE event of the
    /// call's response stream on HTTP (`transports.mdx` § Sending Messages
    /// to the Server 6: requests related to the client's request).
    fn emit_request(&mut self, id: u64, method: &str, params: &Value) {
        let mut json = Vec::with_capacity(128);
        jsonrpc::write_request(&mut json, id, method, params);
        self.emit_on_stream(&json);
    }

    /// The client answered the server's request `rid`.
    pub(super) fn answered(&mut self, rid: u64, outcome: Result<Value, Value>, now: Instant) {
        let Some(call) = self.outbound.remove(&rid) else {
            tracing::debug!(rid, "an answer nothing waits for");
            return;
        };
        let Some(mut c) = self.remove_call(call) else {
            return;
        };
        let Some(lc) = c.legacy.as_mut() else { return };
        let Some(key) = lc.waiting.remove(&rid) else {
            self.insert_call(call, c);
            return;
        };
        match outcome {
            Ok(result) => {
                lc.responses.insert(key, result);
            }
            Err(error) => {
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map(|m| String::from(crate::error::truncate(m, 256)))
                    .unwrap_or_default();
                let e = ErrorObject::internal(format!(
                    "The client refused the input request {key:?}: {message}"
                ));
                self.fail_call(&c, e, now);
                self.start_queued(now);
                self.maybe_close();
                return;
            }
        }
        if lc.waiting.is_empty() {
            self.rerun(call, c, now);
        } else {
            self.insert_call(call, c);
        }
    }

    /// Run the handler of `c` again with the answers gathered.
    fn rerun(&mut self, old: CallId, mut c: Call, now: Instant) {
        let Some(lc) = c.legacy.as_mut() else { return };
        let responses = core::mem::take(&mut lc.responses);
        let round = match crate::mrtr::inline_round(responses, lc.issued.clone(), lc.state.clone())
        {
            Ok(r) => r,
            Err(e) => {
                self.fail_call(&c, e, now);
                return;
            }
        };
        let call = CallId(self.next_call);
        self.next_call += 1;
        let invocation = Invocation::new(
            call,
            lc.request.clone(),
            Shared::of_request(
                lc.meta.clone(),
                round,
                self.host.clone(),
                self.principal.clone(),
                self.service.inner.states.clone(),
            ),
            lc.handler.as_ref().and_then(Handler::try_clone),
        );
        tracing::debug!(%old, %call, "running the handler again with the client's answers");
        self.by_request.insert(c.id.clone(), Slot::Running(call));
        self.insert_call(call, c);
        self.push_event(Output::Invoke(invocation));
    }

    #[cfg(feature = "std")]
    fn cancel_elsewhere(&mut self, session: Option<&str>, request: RequestId) {
        if let (Some(sid), Some(sessions)) = (session, &self.service.inner.sessions) {
            if !sessions.cancel(sid, request) {
                tracing::debug!("notifications/cancelled for no running call of the session");
            }
        }
    }

    #[cfg(not(feature = "std"))]
    fn cancel_elsewhere(&mut self, _: Option<&str>, _: RequestId) {}

    /// The call `request` of this HTTP connection was cancelled by a
    /// `notifications/cancelled` the client sent on another connection:
    /// stop it, send nothing for it, and end its response as an event
    /// stream that carries no message, so the connection stays usable.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(super) fn cancel_session_call(&mut self, request: &RequestId, now: Instant) {
        if self.stop_session_call(request) {
            self.end_post_stream();
            self.end_event_stream(now);
        }
    }

    /// Stop the session call `request` of this connection: nothing is
    /// written for it.
    pub(crate) fn stop_session_call(&mut self, request: &RequestId) -> bool {
        let Some(Slot::Running(call)) = self.by_request.get(request).copied() else {
            return false;
        };
        let Some(c) = self.remove_call(call) else {
            return false;
        };
        self.by_request.remove(request);
        self.drop_waiting(&c);
        c.shared.cancel();
        tracing::debug!(%call, id = %request, "cancelled by client");
        self.push_event(Output::Cancel(call));
        true
    }

    /// Forget the routes of what `c` was waiting for.
    pub(crate) fn drop_waiting(&mut self, c: &Call) {
        if let Some(lc) = &c.legacy {
            for rid in lc.waiting.keys() {
                self.outbound.remove(rid);
                #[cfg(feature = "std")]
                if let (Some(sid), Some(sessions)) = (&lc.session, &self.service.inner.sessions) {
                    sessions.unroute(sid, *rid);
                }
            }
        }
    }

    /// A session call of this HTTP connection ended: later cancellations
    /// of it find nothing.
    pub(super) fn untrack_session_call(&mut self, c: &Call) {
        #[cfg(feature = "std")]
        if let (Some(Some(sid)), Some(sessions)) = (
            c.legacy.as_ref().map(|l| l.session.as_ref()),
            &self.service.inner.sessions,
        ) {
            sessions.untrack(sid, &c.id);
        }
        #[cfg(not(feature = "std"))]
        let _ = c;
    }

    /// End every session call still waiting for the client's answers
    /// (stdio input closed: they can never come).
    pub(crate) fn fail_waiting_calls(&mut self, now: Instant) {
        let waiting: Vec<CallId> = self
            .calls
            .iter()
            .filter(|(_, c)| c.legacy.as_ref().is_some_and(|l| !l.waiting.is_empty()))
            .map(|(k, _)| *k)
            .collect();
        for call in waiting {
            if let Some(c) = self.remove_call(call) {
                let e = ErrorObject::internal(
                    "The client closed its input before answering the server's request",
                );
                self.fail_call(&c, e, now);
            }
        }
    }

    /// End a session call with `error`, forgetting what it waited for.
    fn fail_call(&mut self, c: &Call, error: ErrorObject, now: Instant) {
        self.drop_waiting(c);
        self.untrack_session_call(c);
        self.by_request.remove(&c.id);
        self.emit_final(Some(&c.id), Final::Error(&error, false), now);
    }

    /// Deliver a change event to this connection's session: its GET stream
    /// on HTTP, the connection itself on stdio. Resource updates only for
    /// the URIs the session subscribed to.
    pub(super) fn publish_to_session(&mut self, event: &ChangeEvent, now: Instant) {
        let declared = self.service.inner.notifications;
        let wanted = match event {
            ChangeEvent::ToolsListChanged => declared.tools_list_changed,
            ChangeEvent::PromptsListChanged => declared.prompts_list_changed,
            ChangeEvent::ResourcesListChanged => declared.resources_list_changed,
            ChangeEvent::ResourceUpdated { .. } => declared.resource_updates,
            ChangeEvent::Extension(_) => false,
            ChangeEvent::ElicitationComplete { .. } => true,
        };
        if !wanted {
            return;
        }
        let sid = match &self.wire {
            Wire::Stdio(_) if self.session.is_some() => None,
            Wire::Http(_) => match self.get_stream_session() {
                Some(sid) => Some(String::from(sid)),
                None => return,
            },
            Wire::Stdio(_) => return,
        };
        let ours = match event {
            ChangeEvent::ResourceUpdated { uri } => {
                self.with_session(sid.as_deref(), now, |s| s.subscribed.contains(uri))
            }
            // Only to the session it was sent in, and once.
            ChangeEvent::ElicitationComplete { elicitation_id } => {
                self.with_session(sid.as_deref(), now, |s| {
                    s.complete_elicitation(elicitation_id)
                })
            }
            _ => Some(true),
        };
        if ours != Some(true) {
            return;
        }
        let (method, params) = notification_for(event);
        let method = String::from(method);
        // On the GET stream: numbered and kept for a resume.
        #[cfg(feature = "std")]
        if let (Some(sid), Some(claim), Some(sessions)) = (
            &sid,
            self.get_stream_claim().map(|(_, claim)| claim),
            self.service.inner.sessions.clone(),
        ) {
            let mut json = Vec::with_capacity(128);
            crate::jsonrpc::write_notification(&mut json, &method, &Value::Object(params));
            // A stream another has taken over writes nothing more.
            if let Ok(n) = sessions.record_get_event(sid, claim, &json) {
                if let Wire::Http(http) = &mut self.wire {
                    http.on_stream_event(&mut self.outbox, n, &json);
                }
            }
            return;
        }
        self.emit_notification(&method, &Value::Object(params));
    }

    /// Whether this connection hears change events for a session: an HTTP
    /// session's GET stream, or a stdio session for its whole life.
    #[cfg(feature = "std")]
    pub(super) fn has_get_stream(&self) -> bool {
        match &self.wire {
            Wire::Http(_) => self.get_stream_session().is_some(),
            Wire::Stdio(_) => self.session.is_some(),
        }
    }

    /// Forget every route to this connection (it is closing): later
    /// answers to its requests find nothing waiting.
    pub(crate) fn forget_outbound(&mut self) {
        #[cfg(feature = "std")]
        if let Some(sessions) = &self.service.inner.sessions {
            for (rid, call) in &self.outbound {
                if let Some(sid) = self
                    .calls
                    .get(call)
                    .and_then(|c| c.legacy.as_ref())
                    .and_then(|l| l.session.as_ref())
                {
                    sessions.unroute(sid, *rid);
                }
            }
        }
        self.outbound.clear();
    }
}
