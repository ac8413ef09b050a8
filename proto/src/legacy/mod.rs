//! The initialize-era dialects, 2025-11-25 and 2025-06-18, beside the
//! stateless core (`basic/versioning.mdx` § Backward Compatibility with
//! Initialization-Based Versions: a server MAY implement both).
//!
//! The era of a message is read from the message itself, so the stateless
//! path pays nothing for this one: a request carrying
//! `_meta["io.modelcontextprotocol/protocolVersion"]` is always 2026-07-28;
//! otherwise `initialize`, and on HTTP anything sent with an
//! `Mcp-Session-Id`, belongs to a session (`legacy::era`).
//!
//! A session (`mcp-2025-11-25/basic/lifecycle.mdx`) fixes the version and
//! the client's capabilities at `initialize`; it holds the log level
//! (`logging/setLevel`), the resource subscriptions
//! (`resources/subscribe`), and the server-to-client requests waiting for
//! their answers. On stdio the connection is the session; on HTTP sessions
//! live in the service's [`Sessions`] store, named by `Mcp-Session-Id`,
//! bounded in number and expiring when idle
//! (`mcp-2025-11-25/basic/transports.mdx` § Session Management).
//!
//! A handler is written once: when it asks for input
//! ([`InputRequired`](crate::InputRequired)), a 2026-07-28 client gets an
//! `InputRequiredResult` (MRTR), and a session client gets each input
//! request as a server-to-client request on the response stream of its
//! call; when every answer is in, the handler runs again with them, exactly
//! as on an MRTR retry ([`crate::connection`]).

pub(crate) mod admit;
pub(crate) mod replay;
mod reshape;
pub(crate) mod session;
#[cfg(feature = "std")]
mod store;

pub(crate) use reshape::{error as reshape_error, result as reshape_result};
pub(crate) use session::Session;
#[cfg(feature = "std")]
pub(crate) use store::{Inbox, Recorded, ResumedStream, Routed, TakenOver};
#[cfg(feature = "std")]
pub use store::{SessionStats, Sessions};

use alloc::string::String;
use serde_json::{Map, Value};

use crate::jsonrpc::Incoming;
use crate::meta::KEY_PROTOCOL_VERSION;

/// Which era a message belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Era {
    /// 2026-07-28: per-request `_meta`.
    Modern,
    /// An initialize-era session message.
    Session,
}

/// The era of `incoming`; `session_header` is whether the transport named
/// a session (HTTP `Mcp-Session-Id`). `initialize` without a modern
/// `_meta` is a legacy client's handshake; a modern `_meta` version always
/// wins, so a 2026-07-28 request that also carries a stale session header
/// is served statelessly (`streamable-http.mdx` § Earlier Streamable HTTP
/// Revisions: ignore the header).
pub(crate) fn era(incoming: &Incoming, session_header: bool) -> Era {
    let (method, params) = match incoming {
        Incoming::Request { method, params, .. } | Incoming::Notification { method, params } => {
            (Some(&**method), params.as_ref())
        }
        Incoming::Response { .. } => (None, None),
        Incoming::Invalid { .. } => return Era::Modern,
    };
    if modern_meta(params) {
        return Era::Modern;
    }
    if session_header || method == Some("initialize") {
        Era::Session
    } else {
        Era::Modern
    }
}

fn modern_meta(params: Option<&Map<String, Value>>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key(KEY_PROTOCOL_VERSION))
}

pub(crate) use crate::error::code::session as code;
