//! The subprocess transport: a real server binary speaking newline-delimited
//! JSON-RPC on its stdin/stdout (`basic/transports/stdio.mdx`).
//!
//! A reader thread splits stdout into lines and keeps a transcript of all of
//! them, so a test can check afterwards that stdout carried nothing but
//! JSON-RPC messages. stderr is drained into a buffer that failure reports
//! quote. Every wait is bounded: a server that stops answering fails the
//! test instead of hanging it.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::transport::{check_message_in, Transport};

/// How long to wait for any one message before declaring the server stuck.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// One event from the stdout reader.
#[derive(Debug)]
enum StdoutEvent {
    /// A complete line, without its `\n`.
    Line(Vec<u8>),
    /// Bytes after the last newline when stdout closed: a message cut short.
    Unterminated(Vec<u8>),
    /// stdout closed.
    Eof,
}

/// A running server process.
pub struct StdioProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<StdoutEvent>,
    transcript: Arc<Mutex<Vec<Vec<u8>>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    readers: Vec<JoinHandle<()>>,
    eof: bool,
    sync: u64,
    label: String,
    /// Per-message wait limit.
    pub timeout: Duration,
    /// The client opened an initialize-era session: the server may send
    /// it requests of its own.
    pub session: bool,
}

impl StdioProcess {
    /// Start `program` with `args`, stdin/stdout/stderr piped.
    pub fn spawn(program: &Path, args: &[&str]) -> StdioProcess {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr_pipe = child.stderr.take().expect("piped stderr");

        let (tx, rx) = mpsc::channel();
        let transcript = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&transcript);
        let out_reader = std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match r.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(StdoutEvent::Eof);
                        return;
                    }
                    Ok(_) => {
                        log.lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push(line.clone());
                        let event = if line.last() == Some(&b'\n') {
                            line.pop();
                            StdoutEvent::Line(line)
                        } else {
                            StdoutEvent::Unterminated(line)
                        };
                        if tx.send(event).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let err_log = Arc::clone(&stderr);
        let err_reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr_pipe.read(&mut buf) {
                if n == 0 {
                    return;
                }
                err_log
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend_from_slice(&buf[..n]);
            }
        });
        StdioProcess {
            child,
            stdin,
            lines: rx,
            transcript,
            stderr,
            readers: vec![out_reader, err_reader],
            eof: false,
            sync: 0,
            label: format!("stdio subprocess ({})", args.join(" ")),
            timeout: DEFAULT_TIMEOUT,
            session: false,
        }
    }

    /// Write raw bytes to the server's stdin.
    pub fn write_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is still open");
        if let Err(e) = stdin.write_all(bytes).and_then(|_| stdin.flush()) {
            panic!("writing to the server failed: {e}{}", self.stderr_note());
        }
    }

    /// The next message, checked for JSON-RPC shape; `None` at end of output.
    pub fn next_message(&mut self) -> Option<Value> {
        if self.eof {
            return None;
        }
        match self.lines.recv_timeout(self.timeout) {
            Ok(StdoutEvent::Line(bytes)) => {
                let text = String::from_utf8(bytes).unwrap_or_else(|e| {
                    panic!(
                        "server wrote non-UTF-8 on stdout: {e}{}",
                        self.stderr_note()
                    )
                });
                match check_message_in(&text, self.session) {
                    Ok(v) => Some(v),
                    Err(e) => panic!(
                        "server wrote an invalid message on stdout: {e}{}",
                        self.stderr_note()
                    ),
                }
            }
            Ok(StdoutEvent::Unterminated(bytes)) => panic!(
                "stdout ended inside a line (messages are newline-terminated): {:?}{}",
                String::from_utf8_lossy(&bytes),
                self.stderr_note()
            ),
            Ok(StdoutEvent::Eof) | Err(RecvTimeoutError::Disconnected) => {
                self.eof = true;
                None
            }
            Err(RecvTimeoutError::Timeout) => panic!(
                "no message from the server within {:?}{}",
                self.timeout,
                self.stderr_note()
            ),
        }
    }

    /// Close stdin (EOF for the server).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Every message written until stdout closes.
    pub fn read_to_end(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        while let Some(v) = self.next_message() {
            out.push(v);
        }
        out
    }

    /// Wait for the process to exit, killing it after `limit`.
    pub fn wait(&mut self, limit: Duration) -> ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return status,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Ok(None) => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    panic!(
                        "the server did not exit within {limit:?}{}",
                        self.stderr_note()
                    );
                }
                Err(e) => panic!("waiting for the server: {e}"),
            }
        }
    }

    /// Close stdin, expect no further output and exit status 0
    /// (`basic/transports/stdio.mdx` § Shutdown: exit promptly at EOF), then
    /// check that every line stdout ever carried is a JSON-RPC message.
    pub fn finish(mut self) {
        self.close_stdin();
        assert_eq!(
            self.read_to_end(),
            Vec::<Value>::new(),
            "nothing after the last answer"
        );
        let status = self.wait(Duration::from_secs(10));
        assert!(
            status.success(),
            "exit status {status}; stderr:\n{}",
            self.stderr()
        );
        self.assert_stdout_is_jsonrpc();
    }

    /// `basic/transports/stdio.mdx`: the server MUST NOT write anything to
    /// stdout that is not a valid MCP message; one message per line.
    pub fn assert_stdout_is_jsonrpc(&self) {
        let lines = self.transcript();
        assert!(!lines.is_empty(), "the server wrote something");
        for raw in lines {
            assert_eq!(raw.last(), Some(&b'\n'), "every line ends with a newline");
            let text = std::str::from_utf8(&raw[..raw.len() - 1]).expect("stdout is UTF-8");
            assert!(
                !text.contains('\n') && !text.ends_with('\r'),
                "one message per line: {text:?}"
            );
            if let Err(e) = check_message_in(text, self.session) {
                panic!("stdout line is not a JSON-RPC message: {e}");
            }
        }
    }

    /// Every line stdout carried so far, raw, newline included.
    pub fn transcript(&self) -> Vec<Vec<u8>> {
        self.transcript
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// What the server wrote on stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }

    fn stderr_note(&self) -> String {
        let s = self.stderr();
        if s.is_empty() {
            String::new()
        } else {
            let tail: String = s
                .chars()
                .rev()
                .take(2000)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            format!("\n--- server stderr (tail) ---\n{tail}")
        }
    }

    /// Send a request that is answered inline by the engine and read until
    /// its response, returning everything that came before it. Lines are
    /// processed in order, so anything the earlier input made the server
    /// write synchronously has been written by then.
    fn sync(&mut self) -> Vec<Value> {
        self.sync += 1;
        let id = format!("snodo-tests-sync-{}", self.sync);
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":\"{id}\",\"method\":\"server/discover\",\"params\":{{\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}}}}}\n"
        );
        self.write_raw(line.as_bytes());
        let mut before = Vec::new();
        loop {
            let Some(v) = self.next_message() else {
                panic!(
                    "stdout closed before the sync response{}",
                    self.stderr_note()
                );
            };
            if v.get("id").and_then(Value::as_str) == Some(id.as_str()) {
                assert!(v.get("result").is_some(), "sync request failed: {v}");
                return before;
            }
            before.push(v);
        }
    }
}

impl Transport for StdioProcess {
    fn exchange(&mut self, request: &str, responses: usize) -> Vec<Value> {
        let mut bytes = Vec::with_capacity(request.len() + 1);
        bytes.extend_from_slice(request.as_bytes());
        bytes.push(b'\n');
        self.write_raw(&bytes);
        let mut out = Vec::new();
        let mut seen = 0;
        while seen < responses {
            let Some(v) = self.next_message() else {
                panic!(
                    "stdout closed after {seen} of {responses} responses{}",
                    self.stderr_note()
                );
            };
            if v.get("result").is_some() || v.get("error").is_some() {
                seen += 1;
            }
            out.push(v);
        }
        out.extend(self.sync());
        out
    }

    fn name(&self) -> String {
        self.label.clone()
    }
}

impl Drop for StdioProcess {
    fn drop(&mut self) {
        self.stdin = None;
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        for r in self.readers.drain(..) {
            let _ = r.join();
        }
    }
}
