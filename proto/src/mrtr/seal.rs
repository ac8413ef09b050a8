//! Sealing and opening `requestState`.
//!
//! A sealed state is `v1.<key id>.<payload>.<mac>`: the payload is JSON in
//! unpadded base64url, and the MAC is HMAC-SHA256 under the named key over
//! everything before the last dot. The payload is readable by the client
//! (integrity, not confidentiality: `mrtr.mdx` requires the former) and
//! binds the state to one request (method, target, params digest), the
//! authenticated principal when there is one, an issue time and an expiry, a nonce (so two states are never equal), the
//! handler's own state, and the input requests issued (so the answers can
//! be checked against what was asked).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use core::sync::atomic::{AtomicUsize, Ordering};
use core::time::Duration;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::b64;
use super::keys::{Key, StateKeys, MIN_SECRET_BYTES};
use crate::service::BuildError;

type HmacSha256 = Hmac<Sha256>;

const VERSION: &str = "v1";

/// What an input request was, as far as checking its answer needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum Issued {
    /// `elicitation/create`; the requested schema for form mode.
    #[serde(rename = "e")]
    Elicit(Option<Value>),
    /// `sampling/createMessage`.
    #[serde(rename = "s")]
    Sample,
    /// `roots/list`.
    #[serde(rename = "r")]
    Roots,
}

/// The sealed content. Short member names keep the token small.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Payload {
    /// Method of the originating request.
    pub(crate) m: String,
    /// Its target: tool name, prompt name or resource URI.
    pub(crate) t: String,
    /// base64url SHA-256 of its params (see `canon`).
    pub(crate) d: String,
    /// Issued at, milliseconds since the UNIX epoch.
    pub(crate) iat: u64,
    /// Expires at, milliseconds since the UNIX epoch.
    pub(crate) exp: u64,
    /// Nonce.
    pub(crate) n: String,
    /// The principal the state was issued to, as [`principal_digest`]
    /// names it; absent when the request was not authenticated (so
    /// states of a service without authorization are unchanged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) p: Option<String>,
    /// The handler's state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) s: Option<Value>,
    /// The input requests issued, by key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) q: BTreeMap<String, Issued>,
}

/// Seals and opens state for one service.
pub(crate) struct Sealer {
    keys: Option<StateKeys>,
    seed: [u8; 32],
    counter: AtomicUsize,
    pub(crate) ttl: Duration,
}

impl core::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sealer")
            .field("keys", &self.keys)
            .field("ttl", &self.ttl)
            .finish()
    }
}

impl Sealer {
    /// With `keys`, or (with `std`) a generated key when there are none.
    /// The nonce seed comes from the operating system with `std`, else it
    /// is derived from the signing key.
    pub(crate) fn new(keys: Option<StateKeys>, ttl: Duration) -> Result<Sealer, BuildError> {
        if ttl.is_zero() {
            return Err(BuildError::InvalidLimit("request_state_ttl"));
        }
        if let Some(k) = &keys {
            if k.shortest_secret() < MIN_SECRET_BYTES {
                return Err(BuildError::InvalidStateKeys(format!(
                    "every request-state secret must be at least {MIN_SECRET_BYTES} bytes"
                )));
            }
        }
        #[cfg(feature = "std")]
        let (keys, seed) = {
            let keys = match keys {
                Some(k) => k,
                None => StateKeys::generate().ok_or_else(|| {
                    BuildError::InvalidStateKeys(String::from(
                        "no request-state key was configured and the system has no randomness to generate one",
                    ))
                })?,
            };
            let mut seed = [0u8; 32];
            getrandom::fill(&mut seed).map_err(|_| {
                BuildError::InvalidStateKeys(String::from(
                    "the system has no randomness for the request-state nonce seed",
                ))
            })?;
            (Some(keys), seed)
        };
        #[cfg(not(feature = "std"))]
        let seed = match &keys {
            Some(k) => mac(k.signing(), &[b"snodo request-state nonce seed"]),
            None => [0u8; 32],
        };
        Ok(Sealer {
            keys,
            seed,
            counter: AtomicUsize::new(0),
            ttl,
        })
    }

    /// Whether state can be sealed (a key exists).
    pub(crate) fn can_seal(&self) -> bool {
        self.keys.is_some()
    }

    /// A fresh nonce: never repeats within the process (a counter), and
    /// unpredictable across processes (the seed). No system call.
    pub(crate) fn nonce(&self) -> String {
        let n = self.counter.fetch_add(1, Ordering::Relaxed) as u64;
        let mut h = Sha256::new();
        h.update(self.seed);
        h.update(n.to_le_bytes());
        let d: [u8; 32] = h.finalize().into();
        b64::encode(&d[..12])
    }

    /// Seal `payload` with the signing key; `None` without keys.
    pub(crate) fn seal(&self, payload: &Payload) -> Option<String> {
        let key = self.keys.as_ref()?.signing();
        let json = serde_json::to_vec(payload).ok()?;
        let mut token = format!("{VERSION}.{}.{}", key.id, b64::encode(&json));
        let tag = mac(key, &[token.as_bytes()]);
        token.push('.');
        token.push_str(&b64::encode(&tag));
        Some(token)
    }

    /// Verify and decode a token. Any failure is the same refusal: a
    /// client learns nothing about which check failed.
    pub(crate) fn open(&self, token: &str) -> Option<Payload> {
        let keys = self.keys.as_ref()?;
        let (signed, tag) = token.rsplit_once('.')?;
        let mut parts = signed.split('.');
        let (Some(version), Some(id), Some(body), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        if version != VERSION {
            return None;
        }
        let key = keys.find(id)?;
        let tag = b64::decode(tag)?;
        let mut m = HmacSha256::new_from_slice(&key.secret).ok()?;
        m.update(signed.as_bytes());
        // Constant-time comparison.
        m.verify_slice(&tag).ok()?;
        let json = b64::decode(body)?;
        serde_json::from_slice(&json).ok()
    }
}

/// A principal as a state names it: base64url of the first 16 bytes of
/// the SHA-256 of its subject. Short, of fixed length however long the
/// subject, and no more readable than the subject is to its own client.
pub(crate) fn principal_digest(principal: &crate::auth::Principal) -> String {
    let d: [u8; 32] = Sha256::digest(principal.subject.as_bytes()).into();
    b64::encode(&d[..16])
}

fn mac(key: &Key, parts: &[&[u8]]) -> [u8; 32] {
    // HMAC accepts keys of any length; `new_from_slice` cannot fail for it.
    let mut m = match HmacSha256::new_from_slice(&key.secret) {
        Ok(m) => m,
        Err(_) => return [0u8; 32],
    };
    for p in parts {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload() -> Payload {
        Payload {
            m: String::from("tools/call"),
            t: String::from("t"),
            d: String::from("digest"),
            iat: 1,
            exp: 2,
            n: String::from("nonce"),
            p: Some(String::from("principal")),
            s: Some(serde_json::json!({"step": 1})),
            q: BTreeMap::from([(String::from("k"), Issued::Roots)]),
        }
    }

    fn sealer(keys: StateKeys) -> Sealer {
        Sealer::new(Some(keys), Duration::from_secs(60)).unwrap()
    }

    #[test]
    fn seals_and_opens() {
        let s = sealer(StateKeys::new([1u8; 32]));
        let token = s.seal(&payload()).unwrap();
        assert!(token.starts_with("v1."));
        assert_eq!(token.split('.').count(), 4);
        assert_eq!(s.open(&token), Some(payload()));
    }

    #[test]
    fn every_single_byte_change_is_refused() {
        let s = sealer(StateKeys::new([1u8; 32]));
        let token = s.seal(&payload()).unwrap();
        let bytes = token.as_bytes();
        for i in 0..bytes.len() {
            let mut t = bytes.to_vec();
            t[i] = if t[i] == b'A' { b'B' } else { b'A' };
            let t = String::from_utf8(t).unwrap();
            assert_eq!(s.open(&t), None, "byte {i} flipped: {t}");
        }
        assert_eq!(s.open(&format!("{token}-TAMPERED")), None);
        assert_eq!(s.open(""), None);
        assert_eq!(s.open("v1.a.b"), None);
    }

    #[test]
    fn rotation_and_foreign_keys() {
        let old = sealer(StateKeys::new([1u8; 32]));
        let rotated = sealer(StateKeys::new([2u8; 32]).also_accept([1u8; 32]));
        let foreign = sealer(StateKeys::new([3u8; 32]));
        let token = old.seal(&payload()).unwrap();
        assert_eq!(
            rotated.open(&token),
            Some(payload()),
            "a retired key verifies"
        );
        assert_eq!(foreign.open(&token), None);
        let new_token = rotated.seal(&payload()).unwrap();
        assert_eq!(old.open(&new_token), None, "sealed with the newest key");
    }

    #[test]
    fn short_secrets_and_zero_ttl_do_not_build() {
        assert!(matches!(
            Sealer::new(Some(StateKeys::new([1u8; 31])), Duration::from_secs(1)),
            Err(BuildError::InvalidStateKeys(_))
        ));
        assert!(matches!(
            Sealer::new(Some(StateKeys::new([1u8; 32])), Duration::ZERO),
            Err(BuildError::InvalidLimit(_))
        ));
    }

    #[test]
    fn principal_digests_are_short_and_tell_subjects_apart() {
        let alice = principal_digest(&crate::auth::Principal::new("alice", ["a"]));
        let long = principal_digest(&crate::auth::Principal::new("x".repeat(4096), ["a"]));
        // Scopes are not part of the binding: a token refreshed with other
        // scopes still retries its own request.
        let rescoped = principal_digest(&crate::auth::Principal::new("alice", ["b"]));
        assert_eq!(alice, rescoped);
        assert_ne!(
            alice,
            principal_digest(&crate::auth::Principal::new("bob", ["a"]))
        );
        assert_eq!((alice.len(), long.len()), (22, 22));
    }

    #[test]
    fn nonces_differ() {
        let s = sealer(StateKeys::new([1u8; 32]));
        let a = s.nonce();
        let b = s.nonce();
        assert_ne!(a, b);
        assert_eq!(a.len(), 16);
    }
}
