//! TLS over any [`ClientRuntime`](crate::ClientRuntime)'s connection:
//! rustls is sans-I/O (ciphertext in, plaintext out, and back), so one
//! adapter over the runtime's [`Reader`] and [`Writer`] serves tokio, smol
//! and plain threads alike.
//!
//! The two halves share one rustls connection behind a mutex; the HTTP
//! transport uses them in turn (write the request, read the answer), so
//! the lock is never contended (HTTP/2's connection task uses both, in
//! turn too). The handshake runs on the first flush (the request's), and
//! a certificate rustls refuses fails that flush; or at once, to learn
//! what ALPN picked ([`handshaken`]).

use std::io::{self, Read as _, Write as _};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{ready, Context, Poll};

use rustls::ClientConnection;
use snodo_driver::{Read, Write};

use crate::runtime::{Reader, Writer};
use crate::tls::tls_error;

/// The most ciphertext read from the socket at once.
const CHUNK: usize = 16 << 10;

/// The connection, the socket's halves, and ciphertext in transit.
struct Shared {
    conn: ClientConnection,
    reader: Reader,
    writer: Writer,
    /// Ciphertext rustls produced, not yet written to the socket.
    out: Vec<u8>,
    /// Ciphertext read from the socket, not yet taken by rustls.
    incoming: Vec<u8>,
    /// The socket's end was read.
    eof: bool,
}

/// One half of a TLS connection (both halves are the same connection).
struct Half(Arc<Mutex<Shared>>);

impl Half {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        // A panic mid-poll poisons nothing the next poll cannot redo.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `reader` and `writer` (one connection) as the halves of a TLS client
/// connection `conn`.
pub(crate) fn wrap(conn: ClientConnection, reader: Reader, writer: Writer) -> (Reader, Writer) {
    halves(shared(conn, reader, writer))
}

/// [`wrap`], the handshake run to its end now: the halves, and the
/// protocol the server picked by ALPN (`None` when it picked none). For a
/// transport that speaks what the server picked.
#[cfg(feature = "http2")]
pub(crate) async fn handshaken(
    conn: ClientConnection,
    reader: Reader,
    writer: Writer,
) -> io::Result<(Reader, Writer, Option<Vec<u8>>)> {
    let shared = shared(conn, reader, writer);
    let half = Half(shared);
    std::future::poll_fn(|cx| half.lock().poll_handshake(cx)).await?;
    let alpn = half.lock().conn.alpn_protocol().map(<[u8]>::to_vec);
    let (reader, writer) = halves(half.0);
    Ok((reader, writer, alpn))
}

fn halves(shared: Arc<Mutex<Shared>>) -> (Reader, Writer) {
    (
        Reader(Box::new(Half(shared.clone()))),
        Writer(Box::new(Half(shared))),
    )
}

fn shared(conn: ClientConnection, reader: Reader, writer: Writer) -> Arc<Mutex<Shared>> {
    Arc::new(Mutex::new(Shared {
        conn,
        reader,
        writer,
        out: Vec::new(),
        incoming: Vec::new(),
        eof: false,
    }))
}

impl Shared {
    /// Write out every record rustls has for the socket.
    fn poll_send(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            if self.out.is_empty() {
                if !self.conn.wants_write() {
                    return Poll::Ready(Ok(()));
                }
                self.conn.write_tls(&mut self.out)?;
                continue;
            }
            let n = ready!(self.writer.poll_write(cx, &self.out))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.out.drain(..n);
        }
    }

    /// Hand rustls more ciphertext (reading the socket when none is
    /// waiting), and process it: ready once something was processed.
    fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.incoming.is_empty() && !self.eof {
            let incoming = &mut self.incoming;
            ready!(self
                .reader
                .poll_read_with(cx, CHUNK, &mut |b| incoming.extend_from_slice(b)))?;
            if self.incoming.is_empty() {
                self.eof = true;
            }
        }
        if self.eof && self.incoming.is_empty() {
            // rustls learns of the end from an empty read.
            self.conn.read_tls(&mut &[][..])?;
        } else {
            let mut rest = &self.incoming[..];
            let n = self.conn.read_tls(&mut rest)?;
            self.incoming.drain(..n);
        }
        if let Err(e) = self.conn.process_new_packets() {
            // rustls queued an alert saying why: send it, then fail.
            let _ = self.poll_send(cx);
            return Poll::Ready(Err(tls_error(e)));
        }
        Poll::Ready(Ok(()))
    }

    /// Run the handshake to its end.
    fn poll_handshake(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            ready!(self.poll_send(cx))?;
            if !self.conn.is_handshaking() {
                return Poll::Ready(Ok(()));
            }
            if self.eof {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the server closed the connection during the TLS handshake",
                )));
            }
            ready!(self.poll_fill(cx))?;
        }
    }
}

impl Read for Half {
    fn poll_read_with(
        &mut self,
        cx: &mut Context<'_>,
        max: usize,
        take: &mut dyn FnMut(&[u8]),
    ) -> Poll<io::Result<usize>> {
        let mut shared = self.lock();
        let mut plain = vec![0u8; max.min(CHUNK)];
        loop {
            match shared.conn.reader().read(&mut plain) {
                Ok(n) => {
                    take(&plain[..n]);
                    return Poll::Ready(Ok(n));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                // A close without `close_notify`: the end, as on a plain
                // socket (the HTTP framing says whether the answer was whole).
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Poll::Ready(Ok(0)),
                Err(e) => return Poll::Ready(Err(e)),
            }
            ready!(shared.poll_send(cx))?;
            if shared.eof && shared.incoming.is_empty() {
                return Poll::Ready(Ok(0));
            }
            ready!(shared.poll_fill(cx))?;
        }
    }
}

impl Write for Half {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let mut shared = self.lock();
        ready!(shared.poll_send(cx))?;
        let n = shared.conn.writer().write(buf)?;
        // Best effort now; `poll_flush` finishes it.
        if let Poll::Ready(Err(e)) = shared.poll_send(cx) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(Ok(n))
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut shared = self.lock();
        ready!(shared.poll_handshake(cx))?;
        ready!(shared.poll_send(cx))?;
        shared.writer.poll_flush(cx)
    }

    fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut shared = self.lock();
        shared.conn.send_close_notify();
        ready!(shared.poll_send(cx))?;
        shared.writer.poll_shutdown(cx)
    }
}
