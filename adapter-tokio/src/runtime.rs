//! tokio as a [`snodo_driver::Runtime`]: its clock (a paused test clock
//! included), its timers, `tokio::spawn`, and its byte streams.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, LazyLock};
use std::task::{ready, Context, Poll};
use std::time::Instant;

use snodo_proto::blocking::{Executor, Job};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpListener;

/// The tokio runtime the caller runs on (any flavour).
#[derive(Clone, Copy, Debug, Default)]
pub struct Tokio;

impl snodo_driver::Runtime for Tokio {
    type Timer = Sleep;

    fn now(&self) -> Instant {
        tokio::time::Instant::now().into_std()
    }

    fn timer(&self, at: Instant) -> Sleep {
        Sleep(Box::pin(tokio::time::sleep_until(at.into())))
    }

    fn spawn<F>(&self, future: F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        tokio::spawn(future);
    }

    fn executor(&self) -> Arc<dyn Executor> {
        blocking_pool()
    }
}

/// tokio's blocking pool as handlers' [`Executor`]
/// ([`Context::spawn_blocking`](snodo_proto::Context::spawn_blocking)):
/// what every connection served here uses, and what to give a Tasks
/// runner (`snodo_tasks::TaskRunner::executor`) so a task's run reaches
/// the same pool.
pub fn blocking_pool() -> Arc<dyn Executor> {
    static POOL: LazyLock<Arc<dyn Executor>> = LazyLock::new(|| Arc::new(BlockingPool));
    POOL.clone()
}

/// tokio's blocking pool (`spawn_blocking`), of the runtime whose task
/// asks: a handler is polled on one. Asked from elsewhere (a thread the
/// handler started), the job is dropped, which its handler sees as
/// [`BlockingError::Dropped`](snodo_proto::blocking::BlockingError::Dropped).
struct BlockingPool;

impl Executor for BlockingPool {
    fn spawn(&self, job: Job) {
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(move || job.run())),
            Err(e) => tracing::warn!(error = %e, "blocking work asked for outside a tokio runtime"),
        }
    }
}

/// A tokio timer that can be moved.
pub struct Sleep(Pin<Box<tokio::time::Sleep>>);

impl snodo_driver::Timer for Sleep {
    fn reset(&mut self, at: Instant) {
        self.0.as_mut().reset(at.into());
    }

    fn poll_fired(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.0.as_mut().poll(cx)
    }
}

/// A tokio byte stream (or half of one) as the driver reads and writes it.
#[derive(Debug)]
pub struct Io<T>(pub T);

impl<T: AsyncRead + Unpin> snodo_driver::Read for Io<T> {
    fn poll_read_with(
        &mut self,
        cx: &mut Context<'_>,
        max: usize,
        take: &mut dyn FnMut(&[u8]),
    ) -> Poll<io::Result<usize>> {
        snodo_driver::read_into_scratch(max, take, |buf| {
            let mut buf = ReadBuf::new(buf);
            ready!(Pin::new(&mut self.0).poll_read(cx, &mut buf))?;
            Poll::Ready(Ok(buf.filled().len()))
        })
    }
}

impl<T: AsyncWrite + Unpin> snodo_driver::Write for Io<T> {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

/// A tokio TCP listener as the driver accepts from it.
pub(crate) struct Accept(pub(crate) TcpListener);

impl snodo_driver::Listener for Accept {
    type Reader = Io<OwnedReadHalf>;
    type Writer = Io<OwnedWriteHalf>;

    fn poll_accept(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<(Self::Reader, Self::Writer, SocketAddr)>> {
        let (stream, peer) = ready!(self.0.poll_accept(cx))?;
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(%peer, error = %e, "could not set TCP_NODELAY");
        }
        let (reader, writer) = stream.into_split();
        Poll::Ready(Ok((Io(reader), Io(writer), peer)))
    }
}
