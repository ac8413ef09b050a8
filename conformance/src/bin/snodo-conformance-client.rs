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

use std::process::ExitCode;
use std::sync::Arc;

use serde_json::{json, Map, Value};
use snodo_client::{Authorizer, Error, Handler, HttpTransport, Session, Step};
use snodo_proto::client::{ClientConfig, Wire, SUPPORTED_VERSIONS};
use snodo_proto::ErrorObject;

/// The authorization hook for the `auth/*` scenarios; `None` until the
/// OAuth client is wired in.
fn authorizer(scenario: &str, context: &Value) -> Option<Arc<dyn Authorizer>> {
    let _ = (scenario, context);
    None
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

type Client = Session<HttpTransport, Consenting>;

/// Arguments for a tool from its schema's required properties: a plain
/// value of each type (the tool is called to show it was kept, not for
/// its answer).
fn sample_arguments(tool: &Value) -> Value {
    let schema = &tool["inputSchema"];
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

fn call_every_tool(session: &mut Client) -> Result<(), Error> {
    for tool in session.list_tools()? {
        let name = tool["name"].as_str().unwrap_or_default().to_string();
        session.call_tool(&name, sample_arguments(&tool))?;
    }
    Ok(())
}

/// `sep-2322-client-request-state`: an MRTR round with state, another
/// tool called while that round waits, a round without state, and a
/// result without `resultType`.
fn mrtr_rounds(session: &mut Client) -> Result<(), Error> {
    session.list_tools()?;
    let echo = session.start(
        "tools/call",
        json!({"name": "test_mrtr_echo_state", "arguments": {}}),
    )?;
    session.call_tool("test_mrtr_unrelated", json!({}))?;
    finish_rounds(session, echo)?;
    let no_state = session.start(
        "tools/call",
        json!({"name": "test_mrtr_no_state", "arguments": {}}),
    )?;
    finish_rounds(session, no_state)?;
    session.call_tool("test_mrtr_no_result_type", json!({}))?;
    Ok(())
}

fn finish_rounds(session: &mut Client, mut step: Step) -> Result<Value, Error> {
    loop {
        match step {
            Step::Done(result) => return Ok(result),
            Step::Task(task) => return session.await_task(task),
            Step::Extension { result, .. } => return Ok(result),
            Step::InputRequired { op, requests } => {
                let responses = session.answer_inputs(&requests);
                step = session.resume(op, responses)?;
            }
        }
    }
}

/// `http-standard-headers`: one request of each named method.
fn every_method(session: &mut Client) -> Result<(), Error> {
    for tool in session.list_tools()? {
        let name = tool["name"].as_str().unwrap_or_default().to_string();
        session.call_tool(&name, json!({}))?;
    }
    for resource in session.list_all("resources/list", "resources")? {
        session.request("resources/read", json!({"uri": resource["uri"]}))?;
    }
    for prompt in session.list_all("prompts/list", "prompts")? {
        session.request("prompts/get", json!({"name": prompt["name"]}))?;
    }
    Ok(())
}

/// The calls the scenario's context lists (`http-custom-headers`).
fn context_calls(session: &mut Client, context: &Value) -> Result<(), Error> {
    session.list_tools()?;
    for call in context["toolCalls"].as_array().into_iter().flatten() {
        let name = call["name"].as_str().unwrap_or_default();
        session.call_tool(name, call["arguments"].clone())?;
    }
    Ok(())
}

/// `json-schema-2020-12-preservation`: hand the focal tool's
/// `inputSchema`, as this client holds it, back to the echo tool.
fn echo_schema(session: &mut Client) -> Result<(), Error> {
    let tools = session.list_tools()?;
    let focal = tools
        .iter()
        .find(|t| t["name"] == "json_schema_2020_12_tool")
        .map(|t| t["inputSchema"].clone())
        .unwrap_or(Value::Null);
    session.call_tool("json_schema_echo", json!({"schema": focal}))?;
    Ok(())
}

fn run(scenario: &str, url: &str, version: &str, context: &Value) -> Result<(), Error> {
    let mut transport = HttpTransport::new(url)?;
    if let Some(auth) = authorizer(scenario, context) {
        transport = transport.with_authorizer(auth);
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
    config.versions = std::iter::once(version)
        .chain(SUPPORTED_VERSIONS.iter().copied().filter(|v| *v != version))
        .map(String::from)
        .collect();
    let mut session = Session::connect(transport, config, Consenting)?;
    match scenario {
        "tools_call" => {
            for tool in session.list_tools()? {
                if tool["name"] == "add_numbers" {
                    session.call_tool("add_numbers", json!({"a": 5, "b": 3}))?;
                }
            }
            Ok(())
        }
        "sep-2322-client-request-state" => mrtr_rounds(&mut session),
        "http-standard-headers" => every_method(&mut session),
        "http-custom-headers" => context_calls(&mut session, context),
        "http-invalid-tool-headers" => call_every_tool(&mut session),
        "json-schema-2020-12-preservation" => echo_schema(&mut session),
        // request-metadata, json-schema-ref-no-deref, and the rest: list.
        _ => session.list_tools().map(|_| ()),
    }
}

fn main() -> ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: snodo-conformance-client <server-url>");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .ok()
        .filter(|v| SUPPORTED_VERSIONS.contains(&v.as_str()))
        .unwrap_or_else(|| String::from(SUPPORTED_VERSIONS[0]));
    let context = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    match run(&scenario, &url, &version, &context) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{scenario}: {e}");
            ExitCode::FAILURE
        }
    }
}
