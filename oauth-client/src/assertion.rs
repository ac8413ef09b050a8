//! Where a JWT-bearer grant's assertion (RFC 7523 § 2.1) comes from, for a
//! client whose authority is not a user at this authorization server but
//! an identity from elsewhere:
//!
//! - [`WorkloadToken`]: a token the platform gives the workload (workload
//!   identity federation, the `io.modelcontextprotocol/auth/wif`
//!   extension);
//! - [`IdJagExchange`]: an Identity Assertion JWT Authorization Grant
//!   obtained from the enterprise identity provider by token exchange
//!   (RFC 8693) of the user's ID token (the
//!   `io.modelcontextprotocol/enterprise-managed-authorization` extension).

use std::fmt;

use serde_json::Value;
use url::form_urlencoded;

use crate::error::OAuthError;
use crate::http::{HttpClient, HttpRequest, Method};

/// Produces the assertion of a JWT-bearer grant at `issuer` for the
/// protected resource `resource`.
pub trait AssertionSource: Send + Sync + fmt::Debug {
    /// The assertion (a JWT, compact serialization).
    fn assertion(
        &self,
        http: &dyn HttpClient,
        issuer: &str,
        resource: &str,
    ) -> Result<String, OAuthError>;
}

/// A token the platform issued to the workload, used as it is.
pub struct WorkloadToken(pub String);

impl fmt::Debug for WorkloadToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WorkloadToken(…)")
    }
}

impl AssertionSource for WorkloadToken {
    fn assertion(&self, _: &dyn HttpClient, _: &str, _: &str) -> Result<String, OAuthError> {
        Ok(self.0.clone())
    }
}

/// Token exchange at the identity provider: the user's ID token for an
/// ID-JAG whose audience is the authorization server and whose resource
/// is the MCP server.
pub struct IdJagExchange {
    /// The identity provider's token endpoint.
    pub token_endpoint: String,
    /// The client's id at the identity provider.
    pub client_id: String,
    /// The user's ID token from the identity provider.
    pub id_token: String,
}

impl fmt::Debug for IdJagExchange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IdJagExchange")
            .field("token_endpoint", &self.token_endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

/// RFC 8693 § 3 token type of an ID-JAG.
pub const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

impl IdJagExchange {
    /// The token exchange request.
    pub fn request(&self, issuer: &str, resource: &str) -> HttpRequest {
        let body = form_urlencoded::Serializer::new(String::new())
            .append_pair(
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            )
            .append_pair("requested_token_type", ID_JAG)
            .append_pair("audience", issuer)
            .append_pair("resource", resource)
            .append_pair("subject_token", &self.id_token)
            .append_pair(
                "subject_token_type",
                "urn:ietf:params:oauth:token-type:id_token",
            )
            .append_pair("client_id", &self.client_id)
            .finish();
        HttpRequest {
            method: Method::Post,
            url: self.token_endpoint.clone(),
            headers: vec![
                (
                    "Content-Type".into(),
                    "application/x-www-form-urlencoded".into(),
                ),
                ("Accept".into(), "application/json".into()),
            ],
            body: body.into_bytes(),
        }
    }
}

impl AssertionSource for IdJagExchange {
    fn assertion(
        &self,
        http: &dyn HttpClient,
        issuer: &str,
        resource: &str,
    ) -> Result<String, OAuthError> {
        let response = http.send(&self.request(issuer, resource))?;
        let v: Value = serde_json::from_slice(&response.body).map_err(|_| {
            OAuthError::Token(format!(
                "token exchange: status {}, body is not JSON",
                response.status
            ))
        })?;
        if response.status != 200 {
            let error = v.get("error").and_then(Value::as_str).unwrap_or("unknown");
            return Err(OAuthError::Token(format!(
                "token exchange: status {}: {error}",
                response.status
            )));
        }
        if v.get("issued_token_type").and_then(Value::as_str) != Some(ID_JAG) {
            return Err(OAuthError::Token(
                "token exchange: the identity provider did not issue an ID-JAG".into(),
            ));
        }
        v.get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| OAuthError::Token("token exchange: no access_token".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::{HttpError, HttpResponse};
    use std::sync::Mutex;

    struct Idp {
        body: &'static str,
        seen: Mutex<Vec<HttpRequest>>,
    }

    impl HttpClient for Idp {
        fn send(&self, r: &HttpRequest) -> Result<HttpResponse, HttpError> {
            self.seen.lock().unwrap().push(r.clone());
            Ok(HttpResponse {
                status: 200,
                headers: vec![],
                body: self.body.as_bytes().to_vec(),
            })
        }
    }

    #[test]
    fn exchanges_the_id_token_for_an_id_jag() {
        let idp = Idp {
            body: r#"{"access_token":"jag.jwt.sig","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","token_type":"N_A"}"#,
            seen: Mutex::new(vec![]),
        };
        let x = IdJagExchange {
            token_endpoint: "https://idp.example/token".into(),
            client_id: "idp-client".into(),
            id_token: "id.token.sig".into(),
        };
        assert_eq!(
            x.assertion(&idp, "https://as.example", "https://mcp.example/mcp"),
            Ok("jag.jwt.sig".into())
        );
        let seen = idp.seen.lock().unwrap();
        assert_eq!(seen[0].url, "https://idp.example/token");
        assert_eq!(
            String::from_utf8(seen[0].body.clone()).unwrap(),
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&requested_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid-jag&audience=https%3A%2F%2Fas.example&resource=https%3A%2F%2Fmcp.example%2Fmcp&subject_token=id.token.sig&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid_token&client_id=idp-client"
        );
        assert!(!format!("{x:?}").contains("id.token.sig"));
    }

    #[test]
    fn anything_but_an_id_jag_is_refused() {
        let idp = Idp {
            body: r#"{"access_token":"at","issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}"#,
            seen: Mutex::new(vec![]),
        };
        let x = IdJagExchange {
            token_endpoint: "https://idp.example/token".into(),
            client_id: "c".into(),
            id_token: "t".into(),
        };
        assert!(x.assertion(&idp, "https://as", "https://mcp").is_err());
    }
}
