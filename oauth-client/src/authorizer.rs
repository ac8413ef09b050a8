//! [`OAuthClient`]: the [`Authorizer`] that runs MCP authorization when a
//! server challenges (`basic/authorization/index.mdx`).
//!
//! On a 401 it discovers (or rediscovers) the Protected Resource Metadata,
//! picks the first authorization server, validates that server's metadata,
//! gets a client identity there, and then either refreshes (same server, a
//! refresh token in hand) or runs the authorization code flow (or the
//! client credentials grant, for a client acting for itself). On a 403
//! `insufficient_scope` it re-authorizes with the union of the scopes
//! asked before and the challenged ones, a bounded number of times per
//! operation (§ Step-Up Authorization Flow). Everything bound to an
//! authorization server (client registrations, tokens) is keyed by its
//! issuer, so when the resource moves to another server nothing of the old
//! one is reused (`client-registration.mdx` § Authorization Server
//! Binding).
//!
//! It counts how many requests each token was handed to, which settles
//! three cases without asking the transport which token a refused request
//! carried: a token no request has carried yet answers a challenge at once
//! (a concurrent request was refused with the previous one); a whole
//! flow's token refused on its first use ends in an error, not another
//! flow; a refreshed token refused on its first use leads to a whole flow,
//! not another refresh. A failed flow leaves the token in force when the
//! same server issued it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use snodo_proto::client::auth::{Authorizer, AuthorizerError};
use url::Url;

use crate::assertion::AssertionSource;
use crate::challenge::{parse_bearer, split_scopes, BearerChallenge};
use crate::discovery::{
    fetch_resource_metadata, fetch_server_metadata, secure_url, ServerMetadata,
};
use crate::error::OAuthError;
use crate::flow::{
    authorization_code, authorization_request, parse_token_response, token_request, unix_now,
    Grant, Tokens,
};
use crate::http::HttpClient;
use crate::registration::{
    register, static_identity, ClientIdentity, ClientMetadata, PreRegistered,
};
use crate::user_agent::UserAgent;

/// Whom the client's tokens act for, and on what authority.
#[derive(Debug, Clone)]
pub enum GrantKind {
    /// A user, through the authorization code flow with PKCE and a
    /// [`UserAgent`].
    AuthorizationCode,
    /// The client itself (the `client_credentials` grant of the
    /// `io.modelcontextprotocol/oauth-client-credentials` extension), with
    /// pre-registered credentials; no user agent is involved.
    ClientCredentials,
    /// An identity from elsewhere, presented as a JWT bearer assertion
    /// (RFC 7523) with the pre-registered client id: a workload token, or
    /// an ID-JAG from the enterprise identity provider (see
    /// [`crate::assertion`]).
    JwtBearer(Arc<dyn AssertionSource>),
}

impl GrantKind {
    fn for_user(&self) -> bool {
        matches!(self, GrantKind::AuthorizationCode)
    }
}

/// How the client presents itself and what it asks for.
#[derive(Debug, Clone)]
pub struct OAuthConfig {
    /// The grant the client uses.
    pub grant: GrantKind,
    /// Name, redirect URI, metadata document URL, application type.
    pub client: ClientMetadata,
    /// Credentials registered out of band, if any.
    pub pre_registered: Option<PreRegistered>,
    /// Ask for `offline_access` (a refresh token) where the authorization
    /// server lists it in `scopes_supported`, and only there
    /// (§ Refresh Tokens).
    pub offline_access: bool,
    /// Step-up re-authorizations allowed for one challenged scope set at
    /// one endpoint before the client treats the failure as permanent.
    pub max_step_ups: u32,
}

impl OAuthConfig {
    /// A native client named `client_name` redirecting to `redirect_uri`,
    /// asking for refresh tokens, allowing two step-ups per operation.
    pub fn new(client_name: &str, redirect_uri: &str) -> Self {
        OAuthConfig {
            grant: GrantKind::AuthorizationCode,
            client: ClientMetadata {
                client_name: client_name.to_owned(),
                redirect_uri: redirect_uri.to_owned(),
                metadata_document_url: None,
                application_type: "native".to_owned(),
            },
            pre_registered: None,
            offline_access: true,
            max_step_ups: 2,
        }
    }
}

/// The OAuth 2.1 client of MCP authorization, as an [`Authorizer`].
///
/// One flow runs at a time: a challenge holds the client's state while it
/// talks to the servers, so concurrent requests wait for the one new token
/// instead of each starting a flow.
pub struct OAuthClient {
    http: Arc<dyn HttpClient>,
    agent: Box<dyn UserAgent>,
    config: OAuthConfig,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Per MCP endpoint: the authorization in force.
    sessions: HashMap<String, Session>,
    /// Per issuer: the client identity obtained there.
    identities: HashMap<String, ClientIdentity>,
    /// The issuer that pre-registered credentials without an issuer got
    /// bound to when first used.
    pre_registered_issuer: Option<String>,
    /// Step-ups done, per endpoint and challenged scope set.
    step_ups: HashMap<(String, Vec<String>), u32>,
}

struct Session {
    issuer: String,
    /// The validated metadata of the server that issued the token.
    server: ServerMetadata,
    /// The identity the token was issued to.
    identity: ClientIdentity,
    resource: String,
    /// The scopes requested for the current token.
    scopes: Vec<String>,
    tokens: Tokens,
    /// How the token was obtained.
    origin: Origin,
    /// How many requests it was handed to.
    sent: u32,
}

/// Where a session's token came from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// A whole flow (authorization code or client credentials).
    Flow,
    /// A refresh grant.
    Refresh,
}

/// What a challenge calls for.
enum Need {
    /// A 401: no token, or one the server no longer accepts.
    Token,
    /// A 403 `insufficient_scope`: these scopes on top of the current ones.
    StepUp(Vec<String>),
}

impl OAuthClient {
    /// A client sending its requests through `http` and its authorization
    /// requests through `agent`.
    pub fn new(http: Arc<dyn HttpClient>, agent: Box<dyn UserAgent>, config: OAuthConfig) -> Self {
        OAuthClient {
            http,
            agent,
            config,
            state: Mutex::new(State::default()),
        }
    }

    /// Answers one challenge: `Ok(true)` when a new token is in place.
    pub fn handle_challenge(
        &self,
        endpoint: &str,
        status: u16,
        www_authenticate: &[String],
    ) -> Result<bool, OAuthError> {
        let challenge = parse_bearer(www_authenticate).unwrap_or_default();
        let need = match status {
            401 => Need::Token,
            403 if challenge.insufficient_scope() => Need::StepUp(challenge.scopes()),
            _ => return Ok(false),
        };
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(session) = state.sessions.get(endpoint) {
            // A token no request has carried yet cannot be the one refused:
            // the request went out before another challenge's flow ended
            // (concurrent requests). Resending with it is the answer.
            let covers = match &need {
                Need::Token => true,
                Need::StepUp(scopes) => scopes.iter().all(|s| session.scopes.contains(s)),
            };
            if session.sent == 0 && covers {
                return Ok(true);
            }
        }
        if let (Need::Token, Some(session)) = (&need, state.sessions.get(endpoint)) {
            if session.origin == Origin::Flow && session.sent <= 1 {
                // The token a whole flow just produced was refused on its
                // first use: another flow would produce the same refusal,
                // and a transport that resends would loop through the
                // user agent without end.
                let issuer = session.issuer.clone();
                state.sessions.remove(endpoint);
                return Err(OAuthError::Token(format!(
                    "{endpoint} refused the token {issuer} just issued for it"
                )));
            }
        }
        if let Need::StepUp(scopes) = &need {
            let mut key_scopes = scopes.clone();
            key_scopes.sort();
            let count = state
                .step_ups
                .entry((endpoint.to_owned(), key_scopes))
                .or_insert(0);
            if *count >= self.config.max_step_ups {
                return Err(OAuthError::StepUpLimit(format!(
                    "{endpoint} still answers insufficient_scope for {:?} after {count} re-authorizations",
                    scopes.join(" ")
                )));
            }
            *count += 1;
        }
        self.authorize(&mut state, endpoint, &challenge, &need)?;
        Ok(true)
    }

    /// Runs the flow `need` calls for and puts its token in force. On
    /// failure the token in force before stays, if the same server issued
    /// it (a refused step-up leaves the operations it covered working); a
    /// token of another server never does.
    fn authorize(
        &self,
        state: &mut State,
        endpoint: &str,
        challenge: &BearerChallenge,
        need: &Need,
    ) -> Result<(), OAuthError> {
        let previous = state.sessions.remove(endpoint);
        match self.obtain(state, endpoint, challenge, need, previous.as_ref()) {
            Ok(session) => {
                if let (Need::Token, Origin::Flow) = (need, session.origin) {
                    // A token got through a 401: step-ups count afresh.
                    state.step_ups.retain(|(e, _), _| e != endpoint);
                }
                state.sessions.insert(endpoint.to_owned(), session);
                Ok(())
            }
            Err((e, same_server)) => {
                if let (Some(previous), true) = (previous, same_server) {
                    state.sessions.insert(endpoint.to_owned(), previous);
                }
                Err(e)
            }
        }
    }

    /// Discovery, registration and the grant. The error carries whether
    /// the authorization server is still the one of `previous`.
    fn obtain(
        &self,
        state: &mut State,
        endpoint: &str,
        challenge: &BearerChallenge,
        need: &Need,
        previous: Option<&Session>,
    ) -> Result<Session, (OAuthError, bool)> {
        let unchanged = |e: OAuthError| (e, true);
        let endpoint_url = Url::parse(endpoint)
            .map_err(|e| unchanged(OAuthError::Malformed(format!("endpoint {endpoint}: {e}"))))?;
        let resource_metadata = fetch_resource_metadata(
            self.http.as_ref(),
            &endpoint_url,
            challenge.resource_metadata.as_deref(),
        )
        .map_err(unchanged)?;
        let issuer = resource_metadata
            .authorization_servers
            .first()
            .ok_or((OAuthError::NoAuthorizationServer, true))?
            .clone();
        // What stays valid from before: only what this same server issued.
        let previous = previous.filter(|s| s.issuer == issuer);
        let same = previous.is_some();
        let fail = move |e: OAuthError| (e, same);

        let server = fetch_server_metadata(self.http.as_ref(), &issuer).map_err(fail)?;
        if self.config.grant.for_user() {
            // Refused before the server learns anything of the client.
            if !server.pkce_s256 {
                return Err(fail(OAuthError::PkceUnsupported));
            }
            if !secure_url(&self.config.client.redirect_uri) {
                return Err(fail(OAuthError::Insecure(
                    self.config.client.redirect_uri.clone(),
                )));
            }
        }

        // Scope selection (§ Scope Selection Strategy, § Step-Up).
        let mut scopes = match need {
            Need::StepUp(challenged) => challenged.clone(),
            Need::Token => match &challenge.scope {
                Some(scope) => split_scopes(scope),
                None => resource_metadata
                    .scopes_supported
                    .clone()
                    .unwrap_or_default(),
            },
        };
        if let Some(previous) = previous {
            scopes = union(&previous.scopes, &scopes);
        }
        // `offline_access` only for a user's tokens, where the server
        // lists it (§ Refresh Tokens), and only beside other scopes: a
        // selection that is empty omits `scope`, which leaves the server
        // its default scope, and `offline_access` alone would narrow that
        // to nothing.
        if self.config.offline_access
            && self.config.grant.for_user()
            && server.supports_scope("offline_access")
            && !scopes.is_empty()
        {
            scopes = union(&scopes, &["offline_access".to_owned()]);
        }

        let identity = self.identity(state, &server).map_err(fail)?;
        let resource = resource_metadata.resource;
        let session = |tokens, scopes, origin| Session {
            issuer: issuer.clone(),
            server: server.clone(),
            identity: identity.clone(),
            resource: resource.clone(),
            scopes,
            tokens,
            origin,
            sent: 0,
        };

        // A 401 at the same server with a refresh token: refresh first,
        // unless the token refused was a refresh's own, used once (a
        // second refresh would loop).
        if let (Need::Token, Some(previous)) = (need, previous) {
            let refused_at_once = previous.sent <= 1 && previous.origin == Origin::Refresh;
            if !refused_at_once {
                if let Some(tokens) = self.refresh(previous, &server, &identity, &resource) {
                    return Ok(session(tokens, previous.scopes.clone(), Origin::Refresh));
                }
            }
        }

        let tokens = match &self.config.grant {
            GrantKind::ClientCredentials => {
                let scope = scopes.join(" ");
                let grant = Grant::ClientCredentials {
                    scope: (!scope.is_empty()).then_some(scope.as_str()),
                };
                self.token(&server, &identity, &grant, &resource)
                    .map_err(fail)?
            }
            GrantKind::JwtBearer(source) => {
                let assertion = source
                    .assertion(self.http.as_ref(), &server.issuer, &resource)
                    .map_err(fail)?;
                let scope = scopes.join(" ");
                let grant = Grant::JwtBearer {
                    assertion: &assertion,
                    scope: (!scope.is_empty()).then_some(scope.as_str()),
                };
                self.token(&server, &identity, &grant, &resource)
                    .map_err(fail)?
            }
            GrantKind::AuthorizationCode => {
                let redirect_uri = &self.config.client.redirect_uri;
                let pending =
                    authorization_request(&server, &identity, redirect_uri, &scopes, &resource)
                        .map_err(fail)?;
                let redirect = self
                    .agent
                    .authorize(&pending.url, redirect_uri)
                    .map_err(fail)?;
                let code = authorization_code(&pending, &redirect).map_err(fail)?;
                let grant = Grant::AuthorizationCode {
                    code: &code,
                    verifier: &pending.pkce.verifier,
                    redirect_uri: &pending.redirect_uri,
                };
                self.token(&server, &identity, &grant, &resource)
                    .map_err(fail)?
            }
        };
        Ok(session(tokens, scopes, Origin::Flow))
    }

    /// One token request and its response.
    fn token(
        &self,
        server: &ServerMetadata,
        identity: &ClientIdentity,
        grant: &Grant<'_>,
        resource: &str,
    ) -> Result<Tokens, OAuthError> {
        let request = token_request(server, identity, grant, resource, unix_now())?;
        let response = self.http.send(&request)?;
        parse_token_response(&response, Instant::now())
    }

    /// A refresh grant with the session's refresh token, if it has one
    /// and the server grants it. OAuth 2.1 § 4.3.3: a response without a
    /// new refresh token leaves the old one in force.
    fn refresh(
        &self,
        session: &Session,
        server: &ServerMetadata,
        identity: &ClientIdentity,
        resource: &str,
    ) -> Option<Tokens> {
        let refresh = session.tokens.refresh_token.as_ref()?;
        let request = token_request(
            server,
            identity,
            &Grant::RefreshToken(refresh),
            resource,
            unix_now(),
        )
        .ok()?;
        let response = self.http.send(&request).ok()?;
        let mut tokens = parse_token_response(&response, Instant::now()).ok()?;
        tokens.refresh_token = tokens.refresh_token.or_else(|| Some(refresh.clone()));
        Some(tokens)
    }

    /// The client identity at `server`: the one obtained there before,
    /// else pre-registered or metadata-document identity, else a dynamic
    /// registration. Never one from another server.
    fn identity(
        &self,
        state: &mut State,
        server: &ServerMetadata,
    ) -> Result<ClientIdentity, OAuthError> {
        if let Some(id) = state.identities.get(&server.issuer) {
            return Ok(id.clone());
        }
        // A client acting for itself authenticates with a secret: a
        // metadata-document id (a public client) is not one.
        let public_off;
        let client = if !self.config.grant.for_user() {
            public_off = ClientMetadata {
                metadata_document_url: None,
                ..self.config.client.clone()
            };
            &public_off
        } else {
            &self.config.client
        };
        let id = match static_identity(
            self.config.pre_registered.as_ref(),
            state.pre_registered_issuer.as_deref(),
            client,
            server,
        ) {
            Some(id) => {
                if self
                    .config
                    .pre_registered
                    .as_ref()
                    .is_some_and(|p| p.client_id == id.client_id)
                {
                    state
                        .pre_registered_issuer
                        .get_or_insert_with(|| server.issuer.clone());
                }
                id
            }
            None if !self.config.grant.for_user() => {
                return Err(OAuthError::NoRegistration(format!(
                    "a client acting without a user needs credentials pre-registered at {}",
                    server.issuer
                )))
            }
            None => register(self.http.as_ref(), &self.config.client, server)?,
        };
        state.identities.insert(server.issuer.clone(), id.clone());
        Ok(id)
    }
}

fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    for s in b {
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    out
}

impl Authorizer for OAuthClient {
    /// The token in force for `endpoint`. One past its `expires_in` is
    /// refreshed first when a refresh token is at hand; if that fails the
    /// old token is still sent, and the server's 401 starts a new flow.
    fn authorization(&self, endpoint: &str) -> Option<String> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let session = state.sessions.get_mut(endpoint)?;
        let expired = session
            .tokens
            .expires_at
            .is_some_and(|t| t <= Instant::now());
        session.sent = session.sent.saturating_add(1);
        if expired {
            if let Some(tokens) = self.refresh(
                session,
                &session.server,
                &session.identity,
                &session.resource,
            ) {
                session.tokens = tokens;
            }
        }
        Some(format!("Bearer {}", session.tokens.access_token))
    }

    fn challenged(
        &self,
        endpoint: &str,
        status: u16,
        www_authenticate: &[String],
    ) -> Result<bool, AuthorizerError> {
        self.handle_challenge(endpoint, status, www_authenticate)
            .map_err(|e| AuthorizerError(e.to_string()))
    }
}
