//! The client side of the Model Context Protocol, sans-I/O: the mirror of
//! the server's [`Connection`](crate::Connection).
//!
//! A [`Client`] holds the state of one client: the operations in flight,
//! the protocol version in use, the tool catalog whose `x-mcp-header`
//! annotations the HTTP headers mirror, and for the initialize-era
//! revisions the session. The application (or a transport crate such as
//! `snodo-client`) drives it:
//!
//! - [`Client::request`] starts an *operation* and returns its [`OpId`].
//!   An operation outlives its JSON-RPC requests: a Multi Round-Trip
//!   Request (`basic/patterns/mrtr.mdx`) is retried under the same `OpId`
//!   with a fresh JSON-RPC `id` each round (§ Client Requirements, rule 3).
//! - [`Client::poll_transmit`] yields each message to send: its JSON body
//!   and, on Streamable HTTP, the header fields the transport must send
//!   with it (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
//!   `Mcp-Param-*`, `Mcp-Session-Id`).
//! - [`Client::handle_message`] takes every JSON-RPC message from the
//!   server (a JSON body, an SSE event's data, a stdio line);
//!   [`Client::handle_http_head`] and [`Client::stream_ended`] take what
//!   HTTP says beyond the body (a session id, a status without a JSON-RPC
//!   answer).
//! - [`Client::poll_event`] yields what happened: an operation
//!   [completed](Event::Completed), [failed](Event::Failed) or needs
//!   [input](Event::InputRequired) (answered with [`Client::answer`]), a
//!   [notification](Event::Notification), or in the initialize era a
//!   [request from the server](Event::ServerRequest) (answered with
//!   [`Client::respond`]).
//!
//! What the machine does by itself, because the spec asks every client
//! to: [`Client::connect`] probes a server with `server/discover` and,
//! when the answer (or its absence, which the transport reports with
//! [`Client::probe_unanswered`]) marks it as a server of the initialize
//! era, falls back to `initialize` under the same operation
//! (`basic/versioning.mdx` § Backward Compatibility); it answers
//! `-32022 UnsupportedProtocolVersion` with one retry in a version from
//! `data.supported` (`basic/versioning.mdx`); it drops tools
//! whose `x-mcp-header` annotations are invalid from `tools/list` over
//! HTTP ([`Event::ToolRejected`]) and, on a `-32020 HeaderMismatch`,
//! lists the tools again and retries once; it treats a result without
//! `resultType` as complete and one it does not recognize as invalid
//! (`basic/index.mdx` § ResultType); in the initialize era it sends
//! `notifications/initialized`, keeps the `Mcp-Session-Id`, and starts a
//! new session when a request carrying the old one is answered 404.
//! Subscriptions ([`Client::listen`]) tie each notification to the
//! operation that opened the stream; an extension the application
//! declares may add result types ([`Event::ExtensionResult`]) and
//! methods that mirror a field in `Mcp-Name`, and the core names none.
//!
//! It opens no socket and reads no clock: timeouts are the transport's.

use alloc::collections::{BTreeMap, VecDeque};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::{json, Map, Value};

use crate::error::code;
use crate::headers;
use catalog::Catalog;

pub mod auth;
mod catalog;
mod config;
pub mod exchange;
pub mod http;
mod outcome;
pub mod sse;

pub use auth::{Authorizer, AuthorizerError};
pub use config::{is_stateless, ClientConfig, Era, OpId, RequestOptions, Wire, SUPPORTED_VERSIONS};
pub use outcome::{AnswerError, ClientError, Event, MessageError};

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// What a [`Transmit`] carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransmitKind {
    /// A round of an operation; `id` is its JSON-RPC id, the key
    /// [`Client::stream_ended`] takes.
    Request {
        /// The operation.
        op: OpId,
        /// The JSON-RPC id of this round.
        id: u64,
    },
    /// A notification (`notifications/initialized`, `notifications/cancelled`).
    Notification,
    /// An answer to a server request of the initialize era.
    Response,
}

/// One message to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// What it is.
    pub kind: TransmitKind,
    /// The JSON-RPC method (`None` for a response).
    pub method: Option<String>,
    /// On [`Wire::Http`], the header fields to send with the POST besides
    /// `Host`, `Accept`, `Content-Type` and `Content-Length`; empty on stdio.
    pub headers: Vec<(String, String)>,
    /// The JSON-RPC message, without a line ending.
    pub body: Vec<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpState {
    /// A round is in flight under this JSON-RPC id.
    InFlight(u64),
    /// Waiting for [`Client::answer`].
    AwaitingInput,
    /// Waiting for what the client sent by itself: a `tools/list` after
    /// a `HeaderMismatch`, or the new session's `initialize`.
    Refreshing,
}

#[derive(Clone, Debug)]
struct Op {
    method: String,
    /// The params as the application gave them.
    params: Map<String, Value>,
    state: OpState,
    /// The `requestState` of the last `InputRequiredResult`, echoed only
    /// on this operation's next round (MRTR rules 2 and 4).
    request_state: Option<String>,
    /// The server sent `inputRequests` last round: the retry carries
    /// `inputResponses`.
    expects_responses: bool,
    /// `inputResponses` / `requestState` of the round in flight.
    mrtr: Map<String, Value>,
    /// `-32022` was answered once already.
    version_retried: bool,
    /// `-32020` was answered once already.
    header_retried: bool,
    /// An internal `tools/list` sent for this `tools/call`, not the
    /// application's: its outcome resends that call and is not reported.
    refresh_for: Option<OpId>,
    /// An `initialize` the client sent by itself after its session
    /// expired: its outcome resends (or fails) the calls that were
    /// refused, and is not reported.
    internal: bool,
    /// Resent once already after a session expired.
    session_retried: bool,
    progress: bool,
}

/// Which round [`Client::send_round`] sends.
enum Round {
    /// The first.
    First,
    /// A retry after `InputRequired`, with the application's responses
    /// when the server asked for some.
    Answer(Option<Map<String, Value>>),
    /// The round in flight once more, unchanged but for its id and version.
    Again,
}

/// What the server said about itself (`server/discover`, or the
/// `initialize` result).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerFacts {
    /// `serverInfo`, when sent.
    pub info: Option<Value>,
    /// `capabilities`.
    pub capabilities: Map<String, Value>,
    /// `supportedVersions` (`server/discover`).
    pub versions: Vec<String>,
}

/// The client machine. See the [module documentation](self).
#[derive(Debug)]
pub struct Client {
    config: ClientConfig,
    /// The revision in use.
    version: String,
    next_id: u64,
    next_op: u64,
    ops: BTreeMap<OpId, Op>,
    /// JSON-RPC id of a round in flight -> its operation.
    rounds: BTreeMap<u64, OpId>,
    transmits: VecDeque<Transmit>,
    events: VecDeque<Event>,
    /// The tools' header mirrors.
    catalog: Catalog,
    session_id: Option<String>,
    /// Initialize era: the `initialize` operation, until it completes.
    initializing: Option<OpId>,
    /// Calls refused with 404 on an expired session, resent once the new
    /// session is up.
    after_session: Vec<OpId>,
    server: ServerFacts,
    /// The `server/discover` of [`Client::connect`], until its answer
    /// tells the server's era.
    probe: Option<OpId>,
    /// The HTTP status of the probe's answer, once its head arrived.
    probe_status: Option<u16>,
    /// Why the client fell back to the initialize era, if it did.
    fallback: Option<ClientError>,
    /// The JSON-RPC id of a probe given up on for its silence: a
    /// `DiscoverResult` that still comes before the `initialize` result
    /// shows a modern server that was slow to start.
    late_probe: Option<u64>,
}

/// The codes this revision defines (`basic/index.mdx` § Error Codes): an
/// error with one of them comes from a modern server, whatever else it
/// says (`basic/versioning.mdx` § Backward Compatibility).
fn is_modern_error(code: i64) -> bool {
    matches!(
        code,
        code::HEADER_MISMATCH
            | code::MISSING_REQUIRED_CLIENT_CAPABILITY
            | code::UNSUPPORTED_PROTOCOL_VERSION
    )
}

/// Whether the HTTP status of an answer to the probe lets it mark the
/// server as legacy (`basic/transports/streamable-http.mdx` § Backward
/// Compatibility: a `4xx` without a modern error body). `None` is stdio,
/// which has no status. `400`, `404` (a legacy server that does not host
/// the endpoint) and `405` do, and a `2xx` carrying a JSON-RPC error;
/// `401`/`403` are about credentials, `5xx` about the server's health,
/// and neither says anything of its era: they surface as errors.
fn legacy_status(status: Option<u16>) -> bool {
    match status {
        None => true,
        Some(s) => (200..300).contains(&s) || matches!(s, 400 | 404 | 405),
    }
}

impl Client {
    /// A client with `config`. An empty or unsupported version list falls
    /// back to [`SUPPORTED_VERSIONS`]'s first.
    pub fn new(mut config: ClientConfig) -> Self {
        config
            .versions
            .retain(|v| SUPPORTED_VERSIONS.contains(&v.as_str()));
        if config.versions.is_empty() {
            config.versions.push(String::from(SUPPORTED_VERSIONS[0]));
        }
        let version = config.versions[0].clone();
        Client {
            config,
            version,
            next_id: 1,
            next_op: 1,
            ops: BTreeMap::new(),
            rounds: BTreeMap::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            catalog: Catalog::default(),
            session_id: None,
            initializing: None,
            after_session: Vec::new(),
            server: ServerFacts::default(),
            probe: None,
            probe_status: None,
            fallback: None,
            late_probe: None,
        }
    }

    /// Open the session as the configuration says: with a 2026-07-28
    /// revision first, the `server/discover` probe of
    /// `basic/transports/stdio.mdx` § Backward Compatibility (on
    /// Streamable HTTP the same request is the "modern request first" of
    /// `basic/transports/streamable-http.mdx` § Backward Compatibility);
    /// with an older one, `initialize`.
    ///
    /// The probe's outcome decides the era. A `DiscoverResult`, or a
    /// modern error (`-32020`, `-32021`, `-32022`, the last retried once
    /// in a version the server lists), means a modern server. Any other
    /// JSON-RPC error (`-32601`, `-32602`, `-32600`: the fallback is not
    /// keyed to one code), an HTTP `400`/`404`/`405` without a modern
    /// error, or no answer within the transport's probe wait
    /// ([`probe_unanswered`](Client::probe_unanswered)) means a legacy
    /// one: the same operation goes on as `initialize`, offering the
    /// newest initialize-era revision of the configuration, and completes
    /// with its result. With no such revision configured it fails with
    /// [`ClientError::LegacyServer`]. HTTP `401`/`403`, `5xx` and
    /// transport failures are errors, not a sign of the era. A
    /// `DiscoverResult` that comes after the wait but before the
    /// `initialize` result still wins: the server was modern and slow to
    /// start, and the operation completes with it.
    pub fn connect(&mut self) -> OpId {
        if !self.is_stateless() {
            return self.initialize();
        }
        let op = self.discover();
        self.probe = Some(op);
        self.probe_status = None;
        op
    }

    /// Whether the probe of [`connect`](Client::connect) still waits for
    /// its answer: the transport bounds that wait (stdio, where a legacy
    /// server may say nothing to a request before `initialize`).
    pub fn is_probing(&self) -> bool {
        self.probe.is_some()
    }

    /// Whether the probe is waiting and a legacy server would be met by
    /// falling back (the configuration lists an initialize-era revision):
    /// only then is the probe's wait worth bounding below the transport's
    /// own timeout, since a modern-only client has nothing to fall back to.
    pub fn can_fall_back(&self) -> bool {
        self.probe.is_some() && self.config.newest_legacy().is_some()
    }

    /// The probe got no answer within the wait the transport allows it
    /// (`basic/transports/stdio.mdx` § Backward Compatibility: "does not
    /// respond within a reasonable timeout"): the server is legacy, and
    /// the operation goes on as `initialize` (or fails, see
    /// [`connect`](Client::connect)). A late answer to the probe is
    /// ignored. Returns `false` when no probe was waiting.
    pub fn probe_unanswered(&mut self) -> bool {
        let Some(op) = self.probe else {
            return false;
        };
        if let Some(OpState::InFlight(id)) = self.ops.get(&op).map(|o| o.state) {
            self.rounds.remove(&id);
            self.late_probe = Some(id);
        }
        self.fall_back(op, None, None);
        true
    }

    /// The probe given up on by [`probe_unanswered`](Client::probe_unanswered)
    /// was answered with `result` after all. While the `initialize` that
    /// replaced it is unanswered, the server is modern after all, only
    /// slow to start (a server launched by a package runner, say): the
    /// `initialize` is abandoned (its answer, an error from a modern
    /// server, is then ignored), and the operation completes with this
    /// `DiscoverResult`. Once `initialize` has completed the server is
    /// dual-era and the session stays in the era it opened.
    fn probe_answered_late(&mut self, result: Value) {
        let Some(op) = self.initializing else {
            return;
        };
        if self.ops.get(&op).is_none_or(|o| o.internal) || !result.is_object() {
            return;
        }
        if let Some(OpState::InFlight(id)) = self.ops.get(&op).map(|o| o.state) {
            self.rounds.remove(&id);
        }
        self.initializing = None;
        self.fallback = None;
        self.version = self.config.versions[0].clone();
        if let Some(entry) = self.ops.get_mut(&op) {
            entry.method = String::from("server/discover");
            entry.params = Map::new();
        }
        self.on_result(op, result);
    }

    /// The era of the session: [`Era::Modern`] while the revision in use
    /// is 2026-07-28, [`Era::Legacy`] once `initialize` opened it.
    pub fn era(&self) -> Era {
        Era::of(&self.version)
    }

    /// What made [`connect`](Client::connect) fall back to `initialize`:
    /// the probe's error, or [`ClientError::NoResponse`] when it got no
    /// answer in time. `None` when the client did not fall back.
    pub fn fallback_cause(&self) -> Option<&ClientError> {
        self.fallback.as_ref()
    }

    /// The revision in use (after a `-32022` retry or `initialize`, the
    /// one the server accepted).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Whether requests carry their own `_meta` (no `initialize`).
    pub fn is_stateless(&self) -> bool {
        is_stateless(&self.version)
    }

    /// The initialize-era session id, once the server gave one.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The header fields of a request about the initialize-era session
    /// itself rather than a message: the GET that opens its stream and the
    /// DELETE that ends it (2025-11-25 `basic/transports.mdx` § Listening
    /// for Messages from the Server, § Session Management). `None` when
    /// there is no such session: on 2026-07-28, on stdio, or before the
    /// server gave an id.
    pub fn session_headers(&self) -> Option<Vec<(String, String)>> {
        if self.is_stateless() || self.config.wire != Wire::Http {
            return None;
        }
        let session = self.session_id.as_ref()?;
        Some(alloc::vec![
            ("MCP-Protocol-Version".into(), self.version.clone()),
            ("Mcp-Session-Id".into(), session.clone()),
        ])
    }

    /// What the server said about itself so far.
    pub fn server(&self) -> &ServerFacts {
        &self.server
    }

    /// Whether an operation is still in flight or waiting for input.
    pub fn is_live(&self, op: OpId) -> bool {
        self.ops.contains_key(&op)
    }

    /// Whether round `id` (a [`TransmitKind::Request`]'s id) still waits
    /// for its answer: a transport stops reading a response stream once
    /// it does not.
    pub fn is_pending(&self, id: u64) -> bool {
        self.rounds.contains_key(&id)
    }

    /// Start `method` with `params` (an object; `_meta` the application
    /// sets is kept, the protocol's keys are added).
    pub fn request(&mut self, method: &str, params: Value) -> OpId {
        self.request_with(method, params, RequestOptions::default())
    }

    /// [`request`](Client::request) with options.
    pub fn request_with(&mut self, method: &str, params: Value, options: RequestOptions) -> OpId {
        let op = OpId(self.next_op);
        self.next_op += 1;
        let params = match params {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        self.ops.insert(
            op,
            Op {
                method: String::from(method),
                params,
                state: OpState::AwaitingInput,
                request_state: None,
                expects_responses: false,
                mrtr: Map::new(),
                version_retried: false,
                header_retried: false,
                refresh_for: None,
                internal: false,
                session_retried: false,
                progress: options.progress,
            },
        );
        self.send_round(op, Round::First);
        op
    }

    /// `server/discover` (2026-07-28): the server's versions,
    /// capabilities and identity, recorded in [`server`](Client::server).
    pub fn discover(&mut self) -> OpId {
        self.request("server/discover", json!({}))
    }

    /// `subscriptions/listen` (`basic/patterns/subscriptions.mdx`): a
    /// long-lived request whose stream carries the notifications `filter`
    /// opts in to (`{"toolsListChanged": true, ...}`). Each comes back as
    /// [`Event::Notification`] with this operation's id, the
    /// acknowledgment first; the server ends it gracefully with a result
    /// ([`Event::Completed`]); [`cancel`](Client::cancel) ends it from
    /// this side.
    pub fn listen(&mut self, filter: Value) -> OpId {
        self.request("subscriptions/listen", json!({"notifications": filter}))
    }

    /// `initialize` (initialize era): offers the first configured
    /// revision; on success the client sends `notifications/initialized`
    /// and uses the version the server chose.
    pub fn initialize(&mut self) -> OpId {
        // A client that fell back offers the newest initialize-era
        // revision it allows, not its stateless first choice.
        let offer = match is_stateless(&self.config.versions[0]) {
            false => Some(self.config.versions[0].clone()),
            true => self.config.newest_legacy().map(String::from),
        };
        let offer = offer.unwrap_or_else(|| self.config.versions[0].clone());
        let params = self.initialize_params(&offer);
        let op = self.request("initialize", params);
        self.initializing = Some(op);
        op
    }

    fn initialize_params(&self, version: &str) -> Value {
        json!({
            "protocolVersion": version,
            "capabilities": self.config.capabilities,
            "clientInfo": self.config.client_info,
        })
    }

    /// The probe `op` marked the server as legacy (`why`: its error, or
    /// `None` for no answer): `op` goes on as `initialize` offering
    /// `offer`, else the newest initialize-era revision configured, or
    /// fails without one.
    fn fall_back(&mut self, op: OpId, why: Option<ClientError>, offer: Option<String>) {
        self.probe = None;
        self.probe_status = None;
        let newest = || self.config.newest_legacy().map(String::from);
        let Some(version) = offer.or_else(newest) else {
            let probe = why.map(alloc::boxed::Box::new);
            return self.fail(op, ClientError::LegacyServer { probe });
        };
        let params = match self.initialize_params(&version) {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let Some(entry) = self.ops.get_mut(&op) else {
            return;
        };
        entry.method = String::from("initialize");
        entry.params = params;
        entry.version_retried = false;
        entry.request_state = None;
        entry.mrtr = Map::new();
        // The era is the server's (§ Backward Compatibility: cache it for
        // the server process or origin): every later request of this
        // client speaks the initialize-era dialect of `version`, until
        // the server's `initialize` result names the one it chose.
        self.version = version;
        self.session_id = None;
        self.fallback = Some(why.unwrap_or(ClientError::NoResponse));
        self.initializing = Some(op);
        self.send_round(op, Round::First);
    }

    /// Retry an operation that got [`Event::InputRequired`], with the
    /// application's answer to each input request (keyed as the server
    /// keyed them). The retry carries `inputResponses` when the server
    /// sent `inputRequests`, and `requestState` exactly as received when
    /// it sent one, never otherwise (`basic/patterns/mrtr.mdx` § Client
    /// Requirements).
    pub fn answer(&mut self, op: OpId, responses: Map<String, Value>) -> Result<(), AnswerError> {
        let entry = self.ops.get(&op).ok_or(AnswerError::UnknownOp)?;
        if entry.state != OpState::AwaitingInput {
            return Err(AnswerError::NotWaiting);
        }
        let responses = entry.expects_responses.then_some(responses);
        self.send_round(op, Round::Answer(responses));
        Ok(())
    }

    /// Answer a [server request](Event::ServerRequest) with a result or an
    /// error object.
    pub fn respond(&mut self, id: Value, outcome: Result<Value, crate::ErrorObject>) {
        let message = match outcome {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}),
        };
        let headers = self.http_headers(None, &message);
        self.transmits.push_back(Transmit {
            kind: TransmitKind::Response,
            method: None,
            headers,
            body: message.to_string().into_bytes(),
        });
    }

    /// Cancel an operation (`basic/patterns/cancellation.mdx`). On stdio,
    /// and on HTTP before 2026-07-28, a `notifications/cancelled` is
    /// queued; on Streamable HTTP 2026-07-28 closing the response stream
    /// is the signal, so the JSON-RPC id of the round to close is
    /// returned. The operation ends with no event; later answers to it
    /// are ignored.
    pub fn cancel(&mut self, op: OpId, reason: Option<&str>) -> Option<u64> {
        let entry = self.ops.remove(&op)?;
        if self.probe == Some(op) {
            self.probe = None;
        }
        if self.initializing == Some(op) {
            self.initializing = None;
        }
        let OpState::InFlight(id) = entry.state else {
            return None;
        };
        self.rounds.remove(&id);
        if self.config.wire == Wire::Http && self.is_stateless() {
            return Some(id);
        }
        let mut params = json!({"requestId": id});
        if let Some(reason) = reason {
            params["reason"] = Value::from(reason);
        }
        self.notify("notifications/cancelled", params);
        None
    }

    /// The next message to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// The head of the HTTP response to `round` (a
    /// [`TransmitKind::Request`]'s id; `None` for a notification or
    /// response). In the initialize era (2025-11-25
    /// `basic/transports.mdx` § Session Management) the `Mcp-Session-Id`
    /// the server assigns is sent on every later request, and a 404 to a
    /// request that carried one means the session is gone: the client
    /// MUST start a new one, so it sends `initialize` again by itself and
    /// resends the refused call once that completes.
    pub fn handle_http_head(&mut self, round: Option<u64>, head: &http::ResponseHead) {
        if let (Some(probe), Some(id)) = (self.probe, round) {
            if self.rounds.get(&id) == Some(&probe) {
                self.probe_status = Some(head.status);
            }
        }
        if self.is_stateless() {
            return;
        }
        if head.status == 404 && self.session_id.is_some() {
            // Once per call: a server that refuses every new session too
            // fails the call with its 404 instead of looping.
            let op = round.and_then(|id| self.rounds.get(&id).copied());
            if let Some((id, op)) = round.zip(op) {
                let entry = self.ops.get_mut(&op);
                if entry
                    .as_ref()
                    .is_some_and(|e| !e.session_retried && !e.internal)
                {
                    if let Some(e) = entry {
                        e.session_retried = true;
                    }
                    self.rounds.remove(&id);
                    self.session_id = None;
                    self.session_expired(op);
                    return;
                }
            }
        }
        if let Some(id) = head.get("mcp-session-id") {
            if !id.is_empty() && id.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
                self.session_id = Some(String::from(id));
            }
        }
    }

    /// The response to round `id` ended (the HTTP body, or the stdio
    /// stream) with `status` (200 for stdio). A round still unanswered
    /// fails: with the status when it is an error, else as
    /// [`ClientError::NoResponse`].
    pub fn stream_ended(&mut self, id: u64, status: u16) {
        let Some(op) = self.rounds.remove(&id) else {
            return;
        };
        let error = if status >= 300 {
            ClientError::Http { status }
        } else {
            ClientError::NoResponse
        };
        // `basic/transports/streamable-http.mdx` § Backward
        // Compatibility: a 400 whose body is empty or not a JSON-RPC
        // answer, and the 404/405 of a server without the modern
        // endpoint, mark a legacy server.
        if self.probe == Some(op) && matches!(status, 400 | 404 | 405) {
            return self.fall_back(op, Some(error), None);
        }
        self.fail(op, error);
    }

    /// The JSON body of the HTTP answer to round `round`: as
    /// [`handle_message`](Client::handle_message), except that an error
    /// response without an id (`"id": null` or none, which Streamable
    /// HTTP allows for a request refused before it was read, e.g. § Security
    /// & Endpoint's 403) is that round's error.
    pub fn handle_answer(&mut self, round: u64, bytes: &[u8]) -> Result<(), MessageError> {
        let value: Value = serde_json::from_slice(bytes).map_err(|_| MessageError::NotJsonRpc)?;
        let anonymous_error = value.get("error").is_some()
            && value.get("id").is_none_or(Value::is_null)
            && value.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
        if anonymous_error && self.rounds.contains_key(&round) {
            let mut value = value;
            value["id"] = Value::from(round);
            return self.handle_value(value);
        }
        match value {
            Value::Array(items) => self.handle_batch(items),
            other => self.handle_value(other),
        }
    }

    /// One JSON-RPC message (or batch) from the server.
    pub fn handle_message(&mut self, bytes: &[u8]) -> Result<(), MessageError> {
        let value: Value = serde_json::from_slice(bytes).map_err(|_| MessageError::NotJsonRpc)?;
        match value {
            Value::Array(items) => self.handle_batch(items),
            other => self.handle_value(other),
        }
    }

    fn handle_batch(&mut self, items: Vec<Value>) -> Result<(), MessageError> {
        let mut result = Ok(());
        for item in items {
            if let Err(e) = self.handle_value(item) {
                result = Err(e);
            }
        }
        result
    }

    fn handle_value(&mut self, msg: Value) -> Result<(), MessageError> {
        let Value::Object(mut obj) = msg else {
            return Err(MessageError::NotJsonRpc);
        };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(MessageError::NotJsonRpc);
        }
        if let Some(method) = obj.get("method").and_then(Value::as_str) {
            let method = String::from(method);
            if let Some(id) = obj.remove("id") {
                let params = obj.remove("params").unwrap_or(Value::Null);
                self.events
                    .push_back(Event::ServerRequest { id, method, params });
            } else {
                let op = self.related_op(&obj);
                self.events.push_back(Event::Notification {
                    op,
                    message: Value::Object(obj),
                });
            }
            return Ok(());
        }
        let id = obj
            .get("id")
            .and_then(Value::as_u64)
            .ok_or(MessageError::UnknownId)?;
        if self.late_probe == Some(id) && self.initializing.is_some() {
            self.late_probe = None;
            if let Some(result) = obj.remove("result") {
                self.probe_answered_late(result);
            }
            return Ok(());
        }
        let op = self.rounds.remove(&id).ok_or(MessageError::UnknownId)?;
        if let Some(error) = obj.remove("error") {
            self.on_error(op, error);
        } else if let Some(result) = obj.remove("result") {
            self.on_result(op, result);
        } else {
            self.fail(
                op,
                ClientError::Malformed(String::from("neither result nor error")),
            );
        }
        Ok(())
    }

    /// The operation a notification belongs to: the progress token of an
    /// operation that asked for progress, or the subscription id (the
    /// JSON-RPC id of its `subscriptions/listen` round,
    /// `basic/patterns/subscriptions.mdx` § Receiving Notifications).
    fn related_op(&self, obj: &Map<String, Value>) -> Option<OpId> {
        let params = obj.get("params")?;
        if let Some(token) = params.get("progressToken").and_then(Value::as_u64) {
            let op = OpId(token);
            return self.ops.get(&op).filter(|o| o.progress).map(|_| op);
        }
        let id = params.get("_meta")?.get(META_SUBSCRIPTION_ID)?.as_u64()?;
        let op = *self.rounds.get(&id)?;
        (self.ops.get(&op)?.method == "subscriptions/listen").then_some(op)
    }

    fn fail(&mut self, op: OpId, error: ClientError) {
        let removed = self.ops.remove(&op);
        if let Some(waiting) = removed.as_ref().and_then(|o| o.refresh_for) {
            // The refresh failed: the call goes again as it was, and its
            // own outcome is what the application sees.
            self.send_round(waiting, Round::Again);
            return;
        }
        if self.initializing == Some(op) {
            self.initializing = None;
        }
        if self.probe == Some(op) {
            self.probe = None;
        }
        if removed.as_ref().is_some_and(|o| o.internal) {
            return self.session_restored(Err(error));
        }
        self.events.push_back(Event::Failed { op, error });
    }

    fn on_error(&mut self, op: OpId, error: Value) {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let data = error.get("data").cloned();
        if self.probe == Some(op) && !is_modern_error(code) && legacy_status(self.probe_status) {
            // `basic/transports/stdio.mdx` § Backward Compatibility: any
            // error that is not a recognized modern one marks a legacy
            // server (commonly `-32601` or `-32602`, but the fallback is
            // not keyed to one code).
            let why = ClientError::Rpc {
                code,
                message,
                data,
            };
            return self.fall_back(op, Some(why), None);
        }
        if code == code::UNSUPPORTED_PROTOCOL_VERSION {
            // `basic/versioning.mdx` § Protocol Version Negotiation: retry
            // once with a version from `data.supported` this client speaks.
            let retried = self.ops.get(&op).is_some_and(|o| o.version_retried);
            let supported = data
                .as_ref()
                .and_then(|d| d.get("supported"))
                .and_then(Value::as_array);
            // Outside the probe, only a stateless revision: an
            // initialize-era one is not spoken by retrying a request but
            // by a handshake, which only the probe may start.
            let probing = self.probe == Some(op);
            let pick = supported.and_then(|list| {
                self.config
                    .versions
                    .iter()
                    .filter(|v| probing || is_stateless(v))
                    .find(|v| list.iter().any(|s| s.as_str() == Some(v.as_str())))
                    .cloned()
            });
            if let (false, Some(version)) = (retried, pick) {
                if self.probe == Some(op) && !is_stateless(&version) {
                    // A modern server whose only revision in common with
                    // this client is of the initialize era: that revision
                    // is spoken the only way it can be, by `initialize`
                    // offering it.
                    let why = ClientError::Rpc {
                        code,
                        message,
                        data,
                    };
                    return self.fall_back(op, Some(why), Some(version));
                }
                self.version = version;
                if let Some(o) = self.ops.get_mut(&op) {
                    o.version_retried = true;
                    self.send_round(op, Round::Again);
                    return;
                }
            }
        }
        if code == code::HEADER_MISMATCH && self.config.wire == Wire::Http {
            // § Custom Headers, Client Behavior: on HeaderMismatch the
            // client SHOULD list the tools again (the schema may have
            // changed) and retry with the headers it then computes. Once.
            if let Some(o) = self.ops.get_mut(&op) {
                if o.method == "tools/call" && !o.header_retried && o.refresh_for.is_none() {
                    o.header_retried = true;
                    o.state = OpState::Refreshing;
                    self.refresh_tools(op, None);
                    return;
                }
            }
        }
        self.fail(
            op,
            ClientError::Rpc {
                code,
                message,
                data,
            },
        );
    }

    fn on_result(&mut self, op: OpId, result: Value) {
        if !self.ops.contains_key(&op) {
            return;
        }
        let Value::Object(mut result) = result else {
            return self.fail(
                op,
                ClientError::Malformed(String::from("result is not an object")),
            );
        };
        // A result without `resultType` is complete (`basic/index.mdx`).
        let kind = result
            .get("resultType")
            .and_then(Value::as_str)
            .unwrap_or("complete");
        // `basic/index.mdx` § ResultType: the core's values, those of the
        // extensions the client declared, and nothing else.
        match kind {
            "complete" | "input_required" => {}
            other if self.config.result_types.iter().any(|t| t == other) => {
                let result_type = String::from(other);
                self.ops.remove(&op);
                let result = Value::Object(result);
                self.events.push_back(Event::ExtensionResult {
                    op,
                    result_type,
                    result,
                });
                return;
            }
            other => {
                let why = format!("unrecognized resultType {other:?}");
                return self.fail(op, ClientError::Malformed(why));
            }
        }
        let Some(entry) = self.ops.get_mut(&op) else {
            return;
        };
        if kind == "input_required" {
            if !matches!(
                entry.method.as_str(),
                "tools/call" | "prompts/get" | "resources/read"
            ) {
                let why = format!("input_required on {}", entry.method);
                return self.fail(op, ClientError::Malformed(why));
            }
            let state = match result.remove("requestState") {
                None => None,
                Some(Value::String(s)) => Some(s),
                Some(_) => {
                    let why = String::from("requestState is not a string");
                    return self.fail(op, ClientError::Malformed(why));
                }
            };
            let requests = match result.remove("inputRequests") {
                None => None,
                Some(Value::Object(m)) => Some(m),
                Some(_) => {
                    let why = String::from("inputRequests is not an object");
                    return self.fail(op, ClientError::Malformed(why));
                }
            };
            if state.is_none() && requests.is_none() {
                let why =
                    String::from("input_required with neither inputRequests nor requestState");
                return self.fail(op, ClientError::Malformed(why));
            }
            entry.state = OpState::AwaitingInput;
            entry.request_state = state;
            entry.expects_responses = requests.is_some();
            self.events.push_back(Event::InputRequired {
                op,
                requests: requests.unwrap_or_default(),
            });
            return;
        }
        let method = entry.method.clone();
        let refresh_for = entry.refresh_for;
        let internal = entry.internal;
        self.ops.remove(&op);
        if let Some(waiting) = refresh_for {
            self.record_tools(&mut result);
            let name = self
                .ops
                .get(&waiting)
                .and_then(|w| w.params.get("name"))
                .and_then(Value::as_str);
            let known = name.is_some_and(|n| self.catalog.knows(n));
            match next_cursor(&Value::Object(result)) {
                Some(cursor) if !known => {
                    let cursor = String::from(cursor);
                    self.refresh_tools(waiting, Some(cursor));
                }
                _ => self.send_round(waiting, Round::Again),
            }
            return;
        }
        match method.as_str() {
            "tools/list" => self.record_tools(&mut result),
            "server/discover" => {
                if self.probe == Some(op) {
                    self.probe = None;
                }
                self.record_discover(&result);
            }
            "initialize" => {
                let outcome = self.record_initialize(&result);
                if internal {
                    return self.session_restored(outcome);
                }
                if let Err(error) = outcome {
                    self.initializing = None;
                    self.events.push_back(Event::Failed { op, error });
                    return;
                }
            }
            _ => {}
        }
        self.events.push_back(Event::Completed {
            op,
            result: Value::Object(result),
        });
    }

    /// Remember the tools' header mirrors, dropping invalid ones on HTTP
    /// with an [`Event::ToolRejected`] each.
    fn record_tools(&mut self, result: &mut Map<String, Value>) {
        let events = &mut self.events;
        self.catalog
            .record(result, self.config.wire, |name, reason| {
                events.push_back(Event::ToolRejected { name, reason });
            });
    }

    fn record_discover(&mut self, result: &Map<String, Value>) {
        self.server.info = result.get("serverInfo").cloned().or_else(|| {
            result
                .get("_meta")?
                .get("io.modelcontextprotocol/serverInfo")
                .cloned()
        });
        if let Some(Value::Object(caps)) = result.get("capabilities") {
            self.server.capabilities = caps.clone();
        }
        if let Some(Value::Array(list)) = result.get("supportedVersions") {
            self.server.versions = list
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect();
            // Prefer a version both sides speak, in this client's order;
            // a stateless one, as this answer is (a legacy revision is
            // spoken after `initialize`, never per request).
            if !self.server.versions.contains(&self.version) {
                if let Some(v) = self
                    .config
                    .versions
                    .iter()
                    .find(|v| is_stateless(v) && self.server.versions.contains(v))
                {
                    self.version = v.clone();
                }
            }
        }
    }

    /// `basic/lifecycle.mdx` (2025-11-25) § Version Negotiation: the
    /// server's choice must be one this client speaks; then
    /// `notifications/initialized`.
    fn record_initialize(&mut self, result: &Map<String, Value>) -> Result<(), ClientError> {
        self.initializing = None;
        let chosen = result
            .get("protocolVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !SUPPORTED_VERSIONS.contains(&chosen) || is_stateless(chosen) {
            return Err(ClientError::UnsupportedVersion(String::from(chosen)));
        }
        self.version = String::from(chosen);
        self.server.info = result.get("serverInfo").cloned();
        if let Some(Value::Object(caps)) = result.get("capabilities") {
            self.server.capabilities = caps.clone();
        }
        self.notify("notifications/initialized", json!({}));
        Ok(())
    }

    /// An internal `tools/list` page for the call `waiting`.
    fn refresh_tools(&mut self, waiting: OpId, cursor: Option<String>) {
        let op = OpId(self.next_op);
        self.next_op += 1;
        let mut params = Map::new();
        if let Some(cursor) = cursor {
            params.insert("cursor".into(), Value::String(cursor));
        }
        self.ops.insert(
            op,
            Op {
                method: String::from("tools/list"),
                params,
                state: OpState::AwaitingInput,
                request_state: None,
                expects_responses: false,
                mrtr: Map::new(),
                version_retried: false,
                header_retried: false,
                refresh_for: Some(waiting),
                internal: false,
                session_retried: false,
                progress: false,
            },
        );
        self.send_round(op, Round::First);
    }

    /// Park `op` until a new session is up, starting one unless an
    /// `initialize` is already in flight.
    fn session_expired(&mut self, op: OpId) {
        if let Some(entry) = self.ops.get_mut(&op) {
            entry.state = OpState::Refreshing;
        }
        self.after_session.push(op);
        if self.initializing.is_none() {
            let init = self.initialize();
            if let Some(entry) = self.ops.get_mut(&init) {
                entry.internal = true;
            }
        }
    }

    /// The new session is up (`Ok`) or could not be had: resend or fail
    /// the calls that waited for it.
    fn session_restored(&mut self, outcome: Result<(), ClientError>) {
        for op in core::mem::take(&mut self.after_session) {
            match &outcome {
                Ok(()) => self.send_round(op, Round::Again),
                Err(error) => {
                    self.ops.remove(&op);
                    let error = error.clone();
                    self.events.push_back(Event::Failed { op, error });
                }
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let headers = self.http_headers(Some(method), &message);
        self.transmits.push_back(Transmit {
            kind: TransmitKind::Notification,
            method: Some(String::from(method)),
            headers,
            body: message.to_string().into_bytes(),
        });
    }

    /// Send a round of `op` under a fresh JSON-RPC id: its params, the
    /// protocol's `_meta`, and the MRTR fields this round carries.
    fn send_round(&mut self, op: OpId, round: Round) {
        let id = self.next_id;
        self.next_id += 1;
        let stateless = self.is_stateless();
        let Some(entry) = self.ops.get_mut(&op) else {
            return;
        };
        let mut params = entry.params.clone();
        if stateless || entry.progress {
            let meta = params
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(meta) = meta {
                if stateless {
                    meta.insert(META_VERSION.into(), Value::from(self.version.as_str()));
                    meta.insert(META_CLIENT_INFO.into(), self.config.client_info.clone());
                    meta.insert(
                        META_CAPABILITIES.into(),
                        Value::Object(self.config.capabilities.clone()),
                    );
                }
                if entry.progress {
                    meta.insert("progressToken".into(), Value::from(op.0));
                }
            }
        }
        match round {
            Round::First => entry.mrtr = Map::new(),
            Round::Answer(responses) => {
                entry.mrtr = Map::new();
                if let Some(responses) = responses {
                    entry
                        .mrtr
                        .insert("inputResponses".into(), Value::Object(responses));
                }
                if let Some(state) = entry.request_state.take() {
                    entry
                        .mrtr
                        .insert("requestState".into(), Value::String(state));
                }
            }
            // The same round again (a version retry): the same MRTR fields.
            Round::Again => {}
        }
        for (k, v) in &entry.mrtr {
            params.insert(k.clone(), v.clone());
        }
        entry.expects_responses = false;
        entry.state = OpState::InFlight(id);
        let method = entry.method.clone();
        let message = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": method,
            "params": params,
        });
        self.rounds.insert(id, op);
        let headers = self.http_headers(Some(&method), &message);
        self.transmits.push_back(Transmit {
            kind: TransmitKind::Request { op, id },
            method: Some(method),
            headers,
            body: message.to_string().into_bytes(),
        });
    }

    /// The header mirrors of one POST (`basic/transports/streamable-http.mdx`
    /// § Request Metadata): `MCP-Protocol-Version` (in the initialize era
    /// once negotiated), `Mcp-Method`, `Mcp-Name` for the named methods,
    /// `Mcp-Param-*` for a known tool's annotated arguments, and the
    /// session id.
    fn http_headers(&self, method: Option<&str>, message: &Value) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if self.config.wire != Wire::Http {
            return out;
        }
        if self.is_stateless() || (self.initializing.is_none() && method != Some("initialize")) {
            out.push(("MCP-Protocol-Version".into(), self.version.clone()));
        }
        if let Some(session) = &self.session_id {
            out.push(("Mcp-Session-Id".into(), session.clone()));
        }
        let Some(method) = method else {
            return out;
        };
        out.push(("Mcp-Method".into(), String::from(method)));
        let params = &message["params"];
        let name = match method {
            "tools/call" | "prompts/get" => params["name"].as_str(),
            "resources/read" => params["uri"].as_str(),
            // An extension's methods name their subject the same way.
            other => self
                .config
                .named_methods
                .iter()
                .find(|(m, _)| m == other)
                .and_then(|(_, field)| params[field.as_str()].as_str()),
        };
        if let Some(name) = name {
            out.push(("Mcp-Name".into(), headers::encode_value(name).into_owned()));
        }
        if method == "tools/call" {
            if let (Some(name), Some(Value::Object(args))) = (name, params.get("arguments")) {
                out.extend(self.catalog.param_headers(name, args));
            }
        }
        out
    }
}

/// The `nextCursor` of a list result, when there is a next page
/// (`server/utilities/pagination.mdx`).
pub fn next_cursor(result: &Value) -> Option<&str> {
    result.get("nextCursor").and_then(Value::as_str)
}

#[cfg(test)]
mod tests;
