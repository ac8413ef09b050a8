//! Authorization for the fixture, from `--auth-issuer URL --auth-audience
//! URI [--auth-jwks URL|FILE]`, or with `--auth-introspect URL
//! --auth-client ID:SECRET` as well, so that any lane can run with it on
//! (`basic/authorization/index.mdx`). Taken out of the arguments before
//! the main parser, like the store options.
//!
//! With it, every request on the HTTP endpoint needs an access token from
//! the issuer, for the audience, with the scope [`SCOPE`]; the tools in
//! [`TOOL_SCOPES`] need theirs as well (403 `insufficient_scope`
//! otherwise). The token is a JWT signed by a key of the JWKS (default
//! `ISSUER/.well-known/jwks.json`), or, with `--auth-introspect`, any token
//! the issuer's introspection endpoint says is active (RFC 7662; a
//! deferred authenticator). stdio takes no tokens.

use snodo_auth::{ConfigError, IntrospectionValidator, JwksSource, JwtValidator};
use snodo_proto::Authorization;

/// The scope every request needs.
pub const SCOPE: &str = "mcp";

/// Tools that need a scope of their own, beyond [`SCOPE`].
pub const TOOL_SCOPES: &[(&str, &str)] = &[
    ("test_simple_text", "mcp:text"),
    ("test_image_content", "mcp:media"),
    ("test_audio_content", "mcp:media"),
];

/// A scope that implies [`SCOPE`] and every tool's (a hierarchy:
/// `basic/authorization/index.mdx` § Scope Challenge Handling).
pub const BROAD_SCOPE: &str = "mcp:all";

/// The authorization the command line asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthSpec {
    /// `iss` of accepted tokens, and the metadata's authorization server.
    pub issuer: String,
    /// `aud` of accepted tokens: the endpoint's canonical URI.
    pub audience: String,
    /// Where the verification keys come from.
    pub jwks: JwksSource,
    /// Check tokens by introspection instead of as JWTs.
    pub introspection: Option<Introspection>,
}

/// `--auth-introspect URL --auth-client ID:SECRET`.
#[derive(Clone, PartialEq, Eq)]
pub struct Introspection {
    /// The introspection endpoint.
    pub endpoint: String,
    /// The fixture's client id at the authorization server.
    pub client_id: String,
    /// Its secret.
    pub client_secret: String,
}

impl core::fmt::Debug for Introspection {
    /// Without the secret.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Introspection")
            .field("endpoint", &self.endpoint)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl AuthSpec {
    /// Take `--auth-*` out of `args`: the spec (if `--auth-issuer` was
    /// given) and the other arguments.
    pub fn take(
        args: impl IntoIterator<Item = String>,
    ) -> Result<(Option<AuthSpec>, Vec<String>), String> {
        let (mut issuer, mut audience, mut jwks) = (None, None, None);
        let (mut introspect, mut client) = (None, None);
        let mut rest = Vec::new();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let slot = match arg.as_str() {
                "--auth-issuer" => &mut issuer,
                "--auth-audience" => &mut audience,
                "--auth-jwks" => &mut jwks,
                "--auth-introspect" => &mut introspect,
                "--auth-client" => &mut client,
                _ => {
                    rest.push(arg);
                    continue;
                }
            };
            *slot = Some(args.next().ok_or_else(|| format!("{arg} needs a value"))?);
        }
        let introspection = match (introspect, client) {
            (None, None) => None,
            (Some(endpoint), Some(client)) => {
                let (id, secret) = client.split_once(':').ok_or("--auth-client is ID:SECRET")?;
                Some(Introspection {
                    endpoint,
                    client_id: id.to_owned(),
                    client_secret: secret.to_owned(),
                })
            }
            _ => return Err("--auth-introspect and --auth-client go together".into()),
        };
        let spec = match (issuer, audience, jwks) {
            (None, None, None) if introspection.is_none() => None,
            (Some(issuer), Some(audience), jwks) => {
                let jwks = match jwks {
                    Some(j) => j,
                    None => format!("{}/.well-known/jwks.json", issuer.trim_end_matches('/')),
                };
                let jwks = JwksSource::parse(&jwks).map_err(|e| format!("--auth-jwks: {e}"))?;
                Some(AuthSpec {
                    issuer,
                    audience,
                    jwks,
                    introspection,
                })
            }
            _ => return Err("--auth-issuer and --auth-audience go together".into()),
        };
        Ok((spec, rest))
    }

    /// The service's [`Authorization`].
    pub fn authorization(&self) -> Result<Authorization, ConfigError> {
        let auth = match &self.introspection {
            None => {
                let validator = JwtValidator::builder(&self.issuer, &self.audience)
                    .jwks(self.jwks.clone())
                    .build()?;
                Authorization::new(&self.audience, validator)
            }
            Some(i) => {
                let validator = IntrospectionValidator::builder(
                    &i.endpoint,
                    &i.client_id,
                    &i.client_secret,
                    &self.audience,
                )
                .issuer(&self.issuer)
                .build()?;
                Authorization::new(&self.audience, validator)
            }
        };
        let mut scopes = vec![SCOPE];
        scopes.extend(TOOL_SCOPES.iter().map(|(_, s)| *s));
        scopes.dedup();
        let mut auth = auth
            .authorization_server(&self.issuer)
            .scopes_supported(scopes)
            .require([SCOPE]);
        for (tool, scope) in TOOL_SCOPES {
            auth = auth.tool_scopes(*tool, [*scope]);
        }
        let implied = TOOL_SCOPES.iter().map(|(_, s)| *s).chain([SCOPE]);
        auth = auth.scope_implies(BROAD_SCOPE, implied);
        // The lanes show step-up authorization as a client meets it: the
        // tool is listed to a token without its scope, the call gets 403
        // `insufficient_scope`, the client asks for more.
        Ok(auth.list_unauthorized())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| String::from(*s)).collect()
    }

    #[test]
    fn auth_options_are_taken_out_wherever_they_stand() {
        let (spec, rest) = AuthSpec::take(args(&[
            "--listen",
            "127.0.0.1:0",
            "--auth-issuer",
            "https://auth.example.com/",
            "--auth-audience",
            "http://127.0.0.1:8080/mcp",
        ]))
        .unwrap();
        assert_eq!(rest, args(&["--listen", "127.0.0.1:0"]));
        assert_eq!(
            spec,
            Some(AuthSpec {
                issuer: "https://auth.example.com/".into(),
                audience: "http://127.0.0.1:8080/mcp".into(),
                jwks: JwksSource::Url("https://auth.example.com/.well-known/jwks.json".into()),
                introspection: None,
            })
        );
        let (spec, _) = AuthSpec::take(args(&[
            "--auth-issuer",
            "http://127.0.0.1:9",
            "--auth-audience",
            "http://127.0.0.1:8080/mcp",
            "--auth-introspect",
            "http://127.0.0.1:9/token/introspection",
            "--auth-client",
            "rs:se:cret",
        ]))
        .unwrap();
        assert_eq!(
            spec.unwrap().introspection,
            Some(Introspection {
                endpoint: "http://127.0.0.1:9/token/introspection".into(),
                client_id: "rs".into(),
                client_secret: "se:cret".into(),
            })
        );
        let (spec, _) = AuthSpec::take(args(&[
            "--auth-jwks",
            "keys/jwks.json",
            "--auth-audience",
            "a",
            "--auth-issuer",
            "i",
        ]))
        .unwrap();
        assert_eq!(
            spec.unwrap().jwks,
            JwksSource::File("keys/jwks.json".into())
        );
        assert_eq!(AuthSpec::take(args(&["--stdio"])).unwrap().0, None);
    }

    #[test]
    fn refusals() {
        assert_eq!(
            AuthSpec::take(args(&["--auth-issuer", "https://a"])).unwrap_err(),
            "--auth-issuer and --auth-audience go together"
        );
        assert_eq!(
            AuthSpec::take(args(&["--auth-introspect", "http://127.0.0.1:9/i"])).unwrap_err(),
            "--auth-introspect and --auth-client go together"
        );
        assert_eq!(
            AuthSpec::take(args(&["--auth-introspect", "u", "--auth-client", "x"])).unwrap_err(),
            "--auth-client is ID:SECRET"
        );
        assert_eq!(
            AuthSpec::take(args(&["--auth-audience"])).unwrap_err(),
            "--auth-audience needs a value"
        );
        assert!(AuthSpec::take(args(&[
            "--auth-issuer",
            "https://a",
            "--auth-audience",
            "b",
            "--auth-jwks",
            "http://keys.example.com/jwks"
        ]))
        .unwrap_err()
        .starts_with("--auth-jwks: "));
    }
}
