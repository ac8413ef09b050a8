//! The OAuth 2.1 client of MCP authorization (`basic/authorization/`),
//! for snodo's client transports: an implementation of
//! [`snodo_proto::client::auth::Authorizer`], the hook an HTTP transport
//! asks for each request's `Authorization` header and tells about each
//! 401 and 403.
//!
//! [`OAuthClient`] covers, each in a module of its own:
//!
//! - [`challenge`]: `WWW-Authenticate` parsing (`resource_metadata`,
//!   `scope`, `error`);
//! - [`discovery`]: Protected Resource Metadata from the challenge or the
//!   well-known URLs (path-aware, then root), its `resource` checked
//!   against the server; authorization server metadata from the RFC 8414
//!   and OpenID Connect URLs in the specification's order, its `issuer`
//!   required to be identical; HTTPS (or loopback) for every
//!   authorization server endpoint and the redirect URI;
//! - [`registration`]: pre-registered credentials, Client ID Metadata
//!   Documents, dynamic registration (RFC 7591), and the token endpoint
//!   authentication (`client_secret_basic`, `client_secret_post`, `none`);
//! - [`flow`]: the authorization code grant with PKCE (`S256` required),
//!   `resource` (RFC 8707) on both requests, `state`, the RFC 9207 `iss`
//!   check, code exchange, refresh, and the client credentials grant;
//! - [`assertion`]: where a JWT-bearer grant's assertion comes from (a
//!   workload token; an ID-JAG by token exchange at the enterprise
//!   identity provider);
//! - [`user_agent`]: the step that needs a user, as a trait;
//!   [`HttpRedirectAgent`] follows redirects with plain GETs for servers
//!   that approve without one;
//! - [`http`]: the HTTP it needs, as a trait; [`UreqHttp`] on ureq.
//!
//! [`OAuthClient`] ties them together: scope selection (the challenge's,
//! else the resource's `scopes_supported`, else none; `offline_access`
//! only where the server lists it), step-up on 403 `insufficient_scope`
//! with the union of scopes and a limit, refresh before a new flow,
//! registrations and tokens kept per authorization server (a resource that
//! moves to another server gets a new registration), and an end to loops
//! (a token refused on its first use is not fetched again the same way).
//!
//! No crypto of its own: SHA-256 from `sha2`, randomness from `getrandom`.
//!
//! ```no_run
//! use std::sync::Arc;
//! use snodo_oauth_client::{HttpRedirectAgent, OAuthClient, OAuthConfig, UreqHttp};
//! use snodo_proto::client::auth::Authorizer;
//!
//! let http = Arc::new(UreqHttp::default());
//! let client = OAuthClient::new(
//!     http.clone(),
//!     Box::new(HttpRedirectAgent::new(http)),
//!     OAuthConfig::new("my-client", "http://localhost:3000/callback"),
//! );
//! // A transport got `401` with this challenge: authorize, then resend.
//! let challenge = vec![r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#.to_owned()];
//! if client.challenged("https://mcp.example.com/mcp", 401, &challenge)? {
//!     let header = client.authorization("https://mcp.example.com/mcp");
//!     assert!(header.unwrap().starts_with("Bearer "));
//! }
//! # Ok::<(), snodo_proto::client::auth::AuthorizerError>(())
//! ```

#![warn(missing_docs)]

pub mod assertion;
mod authorizer;
pub mod challenge;
pub mod discovery;
mod error;
pub mod flow;
pub mod http;
pub mod pkce;
pub mod registration;
pub mod user_agent;

pub use authorizer::{GrantKind, OAuthClient, OAuthConfig};
pub use error::OAuthError;
pub use http::{
    HttpClient, HttpError, HttpProxy, HttpRequest, HttpResponse, Method, UreqHttp, MAX_BODY,
};
pub use registration::{AssertionKey, ClientIdentity, ClientMetadata, PreRegistered, TokenAuth};
pub use user_agent::{HttpRedirectAgent, UserAgent};
