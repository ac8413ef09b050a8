//! A JWKS kept in memory and refreshed in the background.
//!
//! [`Authenticator::authenticate`](snodo_proto::Authenticator::authenticate) runs
//! on a connection's thread and must not block, so the key set is read
//! (from a file) or fetched (over HTTPS) by a thread of its own, and
//! validation reads whatever set it last swapped in. A token naming a
//! `kid` the set lacks asks for a refresh — at most once per
//! [`min_refresh`](crate::JwtValidatorBuilder::jwks_min_refresh), so a
//! forged `kid` cannot make the server hammer the authorization server —
//! and waits for the refresh under way ([`RefreshWait`]): a client whose
//! token was signed by a key the provider just rotated in is answered once
//! the new set is in, instead of being told its valid token is invalid.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, Weak};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use crate::keys::{parse_jwks, Key, KeyError};

/// The largest JWKS document read (a provider's set is a few KiB).
const MAX_JWKS: u64 = 1024 * 1024;

/// Where a key set comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JwksSource {
    /// A JWKS file, read again on each refresh.
    File(PathBuf),
    /// A JWKS URL: `https://`, or `http://` on a loopback host only.
    Url(String),
}

impl JwksSource {
    /// A source from a command-line value: a URL if it has a scheme, a
    /// file path otherwise.
    pub fn parse(value: &str) -> Result<JwksSource, KeyError> {
        if value.contains("://") {
            check_url(value, "a JWKS URL")?;
            Ok(JwksSource::Url(value.to_owned()))
        } else {
            Ok(JwksSource::File(PathBuf::from(value)))
        }
    }

    fn load(&self, agent: &Agent) -> Result<Vec<Key>, String> {
        let bytes = match self {
            JwksSource::File(path) => {
                use std::io::Read;
                let mut bytes = Vec::new();
                std::fs::File::open(path)
                    .and_then(|f| f.take(MAX_JWKS).read_to_end(&mut bytes))
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                bytes
            }
            JwksSource::Url(url) => fetch(agent, url)?,
        };
        parse_jwks(&bytes).map_err(|e| e.to_string())
    }
}

/// Keys are fetched (and tokens introspected) over TLS; plain HTTP only
/// to this machine (a local authorization server in development and
/// tests). `what` names the URL in the error.
pub(crate) fn check_url(url: &str, what: &str) -> Result<(), KeyError> {
    if url.starts_with("https://") {
        return Ok(());
    }
    let loopback = ["http://127.0.0.1", "http://localhost", "http://[::1]"]
        .iter()
        .any(|p| {
            url.strip_prefix(p)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', '/']))
        });
    if loopback {
        Ok(())
    } else {
        Err(KeyError::Invalid(format!(
            "{what} must be https:// (http:// only on loopback): {url}"
        )))
    }
}

/// What fetches a JWKS URL ([`crate::https`]).
#[cfg(feature = "https")]
type Agent = ureq::Agent;
/// Without `https` nothing is fetched.
#[cfg(not(feature = "https"))]
struct Agent;

/// How long one JWKS fetch may take.
#[cfg(feature = "https")]
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

#[cfg(feature = "https")]
fn fetch(agent: &Agent, url: &str) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let response = agent.get(url).call().map_err(|e| e.to_string())?;
    let mut bytes = Vec::new();
    response
        .into_reader()
        .take(MAX_JWKS)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}

#[cfg(not(feature = "https"))]
fn fetch(_: &Agent, url: &str) -> Result<Vec<u8>, String> {
    Err(format!(
        "snodo-auth was built without the `https` feature: cannot fetch {url}"
    ))
}

/// The key set and its refresher.
pub(crate) struct Jwks {
    keys: RwLock<Arc<Vec<Key>>>,
    refreshes: Mutex<Refreshes>,
    min_refresh: Duration,
    wake: SyncSender<()>,
    loads: AtomicU64,
}

/// The refresher's progress, as the requests waiting on it see it.
#[derive(Default)]
struct Refreshes {
    /// When a refresh was last asked for, to bound the rate.
    last_asked: Option<Instant>,
    /// A refresh is asked for or under way.
    pending: bool,
    /// Refreshes finished, loaded or failed.
    finished: u64,
    /// The last one failed: the set held is older than asked for.
    last_failed: bool,
    /// Whom to wake when the next one finishes.
    waiters: Vec<Waker>,
}

impl Jwks {
    /// Start the refresher. A file is read before this returns (a
    /// missing or broken file is a configuration error); a URL is fetched
    /// by the refresher, and tokens wait for it (see [`RefreshWait`]).
    pub(crate) fn start(
        source: JwksSource,
        min_refresh: Duration,
        roots: &crate::TrustRoots,
    ) -> Result<Arc<Jwks>, KeyError> {
        #[cfg(feature = "https")]
        let agent = roots.agent(FETCH_TIMEOUT)?;
        #[cfg(not(feature = "https"))]
        let agent = {
            let _ = roots;
            Agent
        };
        let initial = match &source {
            JwksSource::File(_) => source.load(&agent).map_err(KeyError::Invalid)?,
            JwksSource::Url(url) => {
                check_url(url, "a JWKS URL")?;
                Vec::new()
            }
        };
        let (wake, woken) = mpsc::sync_channel(1);
        let jwks = Arc::new(Jwks {
            keys: RwLock::new(Arc::new(initial)),
            refreshes: Mutex::new(Refreshes::default()),
            min_refresh,
            wake,
            loads: AtomicU64::new(0),
        });
        if matches!(source, JwksSource::Url(_)) {
            // The first fetch is the first refresh: tokens that come
            // before it wait for it.
            jwks.refreshes().pending = true;
            let _ = jwks.wake.try_send(());
        } else {
            jwks.loads.store(1, Ordering::Relaxed);
        }
        let weak = Arc::downgrade(&jwks);
        std::thread::Builder::new()
            .name("snodo-jwks".into())
            .spawn(move || refresher(source, agent, weak, woken))
            .map_err(|e| KeyError::Invalid(format!("cannot start the JWKS thread: {e}")))?;
        Ok(jwks)
    }

    /// The current keys.
    pub(crate) fn keys(&self) -> Arc<Vec<Key>> {
        self.keys.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn refreshes(&self) -> MutexGuard<'_, Refreshes> {
        self.refreshes.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ask for a refresh, unless one was asked for less than
    /// `min_refresh` ago. Never blocks. The wait is for the refresh under
    /// way (this one or an earlier one still running); `None` when there
    /// is none: the set held is as fresh as the rate bound allows.
    pub(crate) fn ask_refresh(self: &Arc<Self>) -> Option<RefreshWait> {
        let mut r = self.refreshes();
        if !r.pending {
            let now = Instant::now();
            if r.last_asked
                .is_some_and(|t| now.duration_since(t) < self.min_refresh)
            {
                return None;
            }
            r.last_asked = Some(now);
            r.pending = true;
            // A full channel means a wake-up is already queued.
            let _ = self.wake.try_send(());
        }
        Some(RefreshWait {
            jwks: self.clone(),
            after: r.finished,
        })
    }

    /// How long a client should wait before trying again when the set
    /// could not be refreshed: no refresh is asked for sooner.
    pub(crate) fn retry_after(&self) -> u64 {
        self.min_refresh.as_secs().max(1)
    }

    /// How many times a key set has been loaded.
    pub(crate) fn loads(&self) -> u64 {
        self.loads.load(Ordering::Relaxed)
    }
}

/// Load on each wake-up until the validator is gone. A failed load keeps
/// the keys held (an authorization server's outage does not log everyone
/// out) and is logged without the document.
fn refresher(source: JwksSource, agent: Agent, jwks: Weak<Jwks>, woken: Receiver<()>) {
    while woken.recv().is_ok() {
        let loaded = source.load(&agent);
        let Some(jwks) = jwks.upgrade() else { return };
        let waiters = {
            // The keys change and the refresh ends under one lock: a check
            // that already sees the new keys and then asks for a refresh
            // finds this one over, not still pending.
            let mut r = jwks.refreshes();
            let failed = match loaded {
                Ok(keys) => {
                    *jwks.keys.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(keys);
                    jwks.loads.fetch_add(1, Ordering::Relaxed);
                    false
                }
                Err(why) => {
                    tracing::warn!(%why, "JWKS not refreshed");
                    true
                }
            };
            r.pending = false;
            r.finished += 1;
            r.last_failed = failed;
            std::mem::take(&mut r.waiters)
        };
        waiters.into_iter().for_each(Waker::wake);
    }
}

/// Ready once the refresh that was under way when it was made has
/// finished; its output says whether that refresh failed.
pub(crate) struct RefreshWait {
    jwks: Arc<Jwks>,
    after: u64,
}

impl Future for RefreshWait {
    type Output = bool;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<bool> {
        let mut r = self.jwks.refreshes();
        if r.finished > self.after {
            return Poll::Ready(r.last_failed);
        }
        if !r.waiters.iter().any(|w| w.will_wake(cx.waker())) {
            r.waiters.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jwks_urls_are_https_or_loopback() {
        assert!(check_url("https://auth.example.com/jwks", "a URL").is_ok());
        assert!(check_url("http://127.0.0.1:8080/jwks", "a URL").is_ok());
        assert!(check_url("http://localhost/jwks", "a URL").is_ok());
        assert!(check_url("http://[::1]:9/x", "a URL").is_ok());
        assert!(check_url("http://auth.example.com/jwks", "a URL").is_err());
        assert!(check_url("http://localhost.evil.example/jwks", "a URL").is_err());
        assert!(check_url("http://127.0.0.1.evil.example/", "a URL").is_err());
        assert_eq!(
            JwksSource::parse("keys/jwks.json").unwrap(),
            JwksSource::File("keys/jwks.json".into())
        );
    }
}
