//! smol as a [`ClientRuntime`] (feature `smol`).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::process::{Command, Stdio};

use smol::net::TcpStream;
use smol::process::Child;
use snodo_smol::{Io, Smol};

use crate::runtime::{ChildProcess, ClientRuntime, Reader, Writer};

impl ChildProcess for Child {
    fn has_exited(&mut self) -> bool {
        !matches!(self.try_status(), Ok(None))
    }

    fn kill(&mut self) {
        let _ = Child::kill(self);
    }
}

impl ClientRuntime for Smol {
    async fn connect(&self, addrs: Vec<SocketAddr>) -> io::Result<(Reader, Writer)> {
        let stream = TcpStream::connect(&addrs[..]).await?;
        let _ = stream.set_nodelay(true);
        Ok((
            Reader(Box::new(Io(stream.clone()))),
            Writer(Box::new(Io(stream))),
        ))
    }

    fn spawn_process(
        &self,
        command: Command,
    ) -> io::Result<(Box<dyn ChildProcess>, Writer, Reader)> {
        let mut command = smol::process::Command::from(command);
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
        smol::unblock(work)
    }
}
