//! HTTP/1.1 request decoding and response encoding, sans-I/O.
//!
//! Requests are parsed with `httparse` from a buffer the connection owns, so
//! partial heads and bodies survive across reads. Bodies are framed by
//! `Content-Length` or `Transfer-Encoding: chunked` (RFC 9112 § 6); a
//! request carrying both is refused, as is any other transfer coding.
//! Limits: head bytes and header count (431), body bytes (413).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use bytes::{Buf, Bytes, BytesMut};
use core::mem::MaybeUninit;

/// Most bytes of a chunk-size line, extensions and CR included.
const MAX_CHUNK_LINE: usize = 1024;

/// Header slots parsed into without a heap allocation (the default
/// `max_headers` is 64).
const STACK_HEADERS: usize = 64;

/// A piece of a request head that is text (the method, the path): a view
/// into the head's bytes, compared and read as a `&str`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct HeadStr(Bytes);

impl HeadStr {
    /// `s`, copied.
    pub fn new(s: &str) -> Self {
        HeadStr(Bytes::copy_from_slice(s.as_bytes()))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // Built only from `&str`s or bytes checked to be UTF-8.
        core::str::from_utf8(&self.0).unwrap_or("")
    }
}

impl core::ops::Deref for HeadStr {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for HeadStr {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl core::fmt::Debug for HeadStr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl core::fmt::Display for HeadStr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

// Compared as bytes: the text is always UTF-8, so equal bytes are equal
// strings, without validating it again.
impl PartialEq<str> for HeadStr {
    fn eq(&self, other: &str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl PartialEq<&str> for HeadStr {
    fn eq(&self, other: &&str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl PartialEq<String> for HeadStr {
    fn eq(&self, other: &String) -> bool {
        self.0 == other.as_bytes()
    }
}

impl PartialEq<HeadStr> for str {
    fn eq(&self, other: &HeadStr) -> bool {
        other == self
    }
}

impl PartialEq<HeadStr> for &str {
    fn eq(&self, other: &HeadStr) -> bool {
        other == self
    }
}

/// Where one header field's name and value are in [`Head`]'s bytes, and
/// which of the [`known`] names it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Field {
    name: (u32, u32),
    value: (u32, u32),
    known: u8,
}

/// The header names the HTTP rules look up on every request, numbered
/// from 1 (0: any other name). A field is numbered once when its head is
/// parsed, so looking one of these up compares a byte per field instead of
/// a name: a request is looked into about fifteen times.
#[inline(always)]
fn known(name: &[u8]) -> u8 {
    match name {
        b"host" => 1,
        b"origin" => 2,
        b"accept" => 3,
        b"content-type" => 4,
        b"content-length" => 5,
        b"transfer-encoding" => 6,
        b"connection" => 7,
        b"expect" => 8,
        b"mcp-protocol-version" => 9,
        b"mcp-method" => 10,
        b"mcp-name" => 11,
        b"mcp-session-id" => 12,
        b"authorization" => 13,
        _ => 0,
    }
}

/// One past the highest [`known`] number.
const KNOWN: usize = 14;

/// Where the first field of each [`known`] name is, and which of them
/// appear more than once: the rules look these names up on every request
/// (the mirrors, the framing, the media types), and with this a lookup is
/// an array read instead of a pass over every field.
#[derive(Clone, Copy, Debug, Default)]
struct Index {
    /// The first field's position plus one (0: absent), saturated: a
    /// position past `u16::MAX - 1` is stored as that, which is where a
    /// lookup then starts its scan.
    first: [u16; KNOWN],
    /// Bit `n`: name `n` appears more than once.
    repeated: u16,
}

impl Index {
    fn of(fields: &[Field]) -> Index {
        let mut index = Index::default();
        for (i, f) in fields.iter().enumerate() {
            let tag = usize::from(f.known);
            if tag == 0 {
                continue;
            }
            if index.first[tag] == 0 {
                index.first[tag] = i.min(usize::from(u16::MAX - 1)) as u16 + 1;
            } else {
                index.repeated |= 1 << tag;
            }
        }
        index
    }

    /// Where the fields named `tag` begin, and at most how many there are
    /// (for a name that is not [`known`]: every field, unbounded).
    #[inline(always)]
    fn span(&self, tag: u8, fields: usize) -> (usize, usize) {
        if tag == 0 {
            return (0, usize::MAX);
        }
        match self.first[usize::from(tag)] {
            0 => (fields, 0),
            first if self.repeated & (1 << tag) == 0 => (usize::from(first) - 1, 1),
            first => (usize::from(first) - 1, usize::MAX),
        }
    }
}

/// Lower-case a header name in place, eight bytes at a time: a byte at
/// a time it cost more than the rest of the head's bookkeeping. A name of
/// eight bytes or more ends with a chunk that overlaps the one before it
/// (lower-casing twice changes nothing); a shorter one is done a byte at
/// a time.
fn lowercase_token(name: &mut [u8]) {
    if name.len() < 8 {
        name.make_ascii_lowercase();
        return;
    }
    let mut end = 0;
    while end < name.len() {
        end = (end + 8).min(name.len());
        lowercase_chunk(&mut name[end - 8..end]);
    }
}

/// Names are tokens (the parser checked), so ASCII; a chunk with any
/// other byte is done a byte at a time.
fn lowercase_chunk(chunk: &mut [u8]) {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    let Ok(bytes) = <[u8; 8]>::try_from(&*chunk) else {
        chunk.make_ascii_lowercase();
        return;
    };
    let x = u64::from_ne_bytes(bytes);
    if x & (ONES * 0x80) != 0 {
        chunk.make_ascii_lowercase();
        return;
    }
    // For a byte below 0x80, adding 0x3f sets its top bit when it is at
    // least `A`, adding 0x25 when it is past `Z`; neither carries into the
    // next byte. An upper-case letter gains 0x20.
    let upper = x.wrapping_add(ONES * 0x3f) & !x.wrapping_add(ONES * 0x25) & (ONES * 0x80);
    chunk.copy_from_slice(&(x | (upper >> 2)).to_ne_bytes());
}

/// A parsed request head: the head's bytes as received (header names
/// lower-cased in place) and where each field is in them, so a head costs
/// one allocation (the field index) whatever its number of headers.
#[derive(Clone)]
pub struct Head {
    /// Request method, as sent.
    pub method: HeadStr,
    /// Request target's path (query string removed).
    pub path: HeadStr,
    /// `1` for HTTP/1.1, `0` for HTTP/1.0.
    pub minor_version: u8,
    bytes: Bytes,
    fields: Vec<Field>,
    index: Index,
}

impl Head {
    /// A head built from its parts (tests, drivers with their own HTTP
    /// parser). Header names are lower-cased. Like a decoded head it is
    /// one buffer, sized exactly, that the method, the path and every field
    /// point into: a host stack hands over a head per request.
    pub fn new<N, V>(
        method: &str,
        path: &str,
        minor_version: u8,
        headers: impl IntoIterator<Item = (N, V)>,
    ) -> Self
    where
        N: AsRef<str>,
        V: AsRef<[u8]>,
    {
        // Collected first to size the buffer (from a `Vec`, in place).
        let headers: Vec<(N, V)> = headers.into_iter().collect();
        let text = method.len() + path.len();
        let size = headers
            .iter()
            .map(|(n, v)| n.as_ref().len() + v.as_ref().len())
            .sum::<usize>();
        let mut all = Vec::with_capacity(text + size);
        all.extend_from_slice(method.as_bytes());
        all.extend_from_slice(path.as_bytes());
        let mut fields = Vec::with_capacity(headers.len());
        for (name, value) in &headers {
            let (name, value) = (name.as_ref().as_bytes(), value.as_ref());
            let n = all.len() - text;
            all.extend_from_slice(name);
            lowercase_token(&mut all[text + n..]);
            let v = all.len() - text;
            all.extend_from_slice(value);
            fields.push(Field {
                name: (n as u32, v as u32),
                value: (v as u32, (all.len() - text) as u32),
                known: known(&all[text + n..text + v]),
            });
        }
        let all = Bytes::from(all);
        Head {
            method: HeadStr(all.slice(..method.len())),
            path: HeadStr(all.slice(method.len()..text)),
            minor_version,
            bytes: all.slice(text..),
            index: Index::of(&fields),
            fields,
        }
    }

    /// The head's size as HTTP/1.1 would carry it: the request line and
    /// every `name: value\r\n` field.
    pub fn size(&self) -> usize {
        self.method.as_str().len()
            + self.path.as_str().len()
            + "  HTTP/1.1\r\n\r\n".len()
            + self.bytes.len()
            + 4 * self.fields.len()
    }

    /// How many header fields the head has.
    pub fn count_fields(&self) -> usize {
        self.fields.len()
    }

    fn slice(&self, (start, end): (u32, u32)) -> &[u8] {
        &self.bytes[start as usize..end as usize]
    }

    /// Every header field in order: the name lower-cased, the value as sent.
    pub fn headers(&self) -> impl Iterator<Item = (&str, &[u8])> + '_ {
        self.fields.iter().map(|f| {
            (
                // Names are tokens (checked by the parser): ASCII.
                core::str::from_utf8(self.slice(f.name)).unwrap_or(""),
                self.slice(f.value),
            )
        })
    }

    /// Whether `f` is the header `name` (lower-case), which is [`known`]
    /// as `tag`.
    #[inline]
    fn is(&self, f: &Field, name: &str, tag: u8) -> bool {
        if tag != 0 {
            f.known == tag
        } else {
            self.slice(f.name) == name.as_bytes()
        }
    }

    /// The values of header `name` (lower-case), in order.
    ///
    /// This and the other lookups are inlined where they are called, so a
    /// name written in the code is numbered ([`known`]) when compiled, not
    /// on each request.
    #[inline(always)]
    pub(crate) fn values<'a, 'n>(
        &'a self,
        name: &'n str,
    ) -> impl Iterator<Item = &'a [u8]> + use<'a, 'n> {
        let tag = known(name.as_bytes());
        let (start, most) = self.index.span(tag, self.fields.len());
        self.fields[start..]
            .iter()
            .filter(move |f| self.is(f, name, tag))
            .take(most)
            .map(|f| self.slice(f.value))
    }

    /// The first value of header `name` (lower-case).
    #[inline(always)]
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.first(name, known(name.as_bytes()))
    }

    fn first(&self, name: &str, tag: u8) -> Option<&[u8]> {
        let (start, _) = self.index.span(tag, self.fields.len());
        let f = self.fields[start..].iter().find(|f| self.is(f, name, tag))?;
        Some(self.slice(f.value))
    }

    /// How many times header `name` (lower-case) appears.
    #[inline(always)]
    pub fn count(&self, name: &str) -> usize {
        self.count_of(name, known(name.as_bytes()))
    }

    fn count_of(&self, name: &str, tag: u8) -> usize {
        match self.index.span(tag, self.fields.len()) {
            (_, most @ (0 | 1)) => most,
            (start, _) => self.fields[start..]
                .iter()
                .filter(|f| self.is(f, name, tag))
                .count(),
        }
    }

    /// Whether the client asked to keep the connection open afterwards
    /// (RFC 9112 § 9.3).
    pub fn keep_alive(&self) -> bool {
        let (mut close, mut keep) = (false, false);
        for value in self.values("connection") {
            // The value clients send, taken whole.
            if value == b"keep-alive" {
                keep = true;
                continue;
            }
            for token in value.split(|&b| b == b',') {
                let token = token.trim_ascii();
                close |= token.eq_ignore_ascii_case(b"close");
                keep |= token.eq_ignore_ascii_case(b"keep-alive");
            }
        }
        !close && (self.minor_version >= 1 || keep)
    }

    /// Whether the client sent `Expect: 100-continue`.
    pub fn expects_continue(&self) -> bool {
        self.get("expect")
            .is_some_and(|v| v.eq_ignore_ascii_case(b"100-continue"))
    }
}

impl PartialEq for Head {
    /// Heads are equal when their method, path, version and header fields
    /// are, however their bytes are laid out.
    fn eq(&self, other: &Self) -> bool {
        self.method == other.method
            && self.path == other.path
            && self.minor_version == other.minor_version
            && self.headers().eq(other.headers())
    }
}

impl core::fmt::Debug for Head {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        struct Fields<'a>(&'a Head);
        impl core::fmt::Debug for Fields<'_> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_list()
                    .entries(
                        self.0
                            .headers()
                            .map(|(n, v)| (n, String::from_utf8_lossy(v))),
                    )
                    .finish()
            }
        }
        f.debug_struct("Head")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("minor_version", &self.minor_version)
            .field("headers", &Fields(self))
            .finish()
    }
}

/// Limits of the decoder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodecLimits {
    /// Most bytes in a request head.
    pub max_head_bytes: usize,
    /// Most header fields.
    pub max_headers: usize,
    /// Most body bytes.
    pub max_body_bytes: usize,
}

/// A request the decoder refused; the connection must answer `status` and close.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpError {
    /// Status code.
    pub status: u16,
    /// One sentence for the response body.
    pub reason: String,
}

impl HttpError {
    fn new(status: u16, reason: impl Into<String>) -> Self {
        HttpError {
            status,
            reason: reason.into(),
        }
    }
}

/// What the decoder produced.
#[derive(Debug, PartialEq)]
pub enum Decoded {
    /// A head is complete; its body (if any) follows. Validate it before
    /// the body arrives (and answer `100 Continue` if it expects one).
    Head(Head),
    /// The body of the last head is complete.
    Body(Bytes),
    /// Malformed or over a limit.
    Error(HttpError),
}

#[derive(Debug)]
enum State {
    Head,
    Length {
        remaining: usize,
    },
    Chunked {
        chunk: ChunkState,
    },
    /// After an error: nothing more is decoded.
    Failed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChunkState {
    Size,
    Data { remaining: usize },
    DataEnd,
    Trailers,
}

/// Incremental request decoder for one connection.
#[derive(Debug)]
pub struct Decoder {
    buf: BytesMut,
    state: State,
    body: BytesMut,
    limits: CodecLimits,
    /// The field index of a head given back, for the next head.
    spare_fields: Vec<Field>,
}

impl Decoder {
    /// A decoder with `limits`.
    pub fn new(limits: CodecLimits) -> Self {
        Decoder {
            buf: BytesMut::new(),
            state: State::Head,
            body: BytesMut::new(),
            limits,
            spare_fields: Vec::new(),
        }
    }

    /// Give back a head this decoder produced, once it is answered: its
    /// field index serves the next head, so a keep-alive connection does
    /// not allocate one per request.
    pub fn recycle(&mut self, head: Head) {
        if head.fields.capacity() <= STACK_HEADERS {
            self.spare_fields = head.fields;
        }
    }

    /// Append received bytes.
    pub fn push(&mut self, data: &[u8]) {
        if !matches!(self.state, State::Failed) {
            self.buf.extend_from_slice(data);
        }
    }

    /// Bytes received and not yet decoded.
    pub fn buffered(&self) -> usize {
        self.buf.len() + self.body.len()
    }

    /// Whether the decoder is between requests with nothing buffered.
    pub fn is_idle(&self) -> bool {
        matches!(self.state, State::Head) && self.buf.is_empty()
    }

    /// Whether a request has started arriving but is not complete.
    pub fn in_request(&self) -> bool {
        match self.state {
            State::Head => !self.buf.is_empty(),
            State::Length { .. } | State::Chunked { .. } => true,
            State::Failed => false,
        }
    }

    /// Decode the next event, if the buffer holds one.
    pub fn decode(&mut self) -> Option<Decoded> {
        match self.state {
            State::Failed => None,
            State::Head => self.decode_head(),
            State::Length { remaining } if self.body.is_empty() && self.buf.len() >= remaining => {
                // The whole body has arrived: split off, not copied.
                self.state = State::Head;
                Some(Decoded::Body(self.buf.split_to(remaining).freeze()))
            }
            State::Length { remaining } => {
                let take = remaining.min(self.buf.len());
                self.body.extend_from_slice(&self.buf[..take]);
                self.buf.advance(take);
                let remaining = remaining - take;
                if remaining == 0 {
                    self.state = State::Head;
                    Some(Decoded::Body(self.body.split().freeze()))
                } else {
                    self.state = State::Length { remaining };
                    None
                }
            }
            State::Chunked { .. } => self.decode_chunked(),
        }
    }

    fn fail(&mut self, status: u16, reason: impl Into<String>) -> Option<Decoded> {
        self.state = State::Failed;
        self.buf.clear();
        self.body.clear();
        Some(Decoded::Error(HttpError::new(status, reason)))
    }

    fn decode_head(&mut self) -> Option<Decoded> {
        // Tolerate empty lines before a request (RFC 9112 § 2.2).
        while self.buf.starts_with(b"\r\n") {
            self.buf.advance(2);
        }
        if self.buf.is_empty() {
            return None;
        }
        // Header slots on the stack for the usual limit, on the heap only
        // for a larger one; left uninitialized, since the parser writes
        // each slot it hands back (filling 64 empty slots first would cost
        // more than parsing a usual head's dozen).
        let mut stack = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; STACK_HEADERS];
        let mut heap = Vec::new();
        let storage: &mut [MaybeUninit<httparse::Header<'_>>] =
            if self.limits.max_headers <= STACK_HEADERS {
                &mut stack[..self.limits.max_headers]
            } else {
                heap.reserve_exact(self.limits.max_headers);
                &mut heap.spare_capacity_mut()[..self.limits.max_headers]
            };
        let mut req = httparse::Request::new(&mut []);
        // Only the bytes a head may span are looked at, so the verdict is
        // the same however the head was cut into reads: a fault past the
        // limit is never seen before the limit is.
        let window = self.buf.len().min(self.limits.max_head_bytes + 1);
        let parsed = req.parse_with_uninit_headers(&self.buf[..window], storage);
        let head_len = match parsed {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) => {
                if window > self.limits.max_head_bytes {
                    return self.fail(431, "Request header fields too large");
                }
                return None;
            }
            Err(httparse::Error::TooManyHeaders) => {
                return self.fail(431, "Too many request header fields");
            }
            Err(e) => return self.fail(400, format!("Malformed HTTP request: {e}")),
        };
        if head_len > self.limits.max_head_bytes {
            return self.fail(431, "Request header fields too large");
        }
        // Where each piece is in the buffer (the parser's slices borrow
        // it); the head's bytes are then split off without a copy.
        let base = self.buf.as_ptr() as usize;
        let at = |piece: &[u8]| -> (u32, u32) {
            let start = (piece.as_ptr() as usize).wrapping_sub(base) as u32;
            (start, start + piece.len() as u32)
        };
        // A complete parse sets the method and the target.
        let method = req.method.map_or((0, 0), |m| at(m.as_bytes()));
        let path = req.path.map_or((0, 0), |target| {
            at(target.split(['?', '#']).next().unwrap_or("").as_bytes())
        });
        let minor_version = req.version.unwrap_or(1);
        let mut fields = core::mem::take(&mut self.spare_fields);
        fields.clear();
        fields.reserve(req.headers.len());
        for h in req.headers.iter() {
            fields.push(Field {
                name: at(h.name.as_bytes()),
                value: at(h.value),
                known: 0,
            });
        }
        let mut bytes = self.buf.split_to(head_len);
        for f in &mut fields {
            let name = &mut bytes[f.name.0 as usize..f.name.1 as usize];
            lowercase_token(name);
            f.known = known(name);
        }
        let bytes = bytes.freeze();
        let text = |(start, end): (u32, u32)| HeadStr(bytes.slice(start as usize..end as usize));
        let head = Head {
            method: text(method),
            path: text(path),
            minor_version,
            index: Index::of(&fields),
            fields,
            bytes,
        };

        // Body framing (RFC 9112 § 6.3).
        let te = head.get("transfer-encoding");
        let cl_count = head.count("content-length");
        if te.is_some() && cl_count > 0 {
            return self.fail(400, "Both Transfer-Encoding and Content-Length are present");
        }
        if let Some(te) = te {
            if head.count("transfer-encoding") > 1 || !te.eq_ignore_ascii_case(b"chunked") {
                return self.fail(501, "Only the chunked transfer coding is supported");
            }
            self.state = State::Chunked {
                chunk: ChunkState::Size,
            };
        } else if cl_count > 0 {
            let mut length: Option<usize> = None;
            for v in head.values("content-length") {
                let parsed = core::str::from_utf8(v)
                    .ok()
                    .map(str::trim)
                    .filter(|s| {
                        !s.is_empty() && s.len() <= 19 && s.bytes().all(|b| b.is_ascii_digit())
                    })
                    .and_then(|s| s.parse::<u64>().ok());
                match (parsed, length) {
                    (None, _) => return self.fail(400, "Invalid Content-Length"),
                    (Some(n), Some(prev)) if prev as u64 != n => {
                        return self.fail(400, "Conflicting Content-Length values")
                    }
                    (Some(n), _) => {
                        if n > self.limits.max_body_bytes as u64 {
                            return self.fail(413, "Request body too large");
                        }
                        length = Some(n as usize);
                    }
                }
            }
            self.state = State::Length {
                remaining: length.unwrap_or(0),
            };
        } else {
            self.state = State::Length { remaining: 0 };
        }
        Some(Decoded::Head(head))
    }

    fn decode_chunked(&mut self) -> Option<Decoded> {
        loop {
            let State::Chunked { chunk } = self.state else {
                return None;
            };
            match chunk {
                ChunkState::Size => {
                    let line_end = self.buf.windows(2).position(|w| w == b"\r\n");
                    // The line (with its CR) may span 1024 bytes, whether
                    // or not its end has arrived yet.
                    let Some(end) = line_end.filter(|&e| e < MAX_CHUNK_LINE) else {
                        if line_end.is_some() || self.buf.len() > MAX_CHUNK_LINE {
                            return self.fail(400, "Chunk size line too long");
                        }
                        return None;
                    };
                    let line = &self.buf[..end];
                    let size_part = line.split(|&b| b == b';').next().unwrap_or(b"");
                    let size_str = core::str::from_utf8(size_part)
                        .ok()
                        .map(str::trim)
                        .unwrap_or("");
                    if size_str.is_empty()
                        || size_str.len() > 15
                        || !size_str.bytes().all(|b| b.is_ascii_hexdigit())
                    {
                        return self.fail(400, "Invalid chunk size");
                    }
                    let size = usize::from_str_radix(size_str, 16).unwrap_or(usize::MAX);
                    self.buf.advance(end + 2);
                    if size == 0 {
                        self.state = State::Chunked {
                            chunk: ChunkState::Trailers,
                        };
                    } else {
                        if self.body.len().saturating_add(size) > self.limits.max_body_bytes {
                            return self.fail(413, "Request body too large");
                        }
                        self.state = State::Chunked {
                            chunk: ChunkState::Data { remaining: size },
                        };
                    }
                }
                ChunkState::Data { remaining } => {
                    if self.buf.is_empty() {
                        return None;
                    }
                    let take = remaining.min(self.buf.len());
                    self.body.extend_from_slice(&self.buf[..take]);
                    self.buf.advance(take);
                    self.state = State::Chunked {
                        chunk: if take == remaining {
                            ChunkState::DataEnd
                        } else {
                            ChunkState::Data {
                                remaining: remaining - take,
                            }
                        },
                    };
                }
                ChunkState::DataEnd => {
                    if self.buf.len() < 2 {
                        return None;
                    }
                    if &self.buf[..2] != b"\r\n" {
                        return self.fail(400, "Malformed chunk");
                    }
                    self.buf.advance(2);
                    self.state = State::Chunked {
                        chunk: ChunkState::Size,
                    };
                }
                ChunkState::Trailers => {
                    // Trailer fields are read and ignored up to the empty line.
                    let max = self.limits.max_head_bytes;
                    let line_end = self.buf.windows(2).position(|w| w == b"\r\n");
                    let Some(end) = line_end.filter(|&e| e < max) else {
                        if line_end.is_some() || self.buf.len() > max {
                            return self.fail(431, "Trailer fields too large");
                        }
                        return None;
                    };
                    self.buf.advance(end + 2);
                    if end == 0 {
                        self.state = State::Head;
                        return Some(Decoded::Body(self.body.split().freeze()));
                    }
                }
            }
        }
    }
}

/// The reason phrase of the statuses snodo sends.
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "Unknown",
    }
}

/// Append a status line and headers; `extra` are complete `Name: value` lines.
pub fn write_head(
    out: &mut Vec<u8>,
    status: u16,
    content_type: Option<&str>,
    length: Option<usize>,
    close: bool,
    extra: &[&str],
) {
    // Written piecewise, not through `format!`: a head per response. The
    // usual answer's first two lines are one constant.
    if status == 200 && content_type == Some("application/json") {
        out.extend_from_slice(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n");
    } else {
        out.extend_from_slice(b"HTTP/1.1 ");
        write_decimal(out, u64::from(status));
        out.push(b' ');
        out.extend_from_slice(reason_phrase(status).as_bytes());
        out.extend_from_slice(b"\r\n");
        if let Some(ct) = content_type {
            out.extend_from_slice(b"Content-Type: ");
            out.extend_from_slice(ct.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
    }
    match length {
        Some(n) => {
            out.extend_from_slice(b"Content-Length: ");
            write_decimal(out, n as u64);
            out.extend_from_slice(b"\r\n");
        }
        None => out.extend_from_slice(b"Transfer-Encoding: chunked\r\n"),
    }
    for line in extra {
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    if close {
        out.extend_from_slice(b"Connection: close\r\n");
    }
    out.extend_from_slice(b"\r\n");
}

/// Append `n` in decimal.
pub(crate) fn write_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0_u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// Append one chunk of a chunked body.
pub fn write_chunk(out: &mut Vec<u8>, data: &[u8]) {
    if data.is_empty() {
        return;
    }
    out.extend_from_slice(format!("{:x}\r\n", data.len()).as_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
}

/// Append the last chunk of a chunked body.
pub fn write_last_chunk(out: &mut Vec<u8>) {
    out.extend_from_slice(b"0\r\n\r\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::{format, vec};

    const LIMITS: CodecLimits = CodecLimits {
        max_head_bytes: 1024,
        max_headers: 8,
        max_body_bytes: 64,
    };

    fn head_of(d: Option<Decoded>) -> Head {
        match d {
            Some(Decoded::Head(h)) => h,
            other => panic!("expected head, got {other:?}"),
        }
    }

    #[test]
    fn header_names_are_lower_cased_as_ascii_lower_cases_them() {
        // Letters at and next to the edges of the upper-case range, and
        // every byte value in turn at each position, at every length up to
        // three chunks.
        for len in 1..25 {
            for (at, b) in (0..len).flat_map(|at| (0..=u8::MAX).map(move |b| (at, b))) {
                let mut name: Vec<u8> = (0..len).map(|i| b"AzZa@[`{"[i % 8]).collect();
                name[at] = b;
                let mut want = name.clone();
                want.make_ascii_lowercase();
                lowercase_token(&mut name);
                assert_eq!(name, want, "length {len}, byte {b:#04x} at {at}");
            }
        }
    }

    #[test]
    fn content_length_body_split_across_reads() {
        let mut d = Decoder::new(LIMITS);
        d.push(b"POST /mcp?x=1 HTTP/1.1\r\nHost: a\r\nContent-Le");
        assert_eq!(d.decode(), None);
        d.push(b"ngth: 5\r\n\r\nhe");
        let h = head_of(d.decode());
        assert_eq!(
            (h.method.as_str(), h.path.as_str(), h.minor_version),
            ("POST", "/mcp", 1)
        );
        assert_eq!(h.get("host"), Some(&b"a"[..]));
        assert_eq!(d.decode(), None);
        d.push(b"lloGET");
        assert_eq!(
            d.decode(),
            Some(Decoded::Body(Bytes::from_static(b"hello")))
        );
        assert_eq!(d.decode(), None, "pipelined bytes wait for a full head");
        assert!(d.in_request());
    }

    #[test]
    fn the_index_answers_as_a_scan_would() {
        // Every lookup of a known name through the index, against a pass
        // over every field: absent, once, repeated, first far down, and a
        // first past what the index's positions hold.
        let far = usize::from(u16::MAX) + 3;
        let shapes: [Vec<(String, &str)>; 4] = [
            vec![],
            vec![("Host".into(), "a"), ("x-a".into(), "1")],
            vec![
                ("connection".into(), "keep-alive"),
                ("Content-Length".into(), "3"),
                ("x-b".into(), "2"),
                ("content-length".into(), "4"),
                ("CONNECTION".into(), "close"),
            ],
            (0..far)
                .map(|i| (format!("x-{i}"), "v"))
                .chain([("mcp-name".to_string(), "n"), ("mcp-name".to_string(), "m")])
                .collect(),
        ];
        let names = [
            "host",
            "connection",
            "content-length",
            "mcp-name",
            "authorization",
            "x-a",
            "x-b",
            "x-9",
        ];
        for fields in shapes {
            let head = Head::new("POST", "/", 1, fields.iter().map(|(n, v)| (n.as_str(), *v)));
            for name in names {
                let scan: Vec<&[u8]> = head
                    .headers()
                    .filter(|(n, _)| *n == name)
                    .map(|(_, v)| v)
                    .collect();
                assert_eq!(head.values(name).collect::<Vec<_>>(), scan, "{name}");
                assert_eq!(head.get(name), scan.first().copied(), "{name}");
                assert_eq!(head.count(name), scan.len(), "{name}");
            }
        }
    }

    #[test]
    fn head_fields_are_views_of_its_bytes() {
        let mut d = Decoder::new(LIMITS);
        d.push(b"POST /mcp#f HTTP/1.0\r\nHOST: a\r\nX-Two: 1\r\nx-two:  2 \r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\n{}POST");
        let h = head_of(d.decode());
        assert_eq!(h.method, "POST");
        assert_eq!(h.path, "/mcp");
        assert_eq!(h.get("host"), Some(&b"a"[..]));
        assert_eq!(h.get("Host"), None, "names are looked up lower-case");
        assert_eq!(h.count("x-two"), 2);
        assert_eq!(h.get("x-two"), Some(&b"1"[..]));
        assert!(h.keep_alive());
        let expected = Head::new(
            "POST",
            "/mcp",
            0,
            [
                ("host", "a"),
                ("x-two", "1"),
                ("x-two", "2"),
                ("connection", "Keep-Alive"),
                ("content-length", "2"),
            ],
        );
        assert_eq!(h, expected);
        assert_eq!(h.headers().count(), 5);
        assert_eq!(d.decode(), Some(Decoded::Body(Bytes::from_static(b"{}"))));
        assert_eq!(d.decode(), None);
    }

    #[test]
    fn chunked_body_with_extension_and_trailer() {
        let mut d = Decoder::new(LIMITS);
        d.push(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-T: 1\r\n\r\n");
        head_of(d.decode());
        assert_eq!(
            d.decode(),
            Some(Decoded::Body(Bytes::from_static(b"abcde")))
        );
        assert!(d.is_idle());
    }

    #[test]
    fn chunked_body_one_byte_at_a_time() {
        let mut d = Decoder::new(LIMITS);
        let wire = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
        let mut events = Vec::new();
        for b in wire {
            d.push(&[*b]);
            while let Some(e) = d.decode() {
                events.push(e);
            }
        }
        assert_eq!(events.len(), 2);
        assert_eq!(events[1], Decoded::Body(Bytes::from_static(b"abc")));
    }

    #[test]
    fn limits_and_malformed_framing() {
        let cases: &[(&[u8], u16)] = &[
            (b"POST / HTTP/1.1\r\nContent-Length: 65\r\n\r\n", 413),
            (b"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            (b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n41\r\n", 413),
            (b"POST / HTTP/1.1\r\nA: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\nE: 1\r\nF: 1\r\nG: 1\r\nH: 1\r\nI: 1\r\n\r\n", 431),
            (b"GARBAGE\r\n\r\n", 400),
            (b"POST / HTTP/1.1\r\nBad Header\r\n\r\n", 400),
        ];
        for (wire, status) in cases {
            let mut d = Decoder::new(LIMITS);
            d.push(wire);
            let mut got = None;
            while let Some(e) = d.decode() {
                if let Decoded::Error(err) = e {
                    got = Some(err.status);
                    break;
                }
            }
            assert_eq!(got, Some(*status), "{}", String::from_utf8_lossy(wire));
        }
    }

    #[test]
    fn oversized_head_without_end() {
        let mut d = Decoder::new(LIMITS);
        d.push(b"POST / HTTP/1.1\r\nX: ");
        d.push(&[b'a'; 2000]);
        assert!(matches!(
            d.decode(),
            Some(Decoded::Error(HttpError { status: 431, .. }))
        ));
        d.push(b"more");
        assert_eq!(d.decode(), None, "nothing after a failure");
    }

    #[test]
    fn known_names_are_found_whatever_their_case() {
        assert_eq!(known(b"host"), 1);
        assert_eq!(known(b"mcp-session-id"), 12);
        assert_eq!(known(b"hosts"), 0);
        assert_eq!(known(b"mcp-names"), 0);
        let mut d = Decoder::new(CodecLimits {
            max_head_bytes: 8192,
            max_headers: 64,
            max_body_bytes: 1024,
        });
        d.push(b"POST /mcp HTTP/1.1\r\nHOST: a\r\nMcp-Session-ID: s\r\nX-Long-Header-NAME: v\r\nContent-Length: 0\r\n\r\n");
        let h = head_of(d.decode());
        assert_eq!(h.get("host"), Some(&b"a"[..]));
        assert_eq!(h.get("mcp-session-id"), Some(&b"s"[..]));
        assert_eq!(h.get("x-long-header-name"), Some(&b"v"[..]));
        assert_eq!(h.count("content-length"), 1);
    }

    #[test]
    fn keep_alive_rules() {
        let mk = |v: u8, conn: Option<&str>| {
            Head::new("POST", "/", v, conn.map(|c| ("Connection", c.as_bytes())))
        };
        assert!(mk(1, None).keep_alive());
        assert!(!mk(1, Some("close")).keep_alive());
        assert!(!mk(0, None).keep_alive());
        assert!(mk(0, Some("Keep-Alive")).keep_alive());
        assert!(mk(0, Some("keep-alive")).keep_alive());
        assert!(!mk(1, Some("keep-alive, close")).keep_alive());
        let both = Head::new(
            "POST",
            "/",
            1,
            [("Connection", "keep-alive"), ("Connection", "close")],
        );
        assert!(!both.keep_alive(), "a close in any Connection field wins");
    }

    #[test]
    fn heads_are_written_exactly() {
        let mut out = Vec::new();
        write_head(
            &mut out,
            200,
            Some("application/json"),
            Some(1234),
            false,
            &[],
        );
        assert_eq!(
            out,
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1234\r\n\r\n"
        );
        out.clear();
        write_head(&mut out, 400, Some("application/json"), Some(7), true, &[]);
        assert_eq!(
            out,
            b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n"
        );
        out.clear();
        write_head(&mut out, 202, None, Some(0), true, &["Allow: POST"]);
        assert_eq!(
            out,
            b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nAllow: POST\r\nConnection: close\r\n\r\n"
        );
        out.clear();
        write_head(&mut out, 200, Some("text/event-stream"), None, false, &[]);
        assert_eq!(
            out,
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        );
        out.clear();
        write_decimal(&mut out, u64::MAX);
        assert_eq!(out, b"18446744073709551615");
    }
}
