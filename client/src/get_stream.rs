//! The initialize era's GET stream (2025-11-25 `basic/transports.mdx`
//! § Listening for Messages from the Server): an SSE stream the client
//! opens with `GET` on the endpoint, on which the server may send requests
//! and notifications unrelated to any POST. Servers built on the released
//! TypeScript SDK send their elicitation and sampling requests there.
//!
//! A thread of its own reads it and forwards each message's JSON; the
//! transport drains them while it waits on a POST (the server's request
//! may be what that POST's answer waits for) and between calls.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};

use crate::tls::Conn;
use std::sync::mpsc::{self, Receiver, TryRecvError};

use snodo_proto::client::http::{ResponseDecoder, ResponseEvent, ResponseLimits};
use snodo_proto::client::sse::{SseDecoder, SseLimits};

use crate::error::TransportError;

/// An open GET stream. Dropping it closes the connection.
#[derive(Debug)]
pub(crate) struct GetStream {
    messages: Receiver<Vec<u8>>,
    socket: TcpStream,
}

impl GetStream {
    /// Send `request` (a GET head) on `stream` and read the answer on a
    /// thread of its own: the head, then, on `200 text/event-stream`, each
    /// event. The head is not waited for here: servers on the released
    /// TypeScript SDK send it only with the stream's first event, so
    /// waiting would hold the session until the server had something to
    /// say. A server that offers no stream (405, or any answer that is not
    /// an event stream) ends the thread, and the stream is then simply
    /// empty.
    pub(crate) fn open(
        mut stream: Conn,
        request: &[u8],
        sse_limits: SseLimits,
    ) -> Result<GetStream, TransportError> {
        stream.write_all(request)?;
        // The stream is long-lived: no read timeout on it.
        stream.socket().set_read_timeout(None)?;
        let socket = stream.socket().try_clone()?;
        let (tx, messages) = mpsc::channel();
        std::thread::Builder::new()
            .name(String::from("snodo-client-get"))
            .spawn(move || {
                let mut decoder = ResponseDecoder::new("GET", ResponseLimits::default());
                let mut sse = SseDecoder::new(sse_limits);
                let mut buf = vec![0u8; 16 << 10];
                loop {
                    while let Some(event) = decoder.poll() {
                        match event {
                            Ok(ResponseEvent::Head(head)) => {
                                let offered = head.status == 200
                                    && head.media_type().as_deref() == Some("text/event-stream");
                                if !offered {
                                    return;
                                }
                            }
                            Ok(ResponseEvent::Data(data)) => sse.push(&data),
                            Ok(ResponseEvent::End) | Err(_) => return,
                        }
                        while let Some(event) = sse.next_event() {
                            let Ok(event) = event else { return };
                            if tx.send(event.data.into_bytes()).is_err() {
                                return;
                            }
                        }
                    }
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => decoder.push(&buf[..n]),
                    }
                }
            })?;
        Ok(GetStream { messages, socket })
    }

    /// The messages that arrived so far; `None` once the stream closed
    /// and everything was taken.
    pub(crate) fn drain(&self) -> Option<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        loop {
            match self.messages.try_recv() {
                Ok(m) => out.push(m),
                Err(TryRecvError::Empty) => return Some(out),
                Err(TryRecvError::Disconnected) if out.is_empty() => return None,
                Err(TryRecvError::Disconnected) => return Some(out),
            }
        }
    }

    /// Wait up to `timeout` for one message.
    pub(crate) fn next(&self, timeout: std::time::Duration) -> Option<Vec<u8>> {
        self.messages.recv_timeout(timeout).ok()
    }
}

impl Drop for GetStream {
    fn drop(&mut self) {
        let _ = self.socket.shutdown(Shutdown::Both);
    }
}
