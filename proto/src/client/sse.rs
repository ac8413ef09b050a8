//! Server-Sent Events decoding for a client reading a `text/event-stream`
//! body (HTML Living Standard § 9.2.6 "Interpreting an event stream"; MCP
//! uses it in `basic/transports/streamable-http.mdx` § Receiving Messages).
//!
//! Bytes go in as they arrive, split anywhere; complete events come out.
//! A line or an event larger than its limit is an error: a hostile server
//! must not grow the client's memory without bound.

use alloc::string::String;
use alloc::vec::Vec;

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if any (MCP sends only the default `message`).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last `id:` field seen on the stream, if any.
    pub id: Option<String>,
    /// A `retry:` field carried by this event, in milliseconds.
    pub retry: Option<u64>,
}

/// Why a stream cannot be decoded further.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SseError {
    /// One line longer than [`SseLimits::max_line`].
    LineTooLong,
    /// One event's data longer than [`SseLimits::max_event`].
    EventTooLarge,
    /// A line that is not UTF-8.
    NotUtf8,
}

/// Bounds of one [`SseDecoder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SseLimits {
    /// The longest line kept while waiting for its end.
    pub max_line: usize,
    /// The largest data of one event.
    pub max_event: usize,
}

impl Default for SseLimits {
    /// 4 MiB for both: one JSON-RPC message per event.
    fn default() -> Self {
        SseLimits {
            max_line: 4 << 20,
            max_event: 4 << 20,
        }
    }
}

/// An incremental event-stream decoder.
#[derive(Debug)]
pub struct SseDecoder {
    limits: SseLimits,
    /// Bytes of the line not yet ended.
    line: Vec<u8>,
    /// The previous chunk ended in `\r`: a `\n` opening the next is part
    /// of that line ending.
    after_cr: bool,
    data: String,
    has_data: bool,
    event: Option<String>,
    retry: Option<u64>,
    last_id: Option<String>,
    ready: Vec<SseEvent>,
    failed: Option<SseError>,
}

impl SseDecoder {
    /// A decoder with these limits.
    pub fn new(limits: SseLimits) -> Self {
        SseDecoder {
            limits,
            line: Vec::new(),
            after_cr: false,
            data: String::new(),
            has_data: false,
            event: None,
            retry: None,
            last_id: None,
            ready: Vec::new(),
            failed: None,
        }
    }

    /// Feed bytes of the body. After an error nothing more is decoded.
    pub fn push(&mut self, mut bytes: &[u8]) {
        if self.after_cr {
            if let [b'\n', rest @ ..] = bytes {
                bytes = rest;
            }
            self.after_cr = false;
        }
        while self.failed.is_none() && !bytes.is_empty() {
            match bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
                None => {
                    if self.line.len() + bytes.len() > self.limits.max_line {
                        self.failed = Some(SseError::LineTooLong);
                        return;
                    }
                    self.line.extend_from_slice(bytes);
                    return;
                }
                Some(end) => {
                    if self.line.len() + end > self.limits.max_line {
                        self.failed = Some(SseError::LineTooLong);
                        return;
                    }
                    self.line.extend_from_slice(&bytes[..end]);
                    let cr = bytes[end] == b'\r';
                    bytes = &bytes[end + 1..];
                    if cr {
                        match bytes.first() {
                            Some(b'\n') => bytes = &bytes[1..],
                            None => self.after_cr = true,
                            Some(_) => {}
                        }
                    }
                    let line = core::mem::take(&mut self.line);
                    self.process_line(&line);
                    self.line = line;
                    self.line.clear();
                }
            }
        }
    }

    /// The next complete event, or the error that stopped the stream.
    pub fn next_event(&mut self) -> Option<Result<SseEvent, SseError>> {
        if !self.ready.is_empty() {
            return Some(Ok(self.ready.remove(0)));
        }
        self.failed.map(Err)
    }

    fn process_line(&mut self, line: &[u8]) {
        if line.is_empty() {
            self.dispatch();
            return;
        }
        if line[0] == b':' {
            return; // a comment (keep-alive)
        }
        let Ok(line) = core::str::from_utf8(line) else {
            self.failed = Some(SseError::NotUtf8);
            return;
        };
        let (field, value) = match line.find(':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (line, ""),
        };
        match field {
            "data" => {
                let extra = value.len() + usize::from(self.has_data);
                if self.data.len() + extra > self.limits.max_event {
                    self.failed = Some(SseError::EventTooLarge);
                    return;
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(String::from(value)),
            "id" if !value.contains('\0') => self.last_id = Some(String::from(value)),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry = value.parse().ok();
            }
            _ => {}
        }
    }

    fn dispatch(&mut self) {
        let event = self.event.take();
        let retry = self.retry.take();
        if !self.has_data {
            // An event without data is not dispatched (§ 9.2.6).
            self.data.clear();
            return;
        }
        self.has_data = false;
        self.ready.push(SseEvent {
            event,
            data: core::mem::take(&mut self.data),
            id: self.last_id.clone(),
            retry,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &[u8] = b": keep-alive\r\n\
id: 7\r\n\
retry: 1500\r\n\
data: {\"jsonrpc\":\"2.0\",\r\n\
data: \"method\":\"notifications/progress\"}\r\n\
\r\n\
event: message\n\
data:{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\
\n\
data: third\r\r";

    fn expected() -> Vec<SseEvent> {
        alloc::vec![
            SseEvent {
                event: None,
                data: String::from("{\"jsonrpc\":\"2.0\",\n\"method\":\"notifications/progress\"}"),
                id: Some(String::from("7")),
                retry: Some(1500),
            },
            SseEvent {
                event: Some(String::from("message")),
                data: String::from("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"),
                id: Some(String::from("7")),
                retry: None,
            },
            SseEvent {
                event: None,
                data: String::from("third"),
                id: Some(String::from("7")),
                retry: None,
            },
        ]
    }

    fn drain(d: &mut SseDecoder) -> Vec<SseEvent> {
        let mut out = Vec::new();
        while let Some(e) = d.next_event() {
            out.push(e.unwrap());
        }
        out
    }

    #[test]
    fn decodes_whole_stream() {
        let mut d = SseDecoder::new(SseLimits::default());
        d.push(STREAM);
        assert_eq!(drain(&mut d), expected());
    }

    #[test]
    fn decodes_split_at_every_byte_boundary() {
        for cut in 0..=STREAM.len() {
            let mut d = SseDecoder::new(SseLimits::default());
            d.push(&STREAM[..cut]);
            let mut got = drain(&mut d);
            d.push(&STREAM[cut..]);
            got.extend(drain(&mut d));
            assert_eq!(got, expected(), "cut at {cut}");
        }
        // And one byte at a time.
        let mut d = SseDecoder::new(SseLimits::default());
        let mut got = Vec::new();
        for b in STREAM {
            d.push(core::slice::from_ref(b));
            got.extend(drain(&mut d));
        }
        assert_eq!(got, expected());
    }

    #[test]
    fn an_event_without_data_is_not_dispatched() {
        let mut d = SseDecoder::new(SseLimits::default());
        d.push(b"event: ping\n\nid: 3\n\n:\n\n");
        assert!(d.next_event().is_none());
    }

    #[test]
    fn oversized_lines_and_events_stop_the_stream() {
        let limits = SseLimits {
            max_line: 16,
            max_event: 10,
        };
        let mut d = SseDecoder::new(limits);
        d.push(b"data: 0123456789abcdef");
        assert_eq!(d.next_event(), Some(Err(SseError::LineTooLong)));

        let mut d = SseDecoder::new(limits);
        d.push(b"data: 012345\ndata: 6789\n\n");
        assert_eq!(d.next_event(), Some(Err(SseError::EventTooLarge)));

        let mut d = SseDecoder::new(limits);
        d.push(b"data: 0123456789\n\n");
        assert_eq!(d.next_event().unwrap().unwrap().data, "0123456789");
    }

    /// Random bytes, split at random points: no panic, and the line being
    /// gathered stays within its limit.
    #[test]
    fn random_input_never_panics_nor_grows_the_line() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let limits = SseLimits {
            max_line: 64,
            max_event: 128,
        };
        let alphabet = b"data:id retry event\r\n\n\n: 019\xc3\xa9\xff";
        for _ in 0..400 {
            let mut d = SseDecoder::new(limits);
            for _ in 0..(next() % 40) {
                let len = (next() % 48) as usize;
                let piece: Vec<u8> = (0..len)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect();
                d.push(&piece);
                while let Some(Ok(e)) = d.next_event() {
                    assert!(e.data.len() <= limits.max_event);
                }
                assert!(d.line.len() <= limits.max_line);
                assert!(d.data.len() <= limits.max_event);
            }
        }
    }
}
