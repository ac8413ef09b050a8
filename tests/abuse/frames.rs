//! Hand-written HTTP/2 frames (RFC 9113 § 4, § 6) and HPACK literals
//! (RFC 7541 § 6.2.2) for the attacks no well-behaved client library will
//! send: floods of CONTINUATION, RST_STREAM, SETTINGS and PING frames,
//! and field values an HTTP/2 library refuses to encode.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// The client connection preface (RFC 9113 § 3.4).
pub const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

pub const DATA: u8 = 0x0;
pub const HEADERS: u8 = 0x1;
pub const RST_STREAM: u8 = 0x3;
pub const SETTINGS: u8 = 0x4;
pub const PING: u8 = 0x6;
pub const GOAWAY: u8 = 0x7;
pub const WINDOW_UPDATE: u8 = 0x8;
pub const CONTINUATION: u8 = 0x9;

pub const END_STREAM: u8 = 0x1;
pub const END_HEADERS: u8 = 0x4;

/// Error codes (RFC 9113 § 7).
pub const PROTOCOL_ERROR: u32 = 0x1;
pub const REFUSED_STREAM: u32 = 0x7;
pub const CANCEL: u32 = 0x8;
pub const ENHANCE_YOUR_CALM: u32 = 0xb;

/// `SETTINGS_INITIAL_WINDOW_SIZE` (RFC 9113 § 6.5.2).
pub const INITIAL_WINDOW_SIZE: u16 = 0x4;

/// One frame: its 9-byte header and payload.
pub fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = payload.len();
    assert!(len < 1 << 24, "a frame of {len} bytes");
    let mut out = Vec::with_capacity(9 + len);
    out.extend_from_slice(&(len as u32).to_be_bytes()[1..]);
    out.push(kind);
    out.push(flags);
    out.extend_from_slice(&(stream & 0x7fff_ffff).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

/// SETTINGS with `(identifier, value)` pairs.
pub fn settings(pairs: &[(u16, u32)]) -> Vec<u8> {
    let payload: Vec<u8> = pairs
        .iter()
        .flat_map(|(id, v)| id.to_be_bytes().into_iter().chain(v.to_be_bytes()))
        .collect();
    frame(SETTINGS, 0, 0, &payload)
}

/// RST_STREAM with `code`.
pub fn rst_stream(stream: u32, code: u32) -> Vec<u8> {
    frame(RST_STREAM, 0, stream, &code.to_be_bytes())
}

/// An HPACK integer with an `n`-bit prefix whose high bits are `first`
/// (RFC 7541 § 5.1).
fn integer(out: &mut Vec<u8>, first: u8, n: u32, mut value: usize) {
    let max = (1usize << n) - 1;
    if value < max {
        out.push(first | value as u8);
        return;
    }
    out.push(first | max as u8);
    value -= max;
    while value >= 128 {
        out.push((value % 128) as u8 | 0x80);
        value /= 128;
    }
    out.push(value as u8);
}

/// A field line as a literal without indexing, with a literal name and no
/// Huffman coding (RFC 7541 § 6.2.2): the bytes go on the wire as given.
pub fn literal(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.push(0x00);
    integer(out, 0x00, 7, name.len());
    out.extend_from_slice(name);
    integer(out, 0x00, 7, value.len());
    out.extend_from_slice(value);
}

/// The header block of a POST to `/mcp` for `method`, with `extra` lines.
pub fn request_block(addr: SocketAddr, method: &str, extra: &[(&[u8], &[u8])]) -> Vec<u8> {
    let authority = addr.to_string();
    let mut block = Vec::new();
    let lines: [(&[u8], &[u8]); 8] = [
        (b":method", b"POST"),
        (b":scheme", b"http"),
        (b":authority", authority.as_bytes()),
        (b":path", b"/mcp"),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        (b"mcp-protocol-version", b"2026-07-28"),
        (b"mcp-method", method.as_bytes()),
    ];
    for (n, v) in lines.iter().chain(extra) {
        literal(&mut block, n, v);
    }
    block
}

/// A raw HTTP/2 connection: the preface and an empty SETTINGS sent.
pub struct Raw {
    pub conn: TcpStream,
    buf: Vec<u8>,
}

/// A frame read back.
#[derive(Debug)]
pub struct Frame {
    pub kind: u8,
    pub stream: u32,
    pub payload: Vec<u8>,
}

impl Frame {
    /// The error code of a RST_STREAM or GOAWAY.
    pub fn code(&self) -> Option<u32> {
        let at = match self.kind {
            RST_STREAM => 0,
            GOAWAY => 4,
            _ => return None,
        };
        let b = self.payload.get(at..at + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

impl Raw {
    /// Connect, with the client's SETTINGS `pairs`.
    pub fn connect(addr: SocketAddr, pairs: &[(u16, u32)]) -> Raw {
        let mut conn = TcpStream::connect(addr).expect("connect");
        let _ = conn.set_nodelay(true);
        let mut hello = PREFACE.to_vec();
        hello.extend(settings(pairs));
        conn.write_all(&hello).expect("the preface");
        Raw {
            conn,
            buf: Vec::new(),
        }
    }

    /// Write bytes; `false` once the server has closed.
    pub fn send(&mut self, bytes: &[u8]) -> bool {
        self.conn.write_all(bytes).is_ok()
    }

    /// The next frame within `limit`; `None` at the close or the limit.
    pub fn next(&mut self, limit: Duration) -> Option<Frame> {
        let deadline = Instant::now() + limit;
        loop {
            if self.buf.len() >= 9 {
                let len = u32::from_be_bytes([0, self.buf[0], self.buf[1], self.buf[2]]) as usize;
                if self.buf.len() >= 9 + len {
                    let head: Vec<u8> = self.buf.drain(..9 + len).collect();
                    let stream = u32::from_be_bytes([head[5], head[6], head[7], head[8]]);
                    return Some(Frame {
                        kind: head[3],
                        stream: stream & 0x7fff_ffff,
                        payload: head[9..].to_vec(),
                    });
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            let _ = self.conn.set_read_timeout(Some(left));
            let mut chunk = [0u8; 16 * 1024];
            match self.conn.read(&mut chunk) {
                Ok(0) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    return None
                }
                Err(_) => return None,
            }
        }
    }

    /// Frames until the server closes or `limit` passes; whether it closed.
    pub fn until_closed(&mut self, limit: Duration) -> (Vec<Frame>, bool) {
        let deadline = Instant::now() + limit;
        let mut frames = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return (frames, false);
            }
            match self.next(left) {
                Some(f) => frames.push(f),
                None => {
                    let closed = !Instant::now().ge(&deadline) || self.closed();
                    return (frames, closed);
                }
            }
        }
    }

    /// Whether the server has closed (a read sees the end or an error).
    fn closed(&mut self) -> bool {
        let _ = self.conn.set_read_timeout(Some(Duration::from_millis(50)));
        let mut b = [0u8; 1];
        match self.conn.read(&mut b) {
            Ok(0) => true,
            Ok(n) => {
                self.buf.extend_from_slice(&b[..n]);
                false
            }
            Err(e) => !matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
        }
    }
}
