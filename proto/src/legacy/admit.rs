//! Admission and routing of a request inside an initialize-era session.
//!
//! The session, not the request, carries the version and the client's
//! capabilities, so admission is: the method is in the negotiated
//! revision's profile, sent by clients, implemented, and its capability
//! advertised (`-32601` otherwise); then its params. The methods both eras
//! share are routed to the same code as 2026-07-28 requests
//! ([`crate::dispatch`]); what only sessions have (`ping`,
//! `logging/setLevel`, `resources/subscribe`) is answered here or handed
//! back to the connection, which owns the session.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{Map, Value};

use super::session::Session;
use crate::dispatch::{self, Admitted, Dispatch};
use crate::error::ErrorObject;
use crate::jsonrpc::RequestId;
use crate::meta::{self, ClientCapabilities, LogLevel, RequestMeta};
use crate::model::Implementation;
use crate::profile::{
    Direction, Gate, Kind, Method, Placement, Profile, Status, REVISION_2026_07_28,
};
use crate::service::Service;
use crate::time::Instant;

/// What a session's request needs from its session, copied out so the
/// store is not locked while the request is admitted.
#[derive(Clone, Debug)]
pub(crate) struct View {
    pub(crate) profile: &'static Profile,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) client_info: Option<alloc::sync::Arc<Implementation>>,
    pub(crate) log_level: LogLevel,
}

impl View {
    pub(crate) fn of(s: &Session) -> View {
        View {
            profile: s.profile,
            capabilities: s.capabilities.clone(),
            client_info: s.client_info.clone(),
            log_level: s.min_log_level(),
        }
    }
}

/// What to do with a session's request.
// `Invoke` is unboxed as in `Dispatch`: one allocation less per call.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum Action {
    /// Answer with this serialized, session-shaped result.
    Answer(Vec<u8>),
    /// Answer with this error.
    Error(ErrorObject),
    /// Hand to the application.
    Invoke(Box<Admitted>),
    /// Refuse: the principal lacks these scopes (see
    /// [`Dispatch::Forbidden`]).
    Forbidden(Vec<String>),
    /// `logging/setLevel`: set it, answer `{}`.
    SetLevel(LogLevel),
    /// `resources/subscribe`: add the URI, answer `{}`.
    Subscribe(String),
    /// `resources/unsubscribe`: remove the URI, answer `{}`.
    Unsubscribe(String),
}

/// `{}`: the empty result of `ping`, `logging/setLevel`, `resources/subscribe`.
pub(crate) const EMPTY: &[u8] = b"{}";

/// Admit and route the request `id` of a session seen as `view`, made by
/// `principal` (authenticated by the transport, if it was).
pub(crate) fn request(
    service: &Service,
    view: &View,
    id: &RequestId,
    method: &str,
    params: Option<Map<String, Value>>,
    principal: Option<&alloc::sync::Arc<crate::auth::Principal>>,
    now: Instant,
) -> Action {
    match admit(service, view, method, params) {
        Ok((spec_method, params, mut meta)) => {
            meta.principal = principal.cloned();
            let action = route(service, id, spec_method, params, meta, now);
            match (action, &service.inner.auth) {
                // A subscription is a standing read of its resource: it
                // needs what a read of it needs (the rest was checked where
                // 2026-07-28 requests are, in `dispatch`).
                (Action::Subscribe(uri), Some(auth)) => {
                    let missing = auth.missing_for_resources(principal.map(|p| &**p), [&uri]);
                    if missing.is_empty() {
                        Action::Subscribe(uri)
                    } else {
                        Action::Forbidden(missing)
                    }
                }
                (action, _) => action,
            }
        }
        Err(e) => Action::Error(e),
    }
}

fn admit(
    service: &Service,
    view: &View,
    method: &str,
    params: Option<Map<String, Value>>,
) -> Result<(Method, Map<String, Value>, RequestMeta), ErrorObject> {
    let inner = &service.inner;
    let Some(spec) = view.profile.lookup(method) else {
        return Err(ErrorObject::method_not_found(method));
    };
    let served = spec.kind == Kind::Request
        && matches!(spec.direction, Direction::ClientToServer | Direction::Both)
        && spec.placement == Placement::TopLevel
        && spec.status == Status::Implemented
        && match (spec.method, spec.gate) {
            // `resources.subscribe` is its own capability in these revisions.
            (Method::ResourcesSubscribe | Method::ResourcesUnsubscribe, _) => {
                inner.notifications.resource_updates
            }
            (_, Gate::None) => true,
            (_, Gate::Server(cap)) => service.advertises(cap),
            (_, Gate::Client(_)) => false,
        };
    if !served {
        return Err(ErrorObject::method_not_found(method));
    }
    let params = params.unwrap_or_default();
    let empty = Map::new();
    let raw = match params.get("_meta") {
        None => &empty,
        Some(Value::Object(m)) => m,
        Some(_) => return Err(ErrorObject::invalid_params("_meta must be an object")),
    };
    // `_meta` here carries at most a progress token and application keys;
    // what 2026-07-28 sends per request, the session holds.
    let mut meta = meta::optional(raw)?;
    meta.protocol_version = view.profile.version.into();
    meta.client_capabilities = view.capabilities.clone();
    meta.client_info = view.client_info.clone();
    meta.log_level = Some(view.log_level);
    Ok((spec.method, params, meta))
}

fn route(
    service: &Service,
    id: &RequestId,
    method: Method,
    params: Map<String, Value>,
    meta: RequestMeta,
    now: Instant,
) -> Action {
    match method {
        Method::Ping => Action::Answer(EMPTY.to_vec()),
        Method::LoggingSetLevel => match params.get("level") {
            Some(Value::String(l)) => match LogLevel::parse(l) {
                Some(level) => Action::SetLevel(level),
                None => Action::Error(ErrorObject::invalid_params(
                    "Invalid log level: expected one of debug, info, notice, warning, error, critical, alert, emergency",
                )),
            },
            _ => Action::Error(ErrorObject::invalid_params(
                "Missing required parameter level",
            )),
        },
        Method::ResourcesSubscribe | Method::ResourcesUnsubscribe => match params.get("uri") {
            Some(Value::String(uri)) if uri.len() > super::session::MAX_URI_BYTES => {
                Action::Error(ErrorObject::invalid_params(alloc::format!(
                    "Parameter uri is longer than {} bytes",
                    super::session::MAX_URI_BYTES
                )))
            }
            Some(Value::String(uri)) if method == Method::ResourcesSubscribe => {
                Action::Subscribe(uri.clone())
            }
            Some(Value::String(uri)) => Action::Unsubscribe(uri.clone()),
            _ => Action::Error(ErrorObject::invalid_params("Missing required parameter uri")),
        },
        // `initialize` twice in one session (`lifecycle.mdx`: the first
        // interaction, once).
        Method::Initialize => Action::Error(ErrorObject::invalid_request(
            "The session is already initialized",
        )),
        _ => {
            // Everything else is shared with 2026-07-28.
            let Some(spec) = REVISION_2026_07_28
                .methods
                .iter()
                .find(|s| s.method == method)
            else {
                return Action::Error(ErrorObject::method_not_found(method_name(method)));
            };
            match dispatch::route(service, id, spec, params, meta, now) {
                Ok(Dispatch::Answer { result, .. }) => Action::Answer(super::reshape_result(&result)),
                Ok(Dispatch::Invoke(admitted)) => Action::Invoke(admitted),
                Ok(Dispatch::Forbidden { missing, .. }) => Action::Forbidden(missing),
                Ok(Dispatch::Error { error, .. }) | Err(error) => {
                    Action::Error(super::reshape_error(error))
                }
                Ok(_) => Action::Error(ErrorObject::method_not_found(spec.name)),
            }
        }
    }
}

fn method_name(method: Method) -> &'static str {
    REVISION_2026_07_28
        .methods
        .iter()
        .find(|s| s.method == method)
        .map_or("unknown", |s| s.name)
}
