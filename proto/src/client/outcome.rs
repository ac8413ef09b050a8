//! What the client machine reports: events, and why things fail.

use alloc::string::String;
use serde_json::{Map, Value};

use super::OpId;

/// Why an operation failed.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    Rpc {
        /// The error code.
        code: i64,
        /// The message.
        message: String,
        /// The `data` member, if any.
        data: Option<Value>,
    },
    /// An HTTP status with no JSON-RPC answer for the request.
    Http {
        /// The status code.
        status: u16,
    },
    /// The response stream ended without an answer.
    NoResponse,
    /// The answer broke the protocol (what is wrong, for a log).
    Malformed(String),
    /// The server chose a revision this client does not speak.
    UnsupportedVersion(String),
    /// The application cancelled it.
    Cancelled,
    /// The `server/discover` probe found a server of the initialize era
    /// (`basic/versioning.mdx` § Backward Compatibility) and the
    /// configuration lists no initialize-era revision to fall back to
    /// ([`ClientConfig::versions`](super::ClientConfig::versions)).
    LegacyServer {
        /// What the probe got: the error that marked the server as legacy,
        /// or `None` when it gave no answer within the probe wait.
        probe: Option<alloc::boxed::Box<ClientError>>,
    },
}

impl core::fmt::Display for ClientError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ClientError::Rpc { code, message, .. } => write!(f, "error {code}: {message}"),
            ClientError::Http { status } => write!(f, "HTTP status {status}"),
            ClientError::NoResponse => f.write_str("the response stream ended without an answer"),
            ClientError::Malformed(why) => write!(f, "malformed answer: {why}"),
            ClientError::UnsupportedVersion(v) => write!(f, "unsupported protocol version {v}"),
            ClientError::Cancelled => f.write_str("cancelled"),
            ClientError::LegacyServer { probe } => {
                f.write_str("the server speaks only the initialize era (2025-11-25 and earlier)")?;
                match probe {
                    Some(why) => write!(f, ", its answer to server/discover was: {why}")?,
                    None => f.write_str(", it did not answer server/discover")?,
                }
                f.write_str(
                    "; list an initialize-era version in the client's versions to fall back",
                )
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ClientError {}

/// What happened.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The operation completed with this result (for `tools/list` over
    /// HTTP, without the tools the client rejected).
    Completed {
        /// The operation.
        op: OpId,
        /// The result object.
        result: Value,
    },
    /// The operation failed.
    Failed {
        /// The operation.
        op: OpId,
        /// Why.
        error: ClientError,
    },
    /// The server needs input before it completes the operation
    /// (`InputRequiredResult`, `basic/patterns/mrtr.mdx`): answer each
    /// request with [`Client::answer`](super::Client::answer). `requests` maps the server's keys
    /// to `{method, params}`; it is empty when the server sent only a
    /// `requestState` (the retry may follow at once).
    InputRequired {
        /// The operation.
        op: OpId,
        /// The input requests.
        requests: Map<String, Value>,
    },
    /// A notification; `op` is set when it carries the progress token of
    /// a live operation.
    Notification {
        /// The operation it relates to, if known.
        op: Option<OpId>,
        /// The whole JSON-RPC notification.
        message: Value,
    },
    /// A request from the server (initialize era: `sampling/createMessage`,
    /// `elicitation/create`, `roots/list`, `ping`); answer it with
    /// [`Client::respond`](super::Client::respond).
    ServerRequest {
        /// Its JSON-RPC id, echoed in the response.
        id: Value,
        /// The method.
        method: String,
        /// The params (`null` when absent).
        params: Value,
    },
    /// The operation's answer has a `resultType` an extension the
    /// client declared adds ([`ClientConfig::result_types`](super::ClientConfig::result_types)):
    /// what follows is that extension's business. The operation is over.
    ExtensionResult {
        /// The operation.
        op: OpId,
        /// The `resultType`.
        result_type: String,
        /// The result object.
        result: Value,
    },
    /// A tool of a `tools/list` result was dropped: its `x-mcp-header`
    /// annotations break the rules of `basic/transports/streamable-http.mdx`
    /// § Schema Extension, and a Streamable HTTP client must exclude it.
    ToolRejected {
        /// The tool's name.
        name: String,
        /// Why (for the warning the spec asks clients to log).
        reason: String,
    },
}

/// Why a message from the server was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MessageError {
    /// Not JSON, or not a JSON-RPC message.
    NotJsonRpc,
    /// A response to no request in flight (late, duplicated, or foreign).
    UnknownId,
}

/// Why [`Client::answer`](super::Client::answer) was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnswerError {
    /// No such operation in flight.
    UnknownOp,
    /// The operation is not waiting for input.
    NotWaiting,
}
