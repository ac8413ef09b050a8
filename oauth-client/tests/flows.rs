//! OAuthClient against scripted servers: every metadata document, token
//! response and redirect below is written out literally, as the
//! authorization and resource servers would send it; the test then reads
//! the requests the client made.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};
use snodo_oauth_client::assertion::{IdJagExchange, WorkloadToken};
use snodo_oauth_client::{
    GrantKind, HttpClient, HttpError, HttpRedirectAgent, HttpRequest, HttpResponse, Method,
    OAuthClient, OAuthConfig, PreRegistered,
};
use snodo_proto::client::auth::Authorizer;
use url::Url;

type Handler = Box<dyn Fn(&HttpRequest) -> HttpResponse + Send + Sync>;

/// Routes by method and URL without its query; records every request.
#[derive(Default)]
struct Wire {
    routes: Mutex<HashMap<(Method, String), Handler>>,
    log: Mutex<Vec<HttpRequest>>,
}

impl Wire {
    fn route(
        &self,
        method: Method,
        url: &str,
        h: impl Fn(&HttpRequest) -> HttpResponse + Send + Sync + 'static,
    ) {
        self.routes
            .lock()
            .unwrap()
            .insert((method, url.to_owned()), Box::new(h));
    }

    fn json(&self, method: Method, url: &str, status: u16, body: &'static str) {
        self.route(method, url, move |_| json(status, body));
    }

    /// `METHOD url-without-query` of each request, in order.
    fn seen(&self) -> Vec<String> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .map(|r| format!("{:?} {}", r.method, r.url.split('?').next().unwrap()))
            .collect()
    }

    fn requests_to(&self, url: &str) -> Vec<HttpRequest> {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.url.split('?').next() == Some(url))
            .cloned()
            .collect()
    }
}

impl HttpClient for Wire {
    fn send(&self, request: &HttpRequest) -> Result<HttpResponse, HttpError> {
        self.log.lock().unwrap().push(request.clone());
        let key = (
            request.method,
            request.url.split('?').next().unwrap().to_owned(),
        );
        Ok(match self.routes.lock().unwrap().get(&key) {
            Some(h) => h(request),
            None => json(404, r#"{"error":"not_found"}"#),
        })
    }
}

fn json(status: u16, body: &str) -> HttpResponse {
    HttpResponse {
        status,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: body.as_bytes().to_vec(),
    }
}

fn query(url: &str) -> HashMap<String, String> {
    Url::parse(url)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

fn form(r: &HttpRequest) -> HashMap<String, String> {
    url::form_urlencoded::parse(&r.body).into_owned().collect()
}

/// An authorization endpoint that approves at once: 302 to the redirect
/// URI with the code, the state, and `iss` as given.
fn approve(iss: Option<&'static str>) -> impl Fn(&HttpRequest) -> HttpResponse + Send + Sync {
    move |r| {
        let q = query(&r.url);
        let mut to = Url::parse(&q["redirect_uri"]).unwrap();
        to.query_pairs_mut()
            .append_pair("code", "code-1")
            .append_pair("state", &q["state"]);
        if let Some(iss) = iss {
            to.query_pairs_mut().append_pair("iss", iss);
        }
        HttpResponse {
            status: 302,
            headers: vec![("Location".into(), to.to_string())],
            body: Vec::new(),
        }
    }
}

const MCP: &str = "http://mcp.test/mcp";
const PRM_URL: &str = "http://mcp.test/.well-known/oauth-protected-resource/mcp";
const PRM: &str = r#"{"resource":"http://mcp.test/mcp","authorization_servers":["https://as.test"],"scopes_supported":["mcp:basic"]}"#;
const AS_META_URL: &str = "https://as.test/.well-known/oauth-authorization-server";
const AS_META: &str = r#"{
    "issuer": "https://as.test",
    "authorization_endpoint": "https://as.test/authorize",
    "token_endpoint": "https://as.test/token",
    "registration_endpoint": "https://as.test/register",
    "response_types_supported": ["code"],
    "code_challenge_methods_supported": ["S256"],
    "token_endpoint_auth_methods_supported": ["none"],
    "scopes_supported": ["mcp:basic", "mcp:write", "offline_access"],
    "authorization_response_iss_parameter_supported": true
}"#;

fn challenge_401() -> Vec<String> {
    vec![format!(
        r#"Bearer error="invalid_token", resource_metadata="{PRM_URL}""#
    )]
}

/// The standard servers: metadata, registration, approval, tokens.
fn servers() -> Arc<Wire> {
    let wire = Arc::new(Wire::default());
    wire.json(Method::Get, PRM_URL, 200, PRM);
    wire.json(Method::Get, AS_META_URL, 200, AS_META);
    wire.json(
        Method::Post,
        "https://as.test/register",
        201,
        r#"{"client_id":"dyn-client","client_name":"t","redirect_uris":["http://localhost:3000/callback"]}"#,
    );
    wire.route(
        Method::Get,
        "https://as.test/authorize",
        approve(Some("https://as.test")),
    );
    wire.json(
        Method::Post,
        "https://as.test/token",
        200,
        r#"{"access_token":"at-1","token_type":"Bearer","expires_in":3600}"#,
    );
    wire
}

fn client(wire: &Arc<Wire>, config: OAuthConfig) -> OAuthClient {
    OAuthClient::new(
        wire.clone(),
        Box::new(HttpRedirectAgent::new(wire.clone())),
        config,
    )
}

fn config() -> OAuthConfig {
    OAuthConfig::new("test-client", "http://localhost:3000/callback")
}

#[test]
fn first_401_runs_the_whole_flow() {
    let wire = servers();
    let c = client(&wire, config());
    assert_eq!(c.authorization(MCP), None);
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    assert_eq!(c.authorization(MCP).as_deref(), Some("Bearer at-1"));
    assert_eq!(
        wire.seen(),
        [
            format!("Get {PRM_URL}"),
            format!("Get {AS_META_URL}"),
            "Post https://as.test/register".into(),
            "Get https://as.test/authorize".into(),
            "Post https://as.test/token".into(),
        ]
    );

    let reg: Value =
        serde_json::from_slice(&wire.requests_to("https://as.test/register")[0].body).unwrap();
    assert_eq!(reg["application_type"], "native");
    assert_eq!(reg["token_endpoint_auth_method"], "none");
    assert_eq!(
        reg["grant_types"],
        serde_json::json!(["authorization_code", "refresh_token"])
    );

    let auth = query(&wire.requests_to("https://as.test/authorize")[0].url);
    assert_eq!(auth["response_type"], "code");
    assert_eq!(auth["client_id"], "dyn-client");
    assert_eq!(auth["resource"], "http://mcp.test/mcp");
    assert_eq!(auth["code_challenge_method"], "S256");
    // No scope in the challenge: the PRM's scopes_supported, plus
    // offline_access because the authorization server lists it.
    assert_eq!(auth["scope"], "mcp:basic offline_access");

    let token = form(&wire.requests_to("https://as.test/token")[0]);
    assert_eq!(token["grant_type"], "authorization_code");
    assert_eq!(token["code"], "code-1");
    assert_eq!(token["resource"], "http://mcp.test/mcp");
    assert_eq!(token["client_id"], "dyn-client");
    assert_eq!(token["redirect_uri"], "http://localhost:3000/callback");
    let s256 = URL_SAFE_NO_PAD.encode(Sha256::digest(token["code_verifier"].as_bytes()));
    assert_eq!(s256, auth["code_challenge"]);
}

#[test]
fn well_known_fallback_path_then_root_and_challenge_scope() {
    let wire = servers();
    wire.json(Method::Get, PRM_URL, 404, r#"{"error":"not_found"}"#);
    wire.json(
        Method::Get,
        "http://mcp.test/.well-known/oauth-protected-resource",
        200,
        r#"{"resource":"http://mcp.test","authorization_servers":["https://as.test"]}"#,
    );
    let c = client(&wire, config());
    let challenge = vec![r#"Bearer scope="mcp:write""#.to_owned()];
    assert_eq!(c.challenged(MCP, 401, &challenge), Ok(true));
    assert_eq!(
        &wire.seen()[..2],
        [
            format!("Get {PRM_URL}"),
            "Get http://mcp.test/.well-known/oauth-protected-resource".to_owned(),
        ]
    );
    let auth = query(&wire.requests_to("https://as.test/authorize")[0].url);
    assert_eq!(auth["scope"], "mcp:write offline_access");
    // The root document names the resource by its origin: that is the
    // indicator sent.
    assert_eq!(auth["resource"], "http://mcp.test");
}

#[test]
fn refusals_stop_before_the_authorization_server_sees_the_client() {
    // The PRM names another server.
    let wire = servers();
    wire.json(
        Method::Get,
        PRM_URL,
        200,
        r#"{"resource":"https://evil.example.com/mcp","authorization_servers":["https://as.test"]}"#,
    );
    let c = client(&wire, config());
    assert!(c
        .challenged(MCP, 401, &challenge_401())
        .unwrap_err()
        .0
        .contains("evil.example.com"));
    assert_eq!(wire.seen(), [format!("Get {PRM_URL}")]);

    // The metadata's issuer is not the issuer asked for.
    let wire = servers();
    wire.json(Method::Get, AS_META_URL, 200, r#"{"issuer":"https://attacker.example.com","authorization_endpoint":"https://as.test/authorize","token_endpoint":"https://as.test/token","registration_endpoint":"https://as.test/register","code_challenge_methods_supported":["S256"]}"#);
    let c = client(&wire, config());
    assert!(c.challenged(MCP, 401, &challenge_401()).is_err());
    assert_eq!(wire.seen().len(), 2);

    // No PKCE S256.
    let wire = servers();
    wire.json(Method::Get, AS_META_URL, 200, r#"{"issuer":"https://as.test","authorization_endpoint":"https://as.test/authorize","token_endpoint":"https://as.test/token","registration_endpoint":"https://as.test/register"}"#);
    let c = client(&wire, config());
    assert!(c.challenged(MCP, 401, &challenge_401()).is_err());
    assert_eq!(wire.seen().len(), 2);

    // The redirect's iss is the issuer with a trailing slash: the code
    // never reaches the token endpoint.
    let wire = servers();
    wire.route(
        Method::Get,
        "https://as.test/authorize",
        approve(Some("https://as.test/")),
    );
    let c = client(&wire, config());
    assert!(c.challenged(MCP, 401, &challenge_401()).is_err());
    assert!(wire.requests_to("https://as.test/token").is_empty());
    assert_eq!(c.authorization(MCP), None);
}

#[test]
fn plain_http_off_loopback_is_refused() {
    // The PRM names an authorization server over plain HTTP.
    let wire = servers();
    wire.json(
        Method::Get,
        PRM_URL,
        200,
        r#"{"resource":"http://mcp.test/mcp","authorization_servers":["http://as.test"]}"#,
    );
    let c = client(&wire, config());
    let e = c.challenged(MCP, 401, &challenge_401()).unwrap_err();
    assert!(e.0.contains("http://as.test"), "{e}");
    assert_eq!(wire.seen(), [format!("Get {PRM_URL}")]);

    // A redirect URI that is neither HTTPS nor loopback: no authorization
    // request is made.
    let wire = servers();
    let c = client(
        &wire,
        OAuthConfig::new("t", "http://client.example/callback"),
    );
    assert!(c.challenged(MCP, 401, &challenge_401()).is_err());
    assert_eq!(
        wire.seen(),
        [format!("Get {PRM_URL}"), format!("Get {AS_META_URL}")]
    );
}

#[test]
fn step_up_unions_scopes_and_stops_after_the_limit() {
    let wire = servers();
    let c = client(&wire, config());
    let first = vec![format!(
        r#"Bearer scope="mcp:basic", resource_metadata="{PRM_URL}""#
    )];
    assert_eq!(c.challenged(MCP, 401, &first), Ok(true));
    c.authorization(MCP);
    let forbidden = vec![format!(
        r#"Bearer error="insufficient_scope", scope="mcp:write", resource_metadata="{PRM_URL}", error_description="write needed""#
    )];
    assert_eq!(c.challenged(MCP, 403, &forbidden), Ok(true));
    c.authorization(MCP);
    assert_eq!(c.challenged(MCP, 403, &forbidden), Ok(true));
    c.authorization(MCP);
    let e = c.challenged(MCP, 403, &forbidden).unwrap_err();
    assert!(e.0.contains("insufficient_scope"), "{e}");
    let scopes: Vec<String> = wire
        .requests_to("https://as.test/authorize")
        .iter()
        .map(|r| query(&r.url)["scope"].clone())
        .collect();
    assert_eq!(
        scopes,
        [
            "mcp:basic offline_access",
            "mcp:basic offline_access mcp:write",
            "mcp:basic offline_access mcp:write",
        ]
    );
    // One registration for all of it, and a 403 without
    // insufficient_scope is not the client's to fix.
    assert_eq!(wire.requests_to("https://as.test/register").len(), 1);
    assert_eq!(
        c.challenged(MCP, 403, &[r#"Bearer error="invalid_token""#.to_owned()]),
        Ok(false)
    );
}

#[test]
fn a_401_with_a_refresh_token_refreshes() {
    let wire = servers();
    let calls = Arc::new(AtomicUsize::new(0));
    let n = calls.clone();
    wire.route(Method::Post, "https://as.test/token", move |_| {
        match n.fetch_add(1, Ordering::SeqCst) {
            0 => json(
                200,
                r#"{"access_token":"at-1","token_type":"Bearer","refresh_token":"rt-1"}"#,
            ),
            _ => json(200, r#"{"access_token":"at-2","token_type":"Bearer"}"#),
        }
    });
    let c = client(&wire, config());
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    // Two requests carry the token, then the server turns it down.
    assert_eq!(c.authorization(MCP).as_deref(), Some("Bearer at-1"));
    assert_eq!(c.authorization(MCP).as_deref(), Some("Bearer at-1"));
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    assert_eq!(c.authorization(MCP).as_deref(), Some("Bearer at-2"));
    assert_eq!(c.authorization(MCP).as_deref(), Some("Bearer at-2"));
    assert_eq!(wire.requests_to("https://as.test/authorize").len(), 1);
    let refresh = form(&wire.requests_to("https://as.test/token")[1]);
    assert_eq!(refresh["grant_type"], "refresh_token");
    assert_eq!(refresh["refresh_token"], "rt-1");
    assert_eq!(refresh["resource"], "http://mcp.test/mcp");
    // The refresh response kept the refresh token in force: a third 401
    // refreshes again instead of sending the user back.
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    assert_eq!(
        form(&wire.requests_to("https://as.test/token")[2])["refresh_token"],
        "rt-1"
    );
    assert_eq!(wire.requests_to("https://as.test/authorize").len(), 1);
}

#[test]
fn a_new_authorization_server_gets_a_new_registration() {
    let wire = servers();
    let moved = Arc::new(AtomicBool::new(false));
    let m = moved.clone();
    wire.route(Method::Get, PRM_URL, move |_| {
        if m.load(Ordering::SeqCst) {
            json(
                200,
                r#"{"resource":"http://mcp.test/mcp","authorization_servers":["https://as2.test"]}"#,
            )
        } else {
            json(200, PRM)
        }
    });
    wire.json(
        Method::Get,
        "https://as2.test/.well-known/oauth-authorization-server",
        200,
        r#"{
        "issuer": "https://as2.test",
        "authorization_endpoint": "https://as2.test/authorize",
        "token_endpoint": "https://as2.test/token",
        "registration_endpoint": "https://as2.test/register",
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_post"]
    }"#,
    );
    wire.json(
        Method::Post,
        "https://as2.test/register",
        201,
        r#"{"client_id":"as2-client","client_secret":"as2-secret"}"#,
    );
    wire.route(Method::Get, "https://as2.test/authorize", approve(None));
    wire.json(
        Method::Post,
        "https://as2.test/token",
        200,
        r#"{"access_token":"as2-token","token_type":"Bearer"}"#,
    );

    let c = client(&wire, config());
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    // The first server's token served two requests; then the resource
    // moved.
    c.authorization(MCP);
    c.authorization(MCP);
    moved.store(true, Ordering::SeqCst);
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    assert_eq!(c.authorization(MCP).as_deref(), Some("Bearer as2-token"));
    assert_eq!(
        query(&wire.requests_to("https://as2.test/authorize")[0].url)["client_id"],
        "as2-client"
    );
    let token = form(&wire.requests_to("https://as2.test/token")[0]);
    assert_eq!(
        (token["client_id"].as_str(), token["client_secret"].as_str()),
        ("as2-client", "as2-secret")
    );
    // Nothing of the first server's reached the second.
    for r in wire
        .log
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.url.starts_with("https://as2.test"))
    {
        assert!(
            !r.url.contains("dyn-client")
                && !String::from_utf8_lossy(&r.body).contains("dyn-client")
        );
    }
}

#[test]
fn pre_registered_credentials_and_metadata_documents() {
    // Pre-registered, at a server without registration that wants Basic.
    let wire = servers();
    wire.json(
        Method::Get,
        AS_META_URL,
        200,
        r#"{
        "issuer": "https://as.test",
        "authorization_endpoint": "https://as.test/authorize",
        "token_endpoint": "https://as.test/token",
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic"]
    }"#,
    );
    let mut cfg = config();
    cfg.pre_registered = Some(PreRegistered {
        issuer: None,
        client_id: "pre-registered-client".into(),
        client_secret: Some("pre-registered-secret".into()),
        assertion_key: None,
    });
    let c = client(&wire, cfg);
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    assert!(wire.requests_to("https://as.test/register").is_empty());
    let token = &wire.requests_to("https://as.test/token")[0];
    // base64("pre-registered-client:pre-registered-secret")
    assert_eq!(
        token.header("authorization"),
        Some("Basic cHJlLXJlZ2lzdGVyZWQtY2xpZW50OnByZS1yZWdpc3RlcmVkLXNlY3JldA==")
    );
    assert!(!form(token).contains_key("client_secret"));

    // A metadata document URL where the server accepts one: no
    // registration, the URL is the client id.
    let wire = servers();
    wire.json(
        Method::Get,
        AS_META_URL,
        200,
        r#"{
        "issuer": "https://as.test",
        "authorization_endpoint": "https://as.test/authorize",
        "token_endpoint": "https://as.test/token",
        "registration_endpoint": "https://as.test/register",
        "code_challenge_methods_supported": ["S256"],
        "client_id_metadata_document_supported": true
    }"#,
    );
    let mut cfg = config();
    cfg.client.metadata_document_url = Some("https://client.example/meta.json".into());
    let c = client(&wire, cfg);
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    assert!(wire.requests_to("https://as.test/register").is_empty());
    assert_eq!(
        query(&wire.requests_to("https://as.test/authorize")[0].url)["client_id"],
        "https://client.example/meta.json"
    );
    assert_eq!(
        form(&wire.requests_to("https://as.test/token")[0])["client_id"],
        "https://client.example/meta.json"
    );
}

#[test]
fn client_credentials_need_no_user_and_no_registration() {
    let wire = servers();
    wire.json(
        Method::Get,
        AS_META_URL,
        200,
        r#"{
        "issuer": "https://as.test",
        "authorization_endpoint": "https://as.test/authorize",
        "token_endpoint": "https://as.test/token",
        "registration_endpoint": "https://as.test/register",
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        "scopes_supported": ["mcp", "offline_access"]
    }"#,
    );
    let mut cfg = config();
    cfg.grant = GrantKind::ClientCredentials;
    cfg.pre_registered = Some(PreRegistered {
        issuer: Some("https://as.test".into()),
        client_id: "service".into(),
        client_secret: Some("service-secret".into()),
        assertion_key: None,
    });
    let c = client(&wire, cfg.clone());
    let challenge = vec![format!(
        r#"Bearer scope="mcp", resource_metadata="{PRM_URL}""#
    )];
    assert_eq!(c.challenged(MCP, 401, &challenge), Ok(true));
    assert_eq!(c.authorization(MCP).as_deref(), Some("Bearer at-1"));
    assert_eq!(
        wire.seen(),
        [
            format!("Get {PRM_URL}"),
            format!("Get {AS_META_URL}"),
            "Post https://as.test/token".into()
        ]
    );
    let token = &wire.requests_to("https://as.test/token")[0];
    // No offline_access for a client acting for itself.
    assert_eq!(
        String::from_utf8(token.body.clone()).unwrap(),
        "grant_type=client_credentials&scope=mcp&resource=http%3A%2F%2Fmcp.test%2Fmcp"
    );
    // base64("service:service-secret")
    assert_eq!(
        token.header("authorization"),
        Some("Basic c2VydmljZTpzZXJ2aWNlLXNlY3JldA==")
    );

    // Credentials for another server: refused, nothing registered.
    let wire = servers();
    cfg.pre_registered.as_mut().unwrap().issuer = Some("https://other.test".into());
    let c = client(&wire, cfg);
    assert!(c.challenged(MCP, 401, &challenge).is_err());
    assert!(wire.requests_to("https://as.test/register").is_empty());
    assert!(wire.requests_to("https://as.test/token").is_empty());
}

#[test]
fn a_token_refused_on_first_use_ends_the_loop() {
    // A flow's token refused at once: no second trip through the user
    // agent.
    let wire = servers();
    let c = client(&wire, config());
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    assert_eq!(c.authorization(MCP).as_deref(), Some("Bearer at-1"));
    let e = c.challenged(MCP, 401, &challenge_401()).unwrap_err();
    assert!(e.0.contains("refused the token"), "{e}");
    assert_eq!(wire.requests_to("https://as.test/authorize").len(), 1);
    // The next request goes without it, and its 401 starts afresh.
    assert_eq!(c.authorization(MCP), None);
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    assert_eq!(wire.requests_to("https://as.test/authorize").len(), 2);

    // A refreshed token refused at once: no second refresh, a whole flow.
    let wire = servers();
    wire.json(
        Method::Post,
        "https://as.test/token",
        200,
        r#"{"access_token":"at-r","token_type":"Bearer","refresh_token":"rt"}"#,
    );
    let c = client(&wire, config());
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    c.authorization(MCP);
    c.authorization(MCP);
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true)); // refresh
    c.authorization(MCP);
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true)); // flow
    let grants: Vec<String> = wire
        .requests_to("https://as.test/token")
        .iter()
        .map(|r| form(r)["grant_type"].clone())
        .collect();
    assert_eq!(
        grants,
        ["authorization_code", "refresh_token", "authorization_code"]
    );
}

#[test]
fn a_refused_step_up_keeps_the_token_in_force() {
    let wire = servers();
    let c = client(&wire, config());
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    c.authorization(MCP);
    // The user turns the wider scope down.
    wire.route(Method::Get, "https://as.test/authorize", |r| {
        let q = query(&r.url);
        HttpResponse {
            status: 302,
            headers: vec![(
                "Location".into(),
                format!(
                    "{}?error=access_denied&state={}&iss=https%3A%2F%2Fas.test",
                    q["redirect_uri"], q["state"]
                ),
            )],
            body: vec![],
        }
    });
    let forbidden = vec![r#"Bearer error="insufficient_scope", scope="mcp:write""#.to_owned()];
    let e = c.challenged(MCP, 403, &forbidden).unwrap_err();
    assert!(e.0.contains("access_denied"), "{e}");
    assert_eq!(c.authorization(MCP).as_deref(), Some("Bearer at-1"));
}

#[test]
fn concurrent_refusals_share_one_flow() {
    // Two requests went out without a token and both got 401: the first
    // challenge runs the flow, the second finds a token nobody has sent.
    let wire = servers();
    let c = client(&wire, config());
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    assert_eq!(wire.requests_to("https://as.test/authorize").len(), 1);
    // Likewise a 403 for scopes the fresh token already asked for.
    let forbidden = vec![r#"Bearer error="insufficient_scope", scope="mcp:basic""#.to_owned()];
    assert_eq!(c.challenged(MCP, 403, &forbidden), Ok(true));
    assert_eq!(wire.requests_to("https://as.test/authorize").len(), 1);
    // But not one for a scope it lacks.
    let wider = vec![r#"Bearer error="insufficient_scope", scope="mcp:write""#.to_owned()];
    assert_eq!(c.challenged(MCP, 403, &wider), Ok(true));
    assert_eq!(wire.requests_to("https://as.test/authorize").len(), 2);
}

#[test]
fn jwt_bearer_with_an_id_jag_from_the_identity_provider() {
    let wire = servers();
    wire.json(
        Method::Get,
        AS_META_URL,
        200,
        r#"{
        "issuer": "https://as.test",
        "authorization_endpoint": "https://as.test/authorize",
        "token_endpoint": "https://as.test/token",
        "grant_types_supported": ["urn:ietf:params:oauth:grant-type:jwt-bearer"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic"]
    }"#,
    );
    wire.json(
        Method::Post,
        "https://idp.test/token",
        200,
        r#"{"access_token":"the-id-jag","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","token_type":"N_A"}"#,
    );
    let mut cfg = config();
    cfg.grant = GrantKind::JwtBearer(Arc::new(IdJagExchange {
        token_endpoint: "https://idp.test/token".into(),
        client_id: "idp-client".into(),
        id_token: "the-id-token".into(),
    }));
    cfg.pre_registered = Some(PreRegistered {
        issuer: None,
        client_id: "xaa-client".into(),
        client_secret: Some("xaa-secret".into()),
        assertion_key: None,
    });
    let c = client(&wire, cfg);
    assert_eq!(c.challenged(MCP, 401, &challenge_401()), Ok(true));
    assert_eq!(
        wire.seen(),
        [
            format!("Get {PRM_URL}"),
            format!("Get {AS_META_URL}"),
            "Post https://idp.test/token".into(),
            "Post https://as.test/token".into(),
        ]
    );
    let exchange = form(&wire.requests_to("https://idp.test/token")[0]);
    assert_eq!(exchange["audience"], "https://as.test");
    assert_eq!(exchange["resource"], "http://mcp.test/mcp");
    assert_eq!(exchange["subject_token"], "the-id-token");
    let token = &wire.requests_to("https://as.test/token")[0];
    let body = form(token);
    assert_eq!(
        body["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(body["assertion"], "the-id-jag");
    assert_eq!(body["scope"], "mcp:basic");
    // base64("xaa-client:xaa-secret")
    assert_eq!(
        token.header("authorization"),
        Some("Basic eGFhLWNsaWVudDp4YWEtc2VjcmV0")
    );
}

#[test]
fn jwt_bearer_with_a_workload_token_and_its_refusal() {
    let wire = servers();
    wire.json(
        Method::Get,
        AS_META_URL,
        200,
        r#"{
        "issuer": "https://as.test",
        "authorization_endpoint": "https://as.test/authorize",
        "token_endpoint": "https://as.test/token",
        "token_endpoint_auth_methods_supported": ["none"]
    }"#,
    );
    wire.json(
        Method::Post,
        "https://as.test/token",
        400,
        r#"{"error":"invalid_grant","error_description":"JWT assertion is expired"}"#,
    );
    let mut cfg = config();
    cfg.grant = GrantKind::JwtBearer(Arc::new(WorkloadToken("workload.jwt".into())));
    cfg.pre_registered = Some(PreRegistered {
        issuer: None,
        client_id: "workload".into(),
        client_secret: None,
        assertion_key: None,
    });
    let c = client(&wire, cfg);
    let e = c.challenged(MCP, 401, &challenge_401()).unwrap_err();
    assert!(e.0.contains("invalid_grant"), "{e}");
    // Once, with the workload's token and its public client id; no other
    // grant tried, no registration, no user agent.
    let token = wire.requests_to("https://as.test/token");
    assert_eq!(token.len(), 1);
    let body = form(&token[0]);
    assert_eq!(body["assertion"], "workload.jwt");
    assert_eq!(body["client_id"], "workload");
    assert_eq!(wire.seen().len(), 3);
}
