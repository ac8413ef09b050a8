//! Extensions (`basic/versioning.mdx` § Extension Negotiation): optional
//! features that live outside the core protocol and plug into it here.
//!
//! An [`Extension`] is data plus synchronous hooks. It is installed on the
//! [`ServiceBuilder`](crate::ServiceBuilder) and then:
//!
//! - is advertised as `capabilities.extensions[id] = settings` by
//!   `server/discover`, and only when installed;
//! - may own top-level client-to-server methods. Registration refuses a
//!   method string the core revision defines (implemented or not), one it
//!   removed, or one another extension owns. An owned method is served only
//!   to a request whose `_meta` client capabilities declare the extension;
//!   any other gets `-32021` naming it (`schema.ts`
//!   MissingRequiredClientCapabilityError), after "method known" and before
//!   the method's params (the conformance suite's
//!   `tasks-capability-negotiation` wants `-32021`, not an unknown task);
//! - may wrap the core dispatch of methods that reach the application
//!   (`tools/call`, `resources/read`, `prompts/get`, `completion/complete`)
//!   as middleware: let the call through, answer it itself, or, for a
//!   client that did not declare the extension, say the request cannot be
//!   served without it (`-32021`). An extension never answers a request of
//!   a client that did not declare it: § Extension Negotiation lets the
//!   supporting party only "revert to core behaviour or reject";
//! - may name, per owned method, the params member `Mcp-Name` mirrors on
//!   Streamable HTTP;
//! - may add members to the `subscriptions/listen` filter and publish its
//!   own notifications to the streams that asked for them
//!   ([`ExtensionEvent`]).
//!
//! Hooks are synchronous and see `now` as a value: work that takes time or
//! touches storage is returned as a future ([`Step::Defer`]) that the
//! adapter runs like any handler (one that never blocks when polled: see
//! [Blocking](#blocking)), and whose outcome comes back through
//! [`Connection::complete`](crate::Connection::complete). A fault inside an
//! extension (a [`Step::Fault`], an [`ExtensionError::Fault`], a decision
//! that breaks negotiation, a malformed result) is logged and answered
//! with a plain `-32603`; the call's timeout bounds a future that never
//! resolves. Panics are the adapters' to catch, as for handlers.
//!
//! # Blocking
//!
//! A hook and an extension's step must not block, and neither may the
//! future of a [`Step::Defer`]: the adapters poll it first inline on the
//! connection's loop (most futures are ready at once, and are answered
//! with no task), then as a task on the application's executor. A future
//! that blocks when polled (file or network I/O, an fsync, a wait for a
//! lock another process holds) stalls every other request of its
//! connection, and on a single-threaded runtime every connection.
//!
//! Deferred work that blocks is moved to threads that may block, and the
//! future only waits for it: it hands the blocking call to a thread (a
//! small pool of the extension's own, or one the application provides:
//! `tokio::task::spawn_blocking`, `smol::unblock`) on its first poll,
//! returns `Pending`, and is woken by that thread with the value. Such a
//! future blocks no runtime that polls it, and proto stays sans-I/O.
//! Work that is quick and touches only memory is better done inline: a
//! thread hop costs more than it does.
//!
//! The Tasks extension's crate does it this way: its disk store's reads,
//! writes and fsyncs for the methods it owns, and for the task a
//! `tools/call` becomes, run on a few threads the extension starts on
//! demand (`Tasks::io_threads` there), while its memory store is called
//! inline; its runner calls the store from a thread of its own.
//!
//! Extensions that defer work beyond the request (Tasks) run registered
//! tools outside any connection with [`Service::detached_tool_call`] and
//! shape the outcome as a connection would with
//! [`Service::detached_tool_outcome`].

use alloc::boxed::Box;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::any::Any;
use core::fmt;
use serde_json::{json, Map, Value};

use crate::dispatch::{Admitted, Dispatch};
use crate::error::{quoted, ErrorObject};
use crate::handler::{BoxFuture, CallId, Handler, Invocation, Outcome, Request, Shared};
use crate::jsonrpc::RequestId;
use crate::meta::{ClientCapabilities, RequestMeta};
use crate::mrtr::Round;
use crate::profile::{Kind, Profile};
use crate::service::{BuildError, Service};
use crate::time::Instant;

/// Most topics one listen stream may subscribe to per extension.
pub const MAX_TOPICS: usize = 1024;

/// A method an extension owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtensionMethod {
    /// The exact method string.
    pub name: &'static str,
    /// The params member whose string value the `Mcp-Name` header must
    /// mirror on Streamable HTTP, if any (`streamable-http.mdx` § Standard
    /// Request Headers: extensions may define their own name sources).
    pub name_param: Option<&'static str>,
}

impl ExtensionMethod {
    /// A method with no `Mcp-Name` mirror.
    pub const fn new(name: &'static str) -> Self {
        ExtensionMethod {
            name,
            name_param: None,
        }
    }

    /// A method whose `Mcp-Name` mirrors `params[param]`.
    pub const fn named_by(name: &'static str, param: &'static str) -> Self {
        ExtensionMethod {
            name,
            name_param: Some(param),
        }
    }
}

/// How deferred extension work ended without a result.
#[derive(Clone, Debug, PartialEq)]
pub enum ExtensionError {
    /// A JSON-RPC error meant for the client.
    Protocol(ErrorObject),
    /// Something broke inside the extension (storage, a bug). Logged with
    /// this text; the client gets `-32603` without it.
    Fault(String),
}

impl From<ErrorObject> for ExtensionError {
    fn from(e: ErrorObject) -> Self {
        ExtensionError::Protocol(e)
    }
}

/// An extension's answer to a request.
pub enum Step {
    /// Answer now with this result object. `resultType` defaults to
    /// `"complete"`; the server's `_meta` is merged in.
    Result(Map<String, Value>),
    /// Answer now with this JSON-RPC error.
    Error(ErrorObject),
    /// Answer when this future resolves. The adapter runs it like a handler
    /// (it is an [`Output::Invoke`](crate::Output::Invoke)); it is dropped
    /// if the request is cancelled. Polling it must not block: blocking work
    /// belongs on other threads ([module docs](self), Blocking).
    Defer(BoxFuture<Result<Map<String, Value>, ExtensionError>>),
    /// A fault: logged with this text, answered `-32603`.
    Fault(String),
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Result(r) => f.debug_tuple("Result").field(r).finish(),
            Step::Error(e) => f.debug_tuple("Error").field(e).finish(),
            Step::Defer(_) => f.write_str("Defer(..)"),
            Step::Fault(w) => f.debug_tuple("Fault").field(w).finish(),
        }
    }
}

/// A middleware's decision about a core call.
#[derive(Debug)]
pub enum Wrap {
    /// Let the core handle it.
    Pass,
    /// The request cannot be served without this extension: for a client
    /// that did not declare it, `-32021` naming the extension. (For a
    /// client that did, a fault.)
    Require,
    /// Answer it instead of the core. Only for a client that declared the
    /// extension; otherwise a fault.
    Answer(Step),
}

/// A request for a method the extension owns, after admission and the
/// extension gate.
pub struct MethodCall<'a> {
    /// The service answering it.
    pub service: &'a Service,
    /// The method (one of [`Extension::methods`]).
    pub method: &'static str,
    /// Its params (the `_meta` member included).
    pub params: &'a Map<String, Value>,
    /// Its admitted `_meta`.
    pub meta: &'a RequestMeta,
    /// When it was received.
    pub now: Instant,
}

/// A core call about to reach the application, for a middleware.
pub struct CoreCall<'a> {
    /// The service answering it.
    pub service: &'a Service,
    /// The core method (one of [`Extension::wraps`]).
    pub method: &'a str,
    /// The admitted request (a tool's arguments already validated).
    pub request: &'a Request,
    /// Its admitted `_meta`.
    pub meta: &'a RequestMeta,
    /// The verified input responses and state of a retried request (MRTR).
    pub round: &'a Round,
    /// When it was received.
    pub now: Instant,
}

/// The members of a `subscriptions/listen` filter an extension owns.
pub struct ListenCall<'a> {
    /// The service answering it.
    pub service: &'a Service,
    /// The members of `params.notifications` named in
    /// [`Extension::listen_keys`] that the request carries.
    pub members: &'a Map<String, Value>,
    /// The listen request's admitted `_meta`.
    pub meta: &'a RequestMeta,
    /// When it was received.
    pub now: Instant,
}

/// What one listen stream subscribed to from one extension.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subscribed {
    /// The extension's identifier.
    pub extension: String,
    /// Topics whose [`ExtensionEvent`]s the stream receives.
    pub topics: BTreeSet<String>,
    /// Only events with this same scope reach the stream (for example the
    /// principal the listen request was made by); `None` matches events
    /// without a scope.
    pub scope: Option<String>,
    /// Members added to the acknowledgement's `notifications` object: what
    /// the server agreed to send.
    pub ack: Map<String, Value>,
}

/// A notification an extension publishes to listen streams (through the
/// [`Hub`](crate::Hub) or [`Connection::publish`](crate::Connection::publish)).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExtensionEvent {
    /// The publishing extension's identifier.
    pub extension: String,
    /// The topic streams subscribe to.
    pub topic: String,
    /// See [`Subscribed::scope`].
    pub scope: Option<String>,
    /// The notification's method.
    pub method: String,
    /// Its params as JSON object text (kept serialized so events stay
    /// comparable and hashable for the hub's coalescing).
    params: String,
}

impl ExtensionEvent {
    /// A notification `method` with `params` for streams subscribed to
    /// `topic` of `extension` with the same `scope`.
    pub fn new(
        extension: impl Into<String>,
        topic: impl Into<String>,
        scope: Option<String>,
        method: impl Into<String>,
        params: &Map<String, Value>,
    ) -> Self {
        let mut text = Vec::new();
        crate::json::write(&mut text, params);
        ExtensionEvent {
            extension: extension.into(),
            topic: topic.into(),
            scope,
            method: method.into(),
            params: String::from_utf8(text).unwrap_or_else(|_| String::from("{}")),
        }
    }

    /// The params object.
    pub fn params(&self) -> Map<String, Value> {
        serde_json::from_str(&self.params).unwrap_or_default()
    }
}

/// An optional protocol feature. See the [module docs](self).
///
/// Every hook has a default that does nothing, so an extension implements
/// only what it uses.
pub trait Extension: Send + Sync + 'static {
    /// The exact identifier, e.g. `com.example/feature`: a `_meta` key with
    /// a mandatory prefix (`basic/index.mdx` § `_meta`).
    fn id(&self) -> &str;

    /// The settings object advertised under `capabilities.extensions[id]`.
    fn settings(&self) -> Map<String, Value> {
        Map::new()
    }

    /// Top-level client-to-server request methods this extension answers.
    fn methods(&self) -> &[ExtensionMethod] {
        &[]
    }

    /// Answer a request for one of [`methods`](Extension::methods). Called
    /// only when the request's client capabilities declare the extension.
    fn handle(&self, call: &MethodCall<'_>) -> Step {
        Step::Error(ErrorObject::method_not_found(call.method))
    }

    /// Core methods whose calls [`wrap`](Extension::wrap) sees.
    fn wraps(&self) -> &[&'static str] {
        &[]
    }

    /// Decide about a core call before it reaches the application.
    /// `negotiated` says whether the request declared this extension.
    fn wrap(&self, call: &CoreCall<'_>, negotiated: bool) -> Wrap {
        let _ = (call, negotiated);
        Wrap::Pass
    }

    /// Members of the `subscriptions/listen` filter this extension owns.
    fn listen_keys(&self) -> &[&'static str] {
        &[]
    }

    /// Parse the owned filter members of a listen request that declared the
    /// extension. An error refuses the whole request.
    fn listen(&self, call: &ListenCall<'_>) -> Result<Subscribed, ErrorObject> {
        let _ = call;
        Ok(Subscribed::default())
    }
}

/// The extensions of a service, checked and indexed at build.
#[derive(Default)]
pub(crate) struct Extensions {
    list: Vec<Installed>,
}

struct Installed {
    ext: Arc<dyn Extension>,
    any: Arc<dyn Any + Send + Sync>,
    id: String,
    methods: Vec<ExtensionMethod>,
    wraps: Vec<String>,
    listen_keys: Vec<String>,
}

/// An extension as registered on the builder, before checks.
pub(crate) struct Registered {
    ext: Arc<dyn Extension>,
    any: Arc<dyn Any + Send + Sync>,
}

impl Registered {
    pub(crate) fn new<E: Extension>(ext: Arc<E>) -> Self {
        Registered {
            ext: ext.clone(),
            any: ext,
        }
    }
}

/// The core methods a middleware may wrap: those whose calls reach the
/// application.
const WRAPPABLE: &[&str] = &[
    "tools/call",
    "resources/read",
    "prompts/get",
    "completion/complete",
];

impl Extensions {
    pub(crate) fn build(
        registered: Vec<Registered>,
        profile: &Profile,
    ) -> Result<Extensions, BuildError> {
        let mut list: Vec<Installed> = Vec::with_capacity(registered.len());
        for Registered { ext, any } in registered {
            let id = String::from(ext.id());
            let invalid = |reason: String| BuildError::InvalidExtension {
                extension: id.clone(),
                reason,
            };
            check_identifier(&id).map_err(|r| invalid(String::from(r)))?;
            if list.iter().any(|i| i.id == id) {
                return Err(invalid(String::from("installed twice")));
            }
            let methods = ext.methods().to_vec();
            for m in &methods {
                let taken = profile.lookup(m.name).is_some()
                    || profile.is_removed(m.name)
                    || list
                        .iter()
                        .any(|i| i.methods.iter().any(|o| o.name == m.name))
                    || methods.iter().filter(|o| o.name == m.name).count() > 1;
                if taken || m.name.is_empty() {
                    return Err(BuildError::ExtensionMethodCollision {
                        extension: id,
                        method: String::from(m.name),
                    });
                }
            }
            let mut wraps = Vec::new();
            for w in ext.wraps() {
                let core_request = profile
                    .lookup(w)
                    .is_some_and(|s| s.kind == Kind::Request && WRAPPABLE.contains(w));
                if !core_request {
                    return Err(invalid(format!(
                        "cannot wrap {w:?}: only {} reach the application",
                        WRAPPABLE.join(", ")
                    )));
                }
                wraps.push(String::from(*w));
            }
            let listen_keys: Vec<String> =
                ext.listen_keys().iter().map(|k| String::from(*k)).collect();
            for k in &listen_keys {
                if crate::subscriptions::filter::CORE_KEYS.contains(&k.as_str())
                    || list.iter().any(|i| i.listen_keys.contains(k))
                {
                    return Err(invalid(format!(
                        "listen filter member {k:?} is already defined"
                    )));
                }
            }
            list.push(Installed {
                ext,
                any,
                id,
                methods,
                wraps,
                listen_keys,
            });
        }
        Ok(Extensions { list })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Whether any extension adds to the listen filter (so listen is served).
    pub(crate) fn listens(&self) -> bool {
        self.list.iter().any(|i| !i.listen_keys.is_empty())
    }

    /// `capabilities.extensions`.
    pub(crate) fn capabilities(&self) -> Map<String, Value> {
        self.list
            .iter()
            .map(|i| (i.id.clone(), Value::Object(i.ext.settings())))
            .collect()
    }

    /// The extension owning `method`.
    pub(crate) fn owner(&self, method: &str) -> Option<(usize, ExtensionMethod)> {
        self.list
            .iter()
            .enumerate()
            .find_map(|(n, i)| i.methods.iter().find(|m| m.name == method).map(|m| (n, *m)))
    }

    /// The params member `Mcp-Name` mirrors for an extension method.
    pub(crate) fn name_param(&self, method: &str) -> Option<&'static str> {
        self.owner(method).and_then(|(_, m)| m.name_param)
    }

    pub(crate) fn id(&self, index: usize) -> &str {
        &self.list[index].id
    }
}

/// Identifier rules: a `_meta` key with its prefix mandatory
/// (`basic/versioning.mdx` § Extension Negotiation; `basic/index.mdx`
/// § `_meta`: dot-separated labels, each starting with a letter and ending
/// with a letter or digit, then `/`, then a name that begins and ends with
/// an alphanumeric and contains only alphanumerics, `-`, `_`, `.`).
fn check_identifier(id: &str) -> Result<(), &'static str> {
    let Some((prefix, name)) = id.split_once('/') else {
        return Err("the identifier needs a prefix: labels separated by dots, then '/'");
    };
    for label in prefix.split('.') {
        let b = label.as_bytes();
        let ok = !b.is_empty()
            && b[0].is_ascii_alphabetic()
            && b[b.len() - 1].is_ascii_alphanumeric()
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-');
        if !ok {
            return Err("a prefix label must start with a letter, end with a letter or digit, and hold only letters, digits and '-'");
        }
    }
    let b = name.as_bytes();
    let ok = !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'));
    if ok {
        Ok(())
    } else {
        Err("the name must begin and end with a letter or digit and hold only letters, digits, '-', '_' and '.'")
    }
}

/// `-32021` naming the extension `id` as required.
pub fn missing_extension(id: &str) -> ErrorObject {
    let mut ext = Map::new();
    ext.insert(String::from(id), Value::Object(Map::new()));
    ErrorObject::missing_client_capability(json!({ "extensions": ext }))
}

fn fault(id: &str, why: &str) -> ErrorObject {
    tracing::error!(extension = %id, %why, "extension fault");
    ErrorObject::internal("Internal error")
}

fn deferred(id: &str, future: BoxFuture<Result<Map<String, Value>, ExtensionError>>) -> Handler {
    let id = String::from(id);
    Handler::Deferred(Box::pin(async move {
        match future.await {
            Ok(result) => Outcome::Extension(result),
            Err(ExtensionError::Protocol(e)) => Outcome::Error(e),
            Err(ExtensionError::Fault(why)) => Outcome::Error(fault(&id, &why)),
        }
    }))
}

/// Turn a [`Step`] for request `id` into the dispatch outcome; `invoke`
/// builds the call a deferred answer runs as.
fn step(
    service: &Service,
    ext: &str,
    id: &RequestId,
    step: Step,
    invoke: impl FnOnce(Handler) -> Admitted,
) -> Dispatch {
    match step {
        Step::Result(result) => match shape(result, &service.inner.server_meta) {
            Ok(result) => Dispatch::Answer {
                id: id.clone(),
                result: result.into(),
            },
            Err(why) => Dispatch::failed(id.clone(), fault(ext, &why)),
        },
        Step::Error(e) => Dispatch::failed(id.clone(), e),
        Step::Fault(why) => Dispatch::failed(id.clone(), fault(ext, &why)),
        Step::Defer(future) => Dispatch::Invoke(Box::new(invoke(deferred(ext, future)))),
    }
}

/// Route an owned method (after admission and the gate).
pub(crate) fn handle(
    service: &Service,
    index: usize,
    method: ExtensionMethod,
    id: &RequestId,
    params: Map<String, Value>,
    meta: RequestMeta,
    now: Instant,
) -> Dispatch {
    let installed = &service.inner.extensions.list[index];
    let call = MethodCall {
        service,
        method: method.name,
        params: &params,
        meta: &meta,
        now,
    };
    let answer = installed.ext.handle(&call);
    step(service, &installed.id, id, answer, |handler| Admitted {
        id: id.clone(),
        request: Request::Extension {
            method: String::from(method.name),
            params,
        },
        meta,
        round: Round::default(),
        origin: None,
        handler: Some(handler),
        tool: None,
        timeout: None,
        session: None,
    })
}

/// The extension gate for an owned method: its extension declared.
pub(crate) fn gate(service: &Service, index: usize, meta: &RequestMeta) -> Result<(), ErrorObject> {
    let id = service.inner.extensions.id(index);
    if meta.client_capabilities.extension(id) {
        Ok(())
    } else {
        Err(missing_extension(id))
    }
}

/// Run the middlewares of `method` over an admitted core call.
pub(crate) fn wrap(
    service: &Service,
    method: &str,
    admitted: Box<Admitted>,
    now: Instant,
) -> Dispatch {
    for installed in &service.inner.extensions.list {
        if !installed.wraps.iter().any(|w| w == method) {
            continue;
        }
        let negotiated = admitted.meta.client_capabilities.extension(&installed.id);
        let call = CoreCall {
            service,
            method,
            request: &admitted.request,
            meta: &admitted.meta,
            round: &admitted.round,
            now,
        };
        match (installed.ext.wrap(&call, negotiated), negotiated) {
            (Wrap::Pass, _) => {}
            (Wrap::Require, false) => {
                return Dispatch::refused(
                    Some(admitted.id.clone()),
                    missing_extension(&installed.id),
                )
            }
            (Wrap::Answer(answer), true) => {
                let id = admitted.id.clone();
                let Admitted {
                    id: req_id,
                    request,
                    meta,
                    ..
                } = *admitted;
                return step(service, &installed.id, &id, answer, |handler| Admitted {
                    id: req_id,
                    request,
                    meta,
                    round: Round::default(),
                    origin: None,
                    handler: Some(handler),
                    tool: None,
                    timeout: None,
                    session: None,
                });
            }
            // The extension's own misuse of the seam: a server fault.
            (wrap @ (Wrap::Require | Wrap::Answer(_)), _) => {
                let why = match wrap {
                    Wrap::Require => "required itself on a request that declared it",
                    _ => "answered a request that did not declare the extension",
                };
                return Dispatch::failed(admitted.id.clone(), fault(&installed.id, why));
            }
        }
    }
    Dispatch::Invoke(admitted)
}

/// The extension members of a listen filter: gate each extension whose
/// members the request carries, and let it parse them.
pub(crate) fn listen(
    service: &Service,
    params: &Map<String, Value>,
    meta: &RequestMeta,
    now: Instant,
) -> Result<Vec<Subscribed>, ErrorObject> {
    let Some(Value::Object(notifications)) = params.get("notifications") else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for installed in &service.inner.extensions.list {
        let members: Map<String, Value> = installed
            .listen_keys
            .iter()
            .filter_map(|k| notifications.get(k).map(|v| (k.clone(), v.clone())))
            .collect();
        if members.is_empty() {
            continue;
        }
        // `tasks.md`-style rule, general here: asking for an extension's
        // notifications without declaring the extension is refused.
        if !meta.client_capabilities.extension(&installed.id) {
            return Err(missing_extension(&installed.id));
        }
        let call = ListenCall {
            service,
            members: &members,
            meta,
            now,
        };
        let mut sub = installed.ext.listen(&call)?;
        if sub.topics.len() > MAX_TOPICS {
            return Err(ErrorObject::invalid_params(format!(
                "A listen request may name at most {MAX_TOPICS} topics of {}",
                quoted(&installed.id)
            )));
        }
        sub.extension = installed.id.clone();
        out.push(sub);
    }
    Ok(out)
}

/// Serialize an extension's result: an object whose `resultType`, if set,
/// is a string other than `"input_required"` (MRTR results are the core's
/// to shape), with the server's `_meta` merged in. `Err` names the fault.
pub(crate) fn shape(
    mut result: Map<String, Value>,
    server_meta: &Map<String, Value>,
) -> Result<Vec<u8>, String> {
    match result.get("resultType") {
        None => {
            result.insert(
                String::from("resultType"),
                Value::String(String::from("complete")),
            );
        }
        Some(Value::String(t)) if t == "input_required" => {
            return Err(String::from(
                "an extension result may not be an InputRequiredResult",
            ))
        }
        Some(Value::String(t)) if !t.is_empty() => {}
        Some(_) => return Err(String::from("resultType must be a non-empty string")),
    }
    match result.get_mut("_meta") {
        None => {
            if !server_meta.is_empty() {
                result.insert(String::from("_meta"), Value::Object(server_meta.clone()));
            }
        }
        Some(Value::Object(m)) => {
            for (k, v) in server_meta {
                m.insert(k.clone(), v.clone());
            }
        }
        Some(_) => return Err(String::from("_meta must be an object")),
    }
    let mut out = Vec::with_capacity(128);
    crate::json::write(&mut out, &result);
    Ok(out)
}

/// A detached tool call's outcome, shaped as a connection would shape it.
#[derive(Clone, Debug, PartialEq)]
pub enum DetachedOutcome {
    /// The complete `CallToolResult` object (with `resultType` and the
    /// server's `_meta`), output schema checked.
    Complete(Map<String, Value>),
    /// A JSON-RPC error.
    Error(ErrorObject),
    /// The handler asked for input: its input requests serialized as
    /// `{method, params}` objects by key (checked against the client's
    /// capabilities and the spec's rules), and its state.
    InputRequired {
        /// The input requests.
        requests: Map<String, Value>,
        /// The handler's state, to give back with the answers.
        state: Option<Value>,
    },
}

impl CallId {
    /// A call id for calls run outside a connection (detached calls): the
    /// caller keeps its own numbering.
    pub const fn detached(raw: u64) -> CallId {
        CallId(raw)
    }
}

impl Service {
    /// The installed extension of type `E`, if any (an extension's own
    /// runner finds its configuration this way).
    pub fn extension<E: Extension>(&self) -> Option<Arc<E>> {
        self.inner
            .extensions
            .list
            .iter()
            .find_map(|i| i.any.clone().downcast::<E>().ok())
    }

    /// Build the invocation of the registered tool `name` outside any
    /// connection, for work an extension runs after the request that asked
    /// for it was answered. The arguments are validated against the tool's
    /// `inputSchema` again (what was stored may predate a schema change).
    /// Reports the handler makes go to the sink given to
    /// [`Invocation::run`]: its progress reports all of them, with or
    /// without a `progressToken` in `meta` (nothing sends them as
    /// `notifications/progress`), its log messages as `meta` asks.
    pub fn detached_tool_call(
        &self,
        call: CallId,
        name: &str,
        arguments: Map<String, Value>,
        meta: RequestMeta,
        round: Round,
    ) -> Result<Invocation, ErrorObject> {
        let Some(entry) = self
            .snapshot()
            .tool(name)
            .filter(|t| !self.hidden(&meta, |view, v| view.tool(v, &t.tool)))
            .cloned()
        else {
            return Err(crate::dispatch::unknown_tool(name));
        };
        #[cfg(feature = "std")]
        if let Some(schema) = &entry.input {
            let instance = Value::Object(arguments.clone());
            if let Err(why) = schema.validate(&instance) {
                return Err(ErrorObject::invalid_params(format!(
                    "Invalid arguments for tool {}: {}",
                    entry.tool.name,
                    crate::error::truncate(&why, 512)
                )));
            }
        }
        Ok(Invocation::new(
            call,
            Request::CallTool {
                name: entry.name.clone(),
                arguments,
            },
            Shared::detached(meta, round, self.inner.states.clone()),
            entry.handler.clone().map(Handler::Tool),
        ))
    }

    /// Shape the outcome of a detached call of tool `name` as a connection
    /// shapes a `tools/call` answer: the output schema checked, the result
    /// completed with `resultType` and the server's `_meta`; an input
    /// request checked against `capabilities` (the originating request's)
    /// and the spec's rules for input requests.
    pub fn detached_tool_outcome(
        &self,
        name: &str,
        outcome: Outcome,
        capabilities: &ClientCapabilities,
    ) -> DetachedOutcome {
        let tool = self.snapshot().tool(name).cloned();
        match outcome {
            Outcome::Error(e) => DetachedOutcome::Error(e),
            Outcome::CallTool(r) => match crate::shape::checked_tool_result(
                tool.as_deref(),
                &r,
                &self.inner.server_meta,
            ) {
                Ok(bytes) => match serde_json::from_slice::<Map<String, Value>>(&bytes) {
                    Ok(m) => DetachedOutcome::Complete(m),
                    Err(_) => DetachedOutcome::Error(ErrorObject::internal("Internal error")),
                },
                Err(e) => DetachedOutcome::Error(e),
            },
            Outcome::InputRequired(ir) => match crate::mrtr::detached_input(ir, capabilities) {
                Ok((requests, state)) => DetachedOutcome::InputRequired { requests, state },
                Err(e) => DetachedOutcome::Error(e),
            },
            other => {
                tracing::error!(tool = %crate::error::truncate(name, 64), ?other, "a tool returned an outcome of the wrong kind");
                DetachedOutcome::Error(ErrorObject::internal("Internal error"))
            }
        }
    }
}
