//! tokio as a [`ClientRuntime`] (feature `tokio`).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::process::{Command, Stdio};

use snodo_tokio::{Io, Tokio};
use tokio::net::TcpStream;
use tokio::process::Child;

use crate::runtime::{ChildProcess, ClientRuntime, Reader, Writer};

impl ChildProcess for Child {
    fn has_exited(&mut self) -> bool {
        !matches!(self.try_wait(), Ok(None))
    }

    fn kill(&mut self) {
        let _ = self.start_kill();
    }
}

impl ClientRuntime for Tokio {
    async fn connect(&self, addrs: Vec<SocketAddr>) -> io::Result<(Reader, Writer)> {
        let stream = TcpStream::connect(&addrs[..]).await?;
        let _ = stream.set_nodelay(true);
        let (r, w) = stream.into_split();
        Ok((Reader(Box::new(Io(r))), Writer(Box::new(Io(w)))))
    }

    fn spawn_process(
        &self,
        command: Command,
    ) -> io::Result<(Box<dyn ChildProcess>, Writer, Reader)> {
        let mut command = tokio::process::Command::from(command);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        let stdin = child.stdin.take().ok_or(io::ErrorKind::BrokenPipe)?;
        let stdout = child.stdout.take().ok_or(io::ErrorKind::BrokenPipe)?;
        Ok((
            Box::new(child),
            Writer(Box::new(Io(stdin))),
            Reader(Box::new(Io(stdout))),
        ))
    }

    fn unblock<T, F>(&self, work: F) -> impl Future<Output = T> + Send
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let task = tokio::task::spawn_blocking(work);
        async move {
            match task.await {
                Ok(value) => value,
                Err(e) => std::panic::resume_unwind(e.into_panic()),
            }
        }
    }
}
