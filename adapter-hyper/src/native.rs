//! The native listener's own answer where hyper, not proto, sees the
//! fault: a request not received in time (408). proto writes that answer
//! only inside a native connection, so it is taken from one: a
//! [`Connection`] over HTTP/1.1 that received the first byte of a head and
//! reached its head deadline (`HttpConfig::head_timeout`). The bytes are
//! then the very ones the native listener sends, and the same answer, its
//! status, fields and body, frames an HTTP/2 stream.

use bytes::Bytes;
use http::{HeaderName, HeaderValue, StatusCode};
use snodo_proto::{Connection, Instant, Output, Service, Transport};

/// A request not received in time, as the native listener answers it.
#[derive(Clone, Debug)]
pub(crate) struct Timeout {
    /// The whole HTTP/1.1 response, `Connection: close` included.
    pub(crate) wire: Bytes,
    /// Its status, its fields without the connection-specific ones
    /// (RFC 9113 § 8.2.2), and its body.
    pub(crate) status: StatusCode,
    pub(crate) headers: Vec<(HeaderName, HeaderValue)>,
    pub(crate) body: Bytes,
}

impl Timeout {
    /// The 408 `service`'s native listener sends.
    pub(crate) fn of(service: &Service) -> Timeout {
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
        parse(&wire).unwrap_or_else(|| {
            // proto always answers a late head; should it not, a bare 408
            // that closes is still the right answer.
            tracing::warn!("no native 408 to copy; answering a bare one");
            Timeout {
                wire: Bytes::from_static(
                    b"HTTP/1.1 408 Request Timeout\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                ),
                status: StatusCode::REQUEST_TIMEOUT,
                headers: Vec::new(),
                body: Bytes::new(),
            }
        })
    }
}

fn parse(wire: &[u8]) -> Option<Timeout> {
    let mut fields = [httparse::EMPTY_HEADER; 16];
    let mut response = httparse::Response::new(&mut fields);
    let httparse::Status::Complete(head) = response.parse(wire).ok()? else {
        return None;
    };
    let status = StatusCode::from_u16(response.code?).ok()?;
    let headers = response
        .headers
        .iter()
        .filter(|h| {
            // RFC 9113 § 8.2.2: no connection-specific field on HTTP/2;
            // hyper frames the length itself on either version.
            !h.name.eq_ignore_ascii_case("connection")
                && !h.name.eq_ignore_ascii_case("content-length")
        })
        .filter_map(|h| {
            Some((
                HeaderName::from_bytes(h.name.as_bytes()).ok()?,
                HeaderValue::from_bytes(h.value).ok()?,
            ))
        })
        .collect();
    Some(Timeout {
        wire: Bytes::copy_from_slice(wire),
        status,
        headers,
        body: Bytes::copy_from_slice(&wire[head..]),
    })
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
