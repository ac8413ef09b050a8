//! Plain threads as a [`ClientRuntime`] (feature `threads`):
//! [`snodo_blocking::Threads`], whose futures run under
//! [`snodo_blocking::block_on`]. A connection's socket is non-blocking on
//! async-io's reactor ([`snodo_driver::reactor`]), and a child's pipes are
//! moved onto threads by `blocking::Unblock`, so the async transports and
//! [`AsyncSession`](crate::AsyncSession) run on them unchanged: one
//! session, three runtimes.

use std::future::Future;
use std::io;
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};

use async_io::Async;
use blocking::Unblock;
use snodo_blocking::Threads;
use snodo_driver::reactor::{split, Io};

use crate::runtime::{ChildProcess, ClientRuntime, Reader, Writer};

/// The most a child pipe's thread holds (`Unblock`'s default is 8 MiB).
const PIPE: usize = 16 << 10;

/// A child killed when dropped (as tokio's and smol's are told to be).
struct Killed(Child);

impl ChildProcess for Killed {
    fn has_exited(&mut self) -> bool {
        !matches!(self.0.try_wait(), Ok(None))
    }

    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Killed {
    fn drop(&mut self) {
        if !self.has_exited() {
            self.kill();
        }
    }
}

impl ClientRuntime for Threads {
    async fn connect(&self, addrs: Vec<SocketAddr>) -> io::Result<(Reader, Writer)> {
        let mut last = io::Error::new(io::ErrorKind::InvalidInput, "no address to connect to");
        for addr in addrs {
            // Non-blocking on the reactor, so the transport's deadline can
            // end the attempt.
            match Async::<TcpStream>::connect(addr).await {
                Ok(stream) => {
                    let stream = stream.into_inner()?;
                    let _ = stream.set_nodelay(true);
                    let (r, w) = split(stream)?;
                    return Ok((Reader(Box::new(r)), Writer(Box::new(w))));
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    fn spawn_process(
        &self,
        mut command: Command,
    ) -> io::Result<(Box<dyn ChildProcess>, Writer, Reader)> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = command.spawn()?;
        let stdin = child.stdin.take().ok_or(io::ErrorKind::BrokenPipe)?;
        let stdout = child.stdout.take().ok_or(io::ErrorKind::BrokenPipe)?;
        let child = Killed(child);
        Ok((
            Box::new(child),
            Writer(Box::new(Io(Unblock::with_capacity(PIPE, stdin)))),
            Reader(Box::new(Io(Unblock::with_capacity(PIPE, stdout)))),
        ))
    }

    fn unblock<T, F>(&self, work: F) -> impl Future<Output = T> + Send
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        std::future::ready(work())
    }
}
