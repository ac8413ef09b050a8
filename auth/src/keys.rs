//! Verification keys and the algorithms each may verify.
//!
//! The key's type decides the algorithm family, never the token: an RSA
//! key verifies only RS*/PS*, an EC key only ES*, an Ed25519 key only
//! EdDSA, a shared secret only HS*. A token whose header names another
//! family is refused before any verification, so the classic confusion
//! (an HS256 token "signed" with the RSA public key's bytes as the HMAC
//! secret) has no key to run against. `none` is no algorithm at all here.

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk};
use jsonwebtoken::{Algorithm, DecodingKey};

/// What a key could not be made from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyError {
    /// The PEM or JWK did not hold a key of the kind named.
    Invalid(String),
    /// The JWK's type or curve is one this validator does not verify.
    Unsupported(String),
    /// An algorithm was allowed that the key's family cannot verify.
    WrongFamily(Algorithm),
}

impl core::fmt::Display for KeyError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            KeyError::Invalid(why) => write!(f, "not a valid key: {why}"),
            KeyError::Unsupported(what) => write!(f, "unsupported key: {what}"),
            KeyError::WrongFamily(alg) => write!(f, "{alg:?} cannot be verified with this key"),
        }
    }
}

impl std::error::Error for KeyError {}

/// The kind of a key, which decides what it may verify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// An RSA public key: RS256/384/512 and PS256/384/512.
    Rsa,
    /// A P-256 public key: ES256.
    EcP256,
    /// A P-384 public key: ES384.
    EcP384,
    /// An EC public key of a curve not said (PEM): ES256 or ES384, the
    /// signature check then fails on the other curve.
    Ec,
    /// An Ed25519 public key: EdDSA.
    Ed25519,
    /// A shared secret: HS256/384/512.
    Hmac,
}

impl KeyKind {
    /// Every algorithm a key of this kind can verify.
    pub fn algorithms(self) -> &'static [Algorithm] {
        use Algorithm::*;
        match self {
            KeyKind::Rsa => &[RS256, RS384, RS512, PS256, PS384, PS512],
            KeyKind::EcP256 => &[ES256],
            KeyKind::EcP384 => &[ES384],
            KeyKind::Ec => &[ES256, ES384],
            KeyKind::Ed25519 => &[EdDSA],
            KeyKind::Hmac => &[HS256, HS384, HS512],
        }
    }
}

/// A key that verifies token signatures.
#[derive(Clone)]
pub struct Key {
    pub(crate) kid: Option<String>,
    pub(crate) kind: KeyKind,
    pub(crate) key: DecodingKey,
    pub(crate) algorithms: Vec<Algorithm>,
}

impl core::fmt::Debug for Key {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Key")
            .field("kid", &self.kid)
            .field("kind", &self.kind)
            .field("algorithms", &self.algorithms)
            .finish_non_exhaustive()
    }
}

fn invalid(e: jsonwebtoken::errors::Error) -> KeyError {
    KeyError::Invalid(e.to_string())
}

impl Key {
    fn new(kid: Option<&str>, kind: KeyKind, key: DecodingKey) -> Key {
        Key {
            kid: kid.map(str::to_owned),
            kind,
            key,
            algorithms: kind.algorithms().to_vec(),
        }
    }

    /// An RSA public key in PEM (`PUBLIC KEY` or `RSA PUBLIC KEY`).
    pub fn rsa_pem(kid: Option<&str>, pem: &[u8]) -> Result<Key, KeyError> {
        let key = DecodingKey::from_rsa_pem(pem).map_err(invalid)?;
        Ok(Key::new(kid, KeyKind::Rsa, key))
    }

    /// An EC public key in PEM (P-256 or P-384).
    pub fn ec_pem(kid: Option<&str>, pem: &[u8]) -> Result<Key, KeyError> {
        let key = DecodingKey::from_ec_pem(pem).map_err(invalid)?;
        Ok(Key::new(kid, KeyKind::Ec, key))
    }

    /// An Ed25519 public key in PEM.
    pub fn ed_pem(kid: Option<&str>, pem: &[u8]) -> Result<Key, KeyError> {
        let key = DecodingKey::from_ed_pem(pem).map_err(invalid)?;
        Ok(Key::new(kid, KeyKind::Ed25519, key))
    }

    /// A shared secret for HS256/384/512. It verifies HS tokens only.
    pub fn hmac_secret(kid: Option<&str>, secret: &[u8]) -> Key {
        Key::new(kid, KeyKind::Hmac, DecodingKey::from_secret(secret))
    }

    /// A public key from a JWK (RFC 7517). Its `kty` and `crv` decide the
    /// family; an `alg` narrows it to that one algorithm. Symmetric (`oct`)
    /// keys are refused: a published key set holds public keys only.
    pub fn from_jwk(jwk: &Jwk) -> Result<Key, KeyError> {
        let kind = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => KeyKind::Rsa,
            AlgorithmParameters::EllipticCurve(p) => match p.curve {
                EllipticCurve::P256 => KeyKind::EcP256,
                EllipticCurve::P384 => KeyKind::EcP384,
                ref other => return Err(KeyError::Unsupported(format!("EC curve {other:?}"))),
            },
            AlgorithmParameters::OctetKeyPair(p) if p.curve == EllipticCurve::Ed25519 => {
                KeyKind::Ed25519
            }
            AlgorithmParameters::OctetKeyPair(p) => {
                return Err(KeyError::Unsupported(format!("OKP curve {:?}", p.curve)))
            }
            AlgorithmParameters::OctetKey(_) => {
                return Err(KeyError::Unsupported(
                    "symmetric (oct) key in a key set".into(),
                ))
            }
        };
        let key = DecodingKey::from_jwk(jwk).map_err(invalid)?;
        let mut key = Key::new(jwk.common.key_id.as_deref(), kind, key);
        if let Some(alg) = jwk.common.key_algorithm {
            let alg: Algorithm = alg
                .to_string()
                .parse()
                .map_err(|_| KeyError::Unsupported(format!("alg {alg}")))?;
            key = key.only(&[alg])?;
        }
        Ok(key)
    }

    /// Narrow the algorithms this key verifies to `allowed`; each must be
    /// of the key's family.
    pub fn only(mut self, allowed: &[Algorithm]) -> Result<Key, KeyError> {
        if let Some(alg) = allowed.iter().find(|a| !self.kind.algorithms().contains(a)) {
            return Err(KeyError::WrongFamily(*alg));
        }
        self.algorithms = allowed.to_vec();
        Ok(self)
    }

    /// The key id (`kid`) tokens name it by, if any.
    pub fn kid(&self) -> Option<&str> {
        self.kid.as_deref()
    }

    /// The algorithms this key verifies.
    pub fn algorithms(&self) -> &[Algorithm] {
        &self.algorithms
    }

    pub(crate) fn allows(&self, alg: Algorithm) -> bool {
        self.algorithms.contains(&alg)
    }
}

/// The keys of a JWKS document, or why it is not one. Keys this validator
/// cannot use (an `oct` key, an unknown curve, `use` other than `sig`) are
/// skipped, not fatal: a provider's set may hold keys for other parties.
pub fn parse_jwks(bytes: &[u8]) -> Result<Vec<Key>, KeyError> {
    let set: jsonwebtoken::jwk::JwkSet = serde_json::from_slice(bytes)
        .map_err(|e| KeyError::Invalid(format!("not a JWK set: {e}")))?;
    Ok(set
        .keys
        .iter()
        .filter(|jwk| {
            !matches!(
                jwk.common.public_key_use,
                Some(ref u) if *u != jsonwebtoken::jwk::PublicKeyUse::Signature
            )
        })
        .filter_map(|jwk| Key::from_jwk(jwk).ok())
        .collect())
}
