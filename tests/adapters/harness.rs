//! The one thing that differs between runtimes: how a server is started.
//! [`Rt`] starts a stdio server over blocking byte streams, or a TCP
//! server (Streamable HTTP, or the stdio framing) on `127.0.0.1:0` with a
//! [`Shutdown`], each on a thread of its own running that runtime. Every
//! test is written once against it and instantiated for [`Tokio`],
//! [`Smol`] and [`Blocking`].
//!
//! The stdio servers read and write the test's in-memory pipes
//! ([`crate::pipe`]). tokio and smol see them through `smol::Unblock`, a
//! blocking-thread bridge like the one their own `serve_stdio` puts over
//! the process's stdin and stdout; the blocking runtime reads and writes
//! them directly.

use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::thread;
use std::time::Duration;

use snodo_proto::{Service, Transport};
use snodo_tokio::{Options, Shutdown};

/// A blocking stream the test hands a stdio server.
pub type Input = Box<dyn Read + Send + 'static>;
/// See [`Input`].
pub type Output = Box<dyn Write + Send + 'static>;

/// How one runtime starts the servers under test.
pub trait Rt: 'static {
    /// Serve `service` with the stdio framing on `input` and `output`
    /// (`serve_stream`) until it returns.
    fn stdio(service: Service, options: Options, input: Input, output: Output) -> Served;

    /// Bind `127.0.0.1:0` (`bind_http`) and serve `transport` on it
    /// (`serve_tcp`; `serve_http` for HTTP) until `shutdown` is raised.
    fn tcp(
        service: Service,
        options: Options,
        transport: Transport,
        shutdown: Shutdown,
    ) -> (SocketAddr, Served);
}

/// A server running on its own thread: what its entry point returned,
/// once it returns.
pub struct Served(Receiver<io::Result<()>>);

impl Served {
    fn spawn(name: &str, serve: impl FnOnce() -> io::Result<()> + Send + 'static) -> Served {
        let (tx, rx) = mpsc::channel();
        thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                let _ = tx.send(serve());
            })
            .expect("a server thread");
        Served(rx)
    }

    /// What the entry point returned, waiting at most `limit`.
    pub fn within(&self, limit: Duration) -> io::Result<()> {
        match self.0.recv_timeout(limit) {
            Ok(result) => result,
            Err(RecvTimeoutError::Timeout) => panic!("the server did not return within {limit:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server thread panicked"),
        }
    }

    /// The entry point has not returned after `period`.
    pub fn still_running_after(&self, period: Duration) -> bool {
        matches!(self.0.recv_timeout(period), Err(RecvTimeoutError::Timeout))
    }
}

/// A bound listener's address, sent back from the server's thread.
fn bound(addr: io::Result<SocketAddr>, tx: &mpsc::Sender<SocketAddr>) -> io::Result<()> {
    tx.send(addr?).expect("the test waits for the address");
    Ok(())
}

fn recv_addr(rx: Receiver<SocketAddr>) -> SocketAddr {
    rx.recv_timeout(Duration::from_secs(5))
        .expect("the server bound its listener")
}

/// tokio: a multi-threaded runtime of two workers per server.
pub struct Tokio;

fn tokio_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

impl Rt for Tokio {
    fn stdio(service: Service, options: Options, input: Input, output: Output) -> Served {
        Served::spawn("tokio-stdio", move || {
            let rt = tokio_runtime();
            let input = Compat(unblock(input));
            let output = Compat(unblock(output));
            let served = rt.block_on(snodo_tokio::serve_stream(&service, input, output, options));
            // Hung handlers' tasks are abandoned, not awaited.
            rt.shutdown_background();
            served
        })
    }

    fn tcp(
        service: Service,
        options: Options,
        transport: Transport,
        shutdown: Shutdown,
    ) -> (SocketAddr, Served) {
        let (tx, rx) = mpsc::channel();
        let served = Served::spawn("tokio-tcp", move || {
            let rt = tokio_runtime();
            let served = rt.block_on(async {
                let listener = snodo_tokio::bind_http("127.0.0.1:0").await?;
                bound(listener.local_addr(), &tx)?;
                if transport == Transport::Http {
                    snodo_tokio::serve_http(&service, listener, shutdown, options).await
                } else {
                    snodo_tokio::serve_tcp(&service, listener, transport, shutdown, options).await
                }
            });
            rt.shutdown_background();
            served
        });
        (recv_addr(rx), served)
    }
}

/// smol: an executor per server, run by the server's thread and one more.
pub struct Smol;

fn on_smol<T>(run: impl FnOnce(&Arc<smol::Executor<'static>>) -> T) -> T {
    let ex = Arc::new(smol::Executor::new());
    let (stop, stopped) = smol::channel::bounded::<()>(1);
    let helper = {
        let ex = ex.clone();
        thread::spawn(move || smol::block_on(ex.run(stopped.recv())))
    };
    let out = run(&ex);
    drop(stop);
    let _ = helper.join();
    out
}

impl Rt for Smol {
    fn stdio(service: Service, options: Options, input: Input, output: Output) -> Served {
        Served::spawn("smol-stdio", move || {
            on_smol(|ex| {
                let (input, output) = (unblock(input), unblock(output));
                let serve = snodo_smol::serve_stream(ex, &service, input, output, options);
                smol::block_on(ex.run(serve))
            })
        })
    }

    fn tcp(
        service: Service,
        options: Options,
        transport: Transport,
        shutdown: Shutdown,
    ) -> (SocketAddr, Served) {
        let (tx, rx) = mpsc::channel();
        let served = Served::spawn("smol-tcp", move || {
            on_smol(|ex| {
                smol::block_on(ex.run(async {
                    let listener = snodo_smol::bind_http("127.0.0.1:0").await?;
                    bound(listener.local_addr(), &tx)?;
                    if transport == Transport::Http {
                        snodo_smol::serve_http(ex, &service, listener, shutdown, options).await
                    } else {
                        let serve = snodo_smol::serve_tcp(
                            ex, &service, listener, transport, shutdown, options,
                        );
                        serve.await
                    }
                }))
            })
        });
        (recv_addr(rx), served)
    }
}

/// blocking: the entry points block the server's thread; handlers run on
/// a [`Threads`](snodo_blocking::Threads) pool of the default size.
pub struct Blocking;

fn threads() -> io::Result<snodo_blocking::Threads> {
    snodo_blocking::Threads::new(snodo_blocking::DEFAULT_WORKERS)
}

impl Rt for Blocking {
    fn stdio(service: Service, options: Options, input: Input, output: Output) -> Served {
        Served::spawn("blocking-stdio", move || {
            snodo_blocking::serve_stream(&threads()?, &service, input, output, options)
        })
    }

    fn tcp(
        service: Service,
        options: Options,
        transport: Transport,
        shutdown: Shutdown,
    ) -> (SocketAddr, Served) {
        let (tx, rx) = mpsc::channel();
        let served = Served::spawn("blocking-tcp", move || {
            let listener = snodo_blocking::bind_http("127.0.0.1:0")?;
            bound(listener.local_addr(), &tx)?;
            let threads = threads()?;
            if transport == Transport::Http {
                snodo_blocking::serve_http(&threads, &service, listener, shutdown, options)
            } else {
                let serve = snodo_blocking::serve_tcp;
                serve(&threads, &service, listener, transport, shutdown, options)
            }
        });
        (recv_addr(rx), served)
    }
}

/// A blocking stream on `smol::Unblock`'s threads, buffering at most
/// 8 KiB (the default, 8 MiB, would read far ahead of the server and
/// absorb whole floods of output, hiding backpressure from the tests).
fn unblock<T>(io: T) -> smol::Unblock<T> {
    smol::Unblock::with_capacity(8 * 1024, io)
}

/// A `futures-io` stream (`smol::Unblock`) as a tokio one.
struct Compat<T>(T);

impl<T: smol::io::AsyncRead + Unpin> tokio::io::AsyncRead for Compat<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = ready!(Pin::new(&mut self.0).poll_read(cx, buf.initialize_unfilled()))?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl<T: smol::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Compat<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_close(cx)
    }
}
