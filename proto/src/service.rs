//! The shared, immutable half of a server: what is registered, the limits,
//! and everything that can be computed once (capabilities, the
//! `server/discover` result, list pages).
//!
//! Built once and shared by every [`Connection`](crate::Connection) (an
//! `Arc` inside, so cloning is cheap and no connection locks anything).

use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;
use core::time::Duration;
use serde_json::{json, Map, Value};

use crate::error::ErrorObject;
use crate::extract::{Handler, Needs, PromptInput, States};
use crate::handler::{
    complete_fn, declared, declared_prompt, prompt_fn, resource_fn, tool_fn, CompleteFn,
    IntoPromptOutcome, IntoResourceOutcome, IntoToolOutcome, PromptFn, ResourceArgs, ResourceFn,
    ToolFn,
};
use crate::http::HttpConfig;
use crate::model::{
    CacheHint, Completion, CompletionRequest, Implementation, Prompt, Resource, ResourceTemplate,
    Tool,
};
use crate::mrtr::StateKeys;
use crate::profile::{Dialect, Handshake, Profile, ServerCapability, REVISION_2026_07_28};
use crate::registry::Table;
use crate::shape;
use crate::subscriptions::Notifications;

/// Explicit bounds on everything a client can make the server hold.
///
/// Each field states its default ([`Limits::default`]); change a few and
/// keep the rest with `Limits { max_concurrent_calls: 16, ..Limits::default() }`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest message accepted, in bytes (a stdio line without its newline).
    ///
    /// Default: `4 * 1024 * 1024` (4 MiB).
    pub max_message_bytes: usize,
    /// Calls handed to the application at once per connection; more wait.
    ///
    /// Default: `64`.
    pub max_concurrent_calls: usize,
    /// Admitted calls that may wait for a slot per connection; beyond this
    /// the connection asks its adapter to stop reading (backpressure).
    ///
    /// Default: `256`.
    pub max_queued_calls: usize,
    /// A call still running after this long is cancelled and answered with
    /// an internal error, so a handler that never finishes frees its slot.
    /// `None` lets calls run for ever.
    ///
    /// Default: `Some(Duration::from_secs(300))` (5 minutes).
    pub call_timeout: Option<Duration>,
    /// Entries per page of `tools/list`, `prompts/list`, `resources/list`,
    /// `resources/templates/list`.
    ///
    /// Default: `100`.
    pub page_size: usize,
    /// Open `subscriptions/listen` streams per connection.
    ///
    /// Default: `16`.
    pub max_subscriptions: usize,
    /// How often a quiet listen stream on HTTP gets an SSE comment, so
    /// intermediaries and clients do not time it out
    /// (`streamable-http.mdx` § Receiving Messages).
    ///
    /// Default: `Duration::from_secs(15)`.
    pub heartbeat: Duration,
    /// Initialize-era sessions open at once on HTTP; `initialize` beyond
    /// this (after idle ones expire) is refused with 503.
    ///
    /// Default: `1024`.
    pub max_sessions: usize,
    /// An HTTP session with no message for this long is removed; its next
    /// request gets 404 and the client starts a new one
    /// (`mcp-2025-11-25/basic/transports.mdx` § Session Management).
    ///
    /// Default: `Duration::from_secs(30 * 60)` (30 minutes).
    pub session_idle_timeout: Duration,
    /// Bytes of its streams' latest messages each HTTP session keeps for
    /// a client that resumes a stream with `Last-Event-ID`
    /// (`mcp-2025-11-25/basic/transports.mdx` § Resumability and
    /// Redelivery): the GET stream's and every POST stream's, in one
    /// budget. Each message on them then carries an SSE `id` naming its
    /// stream; a resuming client gets again the kept messages of that
    /// stream that followed the one it names, then what comes next (on the
    /// GET stream what was published while no stream was open, on a POST
    /// stream its call's later messages up to its answer). Messages older
    /// than the budget holds are not replayed, nor is one larger than it.
    /// 0: no event ids, nothing kept. At most `max_sessions` times this in
    /// all.
    ///
    /// Default: `16 * 1024` (16 KiB).
    pub session_replay_bytes: usize,
    /// How long calls in flight may keep running once a connection winds
    /// down: after end of input on stdio (`basic/transports/stdio.mdx`
    /// § Shutdown: the server should exit promptly), or after
    /// [`Connection::begin_shutdown`](crate::Connection::begin_shutdown).
    /// Calls still running then are cancelled, unanswered, and the
    /// connection closes. An HTTP client hanging up starts no grace: its
    /// call is cancelled at once, or (an initialize-era session's) runs to
    /// its own deadline.
    ///
    /// Default: `Duration::from_secs(5)`.
    pub shutdown_grace: Duration,
    /// Once a connection is done, how long its last bytes may take to be
    /// written and, on HTTP, how long what the peer still sends is read
    /// and discarded so that closing does not reset a response still in
    /// flight (RFC 9112 § 9.6). See [`Connection::closing`](crate::Connection::closing).
    ///
    /// Default: `Duration::from_secs(2)`.
    pub close_linger: Duration,
    /// Progress and log reports from a connection's running calls that may
    /// wait for the connection to take them; more are dropped (progress is
    /// advisory). Outcomes always wait.
    ///
    /// Default: `256`.
    pub max_pending_reports: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message_bytes: 4 * 1024 * 1024,
            max_concurrent_calls: 64,
            max_queued_calls: 256,
            call_timeout: Some(Duration::from_secs(300)),
            page_size: 100,
            max_subscriptions: 16,
            heartbeat: Duration::from_secs(15),
            max_sessions: 1024,
            session_idle_timeout: Duration::from_secs(30 * 60),
            session_replay_bytes: 16 * 1024,
            shutdown_grace: Duration::from_secs(5),
            close_linger: Duration::from_secs(2),
            max_pending_reports: 256,
        }
    }
}

/// Caching hints for the cacheable results (`server/utilities/caching.mdx`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct CachePolicy {
    /// `server/discover`.
    pub discover: CacheHint,
    /// The four list methods (every page gets the same scope, as the spec requires).
    pub lists: CacheHint,
    /// `resources/read`, unless the handler sets its own.
    pub reads: CacheHint,
}

impl Default for CachePolicy {
    /// Discover and lists stay fresh a minute and may be shared (a service
    /// whose registry changes, or whose lists differ by caller, sets a
    /// shorter or private hint); reads default to private and immediately stale,
    /// because their contents may depend on who asks.
    fn default() -> Self {
        CachePolicy {
            discover: CacheHint::public(60_000),
            lists: CacheHint::public(60_000),
            reads: CacheHint::PRIVATE_NO_STORE,
        }
    }
}

/// Why a service could not be built.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildError {
    /// A tool name breaks `server/tools.mdx` § Tool Names.
    InvalidToolName(String),
    /// Two tools share a name.
    DuplicateTool(String),
    /// A tool's `inputSchema` is unusable.
    InvalidInputSchema {
        /// Tool name.
        tool: String,
        /// Why.
        reason: String,
    },
    /// A tool's `outputSchema` is unusable.
    InvalidOutputSchema {
        /// Tool name.
        tool: String,
        /// Why.
        reason: String,
    },
    /// Two resources share a URI.
    DuplicateResource(String),
    /// A URI template does not parse.
    InvalidUriTemplate {
        /// The template.
        template: String,
        /// Why.
        reason: String,
    },
    /// Two prompts share a name.
    DuplicatePrompt(String),
    /// A completion route names a prompt argument or template variable
    /// that no prompt or template registered on the builder has
    /// ([`ServiceBuilder::prompt_completion`], [`ServiceBuilder::template_completion`]).
    UnknownCompletion {
        /// The prompt or template.
        reference: crate::model::CompletionRef,
        /// The argument or variable.
        argument: String,
    },
    /// Two completion routes for the same argument.
    DuplicateCompletion {
        /// The prompt or template.
        reference: crate::model::CompletionRef,
        /// The argument or variable.
        argument: String,
    },
    /// Completion routes beside [`ServiceBuilder::completer_declared`]:
    /// completions answered by hand cannot have handlers in front.
    CompletionDeclared,
    /// A limit is zero where it must not be.
    InvalidLimit(&'static str),
    /// The request-state keys are unusable (a secret too short), or none
    /// were configured and none could be generated.
    InvalidStateKeys(String),
    /// An extension is unusable: a malformed identifier, installed twice,
    /// wrapping a method it may not, or redefining a listen filter member.
    InvalidExtension {
        /// The extension's identifier.
        extension: String,
        /// Why.
        reason: String,
    },
    /// The dialect allow-list is unusable: a dialect whose version string
    /// or handshake drifted from its profile, one listed twice, or no
    /// 2026-07-28 (the core every other dialect is served beside).
    InvalidDialect {
        /// The version string.
        version: String,
        /// Why.
        reason: String,
    },
    /// An extension claims a method string the core revision defines
    /// (implemented or not) or removed, or that another extension owns.
    ExtensionMethodCollision {
        /// The extension's identifier.
        extension: String,
        /// The method.
        method: String,
    },
    /// A registry change adds to a kind (`"tools"`, `"prompts"`,
    /// `"resources"`) the service does not advertise: its capability is
    /// fixed at build, from what was registered then and what
    /// [`ServiceBuilder::changing`] declared.
    KindNotServed(&'static str),
    /// [`HttpConfig::session_route`] is not 1 to 32 characters of
    /// `A-Z a-z 0-9 _ -`.
    InvalidSessionRoute(String),
    /// The [`Authorization`](crate::Authorization) names no authorization
    /// server: its Protected Resource Metadata would be published without
    /// `authorization_servers`, which a client needs to get a token
    /// (`basic/authorization/authorization-server-discovery.mdx`: the
    /// metadata MUST name at least one).
    NoAuthorizationServer,
    /// A handler takes [`State<S>`](crate::extract::State) of a type the
    /// service holds no state of ([`ServiceBuilder::state`]).
    MissingState {
        /// The tool, resource, prompt or completion the handler answers.
        handler: String,
        /// The state's type.
        state: &'static str,
    },
    /// A handler has two parameters that take its input (the arguments,
    /// say): which one gets them would be a guess.
    InputTakenTwice(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::InvalidToolName(n) => write!(
                f,
                "invalid tool name {n:?}: use 1-128 characters of A-Z a-z 0-9 _ - ."
            ),
            BuildError::DuplicateTool(n) => write!(f, "tool {n:?} is registered twice"),
            BuildError::InvalidInputSchema { tool, reason } => {
                write!(f, "tool {tool:?}: invalid inputSchema: {reason}")
            }
            BuildError::InvalidOutputSchema { tool, reason } => {
                write!(f, "tool {tool:?}: invalid outputSchema: {reason}")
            }
            BuildError::DuplicateResource(u) => write!(f, "resource {u:?} is registered twice"),
            BuildError::InvalidUriTemplate { template, reason } => {
                write!(f, "URI template {template:?}: {reason}")
            }
            BuildError::DuplicatePrompt(n) => write!(f, "prompt {n:?} is registered twice"),
            BuildError::UnknownCompletion {
                reference,
                argument,
            } => write!(
                f,
                "completion of {argument:?} for {reference:?}: no such argument of a registered prompt or template"
            ),
            BuildError::DuplicateCompletion {
                reference,
                argument,
            } => write!(f, "completion of {argument:?} for {reference:?} is registered twice"),
            BuildError::CompletionDeclared => write!(
                f,
                "completion routes need a completer handler or none, not completer_declared"
            ),
            BuildError::InvalidLimit(which) => write!(f, "limit {which} must be greater than zero"),
            BuildError::NoAuthorizationServer => f.write_str(
                "the authorization names no authorization server: call Authorization::authorization_server with the issuer that grants its tokens",
            ),
            BuildError::InvalidSessionRoute(r) => write!(
                f,
                "invalid session route {r:?}: use 1-32 characters of A-Z a-z 0-9 _ -"
            ),
            BuildError::InvalidStateKeys(why) => write!(f, "request-state keys: {why}"),
            BuildError::MissingState { handler, state } => write!(
                f,
                "{handler} takes State<{state}>, but the service holds no {state}: add it with ServiceBuilder::state"
            ),
            BuildError::InputTakenTwice(handler) => write!(
                f,
                "{handler} has two parameters taking its input; take it once"
            ),
            BuildError::InvalidExtension { extension, reason } => {
                write!(f, "extension {extension:?}: {reason}")
            }
            BuildError::InvalidDialect { version, reason } => {
                write!(f, "dialect {version:?}: {reason}")
            }
            BuildError::ExtensionMethodCollision { extension, method } => write!(
                f,
                "extension {extension:?} cannot own {method:?}: the method belongs to the core protocol or another extension"
            ),
            BuildError::KindNotServed(kind) => write!(
                f,
                "the service does not serve {kind}: register one when building it, or declare the kind with ServiceBuilder::changing"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for BuildError {}

pub(crate) use crate::registry::{PromptEntry, ResourceEntry, TemplateEntry, ToolEntry};

pub(crate) struct Inner {
    pub(crate) profile: &'static Profile,
    pub(crate) server_info: Implementation,
    pub(crate) limits: Limits,
    pub(crate) http: HttpConfig,
    pub(crate) cache: CachePolicy,
    pub(crate) logging: bool,
    pub(crate) notifications: Notifications,
    #[cfg(feature = "std")]
    pub(crate) hub: Option<crate::subscriptions::Hub>,
    pub(crate) capabilities: Vec<ServerCapability>,
    /// What is served now (see [`crate::registry`]).
    pub(crate) registry: crate::registry::Store,
    /// What each caller may know of it: the application's view, whose
    /// hidden entries are answered as unknown.
    #[cfg(feature = "std")]
    pub(crate) view: Option<Arc<dyn crate::registry::View>>,
    /// What each caller's lists show: within that view, the entries it
    /// holds the scopes of ([`crate::auth`]).
    #[cfg(feature = "std")]
    pub(crate) listing: Option<Arc<dyn crate::registry::View>>,
    /// Each principal's rate limit on the costly calls.
    #[cfg(feature = "std")]
    pub(crate) limiter: Option<crate::limit::Limiter>,
    /// Resources enumerated on demand after the registered ones.
    pub(crate) lister: Option<Arc<dyn crate::registry::ResourceLister>>,
    pub(crate) completer: Option<Option<Arc<CompleteFn>>>,
    /// The deadline the layers around the completer set.
    pub(crate) completer_timeout: Option<Duration>,
    /// The application's states, for the handlers' extractors.
    pub(crate) states: Arc<States>,
    /// The layers around calls ([`crate::layer`]), for the entries a
    /// registry change adds.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) layers: crate::layer::Layers,
    pub(crate) discover: bytes::Bytes,
    pub(crate) server_meta: crate::shape::ServerMeta,
    /// Seals and opens `requestState` (MRTR).
    pub(crate) sealer: crate::mrtr::Sealer,
    /// Installed extensions.
    pub(crate) extensions: crate::extension::Extensions,
    /// The initialize-era profiles served, newest first (empty: the
    /// server speaks 2026-07-28 only).
    pub(crate) legacy: Vec<&'static Profile>,
    /// `capabilities` of the `initialize` result.
    pub(crate) legacy_capabilities: Value,
    /// `instructions`, for `server/discover` and `initialize`.
    pub(crate) instructions: Option<String>,
    /// The authorization HTTP requests need ([`crate::auth`]).
    pub(crate) auth: Option<crate::auth::Authorization>,
    /// Who every stdio connection's requests come from
    /// ([`ServiceBuilder::stdio_principal`]).
    pub(crate) stdio_principal: Option<alloc::sync::Arc<crate::auth::Principal>>,
    /// HTTP sessions of the initialize-era dialects.
    #[cfg(feature = "std")]
    pub(crate) sessions: Option<crate::legacy::Sessions>,
    /// The memory of the client's last `_meta` for requests a host HTTP
    /// stack parsed ([`Connection::http_request`](crate::Connection::http_request)),
    /// which each make a connection of their own: what a native
    /// connection remembers across its requests, kept here across theirs.
    /// A request that finds it taken by another reads its `_meta` whole.
    #[cfg(feature = "std")]
    pub(crate) host_memo: std::sync::Mutex<crate::dispatch::fast::Memo>,
}

/// A built server: registry, limits and precomputed answers. Cheap to clone.
#[derive(Clone)]
pub struct Service {
    pub(crate) inner: Arc<Inner>,
}

impl fmt::Debug for Service {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let now = self.snapshot();
        f.debug_struct("Service")
            .field("server_info", &self.inner.server_info)
            .field("tools", &now.tools.len())
            .field("resources", &now.resources.len())
            .field("templates", &now.templates.len())
            .field("prompts", &now.prompts.len())
            .finish()
    }
}

impl Service {
    /// Start building a service.
    pub fn builder() -> ServiceBuilder {
        ServiceBuilder::default()
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    /// The Streamable HTTP settings.
    pub fn http_config(&self) -> &HttpConfig {
        &self.inner.http
    }

    /// The revision profile this service admits requests against.
    pub fn profile(&self) -> &'static Profile {
        self.inner.profile
    }

    /// The capabilities advertised by `server/discover`, derived from what
    /// is registered.
    pub fn capabilities(&self) -> &[ServerCapability] {
        &self.inner.capabilities
    }

    /// The `capabilities` object as published.
    pub fn capabilities_json(&self) -> Value {
        capabilities_json(
            &self.inner.capabilities,
            &self.inner.notifications,
            &self.inner.extensions,
        )
    }

    /// The change notifications this service declares (`listChanged`,
    /// `subscribe`).
    pub fn notifications(&self) -> &Notifications {
        &self.inner.notifications
    }

    /// The hub listen streams receive change events from, if one is attached.
    #[cfg(feature = "std")]
    pub fn hub(&self) -> Option<&crate::subscriptions::Hub> {
        self.inner.hub.as_ref()
    }

    /// The HTTP session store of the initialize-era dialects (`None` when
    /// the service speaks 2026-07-28 only), for its counters.
    #[cfg(feature = "std")]
    pub fn sessions(&self) -> Option<&crate::legacy::Sessions> {
        self.inner.sessions.as_ref()
    }

    /// The tools registered now, in `tools/list` order.
    pub fn tools(&self) -> Vec<Tool> {
        self.snapshot()
            .tools
            .iter()
            .map(|t| t.tool.clone())
            .collect()
    }

    /// The registry as it is now: a request answers from one snapshot.
    pub(crate) fn snapshot(&self) -> crate::registry::Loaded<'_> {
        self.inner.registry.load()
    }

    /// Whether the caller of a request with `meta` is denied an entry
    /// (its view does not hold it: `holds` says which).
    #[cfg(feature = "std")]
    pub(crate) fn hidden(
        &self,
        meta: &crate::meta::RequestMeta,
        holds: impl FnOnce(&dyn crate::registry::View, &str) -> bool,
    ) -> bool {
        crate::registry::view::hidden(
            self.inner.view.as_deref(),
            &crate::registry::Caller::new(meta),
            holds,
        )
    }

    /// Without `std` there are no views: nothing is hidden.
    #[cfg(not(feature = "std"))]
    pub(crate) fn hidden(
        &self,
        _meta: &crate::meta::RequestMeta,
        _holds: impl FnOnce(&dyn crate::registry::View, &str) -> bool,
    ) -> bool {
        false
    }

    pub(crate) fn advertises(&self, cap: ServerCapability) -> bool {
        self.inner.capabilities.contains(&cap)
    }
}

fn capabilities_json(
    caps: &[ServerCapability],
    notifications: &Notifications,
    extensions: &crate::extension::Extensions,
) -> Value {
    let mut m = Map::new();
    for cap in caps {
        let (key, value) = match cap {
            ServerCapability::Tools if notifications.tools_list_changed => {
                ("tools", json!({"listChanged": true}))
            }
            ServerCapability::Tools => ("tools", json!({})),
            ServerCapability::Prompts if notifications.prompts_list_changed => {
                ("prompts", json!({"listChanged": true}))
            }
            ServerCapability::Prompts => ("prompts", json!({})),
            ServerCapability::Resources => {
                let mut r = Map::new();
                if notifications.resource_updates {
                    r.insert(String::from("subscribe"), Value::Bool(true));
                }
                if notifications.resources_list_changed {
                    r.insert(String::from("listChanged"), Value::Bool(true));
                }
                ("resources", Value::Object(r))
            }
            ServerCapability::Completions => ("completions", json!({})),
            ServerCapability::Logging => ("logging", json!({})),
            ServerCapability::Subscriptions => continue,
        };
        m.insert(String::from(key), value);
    }
    // `basic/versioning.mdx` § Extension Negotiation: identifier -> settings,
    // for installed extensions only.
    if !extensions.is_empty() {
        m.insert(
            String::from("extensions"),
            Value::Object(extensions.capabilities()),
        );
    }
    Value::Object(m)
}

/// The kinds of entry an application adds at run time through the
/// [`Registry`](crate::registry::Registry) (see [`ServiceBuilder::changing`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Kinds {
    /// Tools.
    pub tools: bool,
    /// Prompts.
    pub prompts: bool,
    /// Resources and resource templates.
    pub resources: bool,
}

crate::options::flags!(Kinds {
    /// Tools too.
    tools,
    /// Prompts too.
    prompts,
    /// Resources and resource templates too.
    resources,
});

crate::options::setters!(Limits {
    max_message_bytes: usize,
    max_concurrent_calls: usize,
    max_queued_calls: usize,
    call_timeout: Option<Duration>,
    page_size: usize,
    max_subscriptions: usize,
    heartbeat: Duration,
    max_sessions: usize,
    session_idle_timeout: Duration,
    session_replay_bytes: usize,
    shutdown_grace: Duration,
    close_linger: Duration,
    max_pending_reports: usize,
});

crate::options::setters!(CachePolicy {
    discover: CacheHint,
    lists: CacheHint,
    reads: CacheHint,
});

impl Kinds {
    /// Whether any kind is named.
    pub fn any(&self) -> bool {
        self.tools || self.prompts || self.resources
    }
}

/// Builds a [`Service`].
pub struct ServiceBuilder {
    server_info: Implementation,
    include_server_info: bool,
    instructions: Option<String>,
    auth: Option<crate::auth::Authorization>,
    stdio_principal: Option<alloc::sync::Arc<crate::auth::Principal>>,
    limits: Limits,
    http: HttpConfig,
    cache: CachePolicy,
    logging: bool,
    notifications: Notifications,
    changing: Kinds,
    #[cfg(feature = "std")]
    hub: Option<crate::subscriptions::Hub>,
    #[cfg(feature = "std")]
    view: Option<Arc<dyn crate::registry::View>>,
    #[cfg(feature = "std")]
    rate_limit: Option<crate::limit::RateLimit>,
    lister: Option<Arc<dyn crate::registry::ResourceLister>>,
    tools: Vec<(Tool, Option<Arc<ToolFn>>)>,
    resources: Vec<(Resource, Option<Arc<ResourceFn>>)>,
    templates: Vec<(ResourceTemplate, Option<Arc<ResourceFn>>)>,
    prompts: Vec<(Prompt, Option<Arc<PromptFn>>)>,
    completer: Option<Option<Arc<CompleteFn>>>,
    completions: Vec<crate::complete::Route>,
    /// The application's states, one per type ([`ServiceBuilder::state`]).
    states: States,
    /// What each registered handler's extractors need, checked at build.
    needs: Vec<(String, Needs)>,
    layers: crate::layer::Layers,
    state_keys: Option<StateKeys>,
    state_ttl: Duration,
    extensions: Vec<crate::extension::Registered>,
    dialects: Vec<Dialect>,
}

impl Default for ServiceBuilder {
    fn default() -> Self {
        ServiceBuilder {
            server_info: Implementation::new("snodo", env!("CARGO_PKG_VERSION")),
            include_server_info: true,
            instructions: None,
            limits: Limits::default(),
            http: HttpConfig::default(),
            cache: CachePolicy::default(),
            logging: false,
            notifications: Notifications::default(),
            changing: Kinds::default(),
            #[cfg(feature = "std")]
            hub: None,
            #[cfg(feature = "std")]
            view: None,
            #[cfg(feature = "std")]
            rate_limit: None,
            lister: None,
            tools: Vec::new(),
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            completer: None,
            completions: Vec::new(),
            states: States::default(),
            needs: Vec::new(),
            layers: crate::layer::Layers::default(),
            state_keys: None,
            state_ttl: crate::mrtr::DEFAULT_STATE_TTL,
            extensions: Vec::new(),
            dialects: Dialect::ALL.to_vec(),
            auth: None,
            stdio_principal: None,
        }
    }
}

/// What both registrations of a tool accept: the [`ServiceBuilder`] before
/// the service is built, and a live registry's [`Change`](crate::Change)
/// after. Code that registers tools without knowing which (what the
/// `#[tool]` macro of `snodo-macros` generates, or an application's own
/// module of tools) is generic over it, so the same tools can be there
/// from the start or added at run time.
pub trait RegisterTool: Sized {
    /// Register `tool` and its handler, as [`ServiceBuilder::tool`].
    fn tool<H, M>(self, tool: Tool, handler: H) -> Self
    where
        H: Handler<Map<String, Value>, M>,
        H::Output: IntoToolOutcome;
}

impl RegisterTool for ServiceBuilder {
    fn tool<H, M>(self, tool: Tool, handler: H) -> Self
    where
        H: Handler<Map<String, Value>, M>,
        H::Output: IntoToolOutcome,
    {
        ServiceBuilder::tool(self, tool, handler)
    }
}

impl ServiceBuilder {
    /// Require OAuth 2.1 bearer tokens on Streamable HTTP ([`crate::auth`]):
    /// every request on the endpoint is authenticated before admission,
    /// and the Protected Resource Metadata is served. stdio takes no
    /// tokens, but the scopes of tools, prompts and resources hold there
    /// too, for the caller [`stdio_principal`](Self::stdio_principal)
    /// names, in every era.
    pub fn authorization(mut self, auth: crate::auth::Authorization) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Who the requests of every stdio connection come from.
    ///
    /// A stdio server takes no tokens: it SHOULD NOT use OAuth and takes
    /// its credentials from its environment instead
    /// (`basic/authorization/index.mdx` § Protocol Requirements). The process
    /// belongs to whoever launched it, so the application, which knows
    /// that user (from its environment, a key file, the OS account), names
    /// them here; from then on stdio requests carry this principal exactly
    /// as HTTP requests carry the authenticated one: in
    /// [`Context::principal`](crate::Context::principal), the ownership of
    /// tasks, sealed `requestState`, and views and scope policies.
    pub fn stdio_principal(mut self, principal: crate::auth::Principal) -> Self {
        self.stdio_principal = Some(alloc::sync::Arc::new(principal));
        self
    }

    /// The server's identity, published in every result's `_meta`.
    pub fn server_info(mut self, info: Implementation) -> Self {
        self.server_info = info;
        self
    }

    /// Leave `io.modelcontextprotocol/serverInfo` out of results (the spec's
    /// "unless specifically configured not to").
    pub fn omit_server_info(mut self) -> Self {
        self.include_server_info = false;
        self
    }

    /// The revisions this server accepts (default: every one in
    /// [`Dialect::ALL`]). 2026-07-28 must be among them; leaving the
    /// initialize-era ones out makes a modern-only server, which answers
    /// `initialize` with `-32601` naming its versions
    /// (`basic/versioning.mdx` § Backward Compatibility).
    pub fn dialects(mut self, dialects: impl IntoIterator<Item = Dialect>) -> Self {
        self.dialects = dialects.into_iter().collect();
        self
    }

    /// `instructions` of `server/discover` (and of `initialize`).
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// The keys that seal and verify `requestState` (MRTR). Give every
    /// process that may serve a retry the same keys; rotate by sealing with
    /// a new key while still accepting the old one. Without keys, a key is
    /// generated at build (`std`), valid for this process only; without
    /// `std` and without keys, handlers may ask for input but not keep
    /// state.
    pub fn state_keys(mut self, keys: StateKeys) -> Self {
        self.state_keys = Some(keys);
        self
    }

    /// How long a sealed `requestState` is accepted after it is issued
    /// (default [`DEFAULT_STATE_TTL`](crate::mrtr::DEFAULT_STATE_TTL)).
    /// Instants are wall-clock based (`time.rs`), so expiry holds across
    /// processes up to their clock skew.
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = ttl;
        self
    }

    /// Install an [`Extension`](crate::extension::Extension): advertised in
    /// `capabilities.extensions`, its methods, middleware and listen filter
    /// members active for requests that declare it. Checked at
    /// [`build`](ServiceBuilder::build).
    pub fn extension<E: crate::extension::Extension>(self, extension: E) -> Self {
        self.extension_arc(Arc::new(extension))
    }

    /// [`extension`](ServiceBuilder::extension) for an extension the
    /// application keeps a handle to.
    pub fn extension_arc<E: crate::extension::Extension>(mut self, extension: Arc<E>) -> Self {
        self.extensions
            .push(crate::extension::Registered::new(extension));
        self
    }

    /// Replace the limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Replace the Streamable HTTP settings (endpoint, origins, hosts, limits).
    pub fn http(mut self, http: HttpConfig) -> Self {
        self.http = http;
        self
    }

    /// Replace the caching hints.
    pub fn cache_policy(mut self, cache: CachePolicy) -> Self {
        self.cache = cache;
        self
    }

    /// Let handlers send `notifications/message` (deprecated logging);
    /// advertises the `logging` capability. Off unless asked for.
    pub fn logging(mut self) -> Self {
        self.logging = true;
        self
    }

    /// Declare the change notifications the application will publish: the
    /// `listChanged` / `subscribe` capabilities, and `subscriptions/listen`
    /// (`basic/patterns/subscriptions.mdx`). A kind is advertised only if
    /// something of that kind is registered.
    pub fn notifications(mut self, notifications: Notifications) -> Self {
        self.notifications = notifications;
        self
    }

    /// Serve these kinds even while nothing of them is registered, because
    /// the application adds them at run time through
    /// [`Service::registry`]: their capability (and, if declared with
    /// [`notifications`](ServiceBuilder::notifications), its
    /// `listChanged`) is advertised from the start, since what a server
    /// advertises is fixed when it is built (`server/discover.mdx`). A
    /// kind registered at build is served anyway. With `std`, a service
    /// that declares list changes of a kind it changes and has no
    /// [`hub`](ServiceBuilder::hub) gets one, which commits publish to.
    pub fn changing(mut self, kinds: Kinds) -> Self {
        self.changing = kinds;
        self
    }

    /// Show each caller the subset of the registry its
    /// [`View`](crate::registry::View) holds: its lists, and what it may
    /// call, get or read; the rest is answered as if it were not
    /// registered (`server/tools.mdx` § Listing Tools: the set may vary
    /// by the authorization presented on the request).
    #[cfg(feature = "std")]
    pub fn view<V: crate::registry::View>(mut self, view: V) -> Self {
        self.view = Some(Arc::new(view));
        self
    }

    /// Limit each principal's `tools/call` and `completion/complete`
    /// requests ([`crate::limit`]): over the limit a call is answered
    /// `-32001` (on HTTP 429 with `Retry-After`) and nothing runs. No
    /// limit by default.
    #[cfg(feature = "std")]
    pub fn rate_limit(mut self, limit: crate::limit::RateLimit) -> Self {
        self.rate_limit = Some(limit);
        self
    }

    /// Enumerate resources on demand after the registered ones (see
    /// [`ResourceLister`](crate::registry::ResourceLister)); advertises
    /// `resources`. Their reads go through a resource template.
    pub fn resource_lister<L: crate::registry::ResourceLister>(mut self, lister: L) -> Self {
        self.lister = Some(Arc::new(lister));
        self
    }

    /// Attach the hub whose events every connection delivers to its listen
    /// streams (see [`Connection::poll_changes`](crate::Connection::poll_changes)).
    #[cfg(feature = "std")]
    pub fn hub(mut self, hub: crate::subscriptions::Hub) -> Self {
        self.hub = Some(hub);
        self
    }

    /// Hand `state` to the handlers: a parameter `State<S>` receives it
    /// ([`crate::extract::State`]), in any position. The service holds one
    /// state per type (a second `state` of the same type replaces the
    /// first), shared by every handler, those added at run time through
    /// the [`Registry`](crate::Registry) too. A handler taking a state
    /// the service lacks fails [`build`](Self::build) with
    /// [`BuildError::MissingState`].
    pub fn state<S: Send + Sync + 'static>(self, state: S) -> Self {
        self.state_arc(Arc::new(state))
    }

    /// [`state`](Self::state) for state the application also keeps a
    /// handle to (a watcher thread publishing changes, say).
    pub fn state_arc<S: Send + Sync + 'static>(mut self, state: Arc<S>) -> Self {
        self.states.insert(state);
        self
    }

    fn needs(&mut self, handler: String, needs: Needs) {
        self.needs.push((handler, needs));
    }

    /// Register a tool and its handler: an `async` closure or function
    /// whose parameters are extractors in any order
    /// ([`crate::extract`]): the call's arguments as a type deriving
    /// `Deserialize` and `JsonSchema` (none, or [`NoArgs`](crate::NoArgs),
    /// for a tool that takes none), [`Context`](crate::Context),
    /// [`State<S>`](crate::extract::State) and the rest. The handler
    /// returns anything [`IntoToolOutcome`]: a result, text, a
    /// [`Reply`](crate::Reply) asking for input, or a `Result` of those.
    ///
    /// The `inputSchema` published is generated from the arguments' type
    /// (feature `typed`, on by default), and the `outputSchema` from the
    /// output when it is a structured `Json<T>`, unless `tool` was given
    /// one by hand ([`Tool::input_schema`], [`Tool::output_schema`]),
    /// which is published as written; a handler taking no arguments
    /// publishes `tool`'s schema, by default one admitting none.
    /// Arguments are validated against the published schema before the
    /// handler runs. [`Change::tool`](crate::Change::tool) registers the
    /// same way at run time.
    pub fn tool<H, M>(mut self, tool: Tool, handler: H) -> Self
    where
        H: Handler<Map<String, Value>, M>,
        H::Output: IntoToolOutcome,
    {
        let erased = tool_fn(handler);
        let tool = declared::<H::Output>(tool, &erased.needs);
        self.needs(alloc::format!("tool {:?}", tool.name), erased.needs);
        self.tools.push((tool, Some(erased.run)));
        self
    }

    /// Register a tool whose calls the driver answers by hand
    /// ([`Invocation::has_handler`](crate::Invocation::has_handler) is false).
    pub fn tool_declared(mut self, tool: Tool) -> Self {
        self.tools.push((tool, None));
        self
    }

    /// Register a static resource and its reader, a handler
    /// ([`crate::extract`]) taking [`ResourceArgs`] and returning
    /// `Result<ReadResourceResult, ResourceError>` or, to ask for input,
    /// `Result<Reply<ReadResourceResult>, ResourceError>`.
    pub fn resource<H, M>(mut self, resource: Resource, handler: H) -> Self
    where
        H: Handler<ResourceArgs, M>,
        H::Output: IntoResourceOutcome,
    {
        let erased = resource_fn(handler);
        self.needs(alloc::format!("resource {:?}", resource.uri), erased.needs);
        self.resources.push((resource, Some(erased.run)));
        self
    }

    /// Register a static resource answered by hand.
    pub fn resource_declared(mut self, resource: Resource) -> Self {
        self.resources.push((resource, None));
        self
    }

    /// Register a resource template and the reader of matching URIs
    /// (a handler as [`resource`](ServiceBuilder::resource) readers are).
    pub fn resource_template<H, M>(mut self, template: ResourceTemplate, handler: H) -> Self
    where
        H: Handler<ResourceArgs, M>,
        H::Output: IntoResourceOutcome,
    {
        let erased = resource_fn(handler);
        self.needs(
            alloc::format!("resource template {:?}", template.uri_template),
            erased.needs,
        );
        self.templates.push((template, Some(erased.run)));
        self
    }

    /// Register a resource template answered by hand.
    pub fn resource_template_declared(mut self, template: ResourceTemplate) -> Self {
        self.templates.push((template, None));
        self
    }

    /// Register a prompt and its handler ([`crate::extract`]), which
    /// takes the prompt's arguments as a type deserialized from the
    /// strings the client sent (required ones are checked against the
    /// declaration first) and returns `Result<GetPromptResult,
    /// ErrorObject>` or, to ask for input, `Result<Reply<GetPromptResult>,
    /// ErrorObject>`.
    ///
    /// The arguments published are `prompt`'s own or, when it declares
    /// none, (feature `typed`) those of the arguments' type: one per
    /// field, its doc comment as description, required unless an
    /// `Option`.
    pub fn prompt<H, M>(mut self, prompt: Prompt, handler: H) -> Self
    where
        H: Handler<PromptInput, M>,
        H::Output: IntoPromptOutcome,
    {
        let erased = prompt_fn(handler);
        let prompt = declared_prompt(prompt, &erased.needs);
        self.needs(alloc::format!("prompt {:?}", prompt.name), erased.needs);
        self.prompts.push((prompt, Some(erased.run)));
        self
    }

    /// Register a prompt answered by hand.
    pub fn prompt_declared(mut self, prompt: Prompt) -> Self {
        self.prompts.push((prompt, None));
        self
    }

    /// Register the completer for prompt arguments and template variables,
    /// a handler ([`crate::extract`]) taking the
    /// [`CompletionRequest`]; advertises
    /// `completions`.
    pub fn completer<H, M>(mut self, handler: H) -> Self
    where
        H: Handler<CompletionRequest, M, Output = Result<Completion, ErrorObject>>,
    {
        let erased = complete_fn(handler);
        self.needs(String::from("the completer"), erased.needs);
        self.completer = Some(Some(erased.run));
        self
    }

    /// Advertise `completions` and answer them by hand.
    pub fn completer_declared(mut self) -> Self {
        self.completer = Some(None);
        self
    }

    /// Register the completion of one argument of the prompt `prompt`
    /// (`server/utilities/completion.mdx`); advertises `completions`. It
    /// answers that argument's requests in place of the
    /// [`completer`](ServiceBuilder::completer), which answers the rest;
    /// without one, the rest complete to no values ([`crate::complete`]).
    /// The prompt must be registered on this builder with that argument,
    /// or [`build`](ServiceBuilder::build) fails with
    /// [`BuildError::UnknownCompletion`].
    pub fn prompt_completion<H, M>(mut self, prompt: &str, argument: &str, handler: H) -> Self
    where
        H: Handler<CompletionRequest, M, Output = Result<Completion, ErrorObject>>,
    {
        let erased = complete_fn(handler);
        self.needs(
            alloc::format!("the completion of {argument:?} of prompt {prompt:?}"),
            erased.needs,
        );
        self.completions.push(crate::complete::Route {
            target: crate::complete::Target::Prompt(String::from(prompt)),
            argument: String::from(argument),
            handler: erased.run,
        });
        self
    }

    /// Register the completion of one variable of the resource template
    /// `uri_template` (as registered, e.g. `"crates://{name}/{version}/readme"`);
    /// as [`prompt_completion`](ServiceBuilder::prompt_completion) otherwise.
    pub fn template_completion<H, M>(
        mut self,
        uri_template: &str,
        variable: &str,
        handler: H,
    ) -> Self
    where
        H: Handler<CompletionRequest, M, Output = Result<Completion, ErrorObject>>,
    {
        let erased = complete_fn(handler);
        self.needs(
            alloc::format!("the completion of {variable:?} of template {uri_template:?}"),
            erased.needs,
        );
        self.completions.push(crate::complete::Route {
            target: crate::complete::Target::Template(String::from(uri_template)),
            argument: String::from(variable),
            handler: erased.run,
        });
        self
    }

    /// Run `layer` around every call of the service: tool calls, resource
    /// reads, prompts and completions, those of entries added at run time
    /// too ([`crate::layer`]). The first layer added is the outermost, and
    /// the service's layers are outside every
    /// [`tool_layer`](Self::tool_layer). Layers run only for calls that
    /// passed admission, the rate limit and authorization.
    pub fn layer<L: crate::layer::Layer>(mut self, layer: L) -> Self {
        self.layers.push(Arc::new(layer));
        self
    }

    /// Run `layer` around the calls of the tool `name` (registered now,
    /// or added later through the registry under that name), inside the
    /// service's [`layer`](Self::layer)s; the first added for a tool is
    /// its outermost.
    pub fn tool_layer<L: crate::layer::Layer>(mut self, name: impl Into<String>, layer: L) -> Self {
        self.layers.push_tool(name.into(), Arc::new(layer));
        self
    }

    /// Validate everything and precompute what can be.
    pub fn build(self) -> Result<Service, BuildError> {
        let limits = self.limits;
        let sealer = crate::mrtr::Sealer::new(self.state_keys, self.state_ttl)?;
        if limits.max_message_bytes == 0 {
            return Err(BuildError::InvalidLimit("max_message_bytes"));
        }
        if limits.max_concurrent_calls == 0 {
            return Err(BuildError::InvalidLimit("max_concurrent_calls"));
        }
        if limits.page_size == 0 {
            return Err(BuildError::InvalidLimit("page_size"));
        }
        if self.http.max_headers == 0 || self.http.max_head_bytes == 0 {
            return Err(BuildError::InvalidLimit(
                "http.max_headers / http.max_head_bytes",
            ));
        }

        if let Some(route) = &self.http.session_route {
            let ok = (1..=32).contains(&route.len())
                && route
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !ok {
                return Err(BuildError::InvalidSessionRoute(route.clone()));
            }
        }

        if self
            .auth
            .as_ref()
            .is_some_and(|a| a.authorization_servers.is_empty())
        {
            return Err(BuildError::NoAuthorizationServer);
        }
        if let Some((template, reason)) = self.auth.as_ref().and_then(|a| a.bad_template.clone()) {
            return Err(BuildError::InvalidUriTemplate { template, reason });
        }

        for (handler, needs) in &self.needs {
            needs.check(handler, &self.states)?;
        }

        let legacy = check_dialects(&self.dialects)?;
        #[cfg(feature = "std")]
        let sessions = (!legacy.is_empty())
            .then(|| crate::legacy::Sessions::new(&limits, self.http.session_route.as_deref()));

        let completer = crate::complete::compose(
            self.completer,
            self.completions,
            &self.prompts,
            &self.templates,
        )?;
        let layers = self.layers;
        let tools = self
            .tools
            .into_iter()
            .map(|(tool, handler)| ToolEntry::new(tool, handler).map(|e| e.layered(&layers)))
            .collect::<Result<Vec<_>, _>>()?;
        let tools = Table::of(tools).map_err(BuildError::DuplicateTool)?;
        let resources = self
            .resources
            .into_iter()
            .map(|(resource, handler)| ResourceEntry::new(resource, handler).layered(&layers))
            .collect();
        let resources = Table::of(resources).map_err(BuildError::DuplicateResource)?;
        let templates = self
            .templates
            .into_iter()
            .map(|(template, handler)| {
                TemplateEntry::new(template, handler).map(|e| e.layered(&layers))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let templates = Table::of_shared_keys(templates);
        let prompts = self
            .prompts
            .into_iter()
            .map(|(prompt, handler)| PromptEntry::new(prompt, handler).layered(&layers))
            .collect();
        let prompts = Table::of(prompts).map_err(BuildError::DuplicatePrompt)?;
        let changing = self.changing;
        let (completer, completer_timeout) = match completer {
            Some(handler) => {
                let wrapped = layers.complete(handler);
                (Some(wrapped.handler), wrapped.timeout)
            }
            None => (None, None),
        };

        // Advertise exactly what is backed by something registered
        // (`server/discover.mdx`; never advertise what cannot be served).
        let mut capabilities = Vec::new();
        let serves_tools = changing.tools || !tools.is_empty();
        let serves_prompts = changing.prompts || !prompts.is_empty();
        let serves_resources = changing.resources
            || self.lister.is_some()
            || !resources.is_empty()
            || !templates.is_empty();
        if serves_tools {
            capabilities.push(ServerCapability::Tools);
        }
        if serves_prompts {
            capabilities.push(ServerCapability::Prompts);
        }
        if serves_resources {
            capabilities.push(ServerCapability::Resources);
        }
        if completer.is_some() {
            capabilities.push(ServerCapability::Completions);
        }
        if self.logging {
            capabilities.push(ServerCapability::Logging);
        }
        // Change notifications only for kinds that exist.
        let declared = self.notifications;
        let notifications = Notifications {
            tools_list_changed: declared.tools_list_changed && serves_tools,
            prompts_list_changed: declared.prompts_list_changed && serves_prompts,
            resources_list_changed: declared.resources_list_changed && serves_resources,
            resource_updates: declared.resource_updates && serves_resources,
        };
        let profile = &REVISION_2026_07_28;
        let extensions = crate::extension::Extensions::build(self.extensions, profile)?;
        // Listen is served when the core or an extension has something to
        // deliver on it.
        if notifications.any() || extensions.listens() {
            capabilities.push(ServerCapability::Subscriptions);
        }

        let mut server_meta = Map::new();
        if self.include_server_info {
            server_meta.insert(
                String::from(crate::meta::KEY_SERVER_INFO),
                serde_json::to_value(&self.server_info).unwrap_or(Value::Null),
            );
        }

        let mut discover = Map::new();
        discover.insert(
            String::from("supportedVersions"),
            json!(crate::meta::supported_versions(profile)),
        );
        discover.insert(
            String::from("capabilities"),
            capabilities_json(&capabilities, &notifications, &extensions),
        );
        if let Some(i) = &self.instructions {
            discover.insert(String::from("instructions"), Value::String(i.clone()));
        }
        // The initialize-era `ServerCapabilities` have no `extensions`
        // member; extensions (Tasks) are 2026-07-28 only.
        let legacy_capabilities = capabilities_json(
            &capabilities,
            &notifications,
            &crate::extension::Extensions::default(),
        );
        let discover = bytes::Bytes::from(shape::complete(
            Value::Object(discover),
            Some(self.cache.discover),
            &server_meta,
        ));

        let paging = crate::registry::Paging {
            page_size: limits.page_size,
            hint: self.cache.lists,
            server_meta: server_meta.clone(),
            lister: self.lister.is_some(),
        };
        let first = crate::registry::Snapshot::first(tools, prompts, resources, templates, &paging);
        let registry = crate::registry::Store::new(first, paging);
        // A service whose lists change announces the changes through a
        // hub: one is made when the application declared such changes
        // and attached none.
        #[cfg(feature = "std")]
        let hub = match self.hub {
            None if changing.any()
                && (notifications.tools_list_changed
                    || notifications.prompts_list_changed
                    || notifications.resources_list_changed) =>
            {
                Some(crate::subscriptions::Hub::default())
            }
            hub => hub,
        };

        // The stdio caller's scopes imply what a token's would.
        let stdio_principal = match (&self.auth, self.stdio_principal) {
            (Some(auth), Some(p)) => Some(Arc::new(auth.effective(Arc::unwrap_or_clone(p)))),
            (_, p) => p,
        };
        Ok(Service {
            inner: Arc::new(Inner {
                profile,
                server_info: self.server_info,
                limits,
                http: self.http,
                cache: self.cache,
                logging: self.logging,
                notifications,
                #[cfg(feature = "std")]
                hub,
                capabilities,
                registry,
                #[cfg(feature = "std")]
                listing: listing(self.auth.as_ref(), self.view.clone()),
                #[cfg(feature = "std")]
                view: self.view,
                #[cfg(feature = "std")]
                limiter: self.rate_limit.map(crate::limit::Limiter::new),
                lister: self.lister,
                completer,
                completer_timeout,
                states: Arc::new(self.states),
                layers,
                discover,
                server_meta: crate::shape::ServerMeta::new(server_meta),
                sealer,
                extensions,
                #[cfg(feature = "std")]
                sessions,
                #[cfg(feature = "std")]
                host_memo: Default::default(),
                legacy,
                legacy_capabilities,
                instructions: self.instructions,
                auth: self.auth,
                stdio_principal,
            }),
        })
    }
}

/// What lists show each caller: the application's view, narrowed to the
/// entries the caller holds the scopes of unless the authorization lists
/// everything.
#[cfg(feature = "std")]
fn listing(
    auth: Option<&crate::auth::Authorization>,
    view: Option<Arc<dyn crate::registry::View>>,
) -> Option<Arc<dyn crate::registry::View>> {
    match auth {
        Some(a) if !a.scopes.is_empty() && !a.list_unauthorized => {
            Some(Arc::new(crate::registry::scopes::Listing {
                scopes: a.scopes.clone(),
                view,
            }))
        }
        _ => view,
    }
}

/// The initialize-era profiles of the allow-list, newest first; refuses a
/// list without 2026-07-28, with a dialect twice, or with one that drifted
/// from its profile.
fn check_dialects(dialects: &[Dialect]) -> Result<Vec<&'static Profile>, BuildError> {
    let invalid = |d: &Dialect, reason: &str| BuildError::InvalidDialect {
        version: String::from(d.version),
        reason: String::from(reason),
    };
    let mut legacy: Vec<&'static Profile> = Vec::new();
    let mut modern = false;
    for (i, d) in dialects.iter().enumerate() {
        if let Some(why) = d.drift() {
            return Err(invalid(d, why));
        }
        if dialects[..i].iter().any(|e| e.version == d.version) {
            return Err(invalid(d, "listed twice"));
        }
        if !Dialect::ALL
            .iter()
            .any(|k| k.version == d.version && core::ptr::eq(k.profile, d.profile))
        {
            return Err(invalid(d, "this build has no such dialect"));
        }
        match d.profile.handshake {
            Handshake::PerRequest => modern = true,
            Handshake::Initialize => legacy.push(d.profile),
        }
    }
    if !modern {
        return Err(BuildError::InvalidDialect {
            version: String::from(crate::profile::PROTOCOL_VERSION),
            reason: String::from(
                "2026-07-28 must be served: the other dialects are served beside it",
            ),
        });
    }
    // Newest first: `initialize` offers the latest when the client's
    // version is not served.
    legacy.sort_by(|a, b| b.version.cmp(a.version));
    Ok(legacy)
}
