//! The secrets that seal `requestState`, and rotation.
//!
//! `basic/patterns/mrtr.mdx` § Server Requirements 4: state that influences
//! business logic MUST be integrity-protected (HMAC or AEAD) and state that
//! fails verification MUST be rejected. Every server process that should
//! continue another's rounds (a stateless fleet behind a load balancer)
//! must hold the same keys.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use sha2::{Digest, Sha256};

use super::b64;

/// The fewest secret bytes accepted: the output size of SHA-256, so the
/// HMAC key is never the weak link.
pub const MIN_SECRET_BYTES: usize = 32;

/// One HMAC-SHA256 secret and the id that names it inside sealed state.
#[derive(Clone)]
pub(crate) struct Key {
    /// A fingerprint of the secret (8 base64url characters), so a token
    /// names the key it needs without naming the key itself.
    pub(crate) id: String,
    pub(crate) secret: Vec<u8>,
}

impl Key {
    fn new(secret: &[u8]) -> Key {
        let mut h = Sha256::new();
        h.update(b"snodo request-state key id\0");
        h.update(secret);
        let fp: [u8; 32] = h.finalize().into();
        Key {
            id: b64::encode(&fp[..6]),
            secret: Vec::from(secret),
        }
    }
}

/// The request-state keys of a service: state is sealed with the newest
/// and verified with any of them, so keys rotate without failing rounds in
/// flight. Configure the same keys on every process that may receive a
/// retry; with none configured a service generates one at build (`std`
/// only), which then serves that process alone.
///
/// ```
/// use snodo_proto::StateKeys;
/// let new_secret = [7u8; 32];
/// let old_secret = [9u8; 32];
/// // Seal with the new secret; keep accepting state sealed with the old one
/// // until it has expired everywhere.
/// let keys = StateKeys::new(new_secret).also_accept(old_secret);
/// assert_eq!(keys.len(), 2);
/// ```
#[derive(Clone)]
pub struct StateKeys {
    /// The signing key first.
    pub(crate) keys: Vec<Key>,
}

impl StateKeys {
    /// Keys sealing with `secret` (at least [`MIN_SECRET_BYTES`] bytes,
    /// checked when the service is built).
    pub fn new(secret: impl AsRef<[u8]>) -> Self {
        StateKeys {
            keys: alloc::vec![Key::new(secret.as_ref())],
        }
    }

    /// Also verify (never seal) with `secret`: a retired key.
    pub fn also_accept(mut self, secret: impl AsRef<[u8]>) -> Self {
        let key = Key::new(secret.as_ref());
        if !self.keys.iter().any(|k| k.id == key.id) {
            self.keys.push(key);
        }
        self
    }

    /// Fresh random keys (one secret of [`MIN_SECRET_BYTES`] bytes from
    /// the operating system); `None` if it has no randomness to give.
    #[cfg(feature = "std")]
    pub fn generate() -> Option<Self> {
        let mut secret = [0u8; MIN_SECRET_BYTES];
        getrandom::fill(&mut secret).ok()?;
        Some(Self::new(secret))
    }

    /// How many keys verify (the signing key included).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Always false: there is a signing key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The id sealed state carries for the signing key (a fingerprint, not
    /// the secret).
    pub fn signing_key_id(&self) -> &str {
        &self.keys[0].id
    }

    pub(crate) fn signing(&self) -> &Key {
        &self.keys[0]
    }

    pub(crate) fn find(&self, id: &str) -> Option<&Key> {
        self.keys.iter().find(|k| k.id == id)
    }

    pub(crate) fn shortest_secret(&self) -> usize {
        self.keys.iter().map(|k| k.secret.len()).min().unwrap_or(0)
    }
}

/// Never prints a secret.
impl fmt::Debug for StateKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ids: Vec<&str> = self.keys.iter().map(|k| k.id.as_str()).collect();
        f.debug_struct("StateKeys").field("ids", &ids).finish()
    }
}
