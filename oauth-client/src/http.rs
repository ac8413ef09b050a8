//! The HTTP the OAuth client needs, as a trait: metadata GETs, form POSTs
//! to the token and registration endpoints, and the authorization GET of
//! [`HttpRedirectAgent`](crate::HttpRedirectAgent). Redirects are never
//! followed here: a metadata document must come from the URL it was asked
//! at, and the authorization redirect is the answer itself.

use std::fmt;
use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

/// The methods the OAuth flows use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Metadata documents and the authorization endpoint.
    Get,
    /// The token and registration endpoints.
    Post,
}

/// One HTTP request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    /// GET or POST.
    pub method: Method,
    /// The absolute URL.
    pub url: String,
    /// Header names and values, in order.
    pub headers: Vec<(String, String)>,
    /// The body (empty for a GET).
    pub body: Vec<u8>,
}

impl HttpRequest {
    /// A GET of `url` asking for JSON.
    pub fn get_json(url: &str) -> Self {
        HttpRequest {
            method: Method::Get,
            url: url.to_owned(),
            headers: vec![("Accept".into(), "application/json".into())],
            body: Vec::new(),
        }
    }

    /// The value of header `name` (case-insensitive), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

/// One HTTP response, whatever its status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// Header names and values; every value of a repeated field (each
    /// `Set-Cookie`) is there, in the order received.
    pub headers: Vec<(String, String)>,
    /// The body, at most [`MAX_BODY`] bytes.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The value of header `name` (case-insensitive), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// The largest response body read: metadata and token responses are a few
/// kilobytes, and a hostile server must not make the client buffer more.
pub const MAX_BODY: u64 = 256 * 1024;

/// The request never got a response (connection refused, timeout, a bad URL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpError(pub String);

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HttpError {}

/// Sends one request and returns the response, any status included.
pub trait HttpClient: Send + Sync {
    /// Sends `request`; a 4xx or 5xx is an `Ok` response, not an error.
    fn send(&self, request: &HttpRequest) -> Result<HttpResponse, HttpError>;
}

/// [`HttpClient`] on ureq (blocking, rustls), redirects off.
pub struct UreqHttp {
    agent: ureq::Agent,
}

impl UreqHttp {
    /// A client whose requests time out after `timeout`.
    pub fn new(timeout: Duration) -> Self {
        UreqHttp {
            agent: ureq::AgentBuilder::new()
                .redirects(0)
                .timeout(timeout)
                .build(),
        }
    }
}

impl UreqHttp {
    /// A client whose requests time out after `timeout` and whose HTTPS
    /// trusts what `tls` trusts (a private CA's authorization server, say:
    /// snodo-client's `TlsConfig::rustls_config`, so the MCP transport and
    /// the OAuth requests trust the same roots).
    pub fn with_tls(timeout: Duration, tls: Arc<rustls::ClientConfig>) -> Self {
        UreqHttp {
            agent: ureq::AgentBuilder::new()
                .redirects(0)
                .timeout(timeout)
                .tls_config(tls)
                .build(),
        }
    }
}

impl Default for UreqHttp {
    fn default() -> Self {
        UreqHttp::new(Duration::from_secs(30))
    }
}

impl HttpClient for UreqHttp {
    fn send(&self, request: &HttpRequest) -> Result<HttpResponse, HttpError> {
        let method = match request.method {
            Method::Get => "GET",
            Method::Post => "POST",
        };
        let mut req = self.agent.request(method, &request.url);
        for (name, value) in &request.headers {
            req = req.set(name, value);
        }
        let result = match request.method {
            Method::Get => req.call(),
            Method::Post => req.send_bytes(&request.body),
        };
        let response = match result {
            Ok(response) => response,
            Err(ureq::Error::Status(_, response)) => response,
            Err(ureq::Error::Transport(t)) => return Err(HttpError(t.to_string())),
        };
        let status = response.status();
        // `headers_names` repeats a name once per field; each name's
        // values are read once.
        let mut names = response.headers_names();
        names.sort_by_key(|n| n.to_ascii_lowercase());
        names.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        let headers = names
            .into_iter()
            .flat_map(|name| {
                response
                    .all(&name)
                    .into_iter()
                    .map(|v| (name.clone(), v.to_owned()))
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut body = Vec::new();
        response
            .into_reader()
            .take(MAX_BODY)
            .read_to_end(&mut body)
            .map_err(|e| HttpError(e.to_string()))?;
        Ok(HttpResponse {
            status,
            headers,
            body,
        })
    }
}
