//! Authorization on Streamable HTTP: snodo as an OAuth 2.1 resource
//! server (`basic/authorization/index.mdx`).
//!
//! With an [`Authorization`] on the service, no request on the MCP
//! endpoint reaches admission without a bearer token that its
//! [`Authenticator`] accepted, on the native listener and on a host HTTP
//! stack alike (both answer through the same exchange code). The rules
//! written here:
//!
//! - the token comes from the one `Authorization` header, scheme `Bearer`
//!   matched case-insensitively (RFC 6750 § 2.1), never from the query
//!   string (§ Access Token Usage: "MUST NOT be included in the URI query
//!   string"); two `Authorization` headers are a malformed request (400);
//! - no token: 401 with `WWW-Authenticate: Bearer resource_metadata=…`
//!   and the scopes every request needs (§ Scope Selection Strategy); a
//!   token the authenticator refuses: 401 `error="invalid_token"`
//!   (§ Token Handling); a tool call, prompt or resource read (or a
//!   completion for that prompt or resource, or a subscription to that
//!   resource) without the scopes it needs: 403
//!   `error="insufficient_scope"` with all of them in one challenge
//!   (§ Runtime Insufficient Scope Errors), decided once for 2026-07-28
//!   requests and initialize-era sessions alike (`Authorization::authorize`
//!   on what admission resolved the request to);
//! - those scopes are one setting per entry ([`Authorization::tool_scopes`],
//!   [`prompt_scopes`](Authorization::prompt_scopes),
//!   [`resource_scopes`](Authorization::resource_scopes),
//!   [`template_scopes`](Authorization::template_scopes)): the lists show
//!   a caller only what it holds the scopes of, and a request naming
//!   anything else is refused as above, so what is listed can be used.
//!   A caller that names an entry it was not shown learns that it exists
//!   and what it needs, which is what lets it step up its authorization;
//!   an application that must not say even that installs its own
//!   [`View`](crate::registry::View), whose hidden entries are answered as
//!   unknown. Listing everything to everyone is an opt-in,
//!   [`Authorization::list_unauthorized`];
//! - the Protected Resource Metadata (RFC 9728) at the root well-known URI
//!   and at the path-aware one for the endpoint
//!   (`authorization-server-discovery.mdx` § Protected Resource Metadata
//!   Discovery Requirements);
//! - every value written into `WWW-Authenticate` is a quoted-string with
//!   `"` and `\` escaped and control characters dropped;
//! - an authenticator that must ask the network first (introspection,
//!   keys) answers [`Authentication::Deferred`]: the request is held and
//!   its future handed to the adapter to run (the driving contract in
//!   [`crate::connection`]); the verdict that comes back is applied by the
//!   same code as a ready one. A validator that cannot decide
//!   ([`Verdict::Unavailable`], or no verdict within the request
//!   deadline) is answered 503 with `Retry-After`, not 401: the token may
//!   be fine, and a client told otherwise would discard it.
//!
//! Validation itself (JWT signatures, issuer, expiry; introspection) is
//! the [`Authenticator`]'s: proto carries no crypto. The audience is
//! checked here, for every authenticator: the accepted principal must name
//! the resource's canonical URI ([`Principal::audience`]), or the token is
//! answered 401 `invalid_token` (§ Token Handling).
//! stdio takes no tokens (the spec says stdio servers SHOULD NOT use OAuth
//! and take credentials from their environment): an application that
//! knows its stdio caller names it with
//! [`ServiceBuilder::stdio_principal`](crate::ServiceBuilder::stdio_principal),
//! and the scopes of tools, prompts and resources hold for that principal
//! as for a token's (refused with the same JSON-RPC error, without the
//! HTTP status). A request without a principal (stdio without one) is not
//! held to them.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use serde_json::{Map, Value};

use crate::handler::BoxFuture;
use crate::http::codec::Head;
use crate::registry::scopes::{Kind, Scopes};

/// Who is calling, as an [`Authenticator`] established it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Principal {
    /// The subject (`sub`): who the token was issued to act for.
    pub subject: String,
    /// The scopes the token grants.
    pub scopes: Vec<String>,
    /// The audiences the token was issued for (`aud`: RFC 7519 § 4.1.3,
    /// RFC 7662 § 2.2). A token is accepted only when they name the
    /// resource's canonical URI, whichever authenticator read it
    /// ([`Authorization::new`]).
    pub audience: Vec<String>,
    /// Other claims the application asked the authenticator to keep.
    pub claims: Map<String, Value>,
}

impl Principal {
    /// A principal with `subject` and `scopes`.
    pub fn new(
        subject: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Principal {
            subject: subject.into(),
            scopes: scopes.into_iter().map(Into::into).collect(),
            audience: Vec::new(),
            claims: Map::new(),
        }
    }

    /// The principal, for a token issued for `audience` (its `aud`). An
    /// authenticator of tokens that are by construction for this server
    /// alone (an API key it issued) names the `resource` it is given.
    pub fn audience(mut self, audience: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.audience.extend(audience.into_iter().map(Into::into));
        self
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}

/// Why an [`Authenticator`] refused a token: answered 401
/// `error="invalid_token"` with this description. Say what is wrong in
/// general terms (expired, wrong audience); never echo the token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection(pub String);

/// What an [`Authenticator`] decided about a token.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The token stands for this principal; the request goes on to the
    /// scope checks and admission.
    Accepted(Principal),
    /// The token is not valid: 401 `error="invalid_token"`.
    Rejected(Rejection),
    /// The validator cannot decide now: what it must ask (an
    /// introspection endpoint, a key set) is unreachable, failing or too
    /// slow. Answered `503 Service Unavailable` with `Retry-After:
    /// retry_after` (seconds) and a retryable JSON-RPC error
    /// ([`ErrorObject::unavailable`](crate::ErrorObject::unavailable)),
    /// never 401: a client told its token is invalid throws it away and
    /// starts its authorization flow again, for a fault that is the
    /// server's (RFC 9110 § 15.6.4).
    Unavailable {
        /// Seconds the client should wait before sending the request again.
        retry_after: u64,
    },
}

impl From<Result<Principal, Rejection>> for Verdict {
    fn from(r: Result<Principal, Rejection>) -> Self {
        match r {
            Ok(p) => Verdict::Accepted(p),
            Err(r) => Verdict::Rejected(r),
        }
    }
}

/// A verdict still being worked out: a future the adapter runs, on any
/// executor, while proto holds the request it is for.
pub type DeferredVerdict = BoxFuture<Verdict>;

/// What [`Authenticator::authenticate`] answers: the verdict now, or a
/// future of it.
pub enum Authentication {
    /// Decided on the connection's thread, from what the validator holds
    /// (a key, a cache): the request goes on at once.
    Ready(Verdict),
    /// The validator must fetch something first (introspect the token,
    /// load keys). proto holds the request, hands the future out as an
    /// [`Output::Invoke`](crate::Output::Invoke) of
    /// [`Request::Authenticate`](crate::Request::Authenticate) (run like
    /// any call; its outcome is [`Outcome::Authenticated`](crate::Outcome::Authenticated)),
    /// and carries on with the request when it comes back. See the
    /// driving contract in [`crate::connection`].
    Deferred(DeferredVerdict),
}

impl core::fmt::Debug for Authentication {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Authentication::Ready(v) => f.debug_tuple("Ready").field(v).finish(),
            Authentication::Deferred(_) => f.write_str("Deferred(..)"),
        }
    }
}

impl From<Result<Principal, Rejection>> for Authentication {
    fn from(r: Result<Principal, Rejection>) -> Self {
        Authentication::Ready(r.into())
    }
}

/// Validates bearer tokens. It runs on the connection's thread before
/// admission, so it must not block: a validator answers
/// [`Authentication::Ready`] from what it holds (static keys, a key set
/// refreshed in the background, a cache), and
/// [`Authentication::Deferred`] when it must ask the network first. A
/// deferred future is bounded by the request deadline
/// ([`HttpConfig::request_timeout`](crate::HttpConfig)): past it the
/// request is answered 503 with `Retry-After` and the future dropped.
///
/// Whatever it checks, an accepted token is then held to the audience
/// rule (`basic/authorization/index.mdx` § Token Handling: servers MUST
/// validate that a token was issued for them, RFC 8707 § 2): its
/// [`Principal::audience`] must name the canonical URI of the resource,
/// exactly, or the token is answered 401 `invalid_token`. That check is
/// the [`Authorization`]'s, made on every verdict, ready or deferred, so a
/// custom authenticator cannot skip it by omission: a principal that names
/// no audience is refused.
///
/// A closure `Fn(&str) -> Result<Principal, Rejection>` is a synchronous
/// authenticator.
pub trait Authenticator: Send + Sync + 'static {
    /// What `token`, presented to `resource` (the canonical URI given to
    /// [`Authorization::new`]), stands for, now or later. The token must
    /// not be logged, nor echoed in a [`Rejection`].
    fn authenticate(&self, token: &str, resource: &str) -> Authentication;
}

impl<F> Authenticator for F
where
    F: Fn(&str) -> Result<Principal, Rejection> + Send + Sync + 'static,
{
    fn authenticate(&self, token: &str, _resource: &str) -> Authentication {
        self(token).into()
    }
}

/// The authorization a service requires on HTTP.
#[derive(Clone)]
pub struct Authorization {
    resource: String,
    pub(crate) authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    required: Vec<String>,
    /// What each entry needs (`registry::scopes`).
    /// Shared with the service's list view, which reads the same table.
    pub(crate) scopes: Arc<Scopes>,
    /// Lists show every entry, also to callers that lack its scopes.
    pub(crate) list_unauthorized: bool,
    /// What each broader scope implies ([`scope_implies`](Self::scope_implies)).
    implied: BTreeMap<String, Vec<String>>,
    /// A template given to [`template_scopes`](Self::template_scopes) that
    /// does not parse, reported by the service's build.
    pub(crate) bad_template: Option<(String, String)>,
    authenticator: Arc<dyn Authenticator>,
    metadata_url: String,
    metadata_path: String,
}

impl core::fmt::Debug for Authorization {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Authorization")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("required", &self.required)
            .finish_non_exhaustive()
    }
}

/// The root well-known URI of RFC 9728 § 3.
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// Longest token looked at; longer ones are refused unread.
const MAX_TOKEN: usize = 8 * 1024;

impl Authorization {
    /// `resource` is the MCP endpoint's canonical URI (RFC 8707 § 2, say
    /// `https://mcp.example.com/mcp`): the audience tokens must be issued
    /// for, and where the metadata URL is derived from.
    pub fn new(resource: impl Into<String>, authenticator: impl Authenticator) -> Self {
        let resource = resource.into();
        let (origin, path) = split_uri(&resource);
        let path = path.trim_end_matches('/');
        let metadata_path = alloc::format!("{METADATA_PATH}{path}");
        Authorization {
            metadata_url: alloc::format!("{origin}{metadata_path}"),
            metadata_path,
            resource,
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            required: Vec::new(),
            scopes: Arc::default(),
            list_unauthorized: false,
            implied: BTreeMap::new(),
            bad_template: None,
            authenticator: Arc::new(authenticator),
        }
    }

    /// An authorization server that issues tokens for this resource
    /// (`authorization_servers` in the metadata).
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// `scopes_supported` in the metadata: the minimal set for basic use.
    pub fn scopes_supported(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Scopes every request needs; a token without them gets 403.
    pub fn require(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.required = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Scopes a call of the tool `name` needs, beyond
    /// [`require`](Self::require). A caller without them does not see the
    /// tool in `tools/list`, and a call of it is refused with 403
    /// `insufficient_scope` naming them (see the [module docs](self)).
    pub fn tool_scopes(
        self,
        name: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.scoped(Kind::Tool, name.into(), scopes)
    }

    /// Scopes the prompt `name` needs (to be listed, got, or have its
    /// arguments completed), beyond [`require`](Self::require).
    pub fn prompt_scopes(
        self,
        name: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.scoped(Kind::Prompt, name.into(), scopes)
    }

    /// Scopes the resource `uri` needs (exactly that URI: to be listed,
    /// read, or subscribed to), beyond [`require`](Self::require).
    pub fn resource_scopes(
        self,
        uri: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.scoped(Kind::Resource, uri.into(), scopes)
    }

    /// Scopes every URI the template `uri_template` matches needs (to be
    /// read or subscribed to; the template itself to be listed and have
    /// its variables completed), beyond [`require`](Self::require). A
    /// template that does not parse fails the service's build.
    pub fn template_scopes(
        mut self,
        uri_template: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        let template = uri_template.into();
        let scopes = scopes.into_iter().map(Into::into).collect();
        if let Err(reason) = Arc::make_mut(&mut self.scopes).set_template(template.clone(), scopes)
        {
            self.bad_template.get_or_insert((template, reason));
        }
        self
    }

    fn scoped(
        mut self,
        kind: Kind,
        key: String,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Arc::make_mut(&mut self.scopes).set(
            kind,
            key,
            scopes.into_iter().map(Into::into).collect(),
        );
        self
    }

    /// A token granted `broader` holds each of `narrower` too, and what
    /// they imply in turn (`basic/authorization/index.mdx` § Scope
    /// Challenge Handling: servers MUST account for scope hierarchies).
    /// Every check reads the implied scopes: the endpoint's
    /// [`require`](Self::require), each entry's, the lists, and
    /// [`Principal::scopes`] as handlers see it (the granted scopes first,
    /// then the implied ones); a challenge names only scopes that nothing
    /// held implies. Say it again to add to what `broader` implies.
    pub fn scope_implies(
        mut self,
        broader: impl Into<String>,
        narrower: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        let entry = self.implied.entry(broader.into()).or_default();
        for scope in narrower {
            let scope = scope.into();
            if !entry.contains(&scope) {
                entry.push(scope);
            }
        }
        self
    }

    /// List every tool, prompt, resource and template to every caller,
    /// also those it lacks the scopes of (a call of one is still refused
    /// with 403 `insufficient_scope`). By default a caller sees only what
    /// it may use; opt in when clients should discover what a broader
    /// grant would let them do.
    pub fn list_unauthorized(mut self) -> Self {
        self.list_unauthorized = true;
        self
    }

    /// The resource's canonical URI.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// Where the Protected Resource Metadata is served (the path-aware
    /// well-known URI), as `WWW-Authenticate` names it.
    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// Whether `path` is one of the two metadata URIs.
    pub(crate) fn is_metadata_path(&self, path: &str) -> bool {
        path == METADATA_PATH || path == self.metadata_path
    }

    /// The Protected Resource Metadata document (RFC 9728 § 2).
    pub(crate) fn metadata_document(&self) -> Vec<u8> {
        let mut doc = Map::new();
        doc.insert("resource".into(), Value::String(self.resource.clone()));
        let list = |v: &[String]| Value::Array(v.iter().cloned().map(Value::String).collect());
        // At least one: a service without is refused at build.
        doc.insert(
            "authorization_servers".into(),
            list(&self.authorization_servers),
        );
        if !self.scopes_supported.is_empty() {
            doc.insert("scopes_supported".into(), list(&self.scopes_supported));
        }
        doc.insert(
            "bearer_methods_supported".into(),
            Value::Array(alloc::vec![Value::String("header".into())]),
        );
        let mut out = Vec::new();
        crate::json::write(&mut out, &doc);
        out
    }

    /// Authenticate the request `head`: its principal or the challenge to
    /// answer with, now ([`Checked::Ready`]), or a future of the verdict
    /// that [`admit`](Self::admit) takes up when it is done.
    pub(crate) fn check(&self, head: &Head) -> Checked {
        let token = match head.count("authorization") {
            0 => return Checked::Ready(Err(Challenge::Missing)),
            1 => match bearer(head.get("authorization").unwrap_or_default()) {
                Ok(token) => token,
                Err(challenge) => return Checked::Ready(Err(challenge)),
            },
            _ => {
                let why = "Multiple Authorization headers";
                return Checked::Ready(Err(Challenge::Malformed(why)));
            }
        };
        match self.authenticator.authenticate(token, &self.resource) {
            Authentication::Ready(verdict) => Checked::Ready(self.admit(verdict)),
            Authentication::Deferred(future) => Checked::Deferred(future),
        }
    }

    /// What a verdict, ready or deferred, means for the request: its
    /// principal once it is for this resource and has the scopes every
    /// request needs, or the challenge. The one place both paths meet.
    pub(crate) fn admit(&self, verdict: Verdict) -> Result<Principal, Challenge> {
        let principal = match verdict {
            Verdict::Accepted(p) => p,
            Verdict::Rejected(r) => return Err(Challenge::Invalid(r.0)),
            Verdict::Unavailable { retry_after } => {
                return Err(Challenge::Unavailable(retry_after))
            }
        };
        // § Token Handling: a token issued for another resource is not
        // valid here, whoever checked its signature.
        if !principal.audience.contains(&self.resource) {
            let why = if principal.audience.is_empty() {
                "The token names no audience"
            } else {
                "The token was issued for another audience"
            };
            return Err(Challenge::Invalid(why.into()));
        }
        let principal = self.effective(principal);
        let missing = Scopes::missing(Some(&principal), &self.required);
        if !missing.is_empty() {
            return Err(Challenge::InsufficientScope(missing));
        }
        Ok(principal)
    }

    /// `principal` with every scope its grant implies
    /// ([`scope_implies`](Self::scope_implies)), transitively, after the
    /// ones it was granted. Applied where every verdict passes (and to the
    /// stdio principal at build), so each later check, the application's
    /// own [`Principal::has_scope`] included, sees one set.
    pub(crate) fn effective(&self, mut principal: Principal) -> Principal {
        if self.implied.is_empty() {
            return principal;
        }
        let mut i = 0;
        while i < principal.scopes.len() {
            if let Some(narrower) = self.implied.get(&principal.scopes[i]) {
                for scope in narrower {
                    if !principal.scopes.contains(scope) {
                        principal.scopes.push(scope.clone());
                    }
                }
            }
            i += 1;
        }
        principal
    }

    /// What `principal` may do of `dispatched`: it as it is, or
    /// [`Dispatch::Forbidden`](crate::dispatch::Dispatch::Forbidden) with
    /// every scope it lacks for what the request names (a tool, a prompt,
    /// a resource, the prompt or template a completion is for, the
    /// resources a listen stream subscribes to). Every era's request
    /// passes here once its target is known (`dispatch::route_args`), so
    /// no wire or session is left out. No principal holds no scope.
    pub(crate) fn authorize(
        &self,
        principal: Option<&Principal>,
        dispatched: crate::dispatch::Dispatch,
    ) -> crate::dispatch::Dispatch {
        use crate::dispatch::Dispatch;
        use crate::handler::Request;
        use crate::model::CompletionRef;
        let scopes = &self.scopes;
        let (id, missing) = match &dispatched {
            Dispatch::Invoke(admitted) => {
                let missing = match &admitted.request {
                    Request::CallTool { name, .. } => Scopes::missing(principal, scopes.tool(name)),
                    Request::GetPrompt { name, .. } => {
                        Scopes::missing(principal, scopes.prompt(name))
                    }
                    Request::ReadResource { uri, .. } => {
                        Scopes::missing(principal, scopes.resource(uri))
                    }
                    Request::Complete(c) => match &c.reference {
                        CompletionRef::Prompt { name } => {
                            Scopes::missing(principal, scopes.prompt(name))
                        }
                        CompletionRef::Resource { uri } => {
                            Scopes::missing(principal, scopes.completion_of(uri))
                        }
                    },
                    Request::Extension { .. } | Request::Authenticate => Vec::new(),
                };
                (&admitted.id, missing)
            }
            Dispatch::Listen { id, filter } => {
                let uris = filter.resource_subscriptions.iter().flatten();
                (id, self.missing_for_resources(principal, uris))
            }
            _ => return dispatched,
        };
        if missing.is_empty() {
            dispatched
        } else {
            Dispatch::Forbidden {
                id: id.clone(),
                missing,
            }
        }
    }

    /// The scopes reading every one of `uris` needs that `principal`
    /// lacks, each once (a subscription to a resource is a standing read).
    pub(crate) fn missing_for_resources<'a>(
        &self,
        principal: Option<&Principal>,
        uris: impl IntoIterator<Item = &'a String>,
    ) -> Vec<String> {
        let needed = uris.into_iter().flat_map(|uri| self.scopes.resource(uri));
        Scopes::missing(principal, needed)
    }

    /// The `WWW-Authenticate` line answering `challenge`.
    pub(crate) fn www_authenticate(&self, challenge: &Challenge) -> String {
        let mut h = String::from("WWW-Authenticate: Bearer ");
        let mut params: Vec<(&str, String)> = Vec::new();
        match challenge {
            Challenge::Missing => {}
            Challenge::Malformed(why) => {
                params.push(("error", "invalid_request".into()));
                params.push(("error_description", (*why).into()));
            }
            Challenge::Invalid(why) => {
                params.push(("error", "invalid_token".into()));
                params.push(("error_description", why.clone()));
            }
            Challenge::InsufficientScope(_) => {
                params.push(("error", "insufficient_scope".into()));
            }
            // Not a challenge: a 503 or 500 carries no `WWW-Authenticate`.
            Challenge::Unavailable(_) | Challenge::Failed => {}
        }
        let scope = match challenge {
            Challenge::InsufficientScope(missing) => missing.join(" "),
            _ => self.required.join(" "),
        };
        if !scope.is_empty() {
            params.push(("scope", scope));
        }
        params.push(("resource_metadata", self.metadata_url.clone()));
        for (i, (name, value)) in params.iter().enumerate() {
            if i > 0 {
                h.push_str(", ");
            }
            h.push_str(name);
            h.push_str("=\"");
            quote_into(&mut h, value);
            h.push('"');
        }
        h
    }
}

/// What [`Authorization::check`] found.
pub(crate) enum Checked {
    /// The principal, or the challenge to answer with.
    Ready(Result<Principal, Challenge>),
    /// The authenticator's verdict is still to come.
    Deferred(DeferredVerdict),
}

/// Why a request was not authenticated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Challenge {
    /// No bearer token: 401, no error code (RFC 6750 § 3.1).
    Missing,
    /// The `Authorization` header is malformed: 400 `invalid_request`.
    Malformed(&'static str),
    /// The authenticator refused the token: 401 `invalid_token`.
    Invalid(String),
    /// These scopes are missing: 403 `insufficient_scope`.
    InsufficientScope(Vec<String>),
    /// The authenticator could not decide (see [`Verdict::Unavailable`]):
    /// 503 with `Retry-After` of these seconds.
    Unavailable(u64),
    /// The authenticator's future ended without a verdict (it panicked):
    /// 500, the server's fault.
    Failed,
}

impl Challenge {
    pub(crate) fn status(&self) -> u16 {
        match self {
            Challenge::Missing | Challenge::Invalid(_) => 401,
            Challenge::Malformed(_) => 400,
            Challenge::InsufficientScope(_) => 403,
            Challenge::Unavailable(_) => 503,
            Challenge::Failed => 500,
        }
    }

    /// The JSON-RPC error message of the answer's body.
    pub(crate) fn message(&self) -> &'static str {
        match self {
            Challenge::Missing => "Unauthorized: a bearer token is required",
            Challenge::Invalid(_) => "Unauthorized: the bearer token is not valid",
            Challenge::Malformed(_) => "Bad Request: malformed Authorization header",
            Challenge::InsufficientScope(_) => "Forbidden: the token lacks a required scope",
            Challenge::Unavailable(_) => {
                "Service Unavailable: the bearer token cannot be checked now; retry later"
            }
            Challenge::Failed => "Internal error: the bearer token could not be checked",
        }
    }
}

/// The token of a `Bearer` credential (RFC 6750 § 2.1: the scheme is
/// case-insensitive; the token is a `b64token`).
fn bearer(value: &[u8]) -> Result<&str, Challenge> {
    let value = core::str::from_utf8(value)
        .map_err(|_| Challenge::Malformed("Authorization header is not UTF-8"))?;
    let (scheme, token) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        // Another scheme carries no bearer token.
        return Err(Challenge::Missing);
    }
    let token = token.trim_start_matches(' ');
    if token.is_empty() {
        return Err(Challenge::Malformed("Bearer credential without a token"));
    }
    if token.len() > MAX_TOKEN {
        return Err(Challenge::Invalid("The token is too large".into()));
    }
    let body = token.trim_end_matches('=');
    let b64token = !body.is_empty()
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
    if !b64token {
        return Err(Challenge::Malformed("The token is not a b64token"));
    }
    Ok(token)
}

/// `value` as the inside of a quoted-string: `"` and `\` escaped, control
/// characters (CR and LF above all: no header injection) dropped.
fn quote_into(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
}

/// `scheme://authority` and the path of an absolute URI.
fn split_uri(uri: &str) -> (&str, &str) {
    let after_scheme = uri.find("://").map_or(0, |i| i + 3);
    match uri[after_scheme..].find('/') {
        Some(i) => uri.split_at(after_scheme + i),
        None => (uri, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn auth() -> Authorization {
        Authorization::new("https://mcp.example.com/mcp", |t: &str| match t {
            "good" => Ok(Principal::new("alice", ["notes:read"]).audience([RESOURCE])),
            "elsewhere" => Ok(Principal::new("alice", ["notes:read"])
                .audience(["https://mcp.example.com/mcp/", "https://other.example"])),
            "nowhere" => Ok(Principal::new("alice", ["notes:read"])),
            _ => Err(Rejection("The token has expired".into())),
        })
        .require(["notes:read"])
    }

    const RESOURCE: &str = "https://mcp.example.com/mcp";

    #[test]
    fn a_token_for_another_audience_is_refused_whoever_accepted_it() {
        let a = auth();
        assert_eq!(
            check(&a, &head(&["Bearer elsewhere"])),
            Err(Challenge::Invalid(
                "The token was issued for another audience".into()
            ))
        );
        assert_eq!(
            check(&a, &head(&["Bearer nowhere"])),
            Err(Challenge::Invalid("The token names no audience".into()))
        );
        // A deferred verdict passes the same check.
        assert_eq!(
            a.admit(Verdict::Accepted(Principal::new("bob", ["notes:read"]))),
            Err(Challenge::Invalid("The token names no audience".into()))
        );
        let p = Principal::new("bob", ["notes:read"]).audience(["x", RESOURCE]);
        assert_eq!(a.admit(Verdict::Accepted(p)).unwrap().subject, "bob");
    }

    fn check(a: &Authorization, head: &Head) -> Result<Principal, Challenge> {
        match a.check(head) {
            Checked::Ready(r) => r,
            Checked::Deferred(_) => panic!("a synchronous authenticator deferred"),
        }
    }

    fn head(auth: &[&str]) -> Head {
        Head::new(
            "POST",
            "/mcp",
            1,
            auth.iter().map(|v| ("authorization", *v)),
        )
    }

    #[test]
    fn metadata_urls_follow_rfc_9728() {
        let a = auth();
        assert_eq!(
            a.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert!(a.is_metadata_path("/.well-known/oauth-protected-resource"));
        assert!(a.is_metadata_path("/.well-known/oauth-protected-resource/mcp"));
        assert!(!a.is_metadata_path("/mcp"));
        let root = Authorization::new("https://h.example", |_: &str| Err(Rejection("no".into())));
        assert_eq!(
            root.metadata_url(),
            "https://h.example/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive_and_the_token_checked() {
        let a = auth();
        assert_eq!(check(&a, &head(&["Bearer good"])).unwrap().subject, "alice");
        assert_eq!(check(&a, &head(&["bearer good"])).unwrap().subject, "alice");
        assert_eq!(check(&a, &head(&[])), Err(Challenge::Missing));
        assert_eq!(
            check(&a, &head(&["Basic dXNlcjpwdw=="])),
            Err(Challenge::Missing)
        );
        assert_eq!(
            check(&a, &head(&["Bearer good", "Bearer good"])),
            Err(Challenge::Malformed("Multiple Authorization headers"))
        );
        assert_eq!(
            check(&a, &head(&["Bearer a b"])),
            Err(Challenge::Malformed("The token is not a b64token"))
        );
        assert_eq!(
            check(&a, &head(&["Bearer bad"])),
            Err(Challenge::Invalid("The token has expired".into()))
        );
        let huge = alloc::format!("Bearer {}", "a".repeat(MAX_TOKEN + 1));
        assert_eq!(
            check(&a, &head(&[huge.as_str()])),
            Err(Challenge::Invalid("The token is too large".into()))
        );
    }

    #[test]
    fn challenges_are_escaped_and_carry_the_metadata_url() {
        let a = auth();
        assert_eq!(
            a.www_authenticate(&Challenge::Missing),
            "WWW-Authenticate: Bearer scope=\"notes:read\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
        );
        assert_eq!(
            a.www_authenticate(&Challenge::Invalid("bad \"quote\" \\ and\r\nX-Injected: 1".into())),
            "WWW-Authenticate: Bearer error=\"invalid_token\", error_description=\"bad \\\"quote\\\" \\\\ andX-Injected: 1\", scope=\"notes:read\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
        );
        assert_eq!(
            a.www_authenticate(&Challenge::InsufficientScope(vec!["a".into(), "b".into()])),
            "WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"a b\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
        );
    }

    #[test]
    fn an_implication_said_twice_adds_and_chains() {
        let a = auth()
            .scope_implies("notes:all", ["notes:write"])
            .scope_implies("notes:all", ["notes:read", "notes:write"])
            .scope_implies("notes:write", ["notes:draft"]);
        let p = a.effective(Principal::new("bob", ["notes:all"]));
        assert_eq!(
            p.scopes,
            ["notes:all", "notes:write", "notes:read", "notes:draft"]
        );
        // Nothing implies a broader scope from a narrower one.
        let p = a.effective(Principal::new("carol", ["notes:write"]));
        assert_eq!(p.scopes, ["notes:write", "notes:draft"]);
    }
}
