//! stdio on an async runtime: the client spawns the server and speaks one
//! JSON-RPC message per line on its stdin and stdout
//! (`basic/transports/stdio.mdx`); the server's stderr is passed through.

use std::collections::VecDeque;
use std::process::Command;
use std::time::Duration;

use snodo_proto::client::{Client, Transmit};
use snodo_proto::stdio::{Line, LineFramer};

use crate::async_session::{AsyncPump as Pump, AsyncTransport};
use crate::error::TransportError;
use crate::runtime::{read_chunk, write_all, ChildProcess, ClientRuntime, Reader, Writer};

/// The longest line read from the server (a longer one is skipped).
const MAX_LINE: usize = 16 << 20;

/// A spawned server process, on runtime `R`.
pub struct AsyncStdioTransport<R: ClientRuntime> {
    runtime: R,
    child: Box<dyn ChildProcess>,
    stdin: Writer,
    stdout: Reader,
    framer: LineFramer,
    lines: VecDeque<Vec<u8>>,
    buf: Vec<u8>,
    timeout: Duration,
    probe_wait: Duration,
}

impl<R: ClientRuntime> std::fmt::Debug for AsyncStdioTransport<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncStdioTransport")
            .field("lines", &self.lines.len())
            .finish_non_exhaustive()
    }
}

impl<R: ClientRuntime> AsyncStdioTransport<R> {
    /// Spawn `command` on `runtime`, with piped stdin and stdout and
    /// inherited stderr. The process is killed when the transport is
    /// dropped; [`close`](Self::close) first gives it the chance to exit
    /// on its own (§ Shutdown).
    pub fn spawn(runtime: R, command: Command) -> Result<Self, TransportError> {
        let (child, stdin, stdout) = runtime.spawn_process(command)?;
        Ok(AsyncStdioTransport {
            runtime,
            child,
            stdin,
            stdout,
            framer: LineFramer::new(MAX_LINE),
            lines: VecDeque::new(),
            buf: Vec::new(),
            timeout: Duration::from_secs(60),
            probe_wait: crate::stdio::DEFAULT_PROBE_WAIT,
        })
    }

    /// [`StdioTransport::with_probe_wait`](crate::StdioTransport::with_probe_wait):
    /// the longest the connect probe waits before the client falls back
    /// to `initialize` (default [`DEFAULT_PROBE_WAIT`](crate::DEFAULT_PROBE_WAIT)).
    pub fn with_probe_wait(mut self, wait: Duration) -> Self {
        self.probe_wait = wait;
        self
    }

    /// The longest wait for the server's next whole line, however its
    /// bytes trickle in (default 60 s).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// § Shutdown: close the server's stdin and wait up to `grace` for it
    /// to exit, then kill it.
    pub async fn close(mut self, grace: Duration) {
        let _ = std::future::poll_fn(|cx| self.stdin.0.poll_shutdown(cx)).await;
        let deadline = self.runtime.now() + grace;
        while !self.child.has_exited() && self.runtime.now() < deadline {
            crate::runtime::sleep(&self.runtime, Duration::from_millis(20)).await;
        }
        self.child.kill();
    }
}

impl<R: ClientRuntime> AsyncTransport for AsyncStdioTransport<R> {
    async fn send(
        &mut self,
        transmit: Transmit,
        _client: &mut Client,
        _pump: Pump<'_>,
    ) -> Result<(), TransportError> {
        let mut line = transmit.body;
        line.push(b'\n');
        write_all(&mut self.stdin, &line).await?;
        Ok(())
    }

    async fn close(&mut self, _client: &Client) -> Result<(), TransportError> {
        Ok(())
    }

    fn sleep(&self, duration: Duration) -> impl std::future::Future<Output = ()> + Send {
        let runtime = self.runtime.clone();
        async move { crate::runtime::sleep(&runtime, duration).await }
    }

    fn probe_wait(&self) -> Option<Duration> {
        Some(self.probe_wait.min(self.timeout))
    }

    async fn receive_within(
        &mut self,
        client: &mut Client,
        wait: Duration,
    ) -> Result<Option<bool>, TransportError> {
        let deadline = self.runtime.now() + wait.min(self.timeout);
        match self.receive_by(client, deadline).await {
            Err(TransportError::Io(e)) if e.kind() == std::io::ErrorKind::TimedOut => Ok(None),
            other => other.map(Some),
        }
    }

    async fn receive(&mut self, client: &mut Client) -> Result<bool, TransportError> {
        // One deadline for the whole line: a server that trickles bytes
        // without ending it does not hold the client past it.
        let deadline = self.runtime.now() + self.timeout;
        self.receive_by(client, deadline).await
    }
}

impl<R: ClientRuntime> AsyncStdioTransport<R> {
    /// The next whole line, by `deadline`, fed to `client`.
    async fn receive_by(
        &mut self,
        client: &mut Client,
        deadline: std::time::Instant,
    ) -> Result<bool, TransportError> {
        loop {
            if let Some(line) = self.lines.pop_front() {
                // Not JSON-RPC, or a stale id: skipped.
                let _ = client.handle_message(&line);
                return Ok(true);
            }
            read_chunk(&self.runtime, &mut self.stdout, &mut self.buf, deadline).await?;
            if self.buf.is_empty() {
                return Err(TransportError::Closed);
            }
            self.framer.push(&self.buf);
            while let Some(line) = self.framer.next_line() {
                if let Line::Message(bytes) = line {
                    self.lines.push_back(bytes.to_vec());
                }
            }
        }
    }
}
