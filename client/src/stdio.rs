//! stdio: the client spawns the server and speaks one JSON-RPC message per
//! line on its stdin and stdout (`basic/transports/stdio.mdx`); the
//! server's stderr is passed through to the client's.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use snodo_proto::client::{Client, Transmit};
use snodo_proto::stdio::{Line, LineFramer};

use crate::error::TransportError;
use crate::session::{Pump, Transport};

/// The longest line read from the server (a larger one is skipped).
const MAX_LINE: usize = 16 << 20;

/// A spawned server process.
#[derive(Debug)]
pub struct StdioTransport {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Option<Vec<u8>>>,
    timeout: Duration,
    probe_wait: Duration,
}

/// How long the connect probe waits on stdio by default before taking the
/// server for one of the initialize era (`basic/transports/stdio.mdx`
/// § Backward Compatibility: "a reasonable timeout").
pub const DEFAULT_PROBE_WAIT: Duration = Duration::from_secs(2);

impl StdioTransport {
    /// Spawn `command` with piped stdin and stdout and inherited stderr.
    /// Its stdout is read on a thread of its own, line by line.
    pub fn spawn(mut command: Command) -> Result<Self, TransportError> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = command.spawn()?;
        let stdin = child.stdin.take();
        let mut stdout = child.stdout.take().ok_or(TransportError::Closed)?;
        let (tx, lines) = mpsc::channel();
        std::thread::Builder::new()
            .name(String::from("snodo-client-stdio"))
            .spawn(move || {
                let mut framer = LineFramer::new(MAX_LINE);
                let mut buf = vec![0u8; 16 << 10];
                loop {
                    let n = match stdout.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    framer.push(&buf[..n]);
                    while let Some(line) = framer.next_line() {
                        if let Line::Message(bytes) = line {
                            if tx.send(Some(bytes.to_vec())).is_err() {
                                return;
                            }
                        }
                    }
                }
                let _ = tx.send(None);
            })?;
        Ok(StdioTransport {
            child,
            stdin,
            lines,
            timeout: Duration::from_secs(60),
            probe_wait: DEFAULT_PROBE_WAIT,
        })
    }

    /// The longest the connect probe (`server/discover`) waits for an
    /// answer before the client falls back to `initialize` (default
    /// [`DEFAULT_PROBE_WAIT`]): a legacy server may answer nothing to a
    /// request before `initialize` (`basic/transports/stdio.mdx`
    /// § Backward Compatibility). Never longer than the
    /// [timeout](Self::with_timeout). It applies only when the
    /// configuration lists an initialize-era revision to fall back to;
    /// otherwise the probe waits the timeout like any request.
    pub fn with_probe_wait(mut self, wait: Duration) -> Self {
        self.probe_wait = wait;
        self
    }

    /// The longest wait for the server's next line (default 60 s).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl Transport for StdioTransport {
    fn send(
        &mut self,
        transmit: Transmit,
        _client: &mut Client,
        _pump: Pump<'_>,
    ) -> Result<(), TransportError> {
        let stdin = self.stdin.as_mut().ok_or(TransportError::Closed)?;
        let mut line = transmit.body;
        line.push(b'\n');
        stdin.write_all(&line)?;
        stdin.flush()?;
        Ok(())
    }

    fn probe_wait(&self) -> Option<Duration> {
        Some(self.probe_wait.min(self.timeout))
    }

    fn receive_within(
        &mut self,
        client: &mut Client,
        wait: Duration,
    ) -> Result<Option<bool>, TransportError> {
        match self.lines.recv_timeout(wait.min(self.timeout)) {
            Ok(Some(line)) => {
                let _ = client.handle_message(&line);
                Ok(Some(true))
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => Err(TransportError::Closed),
            Err(RecvTimeoutError::Timeout) => Ok(None),
        }
    }

    fn receive(&mut self, client: &mut Client) -> Result<bool, TransportError> {
        match self.lines.recv_timeout(self.timeout) {
            Ok(Some(line)) => {
                // Not JSON-RPC, or a stale id: skipped.
                let _ = client.handle_message(&line);
                Ok(true)
            }
            Ok(None) | Err(RecvTimeoutError::Disconnected) => Err(TransportError::Closed),
            Err(RecvTimeoutError::Timeout) => Err(TransportError::Io(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "no message from the server",
            ))),
        }
    }
}

impl Drop for StdioTransport {
    /// § Shutdown: close the server's stdin, give it a moment to exit,
    /// then kill it.
    fn drop(&mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
