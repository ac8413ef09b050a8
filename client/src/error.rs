//! What can go wrong below and above the protocol.

use core::fmt;

use snodo_proto::client::http::HttpError;
use snodo_proto::client::sse::SseError;
use snodo_proto::client::{AnswerError, AuthorizerError, ClientError};

/// A transport failure: the message may not have reached the server, or
/// its answer could not be read.
#[derive(Debug)]
pub enum TransportError {
    /// A socket or pipe failed (including a read timeout).
    Io(std::io::Error),
    /// The endpoint URL is not one this transport can reach.
    Url(String),
    /// The response is not valid HTTP/1.1.
    Http(HttpError),
    /// The event stream is not valid (or too large).
    Sse(SseError),
    /// A JSON body beyond the configured limit.
    TooLarge,
    /// A notification or response was refused with this status.
    Status(u16),
    /// The authorizer gave up.
    Auth(AuthorizerError),
    /// The server process or stream closed.
    Closed,
    /// TLS failed: the server's certificate is not trusted (an unknown
    /// issuer, a name that is not the endpoint's host, expired), or the
    /// handshake broke.
    Tls(rustls::Error),
    /// The HTTP proxy refused or failed: a 407 asking for credentials, a
    /// `CONNECT` refused with another status, an answer that is not HTTP.
    Proxy(crate::ProxyError),
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportError::Io(e) => write!(f, "I/O: {e}"),
            TransportError::Url(why) => write!(f, "endpoint: {why}"),
            TransportError::Http(e) => write!(f, "HTTP: {e:?}"),
            TransportError::Sse(e) => write!(f, "event stream: {e:?}"),
            TransportError::TooLarge => f.write_str("response body too large"),
            TransportError::Status(s) => write!(f, "HTTP status {s}"),
            TransportError::Auth(e) => write!(f, "authorization: {e}"),
            TransportError::Closed => f.write_str("the server closed the connection"),
            TransportError::Tls(e) => write!(f, "TLS: {e}"),
            TransportError::Proxy(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TransportError::Io(e) => Some(e),
            TransportError::Tls(e) => Some(e),
            TransportError::Proxy(e) => Some(e),
            _ => None,
        }
    }
}

impl From<crate::ProxyError> for TransportError {
    fn from(e: crate::ProxyError) -> Self {
        TransportError::Proxy(e)
    }
}

impl From<std::io::Error> for TransportError {
    /// A TLS failure travels through the byte streams as an `io::Error`
    /// around the `rustls::Error`; it comes out as [`TransportError::Tls`].
    fn from(e: std::io::Error) -> Self {
        match e
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>())
        {
            Some(tls) => TransportError::Tls(tls.clone()),
            None => TransportError::Io(e),
        }
    }
}

/// Why a [`Session`](crate::Session) call failed.
#[derive(Debug)]
pub enum Error {
    /// The server answered with an error, or broke the protocol.
    Client(ClientError),
    /// The transport failed.
    Transport(TransportError),
    /// The server needed input the [`Handler`](crate::Handler) could not
    /// give, this many rounds in a row.
    InputRounds(usize),
    /// [`Session::resume`](crate::Session::resume) of an operation that
    /// is not waiting for input.
    Answer(AnswerError),
    /// A result is not the shape the protocol (or the caller's type)
    /// gives it: `what` was expected.
    Decode {
        /// What the result should have been.
        what: &'static str,
        /// Why it is not.
        error: serde_json::Error,
    },
    /// A typed tool call ([`Session::call_tool_typed`](crate::Session::call_tool_typed))
    /// ended in a tool execution error (`isError: true`); its content
    /// says why.
    ToolFailed(snodo_proto::CallToolResult),
    /// The application stopped waiting ([`Canceller::cancel`](crate::Canceller::cancel)),
    /// with this reason; the server was told.
    Cancelled(Option<String>),
    /// A tool's `structuredContent` does not match the `outputSchema` the
    /// server listed for it (`server/tools.mdx` § Output Schema: clients
    /// SHOULD validate), or is missing though the tool declares one.
    OutputSchema {
        /// The tool.
        tool: String,
        /// What the validator said.
        why: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Client(e) => e.fmt(f),
            Error::Transport(e) => e.fmt(f),
            Error::InputRounds(n) => write!(f, "the server still needed input after {n} rounds"),
            Error::Answer(e) => write!(f, "cannot answer: {e:?}"),
            Error::Decode { what, error } => write!(f, "not {what}: {error}"),
            Error::ToolFailed(result) => {
                f.write_str("the tool failed")?;
                for block in &result.content {
                    if let snodo_proto::Content::Text(t) = block {
                        write!(f, ": {}", t.text)?;
                    }
                }
                Ok(())
            }
            Error::Cancelled(None) => f.write_str("cancelled"),
            Error::Cancelled(Some(why)) => write!(f, "cancelled: {why}"),
            Error::OutputSchema { tool, why } => {
                write!(
                    f,
                    "tool {tool:?}: structured content against its output schema: {why}"
                )
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<TransportError> for Error {
    fn from(e: TransportError) -> Self {
        Error::Transport(e)
    }
}

impl From<ClientError> for Error {
    fn from(e: ClientError) -> Self {
        Error::Client(e)
    }
}

impl From<snodo_proto::client::exchange::ExchangeError> for TransportError {
    fn from(e: snodo_proto::client::exchange::ExchangeError) -> Self {
        use snodo_proto::client::exchange::ExchangeError;
        match e {
            ExchangeError::Http(e) => TransportError::Http(e),
            ExchangeError::Sse(e) => TransportError::Sse(e),
            ExchangeError::TooLarge => TransportError::TooLarge,
            ExchangeError::Status(s) => TransportError::Status(s),
        }
    }
}
