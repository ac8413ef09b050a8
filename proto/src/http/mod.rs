//! Streamable HTTP (`basic/transports/streamable-http.mdx`), sans-I/O.
//!
//! `codec` frames HTTP/1.1; `rules` holds every Streamable HTTP rule
//! about a request (endpoint and method, `Origin`/`Host`,
//! `Accept`/`Content-Type`, header mirrors, status codes); `exchange`
//! answers the requests of one connection (202, SSE, 100-continue, 408,
//! hang-ups, idle close) and `session` is the HTTP surface of the
//! initialize-era sessions (GET stream, DELETE, `Mcp-Session-Id`). A
//! [`Connection`](crate::Connection) on [`Transport::Http`](crate::Transport)
//! is the shared call core with these on its wire side.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::time::Duration;

crate::internal!(codec);
pub(crate) mod exchange;
crate::internal!(rules);
pub(crate) mod session;

pub use codec::Head;

/// A whole answer that ends an exchange: status, JSON body and an extra
/// header line.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) json: Vec<u8>,
    pub(crate) header: Option<String>,
}

/// The head of an answer to a request given to
/// [`Connection::http_request`](crate::Connection::http_request), for a
/// host HTTP stack to send ([`Output::Respond`](crate::Output::Respond)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// Header fields, names lower-cased: `content-type`, and as the answer
    /// needs `mcp-session-id`, `allow`, `cache-control`, `x-accel-buffering`.
    /// Borrowed where proto knows the text up front, so that a plain JSON
    /// answer's head costs no allocation but its `Vec`.
    pub headers: Vec<(Cow<'static, str>, Cow<'static, str>)>,
    /// The body's length when it is known up front (a JSON answer); `None`
    /// for an SSE stream, whose body ends with [`Output::Close`](crate::Output::Close).
    pub content_length: Option<usize>,
    /// The connection must not carry another request after this answer
    /// (a refusal whose request may be left partly unread, RFC 9112
    /// § 9.6; or the server is shutting down): on HTTP/1.1 send it with
    /// `Connection: close`. HTTP/2 has no such field (RFC 9113 § 8.2.2);
    /// its stream ends with the answer.
    pub close: bool,
}

/// Why a host HTTP stack could not hand over a request's whole body
/// ([`Connection::http_request`](crate::Connection::http_request)); each is
/// answered as the native listener answers the same fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BodyError {
    /// Larger than [`Limits::max_message_bytes`](crate::Limits): 413, and
    /// nothing more is read.
    TooLarge,
    /// The stack failed to read it (malformed framing, a stream reset):
    /// 400, like a body the HTTP/1.1 codec cannot frame. A client that
    /// left reads no answer; one whose framing was bad does.
    Unreadable,
    /// Not whole within [`HttpConfig::request_timeout`] of its head: 408,
    /// as the native listener answers a body that trickles.
    TimedOut,
}

/// Which `Origin` headers are accepted (`§ Security & Endpoint`: a present
/// but invalid Origin is answered 403). A request without `Origin` (not a
/// browser) is always accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OriginPolicy {
    /// `http(s)://localhost`, `127.0.0.1` and `[::1]`, any port: the safe
    /// default for a local server (DNS-rebinding protection).
    Loopback,
    /// Exactly these origins (`scheme://host[:port]`, compared
    /// case-insensitively), plus nothing else.
    List(Vec<String>),
    /// Any origin. Only for servers that authenticate every request.
    Any,
}

/// Which `Host` headers are accepted; others get 403 (DNS rebinding: a
/// browser tricked into resolving a foreign name to 127.0.0.1 still sends
/// that foreign name as `Host`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostPolicy {
    /// `localhost`, `127.0.0.1`, `[::1]`, any port.
    Loopback,
    /// These host names (without port, compared case-insensitively).
    List(Vec<String>),
    /// Any host.
    Any,
}

/// HTTP settings of a [`Service`](crate::Service). Each field states its
/// default ([`HttpConfig::default`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct HttpConfig {
    /// The MCP endpoint path; other paths get 404.
    ///
    /// Default: `String::from("/mcp")`.
    pub endpoint: String,
    /// Accepted origins.
    ///
    /// Default: `OriginPolicy::Loopback`.
    pub origins: OriginPolicy,
    /// Accepted hosts.
    ///
    /// Default: `HostPolicy::Loopback`.
    pub hosts: HostPolicy,
    /// Most bytes in a request head (431 beyond).
    ///
    /// Default: `16 * 1024` (16 KiB).
    pub max_head_bytes: usize,
    /// Most header fields in a request (431 beyond).
    ///
    /// Default: `64`.
    pub max_headers: usize,
    /// Time a client has to deliver a request's head once its first byte
    /// arrived (408 beyond), on its own deadline so that a client trickling
    /// header bytes cannot hold a connection for the body's time too.
    ///
    /// Default: `Duration::from_secs(10)`.
    pub head_timeout: Duration,
    /// Time a client has to deliver a request's body once its head arrived
    /// (408 beyond).
    ///
    /// Default: `Duration::from_secs(30)`.
    pub request_timeout: Duration,
    /// Time an idle keep-alive connection is kept open.
    ///
    /// Default: `Duration::from_secs(120)`.
    pub idle_timeout: Duration,
    /// A route tag that begins every initialize-era session id this
    /// service creates (`ROUTE.` then 32 hex digits), so that a load
    /// balancer in front of several replicas sends each session's later
    /// requests to the replica holding it by matching `Mcp-Session-Id`
    /// alone (a session lives in one process; 2025-11-25
    /// `basic/transports.mdx` § Session Management). 1 to 32 characters
    /// of `A-Z a-z 0-9 _ -`; each replica gets its own. The id stays
    /// visible ASCII and keeps its 128 random bits.
    ///
    /// Default: `None` (ids are the 32 hex digits alone).
    pub session_route: Option<String>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig {
            endpoint: String::from("/mcp"),
            origins: OriginPolicy::Loopback,
            hosts: HostPolicy::Loopback,
            max_head_bytes: 16 * 1024,
            max_headers: 64,
            head_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(120),
            session_route: None,
        }
    }
}

crate::options::setters!(HttpConfig {
    endpoint: String,
    origins: OriginPolicy,
    hosts: HostPolicy,
    max_head_bytes: usize,
    max_headers: usize,
    head_timeout: Duration,
    request_timeout: Duration,
    idle_timeout: Duration,
    session_route: Option<String>,
});
