//! # snodo-client
//!
//! A blocking Model Context Protocol client: the sans-I/O machine of
//! [`snodo_proto::client`] driven over std sockets and pipes.
//!
//! - [`HttpTransport`]: Streamable HTTP on a `std::net::TcpStream` per
//!   request (`http://`, and `https://` on rustls with the web's roots or
//!   those a [`TlsConfig`] names), JSON and SSE answers, with an optional
//!   [`Authorizer`] for the `Authorization` header and 401/403 challenges.
//! - `AsyncHttpTransport` (features `tokio`, `smol`, `threads`): the same
//!   on an async runtime, and with the feature `http2` HTTP/2 by ALPN to
//!   an `https://` server that picks `h2` ([`TlsConfig::http1_only`] to
//!   offer `http/1.1` alone).
//! - Either HTTP transport through an HTTP proxy ([`ProxySettings`]:
//!   explicit, or from `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and
//!   `NO_PROXY` on opt-in with [`ProxySettings::from_env`]; see
//!   [Proxies](#proxies)).
//! - [`StdioTransport`]: a spawned server process, one JSON-RPC message
//!   per line on its stdin and stdout, its stderr passed through.
//! - [`Session`] (blocking) and [`AsyncSession`], one session core:
//!   connect (`server/discover`, or `initialize` for the
//!   older revisions), requests with their MRTR rounds answered by a
//!   [`Handler`] (elicitation, sampling, roots), lists with pagination.
//!
//! One client for both eras (`basic/versioning.mdx` § Backward
//! Compatibility): with 2026-07-28 first in the configuration, connect
//! probes with `server/discover`. A server that answers with an error
//! that is not a modern one (`-32601`, `-32602`, …: anything but `-32020`,
//! `-32021`, `-32022`), with HTTP `400`/`404`/`405` and no modern error,
//! or on stdio not at all within the [probe
//! wait](StdioTransport::with_probe_wait) (default [`DEFAULT_PROBE_WAIT`])
//! is of the initialize era: the session opens with `initialize` in the
//! newest initialize-era revision the configuration lists
//! ([`ClientConfig::dual_era`](snodo_proto::client::ClientConfig::dual_era)
//! lists them all) and speaks that dialect from then on
//! ([`Session::era`], [`Session::version`]). A configuration that lists
//! none ([`ClientConfig::new`](snodo_proto::client::ClientConfig::new))
//! fails with
//! [`ClientError::LegacyServer`](snodo_proto::client::ClientError::LegacyServer).
//! HTTP `401`/`403`, `5xx` and transport errors fail the connect as they
//! are: they say nothing of the era.
//!
//! ```no_run
//! use snodo_client::{HttpTransport, NoInput, Session};
//! use snodo_proto::client::{ClientConfig, Wire};
//!
//! let transport = HttpTransport::new("http://127.0.0.1:8377/mcp").unwrap();
//! let config = ClientConfig::new("example", "1.0.0", Wire::Http);
//! let mut session = Session::connect(transport, config, NoInput).unwrap();
//! for tool in session.list_tools().unwrap() {
//!     println!("{}: {}", tool.name, tool.description.unwrap_or_default());
//! }
//! // A `CallToolResult`; a tool execution error has `is_error` set.
//! let result = session.call_tool("greet", serde_json::json!({"name": "Ada"})).unwrap();
//! println!("{:?}", result.content);
//!
//! // The tool's `structuredContent` as the caller's own type.
//! #[derive(serde::Deserialize)]
//! struct Greeting { message: String, count: u64 }
//! let greeting: Greeting = session
//!     .call_tool_typed("greet", serde_json::json!({"name": "Ada"}))
//!     .unwrap();
//! println!("{} ({})", greeting.message, greeting.count);
//! ```
//!
//! Results are `snodo-proto`'s model types ([`snodo_proto::Tool`],
//! [`snodo_proto::CallToolResult`], [`snodo_proto::ReadResourceResult`],
//! [`snodo_proto::GetPromptResult`], …); [`Session::request`] and
//! [`Session::list_all`] return the JSON itself, for the methods and
//! members of extensions.

//!
//! # Proxies
//!
//! A transport connects directly unless given [`ProxySettings`]
//! ([`HttpTransport::with_proxy`], and `AsyncHttpTransport::with_proxy`).
//! It reads no environment variable by itself: a library that picked up
//! `HTTPS_PROXY` behind its caller's back would send an application's
//! traffic somewhere it did not say, and tests that set variables would
//! race each other. A program opts in with [`ProxySettings::from_env`]
//! (the `snodo` command line does, as curl does), which reads the
//! variables as curl reads them: `https_proxy` then `HTTPS_PROXY` for
//! `https://` endpoints, `http_proxy` then `HTTP_PROXY` (not in a CGI
//! program, where it is the request's `Proxy` field) for `http://` ones,
//! `all_proxy` then `ALL_PROXY` for both, and `no_proxy` then `NO_PROXY`
//! for the hosts reached directly ([`NoProxy::parse`]: host suffixes, IP
//! addresses and CIDR networks, `host:port`, `*`).
//!
//! ```no_run
//! use snodo_client::{HttpTransport, Proxy, ProxySettings};
//!
//! // One proxy for every endpoint, with credentials for it alone.
//! let proxy = Proxy::parse("http://user:secret@proxy.example:3128").unwrap();
//! let transport = HttpTransport::new("https://mcp.example.com/mcp")
//!     .unwrap()
//!     .with_proxy(&ProxySettings::all(proxy));
//!
//! // Or what the environment says.
//! let transport = HttpTransport::new("https://mcp.example.com/mcp")
//!     .unwrap()
//!     .with_proxy(&ProxySettings::from_env().unwrap());
//! ```
//!
//! An `http://` endpoint's requests go to the proxy with the target in
//! absolute form (`POST http://host:port/mcp HTTP/1.1`, RFC 9112
//! § 3.2.2) and `Proxy-Authorization` when the proxy URL has
//! credentials. An `https://` endpoint's go through a tunnel the proxy
//! opens on `CONNECT host:port` (RFC 9110 § 9.3.6), the credentials on
//! the `CONNECT` alone, and TLS runs inside it with the origin: its name
//! is the one sent as SNI and checked in its certificate, never the
//! proxy's. A 407 is [`ProxyError::AuthRequired`], another refused
//! `CONNECT` [`ProxyError::Refused`], both under [`TransportError::Proxy`].
//! Only `http://` proxies are spoken (no TLS to the proxy, no SOCKS): a
//! `socks5://` value is an error, not a direct connection around it.

#![warn(missing_docs)]

#[cfg(any(feature = "tokio", feature = "smol", feature = "threads"))]
mod async_get;
#[cfg(any(feature = "tokio", feature = "smol", feature = "threads"))]
mod async_http;
mod async_session;
#[cfg(any(feature = "tokio", feature = "smol", feature = "threads"))]
mod async_stdio;
mod block;
mod cancel;
mod endpoint;
mod error;
mod get_stream;
mod handler;
mod http;
#[cfg(all(
    feature = "http2",
    any(feature = "tokio", feature = "smol", feature = "threads")
))]
mod http2;
mod output_schema;
mod proxy;
mod reissue;
mod results;
#[cfg(any(feature = "tokio", feature = "smol", feature = "threads"))]
mod runtime;
mod session;
#[cfg(feature = "smol")]
mod smol;
mod stdio;
mod tasks;
#[cfg(feature = "threads")]
mod threads;
mod tls;
#[cfg(any(feature = "tokio", feature = "smol", feature = "threads"))]
mod tls_stream;
#[cfg(feature = "tokio")]
mod tokio;

#[cfg(any(feature = "tokio", feature = "smol", feature = "threads"))]
pub use async_http::{AsyncHttpTransport, HttpVersion};
pub use async_session::{AsyncPump, AsyncSession, AsyncTransport, Ended, Step};
#[cfg(any(feature = "tokio", feature = "smol", feature = "threads"))]
pub use async_stdio::AsyncStdioTransport;
pub use cancel::Canceller;
pub use error::{Error, TransportError};
pub use handler::{Handler, NoInput};
pub use http::HttpTransport;
/// The TLS library the `https://` transports run on, for its error type.
pub use proxy::{NoProxy, Proxy, ProxyError, ProxySettings};
#[cfg(any(feature = "tokio", feature = "smol", feature = "threads"))]
pub use runtime::{ChildProcess, ClientRuntime, Reader, Writer};
pub use rustls;
pub use session::{Pump, Session, Transport};
pub use snodo_proto::client::{Authorizer, AuthorizerError};
pub use stdio::{StdioTransport, DEFAULT_PROBE_WAIT};
pub use tasks::{
    with_tasks, TaskFollow, TaskStep, DEFAULT_POLL_INTERVAL, MIN_POLL_INTERVAL, TASKS,
};
pub use tls::TlsConfig;
