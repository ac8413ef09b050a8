//! The application side of a call: typed invocations, handler futures and
//! the context a handler sees.
//!
//! Handlers are plain `core::future::Future`s: no runtime is named, so the
//! same tool runs on tokio, smol or a blocking pool. Someone driving
//! [`Connection`](crate::Connection) by hand can ignore all of this and
//! answer [`Invocation::request`] directly with [`Connection::complete`](crate::Connection::complete).

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::sync::atomic::{AtomicBool, Ordering};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::ErrorObject;
use crate::extract::{Handler as CallHandler, Needs, Parts, PromptInput, States};
use crate::meta::{LogLevel, RequestMeta};
use crate::model::{
    CallToolResult, Completion, CompletionRequest, GetPromptResult, Prompt, ReadResourceResult,
    Tool,
};
use crate::mrtr::{
    CreateMessageResult, ElicitResult, InputRequired, ListRootsResult, Reply, Round,
};

/// A boxed, sendable future: what every registered handler returns.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Identifies one in-flight call on one [`Connection`](crate::Connection).
/// Never reused within a connection, so a late completion cannot hit a newer call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CallId(pub(crate) u64);

impl CallId {
    /// The raw number (for adapters' maps and logs).
    pub fn as_u64(self) -> u64 {
        self.0
    }
}

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "call#{}", self.0)
    }
}

/// What the client asked the application to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// `tools/call` of a registered tool; arguments already validated
    /// against its `inputSchema`.
    CallTool {
        /// Tool name (shared with the registry: no copy per call).
        name: Arc<str>,
        /// Arguments (`{}` when the client sent none).
        arguments: Map<String, Value>,
    },
    /// `resources/read` of a registered resource or a URI matching a template.
    ReadResource {
        /// The requested URI.
        uri: String,
        /// The template's variables, when a template matched.
        variables: BTreeMap<String, String>,
    },
    /// `prompts/get` of a registered prompt; required arguments present.
    GetPrompt {
        /// Prompt name.
        name: String,
        /// Arguments.
        arguments: BTreeMap<String, String>,
    },
    /// `completion/complete` for a registered prompt or template.
    Complete(CompletionRequest),
    /// A method an [`Extension`](crate::extension::Extension) owns, answered
    /// by the extension's deferred work ([`Invocation::run`] runs it).
    Extension {
        /// The method.
        method: String,
        /// Its params.
        params: Map<String, Value>,
    },
    /// Not the client's request but what must precede it: an HTTP
    /// request's bearer token, which the service's
    /// [`Authenticator`](crate::Authenticator) is checking with a
    /// deferred future ([`Authentication::Deferred`](crate::auth::Authentication)).
    /// [`Invocation::run`] runs that future; its outcome is
    /// [`Outcome::Authenticated`]. The token is not here (nothing about
    /// it is logged).
    Authenticate,
}

/// How a call ended, as the application reports it.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Answer to [`Request::CallTool`].
    CallTool(CallToolResult),
    /// Answer to [`Request::ReadResource`].
    ReadResource(ReadResourceResult),
    /// Answer to [`Request::GetPrompt`].
    GetPrompt(GetPromptResult),
    /// Answer to [`Request::Complete`].
    Complete(Completion),
    /// More input is needed before [`Request::CallTool`],
    /// [`Request::ReadResource`] or [`Request::GetPrompt`] can be answered
    /// (`basic/patterns/mrtr.mdx`); for any other request it is an
    /// internal error.
    InputRequired(InputRequired),
    /// A JSON-RPC error for any request.
    Error(ErrorObject),
    /// The result object of an extension's deferred answer
    /// ([`Step::Defer`](crate::extension::Step::Defer)); for any other call
    /// it is an internal error.
    Extension(Map<String, Value>),
    /// The verdict on a bearer token, the answer to
    /// [`Request::Authenticate`]; for any other call it is an internal
    /// error.
    Authenticated(crate::auth::Verdict),
}

impl From<ErrorObject> for Outcome {
    fn from(e: ErrorObject) -> Self {
        Outcome::Error(e)
    }
}

/// Progress reported by a handler (`basic/patterns/progress.mdx`).
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Must increase with every report; non-increasing reports are dropped.
    pub progress: f64,
    /// Total, if known.
    pub total: Option<f64>,
    /// Human-readable message.
    pub message: Option<String>,
}

/// A log message from a handler (`server/utilities/logging.mdx`).
#[derive(Clone, Debug, PartialEq)]
pub struct LogMessage {
    /// Severity.
    pub level: LogLevel,
    /// Logger name.
    pub logger: Option<String>,
    /// Any JSON.
    pub data: Value,
}

/// Something a running handler reports before it finishes.
#[derive(Clone, Debug, PartialEq)]
pub enum CallEvent {
    /// A progress report.
    Progress(Progress),
    /// A log message.
    Log(LogMessage),
}

/// Where a running handler's reports go. A [`CallTask`](crate::CallTask)
/// reports into its connection's own bounded queue; an embedder running
/// [`Invocation::run`] itself passes any sink and feeds what it gets to
/// [`Connection::call_event`](crate::Connection::call_event).
pub trait CallSink: Send + Sync {
    /// Deliver `event` for `call`. Must not block.
    fn send(&self, call: CallId, event: CallEvent);

    /// Where the call's blocking work runs
    /// ([`Context::spawn_blocking`]); `None` (the default) refuses it
    /// with [`BlockingError::Unavailable`](crate::blocking::BlockingError::Unavailable).
    fn executor(&self) -> Option<Arc<dyn crate::blocking::Executor>> {
        None
    }
}

/// A sink that drops everything (for running handlers outside a connection).
pub struct NullSink;

impl CallSink for NullSink {
    fn send(&self, _: CallId, _: CallEvent) {}
}

/// Whatever a host HTTP stack attached to the request a call came in on
/// (with `snodo-hyper`, the request's `http::Extensions`: what tower
/// middleware such as an auth layer put there), for handlers to read
/// through [`Context::host`].
pub type Host = Arc<dyn core::any::Any + Send + Sync>;

/// What a call's invocation, its handler's [`Context`] and its
/// [`CancelFlag`] share: the admitted `_meta`, what a retry brought back
/// and the cancel flag, in one allocation per call.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pub(crate) meta: RequestMeta,
    pub(crate) round: Round,
    /// What the host put on the request ([`Context::host`]).
    pub(crate) host: Option<Host>,
    /// Who is calling, when the service requires authorization
    /// ([`Context::principal`]).
    pub(crate) principal: Option<Arc<crate::auth::Principal>>,
    /// The service's states, for the [`State`](crate::extract::State)
    /// extractor.
    pub(crate) states: Arc<States>,
    /// Run outside any connection ([`Service::detached_tool_call`](crate::Service::detached_tool_call)):
    /// progress reaches the sink whether or not `_meta` carries a
    /// `progressToken`, since no `notifications/progress` is sent from it;
    /// the embedder decides what a report becomes (a task's
    /// `statusMessage`, say).
    pub(crate) detached: bool,
    cancelled: AtomicBool,
    /// The task running the call ([`CallTask`](crate::CallTask)), woken on
    /// cancellation so it drops the handler's future promptly.
    #[cfg(feature = "std")]
    waker: std::sync::Mutex<Option<core::task::Waker>>,
}

impl Shared {
    /// The shared state of a call run outside any connection.
    pub(crate) fn detached(meta: RequestMeta, round: Round, states: Arc<States>) -> Arc<Shared> {
        Arc::new(Shared {
            meta,
            round,
            states,
            detached: true,
            ..Shared::default()
        })
    }

    /// A call's shared state, with what its request brought beside its
    /// message: the host's data and the authenticated principal.
    pub(crate) fn of_request(
        meta: RequestMeta,
        round: Round,
        host: Option<Host>,
        principal: Option<Arc<crate::auth::Principal>>,
        states: Arc<States>,
    ) -> Arc<Shared> {
        // Every field named: `..Shared::default()` would build a default
        // `_meta` and round only to drop them, on every call.
        Arc::new(Shared {
            meta,
            round,
            host,
            principal,
            states,
            detached: false,
            cancelled: AtomicBool::new(false),
            #[cfg(feature = "std")]
            waker: std::sync::Mutex::new(None),
        })
    }

    /// Mark the call cancelled and wake whatever runs it.
    pub(crate) fn cancel(&self) {
        self.cancelled.store(true, Ordering::Release);
        #[cfg(feature = "std")]
        {
            let waker = self.waker.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(w) = waker {
                w.wake();
            }
        }
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Acquire)
    }

    /// Register the waker of the task running the call.
    #[cfg(feature = "std")]
    pub(crate) fn register(&self, waker: &core::task::Waker) {
        let mut slot = self.waker.lock().unwrap_or_else(|p| p.into_inner());
        if !slot.as_ref().is_some_and(|w| w.will_wake(waker)) {
            *slot = Some(waker.clone());
        }
    }
}

/// Set when the client cancelled the call or the connection gave up on it.
/// The connection sets it itself whenever it emits
/// [`Output::Cancel`](crate::Output::Cancel) (and for every call still
/// running when it is dropped), which also wakes the call's
/// [`CallTask`](crate::CallTask) so the handler's future is dropped. The
/// flag lets a handler doing blocking work in steps stop early.
#[derive(Clone, Debug, Default)]
pub struct CancelFlag(Arc<Shared>);

impl CancelFlag {
    /// Mark cancelled.
    pub fn cancel(&self) {
        self.0.cancel();
    }

    /// Whether it was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

/// What a handler sees of its call.
#[derive(Clone)]
pub struct Context {
    call: CallId,
    shared: Arc<Shared>,
    sink: Arc<dyn CallSink>,
}

impl Context {
    /// A context for running a handler outside a connection (tests, tools
    /// calling tools): reports go nowhere, and it holds no application
    /// state.
    pub fn detached(meta: RequestMeta) -> Self {
        Context {
            call: CallId(0),
            shared: Shared::of_request(meta, Round::default(), None, None, Arc::default()),
            sink: Arc::new(NullSink),
        }
    }

    /// The service's states.
    pub(crate) fn states(&self) -> &States {
        &self.shared.states
    }

    /// The call's cancel flag.
    pub fn cancel_flag(&self) -> CancelFlag {
        CancelFlag(self.shared.clone())
    }

    /// The call this context belongs to.
    pub fn call_id(&self) -> CallId {
        self.call
    }

    /// What the host HTTP stack attached to this call's request, if it is
    /// a `T` (with `snodo-hyper`: `http::Extensions`). `None` on the
    /// native listeners and on stdio.
    pub fn host<T: core::any::Any>(&self) -> Option<&T> {
        self.shared.host.as_deref()?.downcast_ref::<T>()
    }

    /// Who is calling: the principal the service's
    /// [`Authorization`](crate::Authorization) established for this call's
    /// request. `None` without authorization (and on stdio, whose caller
    /// the application knows from its environment).
    pub fn principal(&self) -> Option<&crate::auth::Principal> {
        self.shared.principal.as_deref()
    }

    /// The request's admitted `_meta`: protocol version, client
    /// capabilities, client info, trace context, application keys.
    pub fn meta(&self) -> &RequestMeta {
        &self.shared.meta
    }

    /// Report progress. Sent only if the request carried a `progressToken`,
    /// and only while `progress` keeps increasing. A call run outside any
    /// connection ([`Service::detached_tool_call`](crate::Service::detached_tool_call),
    /// a task's run) hands every report to its embedder's sink instead:
    /// a task shows the latest as its `statusMessage`.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        if self.shared.meta.progress_token.is_some() || self.shared.detached {
            self.sink.send(
                self.call,
                CallEvent::Progress(Progress {
                    progress,
                    total,
                    message,
                }),
            );
        }
    }

    /// Send a log message on this request's stream. Sent only if the server
    /// enabled logging and the request asked for `level` or below.
    pub fn log(&self, level: LogLevel, logger: Option<&str>, data: Value) {
        if self.shared.meta.log_level.is_some_and(|min| level >= min) {
            self.sink.send(
                self.call,
                CallEvent::Log(LogMessage {
                    level,
                    logger: logger.map(String::from),
                    data,
                }),
            );
        }
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.shared.is_cancelled()
    }

    /// Run blocking `work` where blocking is allowed (the runtime's
    /// blocking pool, [`crate::blocking`]) and await its value, so the
    /// thread that polls handlers keeps serving other calls meanwhile.
    /// `work` gets an [`Interrupt`](crate::blocking::Interrupt) to look at
    /// between steps: it is set once this call is cancelled or the
    /// returned future is dropped. It may report progress through a clone
    /// of this context.
    ///
    /// ```
    /// # use snodo_proto::{Context, ToolError};
    /// /// Count the primes below `n`: seconds of CPU for a large `n`.
    /// async fn primes(ctx: Context, n: u64) -> Result<u64, ToolError> {
    ///     let count = ctx
    ///         .spawn_blocking(move |interrupt| {
    ///             let mut count = 0;
    ///             for k in 2..n {
    ///                 if k % 4096 == 0 && interrupt.is_set() {
    ///                     break;
    ///                 }
    ///                 if (2..k).take_while(|d| d * d <= k).all(|d| k % d != 0) {
    ///                     count += 1;
    ///                 }
    ///             }
    ///             count
    ///         })
    ///         .await?;
    ///     Ok(count)
    /// }
    /// ```
    #[cfg(feature = "std")]
    pub fn spawn_blocking<F, T>(&self, work: F) -> crate::blocking::SpawnBlocking<T>
    where
        F: FnOnce(&crate::blocking::Interrupt<'_>) -> T + Send + 'static,
        T: Send + 'static,
    {
        let executor = self.sink.executor();
        crate::blocking::spawn(executor.as_deref(), self.shared.clone(), work)
    }

    /// What this request brought back from a previous round (MRTR): the
    /// client's input responses and this handler's verified state.
    pub fn round(&self) -> &Round {
        &self.shared.round
    }

    /// The answer to the `elicitation/create` input request issued as
    /// `key` in the previous round, if the client sent one.
    pub fn elicitation(&self, key: &str) -> Option<ElicitResult> {
        self.shared.round.elicitation(key)
    }

    /// The answer to the `sampling/createMessage` input request issued as
    /// `key`, if the client sent one.
    pub fn sampling(&self, key: &str) -> Option<CreateMessageResult> {
        self.shared.round.sampling(key)
    }

    /// The answer to the `roots/list` input request issued as `key`, if
    /// the client sent one.
    pub fn roots(&self, key: &str) -> Option<ListRootsResult> {
        self.shared.round.roots(key)
    }

    /// The state this handler attached to its previous
    /// [`InputRequired`], verified, if the client sent it back and it
    /// deserializes as `T`.
    pub fn state<T: DeserializeOwned>(&self) -> Option<T> {
        self.shared.round.state()
    }
}

/// A tool handler's failure.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolError {
    /// A tool execution error: reported as a result with `isError: true`
    /// so the model can see it (`server/tools.mdx` § Error Handling).
    Execution(String),
    /// A protocol error: reported as a JSON-RPC error.
    Protocol(ErrorObject),
}

impl From<String> for ToolError {
    fn from(s: String) -> Self {
        ToolError::Execution(s)
    }
}

impl From<&str> for ToolError {
    fn from(s: &str) -> Self {
        ToolError::Execution(String::from(s))
    }
}

impl From<ErrorObject> for ToolError {
    fn from(e: ErrorObject) -> Self {
        ToolError::Protocol(e)
    }
}

/// What a tool handler may return, and the `outputSchema` that return
/// type implies: `Json<T>` (feature `typed`) has `T`'s, an unstructured
/// result ([`CallToolResult`], `String`, `&'static str`) none; `Result`
/// and [`Reply`] take their success type's.
pub trait IntoToolOutcome {
    /// Convert into the call's outcome.
    fn into_outcome(self) -> Outcome;

    /// The `outputSchema` a tool returning this publishes when its
    /// declaration sets none by hand (`server/tools.mdx` § Output Schema).
    fn output_schema() -> Option<Value> {
        None
    }
}

/// A tool's argument type: deserialized from the validated `arguments`
/// object, and, with feature `typed` (on by default), also a
/// [`schemars::JsonSchema`] whose schema is the tool's `inputSchema`
/// unless its declaration sets one by hand. Implemented for every such
/// type; [`NoArgs`] is the type of no arguments.
#[cfg(feature = "typed")]
pub trait ToolArgs: DeserializeOwned + schemars::JsonSchema {
    /// The `inputSchema` generated from the type.
    fn input_schema() -> Option<Value> {
        Some(crate::typed::input_schema_for::<Self>())
    }
}

#[cfg(feature = "typed")]
impl<T: DeserializeOwned + schemars::JsonSchema> ToolArgs for T {}

/// A tool's argument type: deserialized from the validated `arguments`
/// object. Without feature `typed` no schema is generated: a tool taking
/// arguments sets its `inputSchema` by hand.
#[cfg(not(feature = "typed"))]
pub trait ToolArgs: DeserializeOwned {
    /// No schema without feature `typed`.
    fn input_schema() -> Option<Value> {
        None
    }
}

#[cfg(not(feature = "typed"))]
impl<T: DeserializeOwned> ToolArgs for T {}

/// `tool` as a handler whose extractors need `needs` and whose output is
/// `R` publishes it: the schemas its declaration set by hand as written,
/// the others generated from the arguments' type and `R` (the one code
/// path of every `tool` registration, at build and at run time alike).
/// A handler that takes no arguments publishes the declaration's schema,
/// by default one that admits none.
pub(crate) fn declared<R: IntoToolOutcome>(mut tool: Tool, needs: &Needs) -> Tool {
    if !tool.authored.input {
        if let Some(schema) = &needs.schema {
            tool.input_schema = schema.clone();
        }
    }
    if !tool.authored.output {
        tool.output_schema = R::output_schema();
    }
    tool
}

/// `prompt` as a handler whose extractors need `needs` publishes it: its
/// arguments as declared, or (feature `typed`) when it declares none,
/// those of the arguments' type.
pub(crate) fn declared_prompt(prompt: Prompt, needs: &Needs) -> Prompt {
    #[cfg(feature = "typed")]
    if let Some(schema) = &needs.schema {
        return crate::typed::declared_prompt(prompt, schema);
    }
    let _ = needs;
    prompt
}

impl IntoToolOutcome for CallToolResult {
    fn into_outcome(self) -> Outcome {
        Outcome::CallTool(self)
    }
}

impl IntoToolOutcome for String {
    fn into_outcome(self) -> Outcome {
        Outcome::CallTool(CallToolResult::text(self))
    }
}

impl IntoToolOutcome for &'static str {
    fn into_outcome(self) -> Outcome {
        Outcome::CallTool(CallToolResult::text(self))
    }
}

impl IntoToolOutcome for InputRequired {
    fn into_outcome(self) -> Outcome {
        Outcome::InputRequired(self)
    }
}

impl<T: IntoToolOutcome> IntoToolOutcome for Reply<T> {
    fn output_schema() -> Option<Value> {
        T::output_schema()
    }

    fn into_outcome(self) -> Outcome {
        match self {
            Reply::Complete(t) => t.into_outcome(),
            Reply::InputRequired(ir) => Outcome::InputRequired(ir),
        }
    }
}

impl<T: IntoToolOutcome, E: Into<ToolError>> IntoToolOutcome for Result<T, E> {
    fn output_schema() -> Option<Value> {
        T::output_schema()
    }

    fn into_outcome(self) -> Outcome {
        match self {
            Ok(v) => v.into_outcome(),
            Err(e) => match e.into() {
                ToolError::Execution(msg) => Outcome::CallTool(CallToolResult::error(msg)),
                ToolError::Protocol(err) => Outcome::Error(err),
            },
        }
    }
}

/// A resource handler's failure.
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceError {
    /// No such resource: `-32602` with `data.uri` (`server/resources.mdx` § Error Handling).
    NotFound,
    /// Any other JSON-RPC error.
    Protocol(ErrorObject),
}

impl From<ErrorObject> for ResourceError {
    fn from(e: ErrorObject) -> Self {
        ResourceError::Protocol(e)
    }
}

/// What a resource reader may return: `Result<ReadResourceResult,
/// ResourceError>`, or `Result<Reply<ReadResourceResult>, ResourceError>`
/// to ask for input.
pub trait IntoResourceOutcome {
    /// Convert into the outcome of reading `uri`.
    fn into_outcome(self, uri: &str) -> Outcome;
}

fn resource_error(e: ResourceError, uri: &str) -> Outcome {
    match e {
        ResourceError::NotFound => Outcome::Error(crate::dispatch::resource_not_found(uri)),
        ResourceError::Protocol(e) => Outcome::Error(e),
    }
}

impl IntoResourceOutcome for Result<ReadResourceResult, ResourceError> {
    fn into_outcome(self, uri: &str) -> Outcome {
        match self {
            Ok(r) => Outcome::ReadResource(r),
            Err(e) => resource_error(e, uri),
        }
    }
}

impl IntoResourceOutcome for Result<Reply<ReadResourceResult>, ResourceError> {
    fn into_outcome(self, uri: &str) -> Outcome {
        match self {
            Ok(Reply::Complete(r)) => Outcome::ReadResource(r),
            Ok(Reply::InputRequired(ir)) => Outcome::InputRequired(ir),
            Err(e) => resource_error(e, uri),
        }
    }
}

/// What a prompt handler may return: `Result<GetPromptResult,
/// ErrorObject>`, or `Result<Reply<GetPromptResult>, ErrorObject>` to ask
/// for input.
pub trait IntoPromptOutcome {
    /// Convert into the call's outcome.
    fn into_outcome(self) -> Outcome;
}

impl IntoPromptOutcome for Result<GetPromptResult, ErrorObject> {
    fn into_outcome(self) -> Outcome {
        match self {
            Ok(r) => Outcome::GetPrompt(r),
            Err(e) => Outcome::Error(e),
        }
    }
}

impl IntoPromptOutcome for Result<Reply<GetPromptResult>, ErrorObject> {
    fn into_outcome(self) -> Outcome {
        match self {
            Ok(Reply::Complete(r)) => Outcome::GetPrompt(r),
            Ok(Reply::InputRequired(ir)) => Outcome::InputRequired(ir),
            Err(e) => Outcome::Error(e),
        }
    }
}

/// The arguments of a tool that takes none. Deserializes from any object.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub struct NoArgs {}

pub(crate) type ToolFn = dyn Fn(Map<String, Value>, Context) -> BoxFuture<Outcome> + Send + Sync;
pub(crate) type ResourceFn = dyn Fn(ResourceArgs, Context) -> BoxFuture<Outcome> + Send + Sync;
pub(crate) type PromptFn =
    dyn Fn(BTreeMap<String, String>, Context) -> BoxFuture<Outcome> + Send + Sync;
pub(crate) type CompleteFn = dyn Fn(CompletionRequest, Context) -> BoxFuture<Outcome> + Send + Sync;

/// The request a resource handler receives.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceArgs {
    /// The URI the client asked for.
    pub uri: String,
    /// Variables of the matching template (empty for a static resource).
    pub variables: BTreeMap<String, String>,
}

impl ResourceArgs {
    /// The template's variables as a `T` whose fields are named after
    /// them: each is read as its field's type asks (a number, a `bool`, a
    /// unit enum variant, an `Option`, a list split at commas; see
    /// `strings`). A URI whose variables do not make a `T` names no
    /// resource of this template: [`ResourceError::NotFound`]
    /// (`server/resources.mdx` § Error Handling), with the reason in the
    /// log only.
    ///
    /// ```
    /// # use snodo_proto::{ResourceArgs, ResourceError};
    /// #[derive(serde::Deserialize)]
    /// struct Page {
    ///     name: String,
    ///     page: u32,
    /// }
    /// # fn read(args: &ResourceArgs) -> Result<(), ResourceError> {
    /// // Template `docs://{name}/page/{page}`.
    /// let Page { name, page } = args.variables_as()?;
    /// # let _ = (name, page); Ok(()) }
    /// ```
    pub fn variables_as<T: DeserializeOwned>(&self) -> Result<T, ResourceError> {
        crate::strings::from_strings(&self.variables).map_err(|e| {
            tracing::debug!(uri = %self.uri, error = %e, "template variables do not fit");
            ResourceError::NotFound
        })
    }
}

/// A registered handler, erased, with what its extractors need.
pub(crate) struct Erased<F: ?Sized> {
    pub(crate) run: Arc<F>,
    pub(crate) needs: Needs,
}

fn refused<T>(e: ErrorObject) -> BoxFuture<T>
where
    T: From<ErrorObject> + Send + 'static,
{
    Box::pin(core::future::ready(T::from(e)))
}

pub(crate) fn tool_fn<H, M>(h: H) -> Erased<ToolFn>
where
    H: CallHandler<Map<String, Value>, M>,
    H::Output: IntoToolOutcome,
{
    let needs = Needs::of::<Map<String, Value>, M, H>();
    let run = move |args: Map<String, Value>, ctx: Context| -> BoxFuture<Outcome> {
        match h.call(&Parts { context: &ctx }, args) {
            Ok(fut) => Box::pin(async move { fut.await.into_outcome() }),
            Err(e) => refused(e),
        }
    };
    Erased {
        run: Arc::new(run),
        needs,
    }
}

pub(crate) fn resource_fn<H, M>(h: H) -> Erased<ResourceFn>
where
    H: CallHandler<ResourceArgs, M>,
    H::Output: IntoResourceOutcome,
{
    let needs = Needs::of::<ResourceArgs, M, H>();
    let run = move |args: ResourceArgs, ctx: Context| -> BoxFuture<Outcome> {
        let uri = args.uri.clone();
        match h.call(&Parts { context: &ctx }, args) {
            Ok(fut) => Box::pin(async move { fut.await.into_outcome(&uri) }),
            Err(e) => refused(e),
        }
    };
    Erased {
        run: Arc::new(run),
        needs,
    }
}

pub(crate) fn prompt_fn<H, M>(h: H) -> Erased<PromptFn>
where
    H: CallHandler<PromptInput, M>,
    H::Output: IntoPromptOutcome,
{
    let needs = Needs::of::<PromptInput, M, H>();
    let run = move |args: BTreeMap<String, String>, ctx: Context| -> BoxFuture<Outcome> {
        match h.call(&Parts { context: &ctx }, PromptInput(args)) {
            Ok(fut) => Box::pin(async move { fut.await.into_outcome() }),
            Err(e) => refused(e),
        }
    };
    Erased {
        run: Arc::new(run),
        needs,
    }
}

pub(crate) fn complete_fn<H, M>(h: H) -> Erased<CompleteFn>
where
    H: CallHandler<CompletionRequest, M, Output = Result<Completion, ErrorObject>>,
{
    let needs = Needs::of::<CompletionRequest, M, H>();
    let run = move |req: CompletionRequest, ctx: Context| -> BoxFuture<Outcome> {
        match h.call(&Parts { context: &ctx }, req) {
            Ok(fut) => Box::pin(async move {
                match fut.await {
                    Ok(c) => Outcome::Complete(c),
                    Err(e) => Outcome::Error(e),
                }
            }),
            Err(e) => refused(e),
        }
    };
    Erased {
        run: Arc::new(run),
        needs,
    }
}

/// The registered code that answers an invocation.
pub(crate) enum Handler {
    Tool(Arc<ToolFn>),
    Resource(Arc<ResourceFn>),
    Prompt(Arc<PromptFn>),
    Complete(Arc<CompleteFn>),
    /// An extension's answer, already under way.
    Deferred(BoxFuture<Outcome>),
}

impl Handler {
    /// The same handler, for running a call again (initialize-era input
    /// rounds); an extension's future under way cannot be.
    pub(crate) fn try_clone(&self) -> Option<Handler> {
        match self {
            Handler::Tool(f) => Some(Handler::Tool(f.clone())),
            Handler::Resource(f) => Some(Handler::Resource(f.clone())),
            Handler::Prompt(f) => Some(Handler::Prompt(f.clone())),
            Handler::Complete(f) => Some(Handler::Complete(f.clone())),
            Handler::Deferred(_) => None,
        }
    }
}

/// A call the application must answer: emitted as
/// [`Output::Invoke`](crate::Output::Invoke), answered with
/// [`Connection::complete`](crate::Connection::complete).
pub struct Invocation {
    /// The call's id on its connection.
    pub call: CallId,
    /// What to do.
    pub request: Request,
    /// The call's `_meta`, what a retry brought back and its cancel flag.
    pub(crate) shared: Arc<Shared>,
    pub(crate) handler: Option<Handler>,
}

impl fmt::Debug for Invocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Invocation")
            .field("call", &self.call)
            .field("request", &self.request)
            .field("has_handler", &self.handler.is_some())
            .finish()
    }
}

impl Invocation {
    /// A call of `request` with its shared state.
    pub(crate) fn new(
        call: CallId,
        request: Request,
        shared: Arc<Shared>,
        handler: Option<Handler>,
    ) -> Invocation {
        Invocation {
            call,
            request,
            shared,
            handler,
        }
    }

    /// The request's admitted `_meta`.
    pub fn meta(&self) -> &RequestMeta {
        &self.shared.meta
    }

    /// What a retry brought back from the previous round (MRTR); empty on
    /// a first attempt. Answer with [`Outcome::InputRequired`] to ask for
    /// (more) input.
    pub fn round(&self) -> &Round {
        &self.shared.round
    }

    /// The flag to set when the connection emits
    /// [`Output::Cancel`](crate::Output::Cancel) for this call.
    pub fn cancel_flag(&self) -> CancelFlag {
        CancelFlag(self.shared.clone())
    }

    /// Whether a handler was registered for it; if not, the driver must
    /// answer the request itself.
    pub fn has_handler(&self) -> bool {
        self.handler.is_some()
    }

    /// Run the registered handler. Reports go to `sink`. Without a handler
    /// (a declaration-only registration) the future resolves at once to an
    /// internal error, so an adapter can always run what it is given.
    pub fn run(self, sink: Arc<dyn CallSink>) -> BoxFuture<Outcome> {
        let ctx = Context {
            call: self.call,
            shared: self.shared,
            sink,
        };
        match (self.handler, self.request) {
            (Some(Handler::Tool(f)), Request::CallTool { arguments, .. }) => f(arguments, ctx),
            (Some(Handler::Resource(f)), Request::ReadResource { uri, variables }) => {
                f(ResourceArgs { uri, variables }, ctx)
            }
            (Some(Handler::Prompt(f)), Request::GetPrompt { arguments, .. }) => f(arguments, ctx),
            (Some(Handler::Complete(f)), Request::Complete(req)) => f(req, ctx),
            (Some(Handler::Deferred(f)), _) => f,
            _ => Box::pin(core::future::ready(Outcome::Error(ErrorObject::internal(
                "No handler is registered for this request",
            )))),
        }
    }
}
