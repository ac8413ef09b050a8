//! # snodo-hyper
//!
//! snodo's Streamable HTTP (`basic/transports/streamable-http.mdx`) as a
//! [`tower_service::Service`] over [`http::Request`]s, so it runs inside a
//! host web stack: on hyper 1.x over HTTP/1.1 and HTTP/2, behind tower
//! middleware, or mounted in axum beside other routes
//! (`Router::new().nest_service("/mcp", McpService::mounted(service))`).
//!
//! Nothing here is a second copy of the HTTP rules. Each request becomes a
//! [`Connection::http_request`](snodo_proto::Connection::http_request),
//! which applies the same checks and answers as the native listener
//! (202 for notifications, JSON or SSE answers, 400/403/404/405/406/413/
//! 415/431, the initialize-era session verbs), driven by
//! [`snodo_driver::HostRequest`]. This crate maps the request's parts in and
//! the answer's parts out:
//!
//! - the body is read up to [`Limits::max_message_bytes`](snodo_proto::Limits);
//!   beyond it the answer is the native listener's 413;
//! - on HTTP/2 the `:authority` stands for `Host` (RFC 9113 § 8.3.1);
//! - an SSE answer streams out as body frames, as its events come;
//! - a client that goes away (the response body dropped, an HTTP/2 stream
//!   reset) is the same hang-up as on the native listener: it cancels a
//!   2026-07-28 call, and an initialize-era session's call runs on.

#![warn(missing_docs)]
// docs.rs (`--cfg docsrs`) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod activity;
mod body;
mod native;
pub mod options;
mod serve;
mod service;
#[cfg(feature = "tls")]
pub mod tls;
mod watch;

pub use body::McpBody;
pub use options::Options;
pub use serve::serve;
pub use service::{Extension, McpService, RequestExtensions};
pub use snodo_driver::Shutdown;
#[cfg(feature = "tls")]
pub use tls::serve_tls;
