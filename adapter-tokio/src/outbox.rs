//! Bytes waiting to be written, written one step at a time so the
//! connection loop can keep reading and taking completions while a slow
//! peer drains its side.
//!
//! When several small messages wait (pipelined stdio answers), one step
//! gathers them into a single write of up to [`GATHER`] bytes: one system
//! call (and, on tokio's stdout, one blocking-pool hop) for many messages
//! instead of one each. A lone message is written as it is, uncopied.

use bytes::Bytes;
use std::collections::VecDeque;
use std::io;
use tokio::io::{AsyncWrite, AsyncWriteExt};

/// Most bytes one gathered write carries.
const GATHER: usize = 64 * 1024;

#[derive(Debug, Default)]
pub(crate) struct Outbox {
    queue: VecDeque<Bytes>,
    queued: usize,
    /// Something was written since the last flush (stdout buffers in a
    /// blocking thread; a flush waits until the bytes reached the fd).
    unflushed: bool,
}

impl Outbox {
    pub(crate) fn push(&mut self, bytes: Bytes) {
        if !bytes.is_empty() {
            self.queued += bytes.len();
            self.queue.push_back(bytes);
        }
    }

    /// Bytes not yet handed to the writer.
    pub(crate) fn queued(&self) -> usize {
        self.queued
    }

    /// Forget what is queued: the peer it was for is gone.
    pub(crate) fn discard(&mut self) {
        self.queue.clear();
        self.queued = 0;
        self.unflushed = false;
    }

    /// Nothing to write and nothing to flush.
    pub(crate) fn is_idle(&self) -> bool {
        self.queue.is_empty() && !self.unflushed
    }

    /// One write, or a flush once the queue is empty. Cancel-safe: a
    /// cancelled `write` wrote nothing, and a cancelled flush is redone.
    pub(crate) async fn step<W: AsyncWrite + Unpin>(&mut self, w: &mut W) -> io::Result<()> {
        self.gather();
        if let Some(front) = self.queue.front_mut() {
            let n = w.write(front).await?;
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            self.unflushed = true;
            self.queued -= n;
            if n == front.len() {
                self.queue.pop_front();
            } else {
                *front = front.slice(n..);
            }
        } else if self.unflushed {
            w.flush().await?;
            self.unflushed = false;
        }
        Ok(())
    }

    /// Join the small messages at the front of the queue into one.
    fn gather(&mut self) {
        let mut take = 0;
        let mut len = 0;
        for b in &self.queue {
            if len + b.len() > GATHER {
                break;
            }
            len += b.len();
            take += 1;
        }
        if take < 2 {
            return;
        }
        let mut joined = Vec::with_capacity(len);
        for b in self.queue.drain(..take) {
            joined.extend_from_slice(&b);
        }
        self.queue.push_front(Bytes::from(joined));
    }

    /// Write and flush everything, then shut the writer down (EOF on a
    /// pipe, FIN on a socket).
    pub(crate) async fn finish<W: AsyncWrite + Unpin>(&mut self, w: &mut W) -> io::Result<()> {
        while !self.is_idle() {
            self.step(w).await?;
        }
        w.shutdown().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn writes_in_order_across_partial_writes() {
        // A 4-byte pipe forces partial writes.
        let (mut w, mut r) = tokio::io::duplex(4);
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            r.read_to_end(&mut got).await.unwrap();
            got
        });
        let mut out = Outbox::default();
        out.push(Bytes::from_static(b"hello "));
        out.push(Bytes::new());
        out.push(Bytes::from_static(b"world\n"));
        assert_eq!(out.queued(), 12);
        out.finish(&mut w).await.unwrap();
        assert_eq!(out.queued(), 0);
        assert!(out.is_idle());
        assert_eq!(reader.await.unwrap(), b"hello world\n");
    }

    #[tokio::test]
    async fn gathers_small_messages_into_one_write() {
        let mut out = Outbox::default();
        for line in ["a\n", "bb\n", "ccc\n"] {
            out.push(Bytes::from_static(line.as_bytes()));
        }
        let big = Bytes::from(vec![b'x'; GATHER]);
        out.push(big.clone());
        let mut sink = Vec::new();
        // One step writes the three small messages at once; the big one,
        // which would overflow the gather, is left for the next step.
        out.step(&mut sink).await.unwrap();
        assert_eq!(sink, b"a\nbb\nccc\n");
        assert_eq!(out.queued(), GATHER);
        out.step(&mut sink).await.unwrap();
        assert_eq!(sink.len(), 9 + GATHER);
        assert_eq!(&sink[9..], &big[..]);
        assert_eq!(out.queued(), 0);
    }
}
