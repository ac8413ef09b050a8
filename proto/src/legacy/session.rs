//! One initialize-era session's state, and the `initialize` handshake that
//! creates it (`mcp-2025-11-25/basic/lifecycle.mdx`).

use alloc::collections::{BTreeSet, VecDeque};
use alloc::string::String;
use alloc::vec::Vec;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::ErrorObject;
use crate::meta::{ClientCapabilities, LogLevel};
use crate::model::Implementation;
use crate::profile::Profile;
use crate::service::Service;
use crate::time::Instant;

/// What a session fixed at `initialize` and what its client set since.
#[derive(Debug)]
pub(crate) struct Session {
    /// The negotiated revision.
    pub(crate) profile: &'static Profile,
    /// `capabilities` of `initialize`: what server-to-client requests the
    /// client accepts.
    pub(crate) capabilities: ClientCapabilities,
    /// `clientInfo`, self-reported.
    pub(crate) client_info: Option<alloc::sync::Arc<Implementation>>,
    /// `logging/setLevel`; until then every message is sent
    /// (`server/utilities/logging.mdx`: the server MAY choose).
    pub(crate) log_level: Option<LogLevel>,
    /// URIs of `resources/subscribe`.
    pub(crate) subscribed: BTreeSet<String>,
    /// The id of the next server-to-client request.
    pub(crate) next_request: u64,
    /// The ids of the URL-mode elicitations sent and not yet completed,
    /// oldest first, at most [`MAX_ELICITATIONS`]: a completion names one
    /// of them or is not sent (§ Completion Notifications: clients ignore
    /// unknown ids, so a server need not send them).
    pub(crate) elicitations: VecDeque<String>,
    /// Last time a message of this session arrived (expiry).
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) last_seen: Instant,
}

/// How many URL-mode elicitations a session remembers awaiting
/// completion; the oldest is forgotten past it.
pub(crate) const MAX_ELICITATIONS: usize = 64;

/// How many resources one session may subscribe to.
pub(crate) const MAX_SUBSCRIBED: usize = 1024;

/// The longest URI a session subscribes to.
pub(crate) const MAX_URI_BYTES: usize = 4096;

/// The most a session keeps of its `initialize` params (capabilities and
/// client info).
pub(crate) const MAX_KEPT_BYTES: usize = 64 * 1024;

impl Session {
    /// The level below which log messages of this session's calls are not
    /// sent.
    pub(crate) fn min_log_level(&self) -> LogLevel {
        self.log_level.unwrap_or(LogLevel::Debug)
    }

    /// The URL-mode elicitation `id` was sent in this session.
    pub(crate) fn sent_elicitation(&mut self, id: String) {
        if self.elicitations.len() == MAX_ELICITATIONS {
            self.elicitations.pop_front();
        }
        self.elicitations.push_back(id);
    }

    /// Whether `id` was sent in this session and not completed yet; it is
    /// completed now.
    pub(crate) fn complete_elicitation(&mut self, id: &str) -> bool {
        match self.elicitations.iter().position(|e| e == id) {
            Some(i) => {
                self.elicitations.remove(i);
                true
            }
            None => false,
        }
    }

    /// A fresh id for a server-to-client request of this session.
    pub(crate) fn request_id(&mut self) -> u64 {
        self.next_request += 1;
        self.next_request
    }
}

/// The `initialize` request's params, admitted: a session and its result.
pub(crate) fn initialize(
    service: &Service,
    params: Option<&Map<String, Value>>,
    now: Instant,
) -> Result<(Session, Vec<u8>), ErrorObject> {
    let inner = &service.inner;
    let empty = Map::new();
    let params = params.unwrap_or(&empty);
    let requested = match params.get("protocolVersion") {
        Some(Value::String(v)) => v.as_str(),
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "Parameter protocolVersion must be a string",
            ))
        }
        None => {
            return Err(ErrorObject::invalid_params(
                "Missing required parameter protocolVersion",
            ))
        }
    };
    let capabilities = match params.get("capabilities") {
        Some(Value::Object(c)) => ClientCapabilities::from(c.clone()),
        None => ClientCapabilities::default(),
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "Parameter capabilities must be an object",
            ))
        }
    };
    let client_info = params
        .get("clientInfo")
        .and_then(|v| Implementation::deserialize(v).ok())
        .map(alloc::sync::Arc::new);
    // A session outlives its request: what it keeps is bounded, so that
    // `max_sessions` sessions cannot hold `max_sessions` × the message
    // limit.
    let kept = serde_json::to_vec(capabilities.as_map()).map_or(0, |v| v.len())
        + client_info
            .as_ref()
            .and_then(|i| serde_json::to_vec(&**i).ok())
            .map_or(0, |v| v.len());
    if kept > MAX_KEPT_BYTES {
        return Err(ErrorObject::invalid_params(alloc::format!(
            "capabilities and clientInfo take more than {MAX_KEPT_BYTES} bytes"
        )));
    }
    // `lifecycle.mdx` § Version Negotiation: the requested version if
    // supported, otherwise the latest the server supports; the client
    // disconnects if it cannot use that one.
    let Some(profile) = inner
        .legacy
        .iter()
        .find(|p| p.version == requested)
        .or_else(|| inner.legacy.first())
        .copied()
    else {
        return Err(ErrorObject::method_not_found("initialize"));
    };
    let session = Session {
        profile,
        capabilities,
        client_info,
        log_level: None,
        subscribed: BTreeSet::new(),
        next_request: 0,
        elicitations: VecDeque::new(),
        last_seen: now,
    };
    let mut result = Map::new();
    result.insert(
        String::from("protocolVersion"),
        Value::String(String::from(profile.version)),
    );
    result.insert(
        String::from("capabilities"),
        inner.legacy_capabilities.clone(),
    );
    result.insert(
        String::from("serverInfo"),
        serde_json::to_value(&inner.server_info).unwrap_or(Value::Null),
    );
    if let Some(i) = &inner.instructions {
        result.insert(String::from("instructions"), Value::String(i.clone()));
    }
    let mut out = Vec::with_capacity(256);
    crate::json::write(&mut out, &result);
    Ok((session, out))
}
