//! The initialize era's GET stream on an async runtime (2025-11-25
//! `basic/transports.mdx` § Listening for Messages from the Server): an
//! SSE stream the client opens with `GET` on the endpoint, on which the
//! server may send requests and notifications unrelated to any POST.
//!
//! No task of its own reads it: [`GetStream::poll`] is polled beside
//! whatever the transport waits for (a POST's answer, or the next message
//! in `receive`), so a server request on it is seen while the POST that
//! waits for its answer is read. The open connection, the decoders and
//! the resumption state are plain fields; the transport does the
//! connecting.
//!
//! A 2025-11-25 server may close the stream to have the client poll
//! (§ Resumability and Redelivery: it sends an event id, maybe a
//! `retry`, then closes). A stream that ends after an event id is
//! reopened after the `retry` delay with `Last-Event-ID`; one that ends
//! without (or is refused, 405) is not.

use std::task::{Context, Poll};
use std::time::Duration;

use snodo_driver::{Read, Timer};
use snodo_proto::client::http::{ResponseDecoder, ResponseEvent, ResponseLimits};
use snodo_proto::client::sse::{SseDecoder, SseLimits};

use crate::runtime::{ClientRuntime, Reader, Writer};

/// How long to wait before reopening when the server gave no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// The largest piece read at once.
const CHUNK: usize = 16 << 10;

/// What [`GetStream::poll`] saw.
#[derive(Debug)]
pub(crate) enum GetEvent {
    /// JSON-RPC messages (each an event's data).
    Messages(Vec<Vec<u8>>),
    /// The stream closed for polling and the `retry` delay is over:
    /// reopen it with [`GetStream::last_event_id`].
    Reopen,
    /// The stream is over for good (refused, or ended without an event
    /// id to resume from): drop it.
    Closed,
}

/// A GET as the transport opened it.
pub(crate) enum GetConnection {
    /// An HTTP/1.1 connection with the GET written on it.
    Http1(Reader, Writer),
    /// An HTTP/2 stream the GET was sent on.
    #[cfg(feature = "http2")]
    Http2(crate::http2::Response),
}

/// Where the stream stands.
enum State<R: ClientRuntime> {
    /// A connection whose answer is being read.
    Open(Box<Connection>),
    /// Closed by the server after an event id: reopen when the timer fires.
    Waiting(R::Timer),
    /// Over.
    Closed,
}

/// Where one GET's answer comes from.
enum Source {
    Http1 {
        reader: Reader,
        /// Kept so the connection stays open.
        _writer: Writer,
        decoder: ResponseDecoder,
    },
    #[cfg(feature = "http2")]
    Http2(crate::http2::Response),
}

impl Source {
    /// The answer's next event; `Err` when it cannot be read on, `None`
    /// at the connection's end after the answer's.
    fn poll_event(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<ResponseEvent, ()>>> {
        match self {
            Source::Http1 {
                reader, decoder, ..
            } => loop {
                if let Some(event) = decoder.poll() {
                    return Poll::Ready(Some(event.map_err(|_| ())));
                }
                if decoder.is_done() {
                    return Poll::Ready(None);
                }
                let mut read = Vec::new();
                match reader.poll_read_with(cx, CHUNK, &mut |b| read.extend_from_slice(b)) {
                    Poll::Pending => return Poll::Pending,
                    // The end: the decoder ends the answer or says it was
                    // cut short.
                    Poll::Ready(Ok(0)) | Poll::Ready(Err(_)) => decoder.close(),
                    Poll::Ready(Ok(_)) => decoder.push(&read),
                }
            },
            #[cfg(feature = "http2")]
            Source::Http2(response) => response
                .poll_event(cx)
                .map(|event| Some(event.map_err(|_| ()))),
        }
    }
}

/// One GET's connection and its decoders.
struct Connection {
    source: Source,
    sse: SseDecoder,
    /// The head said `200 text/event-stream`.
    offered: bool,
}

/// An open (or reopenable) GET stream.
pub(crate) struct GetStream<R: ClientRuntime> {
    state: State<R>,
    sse_limits: SseLimits,
    /// The id of the last event received (SSE's last event ID buffer).
    last_event_id: Option<String>,
    /// The server's last `retry`.
    retry: Duration,
}

impl<R: ClientRuntime> GetStream<R> {
    /// A stream whose GET went out on `connection`; its head is not
    /// waited for (servers on the released TypeScript SDK send it only
    /// with the first event).
    pub(crate) fn opened(connection: GetConnection, sse_limits: SseLimits) -> Self {
        let mut stream = GetStream {
            state: State::Closed,
            sse_limits,
            last_event_id: None,
            retry: DEFAULT_RETRY,
        };
        stream.reopened(connection);
        stream
    }

    /// The GET sent again (with `Last-Event-ID`) on a new connection (or
    /// stream).
    pub(crate) fn reopened(&mut self, connection: GetConnection) {
        let source = match connection {
            GetConnection::Http1(reader, writer) => Source::Http1 {
                reader,
                _writer: writer,
                decoder: ResponseDecoder::new("GET", ResponseLimits::default()),
            },
            #[cfg(feature = "http2")]
            GetConnection::Http2(response) => Source::Http2(response),
        };
        self.state = State::Open(Box::new(Connection {
            source,
            sse: SseDecoder::new(self.sse_limits),
            offered: false,
        }));
    }

    /// The id to send as `Last-Event-ID` when reopening.
    pub(crate) fn last_event_id(&self) -> Option<&str> {
        self.last_event_id.as_deref()
    }

    /// Read what is there; ready with messages, a due reopening, or the
    /// end.
    pub(crate) fn poll(&mut self, runtime: &R, cx: &mut Context<'_>) -> Poll<GetEvent> {
        loop {
            let mut conn = match std::mem::replace(&mut self.state, State::Closed) {
                State::Closed => return Poll::Ready(GetEvent::Closed),
                State::Waiting(mut timer) => {
                    return match timer.poll_fired(cx) {
                        Poll::Ready(()) => Poll::Ready(GetEvent::Reopen),
                        Poll::Pending => {
                            self.state = State::Waiting(timer);
                            Poll::Pending
                        }
                    };
                }
                State::Open(conn) => conn,
            };
            let mut messages = Vec::new();
            let mut ended = false;
            // Until the source has nothing more now, or messages came
            // (the rest is read at the next poll).
            while messages.is_empty() {
                match conn.source.poll_event(cx) {
                    Poll::Pending => break,
                    Poll::Ready(event) => {
                        if self.take(event, &mut conn, &mut messages) {
                            ended = true;
                            break;
                        }
                    }
                }
            }
            if ended {
                self.state = self.after_end(runtime, conn.offered);
            } else {
                self.state = State::Open(conn);
                if messages.is_empty() {
                    return Poll::Pending;
                }
            }
            if !messages.is_empty() {
                return Poll::Ready(GetEvent::Messages(messages));
            }
        }
    }

    /// Take one event of the answer: its messages into `messages`;
    /// whether the answer is over.
    fn take(
        &mut self,
        event: Option<Result<ResponseEvent, ()>>,
        conn: &mut Connection,
        messages: &mut Vec<Vec<u8>>,
    ) -> bool {
        match event {
            None | Some(Err(())) | Some(Ok(ResponseEvent::End)) => true,
            Some(Ok(ResponseEvent::Head(head))) => {
                conn.offered =
                    head.status == 200 && head.media_type().as_deref() == Some("text/event-stream");
                !conn.offered
            }
            Some(Ok(ResponseEvent::Data(data))) => {
                conn.sse.push(&data);
                while let Some(event) = conn.sse.next_event() {
                    let Ok(event) = event else {
                        return true;
                    };
                    if let Some(id) = event.id {
                        self.last_event_id = Some(id);
                    }
                    if let Some(ms) = event.retry {
                        self.retry = Duration::from_millis(ms);
                    }
                    // An empty event (a priming event carrying only an id)
                    // is not a message.
                    if !event.data.trim().is_empty() {
                        messages.push(event.data.into_bytes());
                    }
                }
                false
            }
        }
    }

    /// What follows a connection whose answer is over: a wait to reopen
    /// if it was an event stream with an id to resume from, else the end.
    fn after_end(&self, runtime: &R, offered: bool) -> State<R> {
        if offered && self.last_event_id.is_some() {
            State::Waiting(runtime.timer(runtime.now() + self.retry))
        } else {
            State::Closed
        }
    }
}
