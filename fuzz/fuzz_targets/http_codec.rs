//! The HTTP/1.1 request decoder (`http::codec`, RFC 9112): any byte
//! stream, cut into reads anywhere, decodes to the same heads, bodies and
//! refusals as when read whole (split invariance); what it holds stays
//! within its limits; and well-formed pipelined requests (Content-Length or
//! chunked, with extensions and trailers) decode to exactly what was
//! encoded.

#![no_main]

use libfuzzer_sys::fuzz_target;
use snodo_fuzz::machine::source::Source;
use snodo_proto::http::codec::{CodecLimits, Decoded, Decoder, Head};

#[derive(Debug, PartialEq)]
enum Event {
    Head(Head),
    Body(Vec<u8>),
    /// A refusal, by status (the reason sentence may name the check that
    /// caught it first).
    Refused(u16),
}

fn decode(stream: &[u8], cuts: &[usize], limits: CodecLimits) -> Vec<Event> {
    let mut d = Decoder::new(limits);
    let mut events = Vec::new();
    let mut start = 0;
    let mut failed = false;
    let bound = limits.max_head_bytes.max(1024) + limits.max_body_bytes;
    for &end in cuts.iter().chain(std::iter::once(&stream.len())) {
        let end = end.clamp(start, stream.len());
        d.push(&stream[start..end]);
        start = end;
        while let Some(e) = d.decode() {
            assert!(!failed, "decoded {e:?} after a refusal");
            events.push(match e {
                Decoded::Head(h) => {
                    assert!(
                        h.headers().count() <= limits.max_headers,
                        "more headers than the limit"
                    );
                    assert!(
                        h.headers()
                            .all(|(n, _)| !n.is_empty() && n == n.to_ascii_lowercase()),
                        "header names not lower-cased: {h:?}"
                    );
                    assert!(
                        !h.path.contains('?') && !h.path.contains('#'),
                        "query left in path"
                    );
                    assert!(
                        !matches!(events.last(), Some(Event::Head(_))),
                        "two heads without a body between"
                    );
                    Event::Head(h)
                }
                Decoded::Body(b) => {
                    assert!(b.len() <= limits.max_body_bytes, "a body over the limit");
                    assert!(
                        matches!(events.last(), Some(Event::Head(_))),
                        "a body without a head"
                    );
                    Event::Body(b.to_vec())
                }
                Decoded::Error(e) => {
                    assert!(
                        (400..600).contains(&e.status),
                        "refusal status {}",
                        e.status
                    );
                    failed = true;
                    Event::Refused(e.status)
                }
            });
        }
        if !failed {
            assert!(
                d.buffered() <= bound,
                "the decoder holds {} bytes (bound {bound})",
                d.buffered()
            );
        }
    }
    events
}

fn limits(src: &mut Source) -> CodecLimits {
    CodecLimits {
        max_head_bytes: 32 + src.below(2048),
        max_headers: 1 + src.below(24),
        max_body_bytes: src.below(4096),
    }
}

fn cuts(src: &mut Source, len: usize) -> Vec<usize> {
    let n = src.below(12);
    let mut c: Vec<usize> = (0..n).map(|_| src.below(len + 1)).collect();
    c.sort_unstable();
    c
}

const METHODS: &[&str] = &["POST", "GET", "DELETE", "OPTIONS", "M-SEARCH"];
const TARGETS: &[&str] = &["/mcp", "/mcp?x=1", "/", "/a/b?c#d", "*", "http://h/mcp"];
const NAMES: &[&str] = &[
    "Host",
    "Accept",
    "Content-Type",
    "Mcp-Method",
    "X-A",
    "mcp-name",
    "Origin",
];
const VALUES: &[&str] = &[
    "127.0.0.1",
    "application/json",
    "a b",
    "x",
    "\u{e9}t\u{e9}",
    "tools/call",
    "1,2",
];

/// Well-formed requests, encoded and decoded.
fn structured(src: &mut Source) {
    let limits = CodecLimits {
        max_head_bytes: 4096,
        max_headers: 16,
        max_body_bytes: 2048,
    };
    let mut stream = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..1 + src.below(4) {
        let method = *src.pick(METHODS);
        let target = *src.pick(TARGETS);
        let minor = src.below(2) as u8;
        let mut headers: Vec<(String, Vec<u8>)> = Vec::new();
        for _ in 0..src.below(8) {
            headers.push((
                String::from(*src.pick(NAMES)),
                src.pick(VALUES).as_bytes().to_vec(),
            ));
        }
        let body = src.bytes(600).to_vec();
        let chunked = src.chance(1, 2);
        stream.extend_from_slice(format!("{method} {target} HTTP/1.{minor}\r\n").as_bytes());
        for (n, v) in &headers {
            stream.extend_from_slice(n.as_bytes());
            stream.extend_from_slice(b": ");
            stream.extend_from_slice(v);
            stream.extend_from_slice(b"\r\n");
        }
        let framing = if chunked {
            (String::from("Transfer-Encoding"), b"chunked".to_vec())
        } else {
            (
                String::from("Content-Length"),
                body.len().to_string().into_bytes(),
            )
        };
        stream.extend_from_slice(framing.0.as_bytes());
        stream.extend_from_slice(b": ");
        stream.extend_from_slice(&framing.1);
        stream.extend_from_slice(b"\r\n\r\n");
        headers.push(framing);
        if chunked {
            let mut rest = &body[..];
            while !rest.is_empty() {
                let n = (1 + src.below(64)).min(rest.len());
                let ext = if src.chance(1, 4) { ";ext=\"v\"" } else { "" };
                stream.extend_from_slice(format!("{n:x}{ext}\r\n").as_bytes());
                stream.extend_from_slice(&rest[..n]);
                stream.extend_from_slice(b"\r\n");
                rest = &rest[n..];
            }
            stream.extend_from_slice(b"0\r\n");
            if src.chance(1, 3) {
                stream.extend_from_slice(b"X-Trailer: 1\r\n");
            }
            stream.extend_from_slice(b"\r\n");
        } else {
            stream.extend_from_slice(&body);
        }
        expected.push(Event::Head(Head::new(
            method,
            target.split(['?', '#']).next().unwrap_or(""),
            minor,
            headers,
        )));
        expected.push(Event::Body(body));
    }
    let cuts = cuts(src, stream.len());
    assert_eq!(
        decode(&stream, &cuts, limits),
        expected,
        "well-formed requests decoded wrongly (cuts {cuts:?}): {:?}",
        String::from_utf8_lossy(&stream)
    );
}

fuzz_target!(|data: &[u8]| {
    let mut src = Source::new(data);
    if src.chance(1, 4) {
        structured(&mut src);
        return;
    }
    let limits = limits(&mut src);
    let raw_cuts: Vec<usize> = (0..src.below(12)).map(|_| usize::from(src.u16())).collect();
    let stream = &data[src.consumed()..];
    let whole = decode(stream, &[], limits);
    let mut cuts: Vec<usize> = raw_cuts.iter().map(|c| c % (stream.len() + 1)).collect();
    cuts.sort_unstable();
    assert_eq!(
        whole,
        decode(stream, &cuts, limits),
        "cutting the reads at {cuts:?} changed the decoding"
    );
    if stream.len() < 1024 {
        let bytewise: Vec<usize> = (1..stream.len()).collect();
        assert_eq!(
            whole,
            decode(stream, &bytewise, limits),
            "byte-at-a-time reads changed the decoding"
        );
    }
});
