//! Watching the cache for changes: a task on the tokio runtime compares
//! the cache's [`fingerprint`](crate::cache::fingerprint) every interval
//! and, when it moved, re-reads the cache into the [`App`], which tells
//! listen streams (`notifications/resources/updated`). Polling, not
//! inotify: it works the same on every platform and a registry cache
//! changes rarely. The reading is blocking file I/O, so each look runs on
//! the runtime's blocking pool, as a call's indexing does; the watcher has
//! no thread of its own.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;

use crate::cache;
use crate::service::App;

/// A running watcher; dropping it stops it (a look already reading
/// finishes on the blocking pool, and its catalog is still installed).
pub struct Watcher {
    task: JoinHandle<()>,
}

impl Watcher {
    /// Watch `app`'s registry every `interval`, on the current tokio
    /// runtime (an error outside one).
    pub fn start(app: Arc<App>, interval: Duration) -> std::io::Result<Watcher> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|e| std::io::Error::other(format!("the watcher runs on tokio: {e}")))?;
        // Taken now, not in the task: a change right after `start`
        // returns must be seen as one.
        let mut seen = cache::fingerprint(app.registry());
        let task = runtime.spawn(async move {
            let mut ticks = tokio::time::interval(interval);
            // A look slower than the interval is followed by the next one
            // an interval later, not by a burst.
            ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                let app = app.clone();
                let before = seen.clone();
                let look = tokio::task::spawn_blocking(move || {
                    let now = cache::fingerprint(app.registry());
                    if now != before {
                        tracing::info!(registry = %app.registry().display(), "the registry cache changed; re-reading it");
                        app.replace(cache::scan(app.registry(), |_, _| {}));
                    }
                    now
                });
                match look.await {
                    Ok(now) => seen = now,
                    // The look panicked (the cache is unreadable in a way
                    // the reader did not expect): the next one tries again.
                    Err(e) => tracing::warn!(error = %e, "watching the registry cache failed"),
                }
            }
        });
        Ok(Watcher { task })
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.task.abort();
    }
}
