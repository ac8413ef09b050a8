//! The authorization hook of the client's HTTP transports
//! (`basic/authorization/index.mdx` § Access Token Usage, § Scope Challenge
//! Handling): the transport asks it for the `Authorization` header of each
//! request and tells it about every 401 and 403, so an OAuth client (or a
//! static token, or anything else) plugs in without the transport knowing
//! OAuth.

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

/// Why an [`Authorizer`] could not produce a credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizerError(pub String);

impl fmt::Display for AuthorizerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl core::error::Error for AuthorizerError {}
