//! Streamable HTTP on an async runtime (`basic/transports/streamable-http.mdx`).
//!
//! Each message is a POST ([`Exchange`] writes it and reads its answer
//! into the machine); a connection whose answer was read to its framed
//! end is kept for the next POST. A kept connection the server has
//! closed meanwhile is noticed when its answer ends before it began, and
//! the POST goes once more on a new connection.

use std::future::{poll_fn, Future};
use std::io;
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use snodo_proto::client::exchange::{Exchange, ExchangeLimits, Step};
use snodo_proto::client::http::encode_request;
use snodo_proto::client::sse::SseLimits;
use snodo_proto::client::{Authorizer, Client, Transmit};

use crate::async_get::{GetEvent, GetStream};

use crate::async_session::{AsyncPump as Pump, AsyncTransport};
use crate::endpoint::{Address, Endpoint};
use crate::error::TransportError;
use crate::proxy::{connect_answer, connect_cut_short, ProxySettings, RefusalProbe, Route};
use crate::runtime::{
    by_deadline, connect_by, read_chunk, write_all, ClientRuntime, Reader, Writer,
};
use crate::tls::{TlsConfig, TlsTarget};

/// The most 401/403 answers one message is resent after: an authorizer
/// that keeps saying "try again" cannot make the client loop.
const MAX_CHALLENGES: usize = 4;

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
    /// The initialize era's GET stream, once opened.
    get: Option<GetStream<R>>,
    /// Opening it was tried (a server may refuse it with 405).
    get_tried: bool,
    /// `notifications/initialized` went out: the GET stream may open.
    initialized: bool,
}

/// What a POST's wait saw first.
enum Woke {
    /// The POST's connection: a chunk (empty at its end) or an error.
    Post(io::Result<()>),
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
            config: TlsConfig::default().rustls_config(),
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
    /// CA's, say); no effect on `http://`.
    pub fn with_tls(mut self, config: &TlsConfig) -> Self {
        if let Some(tls) = &mut self.tls {
            tls.config = config.rustls_config();
        }
        self
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
            let (mut exchange, request) = Exchange::start(
                transmit_here,
                &self.route.target(&self.authority, &self.target),
                &self.authority,
                authorization,
                self.authorizer.is_some() && challenges < MAX_CHALLENGES,
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

    /// Write `request` and read its answer to a step other than
    /// [`Step::Read`], sending what the messages read queue meanwhile (an
    /// initialize-era answer to a server request on this stream).
    async fn run(
        &mut self,
        exchange: &mut Exchange,
        request: &[u8],
        open_ended: bool,
        client: &mut Client,
        pump: Pump<'_>,
    ) -> Result<Step, TransportError> {
        let mut buf = Vec::new();
        // One deadline for the whole request: every read below waits for
        // what is left of it, not for a fresh timeout each.
        let mut deadline = self.runtime.now() + self.timeout;
        let (mut reader, mut writer, mut kept) = match self.idle.take() {
            Some((r, w)) => (r, w, true),
            None => {
                let (r, w) = open(
                    &self.runtime,
                    &self.route,
                    self.address.clone(),
                    self.tls.as_ref(),
                    self.connect_deadline(deadline),
                )
                .await?;
                (r, w, false)
            }
        };
        let mut answered = false;
        loop {
            let sent = by_deadline(&self.runtime, deadline, write_all(&mut writer, request)).await;
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
            let (r, w) = open(
                &self.runtime,
                &self.route,
                self.address.clone(),
                self.tls.as_ref(),
                self.connect_deadline(deadline),
            )
            .await?;
            (reader, writer, kept) = (r, w, false);
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
            pump(client);
            while let Some(reply) = client.poll_transmit() {
                Box::pin(self.post(&reply, client, &mut *pump)).await?;
            }
            let step = match step {
                Step::Read => exchange.settle(client),
                step => step,
            };
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

    /// Read the next chunk of a POST's answer into `buf`, by `deadline`;
    /// meanwhile, what arrives on the GET stream goes to the machine and
    /// the answers it queues are POSTed (that POST's answer may wait for
    /// them), and a GET stream closed for polling is reopened.
    async fn read_post(
        &mut self,
        reader: &mut Reader,
        buf: &mut Vec<u8>,
        deadline: Instant,
        client: &mut Client,
        pump: Pump<'_>,
    ) -> io::Result<()> {
        loop {
            let woke = {
                let (runtime, get) = (&self.runtime, &mut self.get);
                let mut read = pin!(read_chunk(runtime, reader, buf, deadline));
                poll_fn(|cx| {
                    if let Poll::Ready(r) = read.as_mut().poll(cx) {
                        return Poll::Ready(Woke::Post(r));
                    }
                    match get.as_mut().map(|g| g.poll(runtime, cx)) {
                        Some(Poll::Ready(event)) => Poll::Ready(Woke::Get(event)),
                        _ => Poll::Pending,
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
                    Ok(Some((reader, writer))) => {
                        if let Some(get) = &mut self.get {
                            get.reopened(reader, writer);
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
        if let Some((reader, writer)) = self.get_connection(client, None).await? {
            self.get = Some(GetStream::opened(reader, writer, SseLimits::default()));
        }
        Ok(())
    }

    /// A new connection with the GET written on it (with `Last-Event-ID`
    /// when resuming, § Resumability and Redelivery); `None` when the
    /// session has no id to send.
    async fn get_connection(
        &mut self,
        client: &Client,
        last_event_id: Option<&str>,
    ) -> Result<Option<(Reader, Writer)>, TransportError> {
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
        let request = encode_request(
            "GET",
            &self.route.target(&self.authority, &self.target),
            &self.authority,
            &headers,
            None,
        )
        .map_err(TransportError::Http)?;
        let deadline = self.runtime.now() + self.timeout;
        let (reader, mut writer) = open(
            &self.runtime,
            &self.route,
            self.address.clone(),
            self.tls.as_ref(),
            self.connect_deadline(deadline),
        )
        .await?;
        by_deadline(&self.runtime, deadline, write_all(&mut writer, &request)).await?;
        Ok(Some((reader, writer)))
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
        let Some(request) =
            crate::http::delete_request(client, &self.target, &self.authority, &self.route)?
        else {
            return Ok(());
        };
        let deadline = self.runtime.now() + self.timeout;
        let (mut reader, mut writer) = open(
            &self.runtime,
            &self.route,
            self.address.clone(),
            self.tls.as_ref(),
            self.connect_deadline(deadline),
        )
        .await?;
        by_deadline(&self.runtime, deadline, write_all(&mut writer, &request)).await?;
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
/// TLS on `https://` (its handshake runs with the first flush, the
/// request's, and so within the request's deadline). Through a proxy
/// (`route`), the TCP connection is the proxy's (its host looked up now),
/// and to an `https://` endpoint the `CONNECT` tunnel opens on it by `by`
/// before TLS starts inside it.
async fn open<R: ClientRuntime>(
    runtime: &R,
    route: &Route,
    address: Address,
    tls: Option<&TlsTarget>,
    by: Instant,
) -> Result<(Reader, Writer), TransportError> {
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
    Ok(match tls {
        None => (reader, writer),
        Some(tls) => crate::tls_stream::wrap(tls.connection()?, reader, writer),
    })
}
