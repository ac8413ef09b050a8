//! Adapter knobs. Protocol limits (message size, concurrent calls, queue
//! depth, call timeout, and on HTTP the endpoint and header limits) belong to
//! the [`Service`](snodo_proto::Service), not here: these only size the
//! adapter's own buffers and the server's resources.

use std::time::Duration;

/// How the adapter runs connections.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Bytes read from a stream at a time.
    pub read_buffer: usize,
    /// Reports (completions, progress, log messages) that may wait for a
    /// connection to pick them up. Progress and log events beyond it are
    /// dropped; completions wait.
    pub report_queue: usize,
    /// HTTP: connections served at once. When reached, the server stops
    /// accepting until one closes (new clients wait in the listen backlog).
    pub max_connections: usize,
    /// How long calls in flight may keep running once a connection winds
    /// down: after end of input on stdio (`basic/transports/stdio.mdx`
    /// § Shutdown: servers SHOULD exit promptly), or after the server's
    /// shutdown signal on HTTP. Calls still running then are cancelled,
    /// unanswered, and the connection is closed.
    pub shutdown_grace: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            read_buffer: 16 * 1024,
            report_queue: 256,
            max_connections: 1024,
            shutdown_grace: Duration::from_secs(5),
        }
    }
}

impl Options {
    /// Set [`read_buffer`](Self::read_buffer).
    pub fn read_buffer(mut self, bytes: usize) -> Self {
        self.read_buffer = bytes;
        self
    }

    /// Set [`report_queue`](Self::report_queue).
    pub fn report_queue(mut self, reports: usize) -> Self {
        self.report_queue = reports;
        self
    }

    /// Set [`max_connections`](Self::max_connections).
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections;
        self
    }

    /// Set [`shutdown_grace`](Self::shutdown_grace).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }
}
