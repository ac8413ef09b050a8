//! Client registration (`basic/authorization/client-registration.mdx`):
//! pre-registered credentials, a Client ID Metadata Document URL when the
//! server accepts one, else Dynamic Client Registration (RFC 7591); and
//! how the client authenticates at the token endpoint
//! (`client_secret_basic`, `client_secret_post` or `none`).

use std::fmt;

use jsonwebtoken::{Algorithm, EncodingKey};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::discovery::ServerMetadata;
use crate::error::OAuthError;
use crate::http::{HttpClient, HttpRequest, Method};

/// How the client authenticates at the token endpoint (RFC 7591 § 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenAuth {
    /// HTTP Basic with the form-encoded id and secret (RFC 6749 § 2.3.1).
    ClientSecretBasic,
    /// `client_id` and `client_secret` in the form body.
    ClientSecretPost,
    /// A public client: `client_id` in the form body, no secret.
    None,
    /// A JWT signed with the client's private key (RFC 7523 § 2.2).
    PrivateKeyJwt,
}

impl TokenAuth {
    /// The RFC 7591 name.
    pub fn name(self) -> &'static str {
        match self {
            TokenAuth::ClientSecretBasic => "client_secret_basic",
            TokenAuth::ClientSecretPost => "client_secret_post",
            TokenAuth::None => "none",
            TokenAuth::PrivateKeyJwt => "private_key_jwt",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        match name {
            "client_secret_basic" => Some(TokenAuth::ClientSecretBasic),
            "client_secret_post" => Some(TokenAuth::ClientSecretPost),
            "none" => Some(TokenAuth::None),
            "private_key_jwt" => Some(TokenAuth::PrivateKeyJwt),
            _ => None,
        }
    }
}

/// The client's identity at one authorization server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientIdentity {
    /// The `client_id`.
    pub client_id: String,
    /// The secret, for a confidential client.
    pub client_secret: Option<String>,
    /// The key of `private_key_jwt`, for a client that has one.
    pub assertion_key: Option<AssertionKey>,
    /// How it authenticates at the token endpoint.
    pub auth: TokenAuth,
}

/// A private key the client signs its `private_key_jwt` assertions with.
/// It never prints (its `Debug` names the algorithm and a fingerprint).
#[derive(Clone)]
pub struct AssertionKey {
    key: EncodingKey,
    algorithm: Algorithm,
    fingerprint: [u8; 32],
}

impl AssertionKey {
    /// A key from its PEM (PKCS#8 for EC and Ed25519 keys, PKCS#1 or
    /// PKCS#8 for RSA) and the JWS algorithm name (`ES256`, `RS256`, …).
    pub fn from_pem(pem: &str, algorithm: &str) -> Result<Self, OAuthError> {
        let algorithm: Algorithm = algorithm
            .parse()
            .map_err(|_| OAuthError::Malformed(format!("unknown JWS algorithm {algorithm}")))?;
        let bytes = pem.as_bytes();
        let key = match algorithm {
            Algorithm::ES256 | Algorithm::ES384 => EncodingKey::from_ec_pem(bytes),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512 => EncodingKey::from_rsa_pem(bytes),
            Algorithm::EdDSA => EncodingKey::from_ed_pem(bytes),
            // HMAC is a shared secret, not a private key.
            Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => {
                return Err(OAuthError::Malformed(
                    "private_key_jwt needs an asymmetric algorithm".into(),
                ))
            }
        }
        .map_err(|e| OAuthError::Malformed(format!("private key: {e}")))?;
        Ok(AssertionKey {
            key,
            algorithm,
            fingerprint: Sha256::digest(bytes).into(),
        })
    }

    /// The JWS algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    pub(crate) fn encoding_key(&self) -> &EncodingKey {
        &self.key
    }
}

impl fmt::Debug for AssertionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AssertionKey({:?}, sha256 ", self.algorithm)?;
        for b in &self.fingerprint[..4] {
            write!(f, "{b:02x}")?;
        }
        f.write_str("…)")
    }
}

impl PartialEq for AssertionKey {
    fn eq(&self, other: &Self) -> bool {
        self.algorithm == other.algorithm && self.fingerprint == other.fingerprint
    }
}

impl Eq for AssertionKey {}

/// Credentials registered out of band (§ Pre-registration), bound to the
/// authorization server that issued them (§ Authorization Server Binding).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreRegistered {
    /// The issuer the credentials belong to; `None` binds them to the
    /// first authorization server the client meets, and to no other.
    pub issuer: Option<String>,
    /// The `client_id`.
    pub client_id: String,
    /// The secret, if the client is confidential.
    pub client_secret: Option<String>,
    /// A private key registered with the server for `private_key_jwt`.
    pub assertion_key: Option<AssertionKey>,
}

/// What the client says about itself when registering, and its redirect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientMetadata {
    /// `client_name`.
    pub client_name: String,
    /// The redirect URI of every authorization request.
    pub redirect_uri: String,
    /// The Client ID Metadata Document URL (HTTPS, with a path), used as
    /// `client_id` where the server advertises support.
    pub metadata_document_url: Option<String>,
    /// `application_type` for dynamic registration: `native` for
    /// desktop, CLI and localhost clients, `web` for remote ones
    /// (§ Application Type and Redirect URI Constraints: MUST be sent).
    pub application_type: String,
}

/// The token endpoint authentication a client with (or without) a secret
/// uses at a server that lists `supported`: the strongest the server
/// accepts.
pub fn choose_auth(supported: &[String], has_secret: bool) -> Option<TokenAuth> {
    let offered = |m: TokenAuth| supported.iter().any(|s| s == m.name());
    if has_secret {
        [
            TokenAuth::ClientSecretBasic,
            TokenAuth::ClientSecretPost,
            TokenAuth::None,
        ]
        .into_iter()
        .find(|m| offered(*m))
    } else {
        offered(TokenAuth::None).then_some(TokenAuth::None)
    }
}

/// The RFC 7591 registration request body. A public client (`none`) is
/// asked for when the server accepts it, since a native client cannot
/// keep a secret; otherwise the strongest secret-based method offered.
pub fn registration_request(client: &ClientMetadata, server: &ServerMetadata) -> Value {
    let methods = &server.token_endpoint_auth_methods;
    let auth = if methods.iter().any(|m| m == "none") {
        TokenAuth::None
    } else {
        choose_auth(methods, true).unwrap_or(TokenAuth::ClientSecretBasic)
    };
    // `refresh_token` in `grant_types` (§ Refresh Tokens: SHOULD), where
    // the server may grant it.
    let mut grant_types = vec!["authorization_code"];
    if server.may_refresh() {
        grant_types.push("refresh_token");
    }
    json!({
        "client_name": client.client_name,
        "redirect_uris": [client.redirect_uri],
        "grant_types": grant_types,
        "response_types": ["code"],
        "token_endpoint_auth_method": auth.name(),
        "application_type": client.application_type,
    })
}

/// Reads an RFC 7591 § 3.2.1 registration response. The server's
/// `token_endpoint_auth_method` is authoritative; without one, a secret
/// means the strongest method the server lists, no secret means `none`.
pub fn parse_registration(
    body: &[u8],
    server: &ServerMetadata,
) -> Result<ClientIdentity, OAuthError> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| OAuthError::Registration(format!("response is not JSON: {e}")))?;
    let client_id = v
        .get("client_id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| OAuthError::Registration("response has no client_id".into()))?
        .to_owned();
    let client_secret = v
        .get("client_secret")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let auth = match v.get("token_endpoint_auth_method").and_then(Value::as_str) {
        Some(name) => TokenAuth::from_name(name).ok_or_else(|| {
            OAuthError::Registration(format!("unsupported token_endpoint_auth_method {name}"))
        })?,
        None => choose_auth(&server.token_endpoint_auth_methods, client_secret.is_some())
            .unwrap_or(TokenAuth::None),
    };
    if auth != TokenAuth::None && client_secret.is_none() {
        return Err(OAuthError::Registration(format!(
            "{} needs a client_secret and none was issued",
            auth.name()
        )));
    }
    if auth == TokenAuth::PrivateKeyJwt {
        return Err(OAuthError::Registration(
            "private_key_jwt was not asked for and the client has no registered key".into(),
        ));
    }
    Ok(ClientIdentity {
        client_id,
        client_secret,
        assertion_key: None,
        auth,
    })
}

/// Registers at `server`'s registration endpoint.
pub fn register(
    http: &dyn HttpClient,
    client: &ClientMetadata,
    server: &ServerMetadata,
) -> Result<ClientIdentity, OAuthError> {
    let endpoint = server.registration_endpoint.as_deref().ok_or_else(|| {
        OAuthError::NoRegistration(format!(
            "{} offers no registration endpoint, no Client ID Metadata Document support, and no credentials are pre-registered for it",
            server.issuer
        ))
    })?;
    let body = serde_json::to_vec(&registration_request(client, server))
        .map_err(|e| OAuthError::Registration(e.to_string()))?;
    let response = http.send(&HttpRequest {
        method: Method::Post,
        url: endpoint.to_owned(),
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            ("Accept".into(), "application/json".into()),
        ],
        body,
    })?;
    if !(200..300).contains(&response.status) {
        return Err(OAuthError::Registration(format!(
            "{endpoint} answered {}: {}",
            response.status,
            String::from_utf8_lossy(&response.body)
        )));
    }
    parse_registration(&response.body, server)
}

/// The identity to use at `server`: pre-registered credentials bound to
/// it, else the metadata document URL if the server accepts URL client
/// ids, else `None` (the caller registers dynamically).
pub fn static_identity(
    pre: Option<&PreRegistered>,
    bound_issuer: Option<&str>,
    client: &ClientMetadata,
    server: &ServerMetadata,
) -> Option<ClientIdentity> {
    if let Some(pre) = pre {
        let issuer = pre.issuer.as_deref().or(bound_issuer);
        if issuer.is_none_or(|i| i == server.issuer) {
            let has_secret = pre.client_secret.is_some();
            let key_accepted = pre.assertion_key.is_some()
                && server
                    .token_endpoint_auth_methods
                    .iter()
                    .any(|m| m == "private_key_jwt");
            let auth = if key_accepted {
                TokenAuth::PrivateKeyJwt
            } else {
                choose_auth(&server.token_endpoint_auth_methods, has_secret).unwrap_or(
                    if has_secret {
                        TokenAuth::ClientSecretBasic
                    } else {
                        TokenAuth::None
                    },
                )
            };
            return Some(ClientIdentity {
                client_id: pre.client_id.clone(),
                client_secret: pre.client_secret.clone(),
                assertion_key: pre.assertion_key.clone(),
                auth,
            });
        }
    }
    match &client.metadata_document_url {
        Some(url) if server.client_id_metadata_document_supported => Some(ClientIdentity {
            client_id: url.clone(),
            client_secret: None,
            assertion_key: None,
            auth: TokenAuth::None,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::parse_server_metadata;

    fn server(extra: &str) -> ServerMetadata {
        let body = format!(
            r#"{{"issuer":"https://as","authorization_endpoint":"https://as/a","token_endpoint":"https://as/t","registration_endpoint":"https://as/r","code_challenge_methods_supported":["S256"]{extra}}}"#
        );
        parse_server_metadata(body.as_bytes(), "https://as").unwrap()
    }

    fn client(cimd: Option<&str>) -> ClientMetadata {
        ClientMetadata {
            client_name: "snodo".into(),
            redirect_uri: "http://localhost:3000/callback".into(),
            metadata_document_url: cimd.map(str::to_owned),
            application_type: "native".into(),
        }
    }

    #[test]
    fn registration_body_is_native_public_with_refresh() {
        let body = registration_request(
            &client(None),
            &server(r#","token_endpoint_auth_methods_supported":["client_secret_post","none"]"#),
        );
        assert_eq!(
            body,
            serde_json::json!({
                "client_name": "snodo",
                "redirect_uris": ["http://localhost:3000/callback"],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
                "application_type": "native"
            })
        );
        let body = registration_request(&client(None), &server(""));
        assert_eq!(body["token_endpoint_auth_method"], "client_secret_basic");
        // A server listing its grant types without refresh_token is not
        // asked for it (oidc-provider refuses the registration otherwise).
        let body = registration_request(
            &client(None),
            &server(r#","grant_types_supported":["authorization_code","implicit"]"#),
        );
        assert_eq!(
            body["grant_types"],
            serde_json::json!(["authorization_code"])
        );
    }

    #[test]
    fn the_servers_method_wins() {
        let s = server(r#","token_endpoint_auth_methods_supported":["client_secret_post"]"#);
        let id = parse_registration(
            br#"{"client_id":"c1","client_secret":"s1","token_endpoint_auth_method":"client_secret_basic"}"#,
            &s,
        )
        .unwrap();
        assert_eq!(id.auth, TokenAuth::ClientSecretBasic);
        let id = parse_registration(br#"{"client_id":"c1","client_secret":"s1"}"#, &s).unwrap();
        assert_eq!(id.auth, TokenAuth::ClientSecretPost);
        let id = parse_registration(br#"{"client_id":"c1"}"#, &s).unwrap();
        assert_eq!(id.auth, TokenAuth::None);
        assert!(parse_registration(
            br#"{"client_id":"c1","token_endpoint_auth_method":"client_secret_post"}"#,
            &s
        )
        .is_err());
        assert!(parse_registration(br#"{"client_secret":"s"}"#, &s).is_err());
        assert!(parse_registration(
            br#"{"client_id":"c","token_endpoint_auth_method":"private_key_jwt"}"#,
            &s
        )
        .is_err());
    }

    #[test]
    fn pre_registered_only_at_its_issuer() {
        let pre = PreRegistered {
            issuer: None,
            client_id: "pre".into(),
            client_secret: Some("sec".into()),
            assertion_key: None,
        };
        let s = server(r#","token_endpoint_auth_methods_supported":["client_secret_basic"]"#);
        let id = static_identity(Some(&pre), None, &client(None), &s).unwrap();
        assert_eq!(
            (id.client_id.as_str(), id.auth),
            ("pre", TokenAuth::ClientSecretBasic)
        );
        assert_eq!(
            static_identity(Some(&pre), Some("https://other"), &client(None), &s),
            None
        );
        let bound = PreRegistered {
            issuer: Some("https://other".into()),
            ..pre
        };
        assert_eq!(static_identity(Some(&bound), None, &client(None), &s), None);
    }

    #[test]
    fn a_registered_key_where_the_server_takes_private_key_jwt() {
        // The P-256 test key of `flow`'s tests.
        let pem = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgyoLeWhMiEDhvTWLv
cDZomrNcc5n6lGQzq0wpCuRDMd6hRANCAAT6SGi35VmrJb1nzxnwncbGVpLTTYLN
j2EX89PVWnVOVkKI9nJOK/xfjzfR9/ApwXWcBOKbUEhW0PUPV0oQNt+k
-----END PRIVATE KEY-----
";
        let pre = PreRegistered {
            issuer: None,
            client_id: "svc".into(),
            client_secret: Some("sec".into()),
            assertion_key: Some(AssertionKey::from_pem(pem, "ES256").unwrap()),
        };
        let jwt = server(
            r#","token_endpoint_auth_methods_supported":["private_key_jwt","client_secret_basic"]"#,
        );
        let id = static_identity(Some(&pre), None, &client(None), &jwt).unwrap();
        assert_eq!(id.auth, TokenAuth::PrivateKeyJwt);
        assert_eq!(id.assertion_key, pre.assertion_key);
        let basic = server(r#","token_endpoint_auth_methods_supported":["client_secret_basic"]"#);
        let id = static_identity(Some(&pre), None, &client(None), &basic).unwrap();
        assert_eq!(id.auth, TokenAuth::ClientSecretBasic);
    }

    #[test]
    fn metadata_document_url_only_where_supported() {
        let cimd = Some("https://client.example/meta.json");
        assert_eq!(
            static_identity(None, None, &client(cimd), &server("")),
            None
        );
        let s = server(r#","client_id_metadata_document_supported":true"#);
        let id = static_identity(None, None, &client(cimd), &s).unwrap();
        assert_eq!(id.client_id, "https://client.example/meta.json");
        assert_eq!(id.auth, TokenAuth::None);
        assert_eq!(static_identity(None, None, &client(None), &s), None);
    }
}
