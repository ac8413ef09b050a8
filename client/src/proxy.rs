//! HTTP proxies: which one (if any) a request goes through, and the bytes
//! spoken to it.
//!
//! An `http://` endpoint is reached through the proxy with the request
//! target in absolute form (`POST http://host:port/mcp HTTP/1.1`, RFC 9112
//! § 3.2.2); an `https://` endpoint through a `CONNECT host:port` tunnel
//! (RFC 9110 § 9.3.6, the target in authority form, RFC 9112 § 3.2.3),
//! then TLS with the origin inside it: SNI and the certificate check name
//! the origin, never the proxy. Credentials in the proxy URL go to the
//! proxy as `Proxy-Authorization: Basic` (RFC 9110 § 11.7.2, RFC 7617):
//! on the `CONNECT` alone through a tunnel, on each request in absolute
//! form (which the proxy consumes, RFC 9110 § 11.7.2: it is the proxy's
//! field, not the origin's); never inside a tunnel, where the origin would
//! read them.
//!
//! The environment is read the way curl reads it (and reqwest, ureq):
//! see [`ProxySettings::from_env`].

use std::fmt;
use std::net::IpAddr;

use base64::Engine as _;

use crate::endpoint::Address;

/// The longest `CONNECT` answer head read before the proxy is given up
/// on (a proxy that never ends its head cannot hold the client).
const MAX_CONNECT_HEAD: usize = 16 << 10;

/// What went wrong with a proxy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProxyError {
    /// The proxy URL is not one the transports speak (`http://` only: no
    /// `https://` to the proxy, no SOCKS), or has no host. The URL is not
    /// repeated: it may carry a password.
    Url(String),
    /// The environment variable `var` holds a proxy URL that is not
    /// usable, for the reason given.
    Env {
        /// `https_proxy`, `HTTP_PROXY`, …
        var: String,
        /// Why its value is refused.
        why: String,
    },
    /// The proxy answered `407 Proxy Authentication Required` (RFC 9110
    /// § 15.5.8): no credentials in the proxy URL, or not the right ones.
    /// Its `Proxy-Authenticate` challenges, in order.
    AuthRequired {
        /// Every `Proxy-Authenticate` value.
        challenges: Vec<String>,
    },
    /// The proxy refused the `CONNECT` with this status (not 2xx, not
    /// 407): 403 for a port it does not tunnel to, 502 for an origin it
    /// could not reach, …
    Refused(u16),
    /// The proxy's answer to `CONNECT` is not HTTP/1.1, too long, or
    /// ended before it was whole.
    BadAnswer(String),
}

impl fmt::Display for ProxyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyError::Url(why) => write!(f, "proxy URL: {why}"),
            ProxyError::Env { var, why } => write!(f, "proxy from ${var}: {why}"),
            ProxyError::AuthRequired { challenges } if challenges.is_empty() => {
                f.write_str("the proxy asks for authentication (407)")
            }
            ProxyError::AuthRequired { challenges } => write!(
                f,
                "the proxy asks for authentication (407): {}",
                challenges.join(", ")
            ),
            ProxyError::Refused(status) => {
                write!(f, "the proxy refused the tunnel with status {status}")
            }
            ProxyError::BadAnswer(why) => write!(f, "the proxy's answer: {why}"),
        }
    }
}

impl std::error::Error for ProxyError {}

/// One HTTP proxy: `http://[user[:password]@]host[:port]`.
#[derive(Clone, PartialEq, Eq)]
pub struct Proxy {
    /// The host as the resolver takes it, and its port.
    address: Address,
    /// `user:password`, percent-decoded, if the URL carries them.
    credentials: Option<(String, String)>,
}

impl fmt::Debug for Proxy {
    /// The password is not shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Proxy")
            .field("host", &self.address.host)
            .field("port", &self.address.port)
            .field("user", &self.credentials.as_ref().map(|(u, _)| u))
            .finish()
    }
}

impl Proxy {
    /// A proxy from its URL: `http://[user[:password]@]host[:port]`; a
    /// value without a scheme is taken as `http://` (as curl takes it),
    /// and the port is 80 unless given (the scheme's, as reqwest and ureq
    /// take it; curl assumes 1080). User and password are percent-decoded
    /// (`p%40ss` is `p@ss`). A path is ignored. `https://` (TLS to the
    /// proxy itself) and SOCKS are refused.
    pub fn parse(url: &str) -> Result<Self, ProxyError> {
        let url = url.trim();
        let with_scheme = match url.contains("://") {
            true => url.to_owned(),
            false => format!("http://{url}"),
        };
        let parsed = url::Url::parse(&with_scheme).map_err(|e| ProxyError::Url(e.to_string()))?;
        if parsed.scheme() != "http" {
            return Err(ProxyError::Url(format!(
                "scheme {:?} is not supported (an http:// proxy only)",
                parsed.scheme()
            )));
        }
        let host = parsed
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| ProxyError::Url(String::from("no host")))?;
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8()
                .map(|s| s.into_owned())
                .map_err(|_| ProxyError::Url(String::from("credentials are not UTF-8")))
        };
        let credentials = match parsed.username() {
            "" => None,
            user => Some((decode(user)?, decode(parsed.password().unwrap_or(""))?)),
        };
        Ok(Proxy {
            address: Address {
                host: host
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_owned(),
                port: parsed.port_or_known_default().unwrap_or(80),
            },
            credentials,
        })
    }

    /// The proxy's host (`::1`, not `[::1]`).
    pub fn host(&self) -> &str {
        &self.address.host
    }

    /// The proxy's port.
    pub fn port(&self) -> u16 {
        self.address.port
    }

    /// Whether the URL carried a user (and password) for the proxy.
    pub fn has_credentials(&self) -> bool {
        self.credentials.is_some()
    }

    /// The URL, credentials included (for another HTTP client that should
    /// go through the same proxy, as the OAuth client's ureq agent does).
    pub fn url(&self) -> String {
        let host = bracketed(&self.address.host);
        match &self.credentials {
            None => format!("http://{host}:{}", self.address.port),
            Some((user, password)) => {
                let enc = |s: &str| {
                    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC)
                        .to_string()
                };
                format!(
                    "http://{}:{}@{host}:{}",
                    enc(user),
                    enc(password),
                    self.address.port
                )
            }
        }
    }

    /// The user and password, percent-decoded.
    pub fn credentials(&self) -> Option<(&str, &str)> {
        self.credentials
            .as_ref()
            .map(|(u, p)| (u.as_str(), p.as_str()))
    }

    /// The `Proxy-Authorization` value, `Basic base64(user:password)`
    /// (RFC 7617 § 2), when the URL carries credentials.
    pub fn authorization(&self) -> Option<String> {
        self.credentials.as_ref().map(|(user, password)| {
            let token =
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
            format!("Basic {token}")
        })
    }

    pub(crate) fn address(&self) -> &Address {
        &self.address
    }
}

/// `host` as it stands before `:port` (`[::1]` for an IPv6 address).
fn bracketed(host: &str) -> String {
    match host.contains(':') {
        true => format!("[{host}]"),
        false => host.to_owned(),
    }
}

/// One `NO_PROXY` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Rule {
    /// A host name: itself and every name under it.
    Domain { name: String, port: Option<u16> },
    /// An IP address, exactly.
    Ip { addr: IpAddr, port: Option<u16> },
    /// A network in CIDR notation (`10.0.0.0/8`, `fd00::/8`).
    Net { addr: IpAddr, prefix: u8 },
}

/// The hosts reached directly, never through a proxy: a `NO_PROXY` list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NoProxy {
    /// `*`: no host goes through a proxy.
    all: bool,
    rules: Vec<Rule>,
}

impl NoProxy {
    /// Parse a list as curl reads `NO_PROXY`: entries separated by commas
    /// (or white space), case-insensitive.
    ///
    /// - `*` matches every host;
    /// - `example.com`, `.example.com` and `*.example.com` match
    ///   `example.com` and every name under it (`api.example.com`), not
    ///   `badexample.com`;
    /// - an IP address (`127.0.0.1`, `::1`, `[::1]`) matches itself, and
    ///   `10.0.0.0/8` or `fd00::/8` every address of that network;
    /// - `name:port` (or `[::1]:port`) matches that host on that port only.
    ///
    /// An entry that is none of these is skipped.
    pub fn parse(list: &str) -> Self {
        let mut out = NoProxy::default();
        for entry in list.split(|c: char| c == ',' || c.is_whitespace()) {
            let entry = entry.trim().to_ascii_lowercase();
            if entry.is_empty() {
                continue;
            }
            if entry == "*" {
                out.all = true;
                continue;
            }
            if let Some(rule) = rule(&entry) {
                out.rules.push(rule);
            }
        }
        out
    }

    /// Every host is reached directly (`NO_PROXY=*`).
    pub fn all() -> Self {
        NoProxy {
            all: true,
            rules: Vec::new(),
        }
    }

    /// Whether `host` (a name or an address, `[::1]` or `::1`) on `port`
    /// is reached directly.
    pub fn matches(&self, host: &str, port: u16) -> bool {
        if self.all {
            return true;
        }
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim_end_matches('.')
            .to_ascii_lowercase();
        let ip: Option<IpAddr> = host.parse().ok();
        let port_ok = |p: &Option<u16>| p.is_none_or(|p| p == port);
        self.rules.iter().any(|rule| match rule {
            Rule::Domain { name, port } => {
                port_ok(port)
                    && (host == *name
                        || (host.len() > name.len()
                            && host.ends_with(name.as_str())
                            && host.as_bytes()[host.len() - name.len() - 1] == b'.'))
            }
            Rule::Ip { addr, port } => port_ok(port) && ip == Some(*addr),
            Rule::Net { addr, prefix } => ip.is_some_and(|ip| in_network(ip, *addr, *prefix)),
        })
    }
}

/// One lower-cased, non-empty `NO_PROXY` entry other than `*`.
fn rule(entry: &str) -> Option<Rule> {
    if let Some((addr, prefix)) = entry.split_once('/') {
        let addr: IpAddr = addr
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .ok()?;
        let prefix: u8 = prefix.parse().ok()?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        return (prefix <= max).then_some(Rule::Net { addr, prefix });
    }
    if let Ok(addr) = entry.parse::<IpAddr>() {
        return Some(Rule::Ip { addr, port: None });
    }
    // `[v6]` or `[v6]:port`.
    if let Some(rest) = entry.strip_prefix('[') {
        let (addr, after) = rest.split_once(']')?;
        let addr: IpAddr = addr.parse().ok()?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?.parse().ok()?),
        };
        return Some(Rule::Ip { addr, port });
    }
    let (name, port) = match entry.rsplit_once(':') {
        Some((name, port)) => (name, Some(port.parse::<u16>().ok()?)),
        None => (entry, None),
    };
    if let Ok(addr) = name.parse::<IpAddr>() {
        return Some(Rule::Ip { addr, port });
    }
    let name = name
        .trim_start_matches("*.")
        .trim_start_matches('.')
        .trim_end_matches('.');
    if name.is_empty() || name.contains(['*', '[', ']', '/']) {
        return None;
    }
    Some(Rule::Domain {
        name: name.to_owned(),
        port,
    })
}

/// Whether `ip` is in `net/prefix` (an IPv4 network holds no IPv6
/// address, and the other way round).
fn in_network(ip: IpAddr, net: IpAddr, prefix: u8) -> bool {
    match (ip, net) {
        (IpAddr::V4(ip), IpAddr::V4(net)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
            u32::from(ip) & mask == u32::from(net) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(net)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
            u128::from(ip) & mask == u128::from(net) & mask
        }
        _ => false,
    }
}

/// Which proxy each request goes through: one for `http://` endpoints,
/// one for `https://`, and the hosts reached directly. The default goes
/// through none.
///
/// The transports go direct unless given settings
/// ([`HttpTransport::with_proxy`](crate::HttpTransport::with_proxy)): a
/// library does not read the process environment behind its caller's
/// back. A program opts in with [`ProxySettings::from_env`], as the
/// `snodo` command line does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProxySettings {
    http: Option<Proxy>,
    https: Option<Proxy>,
    no_proxy: NoProxy,
}

impl ProxySettings {
    /// No proxy: every connection goes straight to the endpoint.
    pub fn direct() -> Self {
        ProxySettings::default()
    }

    /// `proxy` for every endpoint, `http://` and `https://` alike.
    pub fn all(proxy: Proxy) -> Self {
        ProxySettings {
            http: Some(proxy.clone()),
            https: Some(proxy),
            no_proxy: NoProxy::default(),
        }
    }

    /// The proxy for `http://` endpoints (`None`: direct).
    pub fn with_http(mut self, proxy: Option<Proxy>) -> Self {
        self.http = proxy;
        self
    }

    /// The proxy for `https://` endpoints (`None`: direct).
    pub fn with_https(mut self, proxy: Option<Proxy>) -> Self {
        self.https = proxy;
        self
    }

    /// The hosts reached directly whatever the proxies.
    pub fn with_no_proxy(mut self, no_proxy: NoProxy) -> Self {
        self.no_proxy = no_proxy;
        self
    }

    /// The settings the process environment gives, read as curl reads
    /// them ([`from_vars`](Self::from_vars) says how).
    pub fn from_env() -> Result<Self, ProxyError> {
        ProxySettings::from_vars(|name| std::env::var(name).ok())
    }

    /// The settings the variables `var` looks up give, as curl reads
    /// them; where a variable is set in both cases, the lower-case one
    /// wins. An empty value is no value.
    ///
    /// - `https://` endpoints: `https_proxy`, else `HTTPS_PROXY`, else
    ///   `all_proxy`, else `ALL_PROXY`;
    /// - `http://` endpoints: `http_proxy`, else `HTTP_PROXY` (not read
    ///   when `REQUEST_METHOD` is set: in a CGI program `HTTP_PROXY` is
    ///   the request's own `Proxy` field, the "httpoxy" hole; curl never
    ///   reads it, reqwest skips it in CGI as here), else `all_proxy`,
    ///   else `ALL_PROXY`;
    /// - the hosts reached directly: `no_proxy`, else `NO_PROXY`
    ///   ([`NoProxy::parse`]).
    ///
    /// A value that is not an `http://` proxy URL (a `socks5://` one,
    /// say) is an error naming the variable, rather than a silent direct
    /// connection past the proxy the environment asked for.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, ProxyError> {
        let get = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let proxy = |names: &[&str]| -> Result<Option<Proxy>, ProxyError> {
            for name in names {
                if let Some(value) = get(name) {
                    return Proxy::parse(&value).map(Some).map_err(|e| ProxyError::Env {
                        var: String::from(*name),
                        why: match e {
                            ProxyError::Url(why) => why,
                            other => other.to_string(),
                        },
                    });
                }
            }
            Ok(None)
        };
        let cgi = var("REQUEST_METHOD").is_some();
        let http_names: &[&str] = match cgi {
            true => &["http_proxy", "all_proxy", "ALL_PROXY"],
            false => &["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"],
        };
        Ok(ProxySettings {
            http: proxy(http_names)?,
            https: proxy(&["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"])?,
            no_proxy: get("no_proxy")
                .or_else(|| get("NO_PROXY"))
                .map(|list| NoProxy::parse(&list))
                .unwrap_or_default(),
        })
    }

    /// The proxy a request to `host:port` over `https` (or not) goes
    /// through; `None` when it goes direct.
    pub fn proxy_for(&self, https: bool, host: &str, port: u16) -> Option<&Proxy> {
        let proxy = match https {
            true => self.https.as_ref(),
            false => self.http.as_ref(),
        }?;
        (!self.no_proxy.matches(host, port)).then_some(proxy)
    }

    /// The proxy a request to `url` goes through; `None` when it goes
    /// direct (or `url` is not an `http://` or `https://` URL).
    pub fn proxy_for_url(&self, url: &str) -> Option<&Proxy> {
        let url = url::Url::parse(url).ok()?;
        let https = match url.scheme() {
            "https" => true,
            "http" => false,
            _ => return None,
        };
        self.proxy_for(https, url.host_str()?, url.port_or_known_default()?)
    }
}

/// How a transport reaches its endpoint.
#[derive(Clone, Default)]
pub(crate) enum Route {
    /// Straight to the endpoint.
    #[default]
    Direct,
    /// An `http://` endpoint through a proxy: the request target in
    /// absolute form, `Proxy-Authorization` on each request.
    Forward(Proxy),
    /// An `https://` endpoint through a proxy's `CONNECT` tunnel.
    Tunnel {
        proxy: Proxy,
        /// The bytes of the `CONNECT` request.
        connect: Vec<u8>,
    },
}

impl fmt::Debug for Route {
    /// The proxy (its password not shown), not the `CONNECT` bytes: they
    /// carry the credentials.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Route::Direct => f.write_str("Direct"),
            Route::Forward(proxy) => f.debug_tuple("Forward").field(proxy).finish(),
            Route::Tunnel { proxy, .. } => f.debug_tuple("Tunnel").field(proxy).finish(),
        }
    }
}

impl Route {
    /// The route `settings` give an endpoint at `address`, over TLS or not.
    pub fn new(settings: &ProxySettings, address: &Address, tls: bool) -> Route {
        let Some(proxy) = settings.proxy_for(tls, &address.host, address.port) else {
            return Route::Direct;
        };
        match tls {
            false => Route::Forward(proxy.clone()),
            true => Route::Tunnel {
                connect: connect_request(address, proxy),
                proxy: proxy.clone(),
            },
        }
    }

    /// Where the TCP connection goes: the proxy, or the endpoint.
    pub fn address<'a>(&'a self, endpoint: &'a Address) -> &'a Address {
        match self {
            Route::Direct => endpoint,
            Route::Forward(proxy) | Route::Tunnel { proxy, .. } => proxy.address(),
        }
    }

    /// The request target for `target` (path and query) at `authority`:
    /// absolute form through a forwarding proxy (RFC 9112 § 3.2.2),
    /// origin form otherwise (§ 3.2.1).
    pub fn target(&self, authority: &str, target: &str) -> String {
        match self {
            Route::Forward(_) => format!("http://{authority}{target}"),
            _ => target.to_owned(),
        }
    }

    /// The fields each request carries for the proxy: `Proxy-Authorization`
    /// through a forwarding proxy with credentials. Nothing in a tunnel,
    /// whose requests only the origin reads.
    pub fn request_headers(&self) -> Vec<(String, String)> {
        match self {
            Route::Forward(proxy) => proxy
                .authorization()
                .map(|value| vec![(String::from("Proxy-Authorization"), value)])
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// Whether a `status` answer is the forwarding proxy's refusal
    /// (407), as the error the transports return.
    pub fn refusal(&self, status: u16, challenges: Vec<String>) -> Option<ProxyError> {
        match (self, status) {
            (Route::Forward(_), 407) => Some(ProxyError::AuthRequired { challenges }),
            _ => None,
        }
    }
}

/// An answer's head as it arrives through a forwarding proxy, read far
/// enough to tell whether it is the proxy's 407 (the async transports
/// hand the same bytes to the exchange, which would take the 407 for the
/// server's).
#[cfg(any(feature = "tokio", feature = "smol", feature = "threads"))]
#[derive(Debug, Default)]
pub(crate) struct RefusalProbe {
    head: Vec<u8>,
}

#[cfg(any(feature = "tokio", feature = "smol", feature = "threads"))]
impl RefusalProbe {
    /// A probe for an answer on `route`: only a forwarding proxy's.
    pub fn new(route: &Route) -> Option<Self> {
        matches!(route, Route::Forward(_)).then(RefusalProbe::default)
    }

    /// The next bytes of the answer (empty at its end): `Ok(true)` once
    /// it is known not to be the proxy's 407, `Ok(false)` while its head
    /// is not far enough along, the 407 (with its whole head's
    /// challenges) as the error.
    pub fn push(&mut self, bytes: &[u8]) -> Result<bool, ProxyError> {
        if bytes.is_empty() {
            return Ok(true);
        }
        self.head.extend_from_slice(bytes);
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut answer = httparse::Response::new(&mut headers);
        match answer.parse(&self.head) {
            Ok(httparse::Status::Complete(_)) if answer.code == Some(407) => {
                Err(ProxyError::AuthRequired {
                    challenges: answer
                        .headers
                        .iter()
                        .filter(|h| h.name.eq_ignore_ascii_case("proxy-authenticate"))
                        .map(|h| String::from_utf8_lossy(h.value).into_owned())
                        .collect(),
                })
            }
            // A 407 whose head is still coming (for its challenges).
            Ok(httparse::Status::Partial)
                if answer.code.is_none_or(|c| c == 407) && self.head.len() <= MAX_CONNECT_HEAD =>
            {
                Ok(false)
            }
            // Another status, or not HTTP: the exchange says what it is.
            _ => Ok(true),
        }
    }
}

/// `CONNECT host:port HTTP/1.1` to open a tunnel to `origin` (RFC 9110
/// § 9.3.6; the authority form, port included, RFC 9112 § 3.2.3), with
/// `Host` the same authority and `Proxy-Authorization` when the proxy URL
/// carries credentials.
fn connect_request(origin: &Address, proxy: &Proxy) -> Vec<u8> {
    let authority = format!("{}:{}", bracketed(&origin.host), origin.port);
    let mut head = format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n");
    if let Some(value) = proxy.authorization() {
        head.push_str("Proxy-Authorization: ");
        head.push_str(&value);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    head.into_bytes()
}

/// The proxy's answer to `CONNECT`, as far as `bytes` go: `Ok(None)` when
/// its head is not whole yet, `Ok(Some(()))` for a 2xx (the tunnel is
/// open), the error otherwise. A 2xx answer has no body (RFC 9110 § 9.3.6),
/// and the origin speaks only after the client's first TLS record, so a
/// byte past the head is an error.
pub(crate) fn connect_answer(bytes: &[u8]) -> Result<Option<()>, ProxyError> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut answer = httparse::Response::new(&mut headers);
    let len = match answer.parse(bytes) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) if bytes.len() > MAX_CONNECT_HEAD => {
            return Err(ProxyError::BadAnswer(format!(
                "a head longer than {MAX_CONNECT_HEAD} bytes"
            )))
        }
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(e) => return Err(ProxyError::BadAnswer(format!("not HTTP/1.1: {e}"))),
    };
    let status = answer.code.unwrap_or(0);
    match status {
        200..=299 if len < bytes.len() => Err(ProxyError::BadAnswer(String::from(
            "bytes after the head of a 2xx answer",
        ))),
        200..=299 => Ok(Some(())),
        407 => Err(ProxyError::AuthRequired {
            challenges: answer
                .headers
                .iter()
                .filter(|h| h.name.eq_ignore_ascii_case("proxy-authenticate"))
                .map(|h| String::from_utf8_lossy(h.value).into_owned())
                .collect(),
        }),
        status => Err(ProxyError::Refused(status)),
    }
}

/// The end of input before the `CONNECT` answer was whole.
pub(crate) fn connect_cut_short() -> ProxyError {
    ProxyError::BadAnswer(String::from(
        "the proxy closed the connection before answering CONNECT",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    fn host_of(settings: &ProxySettings, url: &str) -> Option<String> {
        settings
            .proxy_for_url(url)
            .map(|p| format!("{}:{}", p.host(), p.port()))
    }

    #[test]
    fn a_proxy_url_with_credentials_is_decoded() {
        let proxy = Proxy::parse("http://ad%40m:p%3Ass@proxy.example:3128").unwrap();
        assert_eq!(proxy.host(), "proxy.example");
        assert_eq!(proxy.port(), 3128);
        assert_eq!(proxy.credentials(), Some(("ad@m", "p:ss")));
        // base64("ad@m:p:ss"), written out.
        assert_eq!(proxy.authorization().as_deref(), Some("Basic YWRAbTpwOnNz"));
        assert!(!format!("{proxy:?}").contains("p:ss"));
    }

    #[test]
    fn a_proxy_url_without_scheme_or_port() {
        let proxy = Proxy::parse("proxy.example").unwrap();
        assert_eq!((proxy.host(), proxy.port()), ("proxy.example", 80));
        let proxy = Proxy::parse("http://[::1]:8080/").unwrap();
        assert_eq!((proxy.host(), proxy.port()), ("::1", 8080));
        assert_eq!(proxy.url(), "http://[::1]:8080");
    }

    #[test]
    fn socks_and_https_proxies_are_refused() {
        assert!(matches!(
            Proxy::parse("socks5://127.0.0.1:1080"),
            Err(ProxyError::Url(_))
        ));
        assert!(matches!(
            Proxy::parse("https://proxy.example"),
            Err(ProxyError::Url(_))
        ));
        let err = ProxySettings::from_vars(vars(&[("ALL_PROXY", "socks5://h:1080")])).unwrap_err();
        assert!(matches!(err, ProxyError::Env { ref var, .. } if var == "ALL_PROXY"));
    }

    #[test]
    fn the_environment_as_curl_reads_it() {
        let s = ProxySettings::from_vars(vars(&[
            ("HTTPS_PROXY", "http://upper:1"),
            ("https_proxy", "http://lower:2"),
            ("HTTP_PROXY", "http://plain-upper:3"),
            ("ALL_PROXY", "http://all:4"),
        ]))
        .unwrap();
        assert_eq!(
            host_of(&s, "https://a.example/mcp").as_deref(),
            Some("lower:2")
        );
        assert_eq!(
            host_of(&s, "http://a.example/mcp").as_deref(),
            Some("plain-upper:3")
        );

        // Only ALL_PROXY: both schemes; an empty https_proxy is no value.
        let s =
            ProxySettings::from_vars(vars(&[("https_proxy", ""), ("all_proxy", "all:4")])).unwrap();
        assert_eq!(host_of(&s, "https://a.example/").as_deref(), Some("all:4"));
        assert_eq!(host_of(&s, "http://a.example/").as_deref(), Some("all:4"));

        // A CGI program: HTTP_PROXY is the request's `Proxy` field.
        let s = ProxySettings::from_vars(vars(&[
            ("REQUEST_METHOD", "GET"),
            ("HTTP_PROXY", "http://attacker:1"),
        ]))
        .unwrap();
        assert_eq!(host_of(&s, "http://a.example/"), None);

        // Nothing set: direct.
        let s = ProxySettings::from_vars(vars(&[])).unwrap();
        assert_eq!(s, ProxySettings::direct());
    }

    #[test]
    fn no_proxy_lower_case_wins_and_bypasses() {
        let s = ProxySettings::from_vars(vars(&[
            ("all_proxy", "http://p:1"),
            ("NO_PROXY", "*"),
            (
                "no_proxy",
                "internal.example, 10.0.0.0/8 [::1] localhost:8080",
            ),
        ]))
        .unwrap();
        assert_eq!(host_of(&s, "https://internal.example/"), None);
        assert_eq!(host_of(&s, "https://api.internal.example/"), None);
        assert_eq!(
            host_of(&s, "https://badinternal.example/").as_deref(),
            Some("p:1")
        );
        assert_eq!(host_of(&s, "http://10.2.3.4/"), None);
        assert_eq!(host_of(&s, "http://11.2.3.4/").as_deref(), Some("p:1"));
        assert_eq!(host_of(&s, "http://[::1]:9/"), None);
        assert_eq!(host_of(&s, "http://localhost:8080/"), None);
        assert_eq!(
            host_of(&s, "http://localhost:8081/").as_deref(),
            Some("p:1")
        );
    }

    #[test]
    fn no_proxy_entries() {
        let list = NoProxy::parse(".Example.COM,*.corp.test,127.0.0.1,fd00::/8,host.test.");
        assert!(list.matches("example.com", 443));
        assert!(list.matches("WWW.example.com.", 443));
        assert!(list.matches("a.corp.test", 1));
        assert!(list.matches("corp.test", 1));
        assert!(list.matches("127.0.0.1", 80));
        assert!(!list.matches("127.0.0.2", 80));
        assert!(list.matches("[fd00::1]", 80));
        assert!(!list.matches("fe80::1", 80));
        assert!(list.matches("host.test", 80));
        assert!(!list.matches("notexample.com", 443));
        assert!(NoProxy::parse(" * ").matches("anything", 1));
        assert!(!NoProxy::parse("").matches("anything", 1));
    }

    #[cfg(any(feature = "tokio", feature = "smol", feature = "threads"))]
    #[test]
    fn a_forwarded_407_is_told_however_its_head_is_cut() {
        let route = Route::Forward(Proxy::parse("http://p:1").unwrap());
        let answer: &[u8] =
            b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"p\"\r\n\r\n";
        for cut in 1..answer.len() {
            let mut probe = RefusalProbe::new(&route).unwrap();
            assert_eq!(probe.push(&answer[..cut]), Ok(false), "cut at {cut}");
            assert_eq!(
                probe.push(&answer[cut..]),
                Err(ProxyError::AuthRequired {
                    challenges: vec![String::from("Basic realm=\"p\"")]
                })
            );
        }
        let mut probe = RefusalProbe::new(&route).unwrap();
        assert_eq!(probe.push(b"HTTP/1.1 200 OK\r\nContent-"), Ok(true));
        assert!(RefusalProbe::new(&Route::Direct).is_none());
    }

    #[test]
    fn connect_request_bytes() {
        let proxy = Proxy::parse("http://u:p@proxy:3128").unwrap();
        let origin = Address {
            host: String::from("::1"),
            port: 8443,
        };
        assert_eq!(
            connect_request(&origin, &proxy),
            b"CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\nProxy-Authorization: Basic dTpw\r\n\r\n"
        );
    }

    #[test]
    fn connect_answers() {
        assert_eq!(
            connect_answer(b"HTTP/1.1 200 Connection established\r\n"),
            Ok(None)
        );
        assert_eq!(
            connect_answer(b"HTTP/1.1 200 Connection established\r\n\r\n"),
            Ok(Some(()))
        );
        assert_eq!(
            connect_answer(
                b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"p\"\r\nContent-Length: 0\r\n\r\n"
            ),
            Err(ProxyError::AuthRequired {
                challenges: vec![String::from("Basic realm=\"p\"")]
            })
        );
        assert_eq!(
            connect_answer(b"HTTP/1.1 403 Forbidden\r\n\r\n"),
            Err(ProxyError::Refused(403))
        );
        assert!(matches!(
            connect_answer(b"SSH-2.0-OpenSSH\r\n\r\n"),
            Err(ProxyError::BadAnswer(_))
        ));
        assert!(matches!(
            connect_answer(b"HTTP/1.1 200 OK\r\n\r\n\x16\x03"),
            Err(ProxyError::BadAnswer(_))
        ));
    }
}
