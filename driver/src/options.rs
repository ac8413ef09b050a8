//! The driver's options: what it holds for I/O, and nothing else.
//!
//! Protocol and lifecycle limits (message size, calls at once, call
//! timeout, the shutdown grace, the lingering close, how many handler
//! reports may wait) are the [`Service`](snodo_proto::Service)'s
//! [`Limits`](snodo_proto::Limits), decided in `snodo-proto` for every
//! runtime alike.

/// How a server runs its connections. The same options, with the same
/// defaults, on every runtime.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Bytes asked of the stream per read (at least 1), and the most a
    /// blocking stream's thread holds in each direction
    /// (`reactor::unblock`, feature `async-io`: smol and blocking). Default
    /// 16 KiB.
    pub read_buffer: usize,
    /// Bytes waiting to be written above which the connection stops
    /// reading input and taking handler reports, so a peer that does not
    /// read its side cannot make the server buffer without bound. Timeouts,
    /// cancellations and the shutdown grace still run. Default 1 MiB.
    pub write_high_water: usize,
    /// Connections served at once by a listener (at least 1). One accepted
    /// beyond this is closed at once, without a byte read or written, so
    /// a client over the limit learns it immediately. Default 1024.
    pub max_connections: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            read_buffer: 16 * 1024,
            write_high_water: 1024 * 1024,
            max_connections: 1024,
        }
    }
}

impl Options {
    /// Set [`read_buffer`](Options::read_buffer).
    pub fn read_buffer(mut self, bytes: usize) -> Self {
        self.read_buffer = bytes;
        self
    }

    /// Set [`write_high_water`](Options::write_high_water).
    pub fn write_high_water(mut self, bytes: usize) -> Self {
        self.write_high_water = bytes;
        self
    }

    /// Set [`max_connections`](Options::max_connections).
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections;
        self
    }
}
