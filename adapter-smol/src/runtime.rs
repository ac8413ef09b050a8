//! The TCP server: accept, one task per connection, graceful shutdown.
//!
//! Each accepted stream gets its own [`Connection`] owned by its own task,
//! so connections share nothing but the immutable [`Service`] and never
//! lock each other. Shutdown is in three steps: stop accepting (the listener
//! is dropped), tell every connection (`Connection::begin_shutdown`: no new
//! request is read, the one in progress is answered, on HTTP with
//! `Connection: close`), and after [`Options::shutdown_grace`] cancel
//! whatever is left. Each connection enforces the grace period itself and
//! closes cleanly; the server cancels any task still alive a little later
//! (one stuck writing to a peer that does not read, say).

use smol::channel;
use smol::future::{self, FutureExt};
use smol::io::{AsyncRead, AsyncReadExt};
use smol::lock::Semaphore;
use smol::net::{AsyncToSocketAddrs, TcpListener, TcpStream};
use smol::{ready, Async, Executor, Task, Timer};
use snodo_proto::{Connection, Service, Transport};
use std::collections::HashMap;
use std::future::Future;
use std::io::{self, Read};
use std::net::SocketAddr;
use std::pin::{pin, Pin};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::calls::Calls;
use crate::clock::Clock;
use crate::driver::Driver;
use crate::options::Options;

/// After closing its side, how long a connection keeps reading (and
/// discarding) so that unread request bytes do not turn the close into a
/// reset that destroys the response the client has not read yet.
const LINGER: Duration = Duration::from_secs(1);
/// And at most how many bytes it discards.
const LINGER_BYTES: usize = 256 * 1024;
/// How long after its own grace period (and linger) a connection task is
/// cancelled by the server regardless.
const BACKSTOP_MARGIN: Duration = Duration::from_millis(500);
/// Pause after an accept error that is not about one connection (out of
/// file descriptors, say), so the loop does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Bind a listener for [`serve_http`](crate::serve_http) or [`serve_tcp`].
pub async fn bind_http<A: AsyncToSocketAddrs>(addr: A) -> io::Result<TcpListener> {
    TcpListener::bind(addr).await
}

/// Serve `transport` on every connection `listener` accepts until
/// `shutdown` resolves, then shut down gracefully; see
/// [`serve_http`](crate::serve_http), which is this with
/// [`Transport::Http`]. With [`Transport::Stdio`] it serves
/// newline-delimited JSON-RPC over TCP: the stdio framing on another
/// reliable stream (`basic/transports/stdio.mdx`; a custom transport).
pub fn serve_tcp<S>(
    ex: &Arc<Executor<'static>>,
    service: Service,
    listener: TcpListener,
    transport: Transport,
    shutdown: S,
    options: Options,
) -> impl Future<Output = io::Result<()>>
where
    S: Future<Output = ()>,
{
    run(ex.clone(), service, transport, listener, shutdown, options)
}

async fn run<S>(
    ex: Arc<Executor<'static>>,
    service: Service,
    transport: Transport,
    listener: TcpListener,
    shutdown: S,
    options: Options,
) -> io::Result<()>
where
    S: Future<Output = ()>,
{
    let clock = Clock::new();
    let permits = Arc::new(Semaphore::new(options.max_connections.max(1)));
    // Never sent on: closing it is the broadcast every connection waits for.
    let (stop_tx, stop_rx) = channel::bounded::<()>(1);
    // Connection tasks say when they end so the map stays the live set.
    let (done_tx, done_rx) = channel::unbounded::<u64>();
    let mut tasks: HashMap<u64, Task<()>> = HashMap::new();
    let mut next_id: u64 = 0;
    let mut shutdown = pin!(shutdown);

    enum Step {
        Accepted(
            io::Result<(TcpStream, SocketAddr)>,
            smol::lock::SemaphoreGuardArc,
        ),
        Ended(u64),
        Stop,
    }

    loop {
        let step = {
            let stop = async {
                shutdown.as_mut().await;
                Step::Stop
            };
            let ended = async {
                match done_rx.recv().await {
                    Ok(id) => Step::Ended(id),
                    Err(_) => future::pending().await,
                }
            };
            let accept = async {
                // The connection cap: no permit, no accept.
                let permit = permits.acquire_arc().await;
                Step::Accepted(listener.accept().await, permit)
            };
            stop.or(ended).or(accept).await
        };
        match step {
            Step::Stop => break,
            Step::Ended(id) => {
                tasks.remove(&id);
            }
            Step::Accepted(Ok((stream, peer)), permit) => {
                let id = next_id;
                next_id += 1;
                let driver = Driver {
                    conn: Connection::new(&service, transport, clock.now()),
                    calls: Calls::new(ex.clone(), options.report_queue),
                    clock,
                    shutdown: Some(stop_rx.clone()),
                    read_buffer: options.read_buffer,
                    grace: options.shutdown_grace,
                };
                let done = done_tx.clone();
                let task = ex.spawn(async move {
                    serve_connection(stream, peer, driver).await;
                    drop(permit);
                    let _ = done.try_send(id);
                });
                tasks.insert(id, task);
            }
            Step::Accepted(Err(e), _permit) => {
                tracing::warn!(error = %e, "accept failed");
                if !is_per_connection(&e) {
                    Timer::after(ACCEPT_BACKOFF).await;
                }
            }
        }
    }

    drop(listener);
    stop_tx.close();
    tracing::debug!(
        connections = tasks.len(),
        "shutting down: answering the calls in flight"
    );
    let deadline = std::time::Instant::now() + options.shutdown_grace + LINGER + BACKSTOP_MARGIN;
    while !tasks.is_empty() {
        let ended = async { done_rx.recv().await.ok() };
        let expired = async {
            Timer::at(deadline).await;
            None
        };
        match ended.or(expired).await {
            Some(id) => {
                tasks.remove(&id);
            }
            None => break,
        }
    }
    if !tasks.is_empty() {
        tracing::warn!(
            connections = tasks.len(),
            "shutdown grace period over: closing connections with calls in flight"
        );
    }
    for (_, task) in tasks.drain() {
        task.cancel().await;
    }
    Ok(())
}

async fn serve_connection(stream: TcpStream, peer: SocketAddr, driver: Driver) {
    // Responses are small and written whole: Nagle would only delay them.
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(%peer, error = %e, "could not set TCP_NODELAY");
    }
    let mut reader = stream.clone();
    let socket = TcpReader {
        socket: stream.clone().into(),
        drained: false,
    };
    match driver.run(socket, stream).await {
        Ok(()) => {
            tracing::debug!(%peer, "connection closed");
            linger(&mut reader).await;
        }
        Err(e) => tracing::debug!(%peer, error = %e, "connection failed"),
    }
}

/// A TCP stream's read side for request/response traffic: once a read
/// returns less than was asked for, the socket is taken as drained, and the
/// next read waits for the reactor to report it readable instead of first
/// spending a system call to learn that it would block (async-io's own
/// reader always tries first). A keep-alive client sends its next request
/// only after reading the answer, so that attempt nearly always fails: this
/// saves most of a `recvfrom` per request. Nothing is missed: registering
/// interest reports a socket that became readable meanwhile at once.
struct TcpReader {
    socket: Arc<Async<std::net::TcpStream>>,
    drained: bool,
}

impl AsyncRead for TcpReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            if self.drained {
                ready!(self.socket.poll_readable(cx))?;
            }
            match self.socket.get_ref().read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.drained = true,
                Ok(n) => {
                    self.drained = n < buf.len();
                    return Poll::Ready(Ok(n));
                }
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

/// Read and discard what the peer still sends after our side closed, for a
/// bounded time and amount (a lingering close).
async fn linger(reader: &mut TcpStream) {
    let mut buf = [0u8; 4096];
    let mut left = LINGER_BYTES;
    let drain = async {
        while left > 0 {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => left = left.saturating_sub(n),
            }
        }
    };
    drain
        .or(async {
            Timer::after(LINGER).await;
        })
        .await;
}

fn is_per_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Read from `reader`, or fail after a second rather than hang.
    async fn read_some(reader: &mut TcpReader, buf: &mut [u8]) -> usize {
        reader
            .read(buf)
            .or(async {
                Timer::after(Duration::from_secs(1)).await;
                panic!("the read never completed")
            })
            .await
            .expect("a read")
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
            Timer::after(Duration::from_millis(20)).await;
            assert_eq!(read_some(&mut reader, &mut buf).await, 3);
            assert!(reader.drained);
            // Bytes that arrived before the reader registered interest are
            // reported at once, not missed.
            client.write_all(b"x").unwrap();
            Timer::after(Duration::from_millis(20)).await;
            assert_eq!(read_some(&mut reader, &mut buf).await, 1);
            assert_eq!(&buf[..1], b"x");
            // Bytes that arrive while it waits wake it.
            let writer = std::thread::spawn({
                let mut client = client.try_clone().unwrap();
                move || {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    client.write_all(b"de").unwrap();
                }
            });
            assert_eq!(read_some(&mut reader, &mut buf).await, 2);
            assert_eq!(&buf[..2], b"de");
            writer.join().unwrap();
            // A full read leaves the socket not drained: the next read
            // tries it directly.
            client.write_all(b"0123456789abcdef").unwrap();
            Timer::after(Duration::from_millis(20)).await;
            assert_eq!(read_some(&mut reader, &mut buf).await, 8);
            assert!(!reader.drained);
            assert_eq!(read_some(&mut reader, &mut buf).await, 8);
            // End of input reads as 0.
            client.shutdown(std::net::Shutdown::Write).unwrap();
            assert_eq!(read_some(&mut reader, &mut buf).await, 0);
        });
    }
}
