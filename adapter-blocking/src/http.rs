//! Serving Streamable HTTP (`basic/transports/streamable-http.mdx`) on a
//! blocking TCP listener: an acceptor loop, one driver thread per
//! connection, one worker pool for all of them.
//!
//! HTTP itself (parsing, the endpoint path, `Origin`/`Host` checks, limits,
//! keep-alive, SSE) is `snodo-proto`'s, configured on the [`Service`]; a
//! connection here moves bytes exactly as the stdio path does, with the
//! same driver, reader, writer and pool.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use snodo_proto::{Service, Transport};

use crate::driver::{self, Mailbox, Wiring};
use crate::options::HttpOptions;
use crate::pool::Pool;
use crate::registry::{Admission, Registry};
use crate::shutdown::ShutdownHandle;

/// Pause after an accept error that would repeat at once (out of file
/// descriptors or memory), instead of spinning.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Slack on top of the grace and linger before `serve_http` stops waiting
/// for connections to close.
const BACKSTOP_SLACK: Duration = Duration::from_secs(1);

/// Bind a TCP listener for [`serve_http`].
///
/// This is [`TcpListener::bind`], whose listen backlog is 128: connects
/// arriving faster than the acceptor takes them beyond that wait for the
/// client's SYN retransmission (about a second). For larger bursts, create
/// the socket with a bigger backlog by other means and pass the listener to
/// [`serve_http`].
pub fn bind_http(addr: impl ToSocketAddrs) -> io::Result<TcpListener> {
    TcpListener::bind(addr)
}

/// Serve MCP's Streamable HTTP on every connection `listener` accepts,
/// until `shutdown` is requested.
///
/// - Each accepted connection gets its own driver thread (plus a reader
///   and a writer thread) owning one `Connection` on [`Transport::Http`],
///   with `TCP_NODELAY` set: messages are written whole, so Nagle's
///   algorithm would only add latency. Handlers of all connections run on
///   one pool of [`HttpOptions::workers`] threads; a panicking handler
///   fails only its own request, with `-32603`.
/// - At most [`HttpOptions::max_connections`] are served at once; one
///   accepted beyond that is closed immediately.
/// - A client that disconnects while its request is running cancels it
///   (`streamable-http.mdx` § Cancellation): input is read during calls so
///   the disconnect is seen, and the handler's future is dropped.
/// - When [`ShutdownHandle::shutdown`] is called, the listener is closed at
///   once. Each connection stops reading, lets the call in flight finish for
///   up to [`HttpOptions::shutdown_grace`] (its response then says
///   `Connection: close`; calls still running at the deadline are
///   cancelled), writes what it owes and closes. This returns when every
///   connection is gone, or at the latest a second after grace and linger.
///
/// `listener` is put in blocking mode. Errors come only from setting up
/// (reading the listener's address or mode, starting the worker pool).
/// Accept errors never end the server: a failed handshake is skipped, and
/// running out of file descriptors or memory pauses accepting briefly. A
/// connection's I/O errors end that connection alone.
pub fn serve_http(
    service: &Service,
    listener: TcpListener,
    shutdown: ShutdownHandle,
    options: HttpOptions,
) -> io::Result<()> {
    let local = listener.local_addr()?;
    // A non-blocking listener would make the accept loop spin.
    listener.set_nonblocking(false)?;
    let workers = options.worker_count();
    let server = Server {
        service,
        pool: Arc::new(Pool::start(workers)?),
        registry: Arc::new(Registry::default()),
        calls_per_connection: service.limits().max_concurrent_calls.clamp(1, workers),
        options: &options,
    };
    let watch = shutdown.watch(local);
    tracing::debug!(%local, workers, max_connections = options.max_connections, "serving Streamable HTTP");
    while !shutdown.is_requested() {
        match listener.accept() {
            // Checked again: this may be the wake-up connection, or a client
            // racing it; either way it is dropped unserved.
            Ok((stream, peer)) if !shutdown.is_requested() => server.open(stream, peer),
            Ok(_) => break,
            Err(e) => accept_failed(&e),
        }
    }
    drop(watch);
    drop(listener);
    server.wind_down();
    Ok(())
}

struct Server<'a> {
    service: &'a Service,
    pool: Arc<Pool>,
    registry: Arc<Registry>,
    /// The most calls one connection can have running (sizes its queue).
    calls_per_connection: usize,
    options: &'a HttpOptions,
}

impl Server<'_> {
    /// Serve `stream` on a thread of its own, or close it at once when the
    /// cap is reached or no thread can be had.
    fn open(&self, stream: TcpStream, peer: SocketAddr) {
        let max = self.options.max_connections.max(1);
        let mailbox = Mailbox::new(self.calls_per_connection);
        let Some(admission) = self.registry.admit(max, mailbox.tx.clone()) else {
            tracing::warn!(%peer, max, "connection limit reached; closing the new connection");
            return;
        };
        let wiring = Wiring {
            transport: Transport::Http,
            pool: Arc::clone(&self.pool),
            mailbox,
            stop: Some(self.registry.stop_flag()),
            settings: self.options.settings(),
        };
        let service = self.service.clone();
        let spawned = thread::Builder::new()
            .name(String::from("snodo-http"))
            .spawn(move || connection(&service, stream, peer, wiring, admission));
        if let Err(e) = spawned {
            tracing::warn!(%peer, error = %e, "no thread for the new connection; closing it");
        }
    }

    /// Tell every connection to wind down and wait for them to close.
    fn wind_down(self) {
        tracing::debug!("shutting down: listener closed, connections winding down");
        self.registry.stop_all();
        let backstop = Instant::now()
            + self.options.shutdown_grace
            + self.options.close_linger
            + BACKSTOP_SLACK;
        let open = self.registry.wait_all_closed(backstop);
        if open > 0 {
            tracing::warn!(
                open,
                "connections outlived the shutdown grace; leaving them behind"
            );
        }
        self.pool.close();
    }
}

/// The connection's socket, read by its reader thread and written by its
/// writer thread: `&TcpStream` does both, so sharing it costs no second
/// file descriptor.
struct Socket(Arc<TcpStream>);

impl Read for Socket {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        (&*self.0).read(buf)
    }
}

impl Write for Socket {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        (&*self.0).write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        (&*self.0).flush()
    }
}

/// Shuts the socket down both ways when dropped, even by a panic: that
/// releases the reader thread blocked in `read`, and a writer blocked on a
/// peer that stopped reading, so no thread outlives its connection.
struct Hangup(Arc<TcpStream>);

impl Drop for Hangup {
    fn drop(&mut self) {
        let _ = self.0.shutdown(Shutdown::Both);
    }
}

fn connection(
    service: &Service,
    stream: TcpStream,
    peer: SocketAddr,
    wiring: Wiring,
    _admission: Admission,
) {
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(%peer, error = %e, "could not set TCP_NODELAY");
    }
    tracing::debug!(%peer, "connection opened");
    let socket = Hangup(Arc::new(stream));
    let (input, output) = (Socket(Arc::clone(&socket.0)), Socket(Arc::clone(&socket.0)));
    match driver::run(service, input, output, Some(&socket.0), wiring) {
        Ok(()) => tracing::debug!(%peer, "connection closed"),
        Err(e) => tracing::debug!(%peer, error = %e, "connection ended by an I/O error"),
    }
}

/// Errors about one half-open connection are skipped; others (out of file
/// descriptors, buffers, memory) would repeat at once, so wait a moment
/// for resources to come back.
fn accept_failed(e: &io::Error) {
    use io::ErrorKind::{
        ConnectionAborted, ConnectionRefused, ConnectionReset, Interrupted, TimedOut, WouldBlock,
    };
    match e.kind() {
        ConnectionAborted | ConnectionReset | ConnectionRefused | Interrupted | WouldBlock
        | TimedOut => tracing::debug!(error = %e, "accept failed for one connection"),
        _ => {
            tracing::warn!(error = %e, "accept failed; pausing before the next try");
            thread::sleep(ACCEPT_BACKOFF);
        }
    }
}
