//! Tuning knobs of the adapter. Protocol limits (message size, concurrent
//! calls, call timeout, HTTP limits) live in the [`Service`](snodo_proto::Service);
//! these only bound what the adapter itself holds: buffers, sockets, time
//! spent closing.

use core::time::Duration;

/// How the adapter runs connections.
///
/// Start from [`Options::default`] and adjust fields or use the setters.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Bytes asked of the reader per read (at least 1). This is the
    /// per-connection read buffer, allocated once.
    pub read_chunk_bytes: usize,
    /// Bytes waiting to be written above which the connection stops reading
    /// input and stops taking handler reports, so a peer that does not read
    /// its side cannot make the server buffer without bound. Progress and
    /// log reports that arrive meanwhile are dropped; completions wait.
    pub write_high_water: usize,
    /// Slots in each connection's channel of handler reports (at least 1).
    /// A completion waits for a slot; a progress or log report that finds
    /// the channel full is dropped.
    pub report_capacity: usize,
    /// How long calls in flight may keep running once the connection is
    /// winding down: after end of input on stdio (`basic/transports/stdio.mdx`
    /// § Shutdown: servers SHOULD exit promptly), or after the server's
    /// shutdown signal on TCP. Calls still running then are cancelled.
    pub shutdown_grace: Duration,
    /// Once a connection is done, how long the adapter keeps writing its
    /// last bytes and reading (and discarding) what the peer still sends,
    /// so the close does not reset a response still in flight.
    pub close_linger: Duration,
    /// TCP connections served at once (at least 1). A connection accepted
    /// beyond this is closed at once, without a byte read or written: the
    /// listener keeps draining the kernel's backlog, and a client over the
    /// limit learns it immediately instead of waiting in a queue.
    pub max_connections: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            read_chunk_bytes: 16 * 1024,
            write_high_water: 1024 * 1024,
            report_capacity: 256,
            shutdown_grace: Duration::from_secs(5),
            close_linger: Duration::from_secs(2),
            max_connections: 1024,
        }
    }
}

impl Options {
    /// Set [`read_chunk_bytes`](Options::read_chunk_bytes).
    pub fn read_chunk_bytes(mut self, n: usize) -> Self {
        self.read_chunk_bytes = n;
        self
    }

    /// Set [`write_high_water`](Options::write_high_water).
    pub fn write_high_water(mut self, n: usize) -> Self {
        self.write_high_water = n;
        self
    }

    /// Set [`report_capacity`](Options::report_capacity).
    pub fn report_capacity(mut self, n: usize) -> Self {
        self.report_capacity = n;
        self
    }

    /// Set [`shutdown_grace`](Options::shutdown_grace).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// Set [`close_linger`](Options::close_linger).
    pub fn close_linger(mut self, linger: Duration) -> Self {
        self.close_linger = linger;
        self
    }

    /// Set [`max_connections`](Options::max_connections).
    pub fn max_connections(mut self, n: usize) -> Self {
        self.max_connections = n;
        self
    }
}
