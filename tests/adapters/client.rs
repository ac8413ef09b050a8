//! The client side, on plain blocking sockets and pipes, the same for
//! every runtime: literal bytes out, raw bytes back. Nothing here knows
//! the protocol beyond splitting lines and HTTP messages.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::marker::PhantomData;
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use serde_json::Value;
use snodo_proto::{Service, Transport};
use snodo_tokio::{Options, Shutdown};

use crate::harness::{Rt, Served};
use crate::pipe::{pipe, PipeReader, PipeWriter};
use crate::service::SOON;

/// Parse a literal expected message.
pub fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("bad literal ({e}): {text}"))
}

/// A stdio server on in-memory pipes, and the client's ends of them.
pub struct Stdio {
    input: Option<PipeWriter>,
    output: Option<PipeReader>,
    lines: Option<Receiver<String>>,
    pub served: Served,
}

impl Stdio {
    /// Serve `service` on `R` over pipes of 64 KiB each way.
    pub fn start<R: Rt>(service: &Service, options: Options) -> Stdio {
        Stdio::start_with::<R>(service, options, 64 * 1024)
    }

    /// [`Stdio::start`] with the server's output pipe holding `output` bytes.
    pub fn start_with<R: Rt>(service: &Service, options: Options, output: usize) -> Stdio {
        let (input, server_in) = pipe(64 * 1024);
        let (server_out, client_out) = pipe(output);
        let served = R::stdio(
            service.clone(),
            options,
            Box::new(server_in),
            Box::new(server_out),
        );
        Stdio {
            input: Some(input),
            output: Some(client_out),
            lines: None,
            served,
        }
    }

    /// Write `text` as is, in one write.
    pub fn send_raw(&mut self, text: &str) {
        let input = self.input.as_mut().expect("input is open");
        input
            .write_all(text.as_bytes())
            .expect("the server's input is open");
    }

    /// Write one message and its newline, in one write.
    pub fn send(&mut self, line: &str) {
        assert!(!line.contains('\n'), "one message per line");
        self.send_raw(&format!("{line}\n"));
    }

    /// A writer to the server's input for another thread.
    pub fn take_input(&mut self) -> PipeWriter {
        self.input.take().expect("input is open")
    }

    /// Close the server's input: end of input.
    pub fn close_input(&mut self) {
        self.input = None;
    }

    /// Stop reading the server's output for good: its writes fail.
    pub fn close_output(&mut self) {
        assert!(self.lines.is_none(), "output is being read");
        self.output = None;
    }

    /// Lines of output, read by a thread started on first use: until
    /// then, nothing reads the server's output.
    fn lines(&mut self) -> &Receiver<String> {
        if self.lines.is_none() {
            let output = self.output.take().expect("output is open");
            let (tx, rx) = mpsc::channel();
            thread::spawn(move || {
                let mut output = BufReader::new(output);
                loop {
                    let mut line = String::new();
                    match output.read_line(&mut line) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {
                            assert!(line.ends_with('\n'), "a line ends with a newline: {line:?}");
                            line.pop();
                            if tx.send(line).is_err() {
                                return;
                            }
                        }
                    }
                }
            });
            self.lines = Some(rx);
        }
        self.lines.as_ref().expect("just set")
    }

    fn next_within(&mut self, limit: Duration) -> Result<Value, RecvTimeoutError> {
        let line = self.lines().recv_timeout(limit)?;
        Ok(serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carries JSON only ({e}): {line:?}")))
    }

    /// The next message the server writes.
    pub fn recv(&mut self) -> Value {
        match self.next_within(SOON) {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => panic!("no message within {SOON:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server ended its output"),
        }
    }

    /// Nothing is written for `period`.
    pub fn expect_silence(&mut self, period: Duration) {
        match self.next_within(period) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(v) => panic!("expected silence, got {v}"),
            Err(RecvTimeoutError::Disconnected) => panic!("expected silence, got the end"),
        }
    }

    /// The server ends its output with nothing more.
    pub fn expect_end(&mut self) {
        match self.next_within(SOON) {
            Err(RecvTimeoutError::Disconnected) => {}
            Ok(v) => panic!("expected the end of output, got {v}"),
            Err(RecvTimeoutError::Timeout) => panic!("output did not end within {SOON:?}"),
        }
    }

    /// Close the input, expect the output to end with nothing more and the
    /// server to return `Ok`.
    pub fn finish(mut self) {
        self.close_input();
        self.expect_end();
        self.served.within(SOON).expect("the server returns Ok");
    }
}

/// A TCP server under test and how to stop it.
pub struct Server<R> {
    pub addr: SocketAddr,
    pub shutdown: Shutdown,
    pub served: Served,
    rt: PhantomData<R>,
}

impl<R: Rt> Server<R> {
    /// Serve Streamable HTTP.
    pub fn http(service: &Service, options: Options) -> Server<R> {
        Server::tcp(service, options, Transport::Http)
    }

    /// Serve `transport` over TCP.
    pub fn tcp(service: &Service, options: Options, transport: Transport) -> Server<R> {
        let shutdown = Shutdown::new();
        let (addr, served) = R::tcp(service.clone(), options, transport, shutdown.clone());
        Server {
            addr,
            shutdown,
            served,
            rt: PhantomData,
        }
    }

    pub fn connect(&self) -> Client {
        Client::connect(self.addr)
    }

    /// Shut down and expect `serve_http` to return `Ok` soon.
    pub fn finish(self) {
        self.shutdown.shutdown();
        self.served.within(SOON).expect("the server returns Ok");
    }
}

/// A raw TCP client.
pub struct Client {
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl Client {
    pub fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).expect("connect to the server");
        stream.set_read_timeout(Some(SOON)).unwrap();
        Client {
            stream,
            buf: Vec::new(),
        }
    }

    /// A client that will not read: its receive buffer is the smallest
    /// the kernel allows, so what the server writes backs up at once.
    pub fn connect_unread(addr: SocketAddr) -> Client {
        let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)
            .expect("a socket");
        socket.set_recv_buffer_size(4096).expect("SO_RCVBUF");
        socket.connect(&addr.into()).expect("connect to the server");
        let stream: TcpStream = socket.into();
        stream.set_read_timeout(Some(SOON)).unwrap();
        Client {
            stream,
            buf: Vec::new(),
        }
    }

    pub fn send(&mut self, bytes: &str) {
        self.stream
            .write_all(bytes.as_bytes())
            .expect("the request is sent");
    }

    /// Read more into the buffer: the bytes read, 0 at EOF (or a reset).
    fn fill(&mut self) -> usize {
        let mut chunk = [0_u8; 16 * 1024];
        match self.stream.read(&mut chunk) {
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                n
            }
            Err(e) if e.kind() == io::ErrorKind::ConnectionReset => 0,
            Err(e) => panic!(
                "read failed ({e}) after {:?}",
                String::from_utf8_lossy(&self.buf)
            ),
        }
    }

    /// Exactly `expected`, next.
    pub fn expect(&mut self, expected: &str) {
        while self.buf.len() < expected.len() {
            if self.fill() == 0 {
                break;
            }
        }
        let n = expected.len().min(self.buf.len());
        let got: Vec<u8> = self.buf.drain(..n).collect();
        assert_eq!(String::from_utf8_lossy(&got), expected);
    }

    /// Everything up to and including `needle`.
    pub fn read_until(&mut self, needle: &str) -> String {
        let got = self.read_until_or_close(needle);
        assert!(
            got.ends_with(needle),
            "the connection closed before {needle:?}: {got:?}"
        );
        got
    }

    /// Everything up to and including `needle`, or all that came before
    /// the server closed the connection.
    pub fn read_until_or_close(&mut self, needle: &str) -> String {
        let needle = needle.as_bytes();
        let mut searched: usize = 0;
        loop {
            let from = searched.saturating_sub(needle.len());
            if let Some(i) = self.buf[from..]
                .windows(needle.len())
                .position(|w| w == needle)
            {
                let got: Vec<u8> = self.buf.drain(..from + i + needle.len()).collect();
                return String::from_utf8_lossy(&got).into_owned();
            }
            searched = self.buf.len();
            if self.fill() == 0 {
                return String::from_utf8_lossy(&std::mem::take(&mut self.buf)).into_owned();
            }
        }
    }

    /// The head of the next response, up to its blank line.
    pub fn head(&mut self) -> String {
        self.read_until("\r\n\r\n")
    }

    /// Everything until the server closes the connection.
    pub fn read_to_close(&mut self) -> String {
        while self.fill() > 0 {}
        String::from_utf8_lossy(&std::mem::take(&mut self.buf)).into_owned()
    }

    /// The server closes the connection with nothing more.
    pub fn expect_closed(&mut self) {
        assert_eq!(self.read_to_close(), "", "nothing before the close");
    }
}

/// A POST to `/mcp` with the standard headers, `extra` header lines and
/// `body`, of protocol revision 2026-07-28.
pub fn post(extra: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// A POST of an initialize-era session (2025-11-25), naming the session
/// once it has one.
pub fn session_post(session: Option<&str>, body: &str) -> String {
    let sid = session.map_or(String::new(), |s| format!("Mcp-Session-Id: {s}\r\n"));
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n{sid}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// An `application/json` response: `status`, then `extra` header lines.
pub fn json_response(status: &str, extra: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}\r\n{body}",
        body.len()
    )
}

/// The head of an SSE response.
pub const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n";

/// One SSE event carrying `message`, as one HTTP chunk.
pub fn sse_event(message: &str) -> String {
    let data = format!("data: {message}\n\n");
    format!("{:x}\r\n{data}\r\n", data.len())
}

/// The last chunk of a chunked body.
pub const LAST_CHUNK: &str = "0\r\n\r\n";
