//! # snodo-testkit
//!
//! An MCP client that talks to a [`Service`] in-process, for an
//! application's own tests: it calls tools, reads resources, gets prompts,
//! runs Multi Round-Trip Request rounds (`basic/patterns/mrtr.mdx`) and
//! opens `subscriptions/listen` streams, with no socket, no pipe and no
//! runtime.
//!
//! It drives a real [`Connection`] on the stdio transport by its driving
//! contract (`snodo_proto::connection`): every request is a JSON line
//! through the same admission, validation and shaping a deployed server
//! runs, and every answer is the line the server would write. Handlers run
//! inside the awaiting future, so the client works under any executor
//! (`#[tokio::test]`, smol, or [`block_on`] for handlers that need no
//! runtime's I/O).
//!
//! ```
//! use snodo_proto::{CallToolResult, Service, Tool};
//! use snodo_testkit::{block_on, TestClient};
//!
//! let service = Service::builder()
//!     .tool(Tool::new("hello", "Say hello"), || async {
//!         CallToolResult::text("Hello!")
//!     })
//!     .build()
//!     .unwrap();
//! let mut client = TestClient::new(&service);
//! let result = block_on(client.call_tool("hello", serde_json::json!({}))).unwrap();
//! assert_eq!(result.content[0], snodo_proto::Content::text("Hello!"));
//! ```
//!
//! [`assert_schema_valid`] checks what a test received against a definition
//! of the specification's `schema.json`, and [`assert_json_schema_2020_12`]
//! a tool's `inputSchema` or `outputSchema` against the 2020-12 meta-schema.
//!
//! A handler's blocking work
//! ([`Context::spawn_blocking`](snodo_proto::Context::spawn_blocking)) runs
//! on a thread of its own, as on `snodo-blocking`.
//!
//! A [`Gate`] around a tool holds its answers while the test watches the
//! call in progress (a task's `working` status, progress), whatever the
//! machine's speed.
//!
//! Deadlines (`call_timeout`, `requestState` expiry) are read against the
//! real clock whenever the client drives the connection, but nothing wakes
//! a waiting client for a deadline alone: a test of timeouts drives a
//! [`Connection`] itself.

#![warn(missing_docs)]

mod gate;
mod schema;

pub use gate::Gate;
pub use schema::{assert_json_schema_2020_12, assert_schema_valid};

use std::collections::VecDeque;
use std::fmt;
use std::future::{poll_fn, Future};
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use snodo_proto::time::Clock;
use snodo_proto::{
    CallTask, CallToolResult, ChangeEvent, Connection, GetPromptResult, Instant, Output,
    ReadResourceResult, Service, Tool, Transport, PROTOCOL_VERSION,
};

/// A JSON-RPC error the server answered with.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    /// The code (`snodo_proto::code`).
    pub code: i64,
    /// The message.
    pub message: String,
    /// The data, if any.
    pub data: Option<Value>,
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for RpcError {}

/// The answer to a request that may ask for input first.
#[derive(Debug)]
pub enum Answer<T> {
    /// The final result (`resultType: "complete"`).
    Complete(T),
    /// The server asked for input (`resultType: "input_required"`): answer
    /// with [`TestClient::retry`].
    InputRequired(Pending<T>),
}

impl<T> Answer<T> {
    /// The final result; panics, naming the input requests, if the server
    /// asked for input.
    pub fn complete(self) -> T {
        match self {
            Answer::Complete(t) => t,
            Answer::InputRequired(p) => {
                panic!(
                    "the server asked for input: {}",
                    Value::Object(p.input_requests)
                )
            }
        }
    }

    /// The input request; panics if the result was final.
    pub fn input_required(self) -> Pending<T> {
        match self {
            Answer::InputRequired(p) => p,
            Answer::Complete(_) => panic!("the server answered without asking for input"),
        }
    }
}

/// A request the server asked input for, to retry with the answers.
#[derive(Debug)]
pub struct Pending<T> {
    /// `inputRequests`: key → the request (`elicitation/create`,
    /// `sampling/createMessage`, `roots/list`).
    pub input_requests: Map<String, Value>,
    /// `requestState`, sent back verbatim on the retry.
    pub request_state: Option<Value>,
    method: String,
    params: Map<String, Value>,
    answer: PhantomData<fn() -> T>,
}

/// A `subscriptions/listen` stream opened by [`TestClient::listen`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listen {
    id: i64,
    /// The filter the server honoured (its acknowledgement's
    /// `notifications`).
    pub honoured: Value,
}

/// An in-process client of one [`Connection`] to a [`Service`].
pub struct TestClient {
    conn: Connection,
    clock: Clock,
    next_id: i64,
    meta: Map<String, Value>,
    /// Calls the connection handed out that were not ready at once.
    running: Vec<CallTask>,
    /// Bytes of a line not yet complete.
    partial: Vec<u8>,
    /// Messages read and not yet claimed.
    inbox: VecDeque<Value>,
    closed: bool,
}

impl fmt::Debug for TestClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestClient")
            .field("next_id", &self.next_id)
            .field("running", &self.running.len())
            .field("unclaimed", &self.inbox.len())
            .finish()
    }
}

impl TestClient {
    /// A client of `service` on a fresh connection. It declares every
    /// client capability a server may ask input through (form and URL
    /// elicitation, sampling, roots); see
    /// [`with_capabilities`](TestClient::with_capabilities).
    pub fn new(service: &Service) -> TestClient {
        let since_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let clock = Clock::anchored(since_epoch, std::time::Instant::now());
        let now = clock.at(std::time::Instant::now());
        let mut meta = Map::new();
        meta.insert(
            "io.modelcontextprotocol/protocolVersion".into(),
            Value::from(PROTOCOL_VERSION),
        );
        meta.insert(
            "io.modelcontextprotocol/clientCapabilities".into(),
            json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}),
        );
        let mut conn = Connection::new(service, Transport::Stdio, now);
        conn.set_executor(blocking_threads());
        TestClient {
            conn,
            clock,
            next_id: 1,
            meta,
            running: Vec::new(),
            partial: Vec::new(),
            inbox: VecDeque::new(),
            closed: false,
        }
    }

    /// Declare these client capabilities instead
    /// (`io.modelcontextprotocol/clientCapabilities`).
    pub fn with_capabilities(mut self, capabilities: Value) -> TestClient {
        self.meta.insert(
            "io.modelcontextprotocol/clientCapabilities".into(),
            capabilities,
        );
        self
    }

    /// Send `key` in every request's `_meta` (`clientInfo`, a
    /// `traceparent`, an application key).
    pub fn with_meta(mut self, key: &str, value: Value) -> TestClient {
        self.meta.insert(key.into(), value);
        self
    }

    fn now(&self) -> Instant {
        self.clock.at(std::time::Instant::now())
    }

    /// Send one raw line (without its newline) as the client would, and
    /// return nothing: read what comes back with
    /// [`next_message`](TestClient::next_message). For wire-level tests.
    pub fn send_line(&mut self, line: &str) {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let now = self.now();
        self.conn.handle_input(&bytes, now);
        self.drain();
    }

    /// The next message the server writes, whatever it is.
    pub async fn next_message(&mut self) -> Value {
        self.wait_for(|_| true).await
    }

    /// Notifications read and not claimed by a request or a listen
    /// stream, oldest first (progress, log messages), without waiting.
    pub fn take_notifications(&mut self) -> Vec<Value> {
        self.pump_once();
        let (notes, rest): (VecDeque<Value>, VecDeque<Value>) = self
            .inbox
            .drain(..)
            .partition(|m| m.get("id").is_none() && m.get("method").is_some());
        self.inbox = rest;
        notes.into()
    }

    /// Send `method` with `params` (an object; its `_meta` members are
    /// added to the client's own), and wait for the response: the `result`
    /// object as sent, or the error.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.send_request(method, params);
        let response = self
            .wait_for(|m| m.get("id") == Some(&Value::from(id)) && m.get("method").is_none())
            .await;
        into_result(response)
    }

    fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        let mut params = match params {
            Value::Object(m) => m,
            Value::Null => Map::new(),
            other => panic!("params must be an object, not {other}"),
        };
        let mut meta = self.meta.clone();
        if let Some(Value::Object(extra)) = params.remove("_meta") {
            meta.extend(extra);
        }
        params.insert("_meta".into(), Value::Object(meta));
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(&line.to_string());
        id
    }

    /// `server/discover`'s result.
    pub async fn discover(&mut self) -> Result<Value, RpcError> {
        self.request("server/discover", json!({})).await
    }

    /// Every tool, following `nextCursor` through all pages.
    pub async fn list_tools(&mut self) -> Result<Vec<Tool>, RpcError> {
        self.list_all("tools/list", "tools").await
    }

    /// Every entry of a list method (`tools/list` → `tools`,
    /// `prompts/list` → `prompts`, `resources/list` → `resources`,
    /// `resources/templates/list` → `resourceTemplates`), all pages.
    pub async fn list_all<T: DeserializeOwned>(
        &mut self,
        method: &str,
        key: &str,
    ) -> Result<Vec<T>, RpcError> {
        let mut all = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let params = match cursor.take() {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let mut page = self.request(method, params).await?;
            let items: Vec<T> = decode(page.get_mut(key).map(Value::take).unwrap_or_default());
            all.extend(items);
            match page.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = Some(c.clone()),
                _ => return Ok(all),
            }
        }
    }

    /// `tools/call`: the final result; panics if the tool asks for input
    /// (use [`call_tool_rounds`](TestClient::call_tool_rounds) for that).
    pub async fn call_tool(
        &mut self,
        name: &str,
        arguments: Value,
    ) -> Result<CallToolResult, RpcError> {
        Ok(self.call_tool_rounds(name, arguments).await?.complete())
    }

    /// `tools/call`, which may ask for input.
    pub async fn call_tool_rounds(
        &mut self,
        name: &str,
        arguments: Value,
    ) -> Result<Answer<CallToolResult>, RpcError> {
        self.rounds("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }

    /// `resources/read`: the final result.
    pub async fn read_resource(&mut self, uri: &str) -> Result<ReadResourceResult, RpcError> {
        Ok(self.read_resource_rounds(uri).await?.complete())
    }

    /// `resources/read`, which may ask for input.
    pub async fn read_resource_rounds(
        &mut self,
        uri: &str,
    ) -> Result<Answer<ReadResourceResult>, RpcError> {
        self.rounds("resources/read", json!({ "uri": uri })).await
    }

    /// `prompts/get` with string arguments: the final result.
    pub async fn get_prompt(
        &mut self,
        name: &str,
        arguments: Value,
    ) -> Result<GetPromptResult, RpcError> {
        Ok(self.get_prompt_rounds(name, arguments).await?.complete())
    }

    /// `prompts/get`, which may ask for input.
    pub async fn get_prompt_rounds(
        &mut self,
        name: &str,
        arguments: Value,
    ) -> Result<Answer<GetPromptResult>, RpcError> {
        self.rounds("prompts/get", json!({"name": name, "arguments": arguments}))
            .await
    }

    /// Send `method` with `params`; a `resultType: "input_required"`
    /// result becomes [`Answer::InputRequired`], any other decodes as `T`.
    pub async fn rounds<T: DeserializeOwned>(
        &mut self,
        method: &str,
        params: Value,
    ) -> Result<Answer<T>, RpcError> {
        let Value::Object(params) = params else {
            panic!("params must be an object");
        };
        let result = self.request(method, Value::Object(params.clone())).await?;
        Ok(answer(method, params, result))
    }

    /// Retry `pending` with `responses` (key → the client's result for
    /// that input request, e.g. `{"action": "accept", "content": {…}}` for
    /// an elicitation) and its `requestState`.
    pub async fn retry<T: DeserializeOwned>(
        &mut self,
        pending: Pending<T>,
        responses: Value,
    ) -> Result<Answer<T>, RpcError> {
        let mut params = pending.params.clone();
        params.insert("inputResponses".into(), responses);
        if let Some(state) = &pending.request_state {
            params.insert("requestState".into(), state.clone());
        }
        let result = self.request(&pending.method, Value::Object(params)).await?;
        Ok(answer(&pending.method, pending.params, result))
    }

    /// Open a `subscriptions/listen` stream with `notifications` (the
    /// filter: `{"toolsListChanged": true, "resourceSubscriptions": [uri]}`)
    /// and wait for its acknowledgement.
    pub async fn listen(&mut self, notifications: Value) -> Result<Listen, RpcError> {
        let id = self.send_request(
            "subscriptions/listen",
            json!({ "notifications": notifications }),
        );
        let first = self
            .wait_for(|m| {
                m.get("id") == Some(&Value::from(id))
                    || (m.get("method").and_then(Value::as_str)
                        == Some("notifications/subscriptions/acknowledged")
                        && subscription(m) == Some(id))
            })
            .await;
        if first.get("id").is_some() {
            return into_result(first).map(|result| Listen {
                id,
                honoured: result,
            });
        }
        Ok(Listen {
            id,
            honoured: first["params"]["notifications"].clone(),
        })
    }

    /// The next notification on `stream` (its `subscriptionId` matches).
    /// Waits until one comes: publish it first (on the service's hub, or
    /// with [`publish`](TestClient::publish)).
    pub async fn next_event(&mut self, stream: &Listen) -> Value {
        let id = stream.id;
        self.wait_for(|m| m.get("id").is_none() && subscription(m) == Some(id))
            .await
    }

    /// Events already delivered on `stream`, without waiting.
    pub fn take_events(&mut self, stream: &Listen) -> Vec<Value> {
        self.pump_once();
        let id = stream.id;
        let (events, rest): (VecDeque<Value>, VecDeque<Value>) = self
            .inbox
            .drain(..)
            .partition(|m| m.get("id").is_none() && subscription(m) == Some(id));
        self.inbox = rest;
        events.into()
    }

    /// Close `stream` as a client does (`notifications/cancelled` of its
    /// request).
    pub fn close_listen(&mut self, stream: Listen) {
        let line = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": stream.id}});
        self.send_line(&line.to_string());
    }

    /// Deliver a change to this connection's listen streams, for a service
    /// without a hub (with one, publish on the hub).
    pub fn publish(&mut self, event: &ChangeEvent) {
        let now = self.now();
        self.conn.publish(event, now);
        self.drain();
    }

    /// Take every output the connection has: bytes become messages, each
    /// invocation runs once inline and waits in `running` if not ready.
    fn drain(&mut self) {
        while let Some(out) = self.conn.poll_output() {
            match out {
                Output::Transmit(bytes) => self.absorb(&bytes),
                Output::Invoke(invocation) => {
                    let mut task = self.conn.task(invocation);
                    match task.poll_inline() {
                        Some(outcome) => {
                            let now = self.now();
                            // Err: the call ended meanwhile (cancelled).
                            let _ = self.conn.complete(task.call(), outcome, now);
                        }
                        None => self.running.push(task),
                    }
                }
                // Cancel: the task's flag is set, it ends at its next poll.
                // Respond: only on a connection made for one HTTP request.
                Output::Cancel(_) | Output::Respond(_) => {}
                Output::Close => self.closed = true,
            }
        }
    }

    fn absorb(&mut self, bytes: &[u8]) {
        self.partial.extend_from_slice(bytes);
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            let message: Value = serde_json::from_slice(&line[..end]).unwrap_or_else(|e| {
                panic!(
                    "the server wrote a line that is not JSON ({e}): {}",
                    String::from_utf8_lossy(&line)
                )
            });
            self.inbox.push_back(message);
        }
    }

    /// Drive the connection without waiting: poll running calls once,
    /// take their reports, fire due deadlines.
    fn pump_once(&mut self) {
        let waker = Waker::noop();
        let mut cx = Context::from_waker(waker);
        let _ = self.pump(&mut cx);
    }

    /// One turn: run calls, take changes and due deadlines. `true` if
    /// anything moved.
    fn pump(&mut self, cx: &mut Context<'_>) -> bool {
        self.running
            .retain_mut(|task| Pin::new(task).poll(cx).is_pending());
        let mut moved = false;
        if self.conn.poll_changes(cx).is_ready() {
            let now = self.now();
            self.conn.handle_changes(now);
            moved = true;
        }
        let now = self.now();
        if self.conn.poll_timeout().is_some_and(|at| at <= now) {
            self.conn.handle_timeout(now);
            moved = true;
        }
        self.drain();
        moved
    }

    /// Wait for the first unclaimed message `wanted` accepts, and claim it.
    async fn wait_for(&mut self, mut wanted: impl FnMut(&Value) -> bool) -> Value {
        poll_fn(|cx| loop {
            if let Some(i) = self.inbox.iter().position(&mut wanted) {
                return Poll::Ready(self.inbox.remove(i).expect("the position is in range"));
            }
            if self.closed {
                panic!("the connection closed before the awaited message");
            }
            if !self.pump(cx) && !self.inbox.iter().any(&mut wanted) {
                return Poll::Pending;
            }
        })
        .await
    }
}

fn subscription(message: &Value) -> Option<i64> {
    message
        .get("params")?
        .get("_meta")?
        .get("io.modelcontextprotocol/subscriptionId")?
        .as_i64()
}

fn into_result(mut response: Value) -> Result<Value, RpcError> {
    if let Some(error) = response.get_mut("error") {
        return Err(RpcError {
            code: error["code"].as_i64().unwrap_or_default(),
            message: error["message"].as_str().unwrap_or_default().to_string(),
            data: error.get("data").cloned(),
        });
    }
    Ok(response
        .get_mut("result")
        .map(Value::take)
        .unwrap_or(Value::Null))
}

fn decode<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("the server's answer does not decode ({e}): {value}"))
}

fn answer<T: DeserializeOwned>(
    method: &str,
    params: Map<String, Value>,
    mut result: Value,
) -> Answer<T> {
    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
        let input_requests = match result.get_mut("inputRequests").map(Value::take) {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        return Answer::InputRequired(Pending {
            input_requests,
            request_state: result.get_mut("requestState").map(Value::take),
            method: method.to_string(),
            params,
            answer: PhantomData,
        });
    }
    Answer::Complete(decode(result))
}

/// Run `future` to completion on this thread: for tests whose handlers
/// need no runtime's I/O or timers (use the runtime's own test macro for
/// those).
pub fn block_on<F: Future>(future: F) -> F::Output {
    struct Thread(std::thread::Thread);
    impl Wake for Thread {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Thread(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(out) => return out,
            Poll::Pending => std::thread::park(),
        }
    }
}

/// The executor the client runs its handlers' blocking work on
/// ([`Context::spawn_blocking`](snodo_proto::Context::spawn_blocking)): a
/// thread of its own per job. Give it to what else runs handlers in a
/// test (a Tasks runner's `executor`), so their blocking work runs too.
pub fn blocking_threads() -> Arc<dyn snodo_proto::blocking::Executor> {
    Arc::new(JobThreads)
}

/// Blocking work on a thread of its own per job: the client has no pool,
/// and a test's handful of jobs needs none.
struct JobThreads;

impl snodo_proto::blocking::Executor for JobThreads {
    fn spawn(&self, job: snodo_proto::blocking::Job) {
        // A thread that cannot start drops the job, which its handler
        // sees as `BlockingError::Dropped`.
        let _ = std::thread::Builder::new()
            .name(String::from("snodo-testkit-blocking"))
            .spawn(move || job.run());
    }
}
