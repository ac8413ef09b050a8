//! What a connection hands its driver, in order: bytes to write and the
//! events between them ([`Output`]). Every wire writes here and nothing
//! else; the driver drains it with [`Connection::poll_output`](super::Connection::poll_output).

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use bytes::{Bytes, BytesMut};

use super::output::Output;

/// Buffer capacity a connection keeps between answers.
pub(crate) const KEEP_BUFFER: usize = 16 * 1024;

/// Bytes being written and the outputs queued ahead of them.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    /// Bytes written since the last output was queued.
    bytes: Vec<u8>,
    /// Where small writes are handed over from (see [`Outbox::take`]).
    tx: BytesMut,
    events: VecDeque<Output>,
    /// Nothing written reaches the peer any more (an HTTP client that left
    /// while session calls run on): bytes are dropped, events still go out.
    discarding: bool,
}

impl Outbox {
    /// Where to write bytes for the peer.
    pub(crate) fn bytes(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    /// Queue `e` after every byte written so far.
    pub(crate) fn push(&mut self, e: Output) {
        if self.discarding {
            self.bytes.clear();
        } else if !self.bytes.is_empty() {
            let bytes = self.take();
            self.events.push_back(Output::Transmit(bytes));
        }
        self.events.push_back(e);
    }

    /// The next output, or `None` when drained.
    pub(crate) fn poll(&mut self) -> Option<Output> {
        if let Some(e) = self.events.pop_front() {
            return Some(e);
        }
        if self.discarding {
            self.bytes.clear();
        }
        if self.bytes.is_empty() {
            return None;
        }
        Some(Output::Transmit(self.take()))
    }

    /// From now on, drop every byte written (and what waits unwritten).
    pub(crate) fn discard(&mut self) {
        self.discarding = true;
        self.bytes.clear();
    }

    /// Whether bytes written are dropped ([`Outbox::discard`]).
    pub(crate) fn is_discarding(&self) -> bool {
        self.discarding
    }

    /// Forget every byte not handed over yet, queued or not (a write to
    /// the peer failed: nothing more can reach it).
    pub(crate) fn drop_unsent(&mut self) {
        self.bytes.clear();
        self.events.retain(|e| !matches!(e, Output::Transmit(_)));
    }

    /// The bytes written so far. A small output is copied into `tx` and
    /// split off it: once the driver has dropped the previous transmits,
    /// `tx` takes its whole buffer back, so a steady stream of answers
    /// allocates nothing. A large one is handed over whole, so no
    /// connection holds a large idle buffer.
    fn take(&mut self) -> Bytes {
        if self.bytes.capacity() > KEEP_BUFFER {
            Bytes::from(core::mem::take(&mut self.bytes))
        } else {
            self.tx.extend_from_slice(&self.bytes);
            self.bytes.clear();
            self.tx.split().freeze()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transmit(o: Option<Output>) -> Vec<u8> {
        match o {
            Some(Output::Transmit(b)) => b.to_vec(),
            other => panic!("expected a transmit, got {other:?}"),
        }
    }

    #[test]
    fn bytes_go_out_before_the_event_queued_after_them() {
        let mut o = Outbox::default();
        o.bytes().extend_from_slice(b"first");
        o.push(Output::Close);
        o.bytes().extend_from_slice(b"late");
        assert_eq!(transmit(o.poll()), b"first");
        assert!(matches!(o.poll(), Some(Output::Close)));
        assert_eq!(transmit(o.poll()), b"late");
        assert!(o.poll().is_none());
    }

    #[test]
    fn discarding_drops_bytes_but_not_events() {
        let mut o = Outbox::default();
        o.bytes().extend_from_slice(b"unsent");
        o.discard();
        o.bytes().extend_from_slice(b"never");
        o.push(Output::Close);
        o.bytes().extend_from_slice(b"never either");
        assert!(matches!(o.poll(), Some(Output::Close)));
        assert!(o.poll().is_none());
    }

    #[test]
    fn a_failed_write_drops_queued_transmits_only() {
        let mut o = Outbox::default();
        o.bytes().extend_from_slice(b"queued");
        o.push(Output::Close);
        o.bytes().extend_from_slice(b"pending");
        o.drop_unsent();
        assert!(matches!(o.poll(), Some(Output::Close)));
        assert!(o.poll().is_none());
    }
}
