//! A served connection's byte stream, watched: the bytes that arrive tell
//! [`Activity`] when an HTTP/1.1 request head begins, and a head not whole
//! by its deadline (`HttpConfig::head_timeout`, counted from its first
//! byte as natively) is answered here with the native 408
//! ([`native::late_head`]), after which the stream is closed. hyper parses
//! heads but has no deadline that answers (its `header_read_timeout`
//! closes without a word, and runs from before the first byte), so the
//! deadline is kept below it, where the bytes are.
//!
//! A head hyper refuses itself (a field line its parser rejects) is
//! answered as natively too: hyper's bare 400 is replaced by the native
//! refusal, from the head's bytes replayed into proto
//! ([`native::refusal`]), so the status and the JSON-RPC error body are
//! the native listener's (RFC 9112 § 5, RFC 9110 § 5.5).
//!
//! HTTP/2 (the client preface, RFC 9113 § 3.4) has no HTTP/1.1 head: its
//! streams are bounded by the idle deadline and h2's settings instead.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

use snodo_proto::Service;

use crate::activity::Activity;
use crate::native;

/// The start of the HTTP/2 connection preface (RFC 9113 § 3.4): a request
/// line no HTTP/1.1 request has.
const PREFACE: &[u8] = b"PRI * HTTP/2.0";

/// The stream of one connection, as hyper reads and writes it.
pub(crate) struct Watched<I> {
    io: I,
    activity: Arc<Activity>,
    service: Service,
    head_timeout: Duration,
    /// The native 408.
    late_answer: Bytes,
    /// The bytes of the head arriving (up to `HttpConfig::max_head_bytes`
    /// and one more, all a refusal needs), for [`native::refusal`].
    head: Vec<u8>,
    /// What is written in place of hyper's answer, once taken over.
    refusal: Bytes,
    /// The first bytes read, until they tell HTTP/2 from HTTP/1.1.
    sniffed: Sniffed,
    deadline: Pin<Box<Sleep>>,
    armed: Option<Instant>,
    late: Late,
    /// The client closed its side.
    input_ended: bool,
    /// Since the end of input was held back, hyper had a turn with
    /// nothing in flight and wrote nothing.
    quiet: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sniffed {
    /// This many bytes of the preface seen so far.
    Unknown(usize),
    Http1,
    Http2,
}

/// A late head's answer, written in place of hyper's.
enum Late {
    No,
    Answering(usize),
    Closing,
    Done,
}

impl<I> Watched<I> {
    /// `io` watched for `activity` on `service`; `late` is the native 408.
    pub(crate) fn new(io: I, activity: Arc<Activity>, service: Service, late: Bytes) -> Self {
        let head_timeout = service.http_config().head_timeout;
        Watched {
            io,
            activity,
            service,
            head_timeout,
            late_answer: late,
            head: Vec::new(),
            refusal: Bytes::new(),
            sniffed: Sniffed::Unknown(0),
            deadline: Box::pin(tokio::time::sleep_until(Instant::now())),
            armed: None,
            late: Late::No,
            input_ended: false,
            quiet: false,
        }
    }

    fn sniff(&mut self, bytes: &[u8]) {
        if let Sniffed::Unknown(seen) = self.sniffed {
            let n = bytes.len().min(PREFACE.len() - seen);
            self.sniffed = if bytes[..n] != PREFACE[seen..seen + n] {
                Sniffed::Http1
            } else if seen + n == PREFACE.len() {
                Sniffed::Http2
            } else {
                Sniffed::Unknown(seen + n)
            };
        }
    }
}

impl<I: AsyncRead + AsyncWrite + Unpin> Watched<I> {
    /// Whether the head deadline passed; arms the timer for it otherwise.
    fn head_late(&mut self, cx: &mut Context<'_>) -> bool {
        if self.sniffed == Sniffed::Http2 {
            return false;
        }
        let Some(since) = self.activity.head_since() else {
            return false;
        };
        let due = since + self.head_timeout;
        if self.armed != Some(due) {
            self.deadline.as_mut().reset(due);
            self.armed = Some(due);
        }
        self.deadline.as_mut().poll(cx).is_ready()
    }

    /// Write the 408, then close; `Ready(())` once done or failed.
    fn poll_answer_late(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            match self.late {
                Late::No | Late::Done => return Poll::Ready(()),
                Late::Answering(sent) if sent < self.refusal.len() => {
                    match Pin::new(&mut self.io).poll_write(cx, &self.refusal[sent..]) {
                        Poll::Ready(Ok(0)) | Poll::Ready(Err(_)) => self.late = Late::Done,
                        Poll::Ready(Ok(n)) => self.late = Late::Answering(sent + n),
                        Poll::Pending => return Poll::Pending,
                    }
                }
                Late::Answering(_) => self.late = Late::Closing,
                Late::Closing => {
                    // RFC 9112 § 9.6: the server closes after its answer.
                    match Pin::new(&mut self.io).poll_shutdown(cx) {
                        Poll::Pending => return Poll::Pending,
                        Poll::Ready(_) => self.late = Late::Done,
                    }
                }
            }
        }
    }
}

fn timed_out() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "request head not received in time")
}

impl<I: AsyncRead + AsyncWrite + Unpin> AsyncRead for Watched<I> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if matches!(this.late, Late::No) && this.head_late(cx) {
            tracing::debug!("HTTP request head not received in time");
            this.refusal = this.late_answer.clone();
            this.late = Late::Answering(0);
        }
        if !matches!(this.late, Late::No) {
            return this.poll_answer_late(cx).map(|()| Err(timed_out()));
        }
        if this.input_ended {
            return this.poll_end_of_input(cx);
        }
        let before = buf.filled().len();
        let read = Pin::new(&mut this.io).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = read {
            let filled = &buf.filled()[before..];
            if filled.is_empty() {
                // hyper would drop the requests in flight at once, answered
                // or not; the native listener still sends what is answered
                // at once (`Activity::hang_up`). On HTTP/2 the streams just
                // read may not be taken up yet: hyper gets one more turn to.
                this.input_ended = true;
                this.activity.hang_up();
                return this.poll_end_of_input(cx);
            }
            if !filled.is_empty() {
                this.sniff(filled);
                if this.sniffed == Sniffed::Http2 {
                    this.head = Vec::new();
                } else if this.activity.bytes_arrived(Instant::now()) {
                    let cap = this.service.http_config().max_head_bytes + 1;
                    let room = cap.saturating_sub(this.head.len());
                    this.head
                        .extend_from_slice(&filled[..filled.len().min(room)]);
                } else {
                    this.head.clear();
                }
            }
        }
        read
    }
}

impl<I: AsyncRead + AsyncWrite + Unpin> Watched<I> {
    /// The end of input, held back from hyper until nothing is in flight
    /// and a turn of hyper's wrote nothing more: on HTTP/2 the streams
    /// just read are taken up, and the answers queued are written, only
    /// in turns where reading is pending (h2 drops them at the end of
    /// input).
    fn poll_end_of_input(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.activity.poll_idle(cx).is_pending() {
            self.quiet = false;
            return Poll::Pending;
        }
        if !self.quiet {
            self.quiet = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(Ok(()))
    }

    /// hyper writes with no request in flight only to refuse a head it
    /// could not parse: write the native refusal in its place, then
    /// close. `None`: not such a write, or proto would not refuse.
    fn poll_refuse(&mut self, cx: &mut Context<'_>, len: usize) -> Option<Poll<io::Result<usize>>> {
        if matches!(self.late, Late::No) {
            let hyper_refuses = self.sniffed == Sniffed::Http1
                && !self.head.is_empty()
                && self.activity.head_since().is_some();
            if !hyper_refuses {
                return None;
            }
            let head = std::mem::take(&mut self.head);
            self.refusal = native::refusal(&self.service, &head)?;
            tracing::debug!("malformed HTTP request head");
            self.late = Late::Answering(0);
        }
        // Written (or failed) in full before hyper is told its bytes went.
        Some(self.poll_answer_late(cx).map(|()| Ok(len)))
    }
}

impl<I: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Watched<I> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if let Some(done) = self.poll_refuse(cx, buf.len()) {
            return done;
        }
        self.quiet = false;
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let len = bufs.iter().map(|b| b.len()).sum();
        if let Some(done) = self.poll_refuse(cx, len) {
            return done;
        }
        self.quiet = false;
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if !matches!(self.late, Late::No) {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if !matches!(self.late, Late::No) {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
