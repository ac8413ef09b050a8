//! async-io's reactor as the driver's sockets and timers, and futures-io
//! streams as its byte streams (feature `async-io`): what `snodo-smol` and
//! `snodo-blocking` share. A socket is read and written by whichever thread
//! polls its connection, and readiness comes from the one reactor, so a
//! connection costs no thread of its own for I/O and a client slow to read
//! stalls nothing but its own writes.

use async_io::Async;
use blocking::Unblock;
use std::future::Future;
use std::io::{self, Read as _, Write as _};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Instant;

use crate::Options;

/// An async-io timer.
#[derive(Debug)]
pub struct Timer(async_io::Timer);

impl Timer {
    /// A timer that fires at `at`.
    pub fn at(at: Instant) -> Timer {
        Timer(async_io::Timer::at(at))
    }
}

impl crate::Timer for Timer {
    fn reset(&mut self, at: Instant) {
        self.0.set_at(at);
    }

    fn poll_fired(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.0).poll(cx).map(|_| ())
    }
}

/// A TCP listener on the reactor, as the driver accepts from it.
#[derive(Debug)]
pub struct Accept(pub Arc<Async<TcpListener>>);

impl Accept {
    /// Accept from `listener`, made non-blocking.
    pub fn new(listener: TcpListener) -> io::Result<Accept> {
        Ok(Accept(Arc::new(Async::new(listener)?)))
    }
}

impl crate::Listener for Accept {
    type Reader = TcpReader;
    type Writer = TcpWriter;

    fn poll_accept(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<(TcpReader, TcpWriter, SocketAddr)>> {
        loop {
            match self.0.get_ref().accept() {
                Ok((stream, peer)) => {
                    if let Err(e) = stream.set_nodelay(true) {
                        tracing::debug!(%peer, error = %e, "could not set TCP_NODELAY");
                    }
                    let (reader, writer) = split(stream)?;
                    return Poll::Ready(Ok((reader, writer, peer)));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    ready!(self.0.poll_readable(cx))?;
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

/// A connected socket as the driver's halves, made non-blocking.
pub fn split(stream: TcpStream) -> io::Result<(TcpReader, TcpWriter)> {
    let socket = Arc::new(Async::new(stream)?);
    let reader = TcpReader {
        socket: socket.clone(),
        drained: false,
        waiting: false,
    };
    Ok((reader, TcpWriter(socket)))
}

/// Reads a socket directly while it has data, and waits for readiness
/// only once a read came back short: a keep-alive HTTP connection reads
/// each request in one `recvfrom` instead of reading into `EAGAIN` first
/// (async-io's registration is one-shot, so each needless wait also costs
/// an `epoll_ctl`).
///
/// Once it waits, the next poll reads before it asks for readiness again.
/// async-io's `poll_readable` counts an event as new only when it came in
/// a reactor tick after the one in which interest was registered, and the
/// reactor bumps its tick before it blocks: interest registered while it
/// blocks is woken by an event of that same tick, which `poll_readable`
/// then reports as pending. Asking it again re-arms the socket, the
/// reactor (looping on its own thread) reports it at once, and the race
/// repeats: under load a connection spun like that for seconds without
/// reading the request it had been sent (the blocking runtime's
/// conformance flake, 2026-12-07).
#[derive(Debug)]
pub struct TcpReader {
    socket: Arc<Async<TcpStream>>,
    drained: bool,
    /// Interest is registered and this task waits on it: the next poll
    /// tries the socket first.
    waiting: bool,
}

impl crate::Read for TcpReader {
    fn poll_read_with(
        &mut self,
        cx: &mut Context<'_>,
        max: usize,
        take: &mut dyn FnMut(&[u8]),
    ) -> Poll<io::Result<usize>> {
        crate::read_into_scratch(max, take, |buf| self.poll_read(cx, buf))
    }
}

impl TcpReader {
    fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        loop {
            if self.drained && !self.waiting && self.socket.poll_readable(cx)?.is_pending() {
                self.waiting = true;
                return Poll::Pending;
            }
            self.waiting = false;
            match self.socket.get_ref().read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.drained = true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Ok(n) => {
                    self.drained = n < buf.len();
                    return Poll::Ready(Ok(n));
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

/// The write half of a socket: it shuts the socket for writing (FIN) at its
/// end; the socket closes when both halves are gone.
#[derive(Debug)]
pub struct TcpWriter(Arc<Async<TcpStream>>);

impl crate::Write for TcpWriter {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        loop {
            match self.0.get_ref().write(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    ready!(self.0.poll_writable(cx))?;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                written => return Poll::Ready(written),
            }
        }
    }

    fn poll_flush(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.0.get_ref().shutdown(Shutdown::Write))
    }
}

/// A futures-io byte stream (or half of one) as the driver reads and
/// writes it: smol's streams, or a blocking one from [`unblock`].
#[derive(Debug)]
pub struct Io<T>(pub T);

/// A blocking stream (stdin, stdout, a pipe) served by a thread of its own
/// ([`Unblock`]), which holds at most [`Options::read_buffer`] bytes of it:
/// `Unblock`'s default of 8 MiB would read far ahead of the connection and
/// take whole floods of output past [`Options::write_high_water`], hiding
/// backpressure from both.
pub fn unblock<T>(io: T, options: &Options) -> Io<Unblock<T>> {
    Io(Unblock::with_capacity(options.read_buffer.max(1), io))
}

impl<T: futures_io::AsyncRead + Unpin> crate::Read for Io<T> {
    fn poll_read_with(
        &mut self,
        cx: &mut Context<'_>,
        max: usize,
        take: &mut dyn FnMut(&[u8]),
    ) -> Poll<io::Result<usize>> {
        crate::read_into_scratch(max, take, |buf| Pin::new(&mut self.0).poll_read(cx, buf))
    }
}

impl<T: futures_io::AsyncWrite + Unpin> crate::Write for Io<T> {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_close(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    async fn read_some(reader: &mut TcpReader, buf: &mut [u8]) -> usize {
        std::future::poll_fn(|cx| reader.poll_read(cx, buf))
            .await
            .unwrap()
    }

    /// Counts its wakes.
    struct Wakes(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[test]
    fn a_reader_woken_for_readiness_reads_at_its_next_poll() {
        // Polled by hand: the reactor runs on async-io's own thread and
        // blocks there while the reader registers, as on the blocking
        // runtime, so the event that wakes the reader comes in the tick
        // its interest was registered in.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let (mut reader, _writer) = split(server).unwrap();
        let wakes = Arc::new(Wakes(Default::default()));
        let waker = std::task::Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        let mut buf = [0u8; 8];
        // One poll, and if it waits, one more after the wake: it must read.
        let mut read = |reader: &mut TcpReader, buf: &mut [u8], round: usize| {
            let before = wakes.0.load(std::sync::atomic::Ordering::SeqCst);
            if let Poll::Ready(read) = reader.poll_read(&mut cx, buf) {
                return read.unwrap();
            }
            let deadline = std::time::Instant::now() + Duration::from_secs(5);
            while wakes.0.load(std::sync::atomic::Ordering::SeqCst) == before {
                assert!(
                    std::time::Instant::now() < deadline,
                    "round {round}: never woken"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
            match reader.poll_read(&mut cx, buf) {
                Poll::Ready(read) => read.unwrap(),
                Poll::Pending => panic!("round {round}: woken for bytes sent, then pending"),
            }
        };
        for round in 0..20 {
            client.write_all(b"abc").unwrap();
            std::thread::sleep(Duration::from_millis(2));
            assert_eq!(read(&mut reader, &mut buf, round), 3);
            assert!(reader.drained);
            // The reader waits while the reactor blocks; then bytes come.
            let writer = std::thread::spawn({
                let mut client = client.try_clone().unwrap();
                move || {
                    std::thread::sleep(Duration::from_millis(5));
                    client.write_all(b"de").unwrap();
                }
            });
            assert_eq!(read(&mut reader, &mut buf, round), 2);
            assert_eq!(&buf[..2], b"de");
            writer.join().unwrap();
        }
    }

    #[test]
    fn the_tcp_reader_waits_for_readiness_after_a_short_read_and_misses_nothing() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let (mut reader, _writer) = split(server).unwrap();
        async_io::block_on(async {
            let mut buf = [0u8; 8];
            // A short read: the socket is taken as drained.
            client.write_all(b"abc").unwrap();
            async_io::Timer::after(Duration::from_millis(20)).await;
            assert_eq!(read_some(&mut reader, &mut buf).await, 3);
            assert!(reader.drained);
            // Bytes that arrived before the reader registered interest are
            // reported at once, not missed.
            client.write_all(b"x").unwrap();
            async_io::Timer::after(Duration::from_millis(20)).await;
            assert_eq!(read_some(&mut reader, &mut buf).await, 1);
            assert_eq!(&buf[..1], b"x");
            // Bytes that arrive while it waits wake it.
            let writer = std::thread::spawn({
                let mut client = client.try_clone().unwrap();
                move || {
                    std::thread::sleep(Duration::from_millis(50));
                    client.write_all(b"de").unwrap();
                }
            });
            assert_eq!(read_some(&mut reader, &mut buf).await, 2);
            assert_eq!(&buf[..2], b"de");
            writer.join().unwrap();
            // A full read leaves the socket not drained: the next read
            // tries it directly.
            client.write_all(b"0123456789abcdef").unwrap();
            async_io::Timer::after(Duration::from_millis(20)).await;
            assert_eq!(read_some(&mut reader, &mut buf).await, 8);
            assert!(!reader.drained);
            assert_eq!(read_some(&mut reader, &mut buf).await, 8);
            // End of input reads as 0.
            client.shutdown(std::net::Shutdown::Write).unwrap();
            assert_eq!(read_some(&mut reader, &mut buf).await, 0);
        });
    }
}
