//! Drives the official conformance runner's `auth/*` client scenarios
//! with [`OAuthClient`] until the MCP side moves onto `snodo-client`:
//!
//! ```sh
//! conformance client --command "target/debug/examples/conformance-auth" --scenario auth/metadata-default
//! ```
//!
//! The runner passes the server URL as the last argument and the scenario
//! in `MCP_CONFORMANCE_SCENARIO`, its context (pre-registered credentials)
//! in `MCP_CONFORMANCE_CONTEXT`, and the protocol revision in
//! `MCP_CONFORMANCE_PROTOCOL_VERSION`. Like the official everything-client
//! it connects, lists the tools and calls `test-tool` (or the tool named by
//! `--tool NAME`, which `evidence/oauth/snodo-client.mjs` uses against
//! snodo-fixture and a real authorization server); every request goes
//! through the [`Authorizer`], and a 401 or 403 is handed to it, the
//! request resent while it says a new credential is ready. The scenario
//! name selects only what this program is, as in the everything-client:
//! `auth/client-credentials-*` makes it a client acting for itself (the
//! client credentials grant), `auth/wif-jwt-bearer` a workload presenting
//! its platform token, `auth/enterprise-managed-authorization` a client
//! exchanging the user's ID token at the identity provider; the context's
//! credentials (a secret, or a private key for `private_key_jwt`) become
//! pre-registered ones, its tokens the assertions. Nothing else of the
//! scenario reaches the OAuth client. (`auth/dpop*` fail: a DPoP proof is
//! a header of every MCP request, which the `Authorizer` hook cannot add.)

use std::io::Read;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use snodo_oauth_client::assertion::{IdJagExchange, WorkloadToken};
use snodo_oauth_client::{
    AssertionKey, GrantKind, HttpRedirectAgent, OAuthClient, OAuthConfig, PreRegistered, UreqHttp,
};
use snodo_proto::client::auth::Authorizer;

/// The Client ID Metadata Document URL this client presents where the
/// authorization server accepts URL client ids (the one the official
/// everything-client uses; the conformance servers do not fetch it).
const METADATA_DOCUMENT_URL: &str = "https://conformance-test.local/client-metadata.json";
const REDIRECT_URI: &str = "http://localhost:3000/callback";
/// Resends of one request after the authorizer says a credential is ready.
const MAX_RESENDS: usize = 4;

fn main() -> ExitCode {
    // The runner appends the URL after any arguments of the command.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tool = match args.iter().position(|a| a == "--tool") {
        Some(i) => args.get(i + 1).cloned().unwrap_or_default(),
        None => "test-tool".to_owned(),
    };
    let Some(url) = args.last().filter(|_| !tool.is_empty()) else {
        eprintln!("usage: conformance-auth [--tool NAME] <server-url>");
        return ExitCode::from(2);
    };
    match run(url, &tool) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-auth: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(url: &str, tool: &str) -> Result<(), String> {
    let version =
        std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").unwrap_or_else(|_| "2025-11-25".into());
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);

    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let auth = authorizer(&scenario, &context)?;
    let mut session = Session {
        url: url.to_owned(),
        version,
        auth: &auth,
        agent: ureq::AgentBuilder::new()
            .timeout(Duration::from_secs(20))
            .redirects(0)
            .build(),
        session_id: None,
        next_id: 1,
    };

    if session.stateless() {
        session.request("tools/list", json!({}))?;
    } else {
        session.request(
            "initialize",
            json!({
                "protocolVersion": session.version,
                "capabilities": {},
                "clientInfo": {"name": "snodo-conformance-client", "version": env!("CARGO_PKG_VERSION")},
            }),
        )?;
        session.notify("notifications/initialized")?;
        session.request("tools/list", json!({}))?;
    }
    let result = session.request("tools/call", json!({"name": tool, "arguments": {}}))?;
    eprintln!("tools/call: {result}");
    Ok(())
}

/// The OAuth client this program is for `scenario`, with the context's
/// credentials pre-registered. (The shape the conformance binary's
/// `authorizer(scenario, context)` hook takes, to move there as it is.)
fn authorizer(scenario: &str, context: &Value) -> Result<OAuthClient, String> {
    let http = Arc::new(UreqHttp::new(Duration::from_secs(20)));
    let mut config = OAuthConfig::new("snodo-conformance-client", REDIRECT_URI);
    let text = |name: &str| context.get(name).and_then(Value::as_str);
    match scenario {
        s if s.starts_with("auth/client-credentials-") => {
            config.grant = GrantKind::ClientCredentials;
        }
        // A workload with a platform-issued token (SEP-1933).
        "auth/wif-jwt-bearer" => {
            let token = text("valid_jwt").ok_or("the context has no valid_jwt")?;
            config.grant = GrantKind::JwtBearer(Arc::new(WorkloadToken(token.to_owned())));
        }
        // A user signed in at the enterprise identity provider (SEP-990).
        "auth/enterprise-managed-authorization" => {
            let need = |name: &str| text(name).ok_or(format!("the context has no {name}"));
            config.grant = GrantKind::JwtBearer(Arc::new(IdJagExchange {
                token_endpoint: need("idp_token_endpoint")?.to_owned(),
                client_id: need("idp_client_id")?.to_owned(),
                id_token: need("idp_id_token")?.to_owned(),
            }));
        }
        _ => {}
    }
    config.client.metadata_document_url = Some(METADATA_DOCUMENT_URL.into());
    if let Some(client_id) = text("client_id") {
        let assertion_key = match (text("private_key_pem"), text("signing_algorithm")) {
            (Some(pem), alg) => Some(
                AssertionKey::from_pem(pem, alg.unwrap_or("ES256")).map_err(|e| e.to_string())?,
            ),
            _ => None,
        };
        config.pre_registered = Some(PreRegistered {
            issuer: None,
            client_id: client_id.to_owned(),
            client_secret: text("client_secret").map(str::to_owned),
            assertion_key,
        });
    }
    Ok(OAuthClient::new(
        http.clone(),
        Box::new(HttpRedirectAgent::new(http)),
        config,
    ))
}

struct Session<'a> {
    url: String,
    version: String,
    auth: &'a dyn Authorizer,
    agent: ureq::Agent,
    session_id: Option<String>,
    next_id: u64,
}

impl Session<'_> {
    /// 2026-07-28 and later: no initialize, `_meta` on every request.
    fn stateless(&self) -> bool {
        self.version.as_str() >= "2026-07-28"
    }

    fn request(&mut self, method: &str, mut params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        if self.stateless() {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": self.version,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "snodo-conformance-client", "version": env!("CARGO_PKG_VERSION")},
            });
        }
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let (status, content_type, text) = self.post(method, name.as_deref(), &body)?;
        if status != 200 {
            return Err(format!("{method}: HTTP {status}: {text}"));
        }
        let message = find_response(&content_type, &text, id)
            .ok_or_else(|| format!("{method}: no response with id {id} in: {text}"))?;
        if let Some(error) = message.get("error") {
            return Err(format!("{method}: {error}"));
        }
        Ok(message.get("result").cloned().unwrap_or(Value::Null))
    }

    fn notify(&mut self, method: &str) -> Result<(), String> {
        let body = json!({"jsonrpc": "2.0", "method": method});
        let (status, _, text) = self.post(method, None, &body)?;
        if !(200..300).contains(&status) {
            return Err(format!("{method}: HTTP {status}: {text}"));
        }
        Ok(())
    }

    /// POSTs `body`, handing 401/403 to the authorizer and resending while
    /// it has a new credential.
    fn post(
        &mut self,
        method: &str,
        name: Option<&str>,
        body: &Value,
    ) -> Result<(u16, String, String), String> {
        let bytes = serde_json::to_vec(body).map_err(|e| e.to_string())?;
        for _ in 0..=MAX_RESENDS {
            let mut req = self
                .agent
                .post(&self.url)
                .set("Content-Type", "application/json")
                .set("Accept", "application/json, text/event-stream");
            if method != "initialize" {
                req = req.set("MCP-Protocol-Version", &self.version);
            }
            if self.stateless() {
                req = req.set("Mcp-Method", method);
                if let Some(name) = name {
                    req = req.set("Mcp-Name", name);
                }
            }
            if let Some(id) = &self.session_id {
                req = req.set("Mcp-Session-Id", id);
            }
            if let Some(header) = self.auth.authorization(&self.url) {
                req = req.set("Authorization", &header);
            }
            let response = match req.send_bytes(&bytes) {
                Ok(r) | Err(ureq::Error::Status(_, r)) => r,
                Err(e) => return Err(format!("{method}: {e}")),
            };
            let status = response.status();
            if status == 401 || status == 403 {
                let challenges: Vec<String> = response
                    .all("www-authenticate")
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                match self.auth.challenged(&self.url, status, &challenges) {
                    Ok(true) => continue,
                    Ok(false) => return Err(format!("{method}: HTTP {status}, not authorized")),
                    Err(e) => return Err(format!("{method}: HTTP {status}: {e}")),
                }
            }
            if let Some(id) = response.header("mcp-session-id") {
                self.session_id = Some(id.to_owned());
            }
            let content_type = response.content_type().to_owned();
            let mut text = String::new();
            response
                .into_reader()
                .take(1 << 20)
                .read_to_string(&mut text)
                .map_err(|e| e.to_string())?;
            return Ok((status, content_type, text));
        }
        Err(format!(
            "{method}: still challenged after {MAX_RESENDS} new credentials"
        ))
    }
}

/// The JSON-RPC response with `id`, from a JSON body or an SSE stream's
/// `data:` lines.
fn find_response(content_type: &str, text: &str, id: u64) -> Option<Value> {
    let messages: Vec<Value> = if content_type.starts_with("text/event-stream") {
        let mut out = Vec::new();
        for event in text.split("\n\n") {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            if let Ok(v) = serde_json::from_str(&data.join("\n")) {
                out.push(v);
            }
        }
        out
    } else {
        serde_json::from_str(text).into_iter().collect()
    };
    messages
        .into_iter()
        .find(|m| m.get("id") == Some(&json!(id)))
}
