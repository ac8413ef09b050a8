//! Verified tokens, remembered: a client sends the same access token on
//! every request until it expires, and checking its signature again each
//! time is most of what authorization costs per request.
//!
//! An entry is keyed by the SHA-256 of the token (the token itself is not
//! kept) and holds the [`Principal`] the full check produced. It is used
//! until the earlier of the token's `exp` and the time-to-live after it was
//! stored: a cached token is never accepted past its expiry, and a key set
//! that changed since (a JWKS refresh) drops every entry stored before it.
//! Only accepted tokens are stored. The cache belongs to one validator, so
//! an entry is never used for another issuer or audience.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use sha2::{Digest, Sha256};
use snodo_proto::Principal;

/// Default number of tokens remembered.
pub const DEFAULT_CAPACITY: usize = 1024;

/// Default time an entry is used for (at most: never past `exp`).
pub const DEFAULT_TTL: Duration = Duration::from_secs(60);

type Key = [u8; 32];

struct Entry {
    principal: Principal,
    /// Unix seconds; the entry is used while `now < expires`.
    expires: u64,
    /// The key set generation it was verified against.
    generation: u64,
}

/// A bounded map from token digests to the principal they stand for.
pub(crate) struct TokenCache {
    capacity: usize,
    ttl: u64,
    entries: Mutex<HashMap<Key, Entry>>,
    hits: AtomicU64,
}

fn digest(token: &str) -> Key {
    Sha256::digest(token.as_bytes()).into()
}

impl TokenCache {
    /// A cache of `capacity` entries (0: nothing is remembered), each used
    /// for at most `ttl`.
    pub(crate) fn new(capacity: usize, ttl: Duration) -> Self {
        TokenCache {
            capacity,
            ttl: ttl.as_secs(),
            entries: Mutex::new(HashMap::new()),
            hits: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The principal of `token` if it was verified against key set
    /// `generation` and its entry has not expired at `now` (unix seconds).
    pub(crate) fn get(&self, token: &str, now: u64, generation: u64) -> Option<Principal> {
        if self.capacity == 0 {
            return None;
        }
        let key = digest(token);
        let mut entries = self.lock();
        match entries.get(&key) {
            Some(e) if now < e.expires && e.generation == generation => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Some(e.principal.clone())
            }
            Some(_) => {
                entries.remove(&key);
                None
            }
            None => None,
        }
    }

    /// Remember that `token`, which expires at `exp`, stands for
    /// `principal`, as verified at `now` against key set `generation`.
    pub(crate) fn insert(
        &self,
        token: &str,
        principal: &Principal,
        exp: u64,
        now: u64,
        generation: u64,
    ) {
        let expires = exp.min(now.saturating_add(self.ttl));
        if self.capacity == 0 || expires <= now {
            return;
        }
        let mut entries = self.lock();
        if entries.len() >= self.capacity {
            entries.retain(|_, e| now < e.expires && e.generation == generation);
        }
        if entries.len() >= self.capacity {
            // Still full of live entries: the one that would go first goes.
            let soonest = entries
                .iter()
                .min_by_key(|(_, e)| e.expires)
                .map(|(k, _)| *k);
            if let Some(k) = soonest {
                entries.remove(&k);
            }
        }
        entries.insert(
            digest(token),
            Entry {
                principal: principal.clone(),
                expires,
                generation,
            },
        );
    }

    /// How many validations the cache answered.
    pub(crate) fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alice() -> Principal {
        Principal::new("alice", ["mcp"])
    }

    #[test]
    fn an_entry_is_used_until_the_earlier_of_exp_and_the_ttl() {
        let cache = TokenCache::new(8, Duration::from_secs(60));
        // exp before the TTL runs out: exp decides.
        cache.insert("t1", &alice(), 1_030, 1_000, 0);
        assert_eq!(cache.get("t1", 1_029, 0), Some(alice()));
        assert_eq!(cache.get("t1", 1_030, 0), None, "never at or past exp");
        assert_eq!(cache.len(), 0, "an expired entry is dropped when met");
        // TTL before exp: the TTL decides.
        cache.insert("t2", &alice(), 5_000, 1_000, 0);
        assert_eq!(cache.get("t2", 1_059, 0), Some(alice()));
        assert_eq!(cache.get("t2", 1_060, 0), None);
        // Already expired (accepted within the leeway): not stored.
        cache.insert("t3", &alice(), 999, 1_000, 0);
        assert_eq!(cache.len(), 0);
        assert_eq!(cache.get("t3", 1_000, 0), None);
    }

    #[test]
    fn another_token_or_key_set_misses() {
        let cache = TokenCache::new(8, Duration::from_secs(60));
        cache.insert("t1", &alice(), 2_000, 1_000, 3);
        assert_eq!(cache.get("t2", 1_001, 3), None);
        assert_eq!(cache.get("t1x", 1_001, 3), None);
        assert_eq!(cache.get("t1", 1_001, 4), None, "the keys changed since");
        assert_eq!(cache.get("t1", 1_001, 3), None, "and the entry is gone");
    }

    #[test]
    fn a_full_cache_drops_expired_entries_then_the_soonest_to_expire() {
        let cache = TokenCache::new(2, Duration::from_secs(600));
        cache.insert("a", &alice(), 1_100, 1_000, 0);
        cache.insert("b", &alice(), 1_300, 1_000, 0);
        // Full, nothing expired: "a" expires first and goes.
        cache.insert("c", &alice(), 1_200, 1_000, 0);
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get("a", 1_001, 0), None);
        assert!(cache.get("b", 1_001, 0).is_some());
        assert!(cache.get("c", 1_001, 0).is_some());
        // Full at 1_250: "c" has expired and makes room; "b" stays.
        cache.insert("d", &alice(), 1_400, 1_250, 0);
        assert_eq!(cache.len(), 2);
        assert!(cache.get("b", 1_251, 0).is_some());
        assert!(cache.get("d", 1_251, 0).is_some());
    }

    #[test]
    fn capacity_zero_remembers_nothing() {
        let cache = TokenCache::new(0, Duration::from_secs(60));
        cache.insert("t", &alice(), 2_000, 1_000, 0);
        assert_eq!(cache.get("t", 1_001, 0), None);
        assert_eq!(cache.len(), 0);
    }
}
