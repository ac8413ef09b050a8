//! smol (async-io and an [`Executor`]) as a [`snodo_driver::Runtime`].

use smol::{ready, Async, Executor};
use std::future::Future;
use std::io::{self, Read};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

/// smol on an [`Executor`] the application runs: every task the driver
/// spawns (connections, handler calls) goes there, never on a global
/// executor, so the application decides how many threads run it.
#[derive(Clone, Debug)]
pub struct Smol(pub Arc<Executor<'static>>);

impl snodo_driver::Runtime for Smol {
    type Timer = Timer;

    fn now(&self) -> Instant {
        Instant::now()
    }

    fn timer(&self, at: Instant) -> Timer {
        Timer(smol::Timer::at(at))
    }

    fn spawn<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.0.spawn(future).detach();
    }
}

/// An async-io timer.
#[derive(Debug)]
pub struct Timer(smol::Timer);

impl snodo_driver::Timer for Timer {
    fn reset(&mut self, at: Instant) {
        self.0.set_at(at);
    }

    fn poll_fired(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.0).poll(cx).map(|_| ())
    }
}

/// A futures-io byte stream (or half of one) as the driver reads and
/// writes it.
#[derive(Debug)]
pub struct Io<T>(pub T);

impl<T: smol::io::AsyncRead + Unpin> snodo_driver::Read for Io<T> {
    fn poll_read_with(
        &mut self,
        cx: &mut Context<'_>,
        max: usize,
        take: &mut dyn FnMut(&[u8]),
    ) -> Poll<io::Result<usize>> {
        snodo_driver::read_into_scratch(max, take, |buf| Pin::new(&mut self.0).poll_read(cx, buf))
    }
}

impl<T: smol::io::AsyncWrite + Unpin> snodo_driver::Write for Io<T> {
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

/// A smol TCP listener as the driver accepts from it.
pub(crate) struct Accept(pub(crate) Arc<Async<TcpListener>>);

impl snodo_driver::Listener for Accept {
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
                    let socket = Arc::new(Async::new(stream)?);
                    let reader = TcpReader {
                        socket: socket.clone(),
                        drained: false,
                    };
                    return Poll::Ready(Ok((reader, TcpWriter(socket), peer)));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    ready!(self.0.poll_readable(cx))?;
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

/// Reads a socket directly while it has data, and waits for readiness
/// only once a read came back short: a keep-alive HTTP connection reads
/// each request in one `recvfrom` instead of reading into `EAGAIN` first
/// (async-io's registration is one-shot, so each needless wait also costs
/// an `epoll_ctl`).
pub struct TcpReader {
    socket: Arc<Async<TcpStream>>,
    drained: bool,
}

impl snodo_driver::Read for TcpReader {
    fn poll_read_with(
        &mut self,
        cx: &mut Context<'_>,
        max: usize,
        take: &mut dyn FnMut(&[u8]),
    ) -> Poll<io::Result<usize>> {
        snodo_driver::read_into_scratch(max, take, |buf| self.poll_read(cx, buf))
    }
}

impl TcpReader {
    fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        loop {
            if self.drained {
                ready!(self.socket.poll_readable(cx))?;
            }
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

/// The write half of an accepted socket.
pub struct TcpWriter(Arc<Async<TcpStream>>);

impl snodo_driver::Write for TcpWriter {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        smol::io::AsyncWrite::poll_write(Pin::new(&mut &*self.0), cx, buf)
    }

    fn poll_flush(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.0.get_ref().shutdown(Shutdown::Write))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;
    use std::time::Duration;

    async fn read_some(reader: &mut TcpReader, buf: &mut [u8]) -> usize {
        std::future::poll_fn(|cx| reader.poll_read(cx, buf))
            .await
            .unwrap()
    }

    #[test]
    fn the_tcp_reader_waits_for_readiness_after_a_short_read_and_misses_nothing() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        let mut reader = TcpReader {
            socket: Arc::new(Async::new(server).unwrap()),
            drained: false,
        };
        smol::block_on(async {
            let mut buf = [0u8; 8];
            // A short read: the socket is taken as drained.
            client.write_all(b"abc").unwrap();
            smol::Timer::after(Duration::from_millis(20)).await;
            assert_eq!(read_some(&mut reader, &mut buf).await, 3);
            assert!(reader.drained);
            // Bytes that arrived before the reader registered interest are
            // reported at once, not missed.
            client.write_all(b"x").unwrap();
            smol::Timer::after(Duration::from_millis(20)).await;
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
            smol::Timer::after(Duration::from_millis(20)).await;
            assert_eq!(read_some(&mut reader, &mut buf).await, 8);
            assert!(!reader.drained);
            assert_eq!(read_some(&mut reader, &mut buf).await, 8);
            // End of input reads as 0.
            client.shutdown(std::net::Shutdown::Write).unwrap();
            assert_eq!(read_some(&mut reader, &mut buf).await, 0);
        });
    }
}
