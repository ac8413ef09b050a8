//! Why an authorization attempt stopped. Each variant names the rule that
//! stopped it, so the transport's error says what to fix.

use std::fmt;

use crate::http::HttpError;

/// An authorization attempt that did not produce a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OAuthError {
    /// A request got no response.
    Http(HttpError),
    /// No Protected Resource Metadata at the challenge's URL nor at the
    /// well-known URLs.
    NoResourceMetadata(String),
    /// The metadata's `resource` does not name the server the client is
    /// talking to (RFC 9728 § 3.3).
    ResourceMismatch {
        /// The MCP endpoint.
        endpoint: String,
        /// The `resource` the metadata gave.
        resource: String,
    },
    /// The metadata lists no authorization server.
    NoAuthorizationServer,
    /// No authorization server metadata at any well-known URL.
    NoServerMetadata(String),
    /// A document's `issuer` is not the issuer its well-known URL was
    /// built from (RFC 8414 § 3.3).
    IssuerMismatch {
        /// The issuer the URL was built from.
        expected: String,
        /// The document's `issuer`.
        found: String,
    },
    /// An authorization server endpoint or the redirect URI is neither
    /// HTTPS nor loopback.
    Insecure(String),
    /// The server does not advertise `S256` PKCE.
    PkceUnsupported,
    /// A document or response was not what the RFC says.
    Malformed(String),
    /// No way to get a client identity at this authorization server.
    NoRegistration(String),
    /// The registration endpoint refused.
    Registration(String),
    /// The authorization response was refused or carried an error.
    Authorization(String),
    /// The `iss` of the authorization response fails RFC 9207 § 2.4.
    IssParameter(String),
    /// The token endpoint refused.
    Token(String),
    /// The operating system's random source failed.
    Random(String),
    /// Step-up for this operation was tried as often as allowed.
    StepUpLimit(String),
}

impl fmt::Display for OAuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OAuthError::Http(e) => write!(f, "HTTP request failed: {e}"),
            OAuthError::NoResourceMetadata(e) => {
                write!(f, "no protected resource metadata found: {e}")
            }
            OAuthError::ResourceMismatch { endpoint, resource } => write!(
                f,
                "protected resource metadata names resource {resource}, not {endpoint}"
            ),
            OAuthError::NoAuthorizationServer => {
                f.write_str("protected resource metadata lists no authorization server")
            }
            OAuthError::NoServerMetadata(e) => {
                write!(f, "no authorization server metadata found: {e}")
            }
            OAuthError::IssuerMismatch { expected, found } => write!(
                f,
                "authorization server metadata has issuer {found}, expected {expected}"
            ),
            OAuthError::Insecure(url) => write!(
                f,
                "{url} is neither HTTPS nor a loopback address (security-considerations § Communication Security)"
            ),
            OAuthError::PkceUnsupported => {
                f.write_str("the authorization server does not advertise PKCE S256")
            }
            OAuthError::Malformed(e) => write!(f, "malformed response: {e}"),
            OAuthError::NoRegistration(e) => write!(f, "no client registration possible: {e}"),
            OAuthError::Registration(e) => write!(f, "client registration failed: {e}"),
            OAuthError::Authorization(e) => write!(f, "authorization failed: {e}"),
            OAuthError::IssParameter(e) => write!(f, "authorization response rejected: {e}"),
            OAuthError::Token(e) => write!(f, "token request failed: {e}"),
            OAuthError::Random(e) => write!(f, "random source failed: {e}"),
            OAuthError::StepUpLimit(e) => write!(f, "step-up authorization given up: {e}"),
        }
    }
}

impl std::error::Error for OAuthError {}

impl From<HttpError> for OAuthError {
    fn from(e: HttpError) -> Self {
        OAuthError::Http(e)
    }
}
