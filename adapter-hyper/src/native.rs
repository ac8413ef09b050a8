//! The native listener's own answers where hyper, not proto, sees the
//! fault, taken from a native [`Connection`] so that no status or body is
//! written again here: a request head not whole by its deadline (408),
//! and a head hyper refuses itself. (A body past its deadline is proto's
//! to answer: `BodyError::TimedOut`.)

use bytes::Bytes;
use snodo_proto::{Connection, Instant, Output, Service, Transport};

/// The native listener's whole HTTP/1.1 answer, `Connection: close`
/// included, to a request head not received within
/// `HttpConfig::head_timeout` of its first byte.
pub(crate) fn late_head(service: &Service) -> Bytes {
    let start = Instant::ZERO;
    let mut conn = Connection::new(service, Transport::Http, start);
    // The first byte of a request head starts its deadline.
    conn.handle_input(b"P", start);
    conn.handle_timeout(start + service.http_config().head_timeout);
    let mut wire = Vec::new();
    while let Some(output) = conn.poll_output() {
        match output {
            Output::Transmit(bytes) => wire.extend_from_slice(&bytes),
            Output::Close => break,
            _ => {}
        }
    }
    Bytes::from(wire)
}

/// The native answer to a request head hyper refused on its own (a field
/// line httparse rejects, a head over hyper's buffer): `head`, the bytes
/// the head arrived as, replayed into a native connection, whose refusal
/// (`400`/`431` with its JSON-RPC error body, `Connection: close`) is
/// returned. `None` when proto would not refuse it: hyper's own answer
/// stands then.
pub(crate) fn refusal(service: &Service, head: &[u8]) -> Option<Bytes> {
    let start = Instant::ZERO;
    let mut conn = Connection::new(service, Transport::Http, start);
    conn.handle_input(head, start);
    let mut wire = Vec::new();
    let mut closed = false;
    while let Some(output) = conn.poll_output() {
        match output {
            Output::Transmit(bytes) => wire.extend_from_slice(&bytes),
            Output::Close => {
                closed = true;
                break;
            }
            // Anything else is a request proto took up: not a refusal.
            _ => return None,
        }
    }
    let refused = wire.starts_with(b"HTTP/1.1 4") || wire.starts_with(b"HTTP/1.1 5");
    (closed && refused).then(|| Bytes::from(wire))
}
