//! The authorization hook of the HTTP client (`basic/authorization/index.mdx`).
//!
//! The client machine knows nothing of OAuth: a transport asks an
//! [`Authorizer`] for the `Authorization` header of each request, and hands
//! it every 401/403 with the server's `WWW-Authenticate` values. An OAuth 2.1
//! client (discovery, PKCE, registration, refresh, step-up) lives behind it.

use alloc::string::String;
use core::fmt;

/// Supplies the `Authorization` header for HTTP requests and answers a 401/403.
pub trait Authorizer: Send + Sync {
    /// The header value (`Bearer …`) for the next request to `endpoint`, if any.
    fn authorization(&self, endpoint: &str) -> Option<String>;
    /// The server answered `status` (401 or 403) with these `WWW-Authenticate` values.
    /// `Ok(true)`: a new credential is ready, resend the request once more.
    /// `Ok(false)` or `Err`: give up; the request fails with the HTTP status.
    fn challenged(
        &self,
        endpoint: &str,
        status: u16,
        www_authenticate: &[String],
    ) -> Result<bool, AuthorizerError>;
}

/// Why an [`Authorizer`] could not obtain a credential.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthorizerError(pub String);

impl fmt::Display for AuthorizerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for AuthorizerError {}
