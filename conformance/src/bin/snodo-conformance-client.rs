//! The client the official conformance runner's client leg drives
//! (`conformance client --command <this binary> --scenario S`).
//!
//! The runner starts a scenario server, then runs this binary with the
//! server's URL as the last argument and `MCP_CONFORMANCE_SCENARIO`,
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` and `MCP_CONFORMANCE_CONTEXT` (JSON)
//! in the environment. Like the official everything-client, the scenario
//! name picks only *what to do* (which tools to call, in which order);
//! *how* (headers, `_meta`, MRTR, version negotiation, tool filtering) is
//! snodo-client's and the same for every scenario.
//!
//! One [`AsyncSession`] does it on `--runtime tokio`, `smol` or `blocking`
//! (the same session and transports on plain threads), so the leg scores
//! each runtime. `auth/*` scenarios hand every 401/403 to
//! snodo-oauth-client's [`OAuthClient`]. `--tool NAME` names the tool an
//! auth flow ends by calling, and `--oauth` authorizes through the OAuth
//! client outside an `auth/*` scenario (`evidence/oauth/snodo-client.mjs`
//! runs this binary so against snodo-fixture and a real authorization
//! server).
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Map, Value};
use snodo_client::{
    AsyncHttpTransport, AsyncSession, Authorizer, ClientRuntime, Error, Handler, Step, TlsConfig,
};
use snodo_oauth_client::assertion::{IdJagExchange, WorkloadToken};
use snodo_oauth_client::{
    AssertionKey, GrantKind, HttpRedirectAgent, OAuthClient, OAuthConfig, PreRegistered, UreqHttp,
};
use snodo_proto::client::{ClientConfig, Wire, SUPPORTED_VERSIONS};
use snodo_proto::{ErrorObject, Tool};

/// The Client ID Metadata Document URL this client presents where the
/// authorization server accepts URL client ids (the one the official
/// everything-client uses; the conformance servers do not fetch it).
const METADATA_DOCUMENT_URL: &str = "https://conformance-test.local/client-metadata.json";
const REDIRECT_URI: &str = "http://localhost:3000/callback";
/// The OAuth client this program is for an `auth/*` `scenario`, with the
/// context's credentials pre-registered. The scenario name selects only
/// what this program is, as in the official everything-client:
/// `auth/client-credentials-*` a client acting for itself (the client
/// credentials grant), `auth/wif-jwt-bearer` a workload presenting its
/// platform token, `auth/enterprise-managed-authorization` a client
/// exchanging the user's ID token at the identity provider. Nothing else of
/// the scenario reaches the OAuth client. (`auth/dpop*`, unscored
/// extensions, fail: a DPoP proof is a header of every MCP request, which
/// the `Authorizer` hook cannot add.)
///
/// `tls` (from `--ca`): the roots its HTTPS requests trust, the same as the
/// MCP transport's; without it ureq's own (the web's).
fn authorizer(
    scenario: &str,
    context: &Value,
    tls: Option<&TlsConfig>,
) -> Result<OAuthClient, String> {
    let timeout = Duration::from_secs(20);
    let http = Arc::new(match tls {
        Some(tls) => UreqHttp::with_tls(timeout, tls.rustls_config()),
        None => UreqHttp::new(timeout),
    });
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

/// Answers input requests the way a consenting user would: elicitation
/// accepted with each field's default (or a plain value of its type),
/// sampling with a fixed assistant message, roots as an empty list.
struct Consenting;

impl Handler for Consenting {
    fn elicit(&mut self, params: &Value) -> Result<Value, ErrorObject> {
        let mut content = Map::new();
        if let Some(Value::Object(props)) = params["requestedSchema"].get("properties") {
            for (name, schema) in props {
                let value = match schema.get("default") {
                    Some(d) => d.clone(),
                    None => match schema["type"].as_str() {
                        Some("boolean") => json!(true),
                        Some("integer") | Some("number") => json!(0),
                        _ => match schema["enum"].get(0) {
                            Some(first) => first.clone(),
                            None => json!(""),
                        },
                    },
                };
                content.insert(name.clone(), value);
            }
        }
        Ok(json!({"action": "accept", "content": content}))
    }

    fn sample(&mut self, _params: &Value) -> Result<Value, ErrorObject> {
        Ok(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "This is a test response from the conformance client."},
            "model": "snodo-conformance",
            "stopReason": "endTurn"
        }))
    }

    fn roots(&mut self) -> Result<Value, ErrorObject> {
        Ok(json!({"roots": []}))
    }

    fn notification(&mut self, _op: Option<snodo_proto::client::OpId>, message: &Value) {
        eprintln!("notification: {message}");
    }
}

type Client<R> = AsyncSession<AsyncHttpTransport<R>, Consenting>;

/// Arguments for a tool from its schema's required properties: a plain
/// value of each type (the tool is called to show it was kept, not for
/// its answer).
fn sample_arguments(tool: &Tool) -> Value {
    let schema = &tool.input_schema;
    let mut args = Map::new();
    for name in schema["required"].as_array().into_iter().flatten() {
        let Some(name) = name.as_str() else { continue };
        let value = match schema["properties"][name]["type"].as_str() {
            Some("integer") | Some("number") => json!(1),
            Some("boolean") => json!(true),
            Some("object") => json!({}),
            Some("array") => json!([]),
            _ => json!("us-west1"),
        };
        args.insert(String::from(name), value);
    }
    Value::Object(args)
}

async fn call_every_tool<R: ClientRuntime>(session: &mut Client<R>) -> Result<(), Error> {
    for tool in session.list_tools().await? {
        session
            .call_tool(&tool.name, sample_arguments(&tool))
            .await?;
    }
    Ok(())
}

/// `sep-2322-client-request-state`: an MRTR round with state, another
/// tool called while that round waits, a round without state, and a
/// result without `resultType`.
async fn mrtr_rounds<R: ClientRuntime>(session: &mut Client<R>) -> Result<(), Error> {
    session.list_tools().await?;
    let echo = session
        .start(
            "tools/call",
            json!({"name": "test_mrtr_echo_state", "arguments": {}}),
        )
        .await?;
    session.call_tool("test_mrtr_unrelated", json!({})).await?;
    finish_rounds(session, echo).await?;
    let no_state = session
        .start(
            "tools/call",
            json!({"name": "test_mrtr_no_state", "arguments": {}}),
        )
        .await?;
    finish_rounds(session, no_state).await?;
    session
        .call_tool("test_mrtr_no_result_type", json!({}))
        .await?;
    Ok(())
}

async fn finish_rounds<R: ClientRuntime>(
    session: &mut Client<R>,
    mut step: Step,
) -> Result<Value, Error> {
    loop {
        match step {
            Step::Done(result) => return Ok(result),
            Step::Task(task) => return session.await_task(task).await,
            Step::Extension { result, .. } => return Ok(result),
            Step::InputRequired { op, requests } => {
                let responses = session.answer_inputs(&requests);
                step = session.resume(op, responses).await?;
            }
        }
    }
}

/// `http-standard-headers`: one request of each named method.
async fn every_method<R: ClientRuntime>(session: &mut Client<R>) -> Result<(), Error> {
    for tool in session.list_tools().await? {
        session.call_tool(&tool.name, json!({})).await?;
    }
    for resource in session.list_resources().await? {
        session.read_resource(&resource.uri).await?;
    }
    for prompt in session.list_prompts().await? {
        session.get_prompt(&prompt.name, Value::Null).await?;
    }
    Ok(())
}

/// The calls the scenario's context lists (`http-custom-headers`).
async fn context_calls<R: ClientRuntime>(
    session: &mut Client<R>,
    context: &Value,
) -> Result<(), Error> {
    session.list_tools().await?;
    for call in context["toolCalls"].as_array().into_iter().flatten() {
        let name = call["name"].as_str().unwrap_or_default();
        session.call_tool(name, call["arguments"].clone()).await?;
    }
    Ok(())
}

/// `json-schema-2020-12-preservation`: hand the focal tool's
/// `inputSchema`, as this client holds it, back to the echo tool.
async fn echo_schema<R: ClientRuntime>(session: &mut Client<R>) -> Result<(), Error> {
    let tools = session.list_tools().await?;
    let focal = tools
        .iter()
        .find(|t| t.name == "json_schema_2020_12_tool")
        .map(|t| t.input_schema.clone())
        .unwrap_or(Value::Null);
    session
        .call_tool("json_schema_echo", json!({"schema": focal}))
        .await?;
    Ok(())
}

/// What the runner asked for.
struct Invocation {
    scenario: String,
    url: String,
    version: String,
    context: Value,
    /// The tool an `auth/*` flow ends by calling.
    tool: String,
    /// `--oauth`: authorize through the OAuth client whatever the scenario
    /// (a run outside the runner, against a real authorization server).
    oauth: bool,
    /// `--ca PEM`: the web's roots and the CA certificates of that file,
    /// trusted by the MCP transport and the OAuth client alike.
    tls: Option<TlsConfig>,
}

/// An `auth/*` scenario: connect, list the tools and call one, every
/// request through the OAuth client (as the everything-client does).
async fn auth_flow<R: ClientRuntime>(session: &mut Client<R>, tool: &str) -> Result<(), Error> {
    session.list_tools().await?;
    let result = session.call_tool(tool, json!({})).await?;
    // What a caller outside the runner checks (snodo-client.mjs): the
    // tool ran, after whatever step-up it took.
    eprintln!("tools/call: {}", json!(result));
    Ok(())
}

async fn run<R: ClientRuntime>(runtime: R, call: &Invocation) -> Result<(), String> {
    let mut transport = AsyncHttpTransport::new(runtime, &call.url).map_err(|e| e.to_string())?;
    if let Some(tls) = &call.tls {
        transport = transport.with_tls(tls);
    }
    let oauth = call.oauth || call.scenario.starts_with("auth/");
    if oauth {
        let client: Arc<dyn Authorizer> = Arc::new(authorizer(
            &call.scenario,
            &call.context,
            call.tls.as_ref(),
        )?);
        transport = transport.with_authorizer(client);
    }
    let mut config = ClientConfig::new(
        "snodo-conformance-client",
        env!("CARGO_PKG_VERSION"),
        Wire::Http,
    );
    config.capabilities.insert("elicitation".into(), json!({}));
    config.capabilities.insert("sampling".into(), json!({}));
    config.capabilities.insert("roots".into(), json!({}));
    // The runner's version first; the others this client speaks after it,
    // for a server that answers -32022 with a list.
    let version = call.version.as_str();
    config.versions = std::iter::once(version)
        .chain(SUPPORTED_VERSIONS.iter().copied().filter(|v| *v != version))
        .map(String::from)
        .collect();
    let mut session = AsyncSession::connect(transport, config, Consenting)
        .await
        .map_err(|e| e.to_string())?;
    let done = match call.scenario.as_str() {
        _ if oauth => auth_flow(&mut session, &call.tool).await,
        "tools_call" => {
            let mut outcome = Ok(());
            for tool in session.list_tools().await.map_err(|e| e.to_string())? {
                if tool.name == "add_numbers" {
                    outcome = session
                        .call_tool("add_numbers", json!({"a": 5, "b": 3}))
                        .await
                        .map(|_| ());
                }
            }
            outcome
        }
        "sep-2322-client-request-state" => mrtr_rounds(&mut session).await,
        "http-standard-headers" => every_method(&mut session).await,
        "http-custom-headers" => context_calls(&mut session, &call.context).await,
        "http-invalid-tool-headers" => call_every_tool(&mut session).await,
        "json-schema-2020-12-preservation" => echo_schema(&mut session).await,
        // request-metadata, json-schema-ref-no-deref, and the rest: list.
        _ => session.list_tools().await.map(|_| ()),
    };
    done.map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    // The runner appends the URL after the command's own arguments.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let option = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let runtime = option("--runtime").unwrap_or_else(|| String::from("tokio"));
    let tool = option("--tool").unwrap_or_else(|| String::from("test-tool"));
    let Some(url) = args.last().filter(|u| u.starts_with("http")).cloned() else {
        eprintln!(
            "usage: snodo-conformance-client [--runtime tokio|smol|blocking] [--oauth] [--tool NAME] [--ca PEM] <server-url>"
        );
        return ExitCode::from(2);
    };
    let tls = match option("--ca") {
        Some(path) => {
            let loaded = std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|pem| {
                    TlsConfig::webpki_roots()
                        .with_root_pem(&pem)
                        .map_err(|e| e.to_string())
                });
            match loaded {
                Ok(tls) => Some(tls),
                Err(e) => {
                    eprintln!("--ca {path}: {e}");
                    return ExitCode::from(2);
                }
            }
        }
        None => None,
    };
    let call = Invocation {
        scenario: std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default(),
        url,
        version: std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
            .ok()
            .filter(|v| SUPPORTED_VERSIONS.contains(&v.as_str()))
            .unwrap_or_else(|| String::from(SUPPORTED_VERSIONS[0])),
        context: std::env::var("MCP_CONFORMANCE_CONTEXT")
            .ok()
            .and_then(|c| serde_json::from_str(&c).ok())
            .unwrap_or(Value::Null),
        tool,
        oauth: args.iter().any(|a| a == "--oauth"),
        tls,
    };
    let outcome = match runtime.as_str() {
        "tokio" => match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(rt) => rt.block_on(run(snodo_tokio::Tokio, &call)),
            Err(e) => Err(e.to_string()),
        },
        "smol" => {
            let ex = Arc::new(smol::Executor::new());
            let runtime = snodo_smol::Smol(ex.clone());
            smol::block_on(ex.run(run(runtime, &call)))
        }
        "blocking" => match snodo_blocking::Threads::new(1) {
            Ok(threads) => snodo_blocking::block_on(run(threads, &call)),
            Err(e) => Err(e.to_string()),
        },
        other => Err(format!("unknown runtime {other} (tokio, smol or blocking)")),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}: {e}", call.scenario);
            ExitCode::FAILURE
        }
    }
}
