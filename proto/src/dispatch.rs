//! Admission and routing of one message, independent of the transport.
//!
//! The spec defines each refusal but not their order; admission runs in the
//! order the official conformance suite's `server-stateless` checks require
//! (`conformance/SCENARIOS-2026-07-28.md` § 3.1, § 4: missing `_meta` fields
//! give `-32602` even with a correct header; a header that contradicts the
//! body's version gives `-32020`, not `-32022`), so that a request with
//! several faults gets the error of the first:
//!
//! 1. envelope (`-32600`, done by [`jsonrpc::classify`](crate::jsonrpc::classify));
//! 2. required `_meta` fields (`-32602`);
//! 3. transport header mirrors (`-32020`; HTTP only, checked by the caller
//!    between steps 2 and 4 through [`HeaderCheck`]);
//! 4. protocol version supported (`-32022`);
//! 5. method known, top-level, client-sent, implemented, and its server
//!    capability advertised, or owned by an installed extension (`-32601`);
//! 6. optional `_meta` fields well-formed (`-32602`);
//! 7. for an extension's method, the extension declared by the request
//!    (`-32021`; the conformance suite's `tasks-capability-negotiation`
//!    wants it before the params: an unknown task is not looked up);
//! 8. method params (`-32602`).
//!
//! What passes is either answered here (discover, lists), by an extension
//! ([`crate::extension`]), or becomes an [`Admitted`] call for the
//! application, which the middlewares of installed extensions see first.
//!
//! Two parsers feed these steps: the general one
//! ([`jsonrpc::parse`](crate::jsonrpc::parse), then [`dispatch`]) and the
//! typed one of the common requests (`dispatch/fast.rs`). Each hands
//! `request` a `Body`; the steps and their order are written there once,
//! so the two parsers cannot answer the same message differently.

pub(crate) mod fast;

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use serde_json::{json, Map, Value};

use crate::auth::Principal;
use crate::error::{quoted, ErrorObject};
use crate::handler::{Handler, Request};
use crate::jsonrpc::{Incoming, RequestId};
use crate::meta::{self, RequestMeta};
use crate::model::{CompletionRef, CompletionRequest};
use crate::mrtr::{self, Origin, Round};
use crate::profile::{Direction, Gate, Kind, Method, MethodSpec, Placement, Status};
use crate::registry::{Pages, ToolEntry};
use crate::service::Service;
use crate::time::Instant;

/// Set only inside [`general_parser_only`].
static GENERAL_PARSER_ONLY: core::sync::atomic::AtomicBool =
    core::sync::atomic::AtomicBool::new(false);

/// Whether the typed parser is switched off (see [`general_parser_only`]).
fn general_parser_only_now() -> bool {
    GENERAL_PARSER_ONLY.load(core::sync::atomic::Ordering::Relaxed)
}

/// Run `f` with the typed parser switched off: every message a
/// [`Connection`](crate::Connection) reads in `f` goes to the general
/// parser.
///
/// Not a setting: it exists for the differential tests
/// (`proto/tests/typed_parser.rs`), which feed the same bytes to a
/// connection with and without it and require the same bytes out. It is
/// process-wide, a flag rather than a thread-local (the machine's source
/// names no thread: `proto/tests/purity.rs`), so those tests hold a lock
/// around each pair of runs; outside them it is never set, and reading it
/// costs a request one relaxed load. Either parser gives the same answer,
/// so a process that set it would only run slower.
#[doc(hidden)]
pub fn general_parser_only<R>(f: impl FnOnce() -> R) -> R {
    use core::sync::atomic::Ordering;
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            GENERAL_PARSER_ONLY.store(self.0, Ordering::Relaxed);
        }
    }
    let _restore = Restore(GENERAL_PARSER_ONLY.swap(true, Ordering::Relaxed));
    f()
}

/// Whether the typed parser reads `message` (for the differential tests,
/// which check that the shapes they mean to compare do take it).
#[doc(hidden)]
pub fn typed_parser_reads(message: &[u8]) -> bool {
    let mut meta = RequestMeta::default();
    let mut memo = fast::Memo::default();
    fast::parse(
        &bytes::Bytes::copy_from_slice(message),
        &mut meta,
        &mut memo,
    )
    .is_some()
}

/// A transport's check of its header mirrors against the body (step 3).
pub trait HeaderCheck {
    /// Compare the transport's metadata with the request. `version` is the
    /// body's `_meta` protocol version.
    fn check(&self, method: &str, params: Params<'_>, version: &str) -> Result<(), ErrorObject>;

    /// Compare the mirrors of a tool's own parameters (its `x-mcp-header`
    /// annotations, `params`) with the call's `arguments`.
    ///
    /// Asked only once the tool is known to exist and to be in the
    /// caller's view, so that a tool the caller may not see is answered
    /// as an unknown tool whatever headers came with the call (a header
    /// error would reveal the tool).
    fn check_tool(
        &self,
        params: &[crate::headers::HeaderParam],
        arguments: &Map<String, Value>,
    ) -> Result<(), ErrorObject> {
        let _ = (params, arguments);
        Ok(())
    }
}

/// A request's params as a [`HeaderCheck`] reads them: the params object,
/// or the members of a `tools/call` read without building one.
#[derive(Clone, Copy, Debug)]
pub enum Params<'a> {
    /// The params object, if the request had one.
    Object(Option<&'a Map<String, Value>>),
    /// A `resources/read` whose params are exactly `uri` and `_meta`.
    ResourceRead {
        /// `uri`.
        uri: &'a str,
    },
    /// Params of nothing but `_meta` (an object).
    MetaOnly,
    /// A `tools/call` whose params are exactly `name`, `arguments` and
    /// `_meta`.
    ToolCall {
        /// `name`.
        name: &'a str,
        /// `arguments`.
        arguments: &'a Map<String, Value>,
    },
}

impl<'a> Params<'a> {
    /// The member `key`, if it is a string.
    pub fn str(&self, key: &str) -> Option<&'a str> {
        match self {
            Params::Object(p) => p.and_then(|p| p.get(key)).and_then(Value::as_str),
            Params::ToolCall { name, .. } => (key == "name").then_some(*name),
            Params::ResourceRead { uri } => (key == "uri").then_some(*uri),
            Params::MetaOnly => None,
        }
    }

    /// The member `arguments`, if it is an object.
    pub fn arguments(&self) -> Option<&'a Map<String, Value>> {
        match self {
            Params::Object(p) => p
                .and_then(|p| p.get("arguments"))
                .and_then(Value::as_object),
            Params::ToolCall { arguments, .. } => Some(arguments),
            Params::ResourceRead { .. } | Params::MetaOnly => None,
        }
    }
}

/// The outcome of dispatching one message.
// `Invoke` is the large variant and the common one: see its note.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Dispatch {
    /// Answer now with this serialized, shaped result.
    Answer {
        /// Request id.
        id: RequestId,
        /// The `result` member's JSON (often a shared, pre-serialized one).
        result: bytes::Bytes,
    },
    /// Answer now with this error.
    Error {
        /// Request id, when readable.
        id: Option<RequestId>,
        /// The error.
        error: ErrorObject,
        /// Raised by admission (steps 1-6) rather than by the method's own
        /// params; transports may map the two differently (HTTP status).
        admission: bool,
    },
    /// Hand to the application. Boxed where it is made: an `Admitted` is
    /// large (the request, its `_meta`, its MRTR round) and is handed on
    /// by value half a dozen times before its call starts, each move a
    /// copy that costs more than the one allocation.
    Invoke(Box<Admitted>),
    /// Refuse the request: its principal lacks these scopes, which the
    /// tool, prompt or resource it names needs (on HTTP 403
    /// `insufficient_scope`: `basic/authorization/index.mdx` § Runtime
    /// Insufficient Scope Errors). Nothing ran.
    Forbidden {
        /// Request id.
        id: RequestId,
        /// Every scope missing, in one challenge.
        missing: alloc::vec::Vec<String>,
    },
    /// Open a `subscriptions/listen` stream with this (narrowed) filter.
    Listen {
        /// The listen request's id: the stream's subscription id.
        id: RequestId,
        /// What the stream receives.
        filter: crate::subscriptions::Filter,
    },
    /// `notifications/cancelled` for `request_id`.
    Cancel {
        /// The id of the request to cancel.
        request_id: RequestId,
    },
    /// A notification needing no action.
    Ignore,
}

impl Dispatch {
    /// Refused by admission (steps 1-6): the message, its revision or its
    /// `_meta` is at fault.
    pub(crate) fn refused(id: Option<RequestId>, error: ErrorObject) -> Self {
        Dispatch::Error {
            id,
            error,
            admission: true,
        }
    }

    /// Failed in the method's own handling, after admission.
    pub(crate) fn failed(id: RequestId, error: ErrorObject) -> Self {
        Dispatch::Error {
            id: Some(id),
            error,
            admission: false,
        }
    }
}

/// An admitted call waiting for a slot or a handler.
pub struct Admitted {
    /// Request id.
    pub id: RequestId,
    /// What to do.
    pub request: Request,
    /// Admitted `_meta`.
    pub meta: RequestMeta,
    /// Input responses and verified state of a retried request (MRTR).
    pub round: Round,
    /// The request an `InputRequiredResult` would answer; `None` for
    /// requests that may not carry one (`mrtr.mdx` § Supported Requests).
    pub(crate) origin: Option<Origin>,
    pub(crate) handler: Option<Handler>,
    /// The tool called, for output-schema validation of its result: the
    /// entry it was admitted with, whatever the registry holds by then.
    pub(crate) tool: Option<Arc<ToolEntry>>,
    /// The deadline the target's layers set, replacing
    /// `Limits::call_timeout` ([`crate::layer::Timeout`]).
    pub(crate) timeout: Option<core::time::Duration>,
    /// Set for a request of an initialize-era session: the HTTP session
    /// id, or `Some(None)` for the stdio connection's own session.
    pub(crate) session: Option<Option<String>>,
}

impl Admitted {
    /// Keep the bytes of the JSON-RPC message this call was admitted from,
    /// for the params digest that sealed MRTR state binds to: it is
    /// computed from them only if the handler's state is ever sealed.
    pub(crate) fn attach_message(&mut self, message: &bytes::Bytes) {
        if let Some(origin) = &mut self.origin {
            origin.attach_message(message);
        }
    }
}

impl core::fmt::Debug for Admitted {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Admitted")
            .field("id", &self.id)
            .field("request", &self.request)
            .finish()
    }
}

/// `-32602` for a resource that does not exist, with `data.uri`
/// (`server/resources.mdx` § Error Handling).
pub fn resource_not_found(uri: &str) -> ErrorObject {
    ErrorObject::invalid_params("Resource not found").with_data(json!({ "uri": uri }))
}

/// Dispatch one classified message received at `now` (which expires
/// sealed `requestState`).
///
/// `principal` is who the transport authenticated the request as (see
/// [`RequestMeta::principal`]); `None` without authorization.
pub fn dispatch(
    service: &Service,
    incoming: Incoming,
    headers: Option<&dyn HeaderCheck>,
    principal: Option<&Arc<Principal>>,
    now: Instant,
) -> Dispatch {
    match incoming {
        Incoming::Invalid { id, error } => Dispatch::refused(id, error),
        Incoming::Notification { method, params } => notification(&method, params),
        // 2026-07-28 has no server-to-client requests to answer.
        Incoming::Response { .. } => Dispatch::refused(
            None,
            ErrorObject::invalid_request("Clients must not send responses to the server"),
        ),
        Incoming::Request { id, method, params } => request(
            service,
            id,
            &method,
            Body::Object(params),
            headers,
            principal,
            now,
        ),
    }
}

/// A request's params as a parser read them.
pub(crate) enum Body<'a> {
    /// The general parser's: the params object, if any, `_meta` in it.
    Object(Option<Map<String, Value>>),
    /// The typed parser's: the members of one of the common shapes, and
    /// `_meta` read into its admitted fields (required ones present and
    /// well-typed, optional ones well-formed; see [`fast`]).
    Typed {
        /// The members besides `_meta`.
        params: Typed<'a>,
        /// `_meta`, all but [`RequestMeta::raw`] (in the typed parser's
        /// slot: see [`fast::parse`]).
        meta: &'a mut RequestMeta,
        /// The whole message, which `raw` is found in when asked.
        message: &'a bytes::Bytes,
    },
}

/// The members besides `_meta` of a params object the typed parser read.
pub(crate) enum Typed<'a> {
    /// Exactly `name` (a string) and `arguments` (an object).
    ToolCall {
        name: &'a str,
        arguments: Map<String, Value>,
    },
    /// Exactly `uri` (a string).
    ResourceRead { uri: &'a str },
    /// None.
    MetaOnly,
}

impl Typed<'_> {
    /// The members as an object (without `_meta`).
    fn into_object(self) -> Map<String, Value> {
        let mut object = Map::new();
        match self {
            Typed::ToolCall { name, arguments } => {
                object.insert(String::from("name"), Value::String(String::from(name)));
                object.insert(String::from("arguments"), Value::Object(arguments));
            }
            Typed::ResourceRead { uri } => {
                object.insert(String::from("uri"), Value::String(String::from(uri)));
            }
            Typed::MetaOnly => {}
        }
        object
    }
}

impl<'a> Body<'a> {
    /// Step 2: the required `_meta` members; the version.
    fn version(&self) -> Result<&str, ErrorObject> {
        match self {
            Body::Object(params) => Ok(meta::required(params.as_ref())?.1),
            Body::Typed { meta, .. } => Ok(&meta.protocol_version),
        }
    }

    /// The params as a [`HeaderCheck`] reads them.
    fn view(&self) -> Params<'_> {
        match self {
            Body::Object(params) => Params::Object(params.as_ref()),
            Body::Typed { params, .. } => match params {
                Typed::ToolCall { name, arguments } => Params::ToolCall { name, arguments },
                Typed::ResourceRead { uri } => Params::ResourceRead { uri },
                Typed::MetaOnly => Params::MetaOnly,
            },
        }
    }

    /// The whole params object, `_meta` in it, as an extension's method
    /// gets it.
    fn into_object(self) -> Option<Map<String, Value>> {
        match self {
            Body::Object(params) => params,
            Body::Typed {
                params,
                meta: _,
                message,
            } => {
                let mut object = params.into_object();
                let raw = meta::Raw::Message(message.clone()).map().into_owned();
                object.insert(String::from("_meta"), Value::Object(raw));
                Some(object)
            }
        }
    }

    /// Step 6 for a core method: the optional `_meta` members, and the
    /// params with `_meta` taken out (no core method reads it there). The
    /// typed parser took only a `_meta` whose members are well-formed, so
    /// for it this step has nothing left to refuse.
    fn into_meta(self) -> Result<(RequestMeta, Args<'a>), ErrorObject> {
        match self {
            Body::Object(params) => {
                let mut params = params.unwrap_or_default();
                let meta = match params.remove("_meta") {
                    Some(Value::Object(raw)) => meta::optional_owned(raw)?,
                    // Step 2 found an object.
                    _ => return Err(ErrorObject::internal("Internal error")),
                };
                Ok((meta, Args::Object(params)))
            }
            Body::Typed {
                params,
                meta,
                message,
            } => {
                let mut meta = core::mem::take(meta);
                meta.raw = meta::Raw::Message(message.clone());
                Ok((meta, Args::Typed(params)))
            }
        }
    }
}

/// A core method's params, `_meta` taken out.
pub(crate) enum Args<'a> {
    Object(Map<String, Value>),
    Typed(Typed<'a>),
}

impl Args<'_> {
    fn into_object(self) -> Map<String, Value> {
        match self {
            Args::Object(object) => object,
            Args::Typed(typed) => typed.into_object(),
        }
    }
}

/// Steps 2-8 of a request, whichever parser read it.
pub(crate) fn request(
    service: &Service,
    id: RequestId,
    method: &str,
    body: Body<'_>,
    headers: Option<&dyn HeaderCheck>,
    principal: Option<&Arc<Principal>>,
    now: Instant,
) -> Dispatch {
    match admit(service, method, body, headers) {
        Ok((Target::Core(spec), mut meta, args)) => {
            meta.principal = principal.cloned();
            match route_args(service, &id, spec, args, meta, headers, now) {
                Ok(Dispatch::Invoke(admitted)) => {
                    crate::extension::wrap(service, spec.name, admitted, now)
                }
                Ok(d) => d,
                Err(error) => Dispatch::failed(id, error),
            }
        }
        Ok((Target::Extension(index, m), mut meta, args)) => {
            meta.principal = principal.cloned();
            crate::extension::handle(service, index, m, &id, args.into_object(), meta, now)
        }
        Err(error) => Dispatch::refused(
            Some(id),
            if method == "initialize" {
                name_supported_versions(error, service.inner.profile)
            } else {
                error
            },
        ),
    }
}

/// `basic/versioning.mdx` § Backward Compatibility: a modern-only server
/// SHOULD name the versions it supports in any error it returns to
/// `initialize`; for a legacy client this message may be the only
/// diagnostic it can show.
fn name_supported_versions(
    mut error: ErrorObject,
    profile: &crate::profile::Profile,
) -> ErrorObject {
    let versions = meta::supported_versions(profile);
    if error.data.is_none() {
        error.message = format!(
            "{} (initialize belongs to protocol versions before 2026-07-28; this server supports {})",
            error.message,
            versions.join(", ")
        )
        .into();
        error.data = Some(json!({ "supported": versions }));
    }
    error
}

fn notification(method: &str, params: Option<Map<String, Value>>) -> Dispatch {
    if method == "notifications/cancelled" {
        // Invalid cancellations are ignored (`cancellation.mdx` § Error Handling).
        if let Some(request_id) = params
            .as_ref()
            .and_then(|p| p.get("requestId"))
            .and_then(RequestId::from_value)
        {
            return Dispatch::Cancel { request_id };
        }
        tracing::debug!("ignoring notifications/cancelled without a valid requestId");
        return Dispatch::Ignore;
    }
    tracing::debug!(method = %crate::error::truncate(method, 64), "ignoring notification");
    Dispatch::Ignore
}

/// Who answers an admitted request.
enum Target {
    /// A core method of the profile.
    Core(&'static MethodSpec),
    /// A method of the installed extension at this index.
    Extension(usize, crate::extension::ExtensionMethod),
}

/// Steps 2-7: everything before the method's own params.
fn admit<'a>(
    service: &Service,
    method: &str,
    body: Body<'a>,
    headers: Option<&dyn HeaderCheck>,
) -> Result<(Target, RequestMeta, Args<'a>), ErrorObject> {
    let inner = &service.inner;
    let profile = inner.profile;

    // 2. Required `_meta`.
    let version = body.version()?;

    // 3. Header mirrors (HTTP).
    if let Some(h) = headers {
        h.check(method, body.view(), version)?;
    }

    // 4. Version.
    if version != profile.version {
        return Err(ErrorObject::unsupported_version(
            &meta::supported_versions(profile),
            crate::error::truncate(version, 128),
        ));
    }

    // 5. Method known and served; 6. optional `_meta`; 7. an extension's
    // method needs the extension declared. An extension's method gets the
    // params whole, `_meta` in place.
    if let Some((index, m)) = inner.extensions.owner(method) {
        let params = body.into_object();
        // Step 2 found the `_meta` object.
        let (raw, _) = meta::required(params.as_ref())?;
        let meta = meta::optional(raw)?;
        crate::extension::gate(service, index, &meta)?;
        return Ok((
            Target::Extension(index, m),
            meta,
            Args::Object(params.unwrap_or_default()),
        ));
    }
    let spec = match profile.lookup(method) {
        Some(s) => s,
        None if profile.is_removed(method) => {
            return Err(ErrorObject::new(
                crate::error::code::METHOD_NOT_FOUND,
                format!(
                    "Method not found: {method} was removed in protocol version {}; this server supports {}",
                    profile.version, profile.version
                ),
            )
            .with_data(json!({ "supported": meta::supported_versions(profile) })));
        }
        None => return Err(ErrorObject::method_not_found(method)),
    };
    if !served(service, spec) {
        return Err(ErrorObject::method_not_found(method));
    }

    // 6. Optional `_meta`.
    let (meta, args) = body.into_meta()?;
    Ok((Target::Core(spec), meta, args))
}

/// Step 5 for a method of the profile: a top-level client request, implemented,
/// its server capability advertised.
fn served(service: &Service, spec: &MethodSpec) -> bool {
    spec.kind == Kind::Request
        && matches!(spec.direction, Direction::ClientToServer | Direction::Both)
        && spec.placement == Placement::TopLevel
        && spec.status == Status::Implemented
        && match spec.gate {
            Gate::None => true,
            Gate::Server(cap) => service.advertises(cap),
            Gate::Client(_) => false,
        }
}

/// Step 8 of a params object (`_meta` taken out), for the admission of
/// the initialize-era revisions ([`crate::legacy`]).
pub(crate) fn route(
    service: &Service,
    id: &RequestId,
    spec: &'static MethodSpec,
    params: Map<String, Value>,
    meta: RequestMeta,
    now: Instant,
) -> Result<Dispatch, ErrorObject> {
    // The initialize-era revisions have no header mirrors.
    route_args(service, id, spec, Args::Object(params), meta, None, now)
}

/// Step 8: the method's params, and the answer or invocation.
fn route_args(
    service: &Service,
    id: &RequestId,
    spec: &'static MethodSpec,
    args: Args<'_>,
    meta: RequestMeta,
    headers: Option<&dyn HeaderCheck>,
    now: Instant,
) -> Result<Dispatch, ErrorObject> {
    let inner = &service.inner;
    // The costly calls count against the caller's rate limit first, known
    // tool or not (an unknown name costs a lookup, and probing is a flood
    // too).
    #[cfg(feature = "std")]
    if let (Some(limiter), Method::ToolsCall | Method::CompletionComplete) =
        (&inner.limiter, spec.method)
    {
        limiter.take(meta.principal().map_or("", |p| p.subject.as_str()), now)?;
    }
    // Every era's request passes here once its target is known: the
    // scopes that target needs are checked on what it resolved to.
    let principal = match &inner.auth {
        Some(_) => meta.principal.clone(),
        None => None,
    };
    // The method's params, and the answer or invocation.
    let target = move || -> Result<Dispatch, ErrorObject> {
        // The typed shapes, read without building an object.
        let args = match (spec.method, args) {
            (Method::ToolsCall, args) => return call_tool(service, id, args, meta, headers, now),
            (Method::ResourcesRead, Args::Typed(Typed::ResourceRead { uri })) => {
                // No `inputResponses` or `requestState` here.
                return read_resource_at(service, id, uri, &Map::new(), meta, now);
            }
            (_, args) => args,
        };
        let params = args.into_object();
        match spec.method {
            Method::ServerDiscover => Ok(Dispatch::Answer {
                id: id.clone(),
                result: inner.discover.clone(),
            }),
            Method::ToolsList
            | Method::PromptsList
            | Method::ResourcesList
            | Method::ResourcesTemplatesList => {
                #[cfg(feature = "std")]
                let span = crate::trace::list_span(spec.name, &meta);
                #[cfg(feature = "std")]
                let _entered = span.enter();
                let snapshot = service.snapshot();
                let answer = match spec.method {
                    Method::ToolsList => list(id, &params, &seen(service, &snapshot, &meta).tools),
                    Method::PromptsList => list(id, &params, &seen(service, &snapshot, &meta).prompts),
                    Method::ResourcesList => resources_list(service, id, &params, &meta),
                    _ => list(id, &params, &seen(service, &snapshot, &meta).templates),
                };
                #[cfg(feature = "std")]
                crate::trace::record_list(&span, &answer);
                answer
            }
            Method::ResourcesRead => read_resource(service, id, &params, meta, now),
            Method::PromptsGet => get_prompt(service, id, &params, meta, now),
            Method::CompletionComplete => complete(service, id, &params, meta),
            Method::SubscriptionsListen => {
                let mut filter =
                    crate::subscriptions::Filter::parse(&params)?.narrow(&inner.notifications);
                filter.extensions = crate::extension::listen(service, &params, &meta, now)?;
                Ok(Dispatch::Listen {
                    id: id.clone(),
                    filter,
                })
            }
            _ => Err(ErrorObject::method_not_found(spec.name)),
        }
    };
    let dispatched = target()?;
    Ok(match &inner.auth {
        Some(auth) => auth.authorize(principal.as_deref(), dispatched),
        None => dispatched,
    })
}

/// The lists the caller of a request with `meta` sees: the snapshot's
/// own, or (with a view installed) its view's.
#[cfg(feature = "std")]
fn seen<'a>(
    service: &Service,
    snapshot: &'a crate::registry::Snapshot,
    meta: &RequestMeta,
) -> crate::registry::Seen<'a> {
    let inner = &service.inner;
    let caller = crate::registry::Caller::new(meta);
    snapshot.lists_for(inner.listing.as_deref(), &caller, &inner.registry.paging)
}

/// The lists of the snapshot (no views without `std`).
#[cfg(not(feature = "std"))]
fn seen<'a>(
    _service: &Service,
    snapshot: &'a crate::registry::Snapshot,
    _meta: &RequestMeta,
) -> crate::registry::Seen<'a> {
    crate::registry::Seen::All(&snapshot.lists)
}

/// The `cursor` param of a list request.
fn cursor(params: &Map<String, Value>) -> Result<Option<&str>, ErrorObject> {
    match params.get("cursor") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(c)) => Ok(Some(c.as_str())),
        Some(_) => Err(ErrorObject::invalid_params("Invalid cursor")),
    }
}

/// `resources/list`: the registered resources' pages, then, with a
/// [`ResourceLister`](crate::registry::ResourceLister), its pages.
fn resources_list(
    service: &Service,
    id: &RequestId,
    params: &Map<String, Value>,
    meta: &RequestMeta,
) -> Result<Dispatch, ErrorObject> {
    let snapshot = service.snapshot();
    let seen = seen(service, &snapshot, meta);
    let inner = &service.inner;
    let Some(lister) = inner.lister.as_deref() else {
        return list(id, params, &seen.resources);
    };
    use crate::registry::lister::{self, Position};
    let caller = crate::registry::Caller::new(meta);
    let paging = &inner.registry.paging;
    let result = match lister::position(cursor(params)?) {
        // No registered resource to show: the lister's first page.
        Position::Registered(None) if seen.resources.empty => {
            lister::page(lister, &caller, None, paging)?
        }
        Position::Registered(c) => return list_at(id, c, &seen.resources),
        Position::Lister(c) => lister::page(lister, &caller, c, paging)?,
    };
    Ok(Dispatch::Answer {
        id: id.clone(),
        result,
    })
}

fn list(
    id: &RequestId,
    params: &Map<String, Value>,
    pages: &Pages,
) -> Result<Dispatch, ErrorObject> {
    list_at(id, cursor(params)?, pages)
}

/// The page of `pages` at `cursor`.
fn list_at(id: &RequestId, cursor: Option<&str>, pages: &Pages) -> Result<Dispatch, ErrorObject> {
    // A cursor of another list, or of this list before a change, is
    // invalid (`server/utilities/pagination.mdx` § Error Handling; see
    // `registry::lists`).
    let page = pages
        .page(cursor)
        .ok_or_else(|| ErrorObject::invalid_params("Invalid cursor"))?;
    Ok(Dispatch::Answer {
        id: id.clone(),
        result: page.clone(),
    })
}

fn string_param<'a>(params: &'a Map<String, Value>, key: &str) -> Result<&'a str, ErrorObject> {
    match params.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(ErrorObject::invalid_params(format!(
            "Parameter {key} must be a string"
        ))),
        None => Err(ErrorObject::invalid_params(format!(
            "Missing required parameter {key}"
        ))),
    }
}

fn invoke(
    id: &RequestId,
    request: Request,
    meta: RequestMeta,
    mrtr: Option<(Origin, Round)>,
    handler: Option<Handler>,
    tool: Option<Arc<ToolEntry>>,
    timeout: Option<core::time::Duration>,
) -> Dispatch {
    let (origin, round) = match mrtr {
        Some((o, r)) => (Some(o), r),
        None => (None, Round::default()),
    };
    Dispatch::Invoke(Box::new(Admitted {
        id: id.clone(),
        request,
        meta,
        round,
        origin,
        handler,
        tool,
        timeout,
        session: None,
    }))
}

fn call_tool(
    service: &Service,
    id: &RequestId,
    args: Args<'_>,
    meta: RequestMeta,
    headers: Option<&dyn HeaderCheck>,
    now: Instant,
) -> Result<Dispatch, ErrorObject> {
    // The typed shape has no members besides these two (so no
    // `inputResponses` or `requestState`).
    let (mut params, typed) = match args {
        Args::Typed(Typed::ToolCall { name, arguments }) => (Map::new(), Some((name, arguments))),
        args => (args.into_object(), None),
    };
    let name = match &typed {
        Some((name, _)) => name,
        None => string_param(&params, "name")?,
    };
    let Some(entry) = service.snapshot().tool(name).cloned() else {
        return Err(unknown_tool(name));
    };
    // Outside the caller's view: exactly the answer to an unknown tool.
    if service.hidden(&meta, |view, v| view.tool(v, &entry.tool)) {
        return Err(unknown_tool(name));
    }
    // Step 3's mirrors of the tool's own parameters, now that the caller
    // may know of the tool.
    if let (Some(h), false) = (headers, entry.header_params.is_empty()) {
        let empty = Map::new();
        let arguments = match &typed {
            Some((_, arguments)) => arguments,
            None => params
                .get("arguments")
                .and_then(Value::as_object)
                .unwrap_or(&empty),
        };
        h.check_tool(&entry.header_params, arguments)?;
    }
    let mrtr = mrtr::admit(
        service,
        "tools/call",
        entry.name.clone(),
        &params,
        meta.principal(),
        now,
    )?;
    let arguments = match typed {
        Some((_, arguments)) => arguments,
        None => match params.remove("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(a)) => a,
            Some(_) => {
                return Err(ErrorObject::invalid_params(format!(
                    "Invalid arguments for tool {}: arguments must be an object",
                    entry.tool.name
                )))
            }
        },
    };
    tool_invocation(id, entry, arguments, meta, mrtr)
}

/// `-32602` for a tool the registry does not hold (`server/tools.mdx`
/// § Error Handling).
pub(crate) fn unknown_tool(name: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Unknown tool: {}", quoted(name)))
}

/// The invocation of the tool `entry` with `arguments`, once they are
/// validated against its input schema.
fn tool_invocation(
    id: &RequestId,
    entry: Arc<ToolEntry>,
    arguments: Map<String, Value>,
    meta: RequestMeta,
    mrtr: (Origin, Round),
) -> Result<Dispatch, ErrorObject> {
    #[cfg(feature = "std")]
    let arguments = match &entry.input {
        Some(schema) => validated(schema, arguments, &entry.tool.name)?,
        None => arguments,
    };
    let timeout = entry.timeout;
    Ok(invoke(
        id,
        Request::CallTool {
            name: entry.name.clone(),
            arguments,
        },
        meta,
        Some(mrtr),
        entry.handler.clone().map(Handler::Tool),
        Some(entry),
        timeout,
    ))
}

/// Validate a tool's arguments against its compiled `inputSchema`
/// (`server/tools.mdx` § Security: servers MUST validate all tool inputs).
#[cfg(feature = "std")]
fn validated(
    schema: &crate::schema::Compiled,
    arguments: Map<String, Value>,
    tool: &str,
) -> Result<Map<String, Value>, ErrorObject> {
    let instance = Value::Object(arguments);
    if let Err(why) = schema.validate(&instance) {
        return Err(ErrorObject::invalid_params(format!(
            "Invalid arguments for tool {tool}: {}",
            crate::error::truncate(&why, 512)
        )));
    }
    match instance {
        Value::Object(arguments) => Ok(arguments),
        _ => Err(ErrorObject::internal("Internal error")),
    }
}

fn read_resource(
    service: &Service,
    id: &RequestId,
    params: &Map<String, Value>,
    meta: RequestMeta,
    now: Instant,
) -> Result<Dispatch, ErrorObject> {
    let uri = string_param(params, "uri")?;
    read_resource_at(service, id, uri, params, meta, now)
}

/// `resources/read` of `uri`, in a request whose params are `params`.
fn read_resource_at(
    service: &Service,
    id: &RequestId,
    uri: &str,
    params: &Map<String, Value>,
    meta: RequestMeta,
    now: Instant,
) -> Result<Dispatch, ErrorObject> {
    let now_serving = service.snapshot();
    let seen = |r: &crate::registry::ResourceEntry| {
        !service.hidden(&meta, |view, v| view.resource(v, &r.resource))
    };
    let handler = if let Some(r) = now_serving.resources.get(uri).filter(|r| seen(r)) {
        (r.handler.clone(), r.timeout, BTreeMap::new())
    } else {
        now_serving
            .templates
            .iter()
            .filter(|t| !service.hidden(&meta, |view, v| view.template(v, &t.template)))
            .find_map(|t| Some((t.handler.clone(), t.timeout, t.parsed.matches(uri)?)))
            .ok_or_else(|| resource_not_found(uri))?
    };
    let (handler, timeout, variables) = handler;
    let mrtr = mrtr::admit(
        service,
        "resources/read",
        Arc::from(uri),
        params,
        meta.principal(),
        now,
    )?;
    let request = Request::ReadResource {
        uri: String::from(uri),
        variables,
    };
    Ok(invoke(
        id,
        request,
        meta,
        Some(mrtr),
        handler.map(Handler::Resource),
        None,
        timeout,
    ))
}

fn get_prompt(
    service: &Service,
    id: &RequestId,
    params: &Map<String, Value>,
    meta: RequestMeta,
    now: Instant,
) -> Result<Dispatch, ErrorObject> {
    let name = string_param(params, "name")?;
    let Some(entry) = service
        .snapshot()
        .prompts
        .get(name)
        .filter(|p| !service.hidden(&meta, |view, v| view.prompt(v, &p.prompt)))
        .cloned()
    else {
        return Err(ErrorObject::invalid_params(format!(
            "Unknown prompt: {}",
            quoted(name)
        )));
    };
    let arguments = string_map(params.get("arguments"), "Prompt arguments")?;
    for arg in entry.prompt.arguments.iter().flatten() {
        if arg.required == Some(true) && !arguments.contains_key(&arg.name) {
            return Err(ErrorObject::invalid_params(format!(
                "Missing required argument {} for prompt {}",
                arg.name, entry.prompt.name
            )));
        }
    }
    let mrtr = mrtr::admit(
        service,
        "prompts/get",
        Arc::from(entry.prompt.name.as_str()),
        params,
        meta.principal(),
        now,
    )?;
    let request = Request::GetPrompt {
        name: entry.prompt.name.clone(),
        arguments,
    };
    Ok(invoke(
        id,
        request,
        meta,
        Some(mrtr),
        entry.handler.clone().map(Handler::Prompt),
        None,
        entry.timeout,
    ))
}

fn string_map(v: Option<&Value>, what: &str) -> Result<BTreeMap<String, String>, ErrorObject> {
    match v {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(ErrorObject::invalid_params(format!(
                    "{what} must be strings"
                ))),
            })
            .collect(),
        Some(_) => Err(ErrorObject::invalid_params(format!(
            "{what} must be an object of strings"
        ))),
    }
}

fn complete(
    service: &Service,
    id: &RequestId,
    params: &Map<String, Value>,
    meta: RequestMeta,
) -> Result<Dispatch, ErrorObject> {
    let inner = &service.inner;
    let reference: CompletionRef = match params.get("ref") {
        Some(v) => serde_json::from_value(v.clone()).map_err(|_| {
            ErrorObject::invalid_params("Parameter ref must be {type: \"ref/prompt\", name} or {type: \"ref/resource\", uri}")
        })?,
        None => return Err(ErrorObject::invalid_params("Missing required parameter ref")),
    };
    let now_serving = service.snapshot();
    match &reference {
        CompletionRef::Prompt { name } => {
            let seen = now_serving
                .prompts
                .get(name)
                .is_some_and(|p| !service.hidden(&meta, |view, v| view.prompt(v, &p.prompt)));
            if !seen {
                return Err(ErrorObject::invalid_params(format!(
                    "Unknown prompt: {}",
                    quoted(name)
                )));
            }
        }
        CompletionRef::Resource { uri } => {
            let known =
                now_serving.templates.get(uri).is_some_and(|t| {
                    !service.hidden(&meta, |view, v| view.template(v, &t.template))
                }) || now_serving.resources.get(uri).is_some_and(|r| {
                    !service.hidden(&meta, |view, v| view.resource(v, &r.resource))
                });
            if !known {
                return Err(ErrorObject::invalid_params(format!(
                    "Unknown resource reference: {}",
                    quoted(uri)
                )));
            }
        }
    }
    let argument = match params.get("argument") {
        Some(Value::Object(a)) => a,
        _ => {
            return Err(ErrorObject::invalid_params(
                "Parameter argument must be an object {name, value}",
            ))
        }
    };
    let (Some(Value::String(arg_name)), Some(Value::String(value))) =
        (argument.get("name"), argument.get("value"))
    else {
        return Err(ErrorObject::invalid_params(
            "Parameter argument must have string name and value",
        ));
    };
    let context = match params.get("context").and_then(|c| c.get("arguments")) {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) if m.values().all(Value::is_string) => m.clone(),
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "context.arguments must be an object of strings",
            ))
        }
    };
    let request = Request::Complete(CompletionRequest {
        reference,
        argument: arg_name.clone(),
        value: value.clone(),
        context,
    });
    let handler = inner.completer.clone().flatten().map(Handler::Complete);
    Ok(invoke(
        id,
        request,
        meta,
        None,
        handler,
        None,
        inner.completer_timeout,
    ))
}
