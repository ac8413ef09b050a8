//! The authorization code grant with PKCE (OAuth 2.1 § 4.1) as MCP
//! profiles it (`basic/authorization/index.mdx` § Authorization Flow
//! Steps): the authorization URL with `resource` (RFC 8707) and the
//! selected scopes, the validation of the redirect (`state`, and `iss`
//! per § Authorization Response Validation), and the token requests
//! (code exchange and refresh, with the client's authentication).

use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde_json::Value;
use url::form_urlencoded;
use url::Url;

use crate::discovery::ServerMetadata;
use crate::error::OAuthError;
use crate::http::{HttpRequest, HttpResponse, Method};
use crate::pkce::{random_token, Pkce};
use crate::registration::{ClientIdentity, TokenAuth};

/// What the client keeps between sending the user agent away and the
/// redirect coming back: the PKCE verifier, the `state`, and the issuer
/// recorded from the validated metadata (the same per-request record the
/// page asks for).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingAuthorization {
    /// The full authorization URL the user agent opens.
    pub url: String,
    /// The `state` sent.
    pub state: String,
    /// The PKCE pair.
    pub pkce: Pkce,
    /// The recorded issuer.
    pub issuer: String,
    /// The server advertised `authorization_response_iss_parameter_supported`.
    pub iss_required: bool,
    /// The redirect URI sent (repeated at the token endpoint).
    pub redirect_uri: String,
}

/// Builds the authorization request (`response_type=code`, PKCE S256,
/// `state`, `resource`, and `scope` only when there are scopes: an empty
/// selection omits the parameter). A server that does not advertise
/// `S256` in `code_challenge_methods_supported` is refused (`basic/
/// authorization/security-considerations.mdx` § Authorization Code
/// Protection: the client MUST verify PKCE support and refuse to proceed
/// without it).
pub fn authorization_request(
    server: &ServerMetadata,
    client: &ClientIdentity,
    redirect_uri: &str,
    scopes: &[String],
    resource: &str,
) -> Result<PendingAuthorization, OAuthError> {
    if !server.pkce_s256 {
        return Err(OAuthError::PkceUnsupported);
    }
    let pkce = Pkce::generate()?;
    let state = random_token()?;
    let mut url = Url::parse(&server.authorization_endpoint).map_err(|e| {
        OAuthError::Malformed(format!(
            "authorization_endpoint {}: {e}",
            server.authorization_endpoint
        ))
    })?;
    {
        let mut q = url.query_pairs_mut();
        q.append_pair("response_type", "code")
            .append_pair("client_id", &client.client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("state", &state)
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("resource", resource);
        if !scopes.is_empty() {
            q.append_pair("scope", &scopes.join(" "));
        }
    }
    Ok(PendingAuthorization {
        url: url.into(),
        state,
        pkce,
        issuer: server.issuer.clone(),
        iss_required: server.iss_parameter_supported,
        redirect_uri: redirect_uri.to_owned(),
    })
}

/// Validates the redirect the user agent came back with and returns the
/// code. `iss` is checked first, before `error` is looked at (on a
/// mismatch the client MUST NOT act on the error): present, it must equal
/// the recorded issuer by simple string comparison, with no
/// normalization; absent, it is refused only when the server advertised
/// it (the page's table, RFC 9207 § 2.4). Then `state` must be the one
/// sent, and a `code` must be there.
pub fn authorization_code(
    pending: &PendingAuthorization,
    redirect: &str,
) -> Result<String, OAuthError> {
    let url = Url::parse(redirect)
        .map_err(|e| OAuthError::Authorization(format!("redirect {redirect}: {e}")))?;
    let all = |name: &str| -> Vec<String> {
        url.query_pairs()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
            .collect()
    };
    let iss = all("iss");
    match (iss.as_slice(), pending.iss_required) {
        ([], true) => {
            return Err(OAuthError::IssParameter(
                "the server advertises iss but the response has none".into(),
            ))
        }
        ([], false) => {}
        ([one], _) if *one == pending.issuer => {}
        ([one], _) => {
            return Err(OAuthError::IssParameter(format!(
                "iss {one} is not the recorded issuer {}",
                pending.issuer
            )))
        }
        (_, _) => {
            return Err(OAuthError::IssParameter(
                "iss appears more than once".into(),
            ))
        }
    }
    if all("state") != [pending.state.as_str()] {
        return Err(OAuthError::Authorization(
            "the state parameter does not match the one sent".into(),
        ));
    }
    if let Some(error) = all("error").first() {
        let description = all("error_description")
            .into_iter()
            .next()
            .unwrap_or_default();
        return Err(OAuthError::Authorization(
            format!("{error} {description}").trim().to_owned(),
        ));
    }
    match all("code").as_slice() {
        [code] if !code.is_empty() => Ok(code.clone()),
        _ => Err(OAuthError::Authorization(
            "the redirect carries no single code".into(),
        )),
    }
}

/// A grant presented at the token endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant<'a> {
    /// The code of an authorization response.
    AuthorizationCode {
        /// The code.
        code: &'a str,
        /// The PKCE verifier of the same request.
        verifier: &'a str,
        /// The redirect URI of the same request.
        redirect_uri: &'a str,
    },
    /// A refresh token (OAuth 2.1 § 4.3).
    RefreshToken(&'a str),
    /// The client's own credentials (OAuth 2.1 § 4.2), for a client acting
    /// on its own behalf; `scope` when any were selected.
    ClientCredentials {
        /// The space-separated scopes, if any.
        scope: Option<&'a str>,
    },
    /// A JWT bearer assertion (RFC 7523 § 2.1).
    JwtBearer {
        /// The assertion.
        assertion: &'a str,
        /// The space-separated scopes, if any.
        scope: Option<&'a str>,
    },
}

/// The token request: the grant, `resource` (RFC 8707 § 2.2: in token
/// requests too), and the client's authentication. `now` (seconds since
/// the Unix epoch) dates a `private_key_jwt` assertion, which is the only
/// thing that can fail here.
pub fn token_request(
    server: &ServerMetadata,
    client: &ClientIdentity,
    grant: &Grant<'_>,
    resource: &str,
    now: u64,
) -> Result<HttpRequest, OAuthError> {
    let mut form = form_urlencoded::Serializer::new(String::new());
    match grant {
        Grant::AuthorizationCode {
            code,
            verifier,
            redirect_uri,
        } => {
            form.append_pair("grant_type", "authorization_code")
                .append_pair("code", code)
                .append_pair("code_verifier", verifier)
                .append_pair("redirect_uri", redirect_uri);
        }
        Grant::RefreshToken(token) => {
            form.append_pair("grant_type", "refresh_token")
                .append_pair("refresh_token", token);
        }
        Grant::ClientCredentials { scope } => {
            form.append_pair("grant_type", "client_credentials");
            if let Some(scope) = scope {
                form.append_pair("scope", scope);
            }
        }
        Grant::JwtBearer { assertion, scope } => {
            form.append_pair("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer")
                .append_pair("assertion", assertion);
            if let Some(scope) = scope {
                form.append_pair("scope", scope);
            }
        }
    }
    form.append_pair("resource", resource);
    let mut headers = vec![
        (
            "Content-Type".to_owned(),
            "application/x-www-form-urlencoded".to_owned(),
        ),
        ("Accept".to_owned(), "application/json".to_owned()),
    ];
    let secret = client.client_secret.as_deref().unwrap_or("");
    match client.auth {
        TokenAuth::ClientSecretBasic => {
            // RFC 6749 § 2.3.1: each part form-encoded, then Basic.
            let user: String =
                form_urlencoded::byte_serialize(client.client_id.as_bytes()).collect();
            let pass: String = form_urlencoded::byte_serialize(secret.as_bytes()).collect();
            headers.push((
                "Authorization".to_owned(),
                format!("Basic {}", STANDARD.encode(format!("{user}:{pass}"))),
            ));
        }
        TokenAuth::ClientSecretPost => {
            form.append_pair("client_id", &client.client_id)
                .append_pair("client_secret", secret);
        }
        TokenAuth::None => {
            form.append_pair("client_id", &client.client_id);
        }
        TokenAuth::PrivateKeyJwt => {
            let assertion = client_assertion(client, &server.issuer, now)?;
            form.append_pair(
                "client_assertion_type",
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            )
            .append_pair("client_assertion", &assertion);
        }
    }
    Ok(HttpRequest {
        method: Method::Post,
        url: server.token_endpoint.clone(),
        headers,
        body: form.finish().into_bytes(),
    })
}

/// How long a client assertion is valid: long enough for one request.
pub const ASSERTION_LIFETIME_SECS: u64 = 300;

/// A `private_key_jwt` client assertion (RFC 7523 § 3): `iss` and `sub`
/// the client id, `aud` the authorization server's issuer (the value
/// RFC 7523's successor draft makes the only one accepted, and which every
/// server accepts), a short `exp`, `iat`, and a random `jti`.
pub fn client_assertion(
    client: &ClientIdentity,
    issuer: &str,
    now: u64,
) -> Result<String, OAuthError> {
    let key = client
        .assertion_key
        .as_ref()
        .ok_or_else(|| OAuthError::Token("private_key_jwt without a private key".into()))?;
    let claims = serde_json::json!({
        "iss": client.client_id,
        "sub": client.client_id,
        "aud": issuer,
        "iat": now,
        "exp": now + ASSERTION_LIFETIME_SECS,
        "jti": random_token()?,
    });
    jsonwebtoken::encode(
        &jsonwebtoken::Header::new(key.algorithm()),
        &claims,
        key.encoding_key(),
    )
    .map_err(|e| OAuthError::Token(format!("signing the client assertion: {e}")))
}

/// Seconds since the Unix epoch, for [`token_request`].
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The tokens of a successful token response (OAuth 2.1 § 3.2.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tokens {
    /// The access token.
    pub access_token: String,
    /// A refresh token, if the server issued one.
    pub refresh_token: Option<String>,
    /// When the access token expires, if the server said.
    pub expires_at: Option<Instant>,
    /// The granted scope, if the server said.
    pub scope: Option<String>,
}

/// Reads a token response: 200 with `access_token` and a `Bearer`
/// `token_type`, or the error the server gave.
pub fn parse_token_response(response: &HttpResponse, now: Instant) -> Result<Tokens, OAuthError> {
    let v: Value = serde_json::from_slice(&response.body).map_err(|_| {
        OAuthError::Token(format!(
            "status {}, body is not JSON: {}",
            response.status,
            String::from_utf8_lossy(&response.body)
        ))
    })?;
    if response.status != 200 {
        let error = v.get("error").and_then(Value::as_str).unwrap_or("unknown");
        let description = v
            .get("error_description")
            .and_then(Value::as_str)
            .unwrap_or("");
        return Err(OAuthError::Token(format!(
            "status {}: {error} {description}",
            response.status
        )));
    }
    let access_token = v
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| OAuthError::Token("the response has no access_token".into()))?
        .to_owned();
    let token_type = v.get("token_type").and_then(Value::as_str).unwrap_or("");
    if !token_type.eq_ignore_ascii_case("bearer") {
        return Err(OAuthError::Token(format!(
            "token_type {token_type:?} is not Bearer"
        )));
    }
    Ok(Tokens {
        access_token,
        refresh_token: v
            .get("refresh_token")
            .and_then(Value::as_str)
            .map(str::to_owned),
        expires_at: v
            .get("expires_in")
            .and_then(Value::as_u64)
            .map(|s| now + Duration::from_secs(s)),
        scope: v.get("scope").and_then(Value::as_str).map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::parse_server_metadata;

    fn server(iss: bool) -> ServerMetadata {
        let body = format!(
            r#"{{"issuer":"http://localhost:4001","authorization_endpoint":"http://localhost:4001/authorize?tenant=a","token_endpoint":"http://localhost:4001/token","code_challenge_methods_supported":["S256"],"authorization_response_iss_parameter_supported":{iss}}}"#
        );
        parse_server_metadata(body.as_bytes(), "http://localhost:4001").unwrap()
    }

    fn public() -> ClientIdentity {
        ClientIdentity {
            client_id: "c 1".into(),
            client_secret: None,
            assertion_key: None,
            auth: TokenAuth::None,
        }
    }

    fn pending(iss: bool) -> PendingAuthorization {
        authorization_request(
            &server(iss),
            &public(),
            "http://localhost:3000/callback",
            &[],
            "http://localhost:4000/mcp",
        )
        .unwrap()
    }

    #[test]
    fn the_authorization_url() {
        let scopes = vec!["mcp:basic".to_owned(), "offline_access".to_owned()];
        let p = authorization_request(
            &server(true),
            &public(),
            "http://localhost:3000/callback",
            &scopes,
            "http://localhost:4000/mcp",
        )
        .unwrap();
        let expected = format!(
            "http://localhost:4001/authorize?tenant=a&response_type=code&client_id=c+1&redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fcallback&state={}&code_challenge={}&code_challenge_method=S256&resource=http%3A%2F%2Flocalhost%3A4000%2Fmcp&scope=mcp%3Abasic+offline_access",
            p.state, p.pkce.challenge
        );
        assert_eq!(p.url, expected);
        assert_eq!(p.issuer, "http://localhost:4001");
        assert!(!pending(true).url.contains("scope="));
    }

    #[test]
    fn no_s256_no_authorization_request() {
        let mut s = server(false);
        s.pkce_s256 = false;
        assert_eq!(
            authorization_request(&s, &public(), "http://localhost:3000/callback", &[], "r"),
            Err(OAuthError::PkceUnsupported)
        );
    }

    #[test]
    fn client_credentials_request() {
        let client = ClientIdentity {
            client_id: "svc".into(),
            client_secret: Some("pw".into()),
            assertion_key: None,
            auth: TokenAuth::ClientSecretBasic,
        };
        let r = token_request(
            &server(false),
            &client,
            &Grant::ClientCredentials {
                scope: Some("mcp mcp:text"),
            },
            "http://localhost:4000/mcp",
            0,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(r.body.clone()).unwrap(),
            "grant_type=client_credentials&scope=mcp+mcp%3Atext&resource=http%3A%2F%2Flocalhost%3A4000%2Fmcp"
        );
        // base64("svc:pw")
        assert_eq!(r.header("authorization"), Some("Basic c3ZjOnB3"));
    }

    /// A P-256 key pair made with `openssl genpkey -algorithm EC -pkeyopt
    /// ec_paramgen_curve:P-256` for this test.
    const PRIVATE: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgyoLeWhMiEDhvTWLv
cDZomrNcc5n6lGQzq0wpCuRDMd6hRANCAAT6SGi35VmrJb1nzxnwncbGVpLTTYLN
j2EX89PVWnVOVkKI9nJOK/xfjzfR9/ApwXWcBOKbUEhW0PUPV0oQNt+k
-----END PRIVATE KEY-----
";
    const PUBLIC: &str = "-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE+khot+VZqyW9Z88Z8J3GxlaS002C
zY9hF/PT1Vp1TlZCiPZyTiv8X4830ffwKcF1nATim1BIVtD1D1dKEDbfpA==
-----END PUBLIC KEY-----
";

    #[test]
    fn private_key_jwt_assertion() {
        use crate::registration::AssertionKey;
        let client = ClientIdentity {
            client_id: "svc".into(),
            client_secret: None,
            assertion_key: Some(AssertionKey::from_pem(PRIVATE, "ES256").unwrap()),
            auth: TokenAuth::PrivateKeyJwt,
        };
        let now = unix_now();
        let r = token_request(
            &server(false),
            &client,
            &Grant::ClientCredentials { scope: None },
            "http://localhost:4000/mcp",
            now,
        )
        .unwrap();
        assert!(r.header("authorization").is_none());
        let form: std::collections::HashMap<String, String> =
            form_urlencoded::parse(&r.body).into_owned().collect();
        assert_eq!(
            form["client_assertion_type"],
            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        );
        assert!(!form.contains_key("client_id"));
        let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
        validation.set_audience(&["http://localhost:4001"]);
        validation.set_issuer(&["svc"]);
        let decoded = jsonwebtoken::decode::<Value>(
            &form["client_assertion"],
            &jsonwebtoken::DecodingKey::from_ec_pem(PUBLIC.as_bytes()).unwrap(),
            &validation,
        )
        .unwrap();
        assert_eq!(decoded.claims["sub"], "svc");
        assert_eq!(
            decoded.claims["exp"].as_u64(),
            Some(now + ASSERTION_LIFETIME_SECS)
        );
        assert_eq!(decoded.claims["jti"].as_str().map(str::len), Some(43));

        // No key: no request.
        let keyless = ClientIdentity {
            assertion_key: None,
            ..client
        };
        assert!(token_request(
            &server(false),
            &keyless,
            &Grant::RefreshToken("r"),
            "r",
            now
        )
        .is_err());
        assert!(AssertionKey::from_pem(PRIVATE, "HS256").is_err());
        assert!(AssertionKey::from_pem("not a key", "ES256").is_err());
        // The key never prints.
        let shown = format!("{:?}", AssertionKey::from_pem(PRIVATE, "ES256").unwrap());
        assert!(shown.starts_with("AssertionKey(ES256, sha256 ") && !shown.contains("MIG"));
    }

    #[test]
    fn iss_table_of_the_page() {
        let ok = |p: &PendingAuthorization, extra: &str| {
            authorization_code(
                p,
                &format!(
                    "http://localhost:3000/callback?code=abc&state={}{extra}",
                    p.state
                ),
            )
        };
        let p = pending(true);
        assert_eq!(
            ok(&p, "&iss=http%3A%2F%2Flocalhost%3A4001"),
            Ok("abc".into())
        );
        assert!(matches!(ok(&p, ""), Err(OAuthError::IssParameter(_))));
        assert!(matches!(
            ok(&p, "&iss=http%3A%2F%2Flocalhost%3A4001%2F"),
            Err(OAuthError::IssParameter(_))
        ));
        assert!(matches!(
            ok(&p, "&iss=HTTP%3A%2F%2Flocalhost%3A4001"),
            Err(OAuthError::IssParameter(_))
        ));
        let p = pending(false);
        assert_eq!(ok(&p, ""), Ok("abc".into()));
        assert_eq!(
            ok(&p, "&iss=http%3A%2F%2Flocalhost%3A4001"),
            Ok("abc".into())
        );
        assert!(matches!(
            ok(&p, "&iss=https%3A%2F%2Fevil.example.com"),
            Err(OAuthError::IssParameter(_))
        ));
        assert!(matches!(
            ok(
                &p,
                "&iss=http%3A%2F%2Flocalhost%3A4001&iss=http%3A%2F%2Flocalhost%3A4001"
            ),
            Err(OAuthError::IssParameter(_))
        ));
    }

    #[test]
    fn state_error_and_code() {
        let p = pending(false);
        let r = |q: &str| authorization_code(&p, &format!("http://localhost:3000/callback?{q}"));
        assert!(r("code=abc&state=other").is_err());
        assert!(r("code=abc").is_err());
        assert_eq!(
            r(&format!(
                "error=access_denied&error_description=no&state={}",
                p.state
            )),
            Err(OAuthError::Authorization("access_denied no".into()))
        );
        assert!(r(&format!("state={}", p.state)).is_err());
        assert!(r(&format!("code=&state={}", p.state)).is_err());
        // A mismatched iss hides the error: it is not acted on.
        let e = r(&format!(
            "error=access_denied&state={}&iss=https%3A%2F%2Fevil",
            p.state
        ));
        assert!(matches!(e, Err(OAuthError::IssParameter(_))));
    }

    #[test]
    fn token_requests_by_auth_method() {
        let s = server(false);
        let grant = Grant::AuthorizationCode {
            code: "the code",
            verifier: "v",
            redirect_uri: "http://localhost:3000/callback",
        };
        let mut client = ClientIdentity {
            client_id: "id:1".into(),
            client_secret: Some("s&2".into()),
            assertion_key: None,
            auth: TokenAuth::ClientSecretBasic,
        };
        let r = token_request(&s, &client, &grant, "http://localhost:4000/mcp", 0).unwrap();
        assert_eq!(r.url, "http://localhost:4001/token");
        assert_eq!(
            String::from_utf8(r.body).unwrap(),
            "grant_type=authorization_code&code=the+code&code_verifier=v&redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fcallback&resource=http%3A%2F%2Flocalhost%3A4000%2Fmcp"
        );
        // base64("id%3A1:s%262")
        assert_eq!(
            r.headers[2],
            ("Authorization".into(), "Basic aWQlM0ExOnMlMjYy".into())
        );

        client.auth = TokenAuth::ClientSecretPost;
        let r = token_request(
            &s,
            &client,
            &Grant::RefreshToken("rt"),
            "http://localhost:4000/mcp",
            0,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(r.body.clone()).unwrap(),
            "grant_type=refresh_token&refresh_token=rt&resource=http%3A%2F%2Flocalhost%3A4000%2Fmcp&client_id=id%3A1&client_secret=s%262"
        );
        assert!(r.header("authorization").is_none());

        let r = token_request(&s, &public(), &Grant::RefreshToken("rt"), "r", 0).unwrap();
        assert!(String::from_utf8(r.body.clone())
            .unwrap()
            .ends_with("&client_id=c+1"));
        assert!(r.header("authorization").is_none());
    }

    #[test]
    fn token_responses() {
        let now = Instant::now();
        let resp = |status, body: &str| HttpResponse {
            status,
            headers: vec![],
            body: body.as_bytes().to_vec(),
        };
        let t = parse_token_response(
            &resp(200, r#"{"access_token":"at","token_type":"bearer","expires_in":60,"refresh_token":"rt","scope":"a b"}"#),
            now,
        )
        .unwrap();
        assert_eq!(t.access_token, "at");
        assert_eq!(t.refresh_token.as_deref(), Some("rt"));
        assert_eq!(t.expires_at, Some(now + Duration::from_secs(60)));
        assert_eq!(t.scope.as_deref(), Some("a b"));
        assert!(parse_token_response(
            &resp(200, r#"{"access_token":"at","token_type":"DPoP"}"#),
            now
        )
        .is_err());
        assert!(parse_token_response(&resp(200, r#"{"token_type":"Bearer"}"#), now).is_err());
        assert_eq!(
            parse_token_response(
                &resp(
                    400,
                    r#"{"error":"invalid_grant","error_description":"expired"}"#
                ),
                now
            ),
            Err(OAuthError::Token(
                "status 400: invalid_grant expired".into()
            ))
        );
        assert!(parse_token_response(&resp(502, "<html>"), now).is_err());
    }
}
