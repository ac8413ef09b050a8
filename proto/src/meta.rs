//! Per-request `_meta`: what every 2026-07-28 request must carry
//! (`basic/index.mdx` § `_meta`), the required fields checked before the
//! version is judged (see `crate::dispatch` for the order).
//!
//! Nothing here is remembered between requests (`basic/index.mdx`
//! § Statelessness): each request's metadata stands alone.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use bytes::Bytes;
use core::fmt;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::ErrorObject;
use crate::model::Implementation;

/// `_meta` key of the request's protocol version (required).
pub const KEY_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the request's client capabilities (required).
pub const KEY_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's self-description (optional).
pub const KEY_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the per-request minimum log level (optional, deprecated).
pub const KEY_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the server's self-description on results.
pub const KEY_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key that opts into progress notifications.
pub const KEY_PROGRESS_TOKEN: &str = "progressToken";

/// Log levels of RFC 5424 as `server/utilities/logging.mdx` lists them,
/// ordered from least to most severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    /// Parse the wire name.
    pub fn parse(s: &str) -> Option<LogLevel> {
        Some(match s {
            "debug" => LogLevel::Debug,
            "info" => LogLevel::Info,
            "notice" => LogLevel::Notice,
            "warning" => LogLevel::Warning,
            "error" => LogLevel::Error,
            "critical" => LogLevel::Critical,
            "alert" => LogLevel::Alert,
            "emergency" => LogLevel::Emergency,
            _ => return None,
        })
    }
}

/// A progress token: a string or an integer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// Integer token.
    Int(i64),
    /// String token.
    Str(String),
}

impl fmt::Display for ProgressToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProgressToken::Int(i) => write!(f, "{i}"),
            ProgressToken::Str(s) => write!(f, "{s:?}"),
        }
    }
}

/// The client's capabilities for one request (`schema.ts` ClientCapabilities).
///
/// Kept as the object the client sent, so unknown members (such as the
/// `roots.listChanged` some clients still send) are ignored, not rejected.
/// Shared, not copied: a client sends the same object with every request,
/// and a connection reads it once (see `dispatch::fast`).
#[derive(Clone, Debug, PartialEq)]
pub struct ClientCapabilities(Arc<Map<String, Value>>);

impl Default for ClientCapabilities {
    /// No capabilities; in a `std` build one shared empty object, so a
    /// default `RequestMeta` allocates nothing for it.
    fn default() -> Self {
        #[cfg(feature = "std")]
        {
            static EMPTY: std::sync::OnceLock<Arc<Map<String, Value>>> = std::sync::OnceLock::new();
            ClientCapabilities(EMPTY.get_or_init(Default::default).clone())
        }
        #[cfg(not(feature = "std"))]
        ClientCapabilities(Arc::default())
    }
}

impl From<Map<String, Value>> for ClientCapabilities {
    fn from(map: Map<String, Value>) -> Self {
        ClientCapabilities(Arc::new(map))
    }
}

impl ClientCapabilities {
    /// The raw object.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }

    fn member(&self, name: &str) -> Option<&Map<String, Value>> {
        self.0.get(name).and_then(Value::as_object)
    }

    /// Form-mode elicitation: `elicitation` declared, either empty (form
    /// only, `client/elicitation.mdx` § Capabilities) or with `form`.
    pub fn elicitation_form(&self) -> bool {
        match self.member("elicitation") {
            Some(e) => e.is_empty() || e.contains_key("form"),
            None => false,
        }
    }

    /// URL-mode elicitation: only when `elicitation.url` is declared.
    pub fn elicitation_url(&self) -> bool {
        self.member("elicitation")
            .is_some_and(|e| e.contains_key("url"))
    }

    /// `sampling` declared.
    pub fn sampling(&self) -> bool {
        self.member("sampling").is_some()
    }

    /// `sampling.tools` declared (tool-enabled sampling).
    pub fn sampling_tools(&self) -> bool {
        self.member("sampling")
            .is_some_and(|s| s.contains_key("tools"))
    }

    /// `roots` declared.
    pub fn roots(&self) -> bool {
        self.member("roots").is_some()
    }

    /// Extension `id` declared in `extensions`.
    pub fn extension(&self, id: &str) -> bool {
        self.member("extensions")
            .is_some_and(|e| e.contains_key(id))
    }
}

/// W3C trace context carried in `_meta`, passed through untouched.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceContext {
    /// `traceparent`.
    pub traceparent: Option<String>,
    /// `tracestate`.
    pub tracestate: Option<String>,
    /// `baggage`.
    pub baggage: Option<String>,
}

/// A request's admitted `_meta`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion`: borrowed from the
    /// profiles when it is one of the revisions snodo knows (always, once
    /// admitted), copied otherwise.
    pub protocol_version: Cow<'static, str>,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub client_capabilities: ClientCapabilities,
    /// `io.modelcontextprotocol/clientInfo`, when sent. Self-reported: never
    /// a basis for security decisions. Shared: a client sends the same one
    /// with every request, and admission reads it once per connection.
    pub client_info: Option<Arc<Implementation>>,
    /// `io.modelcontextprotocol/logLevel`, when sent.
    pub log_level: Option<LogLevel>,
    /// `progressToken`, when sent.
    pub progress_token: Option<ProgressToken>,
    /// OpenTelemetry context.
    pub trace: TraceContext,
    /// The whole `_meta` object: see [`RequestMeta::raw`].
    pub(crate) raw: Raw,
    /// Not from `_meta`: the principal the transport authenticated the
    /// request as (see [`RequestMeta::principal`]).
    pub(crate) principal: Option<Arc<crate::auth::Principal>>,
}

impl RequestMeta {
    /// The whole `_meta` object, for application-defined keys. Parsed
    /// here when admission read every member it had into the fields above
    /// (the common request: no map is built for it unless asked).
    pub fn raw(&self) -> Cow<'_, Map<String, Value>> {
        self.raw.map()
    }

    /// Who the request was authenticated as: set from the transport (a
    /// bearer token the service's
    /// [`Authorization`](crate::Authorization) accepted), never from
    /// anything the client says about itself. `None` without
    /// authorization (and on stdio, which takes no tokens).
    pub fn principal(&self) -> Option<&crate::auth::Principal> {
        self.principal.as_deref()
    }
}

/// The `_meta` object as the client sent it: the parsed map, or, when
/// admission read every member of it into typed fields, the request
/// message it is `params._meta` of.
#[derive(Clone)]
pub(crate) enum Raw {
    Map(Map<String, Value>),
    /// A JSON-RPC request already parsed once (so its `params._meta` is an
    /// object).
    Message(Bytes),
}

impl Raw {
    pub(crate) fn map(&self) -> Cow<'_, Map<String, Value>> {
        match self {
            Raw::Map(m) => Cow::Borrowed(m),
            Raw::Message(message) => Cow::Owned(
                serde_json::from_slice::<Value>(message)
                    .ok()
                    .and_then(
                        |mut v| match v.get_mut("params")?.get_mut("_meta")?.take() {
                            Value::Object(m) => Some(m),
                            _ => None,
                        },
                    )
                    .unwrap_or_default(),
            ),
        }
    }
}

impl Default for Raw {
    fn default() -> Self {
        Raw::Map(Map::new())
    }
}

/// Equal when the objects are, whichever form holds them.
impl PartialEq for Raw {
    fn eq(&self, other: &Self) -> bool {
        self.map() == other.map()
    }
}

impl fmt::Debug for Raw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.map(), f)
    }
}

/// Step 1 of admission: the required fields are present and well-typed.
///
/// A missing `_meta`, `protocolVersion` or `clientCapabilities` makes the
/// request malformed: `-32602` (`basic/index.mdx` § Per-request protocol
/// fields). Returns the raw map and the version for the next steps.
pub fn required(
    params: Option<&Map<String, Value>>,
) -> Result<(&Map<String, Value>, &str), ErrorObject> {
    let meta = match params.and_then(|p| p.get("_meta")) {
        Some(Value::Object(m)) => m,
        Some(_) => return Err(ErrorObject::invalid_params("_meta must be an object")),
        None => {
            return Err(ErrorObject::invalid_params(
                "Missing required _meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities",
            ))
        }
    };
    Ok((meta, required_in(meta)?))
}

/// [`required`] of the `_meta` object itself: the version.
pub fn required_in(meta: &Map<String, Value>) -> Result<&str, ErrorObject> {
    let version = match meta.get(KEY_PROTOCOL_VERSION) {
        Some(Value::String(v)) => v.as_str(),
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "_meta io.modelcontextprotocol/protocolVersion must be a string",
            ))
        }
        None => {
            return Err(ErrorObject::invalid_params(
                "Missing required _meta field io.modelcontextprotocol/protocolVersion",
            ))
        }
    };
    match meta.get(KEY_CLIENT_CAPABILITIES) {
        Some(Value::Object(_)) => {}
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "_meta io.modelcontextprotocol/clientCapabilities must be an object",
            ))
        }
        None => {
            return Err(ErrorObject::invalid_params(
                "Missing required _meta field io.modelcontextprotocol/clientCapabilities",
            ))
        }
    }
    Ok(version)
}

/// The last step of `_meta` admission, after version and method checks:
/// optional fields are well-formed.
pub fn optional(meta: &Map<String, Value>) -> Result<RequestMeta, ErrorObject> {
    let mut admitted = read(meta)?;
    admitted.raw = Raw::Map(meta.clone());
    Ok(admitted)
}

/// [`optional`] of a `_meta` the caller owns: it becomes
/// [`RequestMeta::raw`] without a copy.
pub fn optional_owned(meta: Map<String, Value>) -> Result<RequestMeta, ErrorObject> {
    let mut admitted = read(&meta)?;
    admitted.raw = Raw::Map(meta);
    Ok(admitted)
}

/// The admitted fields of `meta`; `raw` left empty.
fn read(meta: &Map<String, Value>) -> Result<RequestMeta, ErrorObject> {
    let protocol_version = match meta.get(KEY_PROTOCOL_VERSION).and_then(Value::as_str) {
        Some(v) => crate::profile::known_version(v)
            .map_or_else(|| Cow::Owned(String::from(v)), Cow::Borrowed),
        None => Cow::Borrowed(""),
    };
    let client_capabilities = match meta.get(KEY_CLIENT_CAPABILITIES) {
        Some(Value::Object(c)) => ClientCapabilities::from(c.clone()),
        _ => ClientCapabilities::default(),
    };
    let client_info = match meta.get(KEY_CLIENT_INFO) {
        None => None,
        Some(v) => Some(Arc::new(Implementation::deserialize(v).map_err(|_| {
            ErrorObject::invalid_params(
                "_meta io.modelcontextprotocol/clientInfo must be an object with string name and version",
            )
        })?)),
    };
    let log_level = match meta.get(KEY_LOG_LEVEL) {
        None => None,
        Some(Value::String(s)) => Some(LogLevel::parse(s).ok_or_else(|| {
            ErrorObject::invalid_params(
                "Invalid log level: expected one of debug, info, notice, warning, error, critical, alert, emergency",
            )
        })?),
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "_meta io.modelcontextprotocol/logLevel must be a string",
            ))
        }
    };
    let progress_token = match meta.get(KEY_PROGRESS_TOKEN) {
        None => None,
        Some(Value::String(s)) => Some(ProgressToken::Str(s.clone())),
        Some(Value::Number(n)) if n.is_i64() => Some(ProgressToken::Int(n.as_i64().unwrap_or(0))),
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "_meta progressToken must be a string or an integer",
            ))
        }
    };
    let trace = TraceContext {
        traceparent: trace_field(meta, "traceparent")?,
        tracestate: trace_field(meta, "tracestate")?,
        baggage: trace_field(meta, "baggage")?,
    };
    Ok(RequestMeta {
        protocol_version,
        client_capabilities,
        client_info,
        log_level,
        progress_token,
        trace,
        raw: Raw::default(),
        principal: None,
    })
}

fn trace_field(
    meta: &Map<String, Value>,
    key: &'static str,
) -> Result<Option<String>, ErrorObject> {
    match meta.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ErrorObject::invalid_params(alloc::format!(
            "_meta {key} must be a string (W3C Trace Context)"
        ))),
    }
}

/// The supported-versions list of a profile, as the `-32022` error and
/// `server/discover` both publish it.
pub fn supported_versions(profile: &crate::profile::Profile) -> Vec<&'static str> {
    alloc::vec![profile.version]
}
