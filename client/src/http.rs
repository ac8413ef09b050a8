//! Streamable HTTP on blocking sockets (`basic/transports/streamable-http.mdx`).
//!
//! Each message is its own POST on a fresh connection, TLS on `https://` (§ Sending
//! Messages): the head and body come from the client machine's
//! [`Transmit`], the answer is read with the proto codec, and every JSON-RPC
//! message in it (a JSON body, or each SSE event's data) goes back to the
//! machine. Reading stops once the round is answered, so a server that
//! keeps the stream open does not hold the client.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use snodo_proto::client::http::{
    encode_request, RequestParts, ResponseDecoder, ResponseEvent, ResponseHead, ResponseLimits,
};
use snodo_proto::client::sse::{SseDecoder, SseLimits};
use snodo_proto::client::{Authorizer, Client, Transmit, TransmitKind};

use crate::error::TransportError;
use crate::get_stream::GetStream;
use crate::proxy::{connect_answer, connect_cut_short, ProxySettings, Route};
use crate::session::{Pump, Transport};
use crate::tls::{Conn, TlsConfig, TlsTarget};
use rustls::StreamOwned;

/// While a GET stream is open, how often a POST's wait looks at it.
const GET_POLL: Duration = Duration::from_millis(50);

/// The Streamable HTTP transport for one `http://` endpoint.
pub struct HttpTransport {
    endpoint: String,
    /// `host[:port]` as the `Host` header carries it.
    authority: String,
    /// The host and port, resolved for each connection.
    address: crate::endpoint::Address,
    /// Path and query.
    target: String,
    /// `https://`: the roots and the server's name.
    tls: Option<TlsTarget>,
    /// Direct, or through which proxy.
    route: Route,
    authorizer: Option<Arc<dyn Authorizer>>,
    /// The longest one request may take, connection to answer's end.
    timeout: Duration,
    /// The longest opening a connection may take.
    connect_timeout: Duration,
    max_body: usize,
    sse_limits: SseLimits,
    /// The initialize era's GET stream, once opened.
    get: Option<GetStream>,
    /// Opening it was tried (a server may refuse it with 405).
    get_tried: bool,
    /// `notifications/initialized` went out: the GET stream may open.
    initialized: std::cell::Cell<bool>,
}

impl std::fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport")
            .field("endpoint", &self.endpoint)
            .field("authorizer", &self.authorizer.is_some())
            .field("route", &self.route)
            .finish_non_exhaustive()
    }
}

/// How the body of one answer is read.
enum Body {
    Json(Vec<u8>),
    Events(SseDecoder),
    Ignored,
}

impl HttpTransport {
    /// A transport for `endpoint` (`http://host[:port]/path`, or
    /// `https://`, trusting the web's roots unless [`with_tls`](Self::with_tls)
    /// says otherwise). The host is looked up at each new connection, not
    /// here.
    pub fn new(endpoint: &str) -> Result<Self, TransportError> {
        let crate::endpoint::Endpoint {
            authority,
            address,
            target,
            tls_name,
        } = crate::endpoint::Endpoint::parse(endpoint)?;
        let tls = tls_name.map(|name| TlsTarget {
            config: TlsConfig::default().rustls_config(),
            name,
        });
        Ok(HttpTransport {
            endpoint: String::from(endpoint),
            authority,
            address,
            target,
            tls,
            route: Route::Direct,
            authorizer: None,
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(60),
            max_body: 16 << 20,
            sse_limits: SseLimits::default(),
            get: None,
            get_tried: false,
            initialized: std::cell::Cell::new(false),
        })
    }

    /// Ask `authorizer` for each request's `Authorization` header, and
    /// hand it 401 and 403 answers (`basic/authorization/index.mdx`).
    pub fn with_authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> Self {
        self.authorizer = Some(authorizer);
        self
    }

    /// The longest one request may take, from opening its connection to
    /// the end of its answer, however the bytes trickle in (default 60 s):
    /// each read waits only for what is left of it. A request that
    /// outlives it fails with an I/O error of kind `TimedOut`.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The longest opening a connection may take, every address of the
    /// host tried (default 60 s; never past the request's own deadline).
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Trust the roots of `config` on an `https://` endpoint (a private
    /// CA's, say); no effect on `http://`. This transport speaks HTTP/1.1
    /// alone and offers ALPN `http/1.1` alone, whatever `config` says of
    /// HTTP/2 (the async transports speak it, feature `http2`).
    pub fn with_tls(mut self, config: &TlsConfig) -> Self {
        if let Some(tls) = &mut self.tls {
            tls.config = config.rustls_config();
        }
        self
    }

    /// Go through the proxy `settings` name for this endpoint (none when
    /// its host is in their `NO_PROXY` list): an `http://` endpoint's
    /// requests in absolute form, an `https://` endpoint's in a `CONNECT`
    /// tunnel, TLS with the endpoint inside it. Without this call the
    /// transport connects directly and reads no environment variable;
    /// [`ProxySettings::from_env`] is the opt-in to `HTTPS_PROXY` and the
    /// rest. The proxy's host is looked up at each connection, as the
    /// endpoint's is.
    pub fn with_proxy(mut self, settings: &ProxySettings) -> Self {
        self.route = Route::new(settings, &self.address, self.tls.is_some());
        self
    }

    /// The endpoint URL.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The request target: absolute form through a forwarding proxy.
    fn request_target(&self) -> String {
        self.route.target(&self.authority, &self.target)
    }

    /// A connection to the first address that answers, all of them
    /// tried by the connect timeout and by `deadline`; reads and writes
    /// on it time out at `deadline`.
    ///
    /// Through a proxy, the connection is the proxy's; to an `https://`
    /// endpoint, the `CONNECT` tunnel is opened on it first (by the
    /// connect timeout too), and TLS runs inside the tunnel.
    fn connect(&self, deadline: Instant) -> Result<Conn, TransportError> {
        let by = deadline.min(Instant::now() + self.connect_timeout);
        let mut s = tcp(self.route.address(&self.address), by)?;
        if let Route::Tunnel { connect, .. } = &self.route {
            s.set_read_timeout(Some(left(by)?))?;
            s.set_write_timeout(Some(left(by)?))?;
            tunnel(&mut s, connect)?;
        }
        s.set_read_timeout(Some(left(deadline)?))?;
        s.set_write_timeout(Some(left(deadline)?))?;
        Ok(match &self.tls {
            None => Conn::Plain(s),
            // The handshake runs with the first write.
            Some(tls) => Conn::Tls(Box::new(StreamOwned::new(tls.connection()?, s))),
        })
    }

    /// POST once; `Ok(Some(head))` when the answer was a 401/403 the
    /// authorizer should see (its body unread).
    fn post(
        &self,
        transmit: &Transmit,
        client: &mut Client,
        pump: Pump<'_>,
    ) -> Result<Option<ResponseHead>, TransportError> {
        let mut headers = transmit.headers.clone();
        if let Some(auth) = &self.authorizer {
            if let Some(value) = auth.authorization(&self.endpoint) {
                headers.push((String::from("Authorization"), value));
            }
        }
        headers.extend(self.route.request_headers());
        let request = encode_request(
            "POST",
            &self.request_target(),
            &self.authority,
            &headers,
            Some(&transmit.body),
        )
        .map_err(TransportError::Http)?;
        self.service_get(client, pump)?;
        // One deadline for the whole request: each read below waits for
        // what is left of it, not for a fresh timeout.
        let mut deadline = Instant::now() + self.timeout;
        let open_ended = is_open_ended(transmit);
        let mut stream = self.connect(deadline)?;
        stream.write_all(&request)?;

        let round = match transmit.kind {
            TransmitKind::Request { id, .. } => Some(id),
            _ => None,
        };
        let mut decoder = ResponseDecoder::new("POST", ResponseLimits::default());
        let mut status = 0u16;
        let mut body = Body::Ignored;
        let mut buf = vec![0u8; 16 << 10];
        loop {
            while let Some(event) = decoder.poll() {
                match event.map_err(TransportError::Http)? {
                    ResponseEvent::Head(head) => {
                        status = head.status;
                        if let Some(e) = self.route.refusal(status, head.all("proxy-authenticate"))
                        {
                            return Err(e.into());
                        }
                        if (status == 401 || status == 403) && self.authorizer.is_some() {
                            return Ok(Some(head));
                        }
                        client.handle_http_head(round, &head);
                        body = match head.media_type().as_deref() {
                            Some("text/event-stream") => {
                                Body::Events(SseDecoder::new(self.sse_limits))
                            }
                            Some("application/json") => Body::Json(Vec::new()),
                            _ => Body::Ignored,
                        };
                    }
                    ResponseEvent::Data(data) => match &mut body {
                        Body::Json(b) => {
                            if b.len() + data.len() > self.max_body {
                                return Err(TransportError::TooLarge);
                            }
                            b.extend_from_slice(&data);
                        }
                        Body::Events(sse) => {
                            sse.push(&data);
                            while let Some(ev) = sse.next_event() {
                                let ev = ev.map_err(TransportError::Sse)?;
                                // A message the machine refuses (not JSON-RPC,
                                // an unknown id) is skipped, not fatal.
                                let _ = client.handle_message(ev.data.as_bytes());
                            }
                            // Answer what the server asked on this stream
                            // (initialize era) before reading on: it waits.
                            pump(client);
                            while let Some(reply) = client.poll_transmit() {
                                self.exchange(&reply, client, pump)?;
                            }
                            if round.is_some_and(|id| !client.is_pending(id)) {
                                // Answered: the rest of the stream is not ours.
                                return Ok(None);
                            }
                        }
                        Body::Ignored => {}
                    },
                    ResponseEvent::End => {
                        if let Body::Json(b) = &body {
                            if !b.is_empty() {
                                let _ = match round {
                                    Some(id) => client.handle_answer(id, b),
                                    None => client.handle_message(b),
                                };
                            }
                        }
                        return self.finish(round, status, client);
                    }
                }
            }
            let wait = left(deadline)?;
            // With a GET stream open, wake up often to answer what the
            // server asks on it: this POST's answer may wait for that.
            let wait = match self.get {
                Some(_) => wait.min(GET_POLL),
                None => wait,
            };
            stream.socket().set_read_timeout(Some(wait))?;
            let n = match stream.read(&mut buf) {
                Ok(n) => n,
                Err(e) if self.get.is_some() && is_timeout(&e) => {
                    self.service_get(client, pump)?;
                    continue;
                }
                Err(e) if is_timeout(&e) => return Err(timed_out()),
                Err(e) => return Err(e.into()),
            };
            if open_ended {
                deadline = Instant::now() + self.timeout;
            }
            if n == 0 {
                decoder.close();
            } else {
                decoder.push(&buf[..n]);
            }
        }
    }

    /// Feed what arrived on the GET stream to the machine, let the
    /// session handle it, and send the answers it queued.
    fn service_get(&self, client: &mut Client, pump: Pump<'_>) -> Result<(), TransportError> {
        let Some(get) = &self.get else {
            return Ok(());
        };
        let messages = get.drain().unwrap_or_default();
        if messages.is_empty() {
            return Ok(());
        }
        for message in messages {
            let _ = client.handle_message(&message);
        }
        pump(client);
        while let Some(reply) = client.poll_transmit() {
            self.exchange(&reply, client, pump)?;
        }
        Ok(())
    }

    /// Open the GET stream of an initialize-era session (2025-11-25
    /// `basic/transports.mdx` § Listening for Messages from the Server).
    /// A server that offers none (405) is fine.
    fn open_get(&mut self, client: &Client) -> Result<(), TransportError> {
        self.get_tried = true;
        let Some(mut headers) = client.session_headers() else {
            return Ok(());
        };
        if let Some(auth) = &self.authorizer {
            if let Some(value) = auth.authorization(&self.endpoint) {
                headers.push((String::from("Authorization"), value));
            }
        }
        headers.extend(self.route.request_headers());
        let request = encode_request(
            "GET",
            &self.request_target(),
            &self.authority,
            &headers,
            None,
        )
        .map_err(TransportError::Http)?;
        let deadline = Instant::now() + self.connect_timeout;
        self.get = Some(GetStream::open(
            self.connect(deadline)?,
            &request,
            self.sse_limits,
        )?);
        Ok(())
    }

    fn finish(
        &self,
        round: Option<u64>,
        status: u16,
        client: &mut Client,
    ) -> Result<Option<ResponseHead>, TransportError> {
        match round {
            Some(id) => client.stream_ended(id, status),
            // A notification or response is accepted with 202
            // (§ Sending Messages, rule 5) — any 2xx will do.
            None if !(200..300).contains(&status) => return Err(TransportError::Status(status)),
            None => {}
        }
        Ok(None)
    }
}

impl Transport for HttpTransport {
    fn send(
        &mut self,
        transmit: Transmit,
        client: &mut Client,
        pump: Pump<'_>,
    ) -> Result<(), TransportError> {
        self.exchange(&transmit, client, pump)?;
        if self.initialized.get() && !self.get_tried && !client.is_stateless() {
            self.open_get(client)?;
        }
        Ok(())
    }

    fn receive(&mut self, client: &mut Client) -> Result<bool, TransportError> {
        // Answers are read by `send`; only the GET stream brings
        // messages unasked.
        let Some(get) = &self.get else {
            return Ok(false);
        };
        match get.next(self.timeout) {
            Some(message) => {
                let _ = client.handle_message(&message);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// `DELETE` the initialize-era session. Any answer ends it from this
    /// side: 2xx, 404 (already gone) and 405 (the server does not allow
    /// clients to end sessions) alike.
    fn close(&mut self, client: &Client) -> Result<(), TransportError> {
        self.get = None;
        let Some(request) = delete_request(client, &self.target, &self.authority, &self.route)?
        else {
            return Ok(());
        };
        let mut stream = self.connect(Instant::now() + self.timeout)?;
        stream.write_all(&request)?;
        let mut decoder = ResponseDecoder::new("DELETE", ResponseLimits::default());
        let mut buf = [0u8; 4096];
        loop {
            match decoder.poll() {
                Some(Ok(ResponseEvent::Head(_))) => return Ok(()),
                Some(Err(e)) => return Err(TransportError::Http(e)),
                Some(Ok(_)) => {}
                None => {
                    let n = stream.read(&mut buf)?;
                    if n == 0 {
                        decoder.close();
                    } else {
                        decoder.push(&buf[..n]);
                    }
                }
            }
        }
    }
}

impl HttpTransport {
    /// One POST and its answer, with one resend after a challenge the
    /// authorizer meets.
    fn exchange(
        &self,
        transmit: &Transmit,
        client: &mut Client,
        pump: Pump<'_>,
    ) -> Result<(), TransportError> {
        if transmit.method.as_deref() == Some("notifications/initialized") {
            // Often sent from inside the initialize POST's own exchange
            // (the machine queues it when the result arrives): `send`
            // opens the GET stream once the outermost exchange is done.
            self.initialized.set(true);
        }
        let Some(head) = self.post(transmit, client, pump)? else {
            return Ok(());
        };
        // 401/403 with an authorizer: one more attempt when it has a new
        // credential; otherwise the request fails with the status.
        let auth = self.authorizer.clone().expect("only with an authorizer");
        let challenges = head.all("www-authenticate");
        let retry = auth
            .challenged(&self.endpoint, head.status, &challenges)
            .map_err(TransportError::Auth)?;
        if retry {
            if let Some(head) = self.post(transmit, client, pump)? {
                return self.refused(transmit, &head, client);
            }
            return Ok(());
        }
        self.refused(transmit, &head, client)
    }

    /// The request ends with this 401/403: the authorizer gave up.
    fn refused(
        &self,
        transmit: &Transmit,
        head: &ResponseHead,
        client: &mut Client,
    ) -> Result<(), TransportError> {
        let round = match transmit.kind {
            TransmitKind::Request { id, .. } => Some(id),
            _ => None,
        };
        client.handle_http_head(round, head);
        self.finish(round, head.status, client).map(|_| ())
    }
}

/// The `DELETE` that ends an initialize-era session (2025-11-25
/// `basic/transports.mdx` § Session Management), as HTTP/1.1 bytes;
/// `None` when there is none to end.
pub(crate) fn delete_request(
    client: &Client,
    target: &str,
    authority: &str,
    route: &Route,
) -> Result<Option<Vec<u8>>, TransportError> {
    Ok(delete_parts(client, target, authority, route)?.map(|parts| parts.to_http1()))
}

/// [`delete_request`] as its parts, for either HTTP version.
pub(crate) fn delete_parts(
    client: &Client,
    target: &str,
    authority: &str,
    route: &Route,
) -> Result<Option<RequestParts>, TransportError> {
    let Some(mut headers) = client.session_headers() else {
        return Ok(None);
    };
    headers.extend(route.request_headers());
    RequestParts::new(
        "DELETE",
        &route.target(authority, target),
        authority,
        &headers,
        None,
    )
    .map(Some)
    .map_err(TransportError::Http)
}

/// A TCP connection to the first address of `address` (looked up now)
/// that answers by `by`.
fn tcp(address: &crate::endpoint::Address, by: Instant) -> Result<TcpStream, TransportError> {
    let mut last = None;
    for addr in &address.resolve()? {
        match TcpStream::connect_timeout(addr, left(by)?) {
            Ok(s) => {
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last.map_or(TransportError::Closed, TransportError::Io))
}

/// Open a `CONNECT` tunnel on `s` (RFC 9110 § 9.3.6): write `connect`,
/// read the proxy's answer head to its end; a 2xx opens it. A 2xx with
/// bytes past its head is refused: the origin speaks only after the
/// client's first TLS record.
fn tunnel(s: &mut TcpStream, connect: &[u8]) -> Result<(), TransportError> {
    s.write_all(connect)?;
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        let n = match s.read(&mut buf) {
            Ok(n) => n,
            Err(e) if is_timeout(&e) => return Err(timed_out()),
            Err(e) => return Err(e.into()),
        };
        if n == 0 {
            return Err(connect_cut_short().into());
        }
        head.extend_from_slice(&buf[..n]);
        if connect_answer(&head)?.is_some() {
            return Ok(());
        }
    }
}

/// What is left until `deadline`; [`timed_out`] once nothing is.
fn left(deadline: Instant) -> Result<Duration, TransportError> {
    match deadline.checked_duration_since(Instant::now()) {
        Some(d) if !d.is_zero() => Ok(d),
        _ => Err(timed_out()),
    }
}

/// The request's deadline passed.
fn timed_out() -> TransportError {
    TransportError::Io(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        "no whole answer from the server in time",
    ))
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

/// Whether `transmit` opens a stream meant to stay open: a subscription
/// (`subscriptions/listen`, `basic/patterns/subscriptions.mdx`) lives
/// until one side ends it, so its reads each wait the timeout, once its
/// answer has begun, instead of the whole stream waiting one deadline.
pub(crate) fn is_open_ended(transmit: &Transmit) -> bool {
    transmit.method.as_deref() == Some("subscriptions/listen")
}
