//! Blocking streams as the driver's non-blocking ones: a thread per
//! direction, handing bytes over under a lock and waking the connection's
//! thread.
//!
//! - The reader thread reads one chunk only when the connection asks for
//!   input, so at most one chunk is read ahead (backpressure).
//! - The writer thread takes one buffer at a time, so a client slow to read
//!   blocks that thread alone: the connection's timeouts, cancellations
//!   and shutdown grace go on.
//! - The acceptor thread accepts connections and hands them over one by
//!   one; dropping the [`Acceptor`] wakes it with a connection to itself.

use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::Duration;

/// The stack of a reader or writer thread: they only move bytes, so a
/// fraction of the default is plenty, and an idle connection's threads
/// then cost less.
const HALF_STACK: usize = 128 * 1024;

/// A lock and a condition variable around one direction's state.
struct Handoff<S> {
    state: Mutex<S>,
    cv: Condvar,
}

impl<S: Default> Handoff<S> {
    fn new() -> Arc<Self> {
        Arc::new(Handoff {
            state: Mutex::new(S::default()),
            cv: Condvar::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, S> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, guard: MutexGuard<'a, S>) -> MutexGuard<'a, S> {
        self.cv.wait(guard).unwrap_or_else(PoisonError::into_inner)
    }
}

fn wake(waker: &mut Option<Waker>) {
    if let Some(w) = waker.take() {
        w.wake();
    }
}

#[derive(Default)]
struct ReadState {
    /// The connection asked for a chunk.
    want: bool,
    /// A chunk read and not yet taken.
    chunk: Option<io::Result<Vec<u8>>>,
    /// The reader thread read its last (EOF or an error).
    done: bool,
    /// The connection is gone: the reader thread stops.
    closed: bool,
    waker: Option<Waker>,
}

/// The read half, served by a thread of its own.
pub struct ThreadReader {
    shared: Arc<Handoff<ReadState>>,
    /// Shut on drop to release the reader thread from a blocked read.
    socket: Option<Arc<TcpStream>>,
}

impl ThreadReader {
    /// Read `input` on a new thread, `chunk` bytes at a time at most.
    pub fn spawn<R: Read + Send + 'static>(input: R, chunk: usize) -> io::Result<ThreadReader> {
        Self::start(input, chunk, None)
    }

    fn start<R: Read + Send + 'static>(
        mut input: R,
        chunk: usize,
        socket: Option<Arc<TcpStream>>,
    ) -> io::Result<ThreadReader> {
        let shared = Handoff::<ReadState>::new();
        let handoff = shared.clone();
        let peek = socket.clone();
        thread::Builder::new()
            .name(String::from("snodo-reader"))
            .stack_size(HALF_STACK)
            .spawn(move || loop {
                let mut s = handoff.lock();
                while !s.want && !s.closed {
                    s = handoff.wait(s);
                }
                if s.closed {
                    return;
                }
                drop(s);
                // On a socket, wait for data before taking a buffer, so an
                // idle connection holds none.
                if let Some(socket) = &peek {
                    let _ = socket.peek(&mut [0_u8; 1]);
                }
                let mut buf = vec![0_u8; chunk.max(1)];
                let read = loop {
                    match input.read(&mut buf) {
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        other => break other,
                    }
                };
                let last = !matches!(read, Ok(n) if n > 0);
                let mut s = handoff.lock();
                s.want = false;
                s.chunk = Some(read.map(|n| {
                    buf.truncate(n);
                    buf
                }));
                s.done = last;
                wake(&mut s.waker);
                if last {
                    return;
                }
            })?;
        Ok(ThreadReader { shared, socket })
    }
}

impl snodo_driver::Read for ThreadReader {
    /// The reader thread's chunk, handed over as it is.
    fn poll_read_with(
        &mut self,
        cx: &mut Context<'_>,
        _max: usize,
        take: &mut dyn FnMut(&[u8]),
    ) -> Poll<io::Result<usize>> {
        let mut s = self.shared.lock();
        match s.chunk.take() {
            Some(Ok(chunk)) => {
                take(&chunk);
                Poll::Ready(Ok(chunk.len()))
            }
            Some(Err(e)) => Poll::Ready(Err(e)),
            None if s.done => Poll::Ready(Ok(0)),
            None => {
                self.ask(&mut s, cx);
                Poll::Pending
            }
        }
    }
}

impl ThreadReader {
    /// Ask the reader thread for a chunk, to wake `cx` with.
    fn ask(&self, s: &mut ReadState, cx: &mut Context<'_>) {
        if !s.want {
            s.want = true;
            self.shared.cv.notify_one();
        }
        if !s.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
            s.waker = Some(cx.waker().clone());
        }
    }
}

impl Drop for ThreadReader {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.cv.notify_one();
        if let Some(socket) = &self.socket {
            let _ = socket.shutdown(Shutdown::Read);
        }
    }
}

struct Socket(Arc<TcpStream>);

impl Write for Socket {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        (&*self.0).write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Read for Socket {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&*self.0).read(buf)
    }
}

#[derive(Default)]
struct WriteState {
    /// A buffer handed to the writer thread and not yet taken by it.
    pending: Option<Vec<u8>>,
    /// Bytes the writer thread is writing now.
    writing: usize,
    error: Option<io::Error>,
    finish: bool,
    finished: bool,
    closed: bool,
    waker: Option<Waker>,
}

/// The write half, served by a thread of its own.
pub struct ThreadWriter {
    shared: Arc<Handoff<WriteState>>,
    socket: Option<Arc<TcpStream>>,
}

impl ThreadWriter {
    /// Write to `output` on a new thread; ending it flushes it (the caller
    /// owns the stream and closes it).
    pub fn spawn<W: Write + Send + 'static>(output: W) -> io::Result<ThreadWriter> {
        Self::start(output, None)
    }

    /// `socket`, when given, is shut for writing (FIN) at the end, and
    /// entirely when this is dropped.
    fn start<W: Write + Send + 'static>(
        mut output: W,
        socket: Option<Arc<TcpStream>>,
    ) -> io::Result<ThreadWriter> {
        let fin = socket.clone();
        let shared = Handoff::<WriteState>::new();
        let handoff = shared.clone();
        thread::Builder::new()
            .name(String::from("snodo-writer"))
            .stack_size(HALF_STACK)
            .spawn(move || loop {
                let mut s = handoff.lock();
                while s.pending.is_none() && !s.finish && !s.closed {
                    s = handoff.wait(s);
                }
                if let Some(bytes) = s.pending.take() {
                    s.writing = bytes.len();
                    drop(s);
                    let written = output.write_all(&bytes).and_then(|()| output.flush());
                    let mut s = handoff.lock();
                    s.writing = 0;
                    if let Err(e) = written {
                        s.error = Some(e);
                    }
                    // The connection may hand over the next buffer now.
                    wake(&mut s.waker);
                } else if s.finish && !s.closed {
                    drop(s);
                    let _ = output.flush();
                    if let Some(socket) = &fin {
                        let _ = socket.shutdown(Shutdown::Write);
                    }
                    let mut s = handoff.lock();
                    s.finished = true;
                    wake(&mut s.waker);
                    return;
                } else {
                    return;
                }
            })?;
        Ok(ThreadWriter { shared, socket })
    }

    /// Ready when the writer thread can take a buffer, or with `drained`,
    /// when it has written everything.
    fn poll_idle(&mut self, cx: &mut Context<'_>, drained: bool) -> Poll<io::Result<()>> {
        let mut s = self.shared.lock();
        if let Some(e) = s.error.take() {
            return Poll::Ready(Err(e));
        }
        if s.pending.is_some() || (drained && s.writing > 0) {
            if !s.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                s.waker = Some(cx.waker().clone());
            }
            return Poll::Pending;
        }
        Poll::Ready(Ok(()))
    }
}

impl snodo_driver::Write for ThreadWriter {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        std::task::ready!(self.poll_idle(cx, false))?;
        self.shared.lock().pending = Some(buf.to_vec());
        self.shared.cv.notify_one();
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_idle(cx, true)
    }

    fn buffered(&self) -> usize {
        let s = self.shared.lock();
        s.writing + s.pending.as_ref().map_or(0, Vec::len)
    }

    fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.poll_idle(cx, true))?;
        let mut s = self.shared.lock();
        if s.finished {
            return Poll::Ready(Ok(()));
        }
        s.finish = true;
        s.waker = Some(cx.waker().clone());
        self.shared.cv.notify_one();
        Poll::Pending
    }
}

impl Drop for ThreadWriter {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.cv.notify_one();
        // A writer thread stuck on a client that does not read fails now.
        if let Some(socket) = &self.socket {
            let _ = socket.shutdown(Shutdown::Both);
        }
    }
}

/// Accepted connections not yet taken; the thread waits beyond a few.
#[derive(Default)]
struct AcceptState {
    queue: std::collections::VecDeque<io::Result<(TcpStream, SocketAddr)>>,
    stopped: bool,
    waker: Option<Waker>,
}

const ACCEPT_QUEUE: usize = 16;

/// A TCP listener whose connections a thread accepts.
pub struct Acceptor {
    shared: Arc<Handoff<AcceptState>>,
    local: SocketAddr,
    chunk: usize,
    thread: Option<thread::JoinHandle<()>>,
}

impl Acceptor {
    /// Accept from `listener` on a new thread; each connection's reader
    /// reads `chunk` bytes at a time at most.
    pub fn spawn(listener: TcpListener, chunk: usize) -> io::Result<Acceptor> {
        let local = listener.local_addr()?;
        let shared = Handoff::<AcceptState>::new();
        let handoff = shared.clone();
        let thread = thread::Builder::new()
            .name(String::from("snodo-acceptor"))
            .spawn(move || loop {
                let accepted = listener.accept();
                let failed = accepted.is_err();
                let mut s = handoff.lock();
                while s.queue.len() >= ACCEPT_QUEUE && !s.stopped {
                    s = handoff.wait(s);
                }
                if s.stopped {
                    return;
                }
                s.queue.push_back(accepted);
                wake(&mut s.waker);
                drop(s);
                if failed {
                    // Out of file descriptors, say: do not spin.
                    thread::sleep(Duration::from_millis(10));
                }
            })?;
        Ok(Acceptor {
            shared,
            local,
            chunk,
            thread: Some(thread),
        })
    }
}

impl snodo_driver::Listener for Acceptor {
    type Reader = ThreadReader;
    type Writer = ThreadWriter;

    fn poll_accept(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<(ThreadReader, ThreadWriter, SocketAddr)>> {
        let mut s = self.shared.lock();
        let (stream, peer) = match s.queue.pop_front() {
            Some(accepted) => accepted?,
            None => {
                s.waker = Some(cx.waker().clone());
                return Poll::Pending;
            }
        };
        self.shared.cv.notify_one();
        drop(s);
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(%peer, error = %e, "could not set TCP_NODELAY");
        }
        let (reader, writer) = split_tcp(stream, self.chunk)?;
        Poll::Ready(Ok((reader, writer, peer)))
    }
}

impl Drop for Acceptor {
    fn drop(&mut self) {
        self.shared.lock().stopped = true;
        self.shared.cv.notify_one();
        // The thread is blocked in accept: a connection to ourselves ends
        // it, and the listener is closed once it has (new clients are
        // refused from then on).
        let woken = TcpStream::connect_timeout(&reachable(self.local), Duration::from_secs(1));
        if let (Ok(_), Some(thread)) = (woken, self.thread.take()) {
            let _ = thread.join();
        }
    }
}

/// A connected socket as the driver's halves, each on a thread of its
/// own, reading `chunk` bytes at a time at most. Dropping the reader shuts
/// the socket for reading (its thread leaves a blocked read); the writer
/// shuts it for writing at its end.
pub fn split_tcp(stream: TcpStream, chunk: usize) -> io::Result<(ThreadReader, ThreadWriter)> {
    let socket = Arc::new(stream);
    let reader = ThreadReader::start(Socket(socket.clone()), chunk, Some(socket.clone()))?;
    let writer = ThreadWriter::start(Socket(socket.clone()), Some(socket))?;
    Ok((reader, writer))
}

/// Where a listener bound to a wildcard address can be reached.
fn reachable(local: SocketAddr) -> SocketAddr {
    let ip = match local.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, local.port())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_binds_are_reached_on_loopback() {
        let any4: SocketAddr = "0.0.0.0:4000".parse().unwrap();
        let any6: SocketAddr = "[::]:4000".parse().unwrap();
        let some: SocketAddr = "192.0.2.7:4000".parse().unwrap();
        assert_eq!(reachable(any4), "127.0.0.1:4000".parse().unwrap());
        assert_eq!(reachable(any6), "[::1]:4000".parse().unwrap());
        assert_eq!(reachable(some), some);
    }
}
