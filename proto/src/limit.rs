//! Rate limits per principal on the calls that cost a server the most:
//! `tools/call` (`server/tools.mdx` § Security Considerations: servers
//! MUST "rate limit tool invocations") and `completion/complete`
//! (`server/utilities/completion.mdx` § Security: implementations MUST
//! "implement appropriate rate limiting").
//!
//! Each principal has a token bucket: [`RateLimit::burst`] calls at once,
//! refilled at [`RateLimit::per_second`]. A call over the limit changes
//! nothing and is answered with [`ErrorObject::rate_limited`]: `-32001`
//! with `data: {"retryable": true, "retryAfterSeconds": n}`, and on
//! Streamable HTTP `429 Too Many Requests` with `Retry-After: n`
//! (RFC 6585 § 4). The spec names no answer of its own, so the meaning
//! travels where any client can read it.
//!
//! The key is the principal's subject: the authenticated one on HTTP, the
//! one the application named for stdio
//! ([`ServiceBuilder::stdio_principal`](crate::ServiceBuilder::stdio_principal)).
//! Requests without a principal share one bucket: without authorization
//! the limit is the server's own. Buckets are bounded
//! ([`RateLimit::max_principals`]): when the table is full, buckets that
//! have refilled completely are forgotten first (forgetting them changes
//! no answer), then the one idle longest.
//!
//! Time comes in with the request (`now`): the limiter reads no clock.

use alloc::collections::BTreeMap;
use alloc::string::String;
use std::sync::Mutex;

use crate::error::ErrorObject;
use crate::time::Instant;

/// The longest `Retry-After` a refusal names, in seconds (a day).
const MAX_RETRY_AFTER: u64 = 86_400;

/// A per-principal rate limit on `tools/call` and `completion/complete`
/// ([`ServiceBuilder::rate_limit`](crate::ServiceBuilder::rate_limit)).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct RateLimit {
    /// Calls a principal may make at once, after being idle.
    pub burst: u32,
    /// Calls per second a principal regains, up to `burst`.
    pub per_second: f64,
    /// Principals whose buckets are kept at most.
    ///
    /// Default: `10_000`
    pub max_principals: usize,
}

impl RateLimit {
    /// `burst` calls at once, `per_second` sustained.
    pub fn new(burst: u32, per_second: f64) -> Self {
        RateLimit {
            burst: burst.max(1),
            // Zero, negative or NaN: next to no refill (an infinite rate
            // is no limit after the burst).
            per_second: if per_second > 0.0 {
                per_second
            } else {
                f64::MIN_POSITIVE
            },
            max_principals: 10_000,
        }
    }
}

/// One principal's bucket: the calls it has left as of `at`.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The buckets of every principal, behind one lock held for a lookup.
#[derive(Debug)]
pub(crate) struct Limiter {
    limit: RateLimit,
    buckets: Mutex<BTreeMap<String, Bucket>>,
}

impl Limiter {
    pub(crate) fn new(limit: RateLimit) -> Self {
        Limiter {
            limit,
            buckets: Mutex::new(BTreeMap::new()),
        }
    }

    /// Take one call from `subject`'s bucket at `now`, or say how long
    /// until one is there.
    pub(crate) fn take(&self, subject: &str, now: Instant) -> Result<(), ErrorObject> {
        let limit = self.limit;
        let burst = f64::from(limit.burst);
        let refill = |b: Bucket| {
            let gained = now.saturating_duration_since(b.at).as_secs_f64() * limit.per_second;
            (b.tokens + gained).min(burst)
        };
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if !buckets.contains_key(subject) && buckets.len() >= limit.max_principals.max(1) {
            buckets.retain(|_, b| refill(*b) < burst);
            if buckets.len() >= limit.max_principals.max(1) {
                let idlest = buckets
                    .iter()
                    .min_by_key(|(_, b)| b.at)
                    .map(|(k, _)| k.clone());
                if let Some(k) = idlest {
                    buckets.remove(&k);
                }
            }
        }
        let bucket = buckets.entry(String::from(subject)).or_insert(Bucket {
            tokens: burst,
            at: now,
        });
        let tokens = refill(*bucket);
        if tokens >= 1.0 {
            *bucket = Bucket {
                tokens: tokens - 1.0,
                at: now,
            };
            return Ok(());
        }
        *bucket = Bucket { tokens, at: now };
        // Whole seconds, rounded up, at least one (`Retry-After` is in
        // seconds: RFC 9110 § 10.2.3), and at most a day: a rate so slow
        // that the wait overflows (or is infinite) is still an answer.
        let wait = ((1.0 - tokens) / limit.per_second).ceil();
        let seconds = if wait.is_finite() {
            wait.clamp(1.0, MAX_RETRY_AFTER as f64) as u64
        } else {
            MAX_RETRY_AFTER
        };
        Err(ErrorObject::rate_limited(seconds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    #[test]
    fn a_burst_then_the_sustained_rate() {
        let l = Limiter::new(RateLimit::new(3, 2.0));
        for _ in 0..3 {
            assert!(l.take("alice", at(0)).is_ok());
        }
        let refused = l.take("alice", at(0)).unwrap_err();
        assert_eq!(
            refused.data,
            Some(serde_json::json!({"retryable": true, "retryAfterSeconds": 1}))
        );
        // Half a second regains one call at two per second.
        assert!(l.take("alice", at(499)).is_err());
        assert!(l.take("alice", at(1000)).is_ok());
        // Another principal has a bucket of its own.
        assert!(l.take("bob", at(1000)).is_ok());
    }

    #[test]
    fn retry_after_rounds_up_to_whole_seconds() {
        let l = Limiter::new(RateLimit::new(1, 0.25));
        assert!(l.take("a", at(0)).is_ok());
        let e = l.take("a", at(0)).unwrap_err();
        assert_eq!(e.data.unwrap()["retryAfterSeconds"], 4);
    }

    /// A burst of zero is one call; a rate that is zero, negative, NaN or
    /// so slow the wait overflows still answers, with at most a day.
    #[test]
    fn degenerate_limits_answer_and_never_panic() {
        for rate in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e-300] {
            let l = Limiter::new(RateLimit::new(0, rate));
            assert!(l.take("a", at(0)).is_ok(), "{rate}: one call");
            match l.take("a", at(0)) {
                // An infinite rate refills at once.
                Ok(()) => assert_eq!(rate, f64::INFINITY),
                Err(e) => {
                    let s = e.data.unwrap()["retryAfterSeconds"].as_u64().unwrap();
                    assert!((1..=86_400).contains(&s), "{rate}: {s}");
                }
            }
        }
    }

    #[test]
    fn the_table_is_bounded_and_forgets_full_buckets_first() {
        let l = Limiter::new(RateLimit {
            max_principals: 2,
            ..RateLimit::new(1, 1.0)
        });
        assert!(l.take("a", at(0)).is_ok());
        assert!(l.take("b", at(500)).is_ok());
        // "a" is full again by 1000 ms and is forgotten for "c".
        assert!(l.take("c", at(1000)).is_ok());
        let kept: Vec<String> = l.buckets.lock().unwrap().keys().cloned().collect();
        assert_eq!(kept, ["b", "c"]);
        // None is full: the idlest ("b", last seen at 500 ms) goes.
        assert!(l.take("d", at(1200)).is_ok());
        let kept: Vec<String> = l.buckets.lock().unwrap().keys().cloned().collect();
        assert_eq!(kept, ["c", "d"]);
        // "c" kept its (empty) bucket.
        assert!(l.take("c", at(1300)).is_err());
    }
}
crate::options::setters!(RateLimit {
    max_principals: usize
});
