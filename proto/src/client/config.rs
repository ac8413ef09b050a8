//! How a client presents itself, and the names its operations go by.

use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{json, Map, Value};

/// The revisions this client speaks, newest first.
pub const SUPPORTED_VERSIONS: [&str; 3] = ["2026-07-28", "2025-11-25", "2025-06-18"];

/// The first revision without `initialize`: every request carries its own
/// `_meta` (`basic/index.mdx` § `_meta`).
const STATELESS_SINCE: &str = "2026-07-28";

/// Whether `version` is a revision without `initialize` (versions are
/// dates, so they order as strings).
pub fn is_stateless(version: &str) -> bool {
    version >= STATELESS_SINCE
}

/// Which kind of server the session speaks to (`basic/versioning.mdx`
/// § Terminology): it decides the dialect of every request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Era {
    /// Per-request `_meta`, no handshake (2026-07-28).
    Modern,
    /// A session opened with `initialize` (2025-11-25, 2025-06-18).
    Legacy,
}

impl Era {
    /// The era of `version`.
    pub fn of(version: &str) -> Era {
        if is_stateless(version) {
            Era::Modern
        } else {
            Era::Legacy
        }
    }
}

/// The wire the client's messages travel on: it decides which header
/// mirrors are computed and how a cancellation is signalled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// Streamable HTTP (`basic/transports/streamable-http.mdx`).
    Http,
    /// stdio (`basic/transports/stdio.mdx`).
    Stdio,
}

/// How a [`Client`](super::Client) presents itself.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientConfig {
    /// `clientInfo`: at least `name` and `version`.
    pub client_info: Value,
    /// `clientCapabilities`, e.g. `{"elicitation": {}}` when the
    /// application answers elicitation requests.
    pub capabilities: Map<String, Value>,
    /// The revisions to offer, preferred first; each must be one of
    /// [`SUPPORTED_VERSIONS`]. The first decides how the client opens: a
    /// stateless revision probes with `server/discover`, an older one
    /// starts with `initialize`. With a stateless revision first, the
    /// initialize-era revisions listed after it are what the client falls
    /// back to when the probe finds a legacy server (the newest of them is
    /// offered, `basic/versioning.mdx` § Backward Compatibility); with
    /// none listed, such a server is an error
    /// ([`ClientError::LegacyServer`](super::ClientError::LegacyServer)).
    pub versions: Vec<String>,
    /// The wire.
    pub wire: Wire,
    /// `resultType` values the declared extensions add (`basic/index.mdx`
    /// § ResultType: the client's set is the core's plus those of the
    /// extensions it supports; any other value is invalid). A result of
    /// one of these is an [`Event::ExtensionResult`](super::Event::ExtensionResult).
    pub result_types: Vec<String>,
    /// Extension methods whose `Mcp-Name` header mirrors a `params` field,
    /// `(method, field)`, as the core's `tools/call` mirrors `name`.
    pub named_methods: Vec<(String, String)>,
}

impl ClientConfig {
    /// Declare extension `id` in `clientCapabilities.extensions`
    /// (`basic/versioning.mdx` § Extension Negotiation); what it adds to
    /// the wire is [`result_types`](ClientConfig::result_types) and
    /// [`named_methods`](ClientConfig::named_methods).
    pub fn with_extension(mut self, id: &str, settings: Value) -> Self {
        let extensions = self
            .capabilities
            .entry("extensions")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = extensions {
            m.insert(String::from(id), settings);
        }
        self
    }

    /// A configuration for revision 2026-07-28 over `wire`, with no
    /// capabilities. It speaks to modern servers only: a server of the
    /// initialize era fails the connect with
    /// [`ClientError::LegacyServer`](super::ClientError::LegacyServer);
    /// [`dual_era`](ClientConfig::dual_era) falls back instead.
    pub fn new(name: &str, version: &str, wire: Wire) -> Self {
        ClientConfig {
            client_info: json!({"name": name, "version": version}),
            capabilities: Map::new(),
            versions: alloc::vec![String::from(STATELESS_SINCE)],
            wire,
            result_types: Vec::new(),
            named_methods: Vec::new(),
        }
    }
}

impl ClientConfig {
    /// A dual-era configuration (`basic/versioning.mdx` § Terminology):
    /// 2026-07-28 first, then 2025-11-25 and 2025-06-18 for a server that
    /// turns out to speak only the initialize era.
    pub fn dual_era(name: &str, version: &str, wire: Wire) -> Self {
        let mut config = ClientConfig::new(name, version, wire);
        config.versions = SUPPORTED_VERSIONS
            .iter()
            .map(|v| String::from(*v))
            .collect();
        config
    }

    /// The newest initialize-era revision this configuration allows: what
    /// the fallback offers in `initialize` (2025-11-25
    /// `basic/lifecycle.mdx` § Version Negotiation: the latest the client
    /// supports).
    pub fn newest_legacy(&self) -> Option<&str> {
        self.versions
            .iter()
            .map(String::as_str)
            .filter(|v| !is_stateless(v) && SUPPORTED_VERSIONS.contains(v))
            .max()
    }
}

/// One operation: a request and its MRTR retries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OpId(pub u64);

/// Options of one request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestOptions {
    /// Ask for `notifications/progress` (`basic/patterns/progress.mdx`):
    /// the request carries a `progressToken` and the notifications come
    /// back as [`Event::Notification`](super::Event::Notification) with the operation's id.
    pub progress: bool,
}
