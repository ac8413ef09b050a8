//! Behaviour around calls: a [`Layer`] runs around every call of the tools,
//! resources, prompts and completions it is installed on, sees what was
//! called, by whom and with which `_meta`, and the [`Outcome`] it ended
//! with, and may answer in the handler's place.
//!
//! # Installing layers
//!
//! - [`ServiceBuilder::layer`](crate::ServiceBuilder::layer): around every
//!   call of the service (tools, resources, prompts, completions).
//! - [`ServiceBuilder::tool_layer`](crate::ServiceBuilder::tool_layer):
//!   around the calls of one tool, by name.
//!
//! The first layer added is the outermost: it sees the call first and the
//! outcome last. A service's layers are outside every tool's own, as an
//! axum router's layers are outside a route's: `.layer(a).layer(b)
//! .tool_layer("t", c)` runs `a(b(c(handler)))` for `t`. Tools added at run
//! time through the [`Registry`](crate::Registry) are wrapped the same way
//! when their change commits: the service's layers, and the tool layers
//! registered for their name.
//!
//! # Where layers run
//!
//! A layer wraps the handler a call runs, so it runs when the call runs
//! ([`Invocation::run`](crate::Invocation::run), which a
//! [`CallTask`](crate::CallTask) drives): after everything that may refuse
//! the request. In order, a request passes admission (its envelope,
//! `_meta`, version and capabilities), the rate limit of its principal
//! ([`ServiceBuilder::rate_limit`](crate::ServiceBuilder::rate_limit)),
//! the lookup of its target (an unknown tool, or one hidden by a view, is
//! answered as unknown), argument validation against the `inputSchema`,
//! MRTR admission of `requestState`, and the scopes its target needs
//! ([`Authorization::tool_scopes`](crate::Authorization::tool_scopes));
//! then it waits for one of the connection's call slots
//! ([`Limits::max_concurrent_calls`](crate::Limits)). Only then is it a
//! call, and only calls reach layers: a request any of these refused
//! never reaches one. A layer that must see refusals too belongs in the
//! host's HTTP stack (a tower layer around `snodo-hyper`'s service).
//!
//! A call's deadline runs from the moment it takes its slot, so the time
//! it spends inside a layer (waiting on a [`ConcurrencyLimit`], say)
//! counts against it.
//!
//! # Deadlines
//!
//! snodo-proto reads no clock: every deadline of a connection is decided
//! in its timer table, from the times its adapter passes in. So the
//! [`Timeout`] layer does not measure anything itself; it replaces
//! [`Limits::call_timeout`](crate::Limits) for the calls it is installed
//! on ([`Layer::timeout`]), and a call past it is cancelled and answered
//! exactly as one past `call_timeout` (`-32603` "Request timed out").
//! Where several [`Timeout`]s wrap a call, the innermost decides, so a
//! tool's own timeout replaces the service's (longer or shorter).
//!
//! # Cost
//!
//! Handlers are wrapped once, when the service is built or a change
//! commits, never per call; a call of a handler with no layer around it
//! runs exactly as without this module. Each layer around a call costs
//! what its [`Layer::around`] does (a boxed future, usually).
//!
//! # Example
//!
//! ```
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use std::sync::Arc;
//! use std::time::Duration;
//! use snodo_proto::layer::{self, Call, ConcurrencyLimit, Timeout};
//! use snodo_proto::{CallToolResult, NoArgs, Service, Tool};
//!
//! let calls = Arc::new(AtomicUsize::new(0));
//! let counted = calls.clone();
//! let service = Service::builder()
//!     // Around every call: count it, then run it.
//!     .layer(layer::from_fn(move |call: Call| {
//!         counted.fetch_add(1, Ordering::Relaxed);
//!         call.run()
//!     }))
//!     // Around `report` only: one call at a time, ten minutes each.
//!     .tool_layer("report", ConcurrencyLimit::new(1))
//!     .tool_layer("report", Timeout::new(Duration::from_secs(600)))
//!     .tool(Tool::new("report", "A long report"), |_: NoArgs| async {
//!         CallToolResult::text("done")
//!     })
//!     .build()
//!     .unwrap();
//! # let _ = service;
//! ```

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;
use core::future::Future;
use core::time::Duration;
use serde_json::{Map, Value};

use crate::auth::Principal;
use crate::handler::{
    BoxFuture, CompleteFn, Context, Outcome, PromptFn, ResourceArgs, ResourceFn, ToolFn,
};
use crate::meta::RequestMeta;
use crate::model::{CompletionRef, CompletionRequest};

#[cfg(feature = "std")]
mod audit;
#[cfg(feature = "std")]
mod concurrency;
#[cfg(feature = "tower")]
mod tower;

#[cfg(feature = "tower")]
pub use self::tower::{Run, Tower};
#[cfg(feature = "std")]
pub use audit::Audit;
#[cfg(feature = "std")]
pub use concurrency::ConcurrencyLimit;

/// Behaviour around calls (see the [module docs](self)).
pub trait Layer: Send + Sync + 'static {
    /// Answer `call`: usually by running it ([`Call::run`]) and returning
    /// its outcome, perhaps after waiting, perhaps changed; or in the
    /// handler's place, without running it.
    fn around(&self, call: Call) -> BoxFuture<Outcome>;

    /// The deadline this layer sets on the calls it wraps, replacing
    /// [`Limits::call_timeout`](crate::Limits) for them; `None` (the
    /// default) leaves it as it is. The connection enforces it: see
    /// [`Timeout`].
    fn timeout(&self) -> Option<Duration> {
        None
    }
}

impl<L: Layer + ?Sized> Layer for Arc<L> {
    fn around(&self, call: Call) -> BoxFuture<Outcome> {
        (**self).around(call)
    }

    fn timeout(&self) -> Option<Duration> {
        (**self).timeout()
    }
}

/// What kind of call a [`Call`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallKind {
    /// `tools/call`.
    Tool,
    /// `resources/read`.
    Resource,
    /// `prompts/get`.
    Prompt,
    /// `completion/complete`.
    Completion,
}

impl CallKind {
    /// The method of the request.
    pub fn method(self) -> &'static str {
        match self {
            CallKind::Tool => "tools/call",
            CallKind::Resource => "resources/read",
            CallKind::Prompt => "prompts/get",
            CallKind::Completion => "completion/complete",
        }
    }
}

/// What runs next, inside the layer: the handler, or the next layer.
enum Next {
    Tool(Arc<ToolFn>, Arc<str>, Map<String, Value>),
    Resource(Arc<ResourceFn>, ResourceArgs),
    Prompt(Arc<PromptFn>, Arc<str>, BTreeMap<String, String>),
    Complete(Arc<CompleteFn>, CompletionRequest),
}

/// One call, as a [`Layer`] sees it: what was called, by whom, and the
/// rest of the way to its handler ([`run`](Call::run)).
pub struct Call {
    next: Next,
    context: Context,
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("kind", &self.kind())
            .field("name", &self.name())
            .field("call", &self.context.call_id())
            .finish()
    }
}

impl Call {
    /// What kind of call this is.
    pub fn kind(&self) -> CallKind {
        match self.next {
            Next::Tool(..) => CallKind::Tool,
            Next::Resource(..) => CallKind::Resource,
            Next::Prompt(..) => CallKind::Prompt,
            Next::Complete(..) => CallKind::Completion,
        }
    }

    /// The request's method (`tools/call`, `resources/read`, ...).
    pub fn method(&self) -> &'static str {
        self.kind().method()
    }

    /// What was called: the tool or prompt name, the resource URI read
    /// (for a template, the URI that matched it), or for a completion the
    /// prompt name or template it completes.
    pub fn name(&self) -> &str {
        match &self.next {
            Next::Tool(_, name, _) | Next::Prompt(_, name, _) => name,
            Next::Resource(_, args) => &args.uri,
            Next::Complete(_, req) => match &req.reference {
                CompletionRef::Prompt { name } => name,
                CompletionRef::Resource { uri } => uri,
            },
        }
    }

    /// A tool call's arguments, validated against its `inputSchema`.
    pub fn arguments(&self) -> Option<&Map<String, Value>> {
        match &self.next {
            Next::Tool(_, _, arguments) => Some(arguments),
            _ => None,
        }
    }

    /// Who is calling (see [`Context::principal`]).
    pub fn principal(&self) -> Option<&Principal> {
        self.context.principal()
    }

    /// The request's admitted `_meta`.
    pub fn meta(&self) -> &RequestMeta {
        self.context.meta()
    }

    /// The context the handler will see (its call id, cancellation,
    /// progress and logging).
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// Run the rest of the way: the next layer, or the handler.
    pub fn run(self) -> BoxFuture<Outcome> {
        let ctx = self.context;
        match self.next {
            Next::Tool(f, _, arguments) => f(arguments, ctx),
            Next::Resource(f, args) => f(args, ctx),
            Next::Prompt(f, _, arguments) => f(arguments, ctx),
            Next::Complete(f, req) => f(req, ctx),
        }
    }
}

/// A layer from a function of the call: [`from_fn`].
pub struct FromFn<F>(F);

/// A [`Layer`] from `f`, which answers each call (by running it with
/// [`Call::run`], or not):
///
/// ```
/// use snodo_proto::layer::{self, Call};
///
/// let audit = layer::from_fn(|call: Call| {
///     let name = call.name().to_owned();
///     async move {
///         let outcome = call.run().await;
///         println!("{name}: {outcome:?}");
///         outcome
///     }
/// });
/// # let _ = snodo_proto::Service::builder().layer(audit);
/// ```
pub fn from_fn<F, Fut>(f: F) -> FromFn<F>
where
    F: Fn(Call) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Outcome> + Send + 'static,
{
    FromFn(f)
}

impl<F, Fut> Layer for FromFn<F>
where
    F: Fn(Call) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Outcome> + Send + 'static,
{
    fn around(&self, call: Call) -> BoxFuture<Outcome> {
        alloc::boxed::Box::pin((self.0)(call))
    }
}

/// The deadline of the calls it wraps, replacing
/// [`Limits::call_timeout`](crate::Limits) for them. The connection's
/// timer table enforces it: past it the call is cancelled (its future
/// dropped) and answered `-32603` "Request timed out", as any call past
/// `call_timeout` is. Around a call of its own it does nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeout(Duration);

impl Timeout {
    /// Calls may run for `limit`.
    pub fn new(limit: Duration) -> Timeout {
        Timeout(limit)
    }
}

impl Layer for Timeout {
    fn around(&self, call: Call) -> BoxFuture<Outcome> {
        call.run()
    }

    fn timeout(&self) -> Option<Duration> {
        Some(self.0)
    }
}

/// A service's layers, and the tool layers by tool name.
#[derive(Clone, Default)]
pub(crate) struct Layers {
    service: Vec<Arc<dyn Layer>>,
    tools: Vec<(String, Arc<dyn Layer>)>,
}

/// A handler with its layers around it, and the deadline they set.
pub(crate) struct Wrapped<F: ?Sized> {
    pub(crate) handler: Option<Arc<F>>,
    pub(crate) timeout: Option<Duration>,
}

impl Layers {
    pub(crate) fn push(&mut self, layer: Arc<dyn Layer>) {
        self.service.push(layer);
    }

    pub(crate) fn push_tool(&mut self, name: String, layer: Arc<dyn Layer>) {
        self.tools.push((name, layer));
    }

    /// The layers around a call of `tool` (`None`: any other kind),
    /// outermost first.
    fn around<'a>(
        &'a self,
        tool: Option<&'a str>,
    ) -> impl DoubleEndedIterator<Item = &'a Arc<dyn Layer>> + 'a {
        let own = self
            .tools
            .iter()
            .filter(move |(name, _)| Some(name.as_str()) == tool)
            .map(|(_, layer)| layer);
        self.service.iter().chain(own)
    }

    /// The innermost deadline set among `layers`.
    fn timeout<'a>(
        layers: impl DoubleEndedIterator<Item = &'a Arc<dyn Layer>>,
    ) -> Option<Duration> {
        layers.rev().find_map(|l| l.timeout())
    }

    /// The tool `name`'s handler with its layers around it.
    pub(crate) fn tool(&self, name: &Arc<str>, handler: Option<Arc<ToolFn>>) -> Wrapped<ToolFn> {
        let timeout = Self::timeout(self.around(Some(name)));
        let handler = handler.map(|mut f| {
            for layer in self.around(Some(name)).rev() {
                let (layer, inner, name) = (layer.clone(), f, name.clone());
                f = Arc::new(move |arguments, context| {
                    let next = Next::Tool(inner.clone(), name.clone(), arguments);
                    layer.around(Call { next, context })
                });
            }
            f
        });
        Wrapped { handler, timeout }
    }

    /// A resource or template reader with the service's layers around it.
    pub(crate) fn resource(&self, handler: Option<Arc<ResourceFn>>) -> Wrapped<ResourceFn> {
        let handler = handler.map(|mut f| {
            for layer in self.around(None).rev() {
                let (layer, inner) = (layer.clone(), f);
                f = Arc::new(move |args, context| {
                    let next = Next::Resource(inner.clone(), args);
                    layer.around(Call { next, context })
                });
            }
            f
        });
        Wrapped {
            handler,
            timeout: Self::timeout(self.around(None)),
        }
    }

    /// The prompt `name`'s handler with the service's layers around it.
    pub(crate) fn prompt(&self, name: &str, handler: Option<Arc<PromptFn>>) -> Wrapped<PromptFn> {
        let handler = handler.map(|mut f| {
            let name: Arc<str> = Arc::from(name);
            for layer in self.around(None).rev() {
                let (layer, inner, name) = (layer.clone(), f, name.clone());
                f = Arc::new(move |arguments, context| {
                    let next = Next::Prompt(inner.clone(), name.clone(), arguments);
                    layer.around(Call { next, context })
                });
            }
            f
        });
        Wrapped {
            handler,
            timeout: Self::timeout(self.around(None)),
        }
    }

    /// The completer with the service's layers around it.
    pub(crate) fn complete(&self, handler: Option<Arc<CompleteFn>>) -> Wrapped<CompleteFn> {
        let handler = handler.map(|mut f| {
            for layer in self.around(None).rev() {
                let (layer, inner) = (layer.clone(), f);
                f = Arc::new(move |req, context| {
                    let next = Next::Complete(inner.clone(), req);
                    layer.around(Call { next, context })
                });
            }
            f
        });
        Wrapped {
            handler,
            timeout: Self::timeout(self.around(None)),
        }
    }
}
