//! [`JwtValidator`]: JWT access tokens (RFC 9068) checked the way the
//! spec's § Token Handling asks a resource server to: signature, issuer,
//! audience (the resource's canonical URI, RFC 8707), expiry and
//! not-before, then the scopes and subject read into a [`Principal`].

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};
use snodo_proto::auth::{Authentication, Verdict};
use snodo_proto::{Authenticator, Principal, Rejection};

use crate::cache::{TokenCache, DEFAULT_CAPACITY, DEFAULT_TTL};
use crate::jwks::{Jwks, JwksSource};
use crate::keys::{Key, KeyError};

/// The most clock skew a validator tolerates on `exp` and `nbf`.
pub const MAX_LEEWAY: Duration = Duration::from_secs(300);

/// Validates JWT access tokens for one resource. Build it with
/// [`JwtValidator::builder`]; hand it to
/// [`Authorization::new`](snodo_proto::Authorization::new).
#[derive(Clone)]
pub struct JwtValidator {
    inner: Arc<Inner>,
}

struct Inner {
    keys: Vec<Key>,
    jwks: Option<Arc<Jwks>>,
    /// One `Validation` per algorithm, issuer and audience set.
    validation: Validation,
    claims: Vec<String>,
    cache: TokenCache,
}

impl core::fmt::Debug for JwtValidator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("JwtValidator")
            .field("keys", &self.inner.keys)
            .field("issuer", &self.inner.validation.iss)
            .field("audience", &self.inner.validation.aud)
            .finish_non_exhaustive()
    }
}

/// Why a validator could not be built.
#[derive(Debug)]
pub enum ConfigError {
    /// No static key and no JWKS: nothing could ever verify.
    NoKeys,
    /// The issuer or the audience is empty.
    Empty(&'static str),
    /// A key or key set could not be loaded.
    Key(KeyError),
}

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ConfigError::NoKeys => f.write_str("no verification key and no JWKS configured"),
            ConfigError::Empty(what) => write!(f, "the {what} is empty"),
            ConfigError::Key(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ConfigError {}

impl From<KeyError> for ConfigError {
    fn from(e: KeyError) -> Self {
        ConfigError::Key(e)
    }
}

/// Configures a [`JwtValidator`]. The issuer and the audience are given
/// up front and cannot be unset: there is no validator that skips them.
#[derive(Debug)]
pub struct JwtValidatorBuilder {
    issuer: String,
    audience: String,
    keys: Vec<Key>,
    jwks: Option<JwksSource>,
    min_refresh: Duration,
    leeway: Duration,
    claims: Vec<String>,
    cache: (usize, Duration),
    roots: crate::TrustRoots,
}

impl JwtValidator {
    /// A validator for tokens that `issuer` (its `iss`, exactly) issued
    /// for `audience`: the resource's canonical URI, the same string as
    /// [`Authorization::new`](snodo_proto::Authorization::new)'s resource
    /// (RFC 8707 § 2; § Token Audience Binding and Validation).
    pub fn builder(issuer: impl Into<String>, audience: impl Into<String>) -> JwtValidatorBuilder {
        JwtValidatorBuilder {
            issuer: issuer.into(),
            audience: audience.into(),
            keys: Vec::new(),
            jwks: None,
            min_refresh: Duration::from_secs(30),
            leeway: Duration::from_secs(60),
            claims: Vec::new(),
            cache: (DEFAULT_CAPACITY, DEFAULT_TTL),
            roots: crate::TrustRoots::default(),
        }
    }

    /// How many times the JWKS has been loaded (0 without one).
    pub fn jwks_loads(&self) -> u64 {
        self.inner.jwks.as_ref().map_or(0, |j| j.loads())
    }

    /// How many tokens were accepted from the cache of verified tokens
    /// rather than checked again ([`JwtValidatorBuilder::cache`]).
    pub fn cache_hits(&self) -> u64 {
        self.inner.cache.hits()
    }

    fn check(&self, token: &str) -> Result<Principal, &'static str> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        // Read before the keys: a refresh in between makes the entry
        // stored below stale at once, never the other way round.
        let generation = self.jwks_loads();
        if let Some(principal) = self.inner.cache.get(token, now, generation) {
            return Ok(principal);
        }
        let (principal, exp) = self.verify(token)?;
        self.inner
            .cache
            .insert(token, &principal, exp, now, generation);
        Ok(principal)
    }

    /// The full check: the principal and the token's `exp`.
    fn verify(&self, token: &str) -> Result<(Principal, u64), &'static str> {
        let header = jsonwebtoken::decode_header(token).map_err(|_| header_problem(token))?;
        let jwks = self.inner.jwks.as_ref().map(|j| j.keys());
        let all = self
            .inner
            .keys
            .iter()
            .chain(jwks.iter().flat_map(|k| k.iter()));
        let candidates: Vec<&Key> = match header.kid.as_deref() {
            Some(kid) => all.filter(|k| k.kid.as_deref() == Some(kid)).collect(),
            None => all.filter(|k| k.allows(header.alg)).collect(),
        };
        if candidates.is_empty() {
            if header.kid.is_some() {
                return Err(UNKNOWN_KEY);
            }
            return Err("The token's algorithm is not accepted");
        }
        let mut outcome = Err("The token's algorithm is not accepted");
        for key in candidates.into_iter().filter(|k| k.allows(header.alg)) {
            let mut validation = self.inner.validation.clone();
            validation.algorithms = vec![header.alg];
            match jsonwebtoken::decode::<Map<String, Value>>(token, &key.key, &validation) {
                Ok(data) => {
                    // `exp` is required and was checked: a number.
                    let exp = data.claims.get("exp").and_then(Value::as_u64).unwrap_or(0);
                    return self.principal(data.claims).map(|p| (p, exp));
                }
                // Without a `kid`, another key may be the one.
                Err(e) if *e.kind() == ErrorKind::InvalidSignature => {
                    outcome = Err("The token's signature is not valid")
                }
                Err(e) => return Err(describe(e.kind())),
            }
        }
        outcome
    }

    fn principal(&self, mut claims: Map<String, Value>) -> Result<Principal, &'static str> {
        let subject = match claims.get("sub") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => return Err("The token has no subject"),
        };
        let scopes = match (claims.get("scope"), claims.get("scp")) {
            (Some(Value::String(s)), _) => s.split_ascii_whitespace().map(str::to_owned).collect(),
            (Some(_), _) => return Err("The token's scope is not a string"),
            (None, Some(Value::Array(list))) => list
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or("The token's scp is not a list of strings")?,
            (None, Some(Value::String(s))) => {
                s.split_ascii_whitespace().map(str::to_owned).collect()
            }
            (None, Some(_)) => return Err("The token's scp is not a list of strings"),
            (None, None) => Vec::new(),
        };
        let audience = crate::claims::audiences(claims.get("aud"))?;
        let mut principal = Principal::new(subject, scopes).audience(audience);
        for name in &self.inner.claims {
            if let Some(value) = claims.remove(name) {
                principal.claims.insert(name.clone(), value);
            }
        }
        Ok(principal)
    }
}

/// Why a token naming a `kid` no key held has is refused.
const UNKNOWN_KEY: &str = "The token's signing key is unknown";

impl JwtValidator {
    /// The principal `token` stands for, or why it is refused: always
    /// decided at once, from the keys held. An unknown `kid` asks the
    /// JWKS for a refresh (rate-bounded) and is refused meanwhile;
    /// [`Authenticator::authenticate`] waits for that refresh instead.
    pub fn validate(&self, token: &str) -> Result<Principal, Rejection> {
        let checked = self.check(token);
        if checked == Err(UNKNOWN_KEY) {
            if let Some(jwks) = &self.inner.jwks {
                jwks.ask_refresh();
            }
        }
        checked.map_err(|why| Rejection(why.to_owned()))
    }
}

/// Decided at once from the keys held, but for a token naming a `kid`
/// that no key has while the JWKS can still be refreshed: that one is
/// [`Authentication::Deferred`] until the refresh (asked for at most once
/// per `jwks_min_refresh`) finishes, then checked again. A provider
/// rotates keys in before it signs with them; a server whose copy is a
/// little older must not answer 401 to the first tokens signed with the
/// new key (the client would throw a valid token away). A refresh that
/// fails leaves the `kid` undecidable: `503` with `Retry-After`, not 401.
impl Authenticator for JwtValidator {
    fn authenticate(&self, token: &str, _resource: &str) -> Authentication {
        let checked = self.check(token);
        let wait = match (&checked, &self.inner.jwks) {
            (Err(why), Some(jwks)) if *why == UNKNOWN_KEY => jwks.ask_refresh(),
            _ => None,
        };
        let Some(wait) = wait else {
            return checked.map_err(|why| Rejection(why.to_owned())).into();
        };
        let this = self.clone();
        let token = token.to_owned();
        Authentication::Deferred(Box::pin(async move {
            let failed = wait.await;
            match this.check(&token) {
                Err(why) if why == UNKNOWN_KEY && failed => Verdict::Unavailable {
                    retry_after: this.inner.jwks.as_ref().map_or(1, |j| j.retry_after()),
                },
                checked => checked.map_err(|why| Rejection(why.to_owned())).into(),
            }
        }))
    }
}

/// What is wrong with a token whose header did not parse: an algorithm
/// this crate does not know (`none` above all) or no JWT at all.
fn header_problem(token: &str) -> &'static str {
    let alg = token
        .split('.')
        .next()
        .and_then(|h| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(h)
                .ok()
        })
        .and_then(|h| serde_json::from_slice::<Map<String, Value>>(&h).ok())
        .and_then(|h| h.get("alg").cloned());
    match alg {
        Some(Value::String(_)) => "The token's algorithm is not accepted",
        _ => "The token is malformed",
    }
}

/// A general description of a validation failure: it names the check,
/// never the token or the claim's value.
fn describe(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::InvalidSignature => "The token's signature is not valid",
        ErrorKind::ExpiredSignature => "The token has expired",
        ErrorKind::ImmatureSignature => "The token is not yet valid",
        ErrorKind::InvalidIssuer => "The token was issued by another issuer",
        ErrorKind::InvalidAudience => "The token was issued for another audience",
        ErrorKind::InvalidAlgorithm => "The token's algorithm is not accepted",
        ErrorKind::MissingRequiredClaim(c) => match c.as_str() {
            "exp" => "The token has no expiry",
            "iss" => "The token has no issuer",
            "aud" => "The token has no audience",
            "sub" => "The token has no subject",
            _ => "The token lacks a required claim",
        },
        _ => "The token is malformed",
    }
}

impl JwtValidatorBuilder {
    /// A static verification key (see [`Key`]: RSA, EC or Ed25519 from
    /// PEM or a JWK, or an HMAC secret).
    pub fn key(mut self, key: Key) -> Self {
        self.keys.push(key);
        self
    }

    /// Keys from a JWKS, read from a file or fetched from a URL in the
    /// background (see [`JwksSource`]).
    pub fn jwks(mut self, source: JwksSource) -> Self {
        self.jwks = Some(source);
        self
    }

    /// The root CAs a JWKS URL's certificate may chain to: Mozilla's by
    /// default; add an authorization server's private CA with
    /// [`TrustRoots::with_pem`](crate::TrustRoots::with_pem).
    pub fn jwks_roots(mut self, roots: crate::TrustRoots) -> Self {
        self.roots = roots;
        self
    }

    /// The least time between two refreshes of the JWKS that unknown
    /// `kid`s ask for. Default: `Duration::from_secs(30)`.
    pub fn jwks_min_refresh(mut self, every: Duration) -> Self {
        self.min_refresh = every;
        self
    }

    /// Clock skew tolerated on `exp` and `nbf`, capped at
    /// [`MAX_LEEWAY`]. Default: `Duration::from_secs(60)`.
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway.min(MAX_LEEWAY);
        self
    }

    /// Remember up to `capacity` verified tokens (by their SHA-256), each
    /// for at most `ttl` and never past its `exp`; a JWKS refresh forgets
    /// them all. A token sent again is then accepted without checking its
    /// signature again. `capacity` 0 turns the cache off. Default:
    /// 1024 tokens, `Duration::from_secs(60)`.
    pub fn cache(mut self, capacity: usize, ttl: Duration) -> Self {
        self.cache = (capacity, ttl);
        self
    }

    /// A claim to copy into [`Principal::claims`] when the token has it.
    pub fn claim(mut self, name: impl Into<String>) -> Self {
        self.claims.push(name.into());
        self
    }

    /// The validator; a JWKS file is read now, a JWKS URL fetched in the
    /// background.
    pub fn build(self) -> Result<JwtValidator, ConfigError> {
        if self.issuer.is_empty() {
            return Err(ConfigError::Empty("issuer"));
        }
        if self.audience.is_empty() {
            return Err(ConfigError::Empty("audience"));
        }
        if self.keys.is_empty() && self.jwks.is_none() {
            return Err(ConfigError::NoKeys);
        }
        let jwks = match self.jwks {
            Some(source) => Some(Jwks::start(source, self.min_refresh, &self.roots)?),
            None => None,
        };
        // The algorithm is set per token from the key that verifies it.
        let mut validation = Validation::new(Algorithm::RS256);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.required_spec_claims =
            HashSet::from(["exp", "iss", "aud", "sub"].map(String::from));
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.validate_aud = true;
        validation.leeway = self.leeway.as_secs();
        Ok(JwtValidator {
            inner: Arc::new(Inner {
                keys: self.keys,
                jwks,
                validation,
                claims: self.claims,
                cache: TokenCache::new(self.cache.0, self.cache.1),
            }),
        })
    }
}
