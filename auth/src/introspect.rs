//! [`IntrospectionValidator`]: opaque (or any) access tokens checked by
//! asking the authorization server (RFC 7662 token introspection), the
//! second way § Token Handling leaves a resource server to validate a
//! token.
//!
//! See [`IntrospectionValidator`].

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use serde_json::{Map, Value};
use snodo_proto::auth::{Authentication, Verdict};
use snodo_proto::{Authenticator, Principal, Rejection};

use crate::cache::{TokenCache, DEFAULT_CAPACITY, DEFAULT_TTL};
use crate::jwt::{ConfigError, MAX_LEEWAY};

/// The largest introspection answer read.
const MAX_ANSWER: u64 = 64 * 1024;

/// Validates access tokens for one resource by RFC 7662 introspection.
/// Build it with [`IntrospectionValidator::builder`]; hand it to
/// [`Authorization::new`](snodo_proto::Authorization::new).
///
/// A token is sent to the introspection endpoint with the resource
/// server's own client credentials (`client_secret_basic`, RFC 6749
/// § 2.3.1) and the answer is held to the same rules as a JWT's claims:
///
/// - `active` must be `true`;
/// - `aud` must name the resource's canonical URI (RFC 8707), always: an
///   answer without `aud` is refused, there is no switch to turn it off;
/// - `iss`, when an issuer is configured, exactly that;
/// - `exp` and `nbf`, when present, with the leeway (capped at
///   [`MAX_LEEWAY`](crate::MAX_LEEWAY));
/// - `sub` becomes the principal's subject (a client credentials token
///   without `sub` stands for its `client_id`), `scope` its scopes.
///
/// An accepted answer is remembered (by the token's SHA-256, bounded in
/// number and time, never past `exp`: [`IntrospectionValidatorBuilder::cache`]),
/// and a token found there is answered at once. Any other is deferred
/// ([`Authentication::Deferred`]): the request goes out from a small pool
/// of threads of this validator's own, so no executor thread ever blocks
/// on it and it runs the same under tokio, smol or plain threads; the
/// future completes when the answer is in. The pool's threads and its
/// queue are bounded ([`IntrospectionValidatorBuilder::workers`]); a
/// token that finds the queue full is not refused but answered
/// "unavailable".
///
/// **An endpoint that cannot answer is not a bad token.** A request that
/// fails (no connection, a timeout, a 5xx or any other non-200, an answer
/// that is not JSON) makes the verdict
/// [`Verdict::Unavailable`]: proto answers `503 Service Unavailable` with
/// `Retry-After` and a retryable JSON-RPC error, not 401 `invalid_token`.
/// A client that hears 401 throws its token away and starts its
/// authorization flow again (a person may have to log in again) for what
/// is an outage on the server's side; a 503 tells it to send the same
/// request again shortly, which is right once the endpoint is back.
///
/// Neither the token nor the client secret is ever logged; a refusal
/// names the check that failed, not the value.
#[derive(Clone)]
pub struct IntrospectionValidator {
    inner: Arc<Inner>,
}

struct Inner {
    check: Arc<Check>,
    /// The pool's queue; dropping it (the last validator clone) ends the
    /// pool's threads.
    queue: SyncSender<Job>,
}

/// What a check needs, shared with the pool's threads.
struct Check {
    endpoint: String,
    /// `Basic …` of the resource server's client credentials.
    credentials: String,
    audience: String,
    issuer: Option<String>,
    leeway: u64,
    claims: Vec<String>,
    cache: TokenCache,
    retry_after: u64,
    #[cfg(feature = "https")]
    agent: ureq::Agent,
    /// Introspection requests made.
    requests: AtomicU64,
}

impl core::fmt::Debug for IntrospectionValidator {
    /// Without the client's credentials.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("IntrospectionValidator")
            .field("endpoint", &self.inner.check.endpoint)
            .field("audience", &self.inner.check.audience)
            .field("issuer", &self.inner.check.issuer)
            .finish_non_exhaustive()
    }
}

/// Configures an [`IntrospectionValidator`]. The endpoint, the client
/// credentials and the audience are given up front and cannot be unset.
pub struct IntrospectionValidatorBuilder {
    endpoint: String,
    client_id: String,
    client_secret: String,
    audience: String,
    issuer: Option<String>,
    leeway: Duration,
    claims: Vec<String>,
    cache: (usize, Duration),
    timeout: Duration,
    workers: usize,
    max_pending: usize,
    retry_after: u64,
    #[cfg_attr(not(feature = "https"), allow(dead_code))]
    roots: crate::TrustRoots,
}

impl core::fmt::Debug for IntrospectionValidatorBuilder {
    /// Without the client secret.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("IntrospectionValidatorBuilder")
            .field("endpoint", &self.endpoint)
            .field("client_id", &self.client_id)
            .field("audience", &self.audience)
            .finish_non_exhaustive()
    }
}

impl IntrospectionValidator {
    /// A validator that asks `endpoint` (the authorization server's
    /// `introspection_endpoint`: `https://`, or `http://` on loopback
    /// only) about each token, authenticating as `client_id` with
    /// `client_secret` (`client_secret_basic`), and accepts tokens whose
    /// `aud` names `audience`: the resource's canonical URI, the same
    /// string as [`Authorization::new`](snodo_proto::Authorization::new)'s
    /// resource (RFC 8707 § 2; § Token Audience Binding and Validation).
    pub fn builder(
        endpoint: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        audience: impl Into<String>,
    ) -> IntrospectionValidatorBuilder {
        IntrospectionValidatorBuilder {
            endpoint: endpoint.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            audience: audience.into(),
            issuer: None,
            leeway: Duration::from_secs(60),
            claims: Vec::new(),
            cache: (DEFAULT_CAPACITY, DEFAULT_TTL),
            timeout: Duration::from_secs(5),
            workers: 4,
            max_pending: 256,
            retry_after: 5,
            roots: crate::TrustRoots::default(),
        }
    }

    /// How many introspection requests were made.
    pub fn requests(&self) -> u64 {
        self.inner.check.requests.load(Ordering::Relaxed)
    }

    /// How many tokens were accepted from the cache rather than asked
    /// about again.
    pub fn cache_hits(&self) -> u64 {
        self.inner.check.cache.hits()
    }
}

impl Authenticator for IntrospectionValidator {
    /// A token accepted before and still fresh: at once. Any other: a
    /// future of the endpoint's answer, worked out on the pool.
    fn authenticate(&self, token: &str, _resource: &str) -> Authentication {
        let check = &self.inner.check;
        if let Some(principal) = check.cache.get(token, unix_now(), 0) {
            return Authentication::Ready(Verdict::Accepted(principal));
        }
        let slot = Arc::new(Slot::default());
        let job = Job {
            token: token.to_owned(),
            slot: slot.clone(),
        };
        match self.inner.queue.try_send(job) {
            Ok(()) => Authentication::Deferred(Box::pin(Pending { slot })),
            Err(TrySendError::Full(_)) => {
                tracing::warn!("token introspection queue is full; answering unavailable");
                Authentication::Ready(Verdict::Unavailable {
                    retry_after: check.retry_after,
                })
            }
            Err(TrySendError::Disconnected(_)) => {
                tracing::error!("token introspection threads are gone");
                Authentication::Ready(Verdict::Unavailable {
                    retry_after: check.retry_after,
                })
            }
        }
    }
}

impl IntrospectionValidatorBuilder {
    /// Also require `iss` to be exactly `issuer` (RFC 7662 leaves `iss`
    /// optional; an answer without it is then refused).
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Clock skew tolerated on `exp` and `nbf`, capped at
    /// [`MAX_LEEWAY`]. Default: `Duration::from_secs(60)`.
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway.min(MAX_LEEWAY);
        self
    }

    /// Remember up to `capacity` accepted tokens (by their SHA-256), each
    /// for at most `ttl` and never past its `exp`; a token found there is
    /// not asked about again, so a revocation takes up to `ttl` to be
    /// seen. `capacity` 0 turns the cache off. Default: 1024 tokens,
    /// `Duration::from_secs(60)`.
    pub fn cache(mut self, capacity: usize, ttl: Duration) -> Self {
        self.cache = (capacity, ttl);
        self
    }

    /// The most time one introspection request may take (connecting,
    /// sending, reading the answer); past it the verdict is unavailable.
    /// Keep it under the request deadline
    /// ([`HttpConfig::request_timeout`](snodo_proto::HttpConfig), 30 s by
    /// default). Default: `Duration::from_secs(5)`.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// `workers` threads make introspection requests (at least 1), and at
    /// most `max_pending` tokens wait for one; a token beyond that is
    /// answered unavailable at once. Default: 4 and 256.
    pub fn workers(mut self, workers: usize, max_pending: usize) -> Self {
        self.workers = workers.max(1);
        self.max_pending = max_pending;
        self
    }

    /// The `Retry-After` (seconds) of an unavailable verdict. Default: 5.
    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = seconds;
        self
    }

    /// The root CAs the endpoint's certificate may chain to: Mozilla's by
    /// default; add an authorization server's private CA with
    /// [`TrustRoots::with_pem`](crate::TrustRoots::with_pem).
    pub fn roots(mut self, roots: crate::TrustRoots) -> Self {
        self.roots = roots;
        self
    }

    /// A member of the introspection answer to copy into
    /// [`Principal::claims`] when it has it.
    pub fn claim(mut self, name: impl Into<String>) -> Self {
        self.claims.push(name.into());
        self
    }

    /// The validator, with its threads started.
    pub fn build(self) -> Result<IntrospectionValidator, ConfigError> {
        if self.audience.is_empty() {
            return Err(ConfigError::Empty("audience"));
        }
        if self.client_id.is_empty() {
            return Err(ConfigError::Empty("client id"));
        }
        if self.issuer.as_deref() == Some("") {
            return Err(ConfigError::Empty("issuer"));
        }
        crate::jwks::check_url(&self.endpoint, "an introspection endpoint")?;
        // RFC 6749 § 2.3.1: each part form-urlencoded, then Basic.
        let pair = format!(
            "{}:{}",
            form_urlencode(&self.client_id),
            form_urlencode(&self.client_secret)
        );
        let credentials = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        );
        let check = Arc::new(Check {
            endpoint: self.endpoint,
            credentials,
            audience: self.audience,
            issuer: self.issuer,
            leeway: self.leeway.as_secs(),
            claims: self.claims,
            cache: TokenCache::new(self.cache.0, self.cache.1),
            retry_after: self.retry_after,
            #[cfg(feature = "https")]
            agent: self.roots.agent(self.timeout)?,
            requests: AtomicU64::new(0),
        });
        let (queue, jobs) = mpsc::sync_channel(self.max_pending);
        let jobs = Arc::new(Mutex::new(jobs));
        for i in 0..self.workers {
            let (check, jobs) = (check.clone(), jobs.clone());
            std::thread::Builder::new()
                .name(format!("snodo-introspect-{i}"))
                .spawn(move || worker(&check, &jobs))
                .map_err(|e| {
                    ConfigError::Key(crate::KeyError::Invalid(format!(
                        "cannot start the introspection threads: {e}"
                    )))
                })?;
        }
        Ok(IntrospectionValidator {
            inner: Arc::new(Inner { check, queue }),
        })
    }
}

/// A token waiting for a worker.
struct Job {
    token: String,
    slot: Arc<Slot>,
}

/// Where a worker leaves the verdict for the future waiting on it.
#[derive(Default)]
struct Slot {
    state: Mutex<(Option<Verdict>, Option<Waker>)>,
    /// The future was dropped (the client left, the deadline passed): a
    /// worker that has not started on it skips it.
    abandoned: AtomicBool,
}

impl Slot {
    fn fill(&self, verdict: Verdict) {
        let waker = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            state.0 = Some(verdict);
            state.1.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// The future of one token's verdict.
struct Pending {
    slot: Arc<Slot>,
}

impl Future for Pending {
    type Output = Verdict;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Verdict> {
        let mut state = self.slot.state.lock().unwrap_or_else(|e| e.into_inner());
        match state.0.take() {
            Some(verdict) => Poll::Ready(verdict),
            None => {
                if !state.1.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    state.1 = Some(cx.waker().clone());
                }
                Poll::Pending
            }
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.slot.abandoned.store(true, Ordering::Relaxed);
    }
}

/// Take tokens off the queue until the validator is gone.
fn worker(check: &Check, jobs: &Mutex<Receiver<Job>>) {
    loop {
        let job = {
            let jobs = jobs.lock().unwrap_or_else(|e| e.into_inner());
            jobs.recv()
        };
        let Ok(job) = job else { return };
        if job.slot.abandoned.load(Ordering::Relaxed) {
            continue;
        }
        let verdict = check.introspect(&job.token);
        job.slot.fill(verdict);
    }
}

impl Check {
    /// Ask the endpoint about `token` and judge its answer.
    fn introspect(&self, token: &str) -> Verdict {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let answer = match self.ask(token) {
            Ok(answer) => answer,
            Err(why) => {
                tracing::warn!(endpoint = %self.endpoint, %why, "token introspection failed");
                return Verdict::Unavailable {
                    retry_after: self.retry_after,
                };
            }
        };
        let now = unix_now();
        match self.judge(answer, now) {
            Ok((principal, exp)) => {
                self.cache.insert(token, &principal, exp, now, 0);
                Verdict::Accepted(principal)
            }
            Err(why) => Verdict::Rejected(Rejection(why.to_owned())),
        }
    }

    /// The endpoint's JSON answer (RFC 7662 § 2.1: a form POST with the
    /// token; § 2.2: a JSON object), or why there is none.
    #[cfg(feature = "https")]
    fn ask(&self, token: &str) -> Result<Map<String, Value>, String> {
        use std::io::Read;
        let response = self
            .agent
            .post(&self.endpoint)
            .set("Authorization", &self.credentials)
            .set("Accept", "application/json")
            .send_form(&[("token", token), ("token_type_hint", "access_token")]);
        let response = match response {
            Ok(r) if r.status() == 200 => r,
            Ok(r) => return Err(format!("status {}", r.status())),
            Err(ureq::Error::Status(status, _)) => return Err(format!("status {status}")),
            Err(ureq::Error::Transport(t)) => return Err(t.kind().to_string()),
        };
        let mut bytes = Vec::new();
        response
            .into_reader()
            .take(MAX_ANSWER)
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())?;
        serde_json::from_slice(&bytes).map_err(|_| "the answer is not a JSON object".to_owned())
    }

    #[cfg(not(feature = "https"))]
    fn ask(&self, _token: &str) -> Result<Map<String, Value>, String> {
        let _ = (&self.credentials, MAX_ANSWER);
        Err("snodo-auth was built without the `https` feature".to_owned())
    }

    /// The principal an active answer stands for and until when it may
    /// be remembered, or what is wrong with it.
    fn judge(
        &self,
        mut answer: Map<String, Value>,
        now: u64,
    ) -> Result<(Principal, u64), &'static str> {
        if answer.get("active") != Some(&Value::Bool(true)) {
            return Err("The token is not active");
        }
        let exp = match answer.get("exp") {
            None => None,
            Some(v) => Some(v.as_u64().ok_or("The token's exp is not a number")?),
        };
        if exp.is_some_and(|exp| now >= exp.saturating_add(self.leeway)) {
            return Err("The token has expired");
        }
        match answer.get("nbf") {
            None => {}
            Some(v) => {
                let nbf = v.as_u64().ok_or("The token's nbf is not a number")?;
                if now.saturating_add(self.leeway) < nbf {
                    return Err("The token is not yet valid");
                }
            }
        }
        let for_us = match answer.get("aud") {
            Some(Value::String(aud)) => *aud == self.audience,
            Some(Value::Array(auds)) => auds.iter().any(|a| a.as_str() == Some(&self.audience)),
            Some(_) => false,
            None => return Err("The token has no audience"),
        };
        if !for_us {
            return Err("The token was issued for another audience");
        }
        if let Some(issuer) = &self.issuer {
            match answer.get("iss") {
                Some(Value::String(iss)) if iss == issuer => {}
                Some(_) => return Err("The token was issued by another issuer"),
                None => return Err("The token has no issuer"),
            }
        }
        let subject = match (answer.get("sub"), answer.get("client_id")) {
            (Some(Value::String(s)), _) if !s.is_empty() => s.clone(),
            (None, Some(Value::String(c))) if !c.is_empty() => c.clone(),
            _ => return Err("The token has no subject"),
        };
        let scopes: Vec<String> = match answer.get("scope") {
            Some(Value::String(s)) => s.split_ascii_whitespace().map(str::to_owned).collect(),
            Some(_) => return Err("The token's scope is not a string"),
            None => Vec::new(),
        };
        let audience = crate::claims::audiences(answer.get("aud"))?;
        let mut principal = Principal::new(subject, scopes).audience(audience);
        for name in &self.claims {
            if let Some(value) = answer.remove(name) {
                principal.claims.insert(name.clone(), value);
            }
        }
        // Without `exp`, the cache's TTL alone bounds the entry.
        Ok((principal, exp.unwrap_or(u64::MAX)))
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `application/x-www-form-urlencoded` of one value (RFC 6749 § 2.3.1
/// encodes the client id and secret so before joining them).
fn form_urlencode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_credentials_are_form_urlencoded_before_basic() {
        assert_eq!(form_urlencode("s3cr:t /+é"), "s3cr%3At+%2F%2B%C3%A9");
        assert_eq!(form_urlencode("client-1.a_b*"), "client-1.a_b*");
    }
}
