//! Extractors: what a handler's parameters take from its call.
//!
//! A handler is an `async` closure or function whose parameters are
//! extractors, in any order: the call's arguments (any type that derives
//! `Deserialize` and, with feature `typed`, `JsonSchema`), [`Context`],
//! [`State<S>`] for each state type the service holds, the caller's
//! [`Principal`], the request's [`Meta`], a [`Reporter`] for progress and
//! logs, the [`CancelFlag`], and what the host HTTP stack attached
//! ([`Attached<T>`]). `Option<E>` of any extractor `E` other than the
//! arguments takes `None` where `E` would refuse the call.
//!
//! ```
//! # use snodo_proto::extract::{Meta, State};
//! # use snodo_proto::schemars::{self, JsonSchema};
//! # use snodo_proto::{Service, Tool};
//! # use std::sync::Arc;
//! struct Db;
//! struct Clock;
//! #[derive(serde::Deserialize, JsonSchema)]
//! struct Query {
//!     q: String,
//! }
//! let service = Service::builder()
//!     .state(Db)
//!     .state(Clock)
//!     .tool(
//!         Tool::new("search", "Search"),
//!         |_clock: State<Clock>, query: Query, meta: Meta, _db: State<Db>| async move {
//!             format!("{} from {:?}", query.q, meta.client_info.as_ref().map(|c| &c.name))
//!         },
//!     )
//!     .build()
//!     .unwrap();
//! assert_eq!(service.tools()[0].input_schema["required"][0], "q");
//! ```
//!
//! Each extractor declares what it needs when the handler is registered:
//! a [`State<S>`] whose `S` the service does not hold fails
//! [`ServiceBuilder::build`](crate::ServiceBuilder::build) (and a
//! [`Change`](crate::Change)'s commit) with
//! [`BuildError::MissingState`], rather
//! than every call at run time. A handler takes its arguments at most
//! once. A parameter that is no extractor is a compile error naming it:
//!
//! ```compile_fail,E0277
//! # use snodo_proto::{CallToolResult, Service, Tool};
//! struct NotAnExtractor;
//! Service::builder().tool(Tool::new("t", "T"), |_: NotAnExtractor| async {
//!     CallToolResult::text("never")
//! });
//! ```
//!
//! Extraction happens after admission, authorization, the rate limit and
//! schema validation, and inside the call's [layers](crate::layer): a
//! call refused there never reaches an extractor.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::any::{Any, TypeId};
use core::future::Future;
use core::ops::Deref;
use serde_json::{Map, Value};

use crate::auth::Principal;
use crate::error::ErrorObject;
use crate::handler::{CancelFlag, Context, ResourceArgs, ToolArgs};
use crate::meta::{LogLevel, RequestMeta};
use crate::model::CompletionRequest;
use crate::service::BuildError;

/// The application's states, one per type ([`ServiceBuilder::state`](crate::ServiceBuilder::state)).
#[derive(Clone, Default)]
pub(crate) struct States(BTreeMap<TypeId, Arc<dyn Any + Send + Sync>>);

impl States {
    pub(crate) fn insert<S: Send + Sync + 'static>(&mut self, state: Arc<S>) {
        self.0.insert(TypeId::of::<S>(), state);
    }

    fn get<S: Send + Sync + 'static>(&self) -> Option<Arc<S>> {
        self.0.get(&TypeId::of::<S>())?.clone().downcast::<S>().ok()
    }

    fn holds(&self, ty: TypeId) -> bool {
        self.0.contains_key(&ty)
    }
}

impl core::fmt::Debug for States {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("States")
            .field("len", &self.0.len())
            .finish()
    }
}

/// What a handler's needs are, gathered from its extractors when it is
/// registered: the schema of the arguments, how many parameters take
/// them, and the state types it reads.
#[derive(Debug, Default)]
pub struct Needs {
    pub(crate) schema: Option<Value>,
    pub(crate) bodies: u8,
    pub(crate) states: Vec<(TypeId, &'static str)>,
}

impl Needs {
    /// The handler reads the state `S`: the service must hold one.
    pub fn state<S: Send + Sync + 'static>(&mut self) {
        self.states
            .push((TypeId::of::<S>(), core::any::type_name::<S>()));
    }

    /// Of the states this handler reads, the first the service lacks.
    pub(crate) fn missing(&self, states: &States) -> Option<&'static str> {
        self.states
            .iter()
            .find(|(ty, _)| !states.holds(*ty))
            .map(|(_, name)| *name)
    }

    /// Refuse the registration of `handler` when the service cannot meet
    /// these needs.
    pub(crate) fn check(&self, handler: &str, states: &States) -> Result<(), BuildError> {
        if self.bodies > 1 {
            return Err(BuildError::InputTakenTwice(String::from(handler)));
        }
        match self.missing(states) {
            Some(state) => Err(BuildError::MissingState {
                handler: String::from(handler),
                state,
            }),
            None => Ok(()),
        }
    }

    /// Gathered from the handler type `H`.
    pub(crate) fn of<B, M, H: Handler<B, M>>() -> Needs {
        let mut needs = Needs::default();
        H::needs(&mut needs);
        needs
    }
}

/// What every extractor reads: the call's [`Context`] and the service's
/// states.
pub struct Parts<'a> {
    pub(crate) context: &'a Context,
}

impl<'a> Parts<'a> {
    /// The call's context.
    pub fn context(&self) -> &'a Context {
        self.context
    }

    /// The service's state of type `S`, if it holds one.
    pub fn state<S: Send + Sync + 'static>(&self) -> Option<Arc<S>> {
        self.context.states().get::<S>()
    }
}

/// A type a handler parameter can be that reads only the call's parts
/// (never its arguments). Implement it for an application's own
/// extractor (a database connection from a pool in the state, say).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be taken from a call",
    label = "not an extractor",
    note = "a handler's parameters are its arguments (one type deriving `Deserialize` and `JsonSchema`), `Context`, `State<S>`, `Principal`, `Meta`, `Reporter`, `CancelFlag`, `Attached<T>`, or a type implementing `FromCallParts`"
)]
pub trait FromCallParts: Sized + Send + 'static {
    /// Take it from `parts`, or refuse the call with a JSON-RPC error.
    fn from_call_parts(parts: &Parts<'_>) -> Result<Self, ErrorObject>;

    /// Declare what it needs at registration (a state type, say).
    fn needs(_: &mut Needs) {}
}

/// Marks extractors that read the call's parts ([`FromCallParts`]).
#[derive(Debug)]
pub enum ViaParts {}

/// Marks the extractor that takes the call's own input: a tool's
/// arguments, a resource read's URI, a prompt's arguments, a completion
/// request.
#[derive(Debug)]
pub enum ViaInput {}

/// A type a parameter of a handler answering input `I` can be: every
/// [`FromCallParts`], and what reads `I` itself. `M` tells the two apart
/// (see [`ViaParts`], [`ViaInput`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be taken from this call",
    label = "not an extractor here",
    note = "a tool's arguments derive `Deserialize` and `JsonSchema`; a resource reader takes `ResourceArgs`, a prompt its arguments type, a completer `CompletionRequest`; the other parameters implement `FromCallParts` (`Context`, `State<S>`, `Principal`, `Meta`, `Reporter`, `CancelFlag`, `Attached<T>`)"
)]
pub trait FromCall<I, M>: Sized + Send + 'static {
    /// Take it from `parts`, or from `input` (which only the first
    /// parameter reading the input finds).
    fn from_call(parts: &Parts<'_>, input: &mut Option<I>) -> Result<Self, ErrorObject>;

    /// Declare what it needs at registration.
    fn needs(_: &mut Needs) {}
}

impl<I, T: FromCallParts> FromCall<I, ViaParts> for T {
    fn from_call(parts: &Parts<'_>, _: &mut Option<I>) -> Result<Self, ErrorObject> {
        T::from_call_parts(parts)
    }

    fn needs(needs: &mut Needs) {
        T::needs(needs)
    }
}

fn taken() -> ErrorObject {
    ErrorObject::internal("A handler took its input twice")
}

/// A tool's arguments: deserialized from the validated `arguments`
/// object; their schema is the tool's `inputSchema` unless it sets one by
/// hand.
impl<T: ToolArgs + Send + 'static> FromCall<Map<String, Value>, ViaInput> for T {
    fn from_call(_: &Parts<'_>, input: &mut Option<Map<String, Value>>) -> Result<T, ErrorObject> {
        let arguments = input.take().ok_or_else(taken)?;
        // Schema validation already ran; failing here means the Rust type
        // is stricter than the published schema.
        T::deserialize(Value::Object(arguments))
            .map_err(|e| ErrorObject::invalid_params(alloc::format!("Invalid arguments: {e}")))
    }

    fn needs(needs: &mut Needs) {
        needs.bodies += 1;
        if needs.schema.is_none() {
            needs.schema = T::input_schema();
        }
    }
}

/// A resource read: the URI and the matching template's variables.
impl FromCall<ResourceArgs, ViaInput> for ResourceArgs {
    fn from_call(_: &Parts<'_>, input: &mut Option<ResourceArgs>) -> Result<Self, ErrorObject> {
        input.take().ok_or_else(taken)
    }

    fn needs(needs: &mut Needs) {
        needs.bodies += 1;
    }
}

/// A completion request.
impl FromCall<CompletionRequest, ViaInput> for CompletionRequest {
    fn from_call(
        _: &Parts<'_>,
        input: &mut Option<CompletionRequest>,
    ) -> Result<Self, ErrorObject> {
        input.take().ok_or_else(taken)
    }

    fn needs(needs: &mut Needs) {
        needs.bodies += 1;
    }
}

/// A prompt's string arguments, as the type `A` (required ones were
/// checked against the declaration first).
#[derive(Debug)]
pub struct PromptInput(pub(crate) BTreeMap<String, String>);

/// With feature `typed`, the type's schema declares the prompt's
/// arguments when its declaration lists none.
impl<T: ToolArgs + Send + 'static> FromCall<PromptInput, ViaInput> for T {
    fn from_call(_: &Parts<'_>, input: &mut Option<PromptInput>) -> Result<T, ErrorObject> {
        let PromptInput(arguments) = input.take().ok_or_else(taken)?;
        crate::strings::from_strings::<T>(&arguments).map_err(|e| {
            ErrorObject::invalid_params(alloc::format!("Invalid prompt arguments: {e}"))
        })
    }

    fn needs(needs: &mut Needs) {
        needs.bodies += 1;
        if needs.schema.is_none() {
            needs.schema = T::input_schema();
        }
    }
}

impl FromCallParts for Context {
    fn from_call_parts(parts: &Parts<'_>) -> Result<Self, ErrorObject> {
        Ok(parts.context.clone())
    }
}

impl<T: FromCallParts> FromCallParts for Option<T> {
    fn from_call_parts(parts: &Parts<'_>) -> Result<Self, ErrorObject> {
        Ok(T::from_call_parts(parts).ok())
    }
}

/// The application's state of type `S`, as a handler receives it: a
/// shared reference (`Deref<Target = S>`), cheap to move into the
/// handler's future. A service holds one state per type
/// ([`ServiceBuilder::state`](crate::ServiceBuilder::state)); interior
/// mutability (a `Mutex`, atomics) is the application's choice.
#[derive(Debug)]
pub struct State<S: ?Sized>(pub Arc<S>);

impl<S: ?Sized> Clone for State<S> {
    fn clone(&self) -> Self {
        State(self.0.clone())
    }
}

impl<S: ?Sized> Deref for State<S> {
    type Target = S;
    fn deref(&self) -> &S {
        &self.0
    }
}

impl<S: ?Sized> State<S> {
    /// The shared handle, for work that outlives the call (a spawned task).
    pub fn arc(&self) -> Arc<S> {
        self.0.clone()
    }
}

impl<S: Send + Sync + 'static> FromCallParts for State<S> {
    fn from_call_parts(parts: &Parts<'_>) -> Result<Self, ErrorObject> {
        // Registration checked that the service holds an `S`; only a
        // context made outside any service (`Context::detached`) lacks it.
        parts
            .state::<S>()
            .map(State)
            .ok_or_else(|| ErrorObject::internal("Internal error"))
    }

    fn needs(needs: &mut Needs) {
        needs.state::<S>();
    }
}

/// Who is calling: the principal the service's
/// [`Authorization`](crate::Authorization) established. A call without
/// one (no authorization configured) is refused `-32603`; take
/// `Option<Principal>` where authorization is optional.
impl FromCallParts for Principal {
    fn from_call_parts(parts: &Parts<'_>) -> Result<Self, ErrorObject> {
        parts
            .context
            .principal()
            .cloned()
            .ok_or_else(|| ErrorObject::internal("This call has no authenticated principal"))
    }
}

/// The request's admitted `_meta` (`Deref<Target = RequestMeta>`),
/// shared with the call rather than copied.
#[derive(Clone)]
pub struct Meta(Context);

impl Deref for Meta {
    type Target = RequestMeta;
    fn deref(&self) -> &RequestMeta {
        self.0.meta()
    }
}

impl core::fmt::Debug for Meta {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&**self, f)
    }
}

impl FromCallParts for Meta {
    fn from_call_parts(parts: &Parts<'_>) -> Result<Self, ErrorObject> {
        Ok(Meta(parts.context.clone()))
    }
}

/// Progress reports and log messages on the call's stream: the
/// reporting half of [`Context`], for a handler that needs no more.
#[derive(Clone)]
pub struct Reporter(Context);

impl Reporter {
    /// Report progress (see [`Context::progress`]).
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        self.0.progress(progress, total, message);
    }

    /// Send a log message (see [`Context::log`]).
    pub fn log(&self, level: LogLevel, logger: Option<&str>, data: Value) {
        self.0.log(level, logger, data);
    }
}

impl core::fmt::Debug for Reporter {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Reporter")
            .field("call", &self.0.call_id())
            .finish()
    }
}

impl FromCallParts for Reporter {
    fn from_call_parts(parts: &Parts<'_>) -> Result<Self, ErrorObject> {
        Ok(Reporter(parts.context.clone()))
    }
}

impl FromCallParts for CancelFlag {
    fn from_call_parts(parts: &Parts<'_>) -> Result<Self, ErrorObject> {
        Ok(parts.context.cancel_flag())
    }
}

/// What the host HTTP stack attached to the call's request, when it is a
/// `T`. A host adapter builds its own extractor on this (`snodo-hyper`'s
/// `Extension<T>` reads one value from the request's `http::Extensions`,
/// where tower middleware put it). A call without one (stdio, the native
/// listeners) is refused `-32603`; take `Option<Attached<T>>` where it is
/// optional.
#[derive(Clone, Debug)]
pub struct Attached<T>(pub T);

impl<T: Clone + Send + 'static> FromCallParts for Attached<T> {
    fn from_call_parts(parts: &Parts<'_>) -> Result<Self, ErrorObject> {
        parts
            .context
            .host::<T>()
            .cloned()
            .map(Attached)
            .ok_or_else(|| ErrorObject::internal("This call's request carries no such value"))
    }
}

/// Code that answers a call with input `I`: an `async` closure or `fn`
/// of up to eight extractors. `M` records how each parameter is
/// extracted; it is inferred, never written.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a handler for this registration",
    label = "not a handler",
    note = "a handler is a closure or fn returning a future, with at most 8 parameters that are all extractors (see `snodo_proto::extract`), and an output the registration accepts; annotate every closure parameter's type"
)]
pub trait Handler<I, M>: Send + Sync + 'static {
    /// What the handler's future resolves to.
    type Output;
    /// The handler's future.
    type Future: Future<Output = Self::Output> + Send + 'static;

    /// Extract every parameter and start the handler.
    fn call(&self, parts: &Parts<'_>, input: I) -> Result<Self::Future, ErrorObject>;

    /// What its extractors need.
    fn needs(needs: &mut Needs);
}

impl<F, Fut, I> Handler<I, ()> for F
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'static,
{
    type Output = Fut::Output;
    type Future = Fut;

    fn call(&self, _: &Parts<'_>, _: I) -> Result<Fut, ErrorObject> {
        Ok(self())
    }

    fn needs(_: &mut Needs) {}
}

macro_rules! handler {
    ($(($T:ident, $M:ident)),+) => {
        impl<F, Fut, I, $($T, $M,)+> Handler<I, ($(($M, $T),)+)> for F
        where
            F: Fn($($T),+) -> Fut + Send + Sync + 'static,
            Fut: Future + Send + 'static,
            $($T: FromCall<I, $M>,)+
        {
            type Output = Fut::Output;
            type Future = Fut;

            #[allow(non_snake_case)]
            fn call(&self, parts: &Parts<'_>, input: I) -> Result<Fut, ErrorObject> {
                let mut input = Some(input);
                $(let $T = $T::from_call(parts, &mut input)?;)+
                Ok(self($($T),+))
            }

            fn needs(needs: &mut Needs) {
                $($T::needs(needs);)+
            }
        }
    };
}

handler!((T1, M1));
handler!((T1, M1), (T2, M2));
handler!((T1, M1), (T2, M2), (T3, M3));
handler!((T1, M1), (T2, M2), (T3, M3), (T4, M4));
handler!((T1, M1), (T2, M2), (T3, M3), (T4, M4), (T5, M5));
handler!((T1, M1), (T2, M2), (T3, M3), (T4, M4), (T5, M5), (T6, M6));
handler!(
    (T1, M1),
    (T2, M2),
    (T3, M3),
    (T4, M4),
    (T5, M5),
    (T6, M6),
    (T7, M7)
);
handler!(
    (T1, M1),
    (T2, M2),
    (T3, M3),
    (T4, M4),
    (T5, M5),
    (T6, M6),
    (T7, M7),
    (T8, M8)
);
