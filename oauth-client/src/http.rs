//! The HTTP the OAuth client needs, as a trait: metadata GETs, form POSTs
//! to the token and registration endpoints, and the authorization GET of
//! [`HttpRedirectAgent`](crate::HttpRedirectAgent). Redirects are never
//! followed here: a metadata document must come from the URL it was asked
//! at, and the authorization redirect is the answer itself.

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;

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

/// An HTTP proxy (`http://host:port`, with a user and password or not)
/// one request goes through: what [`UreqHttp::with_proxy`]'s selector
/// answers for a URL. snodo-client's `ProxySettings::proxy_for_url` gives
/// one for the transports' proxy, so the OAuth requests and the MCP
/// requests take the same way out.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct HttpProxy {
    /// The proxy's host name or IPv4 address.
    pub host: String,
    /// Its port.
    pub port: u16,
    /// User and password (not percent-encoded), sent to the proxy as
    /// `Proxy-Authorization: Basic` (RFC 7617).
    pub credentials: Option<(String, String)>,
}

impl fmt::Debug for HttpProxy {
    /// The password is not shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpProxy")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.credentials.as_ref().map(|(u, _)| u))
            .finish()
    }
}

impl HttpProxy {
    /// The `Proxy-Authorization` value.
    fn authorization(&self) -> Option<String> {
        self.credentials.as_ref().map(|(user, password)| {
            let token =
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
            format!("Basic {token}")
        })
    }
}

/// Which proxy (if any) a request to a URL goes through.
type ProxyFor = dyn Fn(&str) -> Option<HttpProxy> + Send + Sync;

/// [`HttpClient`] on ureq (blocking, rustls), redirects off; direct, or
/// through the HTTP proxy a selector names per URL ([`with_proxy`](Self::with_proxy)).
pub struct UreqHttp {
    agent: ureq::Agent,
    timeout: Duration,
    tls: Option<Arc<rustls::ClientConfig>>,
    proxy_for: Option<Arc<ProxyFor>>,
    /// One agent per proxy (ureq 2 takes one proxy per agent), each with
    /// its own connection pool.
    proxied: Mutex<HashMap<HttpProxy, ureq::Agent>>,
}

impl UreqHttp {
    /// A client whose requests time out after `timeout`.
    pub fn new(timeout: Duration) -> Self {
        UreqHttp::build(timeout, None)
    }

    fn build(timeout: Duration, tls: Option<Arc<rustls::ClientConfig>>) -> Self {
        UreqHttp {
            agent: UreqHttp::agent(timeout, tls.clone(), None),
            timeout,
            tls,
            proxy_for: None,
            proxied: Mutex::new(HashMap::new()),
        }
    }

    fn agent(
        timeout: Duration,
        tls: Option<Arc<rustls::ClientConfig>>,
        proxy: Option<ureq::Proxy>,
    ) -> ureq::Agent {
        // No proxy from the environment behind the caller's back: only
        // what `with_proxy` names.
        let mut builder = ureq::AgentBuilder::new()
            .redirects(0)
            .timeout(timeout)
            .try_proxy_from_env(false);
        if let Some(tls) = tls {
            builder = builder.tls_config(tls);
        }
        if let Some(proxy) = proxy {
            builder = builder.proxy(proxy);
        }
        builder.build()
    }

    /// Send each request through the proxy `proxy_for` names for its URL
    /// (`None`: direct). An `https://` URL goes through a `CONNECT`
    /// tunnel (RFC 9110 § 9.3.6) with the credentials on the `CONNECT`
    /// alone; an `http://` one to the proxy in absolute form (RFC 9112
    /// § 3.2.2) with `Proxy-Authorization` on the request. Without this
    /// call the client goes direct and reads no environment variable.
    ///
    /// ```no_run
    /// # use std::time::Duration;
    /// # use snodo_oauth_client::{HttpProxy, UreqHttp};
    /// let http = UreqHttp::new(Duration::from_secs(30)).with_proxy(|url: &str| {
    ///     url.starts_with("https://").then(|| HttpProxy {
    ///         host: "proxy.example".into(),
    ///         port: 3128,
    ///         credentials: None,
    ///     })
    /// });
    /// ```
    pub fn with_proxy(
        mut self,
        proxy_for: impl Fn(&str) -> Option<HttpProxy> + Send + Sync + 'static,
    ) -> Self {
        self.proxy_for = Some(Arc::new(proxy_for));
        self
    }

    /// The agent for `url`, and the proxy it goes through.
    fn route(&self, url: &str) -> Result<(ureq::Agent, Option<HttpProxy>), HttpError> {
        let Some(proxy) = self.proxy_for.as_ref().and_then(|f| f(url)) else {
            return Ok((self.agent.clone(), None));
        };
        let mut agents = self.proxied.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(agent) = agents.get(&proxy) {
            return Ok((agent.clone(), Some(proxy)));
        }
        if proxy.host.contains(':') {
            // ureq 2 splits its proxy string at every colon.
            return Err(HttpError(String::from(
                "proxy: an IPv6 address is not supported here (a host name is)",
            )));
        }
        // ureq 2 takes the credentials as they are (no percent-decoding).
        let spec = match &proxy.credentials {
            Some((user, password)) => {
                format!("http://{user}:{password}@{}:{}", proxy.host, proxy.port)
            }
            None => format!("http://{}:{}", proxy.host, proxy.port),
        };
        let ureq_proxy = ureq::Proxy::new(spec).map_err(|e| HttpError(format!("proxy: {e}")))?;
        let agent = UreqHttp::agent(self.timeout, self.tls.clone(), Some(ureq_proxy));
        agents.insert(proxy.clone(), agent.clone());
        Ok((agent, Some(proxy)))
    }
}

impl UreqHttp {
    /// A client whose requests time out after `timeout` and whose HTTPS
    /// trusts what `tls` trusts (a private CA's authorization server, say:
    /// snodo-client's `TlsConfig::rustls_config`, so the MCP transport and
    /// the OAuth requests trust the same roots).
    pub fn with_tls(timeout: Duration, tls: Arc<rustls::ClientConfig>) -> Self {
        UreqHttp::build(timeout, Some(tls))
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
        let (agent, proxy) = self.route(&request.url)?;
        let mut req = agent.request(method, &request.url);
        for (name, value) in &request.headers {
            req = req.set(name, value);
        }
        // ureq 2 puts the proxy's credentials on a `CONNECT` only; a plain
        // `http://` request to the proxy carries them itself (the proxy
        // consumes the field). Never on `https://`: inside the tunnel the
        // origin would read it.
        if let Some(value) = proxy.as_ref().and_then(HttpProxy::authorization) {
            let plain = url::Url::parse(&request.url).is_ok_and(|u| u.scheme() == "http");
            if plain {
                req = req.set("Proxy-Authorization", &value);
            }
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
