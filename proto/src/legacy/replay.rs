//! What a session's streams sent, kept for a client that resumes one
//! (2025-11-25 and 2025-06-18 `basic/transports.mdx` § Resumability and
//! Redelivery).
//!
//! A session has two kinds of SSE stream: its one standalone GET stream,
//! and the stream of each POST whose answer became an event stream
//! (§ Sending Messages to the Server 6). Every event on either gets an id
//! that names its stream (rule 1: `g<n>` on the GET stream, `p<k>-<n>` on
//! the session's `k`th POST stream), and the session keeps the latest
//! events of all its streams within one byte budget. A client whose stream
//! broke (a proxy cut it, the network dropped) opens a GET with
//! `Last-Event-ID` and gets again what followed that event *on that
//! stream*, never a message of another (rule 2). Numbering and who writes
//! a stream now are the store's (`super::store`); this is only the log.

// Without `std` there are no HTTP sessions, only the ids' type.
#![cfg_attr(not(feature = "std"), allow(dead_code))]

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::vec::Vec;

/// What a kept message costs besides its bytes, so that a budget bounds
/// the number of tiny messages too.
const OVERHEAD: usize = 32;

/// One of a session's SSE streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StreamId {
    /// The standalone GET stream.
    Get,
    /// The response stream of the session's `k`th POST (from 1).
    Post(u64),
}

/// An SSE event id: the stream and the event's number on it. Numbers
/// start at 1; `n` 0 names no event, only the stream (a POST stream's
/// priming event, § Sending Messages to the Server 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EventId {
    pub(crate) stream: StreamId,
    pub(crate) n: u64,
}

impl EventId {
    /// The id as it goes on the wire: `g<n>` or `p<k>-<n>`.
    pub(crate) fn write(self, out: &mut Vec<u8>) {
        match self.stream {
            StreamId::Get => out.push(b'g'),
            StreamId::Post(k) => {
                out.push(b'p');
                crate::http::codec::write_decimal(out, k);
                out.push(b'-');
            }
        }
        crate::http::codec::write_decimal(out, self.n);
    }

    /// The id a `Last-Event-ID` names, if it is one of
    /// [`write`](Self::write)'s.
    pub(crate) fn parse(value: &[u8]) -> Option<EventId> {
        let value = value.trim_ascii();
        if let Some(n) = value.strip_prefix(b"g") {
            return Some(EventId {
                stream: StreamId::Get,
                n: number(n)?,
            });
        }
        let rest = value.strip_prefix(b"p")?;
        let dash = rest.iter().position(|&b| b == b'-')?;
        let k = number(&rest[..dash])?;
        if k == 0 {
            return None;
        }
        Some(EventId {
            stream: StreamId::Post(k),
            n: number(&rest[dash + 1..])?,
        })
    }
}

fn number(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 19 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    core::str::from_utf8(digits).ok()?.parse().ok()
}

/// The latest events of a session's streams, oldest first, at most
/// [`Limits::session_replay_bytes`](crate::Limits::session_replay_bytes)
/// of them in all.
#[derive(Debug)]
pub(crate) struct Replay {
    kept: VecDeque<(EventId, Box<[u8]>)>,
    /// What `kept` costs.
    used: usize,
    budget: usize,
}

impl Replay {
    /// Keep at most `budget` bytes; with 0 the session's streams have no
    /// ids and keep nothing.
    pub(crate) fn new(budget: usize) -> Replay {
        Replay {
            kept: VecDeque::new(),
            used: 0,
            budget,
        }
    }

    /// Whether events get ids at all.
    pub(crate) fn keeps(&self) -> bool {
        self.budget > 0
    }

    /// Event `id` carries `json`: keep it, dropping the oldest events of
    /// any stream to make room. One larger than the whole budget is not
    /// kept, and nothing older of its stream is replayed past the gap it
    /// leaves.
    pub(crate) fn record(&mut self, id: EventId, json: &[u8]) {
        let cost = json.len() + OVERHEAD;
        if cost > self.budget {
            self.forget(id.stream);
            return;
        }
        while self.used + cost > self.budget {
            if let Some((_, old)) = self.kept.pop_front() {
                self.used -= old.len() + OVERHEAD;
            }
        }
        self.kept.push_back((id, json.into()));
        self.used += cost;
    }

    /// The kept events of `last`'s stream that came after it, in order.
    pub(crate) fn after(&self, last: EventId) -> Vec<(EventId, Box<[u8]>)> {
        self.kept
            .iter()
            .filter(|(id, _)| id.stream == last.stream && id.n > last.n)
            .cloned()
            .collect()
    }

    /// Drop every kept event of `stream`.
    pub(crate) fn forget(&mut self, stream: StreamId) {
        let used = &mut self.used;
        self.kept.retain(|(id, json)| {
            let keep = id.stream != stream;
            if !keep {
                *used -= json.len() + OVERHEAD;
            }
            keep
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(n: u64) -> EventId {
        EventId {
            stream: StreamId::Get,
            n,
        }
    }

    fn post(k: u64, n: u64) -> EventId {
        EventId {
            stream: StreamId::Post(k),
            n,
        }
    }

    fn ids(v: &[(EventId, Box<[u8]>)]) -> Vec<EventId> {
        v.iter().map(|(id, _)| *id).collect()
    }

    #[test]
    fn replays_what_followed_on_the_same_stream_only() {
        let mut r = Replay::new(1024);
        r.record(get(1), b"a");
        r.record(post(1, 1), b"x");
        r.record(get(2), b"b");
        r.record(post(1, 2), b"y");
        r.record(post(2, 1), b"z");
        assert_eq!(ids(&r.after(get(1))), [get(2)]);
        assert_eq!(ids(&r.after(post(1, 0))), [post(1, 1), post(1, 2)]);
        assert_eq!(&*r.after(post(1, 1))[0].1, b"y");
        assert_eq!(ids(&r.after(post(2, 0))), [post(2, 1)]);
        assert!(r.after(post(3, 0)).is_empty());
    }

    #[test]
    fn the_budget_drops_the_oldest_of_any_stream() {
        let mut r = Replay::new(3 * (OVERHEAD + 10));
        r.record(post(1, 1), &[b'x'; 10]);
        for n in 1..=3 {
            r.record(get(n), &[b'x'; 10]);
        }
        assert!(r.after(post(1, 0)).is_empty());
        assert_eq!(ids(&r.after(get(0))), [get(1), get(2), get(3)]);
        assert!(r.used <= r.budget);
        // Larger than the budget: not kept, and nothing older of its
        // stream is replayed past the gap it leaves; other streams keep
        // theirs.
        r.record(post(2, 1), &[b'x'; 10]);
        r.record(get(4), &[b'y'; 500]);
        assert!(r.after(get(0)).is_empty());
        assert_eq!(ids(&r.after(post(2, 0))), [post(2, 1)]);
        r.forget(StreamId::Post(2));
        assert_eq!((r.kept.len(), r.used), (0, 0));
    }

    #[test]
    fn no_budget_keeps_nothing() {
        let mut r = Replay::new(0);
        assert!(!r.keeps());
        r.record(get(1), b"a");
        assert!(r.after(get(0)).is_empty());
    }

    #[test]
    fn ids_read_back() {
        for (id, wire) in [
            (get(42), &b"g42"[..]),
            (post(3, 0), b"p3-0"),
            (post(12, 7), b"p12-7"),
        ] {
            let mut out = Vec::new();
            id.write(&mut out);
            assert_eq!(out, wire);
            assert_eq!(EventId::parse(wire), Some(id));
        }
        assert_eq!(EventId::parse(b" g7 "), Some(get(7)));
        for bad in [
            &b"42"[..],
            b"g",
            b"g-1",
            b"gx",
            b"g99999999999999999999",
            b"p3",
            b"p0-1",
            b"p-1",
            b"p1-",
            b"p1-x",
            b"p1-2-3",
        ] {
            assert_eq!(EventId::parse(bad), None, "{bad:?}");
        }
    }
}
