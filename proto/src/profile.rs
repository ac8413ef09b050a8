//! The exact-revision profiles: every method string of each revision this
//! build speaks, as data.
//!
//! Admission reads only these tables to decide whether a method exists, may
//! be sent by a client at top level, is implemented by this build, and which
//! capability gates it (`schema.ts` ClientRequest / ClientNotification /
//! ServerNotification / InputRequest). Extensions (Tasks) own
//! their methods and are not listed here; the core never names them.
//!
//! [`REVISION_2026_07_28`] is the stateless revision the core is built
//! around. [`REVISION_2025_11_25`] and [`REVISION_2025_06_18`] are the
//! initialize-era dialects (`basic/versioning.mdx` § Backward Compatibility
//! with Initialization-Based Versions), served by `crate::legacy` beside
//! it; a [`Dialect`] pairs a version string with its profile.

/// The protocol revision this profile describes.
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// What kind of message a method string names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A request expecting exactly one response.
    Request,
    /// A notification; never answered.
    Notification,
    /// A server-to-client request carried only inside `inputRequests` (MRTR).
    InputRequest,
}

/// How a revision establishes the version and capabilities of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handshake {
    /// Every request carries them in `_meta` (2026-07-28: stateless).
    PerRequest,
    /// `initialize` / `notifications/initialized` negotiate them once per
    /// session (2025-06-18, 2025-11-25: `basic/lifecycle.mdx`).
    Initialize,
}

/// Who sends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Client to server.
    ClientToServer,
    /// Server to client.
    ServerToClient,
    /// Either way (`notifications/cancelled`: client cancels; on stdio the
    /// server also uses it solely to end a `subscriptions/listen` stream).
    Both,
}

/// Where the method string appears on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// As a JSON-RPC `method`.
    TopLevel,
    /// Only inside an `InputRequiredResult`'s `inputRequests`.
    Embedded,
}

/// Lifecycle in this revision (`docs/deprecated.mdx`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lifecycle {
    /// Current.
    Active,
    /// Deprecated but still part of the revision.
    Deprecated,
}

/// Whether this build implements the method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Implemented.
    Implemented,
    /// Part of the revision but not implemented by this build: answered as
    /// an unknown method (`-32601`), and its capability is never advertised.
    NotImplemented,
}

/// The capability that governs a method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// Always available.
    None,
    /// A server capability; without it the method is "not found" (`-32601`).
    Server(ServerCapability),
    /// A client capability the request must declare before the server may
    /// send this input request (`basic/patterns/mrtr.mdx` rule 7).
    Client(ClientCapability),
}

/// Server capabilities (`schema.ts` ServerCapabilities).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerCapability {
    /// `tools`.
    Tools,
    /// `prompts`.
    Prompts,
    /// `resources`.
    Resources,
    /// `completions`.
    Completions,
    /// `logging` (deprecated).
    Logging,
    /// Any of `tools.listChanged`, `prompts.listChanged`,
    /// `resources.listChanged`, `resources.subscribe`.
    Subscriptions,
}

/// Client capabilities (`schema.ts` ClientCapabilities).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientCapability {
    /// `elicitation`.
    Elicitation,
    /// `sampling` (deprecated).
    Sampling,
    /// `roots` (deprecated).
    Roots,
}

/// The typed name of every core method, for routing without string compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Method {
    ServerDiscover,
    ToolsList,
    ToolsCall,
    PromptsList,
    PromptsGet,
    ResourcesList,
    ResourcesTemplatesList,
    ResourcesRead,
    CompletionComplete,
    SubscriptionsListen,
    NotificationsCancelled,
    NotificationsProgress,
    NotificationsMessage,
    NotificationsResourcesUpdated,
    NotificationsResourcesListChanged,
    NotificationsToolsListChanged,
    NotificationsPromptsListChanged,
    NotificationsSubscriptionsAcknowledged,
    ElicitationCreate,
    SamplingCreateMessage,
    RootsList,
    // Initialize-era methods (2025-06-18, 2025-11-25).
    Initialize,
    Ping,
    LoggingSetLevel,
    ResourcesSubscribe,
    ResourcesUnsubscribe,
    NotificationsInitialized,
    NotificationsRootsListChanged,
    NotificationsElicitationComplete,
}

/// One row of the profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodSpec {
    /// The exact method string.
    pub name: &'static str,
    /// Typed name.
    pub method: Method,
    /// Request, notification or embedded input request.
    pub kind: Kind,
    /// Who sends it.
    pub direction: Direction,
    /// Top-level or embedded.
    pub placement: Placement,
    /// Active or deprecated.
    pub lifecycle: Lifecycle,
    /// Implemented by this build?
    pub status: Status,
    /// Governing capability.
    pub gate: Gate,
}

/// A whole revision profile.
#[derive(Debug)]
pub struct Profile {
    /// The revision string.
    pub version: &'static str,
    /// How requests of this revision get their version and capabilities.
    pub handshake: Handshake,
    /// Every method string of the revision (core only).
    pub methods: &'static [MethodSpec],
    /// Methods of earlier revisions that this one removed; answered `-32601`.
    pub removed: &'static [&'static str],
    /// Server capabilities this build can advertise (when the application
    /// registers what backs them).
    pub capabilities: &'static [ServerCapability],
    /// What this build knowingly does not do yet, in words.
    pub limitations: &'static [&'static str],
}

impl Profile {
    /// The row for `method`, if the revision defines it.
    pub fn lookup(&self, method: &str) -> Option<&'static MethodSpec> {
        self.methods.iter().find(|m| m.name == method)
    }

    /// Whether `method` was removed by this revision (for clearer errors).
    pub fn is_removed(&self, method: &str) -> bool {
        self.removed.contains(&method)
    }
}

// One positional constructor keeps the table below one row per method.
#[allow(clippy::too_many_arguments)]
const fn row(
    name: &'static str,
    method: Method,
    kind: Kind,
    direction: Direction,
    placement: Placement,
    lifecycle: Lifecycle,
    status: Status,
    gate: Gate,
) -> MethodSpec {
    MethodSpec {
        name,
        method,
        kind,
        direction,
        placement,
        lifecycle,
        status,
        gate,
    }
}

use self::Direction::*;
use self::Handshake::*;
use self::Kind::*;
use self::Lifecycle::*;
use self::Placement::*;
use self::Status::*;

/// The profiles' own string for `method`, if a revision snodo knows has
/// it (so a request's method needs no copy).
pub(crate) fn known_method(method: &str) -> Option<&'static str> {
    [
        &REVISION_2026_07_28,
        &REVISION_2025_11_25,
        &REVISION_2025_06_18,
    ]
    .into_iter()
    .find_map(|p| p.lookup(method))
    .map(|spec| spec.name)
}

/// The profiles' own string for `version`, if it names one of them (so
/// an admitted request's version needs no copy).
pub(crate) fn known_version(version: &str) -> Option<&'static str> {
    [
        &REVISION_2026_07_28,
        &REVISION_2025_11_25,
        &REVISION_2025_06_18,
    ]
    .into_iter()
    .map(|p| p.version)
    .find(|v| *v == version)
}

/// MCP 2026-07-28, as this build implements it.
#[rustfmt::skip]
pub static REVISION_2026_07_28: Profile = Profile {
    version: PROTOCOL_VERSION,
    handshake: PerRequest,
    methods: &[
        row("server/discover", Method::ServerDiscover, Request, ClientToServer, TopLevel, Active, Implemented, Gate::None),
        row("tools/list", Method::ToolsList, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Tools)),
        row("tools/call", Method::ToolsCall, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Tools)),
        row("prompts/list", Method::PromptsList, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Prompts)),
        row("prompts/get", Method::PromptsGet, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Prompts)),
        row("resources/list", Method::ResourcesList, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Resources)),
        row("resources/templates/list", Method::ResourcesTemplatesList, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Resources)),
        row("resources/read", Method::ResourcesRead, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Resources)),
        row("completion/complete", Method::CompletionComplete, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Completions)),
        row("subscriptions/listen", Method::SubscriptionsListen, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Subscriptions)),
        row("notifications/cancelled", Method::NotificationsCancelled, Notification, Both, TopLevel, Active, Implemented, Gate::None),
        row("notifications/progress", Method::NotificationsProgress, Notification, ServerToClient, TopLevel, Active, Implemented, Gate::None),
        row("notifications/message", Method::NotificationsMessage, Notification, ServerToClient, TopLevel, Deprecated, Implemented, Gate::Server(ServerCapability::Logging)),
        row("notifications/resources/updated", Method::NotificationsResourcesUpdated, Notification, ServerToClient, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Subscriptions)),
        row("notifications/resources/list_changed", Method::NotificationsResourcesListChanged, Notification, ServerToClient, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Subscriptions)),
        row("notifications/tools/list_changed", Method::NotificationsToolsListChanged, Notification, ServerToClient, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Subscriptions)),
        row("notifications/prompts/list_changed", Method::NotificationsPromptsListChanged, Notification, ServerToClient, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Subscriptions)),
        row("notifications/subscriptions/acknowledged", Method::NotificationsSubscriptionsAcknowledged, Notification, ServerToClient, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Subscriptions)),
        row("elicitation/create", Method::ElicitationCreate, InputRequest, ServerToClient, Embedded, Active, Implemented, Gate::Client(ClientCapability::Elicitation)),
        row("sampling/createMessage", Method::SamplingCreateMessage, InputRequest, ServerToClient, Embedded, Deprecated, Implemented, Gate::Client(ClientCapability::Sampling)),
        row("roots/list", Method::RootsList, InputRequest, ServerToClient, Embedded, Deprecated, Implemented, Gate::Client(ClientCapability::Roots)),
    ],
    removed: &[
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "tasks/result",
        "tasks/list",
        "notifications/initialized",
        "notifications/roots/list_changed",
        "notifications/elicitation/complete",
        "notifications/tasks/status",
    ],
    capabilities: &[
        ServerCapability::Tools,
        ServerCapability::Prompts,
        ServerCapability::Resources,
        ServerCapability::Completions,
        ServerCapability::Logging,
        ServerCapability::Subscriptions,
    ],
    // With `std` the registry changes at run time (`Registry`); without it
    // a snapshot needs `arc-swap`, which needs the standard library.
    limitations: &[
        #[cfg(not(feature = "std"))]
        "without the std feature the registry is fixed when the service is built",
    ],
};

/// The core rows shared by the initialize-era revisions: the requests and
/// notifications of `schema.ts` (2025-06-18 and 2025-11-25) that a server
/// receives or sends. Elicitation, sampling and roots are top-level
/// server-to-client requests there, sent on the response stream of the
/// client request they serve.
macro_rules! initialize_era_rows {
    ($($extra:expr,)*) => {
        &[
            row("initialize", Method::Initialize, Request, ClientToServer, TopLevel, Active, Implemented, Gate::None),
            row("ping", Method::Ping, Request, Both, TopLevel, Active, Implemented, Gate::None),
            row("tools/list", Method::ToolsList, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Tools)),
            row("tools/call", Method::ToolsCall, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Tools)),
            row("prompts/list", Method::PromptsList, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Prompts)),
            row("prompts/get", Method::PromptsGet, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Prompts)),
            row("resources/list", Method::ResourcesList, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Resources)),
            row("resources/templates/list", Method::ResourcesTemplatesList, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Resources)),
            row("resources/read", Method::ResourcesRead, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Resources)),
            row("resources/subscribe", Method::ResourcesSubscribe, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Subscriptions)),
            row("resources/unsubscribe", Method::ResourcesUnsubscribe, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Subscriptions)),
            row("completion/complete", Method::CompletionComplete, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Completions)),
            row("logging/setLevel", Method::LoggingSetLevel, Request, ClientToServer, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Logging)),
            row("notifications/initialized", Method::NotificationsInitialized, Notification, ClientToServer, TopLevel, Active, Implemented, Gate::None),
            row("notifications/cancelled", Method::NotificationsCancelled, Notification, Both, TopLevel, Active, Implemented, Gate::None),
            row("notifications/progress", Method::NotificationsProgress, Notification, Both, TopLevel, Active, Implemented, Gate::None),
            row("notifications/roots/list_changed", Method::NotificationsRootsListChanged, Notification, ClientToServer, TopLevel, Active, Implemented, Gate::None),
            row("notifications/message", Method::NotificationsMessage, Notification, ServerToClient, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Logging)),
            row("notifications/resources/updated", Method::NotificationsResourcesUpdated, Notification, ServerToClient, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Subscriptions)),
            row("notifications/resources/list_changed", Method::NotificationsResourcesListChanged, Notification, ServerToClient, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Subscriptions)),
            row("notifications/tools/list_changed", Method::NotificationsToolsListChanged, Notification, ServerToClient, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Subscriptions)),
            row("notifications/prompts/list_changed", Method::NotificationsPromptsListChanged, Notification, ServerToClient, TopLevel, Active, Implemented, Gate::Server(ServerCapability::Subscriptions)),
            row("elicitation/create", Method::ElicitationCreate, Request, ServerToClient, TopLevel, Active, Implemented, Gate::Client(ClientCapability::Elicitation)),
            row("sampling/createMessage", Method::SamplingCreateMessage, Request, ServerToClient, TopLevel, Active, Implemented, Gate::Client(ClientCapability::Sampling)),
            row("roots/list", Method::RootsList, Request, ServerToClient, TopLevel, Active, Implemented, Gate::Client(ClientCapability::Roots)),
            $($extra,)*
        ]
    };
}

/// MCP 2025-11-25 (`mcp-2025-11-25/schema.ts`), as this build serves it.
/// Its experimental task methods are not served (answered `-32601`, like
/// any method missing from the table).
#[rustfmt::skip]
pub static REVISION_2025_11_25: Profile = Profile {
    version: "2025-11-25",
    handshake: Initialize,
    methods: initialize_era_rows![
        row("notifications/elicitation/complete", Method::NotificationsElicitationComplete, Notification, ServerToClient, TopLevel, Active, Implemented, Gate::Client(ClientCapability::Elicitation)),
    ],
    removed: &[],
    capabilities: &[
        ServerCapability::Tools,
        ServerCapability::Prompts,
        ServerCapability::Resources,
        ServerCapability::Completions,
        ServerCapability::Logging,
        ServerCapability::Subscriptions,
    ],
    limitations: &["the experimental task methods of this revision are not served"],
};

/// MCP 2025-06-18, as this build serves it.
#[rustfmt::skip]
pub static REVISION_2025_06_18: Profile = Profile {
    version: "2025-06-18",
    handshake: Initialize,
    methods: initialize_era_rows![],
    removed: &[],
    capabilities: &[
        ServerCapability::Tools,
        ServerCapability::Prompts,
        ServerCapability::Resources,
        ServerCapability::Completions,
        ServerCapability::Logging,
        ServerCapability::Subscriptions,
    ],
    limitations: &[],
};

/// A revision a server can accept: the version string it is known by and
/// the profile (with its handshake) that serves it. The allow-list of a
/// service is a list of these ([`ServiceBuilder::dialects`](crate::ServiceBuilder::dialects));
/// one whose version string differs from its profile's, or whose handshake
/// does not fit its era, is refused when the service is built.
#[derive(Clone, Copy, Debug)]
pub struct Dialect {
    /// The version string clients send.
    pub version: &'static str,
    /// The profile that serves it.
    pub profile: &'static Profile,
}

impl Dialect {
    /// 2026-07-28, stateless: always served; the core of this crate.
    pub const V2026_07_28: Dialect = Dialect {
        version: "2026-07-28",
        profile: &REVISION_2026_07_28,
    };
    /// 2025-11-25, initialize-era.
    pub const V2025_11_25: Dialect = Dialect {
        version: "2025-11-25",
        profile: &REVISION_2025_11_25,
    };
    /// 2025-06-18, initialize-era.
    pub const V2025_06_18: Dialect = Dialect {
        version: "2025-06-18",
        profile: &REVISION_2025_06_18,
    };

    /// Every dialect this build can serve, newest first.
    pub const ALL: [Dialect; 3] = [
        Dialect::V2026_07_28,
        Dialect::V2025_11_25,
        Dialect::V2025_06_18,
    ];

    /// Why this dialect cannot be served as declared, if it cannot: its
    /// version string must be its profile's, and the handshake must be
    /// the one of its era (per-request `_meta` from 2026-07-28 on,
    /// `initialize` before).
    pub fn drift(&self) -> Option<&'static str> {
        if self.version != self.profile.version {
            return Some("its version string is not its profile's version");
        }
        let modern = self.version >= PROTOCOL_VERSION;
        match (modern, self.profile.handshake) {
            (true, Handshake::PerRequest) | (false, Handshake::Initialize) => None,
            _ => Some("its profile's handshake does not belong to its era"),
        }
    }
}
