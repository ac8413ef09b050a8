//! JSON-RPC error objects and the codes MCP 2026-07-28 gives them.
//!
//! Every code here is used only with the meaning the spec assigns
//! (`basic/index.mdx` § Error Codes; `schema.ts` error interfaces). Codes in
//! `-32020..=-32099` are MCP's own. Of `-32000..=-32019`, which `schema.ts`
//! (§ MCP error codes) leaves to implementations, snodo emits two:
//! [`code::SERVICE_UNAVAILABLE`] and [`code::RATE_LIMITED`], whose meaning
//! travels in their `data` (`retryable`, `retryAfterSeconds`) and, on HTTP,
//! in the status (503 or 429, with `Retry-After`), since no receiver may
//! read cross-implementation meaning into the code itself.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The error codes snodo emits.
pub mod code {
    /// The body is not valid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a valid JSON-RPC request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Unknown method, or one gated by a capability the server does not advertise.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid or missing parameters, including required `_meta` fields.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Unexpected server failure.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// HTTP headers missing, malformed, or not matching the body.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request needs a client capability it did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The request's protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// Something the request needs (a task store, a database) cannot be
    /// reached now; nothing was changed and the request may be sent again
    /// ([`ErrorObject::unavailable`](super::ErrorObject::unavailable)).
    /// Implementation-defined (`schema.ts` § MCP error codes: `-32000` to
    /// `-32019`).
    pub const SERVICE_UNAVAILABLE: i64 = -32000;
    /// The caller has made more calls than its rate limit allows; nothing
    /// was done and the request may be sent again after
    /// `data.retryAfterSeconds` ([`ErrorObject::rate_limited`](super::ErrorObject::rate_limited)).
    /// Implementation-defined (`schema.ts` § MCP error codes).
    pub const RATE_LIMITED: i64 = -32001;

    /// The codes of the initialize-era revisions (2025-11-25, 2025-06-18)
    /// beyond JSON-RPC's, sent only inside their sessions. They reuse
    /// numbers that 2026-07-28 answers carry with other meanings
    /// ([`SERVICE_UNAVAILABLE`], [`RATE_LIMITED`]), so read a code with
    /// the era of the answer it came in.
    pub mod session {
        /// `resources/read` of an unknown URI (`mcp-2025-11-25/server/resources.mdx`
        /// § Error Handling); 2026-07-28 uses `-32602` instead.
        pub const RESOURCE_NOT_FOUND: i64 = -32002;
        /// A request on HTTP naming a session that does not exist or expired
        /// (the code TypeScript and Python SDKs send with the 404).
        pub const SESSION_NOT_FOUND: i64 = -32001;
        /// A transport-level refusal (missing session, not initialized).
        pub const BAD_REQUEST: i64 = -32000;
        /// The request needs a URL-mode elicitation completed first
        /// (2025-11-25 `client/elicitation.mdx` § URL Elicitation Required
        /// Error); 2026-07-28 asks with an `InputRequiredResult` instead.
        pub const URL_ELICITATION_REQUIRED: i64 = -32042;
    }
}

/// How long [`ErrorObject::unavailable`] asks a client to wait before
/// sending the request again, in seconds (`data.retryAfterSeconds`; on
/// HTTP also the `Retry-After` header, RFC 9110 § 10.2.3).
pub const RETRY_AFTER_SECONDS: u64 = 1;

/// A JSON-RPC error object: `{code, message, data?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code (see [`code`]).
    pub code: i64,
    /// One concise sentence (`schema.ts` Error: "SHOULD be limited to a concise single sentence").
    pub message: Cow<'static, str>,
    /// Structured detail, when the spec defines one (e.g. `supported`/`requested`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error with a code and message and no data.
    pub fn new(code: i64, message: impl Into<Cow<'static, str>>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attach `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700`: the message is not valid JSON.
    pub fn parse_error() -> Self {
        Self::new(code::PARSE_ERROR, "Parse error: Invalid JSON")
    }

    /// `-32600`: not a valid JSON-RPC request.
    pub fn invalid_request(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(code::INVALID_REQUEST, message)
    }

    /// `-32601`: unknown method or one gated by an unadvertised capability.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            code::METHOD_NOT_FOUND,
            alloc::format!("Method not found: {}", quoted(method)),
        )
    }

    /// `-32602`: invalid params.
    pub fn invalid_params(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(code::INVALID_PARAMS, message)
    }

    /// `-32603`: internal error. The message must not leak internals.
    pub fn internal(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(code::INTERNAL_ERROR, message)
    }

    /// `-32000`: a dependency of the request (a task store, a database) is
    /// unavailable right now; nothing was changed and the same request may
    /// be sent again. `data` says so in a form any client can read:
    /// `{"retryable": true, "retryAfterSeconds": 1}`. On Streamable HTTP a
    /// JSON answer carrying it gets `503 Service Unavailable` with
    /// `Retry-After` (RFC 9110 § 15.6.4), so HTTP clients and proxies that
    /// know nothing of MCP see a retryable failure too.
    pub fn unavailable(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(code::SERVICE_UNAVAILABLE, message)
            .with_data(json!({ "retryable": true, "retryAfterSeconds": RETRY_AFTER_SECONDS }))
    }

    /// `-32001`: over the caller's rate limit ([`crate::limit`]); nothing
    /// was done. `data`: `{"retryable": true, "retryAfterSeconds": n}`; on
    /// Streamable HTTP `429 Too Many Requests` with `Retry-After: n`
    /// (RFC 6585 § 4).
    pub fn rate_limited(retry_after_seconds: u64) -> Self {
        Self::new(code::RATE_LIMITED, "Rate limit exceeded")
            .with_data(json!({ "retryable": true, "retryAfterSeconds": retry_after_seconds }))
    }

    /// How many seconds a retryable error asks the client to wait
    /// (`data.retryAfterSeconds`); `None` for any other error.
    pub fn retry_after(&self) -> Option<u64> {
        if !self.is_retryable() {
            return None;
        }
        self.data.as_ref()?.get("retryAfterSeconds")?.as_u64()
    }

    /// Whether this error says the request may be sent again as it is
    /// (`data.retryable` is `true`): [`ErrorObject::unavailable`],
    /// [`ErrorObject::rate_limited`].
    pub fn is_retryable(&self) -> bool {
        self.data
            .as_ref()
            .and_then(|d| d.get("retryable"))
            .and_then(Value::as_bool)
            == Some(true)
    }

    /// `-32020`: header missing, malformed or mismatched.
    pub fn header_mismatch(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(code::HEADER_MISMATCH, message)
    }

    /// `-32021` with `data.requiredCapabilities` (a `ClientCapabilities` object).
    pub fn missing_client_capability(required: Value) -> Self {
        Self::new(
            code::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "Missing required client capability",
        )
        .with_data(json!({ "requiredCapabilities": required }))
    }

    /// `-32042` with `data.elicitations`, for a 2025-11-25 session's
    /// request that cannot go on until the user has completed the
    /// interaction at `url` (`client/elicitation.mdx` § URL Elicitation
    /// Required Error, 2025-11-25): the client sends the user there and
    /// retries once the server sends `notifications/elicitation/complete`
    /// naming `elicitation_id`, or when the user says so. Only for that
    /// case (the spec: MUST NOT otherwise), and only in sessions; a
    /// 2026-07-28 handler asks with an
    /// [`InputRequired`](crate::InputRequired) URL elicitation.
    pub fn url_elicitation_required(
        elicitation_id: impl Into<String>,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Self {
        let request =
            crate::mrtr::ElicitRequest::url(message, url).with_elicitation_id(elicitation_id);
        Self::new(
            code::session::URL_ELICITATION_REQUIRED,
            "This request requires more information.",
        )
        .with_data(json!({ "elicitations": [request.session_params(String::new)] }))
    }

    /// `-32022` with `data.supported` and `data.requested`, shaped as
    /// `schema.ts` UnsupportedProtocolVersionError requires.
    pub fn unsupported_version(supported: &[&str], requested: &str) -> Self {
        let supported: Vec<&str> = supported.to_vec();
        Self::new(
            code::UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
        )
        .with_data(json!({ "supported": supported, "requested": requested }))
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ErrorObject {}

/// Cut `s` to at most `max` bytes on a character boundary, for echoing
/// client-chosen strings into error messages without letting them grow.
pub(crate) fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Owned variant of [`truncate`] for building messages.
pub(crate) fn quoted(s: &str) -> String {
    let mut out = String::from(truncate(s, 128));
    if s.len() > 128 {
        out.push('…');
    }
    out
}
