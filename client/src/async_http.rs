//! Streamable HTTP on an async runtime (`basic/transports/streamable-http.mdx`).
//!
//! Each message is a POST ([`Exchange`] writes it and reads its answer
//! into the machine); a connection whose answer was read to its framed
//! end is kept for the next POST. A kept connection the server has
//! closed meanwhile is noticed when its answer ends before it began, and
//! the POST goes once more on a new connection.
//!
//! With the feature `http2`, an `https://` connection whose server picked
//! `h2` by ALPN carries every request as a stream of its own
//! ([`crate::http2`]): the POSTs, the GET stream and the DELETE share it,
//! and the same [`Exchange`] reads each answer, fed the stream's head and
//! DATA instead of HTTP/1.1 bytes. A kept HTTP/2 connection the server has
//! closed (GOAWAY, or its end) fails the new stream before anything was
//! sent, and the POST goes on a new connection, as on HTTP/1.1.

use std::future::poll_fn;
use std::io;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use snodo_driver::{Read, Timer};
use snodo_proto::client::exchange::{Exchange, ExchangeLimits, OnChallenge, Step};
use snodo_proto::client::http::RequestParts;
#[cfg(feature = "http2")]
use snodo_proto::client::http::ResponseEvent;
use snodo_proto::client::sse::SseLimits;
use snodo_proto::client::{Authorizer, Client, Transmit};

use crate::async_get::{GetConnection, GetEvent, GetStream};

use crate::async_session::{AsyncPump as Pump, AsyncTransport};
use crate::endpoint::{Address, Endpoint};
use crate::error::TransportError;
use crate::proxy::{connect_answer, connect_cut_short, ProxySettings, RefusalProbe, Route};
use crate::runtime::{
    by_deadline, connect_by, read_chunk, write_all, ClientRuntime, Reader, Writer, CHUNK,
};
use crate::tls::{TlsConfig, TlsTarget};

/// The most 401/403 answers one message is resent after: an authorizer
/// that keeps saying "try again" cannot make the client loop.
const MAX_CHALLENGES: usize = 4;

/// The HTTP version a connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HttpVersion {
    /// HTTP/1.1: plain `http://`, or a TLS server that picked
    /// `http/1.1` by ALPN (or none).
    Http11,
    /// HTTP/2: a TLS server that picked `h2` by ALPN (feature `http2`).
    Http2,
}

/// A connection as it was opened.
enum Opened {
    Http1(Reader, Writer),
    #[cfg(feature = "http2")]
    Http2(crate::http2::Connection),
}

/// The Streamable HTTP transport for one `http://` endpoint, on runtime `R`.
pub struct AsyncHttpTransport<R: ClientRuntime> {
    runtime: R,
    endpoint: String,
    /// `host[:port]` as the `Host` field carries it.
    authority: String,
    /// The host and port, resolved for each connection.
    address: Address,
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
    limits: ExchangeLimits,
    /// A connection kept alive after an answer read to its end.
    idle: Option<(Reader, Writer)>,
    /// The HTTP/2 connection every request goes on, once one is open.
    #[cfg(feature = "http2")]
    h2: Option<crate::http2::Connection>,
    /// What the last connection opened speaks.
    version: Option<HttpVersion>,
    /// The initialize era's GET stream, once opened.
    get: Option<GetStream<R>>,
    /// Opening it was tried (a server may refuse it with 405).
    get_tried: bool,
    /// `notifications/initialized` went out: the GET stream may open.
    initialized: bool,
}

/// What a POST's wait saw first.
enum Woke<T> {
    /// The POST's connection (or stream): what it read, or an error.
    Post(io::Result<T>),
    /// The GET stream.
    Get(GetEvent),
}

impl<R: ClientRuntime> std::fmt::Debug for AsyncHttpTransport<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncHttpTransport")
            .field("endpoint", &self.endpoint)
            .field("authorizer", &self.authorizer.is_some())
            .field("route", &self.route)
            .finish_non_exhaustive()
    }
}

impl<R: ClientRuntime> AsyncHttpTransport<R> {
    /// A transport for `endpoint` (`http://host[:port]/path`, or
    /// `https://`, trusting the web's roots unless
    /// [`with_tls`](Self::with_tls) says otherwise) on `runtime`. The host
    /// is looked up at each new connection, not here.
    pub fn new(runtime: R, endpoint: &str) -> Result<Self, TransportError> {
        let Endpoint {
            authority,
            address,
            target,
            tls_name,
        } = Endpoint::parse(endpoint)?;
        let tls = tls_name.map(|name| TlsTarget {
            config: TlsConfig::default().async_rustls_config(),
            name,
        });
        Ok(AsyncHttpTransport {
            runtime,
            endpoint: endpoint.to_owned(),
            authority,
            address,
            target,
            tls,
            route: Route::Direct,
            authorizer: None,
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(60),
            limits: ExchangeLimits::default(),
            idle: None,
            #[cfg(feature = "http2")]
            h2: None,
            version: None,
            get: None,
            get_tried: false,
            initialized: false,
        })
    }

    /// Ask `authorizer` for the `Authorization` field, and hand it 401 and
    /// 403 answers (its work runs on [`ClientRuntime::unblock`]).
    pub fn with_authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> Self {
        self.authorizer = Some(authorizer);
        self
    }

    /// The longest one request may take, from opening its connection to
    /// the end of its answer, however the bytes trickle in (default 60 s).
    /// A deadline, not an idle timeout: a server that sends a byte now
    /// and then does not hold the client past it. A request that outlives
    /// it fails with an I/O error of kind `TimedOut`, and the session
    /// cancels it.
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
    /// CA's, say), and offer by ALPN what it says: `h2` and `http/1.1`
    /// with the feature `http2` (HTTP/2 when the server picks it), or
    /// `http/1.1` alone after [`TlsConfig::http1_only`]. No effect on
    /// `http://`, which is always HTTP/1.1.
    pub fn with_tls(mut self, config: &TlsConfig) -> Self {
        if let Some(tls) = &mut self.tls {
            tls.config = config.async_rustls_config();
        }
        self
    }

    /// The HTTP version of the connection opened last: `None` before the
    /// first; [`HttpVersion::Http2`] once an `https://` server picked `h2`
    /// by ALPN.
    pub fn http_version(&self) -> Option<HttpVersion> {
        self.version
    }

    /// A new connection, by `by`; its version noted, an HTTP/2 one kept
    /// for every request after.
    async fn open(&mut self, by: Instant) -> Result<Opened, TransportError> {
        let opened = open(
            &self.runtime,
            &self.route,
            self.address.clone(),
            self.tls.as_ref(),
            by,
        )
        .await?;
        match &opened {
            Opened::Http1(..) => self.version = Some(HttpVersion::Http11),
            #[cfg(feature = "http2")]
            Opened::Http2(conn) => {
                self.version = Some(HttpVersion::Http2);
                self.h2 = Some(conn.clone());
            }
        }
        Ok(opened)
    }

    /// Go through the proxy `settings` name for this endpoint (none when
    /// its host is in their `NO_PROXY` list), as
    /// [`HttpTransport::with_proxy`](crate::HttpTransport::with_proxy)
    /// does: absolute-form requests to an `http://` endpoint, a `CONNECT`
    /// tunnel to an `https://` one. Without this call the transport
    /// connects directly and reads no environment variable.
    pub fn with_proxy(mut self, settings: &ProxySettings) -> Self {
        self.route = Route::new(settings, &self.address, self.tls.is_some());
        self
    }

    /// When a connection opened now must be up: by the request's
    /// `deadline`, and by the connect timeout.
    fn connect_deadline(&self, deadline: Instant) -> Instant {
        deadline.min(self.runtime.now() + self.connect_timeout)
    }

    /// POST `transmit` and read its answer into `client`; a 401/403 goes
    /// to the authorizer, and the POST once more with what it got (a
    /// step-up after a first authorization is a second challenge), at most
    /// [`MAX_CHALLENGES`] times.
    async fn post(
        &mut self,
        transmit: &Transmit,
        client: &mut Client,
        pump: Pump<'_>,
    ) -> Result<(), TransportError> {
        if transmit.method.as_deref() == Some("notifications/initialized") {
            self.initialized = true;
        }
        let mut challenges = 0;
        loop {
            let authorization = self
                .authorizer
                .as_ref()
                .and_then(|a| a.authorization(&self.endpoint));
            // Through a forwarding proxy, its `Proxy-Authorization` rides
            // on the request (the proxy consumes it).
            let proxied;
            let transmit_here = match self.route.request_headers() {
                extra if extra.is_empty() => transmit,
                extra => {
                    let mut t = transmit.clone();
                    t.headers.extend(extra);
                    proxied = t;
                    &proxied
                }
            };
            let on_challenge = if self.authorizer.is_some() && challenges < MAX_CHALLENGES {
                OnChallenge::HandBack
            } else {
                OnChallenge::FailTheRound
            };
            let (mut exchange, request) = Exchange::start(
                transmit_here,
                &self.route.target(&self.authority, &self.target),
                &self.authority,
                authorization,
                on_challenge,
                self.limits,
            )
            .map_err(TransportError::Http)?;
            let open_ended = crate::http::is_open_ended(transmit);
            let step = self
                .run(&mut exchange, &request, open_ended, client, pump)
                .await?;
            let Step::Challenged {
                status,
                www_authenticate,
            } = step
            else {
                return Ok(());
            };
            let authorizer = self
                .authorizer
                .clone()
                .expect("challengeable only with one");
            let endpoint = self.endpoint.clone();
            let retry = self
                .runtime
                .unblock(move || authorizer.challenged(&endpoint, status, &www_authenticate))
                .await
                .map_err(TransportError::Auth)?;
            if !retry {
                exchange.refused(client).map_err(TransportError::from)?;
                return Ok(());
            }
            challenges += 1;
        }
    }

    /// Send `request` and read its answer to a step other than
    /// [`Step::Read`], sending what the messages read queue meanwhile (an
    /// initialize-era answer to a server request on this stream): on the
    /// HTTP/2 connection when there is one, else on a kept HTTP/1.1
    /// connection, else on a new one of whichever version it speaks.
    async fn run(
        &mut self,
        exchange: &mut Exchange,
        request: &RequestParts,
        open_ended: bool,
        client: &mut Client,
        pump: Pump<'_>,
    ) -> Result<Step, TransportError> {
        // One deadline for the whole request: every read below waits for
        // what is left of it, not for a fresh timeout each.
        let deadline = self.runtime.now() + self.timeout;
        #[cfg(feature = "http2")]
        if let Some(conn) = self.h2.clone() {
            return self
                .run_h2(
                    conn, true, exchange, request, open_ended, client, pump, deadline,
                )
                .await;
        }
        let (reader, writer, kept) = match self.idle.take() {
            Some((r, w)) => (r, w, true),
            None => match self.open(self.connect_deadline(deadline)).await? {
                Opened::Http1(r, w) => (r, w, false),
                #[cfg(feature = "http2")]
                Opened::Http2(conn) => {
                    return self
                        .run_h2(
                            conn, false, exchange, request, open_ended, client, pump, deadline,
                        )
                        .await;
                }
            },
        };
        self.run_h1(
            (reader, writer, kept),
            exchange,
            request,
            open_ended,
            client,
            pump,
            deadline,
        )
        .await
    }

    /// [`run`](Self::run) on HTTP/1.1 connection `conn` (kept from an
    /// earlier answer, or new).
    #[allow(clippy::too_many_arguments)]
    async fn run_h1(
        &mut self,
        conn: (Reader, Writer, bool),
        exchange: &mut Exchange,
        request: &RequestParts,
        open_ended: bool,
        client: &mut Client,
        pump: Pump<'_>,
        mut deadline: Instant,
    ) -> Result<Step, TransportError> {
        let request_bytes = request.to_http1();
        let mut buf = Vec::new();
        let (mut reader, mut writer, mut kept) = conn;
        let mut answered = false;
        loop {
            let sent = by_deadline(
                &self.runtime,
                deadline,
                write_all(&mut writer, &request_bytes),
            )
            .await;
            let read = match sent {
                Ok(()) => {
                    self.read_post(&mut reader, &mut buf, deadline, client, pump)
                        .await
                }
                Err(e) => Err(e),
            };
            match read {
                // A kept connection the server closed while it idled: the
                // request never reached it, so it goes on a new one.
                Ok(()) if buf.is_empty() && kept => {}
                // A timeout is not a closed connection: the server may
                // be working on the request, which must not be sent twice.
                Err(e) if kept && e.kind() != io::ErrorKind::TimedOut => {}
                Ok(()) => break,
                Err(e) => return Err(e.into()),
            }
            match self.open(self.connect_deadline(deadline)).await? {
                Opened::Http1(r, w) => (reader, writer, kept) = (r, w, false),
                // The server picks HTTP/2 now: the request goes there.
                #[cfg(feature = "http2")]
                Opened::Http2(conn) => {
                    return Box::pin(self.run_h2(
                        conn, false, exchange, request, open_ended, client, pump, deadline,
                    ))
                    .await;
                }
            }
        }
        // A forwarding proxy's 407 is the proxy's, not the server's.
        let mut probe = RefusalProbe::new(&self.route);
        loop {
            if let Some(p) = &mut probe {
                if p.push(&buf)? {
                    probe = None;
                }
            }
            let step = if buf.is_empty() {
                exchange.close(client)
            } else {
                answered = true;
                exchange.push(&buf, client)
            }
            .map_err(TransportError::from)?;
            let step = self.settle(step, exchange, client, &mut *pump).await?;
            match step {
                Step::Read => {}
                Step::Done { reusable } => {
                    if reusable && answered {
                        self.idle = Some((reader, writer));
                    }
                    return Ok(step);
                }
                Step::Challenged { .. } => return Ok(step),
            }
            if open_ended {
                deadline = self.runtime.now() + self.timeout;
            }
            self.read_post(&mut reader, &mut buf, deadline, client, pump)
                .await?;
        }
    }

    /// [`run`](Self::run) as a stream of HTTP/2 connection `conn` (the
    /// transport's, or new). A reset stream or a closed connection
    /// mid-answer is an error saying so; the answer's end, or the round
    /// answered, ends the exchange (a stream still open is reset when its
    /// [`Response`](crate::http2::Response) is dropped, and the connection
    /// goes on).
    #[cfg(feature = "http2")]
    #[allow(clippy::too_many_arguments)]
    async fn run_h2(
        &mut self,
        mut conn: crate::http2::Connection,
        mut kept: bool,
        exchange: &mut Exchange,
        request: &RequestParts,
        open_ended: bool,
        client: &mut Client,
        pump: Pump<'_>,
        mut deadline: Instant,
    ) -> Result<Step, TransportError> {
        // Once more on a new connection: a kept one the server closed
        // meanwhile (GOAWAY, its end) fails the stream before anything
        // was sent; a stream the server did not process (beyond a
        // GOAWAY's last stream, or REFUSED_STREAM, RFC 9113 § 8.7) may be
        // sent again, and is, once.
        let mut again = true;
        let (mut response, mut event) = loop {
            let sent = by_deadline(&self.runtime, deadline, async {
                conn.ready().await?;
                conn.send(request)
            })
            .await;
            match sent {
                Ok(mut response) => {
                    let first = self
                        .wait_for(deadline, |cx| response.poll_event(cx), client, pump)
                        .await;
                    match first {
                        Ok(event) => break (response, event),
                        Err(e) if again && crate::http2::is_unprocessed(&e) => again = false,
                        Err(e) => return Err(e.into()),
                    }
                }
                Err(e) if kept && e.kind() != io::ErrorKind::TimedOut => {}
                Err(e) => {
                    self.h2 = None;
                    return Err(e.into());
                }
            }
            self.h2 = None;
            match self.open(self.connect_deadline(deadline)).await? {
                Opened::Http2(new) => (conn, kept) = (new, false),
                Opened::Http1(r, w) => {
                    return Box::pin(self.run_h1(
                        (r, w, false),
                        exchange,
                        request,
                        open_ended,
                        client,
                        pump,
                        deadline,
                    ))
                    .await;
                }
            }
        };
        loop {
            let step = match event {
                ResponseEvent::Head(head) => exchange.push_head(head, client),
                ResponseEvent::Data(data) => exchange.push_data(&data, client),
                ResponseEvent::End => exchange.push_end(client),
            }
            .map_err(TransportError::from)?;
            let step = self.settle(step, exchange, client, &mut *pump).await?;
            if !matches!(step, Step::Read) {
                return Ok(step);
            }
            if open_ended {
                deadline = self.runtime.now() + self.timeout;
            }
            event = self
                .wait_for(deadline, |cx| response.poll_event(cx), client, pump)
                .await?;
        }
    }

    /// What the machine makes of what an answer just gave (`step`), once
    /// the messages it read are handed on and the answers they queued
    /// POSTed (an initialize-era reply to a server request on this stream):
    /// the same after each HTTP/1.1 chunk and each HTTP/2 event.
    async fn settle(
        &mut self,
        step: Step,
        exchange: &mut Exchange,
        client: &mut Client,
        pump: Pump<'_>,
    ) -> Result<Step, TransportError> {
        pump(client);
        while let Some(reply) = client.poll_transmit() {
            Box::pin(self.post(&reply, client, &mut *pump)).await?;
        }
        Ok(match step {
            Step::Read => exchange.settle(client),
            step => step,
        })
    }

    /// Read the next chunk of a POST's answer into `buf`, by `deadline`
    /// (empty at its end); see [`wait_for`](Self::wait_for).
    async fn read_post(
        &mut self,
        reader: &mut Reader,
        buf: &mut Vec<u8>,
        deadline: Instant,
        client: &mut Client,
        pump: Pump<'_>,
    ) -> io::Result<()> {
        buf.clear();
        self.wait_for(
            deadline,
            |cx| {
                reader
                    .poll_read_with(cx, CHUNK, &mut |bytes| buf.extend_from_slice(bytes))
                    .map_ok(|_| ())
            },
            client,
            pump,
        )
        .await
    }

    /// Wait for `poll` (a POST's answer) by `deadline`, failing with
    /// `TimedOut` past it; meanwhile, what arrives on the GET stream goes
    /// to the machine and the answers it queues are POSTed (that POST's
    /// answer may wait for them), and a GET stream closed for polling is
    /// reopened. `poll` must take nothing when it is pending (a read that
    /// is ready takes all it read).
    async fn wait_for<T>(
        &mut self,
        deadline: Instant,
        mut poll: impl FnMut(&mut Context<'_>) -> Poll<io::Result<T>>,
        client: &mut Client,
        pump: Pump<'_>,
    ) -> io::Result<T> {
        loop {
            let woke = {
                let (runtime, get) = (&self.runtime, &mut self.get);
                let mut timer = runtime.timer(deadline);
                poll_fn(|cx| {
                    if let Poll::Ready(r) = poll(cx) {
                        return Poll::Ready(Woke::Post(r));
                    }
                    if let Some(Poll::Ready(event)) = get.as_mut().map(|g| g.poll(runtime, cx)) {
                        return Poll::Ready(Woke::Get(event));
                    }
                    match timer.poll_fired(cx) {
                        Poll::Ready(()) => Poll::Ready(Woke::Post(Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "no answer from the server in time",
                        )))),
                        Poll::Pending => Poll::Pending,
                    }
                })
                .await
            };
            match woke {
                Woke::Post(read) => return read,
                Woke::Get(event) => {
                    self.got_on_get(event, client).await;
                    pump(client);
                    while let Some(reply) = client.poll_transmit() {
                        Box::pin(self.post(&reply, client, &mut *pump))
                            .await
                            .map_err(io::Error::other)?;
                    }
                }
            }
        }
    }

    /// Hand what the GET stream brought to `client`; reopen a stream
    /// closed for polling, drop one that is over. Whether a message came.
    async fn got_on_get(&mut self, event: GetEvent, client: &mut Client) -> bool {
        match event {
            GetEvent::Messages(messages) => {
                for message in messages {
                    // A message the machine refuses is skipped, not fatal.
                    let _ = client.handle_message(&message);
                }
                return true;
            }
            GetEvent::Reopen => {
                let last = self
                    .get
                    .as_ref()
                    .and_then(|g| g.last_event_id().map(String::from));
                match self.get_connection(client, last.as_deref()).await {
                    Ok(Some(connection)) => {
                        if let Some(get) = &mut self.get {
                            get.reopened(connection);
                        }
                    }
                    // The server is gone or the session over: no stream.
                    Ok(None) | Err(_) => self.get = None,
                }
            }
            GetEvent::Closed => self.get = None,
        }
        false
    }

    /// Open the GET stream of an initialize-era session (2025-11-25
    /// `basic/transports.mdx` § Listening for Messages from the Server).
    /// A server that offers none (405) is fine: the stream ends at once.
    async fn open_get(&mut self, client: &Client) -> Result<(), TransportError> {
        self.get_tried = true;
        if let Some(connection) = self.get_connection(client, None).await? {
            self.get = Some(GetStream::opened(connection, SseLimits::default()));
        }
        Ok(())
    }

    /// The GET sent (with `Last-Event-ID` when resuming, § Resumability
    /// and Redelivery): on a new HTTP/1.1 connection, or as a stream of
    /// the HTTP/2 one; `None` when the session has no id to send.
    async fn get_connection(
        &mut self,
        client: &Client,
        last_event_id: Option<&str>,
    ) -> Result<Option<GetConnection>, TransportError> {
        let Some(mut headers) = client.session_headers() else {
            return Ok(None);
        };
        if let Some(value) = self
            .authorizer
            .as_ref()
            .and_then(|a| a.authorization(&self.endpoint))
        {
            headers.push((String::from("Authorization"), value));
        }
        if let Some(id) = last_event_id {
            headers.push((String::from("Last-Event-ID"), String::from(id)));
        }
        headers.extend(self.route.request_headers());
        let request = RequestParts::new(
            "GET",
            &self.route.target(&self.authority, &self.target),
            &self.authority,
            &headers,
            None,
        )
        .map_err(TransportError::Http)?;
        let deadline = self.runtime.now() + self.timeout;
        #[cfg(feature = "http2")]
        if let Some(conn) = self.h2.clone() {
            match self.send_h2(conn, &request, deadline).await {
                Ok(response) => return Ok(Some(GetConnection::Http2(response))),
                // The connection is gone (nothing was sent): a new one.
                Err(TransportError::Io(e)) if e.kind() != io::ErrorKind::TimedOut => {}
                Err(e) => return Err(e),
            }
        }
        match self.open(self.connect_deadline(deadline)).await? {
            Opened::Http1(reader, mut writer) => {
                by_deadline(
                    &self.runtime,
                    deadline,
                    write_all(&mut writer, &request.to_http1()),
                )
                .await?;
                Ok(Some(GetConnection::Http1(reader, writer)))
            }
            #[cfg(feature = "http2")]
            Opened::Http2(conn) => self
                .send_h2(conn, &request, deadline)
                .await
                .map(|r| Some(GetConnection::Http2(r))),
        }
    }

    /// `request` as a new stream of `conn`, by `deadline`; a connection
    /// that fails it is not kept.
    #[cfg(feature = "http2")]
    async fn send_h2(
        &mut self,
        mut conn: crate::http2::Connection,
        request: &RequestParts,
        deadline: Instant,
    ) -> Result<crate::http2::Response, TransportError> {
        let sent = by_deadline(&self.runtime, deadline, async {
            conn.ready().await?;
            conn.send(request)
        })
        .await;
        if sent.is_err() {
            self.h2 = None;
        }
        Ok(sent?)
    }
}

impl<R: ClientRuntime> AsyncTransport for AsyncHttpTransport<R> {
    async fn send(
        &mut self,
        transmit: Transmit,
        client: &mut Client,
        pump: Pump<'_>,
    ) -> Result<(), TransportError> {
        self.post(&transmit, client, pump).await?;
        if self.initialized && !self.get_tried && !client.is_stateless() {
            self.open_get(client).await?;
        }
        Ok(())
    }

    async fn receive(&mut self, client: &mut Client) -> Result<bool, TransportError> {
        // Every answer is read by `send`; only the GET stream brings
        // messages unasked. Wait for one up to the timeout.
        let deadline = self.runtime.now() + self.timeout;
        loop {
            let event = {
                let (runtime, get) = (&self.runtime, &mut self.get);
                let Some(get) = get.as_mut() else {
                    return Ok(false);
                };
                let mut timer = snodo_driver::Runtime::timer(runtime, deadline);
                poll_fn(|cx| {
                    if let Poll::Ready(event) = get.poll(runtime, cx) {
                        return Poll::Ready(Some(event));
                    }
                    snodo_driver::Timer::poll_fired(&mut timer, cx).map(|()| None)
                })
                .await
            };
            match event {
                None => return Ok(false),
                Some(event) => {
                    if self.got_on_get(event, client).await {
                        return Ok(true);
                    }
                }
            }
        }
    }

    async fn close(&mut self, client: &Client) -> Result<(), TransportError> {
        self.idle = None;
        self.get = None;
        #[cfg(feature = "http2")]
        let h2 = self.h2.take();
        let Some(request) =
            crate::http::delete_parts(client, &self.target, &self.authority, &self.route)?
        else {
            return Ok(());
        };
        let deadline = self.runtime.now() + self.timeout;
        #[cfg(feature = "http2")]
        if let Some(conn) = h2 {
            match self.send_h2(conn, &request, deadline).await {
                Ok(mut response) => {
                    // Any answer ends the session from this side: its
                    // head will do.
                    by_deadline(&self.runtime, deadline, response.next_event()).await?;
                    return Ok(());
                }
                // The connection is gone (nothing was sent): a new one.
                Err(TransportError::Io(e)) if e.kind() != io::ErrorKind::TimedOut => {}
                Err(e) => return Err(e),
            }
        }
        let (mut reader, mut writer) = match self.open(self.connect_deadline(deadline)).await? {
            Opened::Http1(r, w) => (r, w),
            #[cfg(feature = "http2")]
            Opened::Http2(conn) => {
                self.h2 = None;
                let mut response = self.send_h2(conn, &request, deadline).await?;
                by_deadline(&self.runtime, deadline, response.next_event()).await?;
                return Ok(());
            }
        };
        by_deadline(
            &self.runtime,
            deadline,
            write_all(&mut writer, &request.to_http1()),
        )
        .await?;
        // Any answer ends the session from this side.
        let mut buf = Vec::new();
        read_chunk(&self.runtime, &mut reader, &mut buf, deadline).await?;
        Ok(())
    }

    fn sleep(&self, duration: Duration) -> impl std::future::Future<Output = ()> + Send {
        let runtime = self.runtime.clone();
        async move { crate::runtime::sleep(&runtime, duration).await }
    }
}

/// A connection to the first address of `address` that answers by `by`
/// (the host looked up now, off the runtime's threads): TCP, then
/// TLS on `https://`. Through a proxy (`route`), the TCP connection is the
/// proxy's (its host looked up now), and to an `https://` endpoint the
/// `CONNECT` tunnel opens on it by `by` before TLS starts inside it.
///
/// When the TLS configuration offers only `http/1.1`, its handshake runs
/// with the first flush (the request's, so within the request's
/// deadline). When it offers `h2` too, the handshake runs now, by `by`,
/// to learn what the server picked: `h2` makes it an HTTP/2 connection.
async fn open<R: ClientRuntime>(
    runtime: &R,
    route: &Route,
    address: Address,
    tls: Option<&TlsTarget>,
    by: Instant,
) -> Result<Opened, TransportError> {
    let address = route.address(&address).clone();
    let lookup = runtime.unblock(move || address.resolve());
    let addrs = by_deadline(runtime, by, lookup).await?;
    let (mut reader, mut writer) = connect_by(runtime, addrs, by).await?;
    if let Route::Tunnel { connect, .. } = route {
        by_deadline(runtime, by, write_all(&mut writer, connect)).await?;
        let mut head = Vec::new();
        let mut chunk = Vec::new();
        loop {
            read_chunk(runtime, &mut reader, &mut chunk, by).await?;
            if chunk.is_empty() {
                return Err(connect_cut_short().into());
            }
            head.extend_from_slice(&chunk);
            if connect_answer(&head)?.is_some() {
                break;
            }
        }
    }
    let Some(tls) = tls else {
        return Ok(Opened::Http1(reader, writer));
    };
    #[cfg(feature = "http2")]
    if tls.offers_h2() {
        let handshake = crate::tls_stream::handshaken(tls.connection()?, reader, writer);
        let (reader, writer, alpn) = by_deadline(runtime, by, handshake).await?;
        if alpn.as_deref() == Some(crate::http2::ALPN_H2) {
            let conn = crate::http2::Connection::handshake(runtime, reader, writer);
            return Ok(Opened::Http2(by_deadline(runtime, by, conn).await?));
        }
        return Ok(Opened::Http1(reader, writer));
    }
    let (reader, writer) = crate::tls_stream::wrap(tls.connection()?, reader, writer);
    Ok(Opened::Http1(reader, writer))
}
