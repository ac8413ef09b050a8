//! Authorization for the fixture, from `--auth-issuer URL --auth-audience
//! URI [--auth-jwks URL|FILE]`, so that any lane can run with it on
//! (`basic/authorization/index.mdx`). Taken out of the arguments before
//! the main parser, like the store options.
//!
//! With it, every request on the HTTP endpoint needs a JWT access token
//! from the issuer, for the audience, signed by a key of the JWKS (default
//! `ISSUER/.well-known/jwks.json`), with the scope [`SCOPE`]; the tools
//! in [`TOOL_SCOPES`] need theirs as well (403 `insufficient_scope`
//! otherwise). stdio takes no tokens.

use snodo_auth::{ConfigError, JwksSource, JwtValidator};
use snodo_proto::Authorization;

/// The scope every request needs.
pub const SCOPE: &str = "mcp";

/// Tools that need a scope of their own, beyond [`SCOPE`].
pub const TOOL_SCOPES: &[(&str, &str)] = &[
    ("test_simple_text", "mcp:text"),
    ("test_image_content", "mcp:media"),
    ("test_audio_content", "mcp:media"),
];

/// The authorization the command line asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthSpec {
    /// `iss` of accepted tokens, and the metadata's authorization server.
    pub issuer: String,
    /// `aud` of accepted tokens: the endpoint's canonical URI.
    pub audience: String,
    /// Where the verification keys come from.
    pub jwks: JwksSource,
}

impl AuthSpec {
    /// Take `--auth-*` out of `args`: the spec (if `--auth-issuer` was
    /// given) and the other arguments.
    pub fn take(
        args: impl IntoIterator<Item = String>,
    ) -> Result<(Option<AuthSpec>, Vec<String>), String> {
        let (mut issuer, mut audience, mut jwks) = (None, None, None);
        let mut rest = Vec::new();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let slot = match arg.as_str() {
                "--auth-issuer" => &mut issuer,
                "--auth-audience" => &mut audience,
                "--auth-jwks" => &mut jwks,
                _ => {
                    rest.push(arg);
                    continue;
                }
            };
            *slot = Some(args.next().ok_or_else(|| format!("{arg} needs a value"))?);
        }
        let spec = match (issuer, audience, jwks) {
            (None, None, None) => None,
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
                })
            }
            _ => return Err("--auth-issuer and --auth-audience go together".into()),
        };
        Ok((spec, rest))
    }

    /// The service's [`Authorization`].
    pub fn authorization(&self) -> Result<Authorization, ConfigError> {
        let validator = JwtValidator::builder(&self.issuer, &self.audience)
            .jwks(self.jwks.clone())
            .build()?;
        let mut scopes = vec![SCOPE];
        scopes.extend(TOOL_SCOPES.iter().map(|(_, s)| *s));
        scopes.dedup();
        let mut auth = Authorization::new(&self.audience, validator)
            .authorization_server(&self.issuer)
            .scopes_supported(scopes)
            .require([SCOPE]);
        for (tool, scope) in TOOL_SCOPES {
            auth = auth.tool_scopes(*tool, [*scope]);
        }
        Ok(auth)
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
