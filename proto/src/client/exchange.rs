//! One POST of a Streamable HTTP client and its answer, sans-I/O
//! (`basic/transports/streamable-http.mdx` § Sending Messages).
//!
//! Every HTTP transport, blocking or async, does the same with a
//! [`Transmit`]: write a request, read the answer, hand each JSON-RPC
//! message in it to the [`Client`], and stop reading once the round is
//! answered (a server may keep an event stream open after the response,
//! § Sending Messages rule 6). What the answer means lives here, once; a
//! transport only moves the request [`Exchange::start`] gives it and the
//! answer it reads, and acts on the [`Step`] each push returns.
//!
//! HTTP/1.1 is bytes both ways ([`RequestParts::to_http1`],
//! [`Exchange::push`]); a transport whose HTTP library frames the messages
//! itself (HTTP/2) sends the request's parts and feeds the answer's head,
//! body pieces and end ([`Exchange::push_head`],
//! [`Exchange::push_data`], [`Exchange::push_end`]). Both paths meet in
//! one handler of the answer's events, so a JSON or SSE answer means the
//! same whatever the HTTP version.

use alloc::string::String;
use alloc::vec::Vec;

use super::http::{
    HttpError, RequestParts, ResponseDecoder, ResponseEvent, ResponseHead, ResponseLimits,
};
use super::sse::{SseDecoder, SseError, SseLimits};
use super::{Client, Transmit, TransmitKind};

/// Bounds of one exchange's answer: a hostile server cannot make the
/// client hold more than this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExchangeLimits {
    /// The response head.
    pub response: ResponseLimits,
    /// One event of an event stream.
    pub sse: SseLimits,
    /// A JSON body.
    pub max_json: usize,
}

impl Default for ExchangeLimits {
    /// The codec's defaults and a 16 MiB JSON body.
    fn default() -> Self {
        ExchangeLimits {
            response: ResponseLimits::default(),
            sse: SseLimits::default(),
            max_json: 16 << 20,
        }
    }
}

/// What the transport does next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Read more from the connection and [`push`](Exchange::push) it
    /// ([`close`](Exchange::close) at the end of input). Messages fed so
    /// far may have queued transmits (an initialize-era answer to a server
    /// request on this very stream): send those first.
    Read,
    /// The exchange is over. With `reusable`, the connection may carry
    /// the next request (the answer was read to its framed end).
    Done {
        /// The connection can be kept alive.
        reusable: bool,
    },
    /// `401` or `403` and the exchange was started as challengeable: the
    /// body is not read. The transport asks its
    /// [`Authorizer`](super::Authorizer), then either starts a new exchange
    /// for the same transmit with the new credential, or gives up with
    /// [`Exchange::refused`].
    Challenged {
        /// 401 or 403.
        status: u16,
        /// Every `WWW-Authenticate` value, in order.
        www_authenticate: Vec<String>,
    },
}

/// Why an answer could not be read. The machine is not told: the
/// transport's caller reports the error for the operation it was sending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExchangeError {
    /// Not valid HTTP/1.1, or cut short.
    Http(HttpError),
    /// Not a valid event stream, or an event too large.
    Sse(SseError),
    /// A JSON body beyond [`ExchangeLimits::max_json`].
    TooLarge,
    /// A notification or response (no round to fail) was refused with
    /// this status (§ Sending Messages rule 5 asks for 202).
    Status(u16),
}

impl core::fmt::Display for ExchangeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ExchangeError::Http(e) => write!(f, "HTTP: {e:?}"),
            ExchangeError::Sse(e) => write!(f, "event stream: {e:?}"),
            ExchangeError::TooLarge => f.write_str("response body too large"),
            ExchangeError::Status(s) => write!(f, "HTTP status {s}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ExchangeError {}

/// How the body of the answer is read.
#[derive(Debug)]
enum Body {
    /// Not yet known (before the head).
    Unknown,
    Json(Vec<u8>),
    Events(SseDecoder),
    /// Neither JSON nor an event stream (a 202's empty body, an error
    /// page): read to its end and dropped.
    Ignored,
}

/// What a `401` or `403` answer does to an exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OnChallenge {
    /// Hand it back as [`Step::Challenged`]: the transport has an
    /// [`Authorizer`](super::Authorizer) to ask (and has not asked it too
    /// often for this message).
    HandBack,
    /// Fail the round with the status, like any other error status.
    FailTheRound,
}

/// One POST and its answer. See the [module documentation](self).
#[derive(Debug)]
pub struct Exchange {
    /// The JSON-RPC id of the round this answers, for a request.
    round: Option<u64>,
    challengeable: bool,
    decoder: ResponseDecoder,
    body: Body,
    status: u16,
    keep_alive: bool,
    limits: ExchangeLimits,
    finished: bool,
}

impl Exchange {
    /// Start the POST of `transmit` to `target` (path and query) on
    /// `authority` (`host[:port]`), with `authorization` as the
    /// `Authorization` field when given; `on_challenge` says what a 401 or
    /// 403 does. Returns the exchange and the request as its parts: an
    /// HTTP/1.1 transport writes [`RequestParts::to_http1`] and feeds the
    /// bytes it reads to [`push`](Self::push); a transport that frames
    /// messages itself (HTTP/2) sends the parts and feeds the answer's
    /// head, DATA and end to [`push_head`](Self::push_head),
    /// [`push_data`](Self::push_data) and [`push_end`](Self::push_end) (or
    /// [`close`](Self::close) when the stream broke off).
    pub fn start(
        transmit: &Transmit,
        target: &str,
        authority: &str,
        authorization: Option<String>,
        on_challenge: OnChallenge,
        limits: ExchangeLimits,
    ) -> Result<(Exchange, RequestParts), HttpError> {
        let mut headers = transmit.headers.clone();
        if let Some(value) = authorization {
            headers.push((String::from("Authorization"), value));
        }
        let parts = RequestParts::new("POST", target, authority, &headers, Some(&transmit.body))?;
        let round = match transmit.kind {
            TransmitKind::Request { id, .. } => Some(id),
            _ => None,
        };
        let exchange = Exchange {
            round,
            challengeable: on_challenge == OnChallenge::HandBack,
            decoder: ResponseDecoder::new("POST", limits.response),
            body: Body::Unknown,
            status: 0,
            keep_alive: true,
            limits,
            finished: false,
        };
        Ok((exchange, parts))
    }

    /// Bytes read from the connection.
    pub fn push(&mut self, bytes: &[u8], client: &mut Client) -> Result<Step, ExchangeError> {
        if self.finished {
            return Ok(Step::Done { reusable: false });
        }
        self.decoder.push(bytes);
        self.drive(client)
    }

    /// The connection reached its end of input (or failed).
    pub fn close(&mut self, client: &mut Client) -> Result<Step, ExchangeError> {
        if self.finished {
            return Ok(Step::Done { reusable: false });
        }
        self.decoder.close();
        match self.drive(client)? {
            // A close that does not end the answer cut it short; the
            // decoder says so, so this is a head never sent at all.
            Step::Read => self.fail(ExchangeError::Http(HttpError::Truncated)),
            step => Ok(step),
        }
    }

    /// The answer's head, framed by the transport's HTTP library (HTTP/2
    /// HEADERS): its status and fields, names lower-cased.
    pub fn push_head(
        &mut self,
        head: ResponseHead,
        client: &mut Client,
    ) -> Result<Step, ExchangeError> {
        self.push_event(ResponseEvent::Head(head), client)
    }

    /// A piece of the answer's body (an HTTP/2 DATA frame's payload).
    pub fn push_data(&mut self, data: &[u8], client: &mut Client) -> Result<Step, ExchangeError> {
        self.push_event(ResponseEvent::Data(data.to_vec()), client)
    }

    /// The answer's body ended where its framing says (HTTP/2
    /// `END_STREAM`). A stream that broke off instead is a
    /// [`close`](Self::close): the answer was cut short.
    pub fn push_end(&mut self, client: &mut Client) -> Result<Step, ExchangeError> {
        self.push_event(ResponseEvent::End, client)
    }

    fn push_event(
        &mut self,
        event: ResponseEvent,
        client: &mut Client,
    ) -> Result<Step, ExchangeError> {
        if self.finished {
            return Ok(Step::Done { reusable: false });
        }
        if self.status == 0 && !matches!(event, ResponseEvent::Head(_)) {
            // A body before its head: not an answer.
            return self.fail(ExchangeError::Http(HttpError::MalformedHead));
        }
        Ok(self.handle(event, client)?.unwrap_or(Step::Read))
    }

    /// After the caller handled the events of what was pushed (a listener
    /// may have cancelled its subscription, which on HTTP means closing
    /// its stream): [`Step::Done`] when the round no longer waits for this
    /// answer, else [`Step::Read`].
    pub fn settle(&mut self, client: &Client) -> Step {
        if !self.finished && self.round.is_some_and(|id| !client.is_pending(id)) {
            self.finished = true;
        }
        if self.finished {
            Step::Done { reusable: false }
        } else {
            Step::Read
        }
    }

    /// A [`Step::Challenged`] exchange whose authorizer gave up: the round
    /// fails with the status.
    pub fn refused(&mut self, client: &mut Client) -> Result<(), ExchangeError> {
        self.finished = true;
        self.end(client).map(|_| ())
    }

    fn drive(&mut self, client: &mut Client) -> Result<Step, ExchangeError> {
        while let Some(event) = self.decoder.poll() {
            let event = match event {
                Ok(event) => event,
                Err(e) => return self.fail(ExchangeError::Http(e)),
            };
            if let Some(step) = self.handle(event, client)? {
                return Ok(step);
            }
        }
        Ok(Step::Read)
    }

    /// One event of the answer, however it was framed: the step to
    /// return at once, or `None` to read on.
    fn handle(
        &mut self,
        event: ResponseEvent,
        client: &mut Client,
    ) -> Result<Option<Step>, ExchangeError> {
        match event {
            ResponseEvent::Head(head) => {
                self.status = head.status;
                self.keep_alive = !head
                    .get("connection")
                    .is_some_and(|v| v.eq_ignore_ascii_case("close"));
                if self.challengeable && matches!(head.status, 401 | 403) {
                    self.finished = true;
                    return Ok(Some(Step::Challenged {
                        status: head.status,
                        www_authenticate: head.all("www-authenticate"),
                    }));
                }
                client.handle_http_head(self.round, &head);
                self.body = match head.media_type().as_deref() {
                    Some("text/event-stream") => Body::Events(SseDecoder::new(self.limits.sse)),
                    Some("application/json") => Body::Json(Vec::new()),
                    _ => Body::Ignored,
                };
            }
            ResponseEvent::Data(data) => match &mut self.body {
                Body::Json(json) => {
                    if json.len() + data.len() > self.limits.max_json {
                        return self.fail(ExchangeError::TooLarge).map(Some);
                    }
                    json.extend_from_slice(&data);
                }
                Body::Events(sse) => {
                    sse.push(&data);
                    while let Some(event) = sse.next_event() {
                        match event {
                            // A message the machine refuses (not
                            // JSON-RPC, an unknown id) is skipped.
                            Ok(event) => {
                                let _ = client.handle_message(event.data.as_bytes());
                            }
                            Err(e) => return self.fail(ExchangeError::Sse(e)).map(Some),
                        }
                        if self.round.is_some_and(|id| !client.is_pending(id)) {
                            // Answered: the rest of the stream is not
                            // this round's (however the reads fell),
                            // and the connection is mid-body.
                            self.finished = true;
                            return Ok(Some(Step::Done { reusable: false }));
                        }
                    }
                }
                Body::Unknown | Body::Ignored => {}
            },
            ResponseEvent::End => {
                if let Body::Json(json) = &self.body {
                    if !json.is_empty() {
                        // Not JSON-RPC, or a stale id: skipped (the
                        // round then fails as unanswered).
                        let _ = match self.round {
                            Some(id) => client.handle_answer(id, json),
                            None => client.handle_message(json),
                        };
                    }
                }
                self.finished = true;
                self.end(client)?;
                return Ok(Some(Step::Done {
                    reusable: self.keep_alive,
                }));
            }
        }
        Ok(None)
    }

    /// The answer is over: a round it did not answer fails (with the
    /// status when it is an error); a notification or response must have
    /// been accepted.
    fn end(&self, client: &mut Client) -> Result<(), ExchangeError> {
        match self.round {
            Some(id) => {
                client.stream_ended(id, self.status);
                Ok(())
            }
            None if (200..300).contains(&self.status) => Ok(()),
            None => Err(ExchangeError::Status(self.status)),
        }
    }

    fn fail(&mut self, error: ExchangeError) -> Result<Step, ExchangeError> {
        self.finished = true;
        Err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{ClientConfig, ClientError, Event, OpId, Wire};
    use alloc::string::ToString;
    use alloc::vec;
    use serde_json::json;

    const TOOLS: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}"#;

    fn listing() -> (Client, Transmit) {
        let mut client = Client::new(ClientConfig::new("t", "1", Wire::Http));
        client.request("tools/list", json!({}));
        let transmit = client.poll_transmit().expect("a transmit");
        assert_eq!(transmit.kind, TransmitKind::Request { op: OpId(1), id: 1 });
        (client, transmit)
    }

    fn start(transmit: &Transmit, challengeable: bool) -> Exchange {
        let on_challenge = if challengeable {
            OnChallenge::HandBack
        } else {
            OnChallenge::FailTheRound
        };
        let (exchange, parts) = Exchange::start(
            transmit,
            "/mcp",
            "127.0.0.1:9",
            Some("Bearer t0k".to_string()),
            on_challenge,
            ExchangeLimits::default(),
        )
        .unwrap();
        let text = String::from_utf8(parts.to_http1()).unwrap();
        assert!(
            text.starts_with("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:9\r\nAccept: application/json, text/event-stream\r\n"),
            "{text}"
        );
        assert!(text.contains("\r\nAuthorization: Bearer t0k\r\n"), "{text}");
        assert!(text.contains("\r\nMcp-Method: tools/list\r\n"), "{text}");
        exchange
    }

    fn completed(client: &mut Client) -> serde_json::Value {
        match client.poll_event() {
            Some(Event::Completed { result, .. }) => result,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_json_answer_split_anywhere_completes_the_round_and_keeps_the_connection() {
        let answer = alloc::format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{TOOLS}",
            TOOLS.len()
        );
        for cut in 0..answer.len() {
            let (mut client, transmit) = listing();
            let mut exchange = start(&transmit, false);
            let (a, b) = answer.as_bytes().split_at(cut);
            assert_eq!(exchange.push(a, &mut client), Ok(Step::Read), "cut {cut}");
            assert_eq!(
                exchange.push(b, &mut client),
                Ok(Step::Done { reusable: true })
            );
            assert_eq!(completed(&mut client)["tools"], json!([]));
        }
    }

    #[test]
    fn an_event_stream_is_read_until_the_round_is_answered_and_no_further() {
        let (mut client, transmit) = listing();
        let mut exchange = start(&transmit, false);
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
        assert_eq!(exchange.push(head.as_bytes(), &mut client), Ok(Step::Read));
        let note = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#;
        let events = alloc::format!("data: {note}\n\ndata: {TOOLS}\n\n");
        let chunk = alloc::format!("{:x}\r\n{events}\r\n", events.len());
        // The server keeps the stream open: no terminating chunk.
        assert_eq!(
            exchange.push(chunk.as_bytes(), &mut client),
            Ok(Step::Done { reusable: false })
        );
        assert!(matches!(
            client.poll_event(),
            Some(Event::Notification { op: None, .. })
        ));
        assert_eq!(completed(&mut client)["tools"], json!([]));
    }

    /// A stream whose round the application cancels between two events
    /// (a listener that had enough): the exchange is over at once, and
    /// the connection, mid-body, is not kept.
    #[test]
    fn a_round_cancelled_mid_stream_settles_the_exchange() {
        let (mut client, transmit) = listing();
        let mut exchange = start(&transmit, false);
        let note = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}"#;
        let part = alloc::format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {note}\n\n"
        );
        assert_eq!(exchange.push(part.as_bytes(), &mut client), Ok(Step::Read));
        assert_eq!(exchange.settle(&client), Step::Read);
        assert_eq!(
            client.cancel(OpId(1), None),
            Some(1),
            "closing is the signal"
        );
        assert_eq!(exchange.settle(&client), Step::Done { reusable: false });
        assert_eq!(
            exchange.push(b"data: {}\n\n", &mut client),
            Ok(Step::Done { reusable: false })
        );
    }

    #[test]
    fn a_challenge_goes_to_the_authorizer_and_a_refusal_fails_the_round() {
        let (mut client, transmit) = listing();
        let mut exchange = start(&transmit, true);
        let answer = "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer resource_metadata=\"http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp\"\r\nWWW-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\n\r\n";
        assert_eq!(
            exchange.push(answer.as_bytes(), &mut client),
            Ok(Step::Challenged {
                status: 401,
                www_authenticate: vec![
                    "Bearer resource_metadata=\"http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp\"".to_string(),
                    "Basic realm=\"x\"".to_string(),
                ],
            })
        );
        assert_eq!(
            client.poll_event(),
            None,
            "the round waits for the authorizer"
        );
        exchange.refused(&mut client).unwrap();
        assert_eq!(
            client.poll_event(),
            Some(Event::Failed {
                op: OpId(1),
                error: ClientError::Http { status: 401 }
            })
        );
    }

    #[test]
    fn without_an_authorizer_a_401_fails_the_round() {
        let (mut client, transmit) = listing();
        let mut exchange = start(&transmit, false);
        let answer =
            "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nContent-Length: 2\r\n\r\nno";
        assert_eq!(
            exchange.push(answer.as_bytes(), &mut client),
            Ok(Step::Done { reusable: true })
        );
        assert_eq!(
            client.poll_event(),
            Some(Event::Failed {
                op: OpId(1),
                error: ClientError::Http { status: 401 }
            })
        );
    }

    #[test]
    fn hostile_answers_are_errors_not_growth() {
        let (mut client, transmit) = listing();
        let (mut exchange, _) = Exchange::start(
            &transmit,
            "/mcp",
            "h",
            None,
            OnChallenge::FailTheRound,
            ExchangeLimits {
                max_json: 8,
                ..ExchangeLimits::default()
            },
        )
        .unwrap();
        let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n123456789";
        assert_eq!(
            exchange.push(answer.as_bytes(), &mut client),
            Err(ExchangeError::TooLarge)
        );
        // Cut short: the close says so.
        let (mut client, transmit) = listing();
        let mut exchange = start(&transmit, false);
        let answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 90\r\n\r\n{\"json";
        assert_eq!(
            exchange.push(answer.as_bytes(), &mut client),
            Ok(Step::Read)
        );
        assert_eq!(
            exchange.close(&mut client),
            Err(ExchangeError::Http(HttpError::Truncated))
        );
        // A close before any head.
        let (mut client, transmit) = listing();
        let mut exchange = start(&transmit, false);
        assert_eq!(
            exchange.close(&mut client),
            Err(ExchangeError::Http(HttpError::Truncated))
        );
    }

    fn start_parts(transmit: &Transmit, on_challenge: OnChallenge) -> Exchange {
        let (exchange, parts) = Exchange::start(
            transmit,
            "/mcp",
            "127.0.0.1:9",
            Some("Bearer t0k".to_string()),
            on_challenge,
            ExchangeLimits::default(),
        )
        .unwrap();
        assert_eq!(parts.method, "POST");
        assert_eq!(parts.authority, "127.0.0.1:9");
        assert!(parts
            .headers
            .contains(&("Authorization".to_string(), "Bearer t0k".to_string())));
        assert_eq!(parts.body.as_deref(), Some(&transmit.body[..]));
        exchange
    }

    fn head(status: u16, content_type: &str) -> ResponseHead {
        ResponseHead {
            status,
            headers: vec![("content-type".to_string(), content_type.to_string())],
        }
    }

    /// An answer framed by the transport (HTTP/2: HEADERS, DATA, end):
    /// an event stream split anywhere answers the round, and a JSON body
    /// does too at its end.
    #[test]
    fn an_answer_fed_as_parts_answers_the_round() {
        let events = alloc::format!("data: {TOOLS}\n\n");
        for cut in 0..events.len() {
            let (mut client, transmit) = listing();
            let mut exchange = start_parts(&transmit, OnChallenge::FailTheRound);
            assert_eq!(
                exchange.push_head(head(200, "text/event-stream"), &mut client),
                Ok(Step::Read)
            );
            let (a, b) = events.as_bytes().split_at(cut);
            assert_eq!(exchange.push_data(a, &mut client), Ok(Step::Read), "{cut}");
            assert_eq!(
                exchange.push_data(b, &mut client),
                Ok(Step::Done { reusable: false })
            );
            assert_eq!(completed(&mut client)["tools"], json!([]));
        }
        let (mut client, transmit) = listing();
        let mut exchange = start_parts(&transmit, OnChallenge::FailTheRound);
        let json = head(200, "application/json; charset=utf-8");
        assert_eq!(exchange.push_head(json, &mut client), Ok(Step::Read));
        let (a, b) = TOOLS.as_bytes().split_at(10);
        assert_eq!(exchange.push_data(a, &mut client), Ok(Step::Read));
        assert_eq!(exchange.push_data(b, &mut client), Ok(Step::Read));
        assert_eq!(
            exchange.push_end(&mut client),
            Ok(Step::Done { reusable: true })
        );
        assert_eq!(completed(&mut client)["tools"], json!([]));
    }

    /// A stream that broke off before its end is cut short; a body
    /// before its head is no answer; a 401 goes to the authorizer as on
    /// HTTP/1.1.
    #[test]
    fn parts_cut_short_or_out_of_order_are_errors() {
        let (mut client, transmit) = listing();
        let mut exchange = start_parts(&transmit, OnChallenge::FailTheRound);
        exchange
            .push_head(head(200, "application/json"), &mut client)
            .unwrap();
        exchange.push_data(b"{\"json", &mut client).unwrap();
        assert_eq!(
            exchange.close(&mut client),
            Err(ExchangeError::Http(HttpError::Truncated))
        );
        let (mut client, transmit) = listing();
        let mut exchange = start_parts(&transmit, OnChallenge::FailTheRound);
        assert_eq!(
            exchange.push_data(b"{}", &mut client),
            Err(ExchangeError::Http(HttpError::MalformedHead))
        );
        assert_eq!(
            exchange.push_end(&mut client),
            Ok(Step::Done { reusable: false }),
            "over after the error"
        );
        let (mut client, transmit) = listing();
        let mut exchange = start_parts(&transmit, OnChallenge::HandBack);
        let mut challenge = head(401, "text/plain");
        challenge
            .headers
            .push(("www-authenticate".to_string(), "Bearer".to_string()));
        assert_eq!(
            exchange.push_head(challenge, &mut client),
            Ok(Step::Challenged {
                status: 401,
                www_authenticate: vec!["Bearer".to_string()],
            })
        );
    }

    #[test]
    fn a_notification_needs_a_2xx() {
        let mut client = Client::new(ClientConfig::new("t", "1", Wire::Http));
        let cancel = Transmit {
            kind: TransmitKind::Notification,
            method: Some("notifications/initialized".to_string()),
            headers: vec![],
            body: br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec(),
        };
        let (mut exchange, _) = Exchange::start(
            &cancel,
            "/mcp",
            "h",
            None,
            OnChallenge::FailTheRound,
            ExchangeLimits::default(),
        )
        .unwrap();
        assert_eq!(
            exchange.push(
                b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n",
                &mut client
            ),
            Ok(Step::Done { reusable: true })
        );
        let (mut exchange, _) = Exchange::start(
            &cancel,
            "/mcp",
            "h",
            None,
            OnChallenge::FailTheRound,
            ExchangeLimits::default(),
        )
        .unwrap();
        assert_eq!(
            exchange.push(
                b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
                &mut client
            ),
            Err(ExchangeError::Status(400))
        );
    }
}
