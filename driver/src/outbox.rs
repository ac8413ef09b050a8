//! Bytes waiting to be written, written one step at a time so the
//! connection loop keeps taking input, completions and deadlines while a
//! slow peer drains its side.
//!
//! When several small messages wait (pipelined stdio answers), one step
//! gathers them into a single write of up to [`GATHER`] bytes: one system
//! call for many messages instead of one each. A lone message is written
//! as it is, uncopied.

use bytes::Bytes;
use std::collections::VecDeque;
use std::io;
use std::task::{ready, Context, Poll};

use crate::runtime::Write;

/// Most bytes one gathered write carries.
const GATHER: usize = 64 * 1024;

#[derive(Debug, Default)]
pub(crate) struct Outbox {
    queue: VecDeque<Bytes>,
    queued: usize,
    /// Something was written since the last flush.
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

    /// One write, or a flush once the queue is empty.
    pub(crate) fn poll_step<W: Write>(
        &mut self,
        w: &mut W,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<()>> {
        self.gather();
        if let Some(front) = self.queue.front_mut() {
            let n = ready!(w.poll_write(cx, front))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.unflushed = true;
            self.queued -= n;
            if n == front.len() {
                self.queue.pop_front();
            } else {
                *front = front.slice(n..);
            }
        } else if self.unflushed {
            ready!(w.poll_flush(cx))?;
            self.unflushed = false;
        }
        Poll::Ready(Ok(()))
    }

    /// Write and flush everything, then shut the writer down.
    pub(crate) fn poll_finish<W: Write>(
        &mut self,
        w: &mut W,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<()>> {
        while !self.is_idle() {
            ready!(self.poll_step(w, cx))?;
        }
        w.poll_shutdown(cx)
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::poll_fn;

    /// Takes at most `chunk` bytes per write.
    #[derive(Default)]
    struct Pipe {
        chunk: usize,
        got: Vec<u8>,
        writes: usize,
        shut: bool,
    }

    impl Write for Pipe {
        fn poll_write(&mut self, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
            let n = buf.len().min(self.chunk);
            self.got.extend_from_slice(&buf[..n]);
            self.writes += 1;
            Poll::Ready(Ok(n))
        }
        fn poll_flush(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            self.shut = true;
            Poll::Ready(Ok(()))
        }
    }

    fn block_on<T>(f: impl std::future::Future<Output = T>) -> T {
        let mut f = std::pin::pin!(f);
        let mut cx = Context::from_waker(std::task::Waker::noop());
        match f.as_mut().poll(&mut cx) {
            Poll::Ready(t) => t,
            Poll::Pending => panic!("the test writer never waits"),
        }
    }

    #[test]
    fn writes_in_order_across_partial_writes() {
        let mut pipe = Pipe {
            chunk: 4,
            ..Pipe::default()
        };
        let mut out = Outbox::default();
        out.push(Bytes::from_static(b"hello "));
        out.push(Bytes::new());
        out.push(Bytes::from_static(b"world\n"));
        assert_eq!(out.queued(), 12);
        block_on(poll_fn(|cx| out.poll_finish(&mut pipe, cx))).unwrap();
        assert_eq!(out.queued(), 0);
        assert!(out.is_idle());
        assert_eq!(pipe.got, b"hello world\n");
        assert!(pipe.shut);
    }

    #[test]
    fn gathers_small_messages_into_one_write() {
        let mut pipe = Pipe {
            chunk: usize::MAX,
            ..Pipe::default()
        };
        let mut out = Outbox::default();
        for line in ["a\n", "bb\n", "ccc\n"] {
            out.push(Bytes::from_static(line.as_bytes()));
        }
        let big = Bytes::from(vec![b'x'; GATHER]);
        out.push(big.clone());
        // One step writes the three small messages at once; the big one,
        // which would overflow the gather, is left for the next step.
        block_on(poll_fn(|cx| out.poll_step(&mut pipe, cx))).unwrap();
        assert_eq!(pipe.got, b"a\nbb\nccc\n");
        assert_eq!(out.queued(), GATHER);
        block_on(poll_fn(|cx| out.poll_step(&mut pipe, cx))).unwrap();
        assert_eq!(pipe.writes, 2);
        assert_eq!(&pipe.got[9..], &big[..]);
        assert_eq!(out.queued(), 0);
    }
}
