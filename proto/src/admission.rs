//! One message's way from bytes to a decision, the same for every wire:
//! stdio lines, HTTP/1.1 bodies, and bodies a host HTTP stack read.
//!
//! The wire frames a message and says what it knows about it ([`Facts`]:
//! who sent it, the HTTP header mirrors, whether a session is named);
//! everything after that is decided here, in this order:
//!
//! 1. the typed parser of the common requests (`dispatch::fast`), which
//!    reads only 2026-07-28 requests and answers them through the same
//!    admission steps as the general parser;
//! 2. the general parser (`jsonrpc::parse`);
//! 3. the era (`legacy::era`): a message of an initialize-era session goes
//!    to the session layer ([`Admission::Session`]), which admits it
//!    against its negotiated revision and routes what both eras share to
//!    the same `dispatch` code, scopes and rate limits included;
//! 4. everything else is a 2026-07-28 message, admitted by
//!    [`dispatch`](crate::dispatch::dispatch).
//!
//! So no wire can skip a step or take them in another order, and a rule
//! added to `dispatch` holds on every wire and in every era.

use alloc::sync::Arc;
use bytes::Bytes;

use crate::auth::Principal;
use crate::dispatch::{self, fast, Dispatch, HeaderCheck};
use crate::jsonrpc::{self, Incoming};
use crate::legacy::{self, Era};
use crate::service::Service;
use crate::time::Instant;

/// What the wire knows about a message beyond its bytes.
#[derive(Clone, Copy)]
pub(crate) struct Facts<'a> {
    /// Who sent it: the authenticated principal on HTTP, the
    /// application's on stdio.
    pub(crate) principal: Option<&'a Arc<Principal>>,
    /// The HTTP header mirrors of the body (`MCP-Protocol-Version`,
    /// `Mcp-Method`, `Mcp-Name`); `None` on stdio.
    pub(crate) mirrors: Option<&'a dyn HeaderCheck>,
    /// A session is named: on HTTP an `Mcp-Session-Id` header, on stdio a
    /// session this connection already opened.
    pub(crate) session: bool,
}

/// Where a message goes.
// `Stateless` carries the large `Dispatch`; this lives only on the stack
// between admission and the connection acting on it.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Admission {
    /// A 2026-07-28 message, decided.
    Stateless(Dispatch),
    /// A message of an initialize-era session, for the session layer.
    Session(Incoming),
}

/// Admit the message `bytes`, received at `now`, with what the wire knows.
/// `memo` is the connection's memory of the client's last `_meta`.
pub(crate) fn admit(
    service: &Service,
    bytes: &Bytes,
    facts: Facts<'_>,
    memo: &mut fast::Memo,
    now: Instant,
) -> Admission {
    if let Some(d) = fast::admit(service, bytes, facts.mirrors, facts.principal, memo, now) {
        return Admission::Stateless(d);
    }
    let incoming = jsonrpc::parse(bytes);
    if !service.inner.legacy.is_empty() && legacy::era(&incoming, facts.session) == Era::Session {
        return Admission::Session(incoming);
    }
    Admission::Stateless(dispatch::dispatch(
        service,
        incoming,
        facts.mirrors,
        facts.principal,
        now,
    ))
}
