//! The user agent of the authorization step: whatever takes the user to
//! the authorization endpoint and brings the redirect back (a browser and
//! a loopback listener in a desktop client). [`HttpRedirectAgent`] is the
//! one for headless use against servers that approve without a user, as
//! the conformance suite's do: a plain GET whose redirect is the answer.

use std::sync::Arc;

use url::Url;

use crate::error::OAuthError;
use crate::http::{HttpClient, HttpRequest, Method};

/// Takes the user through the authorization request.
pub trait UserAgent: Send + Sync {
    /// Opens `url` and returns the full URL the authorization server
    /// redirected to (it starts with `redirect_uri` and carries `code`,
    /// `state`, and `iss` or `error`).
    fn authorize(&self, url: &str, redirect_uri: &str) -> Result<String, OAuthError>;
}

/// Follows the authorization server's redirects with plain GETs (no
/// cookies, no pages rendered) until one points at the redirect URI, and
/// returns that URL without requesting it.
pub struct HttpRedirectAgent {
    http: Arc<dyn HttpClient>,
}

/// At most this many redirects before the redirect URI is reached.
const MAX_HOPS: usize = 5;

impl HttpRedirectAgent {
    /// An agent sending its GETs through `http` (which must not follow
    /// redirects itself).
    pub fn new(http: Arc<dyn HttpClient>) -> Self {
        HttpRedirectAgent { http }
    }
}

impl UserAgent for HttpRedirectAgent {
    fn authorize(&self, url: &str, redirect_uri: &str) -> Result<String, OAuthError> {
        let mut current = url.to_owned();
        for _ in 0..MAX_HOPS {
            let response = self.http.send(&HttpRequest {
                method: Method::Get,
                url: current.clone(),
                headers: Vec::new(),
                body: Vec::new(),
            })?;
            let location = match (response.status, response.header("location")) {
                (300..=399, Some(location)) => location,
                (status, _) => {
                    return Err(OAuthError::Authorization(format!(
                        "the authorization endpoint answered {status} without a redirect (it needs a user)"
                    )))
                }
            };
            let next = Url::parse(&current)
                .and_then(|base| base.join(location))
                .map_err(|e| OAuthError::Authorization(format!("redirect {location}: {e}")))?
                .to_string();
            if is_redirect_uri(&next, redirect_uri) {
                return Ok(next);
            }
            current = next;
        }
        Err(OAuthError::Authorization(format!(
            "more than {MAX_HOPS} redirects before reaching the redirect URI"
        )))
    }
}

/// Same scheme, host, port and path as the registered redirect URI.
fn is_redirect_uri(url: &str, redirect_uri: &str) -> bool {
    match (Url::parse(url), Url::parse(redirect_uri)) {
        (Ok(a), Ok(b)) => a.origin() == b.origin() && a.path() == b.path(),
        _ => false,
    }
}
