//! The initialize-era sessions on HTTP (2025-11-25 `basic/transports.mdx`
//! § Session Management): `Mcp-Session-Id` on the `initialize` response,
//! 404 for an unknown session, 400 for a missing id or an unknown
//! `MCP-Protocol-Version`, the standalone GET stream (one per session,
//! 409 for a second) and DELETE. What a session *does* is the shared
//! session logic of [`crate::connection`]; this is only its HTTP surface.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::codec::Head;
use crate::connection::{Connection, Output, Slot, Wire};
use crate::error::ErrorObject;
use crate::jsonrpc::{self, Incoming, RequestId};
use crate::legacy::code;
use crate::time::Instant;

/// `Mcp-Session-Id`, as the decoder stores header names.
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";

const NO_SESSION_ID: &str = "Bad Request: Mcp-Session-Id header is required";

/// An HTTP exchange of a session.
#[derive(Debug)]
pub(crate) struct LegacyExchange {
    /// The session's id.
    pub(crate) session: String,
    /// The session was created by this exchange (`initialize`): its
    /// response carries the id (`transports.mdx` § Session Management).
    created: bool,
    /// This exchange is the session's standalone GET stream.
    pub(crate) get_stream: bool,
}

impl LegacyExchange {
    /// The header line naming a session just created.
    pub(crate) fn session_header(&self) -> Option<String> {
        self.created
            .then(|| format!("Mcp-Session-Id: {}", self.session))
    }
}

impl Connection {
    /// Bind the exchange being answered to a session.
    pub(crate) fn bind_exchange(&mut self, session: String, created: bool, get_stream: bool) {
        if let Some(ex) = self.http().and_then(|h| h.exchange.as_mut()) {
            ex.legacy = Some(Box::new(LegacyExchange {
                session,
                created,
                get_stream,
            }));
        }
    }

    /// The session of the exchange being answered, if it is a session's
    /// GET stream.
    pub(crate) fn get_stream_session(&self) -> Option<&str> {
        let Wire::Http(h) = &self.wire else {
            return None;
        };
        h.exchange
            .as_ref()
            .and_then(|e| e.legacy.as_ref())
            .filter(|l| l.get_stream)
            .map(|l| l.session.as_str())
    }

    /// A transport-level refusal with a JSON-RPC error body.
    pub(crate) fn session_error(
        &mut self,
        status: u16,
        id: Option<&RequestId>,
        code: i64,
        message: &'static str,
        now: Instant,
    ) {
        let mut json = Vec::with_capacity(128);
        jsonrpc::write_error(&mut json, id, &ErrorObject::new(code, message));
        self.http_answer(status, Some("application/json"), &json, &[], now);
    }

    /// A POST that belongs to a session: `initialize`, or a message naming
    /// its session with `Mcp-Session-Id` (`transports.mdx` § Session
    /// Management).
    pub(crate) fn handle_session_post(&mut self, head: &Head, incoming: Incoming, now: Instant) {
        let request_id = match &incoming {
            Incoming::Request { id, .. } => Some(id.clone()),
            _ => None,
        };
        // Without a session id only `initialize` is a session message
        // ([`crate::legacy::era`]); anything else without one was read as
        // a 2026-07-28 request before reaching here.
        let Some(raw) = head.get(SESSION_HEADER) else {
            self.legacy_message(None, incoming, now);
            return;
        };
        let sid = String::from_utf8_lossy(raw).into_owned();
        if self.with_session(Some(&sid), now, |_| ()).is_none() {
            // `§ Session Management` 4: an unknown or expired session is
            // 404; the client starts a new one with initialize.
            self.session_error(
                404,
                request_id.as_ref(),
                code::SESSION_NOT_FOUND,
                "Session not found",
                now,
            );
            return;
        }
        // `§ Protocol Version Header`: an unsupported version is 400; none
        // at all is assumed to be 2025-03-26 and served as negotiated.
        if let Some(v) = head.get("mcp-protocol-version") {
            let known = self
                .service
                .inner
                .legacy
                .iter()
                .any(|p| p.version.as_bytes() == v);
            if !known {
                self.session_error(
                    400,
                    request_id.as_ref(),
                    code::BAD_REQUEST,
                    "Bad Request: unsupported MCP-Protocol-Version",
                    now,
                );
                return;
            }
        }
        self.bind_exchange(sid.clone(), false, false);
        self.legacy_message(Some(sid), incoming, now);
    }

    /// GET (the session's standalone SSE stream) or DELETE (end the
    /// session), already past the head checks.
    pub(crate) fn handle_session_verb(&mut self, head: &Head, now: Instant) {
        let Some(raw) = head.get(SESSION_HEADER) else {
            self.session_error(400, None, code::BAD_REQUEST, NO_SESSION_ID, now);
            return;
        };
        let sid = String::from_utf8_lossy(raw).into_owned();
        #[cfg(not(feature = "std"))]
        {
            let _ = sid;
            self.session_error(405, None, code::BAD_REQUEST, "Method Not Allowed", now);
        }
        #[cfg(feature = "std")]
        {
            let Some(sessions) = self.service.inner.sessions.clone() else {
                self.session_error(405, None, code::BAD_REQUEST, "Method Not Allowed", now);
                return;
            };
            if head.method == "DELETE" {
                // `§ Session Management` 5.
                if sessions.delete(&sid) {
                    tracing::debug!("session ended by the client");
                    self.http_answer(200, None, &[], &[], now);
                } else {
                    self.session_error(
                        404,
                        None,
                        code::SESSION_NOT_FOUND,
                        "Session not found",
                        now,
                    );
                }
                return;
            }
            if sessions.with(&sid, now, |_| ()).is_none() {
                self.session_error(404, None, code::SESSION_NOT_FOUND, "Session not found", now);
                return;
            }
            if !sessions.open_get_stream(&sid) {
                // One standalone stream per session: two would split the
                // server's messages between them.
                self.session_error(
                    409,
                    None,
                    code::BAD_REQUEST,
                    "Conflict: the session's GET stream is already open",
                    now,
                );
                return;
            }
            self.bind_exchange(sid, false, true);
            self.open_http_stream(now);
            self.listen_to_hub();
            tracing::debug!("session GET stream opened");
        }
    }

    /// A session call of this HTTP connection was cancelled from another
    /// connection: its response ends as an event stream that carries no
    /// message, so the connection stays usable.
    pub(crate) fn end_cancelled_exchange(&mut self, now: Instant) {
        let Wire::Http(http) = &mut self.wire else {
            return;
        };
        let Some(keep_alive) = http.exchange.as_ref().map(|e| e.keep_alive()) else {
            return;
        };
        http.start_sse(&mut self.outbox);
        http.end_body(&mut self.outbox);
        self.end_exchange(keep_alive, now);
    }

    /// Release the session's claim on its GET stream (the connection is
    /// closing).
    pub(crate) fn end_get_stream(&mut self) {
        #[cfg(feature = "std")]
        if let (Some(sid), Some(sessions)) =
            (self.get_stream_session(), &self.service.inner.sessions)
        {
            sessions.close_get_stream(sid);
        }
    }

    /// End an HTTP GET stream gracefully (shutdown): the last chunk, then
    /// the connection closes.
    pub(crate) fn finish_get_stream(&mut self) {
        if self.get_stream_session().is_none() {
            return;
        }
        self.end_get_stream();
        if let Wire::Http(http) = &mut self.wire {
            http.end_body(&mut self.outbox);
            http.exchange = None;
            http.closing = true;
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
}
