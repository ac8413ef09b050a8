//! The blocking session: [`AsyncSession`]'s steps run on the calling
//! thread over a blocking [`Transport`].
//!
//! There is one session, the async one; this is a thin driver of it. A
//! blocking transport is lent to it as an [`AsyncTransport`] whose
//! futures do their I/O when polled and are ready at once, and each call
//! here is the async call run to its end by [`block_on`]. What the
//! session does (the MRTR rounds, tasks, pagination, listening) is
//! therefore the same on both, by construction.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use snodo_proto::client::{Client, ClientConfig, Era, OpId, RequestOptions, Transmit};
use snodo_proto::{
    CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool,
};

use crate::async_session::{AsyncPump, AsyncSession, AsyncTransport, Ended, Step};
use crate::block::block_on;
use crate::error::{Error, TransportError};
use crate::handler::Handler;

/// Moves the machine's messages; see [`HttpTransport`](crate::HttpTransport)
/// and [`StdioTransport`](crate::StdioTransport). `Send`, as the session's
/// [`AsyncTransport`] is, which it is lent as.
pub trait Transport: Send {
    /// Send one message. A transport that reads the answer in the same
    /// exchange (HTTP) feeds it to `client` before returning, calling
    /// `pump` after each message it fed: the session handles the events
    /// (a server request of the initialize era is answered at once, while
    /// the stream that carried it is still open), and whatever that
    /// queues on `client` is the transport's to send before it reads on.
    fn send(
        &mut self,
        transmit: Transmit,
        client: &mut Client,
        pump: Pump<'_>,
    ) -> Result<(), TransportError>;

    /// Wait for the next message from the server and feed it to `client`;
    /// `Ok(false)` when nothing can arrive unasked (HTTP).
    fn receive(&mut self, client: &mut Client) -> Result<bool, TransportError>;

    /// How long the connect probe (`server/discover`) waits for its
    /// answer before the server is taken for one of the initialize era,
    /// which may say nothing to a request before `initialize`
    /// (`basic/transports/stdio.mdx` § Backward Compatibility). `None`
    /// (the default) when the transport always hears something back:
    /// on HTTP every request gets a status.
    fn probe_wait(&self) -> Option<Duration> {
        None
    }

    /// [`receive`](Transport::receive), waiting at most `wait`:
    /// `Ok(None)` when nothing arrived by then. The default waits as
    /// `receive` does.
    fn receive_within(
        &mut self,
        client: &mut Client,
        wait: Duration,
    ) -> Result<Option<bool>, TransportError> {
        let _ = wait;
        self.receive(client).map(Some)
    }

    /// End the session on the server's side, when the transport has a
    /// way to (HTTP, initialize era: `DELETE` with the session id).
    fn close(&mut self, client: &Client) -> Result<(), TransportError> {
        let _ = client;
        Ok(())
    }
}

/// The session's event handling, lent to [`Transport::send`].
pub type Pump<'a> = &'a mut dyn FnMut(&mut Client);

/// A blocking [`Transport`] as the session's [`AsyncTransport`]: each
/// future does the blocking call when polled.
pub(crate) struct Blocking<T>(T);

impl<T: Transport> AsyncTransport for Blocking<T> {
    async fn send(
        &mut self,
        transmit: Transmit,
        client: &mut Client,
        pump: AsyncPump<'_>,
    ) -> Result<(), TransportError> {
        self.0.send(transmit, client, pump)
    }

    async fn receive(&mut self, client: &mut Client) -> Result<bool, TransportError> {
        self.0.receive(client)
    }

    async fn close(&mut self, client: &Client) -> Result<(), TransportError> {
        self.0.close(client)
    }

    fn probe_wait(&self) -> Option<Duration> {
        self.0.probe_wait()
    }

    async fn receive_within(
        &mut self,
        client: &mut Client,
        wait: Duration,
    ) -> Result<Option<bool>, TransportError> {
        self.0.receive_within(client, wait)
    }

    fn sleep(&self, duration: Duration) -> impl std::future::Future<Output = ()> + Send {
        // Not an `async fn`: its future would hold `&self`, and a blocking
        // transport is `Send` but need not be `Sync`.
        std::future::poll_fn(move |_| {
            std::thread::sleep(duration);
            std::task::Poll::Ready(())
        })
    }
}

/// A connected client, blocking: every call returns when its operation
/// has ended. The same calls as [`AsyncSession`], not awaited.
pub struct Session<T, H> {
    inner: AsyncSession<Blocking<T>, H>,
}

impl<T: Transport, H: Handler + Send> Session<T, H> {
    /// [`AsyncSession::connect`]: `server/discover` on 2026-07-28 (a
    /// `-32022` answer is retried with a version the server lists),
    /// `initialize` then `notifications/initialized` on the older
    /// revisions, and the fallback from the first to the second when the
    /// probe finds a server of the initialize era.
    pub fn connect(transport: T, config: ClientConfig, handler: H) -> Result<Self, Error> {
        let inner = block_on(AsyncSession::connect(Blocking(transport), config, handler))?;
        Ok(Session { inner })
    }

    /// A session that has sent nothing yet (no discover, no initialize).
    pub fn new(transport: T, config: ClientConfig, handler: H) -> Self {
        Session {
            inner: AsyncSession::new(Blocking(transport), config, handler),
        }
    }

    /// [`AsyncSession::close`]: on Streamable HTTP in the initialize era,
    /// a `DELETE` ends the session on the server. Dropping a
    /// [`StdioTransport`](crate::StdioTransport) closes the server's stdin
    /// and ends the process.
    pub fn close(self) -> Result<(), Error> {
        block_on(self.inner.close())
    }

    /// The machine (version in use, server facts, session id).
    pub fn client(&self) -> &Client {
        self.inner.client()
    }

    /// [`AsyncSession::era`]: the server's era, as the connect found it.
    pub fn era(&self) -> Era {
        self.inner.era()
    }

    /// [`AsyncSession::version`]: the revision in use.
    pub fn version(&self) -> &str {
        self.inner.version()
    }

    /// The handler.
    pub fn handler_mut(&mut self) -> &mut H {
        self.inner.handler_mut()
    }

    /// [`AsyncSession::request`]: send `method` and run it to its result,
    /// answering input requests with the handler.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Error> {
        block_on(self.inner.request(method, params))
    }

    /// [`AsyncSession::request_with`]: with `progress`, the server's
    /// `notifications/progress` reach [`Handler::notification`] with the
    /// operation's id.
    pub fn request_with(
        &mut self,
        method: &str,
        params: Value,
        options: RequestOptions,
    ) -> Result<Value, Error> {
        block_on(self.inner.request_with(method, params, options))
    }

    /// [`AsyncSession::start`]: send `method` and run it until it
    /// completes or needs input.
    pub fn start(&mut self, method: &str, params: Value) -> Result<Step, Error> {
        block_on(self.inner.start(method, params))
    }

    /// [`AsyncSession::resume`]: retry an operation with the
    /// application's input responses.
    pub fn resume(&mut self, op: OpId, responses: Map<String, Value>) -> Result<Step, Error> {
        block_on(self.inner.resume(op, responses))
    }

    /// [`AsyncSession::await_task`]: follow a task to its end.
    pub fn await_task(&mut self, task: Value) -> Result<Value, Error> {
        block_on(self.inner.await_task(task))
    }

    /// [`AsyncSession::answer_inputs`]: the handler's answer to each input
    /// request.
    pub fn answer_inputs(&mut self, requests: &Map<String, Value>) -> Map<String, Value> {
        self.inner.answer_inputs(requests)
    }

    /// [`AsyncSession::request_as`]: a request's result as `R`.
    pub fn request_as<R: DeserializeOwned>(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<R, Error> {
        block_on(self.inner.request_as(method, params))
    }

    /// [`AsyncSession::call_tool`]: `tools/call`, the result as a
    /// [`CallToolResult`] (a tool execution error has `is_error` set).
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> Result<CallToolResult, Error> {
        block_on(self.inner.call_tool(name, arguments))
    }

    /// [`AsyncSession::call_tool_typed`]: `tools/call`, its
    /// `structuredContent` as `S`.
    pub fn call_tool_typed<S: DeserializeOwned>(
        &mut self,
        name: &str,
        arguments: Value,
    ) -> Result<S, Error> {
        block_on(self.inner.call_tool_typed(name, arguments))
    }

    /// [`AsyncSession::list_tools`]: every tool, following `nextCursor`.
    pub fn list_tools(&mut self) -> Result<Vec<Tool>, Error> {
        block_on(self.inner.list_tools())
    }

    /// [`AsyncSession::list_resources`]: every resource.
    pub fn list_resources(&mut self) -> Result<Vec<Resource>, Error> {
        block_on(self.inner.list_resources())
    }

    /// [`AsyncSession::list_resource_templates`]: every resource template.
    pub fn list_resource_templates(&mut self) -> Result<Vec<ResourceTemplate>, Error> {
        block_on(self.inner.list_resource_templates())
    }

    /// [`AsyncSession::read_resource`]: `resources/read` of `uri`.
    pub fn read_resource(&mut self, uri: &str) -> Result<ReadResourceResult, Error> {
        block_on(self.inner.read_resource(uri))
    }

    /// [`AsyncSession::list_prompts`]: every prompt.
    pub fn list_prompts(&mut self) -> Result<Vec<Prompt>, Error> {
        block_on(self.inner.list_prompts())
    }

    /// [`AsyncSession::get_prompt`]: `prompts/get` of `name`.
    pub fn get_prompt(&mut self, name: &str, arguments: Value) -> Result<GetPromptResult, Error> {
        block_on(self.inner.get_prompt(name, arguments))
    }

    /// [`AsyncSession::list_all`]: every item of a paginated list.
    pub fn list_all(&mut self, method: &str, key: &str) -> Result<Vec<Value>, Error> {
        block_on(self.inner.list_all(method, key))
    }

    /// [`AsyncSession::flush`]: send whatever the machine has queued.
    pub fn flush(&mut self) -> Result<(), Error> {
        block_on(self.inner.flush())
    }

    /// [`AsyncSession::listen`]: open a subscription with `filter` and
    /// hand each of its notifications to `on_notification` until it
    /// returns `false`. Blocks meanwhile.
    pub fn listen(
        &mut self,
        filter: Value,
        on_notification: impl FnMut(&Value) -> bool + Send,
    ) -> Result<Ended, Error> {
        block_on(self.inner.listen(filter, on_notification))
    }
}
