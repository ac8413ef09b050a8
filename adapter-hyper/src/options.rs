//! How [`serve`](crate::serve) runs hyper: the connection cap, and the
//! HTTP/2 settings that neither [`HttpConfig`](snodo_proto::HttpConfig) nor
//! [`Limits`](snodo_proto::Limits) has a word for.
//!
//! Every other number comes from the service, the same ones the native
//! listener uses: the head, body and idle deadlines (`HttpConfig::
//! head_timeout`, `request_timeout`, `idle_timeout`), the message limit
//! (`Limits::max_message_bytes`), the header list limit
//! (`HttpConfig::max_head_bytes`, as `SETTINGS_MAX_HEADER_LIST_SIZE`) and
//! the streams at once (`Limits::max_concurrent_calls`, as
//! `SETTINGS_MAX_CONCURRENT_STREAMS`).

/// How a hyper server runs its connections.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// Connections served at once (at least 1). One accepted beyond this
    /// takes the place of the connection idle longest (between requests,
    /// still sending a request head, or an HTTP/2 connection with no
    /// stream in flight), which is closed; with none idle, the new one is
    /// closed at once. The native listener's rule and default: 1024.
    pub max_connections: usize,
    /// HTTP/2: streams the client may reset before the server has taken
    /// them up, after which the connection is closed with GOAWAY
    /// `ENHANCE_YOUR_CALM` (the rapid reset attack, CVE-2023-44487;
    /// RFC 9113 § 10.5). Default 20, h2's own.
    pub h2_max_pending_accept_reset_streams: usize,
    /// HTTP/2: streams the server may reset for the client's protocol
    /// errors before it closes the connection with GOAWAY (a client that
    /// makes the server reset streams for it, RUSTSEC-2024-0003 and
    /// CVE-2025-8671). Default 1024, hyper's own.
    pub h2_max_local_error_reset_streams: usize,
    /// HTTP/2: response bytes buffered per stream while the client's
    /// flow-control window is closed (RFC 9113 § 5.2), so a client that
    /// never opens its window holds at most this per stream. Default
    /// 400 KiB, hyper's own.
    pub h2_max_send_buffer: usize,
    /// HTTP/2: the receive windows advertised, per stream and for the
    /// connection (RFC 9113 § 6.9.2): request body bytes a client may send
    /// ahead of the server reading them. Default 1 MiB each, hyper's own.
    pub h2_window: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_connections: snodo_driver::Options::default().max_connections,
            h2_max_pending_accept_reset_streams: 20,
            h2_max_local_error_reset_streams: 1024,
            h2_max_send_buffer: 400 * 1024,
            h2_window: 1024 * 1024,
        }
    }
}

impl Options {
    /// Set [`max_connections`](Options::max_connections).
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections;
        self
    }

    /// Set [`h2_max_pending_accept_reset_streams`](Options::h2_max_pending_accept_reset_streams).
    pub fn h2_max_pending_accept_reset_streams(mut self, streams: usize) -> Self {
        self.h2_max_pending_accept_reset_streams = streams;
        self
    }

    /// Set [`h2_max_local_error_reset_streams`](Options::h2_max_local_error_reset_streams).
    pub fn h2_max_local_error_reset_streams(mut self, streams: usize) -> Self {
        self.h2_max_local_error_reset_streams = streams;
        self
    }

    /// Set [`h2_max_send_buffer`](Options::h2_max_send_buffer).
    pub fn h2_max_send_buffer(mut self, bytes: usize) -> Self {
        self.h2_max_send_buffer = bytes;
        self
    }

    /// Set [`h2_window`](Options::h2_window).
    pub fn h2_window(mut self, bytes: u32) -> Self {
        self.h2_window = bytes;
        self
    }
}
