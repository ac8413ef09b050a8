//! Re-issuing a request whose 2026-07-28 response stream broke
//! (2026-07-28 `changelog.mdx`, major change 9): with no stream to resume,
//! the in-flight request is lost, and clients MUST send it again as a new
//! request with a new id. Which requests the session re-issues by itself
//! is decided here, by method.

use snodo_proto::client::ClientError;

use crate::error::{Error, TransportError};

/// The most times one request is re-issued: a server that breaks every
/// stream cannot make the client loop.
pub(crate) const MAX_REISSUES: usize = 2;

/// How a method is treated when its response stream breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reissue {
    /// Safe to repeat (a list, a read, a discover, a ping): re-issued.
    Safe,
    /// A tool call may have acted already (sent a mail, paid a bill):
    /// re-issued only when the application opted in
    /// ([`AsyncSession::reissue_tool_calls`](crate::AsyncSession::reissue_tool_calls)).
    ToolCall,
    /// Anything else (an extension's method, a task update): the loss is
    /// reported.
    Never,
}

/// The treatment of `method`.
pub(crate) fn policy(method: &str) -> Reissue {
    match method {
        "server/discover"
        | "ping"
        | "tools/list"
        | "resources/list"
        | "resources/templates/list"
        | "resources/read"
        | "prompts/list"
        | "prompts/get"
        | "completion/complete"
        | "tasks/get" => Reissue::Safe,
        "tools/call" => Reissue::ToolCall,
        _ => Reissue::Never,
    }
}

/// Whether `error` says the response stream ended before its answer:
/// closed cleanly without one, cut mid-message, or reset. A timeout is
/// not a broken stream (the server may still be working).
pub(crate) fn is_broken_stream(error: &Error) -> bool {
    match error {
        Error::Client(ClientError::NoResponse) => true,
        Error::Transport(TransportError::Closed) => true,
        Error::Transport(TransportError::Http(snodo_proto::client::http::HttpError::Truncated)) => {
            true
        }
        Error::Transport(TransportError::Io(e)) => matches!(
            e.kind(),
            std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::ConnectionAborted
                | std::io::ErrorKind::UnexpectedEof
                | std::io::ErrorKind::BrokenPipe
        ),
        _ => false,
    }
}
