//! Tuning knobs of the adapter. Protocol limits (message size, concurrent
//! calls, call timeout, HTTP limits, endpoint, allowed origins) live in the
//! [`Service`](snodo_proto::Service); these only bound what the adapter
//! itself holds: threads, buffers, sockets, time spent closing.

use core::time::Duration;
use snodo_proto::Limits;

use crate::driver::Settings;

/// Builder-style setters, one per listed field: `fn field(mut self, value) -> Self`.
macro_rules! setters {
    ($options:ident { $($(#[$doc:meta])* $field:ident: $ty:ty,)* }) => {
        impl $options {
            $(
                $(#[$doc])*
                pub fn $field(mut self, value: $ty) -> Self {
                    self.$field = value;
                    self
                }
            )*
        }
    };
}

/// Default cap on worker threads when [`StdioOptions::workers`] or
/// [`HttpOptions::workers`] is unset.
///
/// A worker runs one call at a time and is occupied for as long as that
/// call's future is pending, so workers bound how many calls make progress
/// at once. The service's `max_concurrent_calls` (64 by default) is a
/// protocol-level bound on calls handed out per connection; spawning that
/// many threads for a single stdio client is rarely useful, so the default
/// stops at 16. Calls beyond the worker count wait, in order, for a free
/// worker.
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

setters!(StdioOptions {
    /// Set [`read_chunk_bytes`](StdioOptions::read_chunk_bytes).
    read_chunk_bytes: usize,
    /// Set [`shutdown_grace`](StdioOptions::shutdown_grace).
    shutdown_grace: Duration,
    /// Set [`write_high_water`](StdioOptions::write_high_water).
    write_high_water: usize,
});

impl StdioOptions {
    /// Set the number of worker threads (see [`StdioOptions::workers`]).
    pub fn workers(mut self, n: usize) -> Self {
        self.workers = Some(n);
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

    pub(crate) fn settings(&self) -> Settings {
        Settings {
            read_chunk_bytes: self.read_chunk_bytes,
            write_high_water: self.write_high_water,
            grace: self.shutdown_grace,
            linger: self.shutdown_grace,
        }
    }
}

/// How [`serve_http`](crate::serve_http) runs its connections.
///
/// Threads: each open connection has three (its driver, a reader and a
/// writer: blocking sockets need one thread per direction), and handlers of
/// every connection share one pool of [`workers`](HttpOptions::workers).
/// So at most `3 × max_connections + workers` threads run, however many
/// clients connect.
///
/// Build with [`HttpOptions::default`] and the setters; fields are public
/// for inspection and adjustment.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpOptions {
    /// Worker threads running handler futures, shared by all connections.
    /// `None` picks [`DEFAULT_MAX_WORKERS`]; at least 1. Calls beyond the
    /// worker count wait, in order, for a free worker; the service's
    /// `call_timeout` runs while they wait.
    pub workers: Option<usize>,
    /// Connections served at once (at least 1). A connection accepted
    /// beyond this is closed at once, without a byte read or written: the
    /// listener keeps draining the kernel's backlog, and a client over the
    /// limit learns it immediately instead of waiting in a queue.
    pub max_connections: usize,
    /// Bytes asked of each connection's reader per `read` (at least 1). One
    /// chunk at most is read ahead of the connection.
    pub read_chunk_bytes: usize,
    /// Bytes queued for a connection's writer above which that connection
    /// reads no more input and drops its handlers' progress and log reports.
    pub write_high_water: usize,
    /// After the shutdown signal, how long calls in flight may take before
    /// they are cancelled (their connections are then closed unanswered).
    pub shutdown_grace: Duration,
    /// Once a connection is done, how long the adapter keeps writing its
    /// last bytes and reading (and discarding) what the peer still sends,
    /// so the close does not reset a response in flight.
    pub close_linger: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            workers: None,
            max_connections: 256,
            read_chunk_bytes: 16 * 1024,
            write_high_water: 1024 * 1024,
            shutdown_grace: Duration::from_secs(5),
            close_linger: Duration::from_secs(2),
        }
    }
}

setters!(HttpOptions {
    /// Set [`max_connections`](HttpOptions::max_connections).
    max_connections: usize,
    /// Set [`read_chunk_bytes`](HttpOptions::read_chunk_bytes).
    read_chunk_bytes: usize,
    /// Set [`write_high_water`](HttpOptions::write_high_water).
    write_high_water: usize,
    /// Set [`shutdown_grace`](HttpOptions::shutdown_grace).
    shutdown_grace: Duration,
    /// Set [`close_linger`](HttpOptions::close_linger).
    close_linger: Duration,
});

impl HttpOptions {
    /// Set the number of shared worker threads (see [`HttpOptions::workers`]).
    pub fn workers(mut self, n: usize) -> Self {
        self.workers = Some(n);
        self
    }

    /// The shared worker count actually used.
    pub fn worker_count(&self) -> usize {
        self.workers.unwrap_or(DEFAULT_MAX_WORKERS).max(1)
    }

    pub(crate) fn settings(&self) -> Settings {
        Settings {
            read_chunk_bytes: self.read_chunk_bytes,
            write_high_water: self.write_high_water,
            grace: self.shutdown_grace,
            linger: self.close_linger,
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
