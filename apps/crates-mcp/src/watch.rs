//! Watching the cache for changes: a thread compares the cache's
//! [`fingerprint`](crate::cache::fingerprint) every interval and, when it
//! moved, re-reads the cache into the [`App`], which tells listen streams
//! (`notifications/resources/updated`). Polling, not inotify: it works the
//! same on every platform and a registry cache changes rarely.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::cache;
use crate::service::App;

/// A running watcher; dropping it stops the thread.
pub struct Watcher {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// Watch `app`'s registry every `interval`.
    pub fn start(app: Arc<App>, interval: Duration) -> std::io::Result<Watcher> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        // Taken now, not on the thread: a change right after `start`
        // returns must be seen as one.
        let mut seen = cache::fingerprint(app.registry());
        let thread = std::thread::Builder::new()
            .name("crates-watch".into())
            .spawn(move || {
                // Sleep in short steps so a stop is prompt.
                let step = Duration::from_millis(50).min(interval);
                let mut slept = Duration::ZERO;
                while !flag.load(Ordering::Acquire) {
                    std::thread::sleep(step);
                    slept += step;
                    if slept < interval {
                        continue;
                    }
                    slept = Duration::ZERO;
                    let now = cache::fingerprint(app.registry());
                    if now != seen {
                        seen = now;
                        tracing::info!(registry = %app.registry().display(), "the registry cache changed; re-reading it");
                        app.replace(cache::scan(app.registry(), |_, _| {}));
                    }
                }
            })?;
        Ok(Watcher {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
