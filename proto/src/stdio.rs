//! stdio framing: one JSON-RPC message per line (`basic/transports/stdio.mdx`).
//!
//! All framing state lives here, inside the connection, so an adapter that
//! drops a read future never loses a partial message. A line longer than the
//! limit is reported once and skipped up to its newline; the next line is
//! read normally. `\r\n` endings and blank lines are tolerated.

use bytes::{Bytes, BytesMut};

/// One framed unit.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// A complete line without its terminator.
    Message(Bytes),
    /// A line exceeded the limit and is being skipped.
    TooLong,
}

/// Splits a byte stream into lines, bounded by `max` bytes per line.
#[derive(Debug)]
pub struct LineFramer {
    buf: BytesMut,
    /// Bytes of `buf` already searched for a newline.
    scanned: usize,
    /// Skipping the rest of an over-long line.
    discarding: bool,
    max: usize,
}

impl LineFramer {
    /// A framer for lines of at most `max` bytes.
    pub fn new(max: usize) -> Self {
        LineFramer {
            buf: BytesMut::new(),
            scanned: 0,
            discarding: false,
            max,
        }
    }

    /// Bytes held (a partial line); never more than `max` + one input chunk.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Append received bytes.
    pub fn push(&mut self, mut data: &[u8]) {
        if self.discarding {
            match data.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    self.discarding = false;
                    data = &data[i + 1..];
                }
                None => return,
            }
        }
        self.buf.extend_from_slice(data);
    }

    /// The next complete line, if any.
    pub fn next_line(&mut self) -> Option<Line> {
        loop {
            if self.discarding {
                return None;
            }
            let found = self.buf[self.scanned..].iter().position(|&b| b == b'\n');
            match found {
                Some(i) => {
                    let end = self.scanned + i;
                    self.scanned = 0;
                    let mut line = self.buf.split_to(end + 1);
                    line.truncate(end);
                    if line.last() == Some(&b'\r') {
                        line.truncate(end - 1);
                    }
                    if line.len() > self.max {
                        return Some(Line::TooLong);
                    }
                    if line.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    return Some(Line::Message(line.freeze()));
                }
                None => {
                    if self.buf.len() > self.max + 1 {
                        // No newline within the limit: drop what we have and
                        // skip to the next newline.
                        self.buf.clear();
                        self.scanned = 0;
                        self.discarding = true;
                        return Some(Line::TooLong);
                    }
                    self.scanned = self.buf.len();
                    return None;
                }
            }
        }
    }

    /// At end of input: the unterminated last line, if any.
    pub fn finish(&mut self) -> Option<Line> {
        if self.discarding {
            self.discarding = false;
            return None;
        }
        self.scanned = 0;
        let mut rest = self.buf.split().freeze();
        if rest.last() == Some(&b'\r') {
            rest.truncate(rest.len() - 1);
        }
        if rest.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        if rest.len() > self.max {
            return Some(Line::TooLong);
        }
        Some(Line::Message(rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(s: &str) -> Option<Line> {
        Some(Line::Message(Bytes::copy_from_slice(s.as_bytes())))
    }

    #[test]
    fn splits_across_chunks() {
        let mut f = LineFramer::new(100);
        f.push(b"{\"a\":");
        assert_eq!(f.next_line(), None);
        f.push(b"1}\n{\"b\":2}\r\n\n  \n{\"c\"");
        assert_eq!(f.next_line(), msg("{\"a\":1}"));
        assert_eq!(f.next_line(), msg("{\"b\":2}"));
        assert_eq!(f.next_line(), None);
        f.push(b":3}");
        assert_eq!(f.finish(), msg("{\"c\":3}"));
    }

    #[test]
    fn overlong_line_is_skipped_and_next_line_read() {
        let mut f = LineFramer::new(8);
        f.push(b"0123456789");
        assert_eq!(f.next_line(), Some(Line::TooLong));
        assert_eq!(f.next_line(), None);
        f.push(b"abcdef");
        assert_eq!(f.next_line(), None);
        assert_eq!(f.buffered(), 0, "discarded bytes are not kept");
        f.push(b"gh\n{\"ok\":1}\n");
        assert_eq!(f.next_line(), msg("{\"ok\":1}"));
    }

    #[test]
    fn overlong_line_with_newline_in_same_chunk() {
        let mut f = LineFramer::new(4);
        f.push(b"0123456\nabc\n");
        assert_eq!(f.next_line(), Some(Line::TooLong));
        assert_eq!(f.next_line(), msg("abc"));
    }

    #[test]
    fn line_of_exactly_max_is_accepted() {
        let mut f = LineFramer::new(4);
        f.push(b"abcd");
        assert_eq!(f.next_line(), None);
        f.push(b"\n");
        assert_eq!(f.next_line(), msg("abcd"));
    }
}
