//! The user agent of the authorization step: whatever takes the user to
//! the authorization endpoint and brings the redirect back (a browser and
//! a loopback listener in a desktop client). [`HttpRedirectAgent`] is the
//! one for headless use against servers that approve without a user, as
//! the conformance suite's do: plain GETs whose last redirect is the
//! answer, with the cookies the server sets along the way sent back (an
//! authorization server's login and consent steps keep their state in
//! them).

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

/// Follows the authorization server's redirects with plain GETs (no pages
/// rendered; the cookies set during this one authorization sent back to
/// the host that set them) until one points at the redirect URI, and
/// returns that URL without requesting it.
pub struct HttpRedirectAgent {
    http: Arc<dyn HttpClient>,
}

/// At most this many redirects before the redirect URI is reached.
const MAX_HOPS: usize = 20;

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
        let mut jar = CookieJar::default();
        for _ in 0..MAX_HOPS {
            let host = Url::parse(&current)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_default();
            let headers = jar
                .header(&host)
                .map(|c| vec![("Cookie".to_owned(), c)])
                .unwrap_or_default();
            let response = self.http.send(&HttpRequest {
                method: Method::Get,
                url: current.clone(),
                headers,
                body: Vec::new(),
            })?;
            for (name, value) in &response.headers {
                if name.eq_ignore_ascii_case("set-cookie") {
                    jar.set(&host, value);
                }
            }
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

/// The cookies of one authorization, per host: name and value only
/// (attributes ignored; the jar lives for one flow).
#[derive(Default)]
struct CookieJar {
    cookies: Vec<(String, String, String)>,
}

impl CookieJar {
    /// Records a `Set-Cookie` field value from `host`.
    fn set(&mut self, host: &str, set_cookie: &str) {
        let pair = set_cookie.split(';').next().unwrap_or("");
        let Some((name, value)) = pair.split_once('=') else {
            return;
        };
        let name = name.trim();
        self.cookies.retain(|(h, n, _)| !(h == host && n == name));
        self.cookies
            .push((host.to_owned(), name.to_owned(), value.trim().to_owned()));
    }

    /// The `Cookie` header for a request to `host`, if any.
    fn header(&self, host: &str) -> Option<String> {
        let pairs: Vec<String> = self
            .cookies
            .iter()
            .filter(|(h, _, _)| h == host)
            .map(|(_, n, v)| format!("{n}={v}"))
            .collect();
        (!pairs.is_empty()).then(|| pairs.join("; "))
    }
}

/// Same scheme, host, port and path as the registered redirect URI.
fn is_redirect_uri(url: &str, redirect_uri: &str) -> bool {
    match (Url::parse(url), Url::parse(redirect_uri)) {
        (Ok(a), Ok(b)) => a.origin() == b.origin() && a.path() == b.path(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::{HttpError, HttpResponse};
    use std::sync::Mutex;

    /// A login step that sets a cookie and wants it back on the next hop.
    struct Login {
        seen: Mutex<Vec<(String, Option<String>)>>,
    }

    impl HttpClient for Login {
        fn send(&self, r: &HttpRequest) -> Result<HttpResponse, HttpError> {
            let cookie = r.header("cookie").map(str::to_owned);
            self.seen
                .lock()
                .unwrap()
                .push((r.url.clone(), cookie.clone()));
            let (location, set_cookie) = match r.url.as_str() {
                "https://as.example/authorize?x=1" => {
                    ("/interaction/7", Some("_i=abc; path=/; httponly"))
                }
                "https://as.example/interaction/7" if cookie.as_deref() == Some("_i=abc") => (
                    "https://as.example/authorize/resume",
                    Some("_s=def; path=/"),
                ),
                "https://as.example/authorize/resume" => (
                    "http://localhost:3000/callback?code=c&state=s&iss=https%3A%2F%2Fas.example",
                    None,
                ),
                _ => {
                    return Ok(HttpResponse {
                        status: 400,
                        headers: vec![],
                        body: b"no session".to_vec(),
                    });
                }
            };
            let mut headers = vec![("Location".to_owned(), location.to_owned())];
            if let Some(c) = set_cookie {
                headers.push(("Set-Cookie".to_owned(), c.to_owned()));
            }
            Ok(HttpResponse {
                status: 302,
                headers,
                body: vec![],
            })
        }
    }

    #[test]
    fn follows_redirects_with_cookies_and_stops_at_the_redirect_uri() {
        let http = Arc::new(Login {
            seen: Mutex::new(vec![]),
        });
        let agent = HttpRedirectAgent::new(http.clone());
        let back = agent
            .authorize(
                "https://as.example/authorize?x=1",
                "http://localhost:3000/callback",
            )
            .unwrap();
        assert_eq!(
            back,
            "http://localhost:3000/callback?code=c&state=s&iss=https%3A%2F%2Fas.example"
        );
        let seen = http.seen.lock().unwrap();
        assert_eq!(
            seen[1],
            (
                "https://as.example/interaction/7".to_owned(),
                Some("_i=abc".to_owned())
            )
        );
        assert_eq!(seen[2].1.as_deref(), Some("_i=abc; _s=def"));
        // The redirect URI itself is never requested.
        assert_eq!(seen.len(), 3);
    }

    #[test]
    fn a_page_instead_of_a_redirect_is_an_error() {
        let http = Arc::new(Login {
            seen: Mutex::new(vec![]),
        });
        let agent = HttpRedirectAgent::new(http);
        assert!(agent
            .authorize("https://as.example/other", "http://localhost:3000/callback")
            .is_err());
    }
}
