//! Discovery (`basic/authorization/authorization-server-discovery.mdx`):
//! the Protected Resource Metadata (RFC 9728) from the challenge's
//! `resource_metadata` or the well-known URLs, then the authorization
//! server's metadata (RFC 8414 and OpenID Connect Discovery, in the order
//! the page gives), each validated before use.

use serde_json::Value;
use url::Url;

use crate::error::OAuthError;
use crate::http::{HttpClient, HttpRequest};

/// The fields of a Protected Resource Metadata document the client uses
/// (RFC 9728 § 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceMetadata {
    /// The resource identifier: the `resource` indicator of every request.
    pub resource: String,
    /// The authorization servers' issuers, in the server's order.
    pub authorization_servers: Vec<String>,
    /// The scopes for basic use, when the server lists them.
    pub scopes_supported: Option<Vec<String>>,
}

/// The fields of an authorization server's metadata the client uses
/// (RFC 8414 § 2, RFC 9207 § 3, the CIMD draft § 4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerMetadata {
    /// The issuer, identical to the one the well-known URL was built from.
    pub issuer: String,
    /// Where the user agent is sent.
    pub authorization_endpoint: String,
    /// Where codes and refresh tokens are exchanged.
    pub token_endpoint: String,
    /// Dynamic client registration (RFC 7591), when offered.
    pub registration_endpoint: Option<String>,
    /// The scopes the server knows, when listed.
    pub scopes_supported: Option<Vec<String>>,
    /// `S256` is among `code_challenge_methods_supported`.
    pub pkce_s256: bool,
    /// `token_endpoint_auth_methods_supported`; RFC 8414 § 2 makes an
    /// absent list mean `client_secret_basic`.
    pub token_endpoint_auth_methods: Vec<String>,
    /// `grant_types_supported`, when listed.
    pub grant_types_supported: Option<Vec<String>>,
    /// RFC 9207: the server puts `iss` in every authorization response.
    pub iss_parameter_supported: bool,
    /// The server accepts URL client ids (Client ID Metadata Documents).
    pub client_id_metadata_document_supported: bool,
}

impl ServerMetadata {
    /// Whether the server may grant refresh tokens: it lists `refresh_token`
    /// in `grant_types_supported`, or lists no grant types at all (many
    /// servers leave the field out; one that lists them and not this one
    /// refuses a registration asking for it).
    pub fn may_refresh(&self) -> bool {
        self.grant_types_supported
            .as_ref()
            .is_none_or(|g| g.iter().any(|x| x == "refresh_token"))
    }

    /// Whether `scope` is among `scopes_supported`.
    pub fn supports_scope(&self, scope: &str) -> bool {
        self.scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x == scope))
    }
}

/// The well-known Protected Resource Metadata URLs of `endpoint`, in the
/// order the client tries them: path-aware first (when the endpoint has a
/// path), then the root (RFC 9728 § 3.1).
pub fn resource_metadata_urls(endpoint: &Url) -> Vec<String> {
    let origin = origin_of(endpoint);
    let path = endpoint.path().trim_end_matches('/');
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    urls.push(format!("{origin}/.well-known/oauth-protected-resource"));
    urls
}

/// The well-known metadata URLs of an issuer, in the page's priority
/// order (§ Authorization Server Metadata Discovery).
pub fn server_metadata_urls(issuer: &Url) -> Vec<String> {
    let origin = origin_of(issuer);
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    }
}

/// Whether `url` may carry OAuth traffic: HTTPS (`basic/authorization/
/// security-considerations.mdx` § Communication Security: all
/// authorization server endpoints MUST be served over HTTPS, redirect URIs
/// MUST be HTTPS or `localhost`), or plain HTTP to a loopback host, where
/// nothing crosses a network (development servers, test suites).
pub fn secure_url(url: &str) -> bool {
    let Ok(url) = Url::parse(url) else {
        return false;
    };
    match url.scheme() {
        "https" => true,
        "http" => match url.host() {
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

fn origin_of(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// Parses a Protected Resource Metadata document.
pub fn parse_resource_metadata(body: &[u8]) -> Result<ResourceMetadata, OAuthError> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| OAuthError::Malformed(format!("protected resource metadata: {e}")))?;
    let resource = v
        .get("resource")
        .and_then(Value::as_str)
        .ok_or_else(|| OAuthError::Malformed("protected resource metadata: no resource".into()))?
        .to_owned();
    Ok(ResourceMetadata {
        resource,
        authorization_servers: strings(&v, "authorization_servers").unwrap_or_default(),
        scopes_supported: strings(&v, "scopes_supported"),
    })
}

/// Parses an authorization server's metadata and validates it against
/// the issuer its URL was built from: the `issuer` must be identical
/// (RFC 8414 § 3.3), and its endpoints must pass [`secure_url`]. (PKCE
/// support is checked where a code flow starts:
/// [`authorization_request`](crate::flow::authorization_request).)
pub fn parse_server_metadata(body: &[u8], issuer: &str) -> Result<ServerMetadata, OAuthError> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| OAuthError::Malformed(format!("authorization server metadata: {e}")))?;
    let found = v.get("issuer").and_then(Value::as_str).unwrap_or("");
    if found != issuer {
        return Err(OAuthError::IssuerMismatch {
            expected: issuer.to_owned(),
            found: found.to_owned(),
        });
    }
    let endpoint = |name: &str| {
        v.get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| {
                OAuthError::Malformed(format!("authorization server metadata: no {name}"))
            })
    };
    let pkce_s256 = strings(&v, "code_challenge_methods_supported")
        .is_some_and(|m| m.iter().any(|m| m == "S256"));
    let secure = |url: String| {
        if secure_url(&url) {
            Ok(url)
        } else {
            Err(OAuthError::Insecure(url))
        }
    };
    Ok(ServerMetadata {
        issuer: found.to_owned(),
        authorization_endpoint: secure(endpoint("authorization_endpoint")?)?,
        token_endpoint: secure(endpoint("token_endpoint")?)?,
        registration_endpoint: endpoint("registration_endpoint")
            .ok()
            .map(secure)
            .transpose()?,
        scopes_supported: strings(&v, "scopes_supported"),
        pkce_s256,
        token_endpoint_auth_methods: strings(&v, "token_endpoint_auth_methods_supported")
            .unwrap_or_else(|| vec!["client_secret_basic".into()]),
        grant_types_supported: strings(&v, "grant_types_supported"),
        iss_parameter_supported: v
            .get("authorization_response_iss_parameter_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        client_id_metadata_document_supported: v
            .get("client_id_metadata_document_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

fn strings(v: &Value, name: &str) -> Option<Vec<String>> {
    v.get(name)?.as_array().map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    })
}

/// Whether the metadata's `resource` names the MCP endpoint: same origin,
/// and the endpoint's path is the resource's path or below it (a server
/// at `https://h/mcp` may be described as the resource `https://h`, as
/// root metadata does). A different origin is a mismatch the client MUST
/// refuse (RFC 9728 § 3.3, § 7.3): the token would be minted for another
/// server.
pub fn resource_matches(endpoint: &Url, resource: &str) -> bool {
    let Ok(resource) = Url::parse(resource) else {
        return false;
    };
    if resource.fragment().is_some() || origin_of(&resource) != origin_of(endpoint) {
        return false;
    }
    let base = resource.path().trim_end_matches('/');
    let path = endpoint.path();
    base.is_empty() || path == base || path.starts_with(&format!("{base}/"))
}

/// Fetches the Protected Resource Metadata of `endpoint`: from the
/// challenge's URL when given (and only there), else the well-known URLs
/// in order, and checks that it describes `endpoint`.
pub fn fetch_resource_metadata(
    http: &dyn HttpClient,
    endpoint: &Url,
    from_challenge: Option<&str>,
) -> Result<ResourceMetadata, OAuthError> {
    let urls = match from_challenge {
        Some(url) => vec![url.to_owned()],
        None => resource_metadata_urls(endpoint),
    };
    let mut tried = Vec::new();
    for url in &urls {
        let response = http.send(&HttpRequest::get_json(url))?;
        if response.status == 200 {
            let metadata = parse_resource_metadata(&response.body)?;
            if !resource_matches(endpoint, &metadata.resource) {
                return Err(OAuthError::ResourceMismatch {
                    endpoint: endpoint.to_string(),
                    resource: metadata.resource,
                });
            }
            return Ok(metadata);
        }
        tried.push(format!("{url} ({})", response.status));
    }
    Err(OAuthError::NoResourceMetadata(tried.join(", ")))
}

/// Fetches and validates the metadata of the authorization server
/// `issuer`, trying the well-known URLs in order; a document whose
/// `issuer` differs is refused, never used.
pub fn fetch_server_metadata(
    http: &dyn HttpClient,
    issuer: &str,
) -> Result<ServerMetadata, OAuthError> {
    let parsed =
        Url::parse(issuer).map_err(|e| OAuthError::Malformed(format!("issuer {issuer}: {e}")))?;
    if !secure_url(issuer) {
        return Err(OAuthError::Insecure(issuer.to_owned()));
    }
    let mut tried = Vec::new();
    for url in server_metadata_urls(&parsed) {
        let response = http.send(&HttpRequest::get_json(&url))?;
        if response.status == 200 {
            return parse_server_metadata(&response.body, issuer);
        }
        tried.push(format!("{url} ({})", response.status));
    }
    Err(OAuthError::NoServerMetadata(tried.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn resource_metadata_urls_path_first_then_root() {
        assert_eq!(
            resource_metadata_urls(&url("https://example.com/public/mcp")),
            [
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            resource_metadata_urls(&url("http://localhost:3000/")),
            ["http://localhost:3000/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn server_metadata_urls_in_the_pages_order() {
        assert_eq!(
            server_metadata_urls(&url("https://auth.example.com/tenant1")),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            server_metadata_urls(&url("https://auth.example.com")),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }

    const AS: &str = r#"{
        "issuer": "https://auth.example.com",
        "authorization_endpoint": "https://auth.example.com/authorize",
        "token_endpoint": "https://auth.example.com/token",
        "registration_endpoint": "https://auth.example.com/register",
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["plain", "S256"],
        "scopes_supported": ["mcp", "offline_access"],
        "authorization_response_iss_parameter_supported": true
    }"#;

    #[test]
    fn server_metadata_fields_and_defaults() {
        let m = parse_server_metadata(AS.as_bytes(), "https://auth.example.com").unwrap();
        assert_eq!(m.token_endpoint, "https://auth.example.com/token");
        assert_eq!(
            m.registration_endpoint.as_deref(),
            Some("https://auth.example.com/register")
        );
        assert!(m.iss_parameter_supported && m.pkce_s256);
        assert!(!m.client_id_metadata_document_supported);
        assert_eq!(m.token_endpoint_auth_methods, ["client_secret_basic"]);
        assert!(m.supports_scope("offline_access"));
        assert!(!m.supports_scope("mcp:write"));
    }

    #[test]
    fn issuer_must_be_identical() {
        for expected in [
            "https://auth.example.com/",
            "https://honest.example",
            "HTTPS://auth.example.com",
        ] {
            assert_eq!(
                parse_server_metadata(AS.as_bytes(), expected),
                Err(OAuthError::IssuerMismatch {
                    expected: expected.into(),
                    found: "https://auth.example.com".into()
                })
            );
        }
    }

    #[test]
    fn s256_read_from_the_methods() {
        let plain_only = r#"{"issuer":"https://a","authorization_endpoint":"https://a/x","token_endpoint":"https://a/t","code_challenge_methods_supported":["plain"]}"#;
        let absent = r#"{"issuer":"https://a","authorization_endpoint":"https://a/x","token_endpoint":"https://a/t"}"#;
        for body in [plain_only, absent] {
            assert!(
                !parse_server_metadata(body.as_bytes(), "https://a")
                    .unwrap()
                    .pkce_s256
            );
        }
    }

    #[test]
    fn https_or_loopback_only() {
        for ok in [
            "https://auth.example.com/token",
            "http://localhost:3000/callback",
            "http://LOCALHOST/x",
            "http://127.0.0.1:8080/",
            "http://127.9.9.9/",
            "http://[::1]:3000/cb",
        ] {
            assert!(secure_url(ok), "{ok}");
        }
        for bad in [
            "http://auth.example.com/token",
            "http://localhost.evil.com/",
            "http://10.0.0.1/",
            "ftp://localhost/",
            "not a url",
        ] {
            assert!(!secure_url(bad), "{bad}");
        }
        let body = r#"{"issuer":"https://a","authorization_endpoint":"https://a/x","token_endpoint":"http://a.example/t","code_challenge_methods_supported":["S256"]}"#;
        assert_eq!(
            parse_server_metadata(body.as_bytes(), "https://a"),
            Err(OAuthError::Insecure("http://a.example/t".into()))
        );
    }

    #[test]
    fn resource_metadata_document() {
        let m = parse_resource_metadata(
            br#"{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["a","b"]}"#,
        )
        .unwrap();
        assert_eq!(m.authorization_servers, ["https://auth.example.com"]);
        assert_eq!(m.scopes_supported.unwrap(), ["a", "b"]);
        let m = parse_resource_metadata(br#"{"resource":"https://x"}"#).unwrap();
        assert!(m.authorization_servers.is_empty() && m.scopes_supported.is_none());
        assert!(parse_resource_metadata(br#"{"authorization_servers":[]}"#).is_err());
    }

    #[test]
    fn resource_must_name_this_server() {
        let ep = url("http://localhost:4000/mcp");
        assert!(resource_matches(&ep, "http://localhost:4000/mcp"));
        assert!(resource_matches(&ep, "http://localhost:4000"));
        assert!(resource_matches(&ep, "http://localhost:4000/"));
        assert!(!resource_matches(&ep, "https://evil.example.com/mcp"));
        assert!(!resource_matches(&ep, "http://localhost:4001/mcp"));
        assert!(!resource_matches(&ep, "http://localhost:4000/mcp2"));
        assert!(!resource_matches(&ep, "http://localhost:4000/mcp/deeper"));
        assert!(!resource_matches(&ep, "http://localhost:4000/mcp#frag"));
        assert!(!resource_matches(&ep, "not a url"));
    }
}
