//! The HTTP/1.1 side of a Streamable HTTP client, sans-I/O
//! (`basic/transports/streamable-http.mdx` § Sending Messages, RFC 9112).
//!
//! [`encode_request`] writes a request head and body; [`ResponseDecoder`]
//! takes the response's bytes as they arrive and yields its head, then its
//! body in pieces (`Content-Length`, chunked, or delimited by the close),
//! then its end. The body's meaning (JSON or an event stream, see
//! [`super::sse`]) is the caller's.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

/// The `Accept` every POST carries (§ Sending Messages, rule 2).
pub const ACCEPT: &str = "application/json, text/event-stream";

/// Write `METHOD target HTTP/1.1` with `Host`, `Accept`, the given header
/// fields, and for a body `Content-Type: application/json` and
/// `Content-Length`. Header values must already be header-safe (the client
/// machine encodes mirrors, § Value Encoding); a field whose name or value
/// holds CR, LF or NUL is refused rather than written.
///
/// The same as [`RequestParts::new`] then [`RequestParts::to_http1`].
pub fn encode_request(
    method: &str,
    target: &str,
    host: &str,
    headers: &[(String, String)],
    body: Option<&[u8]>,
) -> Result<Vec<u8>, HttpError> {
    Ok(RequestParts::new(method, target, host, headers, body)?.to_http1())
}

/// A request as its parts, checked once: for a transport that frames it
/// itself (HTTP/2's HEADERS and DATA frames) rather than as the HTTP/1.1
/// bytes of [`to_http1`](Self::to_http1). Both framings carry the same
/// fields, so what the server sees does not depend on the version the
/// connection negotiated.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestParts {
    /// `POST`, `GET`, `DELETE`.
    pub method: String,
    /// Path and query (or the absolute form, through a forwarding proxy).
    pub target: String,
    /// `host[:port]`: HTTP/1.1's `Host`, HTTP/2's `:authority`.
    pub authority: String,
    /// Every field but `Host` and `Content-Length`, in order: `Accept`,
    /// the caller's, and `Content-Type` when there is a body. Names as
    /// given (HTTP/2 lower-cases them).
    pub headers: Vec<(String, String)>,
    /// The body, when there is one (a JSON-RPC message).
    pub body: Option<Vec<u8>>,
}

impl RequestParts {
    /// The request `method target` on `authority`, with `Accept`, the
    /// given fields, and for a body `Content-Type: application/json`.
    /// A method, target, authority, name or value holding CR, LF or NUL,
    /// or a name that is empty or holds `:`, is refused
    /// ([`HttpError::UnsafeHeader`]), whichever framing comes next.
    pub fn new(
        method: &str,
        target: &str,
        authority: &str,
        headers: &[(String, String)],
        body: Option<&[u8]>,
    ) -> Result<Self, HttpError> {
        let unsafe_text = |s: &str| s.bytes().any(|b| matches!(b, b'\r' | b'\n' | 0));
        if unsafe_text(method) || unsafe_text(target) || unsafe_text(authority) {
            return Err(HttpError::UnsafeHeader);
        }
        let mut fields = Vec::with_capacity(headers.len() + 2);
        fields.push((String::from("Accept"), String::from(ACCEPT)));
        for (name, value) in headers {
            if name.is_empty() || unsafe_text(name) || name.contains(':') || unsafe_text(value) {
                return Err(HttpError::UnsafeHeader);
            }
            fields.push((name.clone(), value.clone()));
        }
        if body.is_some() {
            fields.push((
                String::from("Content-Type"),
                String::from("application/json"),
            ));
        }
        Ok(RequestParts {
            method: String::from(method),
            target: String::from(target),
            authority: String::from(authority),
            headers: fields,
            body: body.map(<[u8]>::to_vec),
        })
    }

    /// The HTTP/1.1 bytes: the request line, `Host`, the fields, and for a
    /// body its `Content-Length` and the body.
    pub fn to_http1(&self) -> Vec<u8> {
        let RequestParts {
            method,
            target,
            authority,
            headers,
            body,
        } = self;
        let mut head = String::new();
        let _ = write!(head, "{method} {target} HTTP/1.1\r\nHost: {authority}\r\n");
        for (name, value) in headers {
            let _ = write!(head, "{name}: {value}\r\n");
        }
        if let Some(body) = body {
            let _ = write!(head, "Content-Length: {}\r\n", body.len());
        }
        head.push_str("\r\n");
        let mut out = head.into_bytes();
        if let Some(body) = body {
            out.extend_from_slice(body);
        }
        out
    }
}

/// A response's status line and header fields (names lower-cased).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResponseHead {
    /// The status code.
    pub status: u16,
    /// Header fields in order, names lower-cased, values as sent.
    pub headers: Vec<(String, String)>,
}

impl ResponseHead {
    /// The first value of header `name` (lower-case).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of header `name` (lower-case), e.g. `www-authenticate`.
    pub fn all(&self, name: &str) -> Vec<String> {
        self.headers
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The media type of `Content-Type`, lower-cased, without parameters.
    pub fn media_type(&self) -> Option<String> {
        let v = self.get("content-type")?;
        let t = v.split(';').next().unwrap_or("").trim();
        Some(t.to_ascii_lowercase())
    }
}

/// What the decoder found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResponseEvent {
    /// The final (non-1xx) head.
    Head(ResponseHead),
    /// A piece of the body.
    Data(Vec<u8>),
    /// The body is complete.
    End,
}

/// Why a response cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpError {
    /// The head is not valid HTTP/1.1.
    MalformedHead,
    /// The head grew beyond [`ResponseLimits::max_head`].
    HeadTooLarge,
    /// A bad chunk-size line or chunk terminator.
    MalformedChunk,
    /// Both `Content-Length` and `Transfer-Encoding`, a bad
    /// `Content-Length`, or a transfer coding other than chunked.
    BadFraming,
    /// The connection closed before the body's declared end.
    Truncated,
    /// A header name or value to send held CR, LF or NUL.
    UnsafeHeader,
}

/// Bounds of one [`ResponseDecoder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResponseLimits {
    /// Bytes of one head, and of one chunk-size or trailer line.
    pub max_head: usize,
    /// Header fields of one head.
    pub max_headers: usize,
}

impl Default for ResponseLimits {
    /// 64 KiB, 100 fields.
    fn default() -> Self {
        ResponseLimits {
            max_head: 64 << 10,
            max_headers: 100,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Head,
    Length(u64),
    ChunkSize,
    ChunkData(u64),
    ChunkEnd,
    Trailers,
    UntilClose,
    Done,
    Failed(HttpError),
}

/// Decodes one response to a request sent with `method`.
#[derive(Debug)]
pub struct ResponseDecoder {
    limits: ResponseLimits,
    head_request: bool,
    buf: Vec<u8>,
    state: State,
    out: Vec<ResponseEvent>,
}

impl ResponseDecoder {
    /// A decoder for the response to a `method` request (a `HEAD` response
    /// has no body whatever its headers say).
    pub fn new(method: &str, limits: ResponseLimits) -> Self {
        ResponseDecoder {
            limits,
            head_request: method.eq_ignore_ascii_case("HEAD"),
            buf: Vec::new(),
            state: State::Head,
            out: Vec::new(),
        }
    }

    /// Bytes held that are not yet an event (at most a head or a
    /// chunk-size line, within [`ResponseLimits::max_head`]).
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Whether the whole response has been read.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Feed bytes read from the connection.
    pub fn push(&mut self, data: &[u8]) {
        if matches!(self.state, State::Done | State::Failed(_)) {
            return;
        }
        self.buf.extend_from_slice(data);
        self.advance();
    }

    /// The connection closed (read returned 0): ends a close-delimited
    /// body, truncates any other.
    pub fn close(&mut self) {
        match self.state {
            State::UntilClose => {
                self.state = State::Done;
                self.out.push(ResponseEvent::End);
            }
            State::Done | State::Failed(_) => {}
            _ => self.state = State::Failed(HttpError::Truncated),
        }
    }

    /// The next event, or the error that stopped decoding.
    pub fn poll(&mut self) -> Option<Result<ResponseEvent, HttpError>> {
        if !self.out.is_empty() {
            return Some(Ok(self.out.remove(0)));
        }
        match self.state {
            State::Failed(e) => Some(Err(e)),
            _ => None,
        }
    }

    fn fail(&mut self, e: HttpError) {
        self.state = State::Failed(e);
    }

    fn advance(&mut self) {
        loop {
            match self.state {
                State::Head => {
                    if !self.parse_head() {
                        return;
                    }
                }
                State::Length(n) => {
                    if self.buf.is_empty() {
                        return;
                    }
                    let take = usize::try_from(n).unwrap_or(usize::MAX).min(self.buf.len());
                    let piece: Vec<u8> = self.buf.drain(..take).collect();
                    self.out.push(ResponseEvent::Data(piece));
                    let left = n - take as u64;
                    if left == 0 {
                        self.state = State::Done;
                        self.out.push(ResponseEvent::End);
                    } else {
                        self.state = State::Length(left);
                    }
                }
                State::ChunkSize => {
                    let Some(line) = self.take_line() else { return };
                    let size = line.split(|&b| b == b';').next().unwrap_or(&[]);
                    let size = trim(size);
                    if size.is_empty() || size.len() > 15 || !size.iter().all(u8::is_ascii_hexdigit)
                    {
                        return self.fail(HttpError::MalformedChunk);
                    }
                    let n = size.iter().fold(0u64, |acc, &b| {
                        acc * 16 + u64::from((b as char).to_digit(16).unwrap_or(0))
                    });
                    self.state = if n == 0 {
                        State::Trailers
                    } else {
                        State::ChunkData(n)
                    };
                }
                State::ChunkData(n) => {
                    if self.buf.is_empty() {
                        return;
                    }
                    let take = usize::try_from(n).unwrap_or(usize::MAX).min(self.buf.len());
                    let piece: Vec<u8> = self.buf.drain(..take).collect();
                    self.out.push(ResponseEvent::Data(piece));
                    let left = n - take as u64;
                    self.state = if left == 0 {
                        State::ChunkEnd
                    } else {
                        State::ChunkData(left)
                    };
                }
                State::ChunkEnd => {
                    let Some(line) = self.take_line() else { return };
                    if !line.is_empty() {
                        return self.fail(HttpError::MalformedChunk);
                    }
                    self.state = State::ChunkSize;
                }
                State::Trailers => {
                    let Some(line) = self.take_line() else { return };
                    if line.is_empty() {
                        self.state = State::Done;
                        self.out.push(ResponseEvent::End);
                    }
                }
                State::UntilClose => {
                    if self.buf.is_empty() {
                        return;
                    }
                    let piece = core::mem::take(&mut self.buf);
                    self.out.push(ResponseEvent::Data(piece));
                }
                State::Done | State::Failed(_) => return,
            }
        }
    }

    /// One CRLF- (or LF-) ended line, without its ending; `None` until it
    /// is complete. A line beyond the head limit fails the decoder.
    fn take_line(&mut self) -> Option<Vec<u8>> {
        match self.buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                let mut line: Vec<u8> = self.buf.drain(..=i).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                Some(line)
            }
            None => {
                if self.buf.len() > self.limits.max_head {
                    self.fail(HttpError::HeadTooLarge);
                }
                None
            }
        }
    }

    /// Parse a head from the buffer; `true` when the state moved on.
    fn parse_head(&mut self) -> bool {
        let mut fields = alloc::vec![httparse::EMPTY_HEADER; self.limits.max_headers];
        let mut resp = httparse::Response::new(&mut fields);
        let used = match resp.parse(&self.buf) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) => {
                if self.buf.len() > self.limits.max_head {
                    self.fail(HttpError::HeadTooLarge);
                    return true;
                }
                return false;
            }
            Err(httparse::Error::TooManyHeaders) => {
                self.fail(HttpError::HeadTooLarge);
                return true;
            }
            Err(_) => {
                self.fail(HttpError::MalformedHead);
                return true;
            }
        };
        if used > self.limits.max_head {
            self.fail(HttpError::HeadTooLarge);
            return true;
        }
        let status = resp.code.unwrap_or(0);
        let mut headers = Vec::with_capacity(resp.headers.len());
        for h in resp.headers.iter() {
            let value = String::from_utf8_lossy(h.value).into_owned();
            headers.push((h.name.to_ascii_lowercase(), value));
        }
        self.buf.drain(..used);
        if (100..200).contains(&status) {
            // An interim response (100 Continue, 103): the final one follows.
            return true;
        }
        let head = ResponseHead { status, headers };
        let framing = self.framing(&head);
        self.out.push(ResponseEvent::Head(head));
        match framing {
            Ok(state) => {
                self.state = state;
                if state == State::Done {
                    self.out.push(ResponseEvent::End);
                }
            }
            Err(e) => self.fail(e),
        }
        true
    }

    /// RFC 9112 § 6.3: how the body's length is determined.
    fn framing(&self, head: &ResponseHead) -> Result<State, HttpError> {
        if self.head_request || head.status == 204 || head.status == 304 {
            return Ok(State::Done);
        }
        let te = head.all("transfer-encoding");
        let cl = head.all("content-length");
        if !te.is_empty() {
            if !cl.is_empty() {
                return Err(HttpError::BadFraming);
            }
            let last = te
                .last()
                .and_then(|v| v.rsplit(',').next())
                .map(|s| s.trim().to_ascii_lowercase());
            return match last.as_deref() {
                Some("chunked") => Ok(State::ChunkSize),
                _ => Err(HttpError::BadFraming),
            };
        }
        if let Some(first) = cl.first() {
            if cl.iter().any(|v| v != first) {
                return Err(HttpError::BadFraming);
            }
            let v = first.trim();
            if v.is_empty() || v.len() > 19 || !v.bytes().all(|b| b.is_ascii_digit()) {
                return Err(HttpError::BadFraming);
            }
            let n: u64 = v.parse().map_err(|_| HttpError::BadFraming)?;
            return Ok(if n == 0 {
                State::Done
            } else {
                State::Length(n)
            });
        }
        Ok(State::UntilClose)
    }
}

fn trim(mut v: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = v {
        v = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = v {
        v = rest;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn decode_all(
        method: &str,
        parts: &[&[u8]],
        close: bool,
    ) -> (Vec<ResponseEvent>, Option<HttpError>) {
        let mut d = ResponseDecoder::new(method, ResponseLimits::default());
        let mut out = Vec::new();
        let mut err = None;
        let mut drain = |d: &mut ResponseDecoder| {
            while let Some(e) = d.poll() {
                match e {
                    Ok(e) => out.push(e),
                    Err(e) => {
                        err = Some(e);
                        break;
                    }
                }
            }
        };
        for p in parts {
            d.push(p);
            drain(&mut d);
        }
        if close {
            d.close();
            drain(&mut d);
        }
        (out, err)
    }

    /// Join the data pieces; check the head and the end.
    fn body_of(events: &[ResponseEvent]) -> Vec<u8> {
        let mut body = Vec::new();
        for e in events {
            if let ResponseEvent::Data(d) = e {
                body.extend_from_slice(d);
            }
        }
        body
    }

    #[test]
    fn encodes_a_post() {
        let headers = vec![
            (
                String::from("MCP-Protocol-Version"),
                String::from("2026-07-28"),
            ),
            (String::from("Mcp-Method"), String::from("tools/list")),
        ];
        let bytes =
            encode_request("POST", "/mcp", "127.0.0.1:8080", &headers, Some(b"{}")).unwrap();
        assert_eq!(
            bytes,
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: application/json, text/event-stream\r\n\
MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\n\
Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        );
        let bad = vec![(
            String::from("Mcp-Param-X"),
            String::from("a\r\nInjected: 1"),
        )];
        assert_eq!(
            encode_request("POST", "/mcp", "h", &bad, None),
            Err(HttpError::UnsafeHeader)
        );
    }

    /// The parts carry what the HTTP/1.1 bytes carry, `Host` and
    /// `Content-Length` aside (HTTP/2 has `:authority` and frames); the
    /// same fields are refused.
    #[test]
    fn parts_are_the_request_the_bytes_are() {
        let headers = vec![(String::from("Mcp-Method"), String::from("tools/list"))];
        let parts = RequestParts::new("POST", "/mcp", "h:1", &headers, Some(b"{}")).unwrap();
        assert_eq!(parts.method, "POST");
        assert_eq!(parts.target, "/mcp");
        assert_eq!(parts.authority, "h:1");
        assert_eq!(
            parts.headers,
            vec![
                (String::from("Accept"), String::from(ACCEPT)),
                (String::from("Mcp-Method"), String::from("tools/list")),
                (
                    String::from("Content-Type"),
                    String::from("application/json")
                ),
            ]
        );
        assert_eq!(parts.body.as_deref(), Some(&b"{}"[..]));
        assert_eq!(
            parts.to_http1(),
            b"POST /mcp HTTP/1.1\r\nHost: h:1\r\nAccept: application/json, text/event-stream\r\nMcp-Method: tools/list\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        );
        let get = RequestParts::new("GET", "/mcp", "h", &[], None).unwrap();
        assert_eq!(get.headers.len(), 1, "Accept alone");
        assert_eq!(
            get.to_http1(),
            b"GET /mcp HTTP/1.1\r\nHost: h\r\nAccept: application/json, text/event-stream\r\n\r\n"
        );
        for (name, value) in [("X", "a\nb"), ("", "v"), ("A:B", "v"), ("N\0", "v")] {
            let bad = vec![(String::from(name), String::from(value))];
            assert_eq!(
                RequestParts::new("GET", "/mcp", "h", &bad, None),
                Err(HttpError::UnsafeHeader),
                "{name:?}: {value:?}"
            );
        }
        assert_eq!(
            RequestParts::new("GET", "/mcp\r\nX: 1", "h", &[], None),
            Err(HttpError::UnsafeHeader)
        );
    }

    #[test]
    fn content_length_body_split_anywhere() {
        let raw: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 26\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1}\r\n";
        for cut in 0..=raw.len() {
            let (events, err) = decode_all("POST", &[&raw[..cut], &raw[cut..]], false);
            assert_eq!(err, None, "cut {cut}");
            let ResponseEvent::Head(head) = &events[0] else {
                panic!("head first")
            };
            assert_eq!(head.status, 200);
            assert_eq!(head.media_type().as_deref(), Some("application/json"));
            assert_eq!(body_of(&events), b"{\"jsonrpc\":\"2.0\",\"id\":1}\r\n");
            assert_eq!(events.last(), Some(&ResponseEvent::End), "cut {cut}");
        }
    }

    #[test]
    fn chunked_body_with_extensions_and_trailers() {
        let raw: &[u8] = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n\
5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n";
        for cut in 0..=raw.len() {
            let (events, err) = decode_all("POST", &[&raw[..cut], &raw[cut..]], false);
            assert_eq!(err, None, "cut {cut}");
            assert_eq!(body_of(&events), b"hello, world");
            assert_eq!(events.last(), Some(&ResponseEvent::End), "cut {cut}");
        }
        let (_, err) = decode_all(
            "POST",
            &[b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"],
            false,
        );
        assert_eq!(err, Some(HttpError::MalformedChunk));
        let (_, err) = decode_all(
            "POST",
            &[b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n"],
            false,
        );
        assert_eq!(err, Some(HttpError::MalformedChunk));
    }

    #[test]
    fn close_delimited_and_truncated_bodies() {
        let (events, err) = decode_all(
            "POST",
            &[
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\n",
                b"data: 2\n\n",
            ],
            true,
        );
        assert_eq!(err, None);
        assert_eq!(body_of(&events), b"data: 1\n\ndata: 2\n\n");
        assert_eq!(events.last(), Some(&ResponseEvent::End));

        let (_, err) = decode_all(
            "POST",
            &[b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"],
            true,
        );
        assert_eq!(err, Some(HttpError::Truncated));
    }

    #[test]
    fn interim_and_empty_responses() {
        let (events, err) = decode_all(
            "POST",
            &[b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"],
            false,
        );
        assert_eq!(err, None);
        assert_eq!(events.len(), 2);
        assert!(matches!(&events[0], ResponseEvent::Head(h) if h.status == 202));
        assert_eq!(events[1], ResponseEvent::End);
    }

    #[test]
    fn refuses_ambiguous_framing_and_huge_heads() {
        let (_, err) = decode_all(
            "POST",
            &[b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"],
            false,
        );
        assert_eq!(err, Some(HttpError::BadFraming));
        let (_, err) = decode_all(
            "POST",
            &[b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n"],
            false,
        );
        assert_eq!(err, Some(HttpError::BadFraming));
        let mut d = ResponseDecoder::new(
            "POST",
            ResponseLimits {
                max_head: 64,
                max_headers: 8,
            },
        );
        d.push(b"HTTP/1.1 200 OK\r\n");
        for _ in 0..10 {
            d.push(b"X-Padding: aaaaaaaaaaaaaaaa\r\n");
        }
        assert_eq!(d.poll(), Some(Err(HttpError::HeadTooLarge)));
    }

    /// A hostile or broken server: random bytes after a valid head, and
    /// random heads, split at random points. Nothing panics, and what the
    /// decoder holds stays within its limit whatever arrives.
    #[test]
    fn random_input_never_panics_nor_grows_the_buffer() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let limits = ResponseLimits {
            max_head: 256,
            max_headers: 8,
        };
        let heads: [&[u8]; 4] = [
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n",
            b"HTTP/1.1 200 OK\r\n\r\n",
            b"",
        ];
        let alphabet = b"0123456789abcdefXYZ;:= \r\n\t\x00\xff";
        for round in 0..400 {
            let mut d = ResponseDecoder::new("POST", limits);
            d.push(heads[round % heads.len()]);
            for _ in 0..(next() % 40) {
                let len = (next() % 64) as usize;
                let piece: Vec<u8> = (0..len)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect();
                d.push(&piece);
                while let Some(Ok(_)) = d.poll() {}
                assert!(
                    d.buffered() <= limits.max_head + 64,
                    "round {round}: {}",
                    d.buffered()
                );
            }
            d.close();
            while let Some(Ok(_)) = d.poll() {}
        }
    }
}
