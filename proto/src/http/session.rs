//! The initialize-era sessions on HTTP (2025-11-25 `basic/transports.mdx`
//! § Session Management): `Mcp-Session-Id` on the `initialize` response,
//! 404 for an unknown session, 400 for a missing id or an unknown
//! `MCP-Protocol-Version`, the standalone GET stream (one per session,
//! 409 for a second) and DELETE. What a session *does* is the shared
//! session logic of [`crate::connection`]; this is only its HTTP surface.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::codec::Head;
use super::Answer;
use crate::error::ErrorObject;
use crate::jsonrpc::{self, RequestId};
use crate::legacy::code;
use crate::service::Service;

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
    pub(crate) created: bool,
    /// Which of the session's streams this exchange is.
    pub(crate) stream: SessionStream,
}

/// Which of its session's streams an exchange is (2025-11-25
/// `basic/transports.mdx` § Sending Messages to the Server, § Listening
/// for Messages from the Server, § Resumability and Redelivery).
#[cfg_attr(not(feature = "std"), allow(dead_code))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SessionStream {
    /// A POST's answer; once it became an event stream with ids, the
    /// stream's number in the session (`legacy::Sessions::open_post_stream`).
    Post(Option<u64>),
    /// The session's standalone GET stream, with the number of its claim
    /// (`legacy::Sessions::open_get_stream`).
    Get { claim: u64 },
    /// A GET resuming POST stream `stream` under `claim`
    /// (`legacy::Sessions::resume_post_stream`), `through` the last event
    /// number it has written or skipped.
    Resumed {
        stream: u64,
        claim: u64,
        through: u64,
    },
}

impl LegacyExchange {
    /// The header line naming a session just created.
    pub(crate) fn session_header(&self) -> Option<String> {
        self.created
            .then(|| format!("Mcp-Session-Id: {}", self.session))
    }
}

/// Why a session's request is refused before it reaches the session
/// (`transports.mdx` § Session Management, § Protocol Version Header).
// Each build meets only some of these: sessions are kept with `std`
// (409, 503), and without it `initialize` is 501.
#[allow(dead_code)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SessionRefusal {
    /// GET or DELETE without `Mcp-Session-Id`: 400.
    NoId,
    /// An unknown or expired session: 404, and the client starts a new
    /// one with `initialize` (§ Session Management 4).
    NotFound,
    /// An `MCP-Protocol-Version` no session dialect speaks: 400.
    BadVersion,
    /// GET or DELETE where sessions are not kept: 405.
    NotAllowed,
    /// A second standalone GET stream for one session: 409. Two would
    /// split the server's messages between them.
    Conflict,
    /// A response from the client that no request of its session waits
    /// for: 400.
    NothingWaits,
    /// `initialize` when the session cap is reached: 503.
    Full,
    /// `initialize` on a build without sessions (no `std`): 501.
    Unsupported,
}

impl SessionRefusal {
    /// The refusal as an answer: its status and a JSON-RPC error body
    /// naming `id` when the message was read.
    pub(crate) fn answer(self, id: Option<&RequestId>) -> Answer {
        let (status, code, message) = match self {
            SessionRefusal::NoId => (400, code::BAD_REQUEST, NO_SESSION_ID),
            SessionRefusal::NotFound => (404, code::SESSION_NOT_FOUND, "Session not found"),
            SessionRefusal::BadVersion => (
                400,
                code::BAD_REQUEST,
                "Bad Request: unsupported MCP-Protocol-Version",
            ),
            SessionRefusal::NotAllowed => (405, code::BAD_REQUEST, "Method Not Allowed"),
            SessionRefusal::Conflict => (
                409,
                code::BAD_REQUEST,
                "Conflict: the session's GET stream is already open",
            ),
            SessionRefusal::NothingWaits => (
                400,
                code::BAD_REQUEST,
                "Bad Request: no request of this session waits for this response",
            ),
            SessionRefusal::Full => (
                503,
                code::BAD_REQUEST,
                "Service Unavailable: too many sessions",
            ),
            SessionRefusal::Unsupported => (
                501,
                code::BAD_REQUEST,
                "Sessions on HTTP need the std feature",
            ),
        };
        let mut json = Vec::with_capacity(128);
        jsonrpc::write_error(&mut json, id, &ErrorObject::new(code, message));
        Answer {
            status,
            json,
            header: None,
        }
    }
}

/// What a GET or DELETE asks of its session.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verb {
    /// Open the session's standalone SSE stream.
    Get(String),
    /// End the session (§ Session Management 5).
    Delete(String),
}

/// The session a request names with `Mcp-Session-Id`.
pub(crate) fn session_id(head: &Head) -> Option<String> {
    head.get(SESSION_HEADER)
        .map(|raw| String::from_utf8_lossy(raw).into_owned())
}

/// A GET or DELETE, already past the head checks: which session it is
/// for, or 400 without one.
pub(crate) fn verb(head: &Head) -> Result<Verb, SessionRefusal> {
    let sid = session_id(head).ok_or(SessionRefusal::NoId)?;
    Ok(match head.method.as_str() {
        "DELETE" => Verb::Delete(sid),
        _ => Verb::Get(sid),
    })
}

/// `§ Protocol Version Header`: an unsupported version is 400; none at all
/// is assumed to be 2025-03-26 and served as negotiated.
pub(crate) fn check_version(service: &Service, head: &Head) -> Result<(), SessionRefusal> {
    let Some(v) = head.get("mcp-protocol-version") else {
        return Ok(());
    };
    let known = service
        .inner
        .legacy
        .iter()
        .any(|p| p.version.as_bytes() == v);
    if known {
        Ok(())
    } else {
        Err(SessionRefusal::BadVersion)
    }
}
