//! HTTP/2 under the async transports (feature `http2`), on the h2 crate:
//! an `https://` connection whose server picked `h2` by ALPN carries every
//! request of the transport as a stream of its own (RFC 9113), POSTs, the
//! GET stream and the DELETE at once.
//!
//! h2 is sans-executor: its [`Connection`](h2::client::Connection) is a
//! future that reads and writes the socket (frames, HPACK, flow control,
//! SETTINGS, PING, GOAWAY), spawned here with the runtime's own
//! [`spawn_connection`](snodo_driver::Runtime::spawn_connection) (a task
//! on tokio and smol, a thread on plain threads), and its I/O is the
//! runtime's [`Reader`] and [`Writer`] behind tokio's I/O traits (the
//! traits alone, no tokio runtime). So the three runtimes share this one
//! module, and no runtime concern lives anywhere else.
//!
//! A request goes out as the parts the client machine built
//! ([`RequestParts`]); its answer comes back as the machine's
//! [`ResponseEvent`]s (head, DATA payloads, end), the same events the
//! HTTP/1.1 decoder yields, so JSON and SSE answers are read by one code
//! path whatever the version. A reset stream or a GOAWAY is an I/O error
//! that says so, never a hang: every wait is under the request's deadline.

use std::future::{poll_fn, Future};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use h2::client::{ResponseFuture, SendRequest};
use h2::{RecvStream, SendStream};
use snodo_driver::{Read, Write};
use snodo_proto::client::http::{RequestParts, ResponseEvent, ResponseHead};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::runtime::{ClientRuntime, Reader, Writer};

/// The ALPN protocol id of HTTP/2 over TLS (RFC 9113 § 3.2).
pub(crate) const ALPN_H2: &[u8] = b"h2";

/// The largest header block accepted from the server (the HTTP/1.1
/// decoder's head limit): a hostile server cannot make the client hold
/// more.
const MAX_HEADER_LIST: u32 = 64 << 10;

/// One HTTP/2 connection: the handle that opens streams on it (the
/// connection's own future runs on the runtime). Clones are handles to
/// the same connection.
#[derive(Clone)]
pub(crate) struct Connection {
    send: SendRequest<Bytes>,
    /// How the connection ended, once it has: what a stream cut off by
    /// its end says.
    ended: Ended,
}

/// The connection's end as its future saw it (a GOAWAY's reason, say).
type Ended = Arc<Mutex<Option<String>>>;

impl Connection {
    /// The HTTP/2 preface and SETTINGS over `reader`/`writer` (a TLS
    /// connection whose ALPN said `h2`), and the connection's future
    /// spawned on `runtime`. It ends when every handle and stream of it
    /// is dropped, or the server closes it.
    pub(crate) async fn handshake<R: ClientRuntime>(
        runtime: &R,
        reader: Reader,
        writer: Writer,
    ) -> io::Result<Self> {
        let io = Io {
            reader,
            writer,
            spill: Vec::new(),
        };
        let (send, connection) = h2::client::Builder::new()
            .max_header_list_size(MAX_HEADER_LIST)
            .handshake::<_, Bytes>(io)
            .await
            .map_err(|e| error(e, &Ended::default()))?;
        let ended = Ended::default();
        let record = ended.clone();
        runtime.spawn_connection(async move {
            // Its error reaches every open stream; a GOAWAY or protocol
            // error is kept to say why (the socket's end says nothing a
            // stream cut off by it does not).
            if let Err(e) = connection.await {
                if !e.is_io() {
                    let why = error(e, &Ended::default()).to_string();
                    *record.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
                }
            }
        });
        Ok(Connection { send, ended })
    }

    /// Wait until the connection takes a new stream (the server's
    /// `SETTINGS_MAX_CONCURRENT_STREAMS`); an error once it is closed.
    pub(crate) async fn ready(&mut self) -> io::Result<()> {
        let ended = &self.ended;
        poll_fn(|cx| self.send.poll_ready(cx))
            .await
            .map_err(|e| error(e, ended))
    }

    /// Send `parts` on a new stream (its body, if any, with
    /// `END_STREAM`): the stream its answer comes on. Call
    /// [`ready`](Self::ready) first.
    pub(crate) fn send(&mut self, parts: &RequestParts) -> io::Result<Response> {
        let uri = format!("https://{}{}", parts.authority, parts.target);
        let mut request = http::Request::builder()
            .method(parts.method.as_str())
            .uri(uri)
            .version(http::Version::HTTP_2);
        for (name, value) in &parts.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        if let Some(body) = &parts.body {
            request = request.header(http::header::CONTENT_LENGTH, body.len());
        }
        let request = request
            .body(())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let (answer, mut body) = self
            .send
            .send_request(request, parts.body.is_none())
            .map_err(|e| error(e, &self.ended))?;
        if let Some(data) = &parts.body {
            // Queued and sent as the stream's window allows; `END_STREAM`
            // with it.
            body.send_data(Bytes::copy_from_slice(data), true)
                .map_err(|e| error(e, &self.ended))?;
        }
        Ok(Response {
            state: State::Head(answer),
            _request: body,
            ended: self.ended.clone(),
        })
    }
}

/// Where an answer stands.
enum State {
    Head(ResponseFuture),
    Body(RecvStream),
    Done,
}

/// One stream's answer, as the machine's [`ResponseEvent`]s. Dropped
/// before its end, the stream is reset (`CANCEL`): the connection goes on.
pub(crate) struct Response {
    state: State,
    /// The request's half; kept so that dropping the answer, not sending
    /// the request, is what cancels the stream.
    _request: SendStream<Bytes>,
    ended: Ended,
}

impl Response {
    /// The answer's next event: its head (names lower-case), a DATA
    /// payload, then [`ResponseEvent::End`] (and again after it). A reset
    /// stream or a closed connection is an error that says which.
    pub(crate) fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<ResponseEvent>> {
        loop {
            match &mut self.state {
                State::Head(answer) => {
                    let answer = match Pin::new(answer).poll(cx) {
                        Poll::Pending => return Poll::Pending,
                        Poll::Ready(Err(e)) => {
                            self.state = State::Done;
                            return Poll::Ready(Err(error(e, &self.ended)));
                        }
                        Poll::Ready(Ok(answer)) => answer,
                    };
                    let (parts, body) = answer.into_parts();
                    let headers = parts
                        .headers
                        .iter()
                        .map(|(name, value)| {
                            (
                                name.as_str().to_owned(),
                                String::from_utf8_lossy(value.as_bytes()).into_owned(),
                            )
                        })
                        .collect();
                    self.state = State::Body(body);
                    return Poll::Ready(Ok(ResponseEvent::Head(ResponseHead {
                        status: parts.status.as_u16(),
                        headers,
                    })));
                }
                State::Body(body) => match body.poll_data(cx) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Some(Ok(data))) => {
                        // The piece is handed on at once (the exchange
                        // bounds what it keeps), so the window reopens.
                        let _ = body.flow_control().release_capacity(data.len());
                        if data.is_empty() {
                            continue;
                        }
                        return Poll::Ready(Ok(ResponseEvent::Data(data.to_vec())));
                    }
                    Poll::Ready(Some(Err(e))) => {
                        self.state = State::Done;
                        return Poll::Ready(Err(error(e, &self.ended)));
                    }
                    Poll::Ready(None) => {
                        self.state = State::Done;
                        return Poll::Ready(Ok(ResponseEvent::End));
                    }
                },
                State::Done => return Poll::Ready(Ok(ResponseEvent::End)),
            }
        }
    }

    /// [`poll_event`](Self::poll_event) as a future.
    pub(crate) async fn next_event(&mut self) -> io::Result<ResponseEvent> {
        poll_fn(|cx| self.poll_event(cx)).await
    }
}

/// `e` as the `io::Error` the transports carry: the socket's own error
/// (a TLS failure among them) as it was; what h2 itself refused of the
/// server's frames as `InvalidData`; the server's reset or GOAWAY as
/// `ConnectionReset` or `ConnectionAborted`, saying so and with the
/// server's reason code; a stream cut off by the connection's end as
/// `ConnectionAborted`, with how the connection ended when its future
/// has said so (`ended`: a GOAWAY's reason).
fn error(e: h2::Error, ended: &Ended) -> io::Error {
    if e.is_io() {
        let io = e
            .into_io()
            .unwrap_or_else(|| io::Error::other("HTTP/2 I/O"));
        if !matches!(
            io.kind(),
            io::ErrorKind::BrokenPipe | io::ErrorKind::UnexpectedEof
        ) {
            return io;
        }
        let why = ended.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let why = why.map(|w| format!(": {w}")).unwrap_or_default();
        return io::Error::new(
            io::ErrorKind::ConnectionAborted,
            format!("the HTTP/2 connection closed before the answer's end{why}"),
        );
    }
    let reason = e
        .reason()
        .map(|r| format!("{r:?}"))
        .unwrap_or_else(|| String::from("no reason"));
    if e.is_library() {
        // h2 itself reset the stream or closed the connection: what the
        // server sent broke HTTP/2 or the client's limits (a head past
        // `MAX_HEADER_LIST`, say). Not the server's reset, and not one to
        // send again.
        return io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the server's HTTP/2 answer was refused ({reason}): it broke the protocol or the client's limits"),
        );
    }
    if e.is_go_away() {
        // On a stream: one beyond the GOAWAY's last, which the server did
        // not process (one it did goes on to its end, or the close).
        unprocessed(
            io::ErrorKind::ConnectionAborted,
            format!("the server closed the HTTP/2 connection (GOAWAY, {reason})"),
        )
    } else if e.reason() == Some(h2::Reason::REFUSED_STREAM) {
        unprocessed(
            io::ErrorKind::ConnectionReset,
            format!("the server refused the HTTP/2 stream unprocessed ({reason})"),
        )
    } else if e.is_reset() {
        io::Error::new(
            io::ErrorKind::ConnectionReset,
            format!("the server reset the HTTP/2 stream ({reason})"),
        )
    } else {
        io::Error::new(io::ErrorKind::InvalidData, format!("HTTP/2: {e}"))
    }
}

/// A stream the server did not process (RFC 9113 § 8.7: beyond a
/// GOAWAY's last stream, or reset with `REFUSED_STREAM`): it may be sent
/// again on a new connection.
#[derive(Debug)]
struct Unprocessed(String);

impl std::fmt::Display for Unprocessed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unprocessed {}

fn unprocessed(kind: io::ErrorKind, why: String) -> io::Error {
    io::Error::new(kind, Unprocessed(why))
}

/// Whether `e` says the server did not process the stream (so it may go
/// again).
pub(crate) fn is_unprocessed(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<Unprocessed>())
}

/// The runtime's connection halves as tokio's I/O traits, for h2.
struct Io {
    reader: Reader,
    writer: Writer,
    /// What a read took beyond the caller's buffer, handed out first.
    spill: Vec<u8>,
}

impl AsyncRead for Io {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if buf.remaining() == 0 {
            return Poll::Ready(Ok(()));
        }
        if this.spill.is_empty() {
            let room = buf.remaining();
            let spill = &mut this.spill;
            let polled = this.reader.poll_read_with(cx, room, &mut |bytes| {
                spill.extend_from_slice(bytes);
            });
            match polled {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                // The end: nothing put in `buf`.
                Poll::Ready(Ok(_)) if this.spill.is_empty() => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(_)) => {}
            }
        }
        let n = this.spill.len().min(buf.remaining());
        buf.put_slice(&this.spill[..n]);
        this.spill.drain(..n);
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Io {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().writer.poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().writer.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().writer.poll_shutdown(cx)
    }
}
