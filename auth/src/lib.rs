//! Bearer token validators for snodo's authorization
//! (`basic/authorization/index.mdx` § Token Handling): implementations of
//! [`snodo_proto::Authenticator`], which proto asks before admission on
//! Streamable HTTP.
//!
//! [`JwtValidator`] checks JWT access tokens with static keys or a JWKS
//! (read from a file or fetched over HTTPS, cached and refreshed in the
//! background, since validation must not block):
//!
//! - the signature, with an algorithm allow-list that the key's type
//!   decides (never `none`; an HMAC secret never verifies an RS/ES token
//!   nor an RSA key an HS one);
//! - `iss`, exactly the issuer configured;
//! - `aud`, the resource's canonical URI (RFC 8707): always, there is no
//!   switch to turn it off;
//! - `exp` (required) and `nbf`, with a leeway capped at [`MAX_LEEWAY`];
//! - `sub` (required) becomes [`Principal::subject`](snodo_proto::Principal),
//!   `scope` (space-separated) or `scp` (a list) its scopes, and the
//!   claims the application names are copied into its `claims`.
//!
//! A verified token is remembered (by its SHA-256, for at most a minute
//! and never past its `exp`: [`JwtValidatorBuilder::cache`]), so a client
//! that sends the same token on every request pays for the signature once.
//!
//! [`IntrospectionValidator`] asks the authorization server instead
//! (RFC 7662 token introspection, with the resource server's client
//! credentials): `active`, then the same audience rule (always checked),
//! optional issuer, `exp`/`nbf`, `sub` and `scope`. It is the deferred
//! kind of [`Authenticator`](snodo_proto::Authenticator): a token accepted
//! before is answered at once from the same kind of cache, any other by a
//! future that a bounded pool of this crate's threads completes, so it
//! runs alike under tokio, smol and the blocking adapter. An endpoint that
//! is down or failing makes the answer 503 with `Retry-After`, never 401
//! `invalid_token` (see the [`IntrospectionValidator`] docs for why).
//!
//! A refusal says what failed in general terms ("The token has
//! expired"); it never echoes the token.
//!
//! ```no_run
//! use snodo_auth::{JwtValidator, JwksSource};
//! use snodo_proto::Authorization;
//!
//! let resource = "https://mcp.example.com/mcp";
//! let validator = JwtValidator::builder("https://auth.example.com", resource)
//!     .jwks(JwksSource::Url("https://auth.example.com/jwks".into()))
//!     .build()?;
//! let auth = Authorization::new(resource, validator)
//!     .authorization_server("https://auth.example.com")
//!     .require(["mcp"]);
//! # Ok::<(), snodo_auth::ConfigError>(())
//! ```
//!
//! ```no_run
//! use snodo_auth::IntrospectionValidator;
//! use snodo_proto::Authorization;
//!
//! let resource = "https://mcp.example.com/mcp";
//! let validator = IntrospectionValidator::builder(
//!     "https://auth.example.com/token/introspection",
//!     "mcp-resource-server",
//!     "its client secret",
//!     resource,
//! )
//! .issuer("https://auth.example.com")
//! .build()?;
//! let auth = Authorization::new(resource, validator).require(["mcp"]);
//! # Ok::<(), snodo_auth::ConfigError>(())
//! ```

// docs.rs (`--cfg docsrs`) marks each item with the features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]

mod cache;
mod claims;
mod https;
mod introspect;
mod jwks;
mod jwt;
mod keys;

pub use https::TrustRoots;
pub use introspect::{IntrospectionValidator, IntrospectionValidatorBuilder};
pub use jsonwebtoken::Algorithm;
pub use jwks::JwksSource;
pub use jwt::{ConfigError, JwtValidator, JwtValidatorBuilder, MAX_LEEWAY};
pub use keys::{parse_jwks, Key, KeyError, KeyKind};
