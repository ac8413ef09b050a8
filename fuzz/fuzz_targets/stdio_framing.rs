//! stdio framing (`LineFramer`, `basic/transports/stdio.mdx`): any byte
//! stream, cut into reads anywhere, frames into the same lines as a
//! reference model; every line is within the limit and holds no newline;
//! what the framer holds stays bounded.

#![no_main]

use libfuzzer_sys::fuzz_target;
use snodo_fuzz::machine::source::Source;
use snodo_proto::stdio::{Line, LineFramer};

#[derive(Debug, PartialEq)]
enum Event {
    Message(Vec<u8>),
    TooLong,
}

/// Frame `stream` read in pieces ending at `cuts`, checking bounds.
fn frame(stream: &[u8], cuts: &[usize], max: usize) -> Vec<Event> {
    let mut f = LineFramer::new(max);
    let mut events = Vec::new();
    let mut start = 0;
    for &end in cuts.iter().chain(std::iter::once(&stream.len())) {
        let end = end.clamp(start, stream.len());
        let piece = &stream[start..end];
        f.push(piece);
        while let Some(line) = f.next_line() {
            events.push(event(line, max));
        }
        assert!(
            f.buffered() <= max + 1,
            "framer holds {} bytes after reading everything it can (limit {max})",
            f.buffered()
        );
        start = end;
    }
    if let Some(line) = f.finish() {
        events.push(event(line, max));
    }
    assert_eq!(f.buffered(), 0, "bytes left after finish");
    events
}

fn event(line: Line, max: usize) -> Event {
    match line {
        Line::Message(b) => {
            assert!(
                b.len() <= max,
                "a line of {} bytes over the limit {max}",
                b.len()
            );
            assert!(!b.contains(&b'\n'), "a line holding a newline");
            assert!(
                !b.iter().all(u8::is_ascii_whitespace),
                "a blank line delivered"
            );
            Event::Message(b.to_vec())
        }
        Line::TooLong => Event::TooLong,
    }
}

/// The reference: split at newlines; drop one `\r` before each; a line
/// over the limit is refused whatever it holds; blank lines are skipped.
/// The unterminated last line is skipped when blank (checked first), else
/// refused when over the limit.
fn reference(stream: &[u8], max: usize) -> Vec<Event> {
    let mut events = Vec::new();
    let mut parts: Vec<&[u8]> = stream.split(|&b| b == b'\n').collect();
    let last = parts.pop().unwrap_or(&[]);
    for raw in parts {
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if line.len() > max {
            events.push(Event::TooLong);
        } else if !line.iter().all(u8::is_ascii_whitespace) {
            events.push(Event::Message(line.to_vec()));
        }
    }
    if last.len() > max + 1 {
        // Refused as soon as it outgrew the limit, before its end arrived.
        events.push(Event::TooLong);
    } else {
        let line = last.strip_suffix(b"\r").unwrap_or(last);
        if !line.iter().all(u8::is_ascii_whitespace) {
            events.push(if line.len() > max {
                Event::TooLong
            } else {
                Event::Message(line.to_vec())
            });
        }
    }
    events
}

fuzz_target!(|data: &[u8]| {
    let mut src = Source::new(data);
    let max = 1 + src.below(48);
    let ncuts = src.below(16);
    let mut cuts: Vec<usize> = (0..ncuts).map(|_| src.below(4096)).collect();
    cuts.sort_unstable();
    let stream = &data[src.consumed()..];
    let whole = frame(stream, &[], max);
    assert_eq!(
        whole,
        reference(stream, max),
        "framer and reference disagree"
    );
    let cut = frame(stream, &cuts, max);
    assert_eq!(
        whole, cut,
        "cutting the reads at {cuts:?} changed the lines"
    );
    let bytewise: Vec<usize> = (1..stream.len()).collect();
    if stream.len() < 512 {
        assert_eq!(
            whole,
            frame(stream, &bytewise, max),
            "byte-at-a-time reads changed the lines"
        );
    }
});
