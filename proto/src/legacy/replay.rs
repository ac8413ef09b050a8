//! What a session's GET stream sent, kept for a client that resumes it
//! (2025-11-25 and 2025-06-18 `basic/transports.mdx` § Resumability and
//! Redelivery).
//!
//! Every message on the GET stream gets an SSE `id`, and the stream keeps
//! the last of them within a byte budget. A client whose stream broke
//! (a proxy cut it, the network dropped) opens a new GET with
//! `Last-Event-ID`, and gets again what was sent after that event: what
//! the old connection wrote while nobody was reading any more. What would
//! have been sent while no stream was open waits in the session's hub
//! listener (`super::store`), and goes out on the resumed stream. Only the
//! GET stream has ids: a POST's
//! stream ends with its response, and nothing else is ever replayed on
//! it (§ Resumability rule 2: never a message of another stream).

use alloc::boxed::Box;
use alloc::collections::VecDeque;
use alloc::vec::Vec;

/// What a kept message costs besides its bytes, so that a budget bounds
/// the number of tiny messages too.
const OVERHEAD: usize = 32;

/// The GET stream's sent messages, oldest first, at most
/// [`Limits::session_replay_bytes`](crate::Limits::session_replay_bytes)
/// of them.
#[derive(Debug)]
pub(crate) struct Replay {
    /// The next message's number; numbers start at 1.
    next: u64,
    kept: VecDeque<(u64, Box<[u8]>)>,
    /// What `kept` costs.
    used: usize,
    budget: usize,
}

impl Replay {
    /// Keep at most `budget` bytes; with 0 the stream has no ids and
    /// keeps nothing.
    pub(crate) fn new(budget: usize) -> Replay {
        Replay {
            next: 1,
            kept: VecDeque::new(),
            used: 0,
            budget,
        }
    }

    /// `json` is sent on the stream now: its number (the event id), or
    /// `None` when this stream is not resumable. A message larger than the
    /// whole budget is numbered but not kept.
    pub(crate) fn record(&mut self, json: &[u8]) -> Option<u64> {
        if self.budget == 0 {
            return None;
        }
        let n = self.next;
        self.next += 1;
        let cost = json.len() + OVERHEAD;
        if cost > self.budget {
            self.kept.clear();
            self.used = 0;
            return Some(n);
        }
        while self.used + cost > self.budget {
            if let Some((_, old)) = self.kept.pop_front() {
                self.used -= old.len() + OVERHEAD;
            }
        }
        self.kept.push_back((n, json.into()));
        self.used += cost;
        Some(n)
    }

    /// The kept messages sent after message `last`, in order. An id this
    /// stream never gave (from another server, or ahead of it) gets
    /// nothing: replaying messages the client may have had would send
    /// them twice.
    pub(crate) fn after(&self, last: u64) -> Vec<(u64, Box<[u8]>)> {
        if last >= self.next {
            return Vec::new();
        }
        self.kept
            .iter()
            .filter(|(n, _)| *n > last)
            .cloned()
            .collect()
    }
}

/// The SSE `id` of message `n`: `g` for the GET stream, then the number
/// (§ Resumability rule 1: an id names its stream).
pub(crate) fn event_id(n: u64, out: &mut Vec<u8>) {
    out.push(b'g');
    crate::http::codec::write_decimal(out, n);
}

/// The message number a `Last-Event-ID` names, if it is one of
/// [`event_id`]'s.
pub(crate) fn parse_event_id(value: &[u8]) -> Option<u64> {
    let digits = value.trim_ascii().strip_prefix(b"g")?;
    if digits.is_empty() || digits.len() > 19 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    core::str::from_utf8(digits).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(v: &[(u64, Box<[u8]>)]) -> Vec<u64> {
        v.iter().map(|(n, _)| *n).collect()
    }

    #[test]
    fn numbers_from_one_and_replays_what_followed() {
        let mut r = Replay::new(1024);
        assert_eq!(r.record(b"a"), Some(1));
        assert_eq!(r.record(b"b"), Some(2));
        assert_eq!(r.record(b"c"), Some(3));
        assert_eq!(numbers(&r.after(1)), [2, 3]);
        assert_eq!(&*r.after(2)[0].1, b"c");
        assert!(r.after(3).is_empty());
        assert!(r.after(99).is_empty(), "an id never given");
    }

    #[test]
    fn the_budget_drops_the_oldest() {
        let mut r = Replay::new(3 * (OVERHEAD + 10));
        for _ in 0..5 {
            r.record(&[b'x'; 10]);
        }
        assert_eq!(numbers(&r.after(0)), [3, 4, 5]);
        assert!(r.used <= r.budget);
        // Larger than the budget: numbered, not kept, and nothing older
        // is replayed past the gap it leaves.
        assert_eq!(r.record(&[b'y'; 500]), Some(6));
        assert!(r.after(0).is_empty());
    }

    #[test]
    fn no_budget_no_ids() {
        let mut r = Replay::new(0);
        assert_eq!(r.record(b"a"), None);
        assert!(r.after(0).is_empty());
    }

    #[test]
    fn ids_read_back() {
        let mut id = Vec::new();
        event_id(42, &mut id);
        assert_eq!(id, b"g42");
        assert_eq!(parse_event_id(b"g42"), Some(42));
        assert_eq!(parse_event_id(b" g7 "), Some(7));
        for bad in [
            &b"42"[..],
            b"g",
            b"g-1",
            b"gx",
            b"g99999999999999999999",
            b"p3",
        ] {
            assert_eq!(parse_event_id(bad), None, "{bad:?}");
        }
    }
}
