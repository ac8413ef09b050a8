//! `WWW-Authenticate` challenges (RFC 9110 § 11.6.1, RFC 6750 § 3): the
//! `Bearer` challenge's `resource_metadata` (RFC 9728 § 5.1), `scope` and
//! `error`, which drive discovery (`basic/authorization/
//! authorization-server-discovery.mdx` § Protected Resource Metadata
//! Discovery Requirements) and step-up (`basic/authorization/index.mdx`
//! § Scope Challenge Handling).

/// The parameters of a `Bearer` challenge the client acts on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    /// The URL of the Protected Resource Metadata document.
    pub resource_metadata: Option<String>,
    /// The scopes the current operation needs, space-separated.
    pub scope: Option<String>,
    /// The error code (`invalid_token`, `insufficient_scope`, …).
    pub error: Option<String>,
}

impl BearerChallenge {
    /// The scopes of the `scope` parameter, in order, without duplicates.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref().unwrap_or(""))
    }

    /// Whether the server said the token lacks scope (RFC 6750 § 3.1).
    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// Splits a space-separated scope string (RFC 6749 § 3.3), dropping
/// duplicates and empty items.
pub fn split_scopes(scope: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in scope.split(' ').filter(|s| !s.is_empty()) {
        if !out.iter().any(|o| o == s) {
            out.push(s.to_owned());
        }
    }
    out
}

/// The first `Bearer` challenge among the `WWW-Authenticate` field values,
/// if any. A value may carry several challenges (`Basic realm="x", Bearer
/// scope="a"`); parameters of other schemes are ignored.
pub fn parse_bearer(values: &[String]) -> Option<BearerChallenge> {
    values.iter().find_map(|v| {
        parse_challenges(v)
            .into_iter()
            .find(|c| c.scheme.eq_ignore_ascii_case("bearer"))
            .map(|c| {
                let get = |name: &str| {
                    c.params
                        .iter()
                        .find(|(n, _)| n.eq_ignore_ascii_case(name))
                        .map(|(_, v)| v.clone())
                };
                BearerChallenge {
                    resource_metadata: get("resource_metadata"),
                    scope: get("scope"),
                    error: get("error"),
                }
            })
    })
}

struct Challenge {
    scheme: String,
    params: Vec<(String, String)>,
}

/// RFC 9110 § 11.6.1: `challenge = auth-scheme [ 1*SP ( token68 /
/// #auth-param ) ]`, `auth-param = token BWS "=" BWS ( token /
/// quoted-string )`, challenges separated by commas.
fn parse_challenges(value: &str) -> Vec<Challenge> {
    let mut lexer = Lexer {
        s: value.as_bytes(),
        i: 0,
    };
    let mut out: Vec<Challenge> = Vec::new();
    loop {
        lexer.skip_ws_and_commas();
        if lexer.peek().is_none() {
            break;
        }
        let Some(word) = lexer.token() else {
            lexer.i += 1; // a stray character: skip it
            continue;
        };
        lexer.skip_ws();
        if lexer.peek() == Some(b'=') && lexer.peek_at(1) != Some(b'=') {
            // `name=value`: a parameter of the challenge being read.
            lexer.i += 1;
            lexer.skip_ws();
            let value = if lexer.peek() == Some(b'"') {
                lexer.quoted()
            } else {
                lexer.token().unwrap_or_default()
            };
            if let Some(last) = out.last_mut() {
                last.params.push((word, value));
            }
        } else if lexer.peek() == Some(b'=') {
            // A token68 credential (`Negotiate abc==`): its padding ends
            // it; it is not a parameter list.
            while lexer.peek() == Some(b'=') {
                lexer.i += 1;
            }
        } else {
            // A scheme. (A token68 without padding reads as a scheme
            // without parameters too, which is harmless: only `Bearer`
            // is looked at.)
            out.push(Challenge {
                scheme: word,
                params: Vec::new(),
            });
        }
    }
    out
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.s.get(self.i + ahead).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    fn skip_ws_and_commas(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b',')) {
            self.i += 1;
        }
    }

    /// A token (RFC 9110 § 5.6.2 tchar), or a token68's characters.
    fn token(&mut self) -> Option<String> {
        let start = self.i;
        while let Some(c) = self.peek() {
            let tchar = c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~/".contains(&c);
            if !tchar {
                break;
            }
            self.i += 1;
        }
        (self.i > start).then(|| String::from_utf8_lossy(&self.s[start..self.i]).into_owned())
    }

    /// A quoted-string, unescaped; an unterminated one runs to the end.
    fn quoted(&mut self) -> String {
        self.i += 1; // the opening quote
        let mut out = Vec::new();
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    if let Some(n) = self.peek() {
                        out.push(n);
                        self.i += 1;
                    }
                }
                _ => out.push(c),
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(v: &str) -> Option<BearerChallenge> {
        parse_bearer(&[v.to_owned()])
    }

    #[test]
    fn the_sdk_challenge_with_resource_metadata() {
        let c = one(r#"Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="http://localhost:4000/.well-known/oauth-protected-resource/mcp""#).unwrap();
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://localhost:4000/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        assert_eq!(c.scope, None);
    }

    #[test]
    fn scope_and_insufficient_scope() {
        let c = one(r#"Bearer error="insufficient_scope", scope="files:read  files:write files:read", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="File write permission required""#).unwrap();
        assert!(c.insufficient_scope());
        assert_eq!(c.scopes(), ["files:read", "files:write"]);
    }

    #[test]
    fn bearer_after_another_scheme_and_token_values() {
        let c = one(r#"Basic realm="x", Bearer realm=example, scope="a b""#).unwrap();
        assert_eq!(c.scope.as_deref(), Some("a b"));
        let c = one(r#"Negotiate abc==, Bearer error=invalid_token"#).unwrap();
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
    }

    #[test]
    fn escapes_case_and_absence() {
        let c = one(r#"bearer SCOPE="a\"b""#).unwrap();
        assert_eq!(c.scope.as_deref(), Some("a\"b"));
        assert_eq!(one(r#"Basic realm="x""#), None);
        assert_eq!(one("Bearer"), Some(BearerChallenge::default()));
        assert_eq!(parse_bearer(&[]), None);
    }
}
