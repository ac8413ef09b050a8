//! The session: the client machine ([`snodo_proto::client::Client`]), an
//! [`AsyncTransport`] and a [`Handler`], and the steps that drive them
//! (connect, requests with their MRTR rounds, tasks, lists, listening).
//!
//! These steps are written once, here. [`AsyncSession`] awaits them over
//! the async transports on tokio, smol or plain threads (features `tokio`,
//! `smol`, `threads`, through their `ClientRuntime`);
//! the blocking [`Session`](crate::Session) runs the same futures on the
//! calling thread over its blocking transports, whose futures are ready at
//! once.

use std::collections::BTreeMap;
use std::future::{poll_fn, Future};
use std::pin::pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use snodo_proto::client::{
    Client, ClientConfig, ClientError, Era, Event, OpId, RequestOptions, Transmit, Wire,
};
use snodo_proto::{
    CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate, Tool,
};

use crate::cancel::Canceller;
use crate::error::{Error, TransportError};
use crate::handler::Handler;
use crate::output_schema::OutputSchemas;
use crate::results;
use crate::tasks::{TaskFollow, TaskStep};

/// Moves the machine's messages on an async runtime; see
/// `AsyncHttpTransport` and
/// `AsyncStdioTransport`. The same contract
/// as [`Transport`](crate::Transport), awaited.
pub trait AsyncTransport: Send {
    /// [`Transport::send`](crate::Transport::send).
    fn send(
        &mut self,
        transmit: Transmit,
        client: &mut Client,
        pump: AsyncPump<'_>,
    ) -> impl Future<Output = Result<(), TransportError>> + Send;

    /// [`Transport::receive`](crate::Transport::receive).
    fn receive(
        &mut self,
        client: &mut Client,
    ) -> impl Future<Output = Result<bool, TransportError>> + Send;

    /// [`Transport::close`](crate::Transport::close).
    fn close(&mut self, client: &Client)
        -> impl Future<Output = Result<(), TransportError>> + Send;

    /// Wait `duration` on the transport's runtime (between task polls).
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send;

    /// [`Transport::probe_wait`](crate::Transport::probe_wait).
    fn probe_wait(&self) -> Option<Duration> {
        None
    }

    /// [`Transport::receive_within`](crate::Transport::receive_within).
    fn receive_within(
        &mut self,
        client: &mut Client,
        wait: Duration,
    ) -> impl Future<Output = Result<Option<bool>, TransportError>> + Send {
        let _ = wait;
        async move { self.receive(client).await.map(Some) }
    }
}

/// The session's event handling, lent to [`AsyncTransport::send`].
pub type AsyncPump<'a> = &'a mut (dyn FnMut(&mut Client) + Send);

/// A listener's tap, sendable across the awaits.
type AsyncTapFn<'a> = &'a mut (dyn FnMut(OpId, &Value) -> Tap + Send);

/// Where an operation stands after [`AsyncSession::start`] or [`AsyncSession::resume`].
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// The result.
    Done(Value),
    /// The server needs input (`basic/patterns/mrtr.mdx`): answer with
    /// [`AsyncSession::resume`].
    InputRequired {
        /// The operation.
        op: OpId,
        /// The input requests, by the server's keys.
        requests: Map<String, Value>,
    },
    /// The answer is a task handle (the Tasks extension declared, see
    /// [`with_tasks`](crate::with_tasks)): finish it with
    /// [`AsyncSession::await_task`].
    Task(Value),
    /// The answer has another `resultType` a declared extension adds.
    Extension {
        /// The `resultType`.
        result_type: String,
        /// The result object.
        result: Value,
    },
}

/// The most MRTR rounds [`AsyncSession::request`] answers for one operation
/// before giving up (a server may ask again and again, § Server
/// Requirements rule 8; a client need not follow forever).
const MAX_ROUNDS: usize = 16;

/// A connected client.
pub struct AsyncSession<T, H> {
    client: Client,
    transport: T,
    handler: H,
    /// Outcomes of operations nobody is waiting for yet.
    parked: BTreeMap<OpId, Event>,
    /// Stops the request being waited for, from elsewhere.
    canceller: Canceller,
    /// The tools' output schemas, from the last `tools/list`.
    schemas: OutputSchemas,
    /// The transport's kind (only 2026-07-28 HTTP has response streams
    /// to re-issue after).
    wire: Wire,
    /// Re-issue a tool call whose response stream broke.
    reissue_tool_calls: bool,
    /// While the connect probe waits, when its wait is bounded (stdio):
    /// past it, the server is taken for a legacy one.
    probe_deadline: Option<Instant>,
}

impl<T: AsyncTransport, H: Handler + Send> AsyncSession<T, H> {
    /// Open a session ([`Client::connect`]): with 2026-07-28 first in the
    /// configuration, the `server/discover` probe (a `-32022` answer is
    /// retried with a version the server lists); with an older revision,
    /// `initialize` then `notifications/initialized`.
    ///
    /// A server the probe finds to be of the initialize era
    /// (`basic/versioning.mdx` § Backward Compatibility: a non-modern
    /// JSON-RPC error, an HTTP `400`/`404`/`405` without one, or on stdio
    /// no answer within the transport's [probe
    /// wait](crate::StdioTransport::with_probe_wait), bounded only when
    /// there is a fallback) is opened with
    /// `initialize` in the newest initialize-era revision the
    /// configuration lists ([`ClientConfig::dual_era`] lists them all),
    /// and [`era`](Self::era) says so for the rest of the session. With
    /// none listed the connect fails with
    /// [`ClientError::LegacyServer`]. HTTP `401`/`403` (after the
    /// authorizer, if any), `5xx` and transport errors fail it as they
    /// come.
    pub async fn connect(transport: T, config: ClientConfig, handler: H) -> Result<Self, Error> {
        let mut session = AsyncSession::new(transport, config, handler);
        let op = session.client.connect();
        session.probe_deadline = session
            .transport
            .probe_wait()
            .filter(|_| session.client.can_fall_back())
            .map(|wait| Instant::now() + wait);
        let outcome = session.finish(op).await;
        session.probe_deadline = None;
        outcome?;
        session.flush().await?;
        Ok(session)
    }

    /// The era of the server, as [`connect`](Self::connect) found it:
    /// [`Era::Legacy`] after a fallback to `initialize` (later requests
    /// then speak that dialect: no per-request `_meta`, the session id).
    pub fn era(&self) -> Era {
        self.client.era()
    }

    /// The revision in use: the one the server accepted (`server/discover`,
    /// a `-32022` retry) or chose (`initialize`).
    pub fn version(&self) -> &str {
        self.client.version()
    }

    /// A session that has sent nothing yet (no discover, no initialize).
    pub fn new(transport: T, config: ClientConfig, handler: H) -> Self {
        AsyncSession {
            wire: config.wire,
            reissue_tool_calls: false,
            probe_deadline: None,
            client: Client::new(config),
            transport,
            handler,
            parked: BTreeMap::new(),
            canceller: Canceller::default(),
            schemas: OutputSchemas::default(),
        }
    }

    /// Whether a `tools/call` whose 2026-07-28 response stream broke is
    /// sent again as a new request (`changelog.mdx`, major change 9).
    /// Off by default: the tool may have acted before the stream broke,
    /// and only the application knows whether acting twice is harmless;
    /// the loss is then reported as `NoResponse` (or the transport's
    /// error). Lists, reads, `prompts/get`, `completion/complete`, `ping`
    /// and `server/discover` (sent with [`request`](Self::request)) are
    /// always re-issued, up to twice.
    pub fn reissue_tool_calls(&mut self, reissue: bool) {
        self.reissue_tool_calls = reissue;
    }

    /// Whether a request of `method` that failed with `error` is sent again.
    fn may_reissue(&self, method: &str, error: &Error) -> bool {
        use crate::reissue::{is_broken_stream, policy, Reissue};
        let allowed = match policy(method) {
            Reissue::Safe => true,
            Reissue::ToolCall => self.reissue_tool_calls,
            Reissue::Never => false,
        };
        allowed && self.wire == Wire::Http && self.client.is_stateless() && is_broken_stream(error)
    }

    /// A handle that cancels the request this session is waiting for
    /// (`basic/patterns/cancellation.mdx`), from another task or thread:
    /// the wait ends with [`Error::Cancelled`], the server is told, and
    /// a late answer is ignored. On the blocking
    /// [`Session`](crate::Session) a cancel takes effect only once the
    /// transport returns (its reads block the thread).
    pub fn canceller(&self) -> Canceller {
        self.canceller.clone()
    }

    /// Cancel `op`, an operation [`start`](AsyncSession::start) or
    /// [`resume`](AsyncSession::resume) left waiting for input, instead
    /// of resuming it; on stdio and on initialize-era HTTP a
    /// `notifications/cancelled` goes out.
    pub async fn cancel(&mut self, op: OpId, reason: Option<&str>) -> Result<(), Error> {
        self.client.cancel(op, reason);
        self.parked.remove(&op);
        self.flush().await
    }

    /// End the session: on Streamable HTTP in the initialize era, a
    /// `DELETE` tells the server it may drop the session (2025-11-25
    /// `basic/transports.mdx` § AsyncSession Management: clients SHOULD).
    /// Dropping a [`StdioTransport`](crate::StdioTransport) closes the
    /// server's stdin and ends the process.
    pub async fn close(mut self) -> Result<(), Error> {
        self.transport.close(&self.client).await?;
        Ok(())
    }

    /// The machine (version in use, server facts, session id).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The transport (what it negotiated, say: `AsyncHttpTransport`'s
    /// `http_version`).
    pub fn transport(&self) -> &T {
        &self.transport
    }

    /// The handler.
    pub fn handler_mut(&mut self) -> &mut H {
        &mut self.handler
    }

    /// Send `method` and run it to its result, answering input requests
    /// with the handler.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, Error> {
        self.request_with(method, params, RequestOptions::default())
            .await
    }

    /// [`request`](AsyncSession::request) with options: with `progress`, the
    /// server's `notifications/progress` reach
    /// [`Handler::notification`] with the operation's id.
    pub async fn request_with(
        &mut self,
        method: &str,
        params: Value,
        options: RequestOptions,
    ) -> Result<Value, Error> {
        let mut reissues = 0;
        let mut step = loop {
            // Each issue is a new request with a new id.
            let op = self.client.request_with(method, params.clone(), options);
            match self.run(op).await {
                Err(e)
                    if reissues < crate::reissue::MAX_REISSUES && self.may_reissue(method, &e) =>
                {
                    reissues += 1;
                }
                outcome => break outcome?,
            }
        };
        for _ in 0..MAX_ROUNDS {
            match step {
                Step::Done(result) => return Ok(result),
                Step::Task(task) => return Box::pin(self.follow_task(method, task)).await,
                Step::Extension { result, .. } => return Ok(result),
                Step::InputRequired { op, requests } => {
                    let responses = self.answer_inputs(&requests);
                    step = self.resume(op, responses).await?;
                }
            }
        }
        match step {
            Step::Done(result) => Ok(result),
            Step::Task(task) => Box::pin(self.follow_task(method, task)).await,
            Step::Extension { result, .. } => Ok(result),
            Step::InputRequired { op, .. } => {
                self.client.cancel(op, Some("too many input rounds"));
                let _ = self.flush().await;
                Err(Error::InputRounds(MAX_ROUNDS))
            }
        }
    }

    /// Send `method` and run it until it completes or needs input.
    pub async fn start(&mut self, method: &str, params: Value) -> Result<Step, Error> {
        let op = self.client.request(method, params);
        self.run(op).await
    }

    /// Retry an operation with the application's input responses.
    pub async fn resume(&mut self, op: OpId, responses: Map<String, Value>) -> Result<Step, Error> {
        self.client.answer(op, responses).map_err(Error::Answer)?;
        self.run(op).await
    }

    /// Follow a task (the Tasks extension, `io.modelcontextprotocol/tasks`)
    /// to its end, as [`TaskFollow`] says: `tasks/get` every
    /// `pollIntervalMs` while it is `working`; its input requests (each
    /// key once) answered by the handler through `tasks/update`; the tool's result
    /// once `completed`, its error once `failed`.
    pub async fn await_task(&mut self, task: Value) -> Result<Value, Error> {
        self.follow_task("tools/call", task).await
    }

    /// [`await_task`](AsyncSession::await_task) for the task a `method` request
    /// was answered with: only a request the extension lists may become a
    /// task (`tasks.md` § Supported Methods).
    async fn follow_task(&mut self, method: &str, task: Value) -> Result<Value, Error> {
        let mut follow = TaskFollow::from_result(method, &task)?
            .ok_or_else(|| Error::Client(ClientError::Malformed(String::from("not a task"))))?;
        let mut state = task;
        let mut rounds = 0;
        loop {
            match follow.step(&state)? {
                TaskStep::Completed(result) => return Ok(result),
                TaskStep::Failed(error) => return Err(Error::Client(error)),
                TaskStep::Cancelled => return Err(Error::Client(ClientError::Cancelled)),
                TaskStep::Input { requests } => {
                    rounds += 1;
                    if rounds > MAX_ROUNDS {
                        return Err(Error::InputRounds(MAX_ROUNDS));
                    }
                    let responses = self.answer_inputs(&requests);
                    let params = follow.update_params(responses);
                    self.request("tasks/update", params).await?;
                }
                TaskStep::Poll { after } => self.transport.sleep(after).await,
            }
            state = self.request("tasks/get", follow.get_params()).await?;
        }
    }

    /// The handler's answer to each input request. A request the handler
    /// refuses is left out: the server asks again or fails the call.
    pub fn answer_inputs(&mut self, requests: &Map<String, Value>) -> Map<String, Value> {
        let mut responses = Map::new();
        for (key, request) in requests {
            let method = request["method"].as_str().unwrap_or("");
            let params = request.get("params").cloned().unwrap_or(Value::Null);
            if let Ok(result) = self.handler.dispatch(method, &params) {
                responses.insert(key.clone(), result);
            }
        }
        responses
    }

    /// `result` of a request as `R`, for a method or an extension whose
    /// result type the caller knows (`server/discover`'s, say).
    pub async fn request_as<R: DeserializeOwned>(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<R, Error> {
        let result = self.request(method, params).await?;
        results::decode("the method's result type", result)
    }

    /// `tools/call` (`server/tools.mdx` § Calling Tools): the result as a
    /// [`CallToolResult`]. A tool execution error is a result with
    /// `is_error` set, not an `Err`: its content is for the model. For a
    /// tool whose `outputSchema` the last [`list_tools`](Self::list_tools)
    /// gave, the `structuredContent` is checked against it (§ Output
    /// Schema, clients SHOULD validate): [`Error::OutputSchema`] when it
    /// does not match or is missing.
    pub async fn call_tool(
        &mut self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, Error> {
        let result = self
            .request("tools/call", json!({"name": name, "arguments": arguments}))
            .await?;
        let result: CallToolResult = results::decode("a CallToolResult", result)?;
        self.schemas.check(name, &result)?;
        Ok(result)
    }

    /// `tools/call`, its `structuredContent` as `S` (§ Structured
    /// Content): [`Error::ToolFailed`] when the tool reports an execution
    /// error, [`Error::Decode`] when there is no structured content or it
    /// is not a `S`.
    pub async fn call_tool_typed<S: DeserializeOwned>(
        &mut self,
        name: &str,
        arguments: Value,
    ) -> Result<S, Error> {
        let result = self.call_tool(name, arguments).await?;
        results::structured(result)
    }

    /// Every tool, following `nextCursor` (over HTTP without the tools
    /// whose `x-mcp-header` annotations are invalid). A tool that is not a
    /// `Tool` (no `inputSchema`, say) is left out and reported to
    /// [`Handler::tool_rejected`], as an invalid annotation is.
    pub async fn list_tools(&mut self) -> Result<Vec<Tool>, Error> {
        let items = self.list_all("tools/list", "tools").await?;
        let (tools, bad) = results::decode_items(items);
        for (name, why) in bad {
            self.handler.tool_rejected(&name, &why);
        }
        self.schemas.learn(&tools);
        Ok(tools)
    }

    /// Every resource (`resources/list`, following `nextCursor`); an entry
    /// that is not a `Resource` is left out.
    pub async fn list_resources(&mut self) -> Result<Vec<Resource>, Error> {
        let items = self.list_all("resources/list", "resources").await?;
        Ok(results::decode_items(items).0)
    }

    /// Every resource template (`resources/templates/list`, following
    /// `nextCursor`); an entry that is not a `ResourceTemplate` is left out.
    pub async fn list_resource_templates(&mut self) -> Result<Vec<ResourceTemplate>, Error> {
        let items = self
            .list_all("resources/templates/list", "resourceTemplates")
            .await?;
        Ok(results::decode_items(items).0)
    }

    /// `resources/read` of `uri` (`server/resources.mdx` § Reading Resources).
    pub async fn read_resource(&mut self, uri: &str) -> Result<ReadResourceResult, Error> {
        let result = self.request("resources/read", json!({"uri": uri})).await?;
        results::decode("a ReadResourceResult", result)
    }

    /// Every prompt (`prompts/list`, following `nextCursor`); an entry that
    /// is not a `Prompt` is left out.
    pub async fn list_prompts(&mut self) -> Result<Vec<Prompt>, Error> {
        let items = self.list_all("prompts/list", "prompts").await?;
        Ok(results::decode_items(items).0)
    }

    /// `prompts/get` of `name` with `arguments` (an object of strings,
    /// `server/prompts.mdx` § Getting a Prompt; `Value::Null` sends none).
    pub async fn get_prompt(
        &mut self,
        name: &str,
        arguments: Value,
    ) -> Result<GetPromptResult, Error> {
        let mut params = json!({"name": name});
        if !arguments.is_null() {
            params["arguments"] = arguments;
        }
        let result = self.request("prompts/get", params).await?;
        results::decode("a GetPromptResult", result)
    }

    /// Every item of a paginated list (`server/utilities/pagination.mdx`):
    /// `method` again with each `nextCursor` until there is none.
    pub async fn list_all(&mut self, method: &str, key: &str) -> Result<Vec<Value>, Error> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        // A server that hands out cursors forever is cut off.
        for _ in 0..10_000 {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let result = self.request(method, params).await?;
            if let Some(Value::Array(page)) = result.get(key) {
                items.extend(page.iter().cloned());
            }
            match snodo_proto::client::next_cursor(&result) {
                Some(next) => cursor = Some(String::from(next)),
                None => return Ok(items),
            }
        }
        Ok(items)
    }

    /// Send whatever the machine has queued (answers to server requests,
    /// `notifications/initialized`).
    pub async fn flush(&mut self) -> Result<(), Error> {
        while let Some(t) = self.client.poll_transmit() {
            self.send(t).await?;
        }
        Ok(())
    }

    async fn finish(&mut self, op: OpId) -> Result<Value, Error> {
        match self.run(op).await? {
            Step::Done(result) => Ok(result),
            Step::Task(_) | Step::Extension { .. } | Step::InputRequired { .. } => {
                Err(Error::Client(snodo_proto::client::ClientError::Malformed(
                    String::from("input required"),
                )))
            }
        }
    }

    /// Drive the machine until `op` completes, fails or needs input.
    async fn run(&mut self, op: OpId) -> Result<Step, Error> {
        let canceller = self.canceller.clone();
        canceller.begin();
        let waited = {
            let mut inner = pin!(self.run_inner(op));
            poll_fn(|cx| match inner.as_mut().poll(cx) {
                Poll::Ready(outcome) => Poll::Ready(Ok(outcome)),
                Poll::Pending => canceller.poll_cancelled(cx).map(Err),
            })
            .await
        };
        canceller.end();
        let outcome = match waited {
            Ok(outcome) => outcome,
            Err(reason) => {
                // The wait was dropped mid-way (on HTTP its connection
                // with it: the 2026-07-28 signal); elsewhere the
                // notification goes out now.
                let why = reason.as_deref().unwrap_or("cancelled by the client");
                self.client.cancel(op, Some(why));
                self.flush().await?;
                return Err(Error::Cancelled(reason));
            }
        };
        if outcome.is_err() && self.client.is_live(op) {
            // The transport failed (a timeout, a broken connection): the
            // operation is abandoned, not left in flight. On stdio that is
            // a `notifications/cancelled`, sent ahead of the next message;
            // on HTTP the dropped connection already said so.
            self.client.cancel(op, Some("the client stopped waiting"));
        }
        outcome
    }

    async fn run_inner(&mut self, op: OpId) -> Result<Step, Error> {
        loop {
            if let Some(event) = self.parked.remove(&op) {
                return match event {
                    Event::Completed { result, .. } => Ok(Step::Done(result)),
                    Event::Failed { error, .. } => Err(Error::Client(error)),
                    Event::InputRequired { op, requests } => {
                        Ok(Step::InputRequired { op, requests })
                    }
                    Event::ExtensionResult {
                        result_type,
                        result,
                        ..
                    } => Ok(match result_type.as_str() {
                        "task" => Step::Task(result),
                        _ => Step::Extension {
                            result_type,
                            result,
                        },
                    }),
                    _ => unreachable!("only outcomes are parked"),
                };
            }
            if let Some(t) = self.client.poll_transmit() {
                self.send(t).await?;
                continue;
            }
            if !self.client.is_live(op) && !self.parked.contains_key(&op) {
                return Err(Error::Client(snodo_proto::client::ClientError::NoResponse));
            }
            let received = match self.probe_deadline.filter(|_| self.client.is_probing()) {
                None => Some(self.transport.receive(&mut self.client).await?),
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    match left.is_zero() {
                        true => None,
                        false => {
                            self.transport
                                .receive_within(&mut self.client, left)
                                .await?
                        }
                    }
                }
            };
            match received {
                Some(true) => {}
                Some(false) => {
                    return Err(Error::Client(snodo_proto::client::ClientError::NoResponse))
                }
                // `basic/transports/stdio.mdx` § Backward Compatibility:
                // no answer to the probe within a reasonable time marks a
                // legacy server; the machine queues `initialize`.
                None => {
                    self.client.probe_unanswered();
                }
            }
            drain(
                &mut self.client,
                &mut self.handler,
                &mut self.parked,
                &mut |_, _| Tap::Pass,
            );
        }
    }

    async fn send(&mut self, transmit: Transmit) -> Result<(), TransportError> {
        self.send_tapped(transmit, &mut |_, _| Tap::Pass).await
    }

    async fn send_tapped(
        &mut self,
        transmit: Transmit,
        tap: AsyncTapFn<'_>,
    ) -> Result<(), TransportError> {
        let (handler, parked) = (&mut self.handler, &mut self.parked);
        let mut pump = |client: &mut Client| drain(client, handler, parked, &mut *tap);
        self.transport
            .send(transmit, &mut self.client, &mut pump)
            .await?;
        drain(&mut self.client, &mut self.handler, &mut self.parked, tap);
        Ok(())
    }

    /// Open a subscription (`basic/patterns/subscriptions.mdx`) with
    /// `filter` (`{"toolsListChanged": true, ...}`) and hand each of its
    /// notifications, the acknowledgment first, to `on_notification`
    /// until it returns `false`: the client then ends the subscription
    /// (closing the stream on HTTP, `notifications/cancelled` on stdio).
    /// Other notifications go to the handler. Blocks meanwhile.
    pub async fn listen(
        &mut self,
        filter: Value,
        mut on_notification: impl FnMut(&Value) -> bool + Send,
    ) -> Result<Ended, Error> {
        let op = self.client.listen(filter);
        let mut tap = |o: OpId, message: &Value| match o == op {
            false => Tap::Pass,
            true if on_notification(message) => Tap::Keep,
            true => Tap::Stop,
        };
        loop {
            match self.parked.remove(&op) {
                Some(Event::Completed { result, .. }) => return Ok(Ended::ByServer(result)),
                Some(Event::Failed { error, .. }) => return Err(Error::Client(error)),
                Some(_) => {
                    let why = String::from("input required on subscriptions/listen");
                    return Err(Error::Client(snodo_proto::client::ClientError::Malformed(
                        why,
                    )));
                }
                None => {}
            }
            if let Some(t) = self.client.poll_transmit() {
                self.send_tapped(t, &mut tap).await?;
                continue;
            }
            if !self.client.is_live(op) {
                return Ok(Ended::ByClient);
            }
            if !self.transport.receive(&mut self.client).await? {
                return Err(Error::Client(snodo_proto::client::ClientError::NoResponse));
            }
            drain(
                &mut self.client,
                &mut self.handler,
                &mut self.parked,
                &mut tap,
            );
        }
    }
}

/// How a [`listen`](AsyncSession::listen) ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ended {
    /// The callback said stop.
    ByClient,
    /// The server closed the subscription gracefully with this result.
    ByServer(Value),
}

/// Whether a notification is the listener's, and what it decided.
enum Tap {
    /// Not the listener's: the handler's.
    Pass,
    /// The listener took it and goes on.
    Keep,
    /// The listener took it and ends the subscription.
    Stop,
}

/// Handle notifications (a listener's first) and server requests; park
/// outcomes.
fn drain<H: Handler>(
    client: &mut Client,
    handler: &mut H,
    parked: &mut BTreeMap<OpId, Event>,
    tap: AsyncTapFn<'_>,
) {
    while let Some(event) = client.poll_event() {
        match event {
            Event::Completed { op, .. }
            | Event::Failed { op, .. }
            | Event::InputRequired { op, .. }
            | Event::ExtensionResult { op, .. } => {
                parked.insert(op, event);
            }
            Event::Notification { op, message } => match op.map(|o| (o, tap(o, &message))) {
                Some((_, Tap::Keep)) => {}
                Some((o, Tap::Stop)) => {
                    client.cancel(o, None);
                }
                None | Some((_, Tap::Pass)) => handler.notification(op, &message),
            },
            Event::ServerRequest { id, method, params } => {
                let outcome = handler.dispatch(&method, &params);
                client.respond(id, outcome);
            }
            Event::ToolRejected { name, reason } => handler.tool_rejected(&name, &reason),
        }
    }
}
