//! Tuning knobs of the stdio adapter.

use core::time::Duration;
use snodo_proto::Limits;

/// Default cap on worker threads when [`StdioOptions::workers`] is unset.
///
/// A worker runs one call at a time and is occupied for as long as that
/// call's future is pending, so workers bound how many calls make progress
/// at once. The service's `max_concurrent_calls` (64 by default) is a
/// protocol-level bound on calls handed out; spawning that many threads for
/// a single stdio client is rarely useful, so the default stops at 16. Calls
/// beyond the worker count wait, in order, for a free worker.
pub const DEFAULT_MAX_WORKERS: usize = 16;

/// How [`serve`](crate::serve) runs a connection.
///
/// Build with [`StdioOptions::default`] and the setters; fields are public
/// for inspection and adjustment.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StdioOptions {
    /// Worker threads running handler futures. `None` picks
    /// `min(max_concurrent_calls, DEFAULT_MAX_WORKERS)`. Any value is
    /// clamped to `1..=max_concurrent_calls`: the connection never hands out
    /// more calls than that, so further workers would only sit idle.
    pub workers: Option<usize>,
    /// Bytes asked of the reader per `read` (at least 1). One chunk at most
    /// is read ahead of the connection, so this also bounds read-ahead memory.
    pub read_chunk_bytes: usize,
    /// After end of input, how long calls still running may take before they
    /// are cancelled and [`serve`](crate::serve) returns; then, separately,
    /// how long the writer may take to flush what is left. `basic/transports/stdio.mdx`
    /// § Shutdown: servers SHOULD exit promptly when stdin closes.
    pub shutdown_grace: Duration,
    /// Bytes queued for the writer above which no more input is read and
    /// handlers' progress and log reports are dropped, so a client that does
    /// not read its side cannot make the server buffer without bound.
    pub write_high_water: usize,
}

impl Default for StdioOptions {
    fn default() -> Self {
        StdioOptions {
            workers: None,
            read_chunk_bytes: 64 * 1024,
            shutdown_grace: Duration::from_secs(5),
            write_high_water: 1024 * 1024,
        }
    }
}

impl StdioOptions {
    /// Set the number of worker threads (see [`StdioOptions::workers`]).
    pub fn workers(mut self, n: usize) -> Self {
        self.workers = Some(n);
        self
    }

    /// Set the read chunk size.
    pub fn read_chunk_bytes(mut self, n: usize) -> Self {
        self.read_chunk_bytes = n;
        self
    }

    /// Set the shutdown grace period.
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Set the writer backlog high-water mark.
    pub fn write_high_water(mut self, bytes: usize) -> Self {
        self.write_high_water = bytes;
        self
    }

    /// The worker count actually used with `limits`.
    pub fn worker_count(&self, limits: &Limits) -> usize {
        let max = limits.max_concurrent_calls.max(1);
        match self.workers {
            Some(n) => n.clamp(1, max),
            None => max.min(DEFAULT_MAX_WORKERS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_workers_follow_the_concurrency_limit_up_to_the_cap() {
        let limits = |max_concurrent_calls| Limits {
            max_concurrent_calls,
            ..Limits::default()
        };
        assert_eq!(StdioOptions::default().worker_count(&limits(4)), 4);
        let capped = StdioOptions::default().worker_count(&limits(64));
        assert_eq!(capped, DEFAULT_MAX_WORKERS);
    }

    #[test]
    fn explicit_workers_are_clamped_to_what_can_be_used() {
        let limits = Limits {
            max_concurrent_calls: 8,
            ..Limits::default()
        };
        assert_eq!(StdioOptions::default().workers(0).worker_count(&limits), 1);
        assert_eq!(StdioOptions::default().workers(32).worker_count(&limits), 8);
        assert_eq!(StdioOptions::default().workers(3).worker_count(&limits), 3);
    }
}
