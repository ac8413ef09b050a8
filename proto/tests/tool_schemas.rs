//! One `tool` registration (issue 35): the `inputSchema` a tool publishes
//! is generated from its argument type, and its `outputSchema` from a
//! structured result type, unless the declaration was given a schema by
//! hand, which is published as written; the same holds for a tool added
//! to the live registry, whose handler may take the application's state.
//! Arguments are validated against the published schema before the
//! handler runs (`server/tools.mdx` § Tool: `inputSchema`), so a schema
//! that does not describe the handler's type refuses its calls.
//! Requests are literal wire text over stdio.

mod support;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use snodo_proto::extract::State;
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::typed::Json;
use snodo_proto::{CallToolResult, Implementation, Kinds, Service, Tool, Transport};
use support::Harness;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

#[derive(Deserialize, JsonSchema)]
struct Greet {
    /// Who to greet.
    name: String,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    total: u32,
}

#[derive(Deserialize, JsonSchema)]
struct Add {
    a: u32,
    b: u32,
}

struct App {
    greeting: &'static str,
}

fn send(h: &mut Harness, id: u64, method: &str, params: &str) -> Value {
    let sep = if params.is_empty() { "" } else { "," };
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{META}{sep}{params}}}}}"#
    ) + "\n";
    let out = h.send(line.as_bytes());
    serde_json::from_str(out.trim_end()).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn listed(h: &mut Harness) -> Vec<Value> {
    let list = send(h, 100, "tools/list", "");
    list["result"]["tools"].as_array().unwrap().clone()
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {tools:?}"))
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn service() -> Service {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .changing(Kinds::default().tools())
        .tool(Tool::new("greet", "Greets"), |a: Greet| async move {
            CallToolResult::text(format!("hello, {}", a.name))
        })
        .tool(Tool::new("add", "Adds"), |a: Add| async move {
            Json(Sum { total: a.a + a.b })
        })
        .tool(
            Tool::new("raw", "Hand-written schema")
                .input_schema(json(r#"{"type":"object","properties":{"q":{"type":"string","maxLength":3}}}"#))
                .output_schema(json(r#"{"type":"object","properties":{"total":{"type":"integer"}},"required":["total"]}"#)),
            |a: Value| async move {
                Json(Sum {
                    total: a["q"].as_str().map_or(0, |q| q.len() as u32),
                })
            },
        )
        .state(App { greeting: "hi" })
        .tool(Tool::new("hail", "Hails"), |s: State<App>, a: Greet| async move {
            CallToolResult::text(format!("{}, {}", s.greeting, a.name))
        })
        .build()
        .unwrap()
}

#[test]
fn a_tool_registered_with_typed_arguments_publishes_their_schema_and_accepts_them() {
    let service = service();
    let mut h = Harness::new(&service, Transport::Stdio);
    let call = send(
        &mut h,
        1,
        "tools/call",
        r#""name":"greet","arguments":{"name":"Ada"}"#,
    );
    assert_eq!(
        call["result"]["content"],
        json(r#"[{"type":"text","text":"hello, Ada"}]"#),
        "{call}"
    );
    assert_eq!(call["result"].get("isError"), None, "{call}");

    let tools = listed(&mut h);
    assert_eq!(
        tool(&tools, "greet")["inputSchema"],
        json(
            r#"{"type":"object","properties":{"name":{"type":"string","description":"Who to greet."}},"required":["name"]}"#
        )
    );
    assert_eq!(tool(&tools, "greet").get("outputSchema"), None);

    let bad = send(
        &mut h,
        2,
        "tools/call",
        r#""name":"greet","arguments":{"name":7}"#,
    );
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}

#[test]
fn a_structured_result_type_publishes_its_output_schema() {
    let service = service();
    let mut h = Harness::new(&service, Transport::Stdio);
    let tools = listed(&mut h);
    assert_eq!(
        tool(&tools, "add")["inputSchema"],
        json(
            r#"{"type":"object","properties":{"a":{"type":"integer","minimum":0},"b":{"type":"integer","minimum":0}},"required":["a","b"]}"#
        )
    );
    assert_eq!(
        tool(&tools, "add")["outputSchema"],
        json(
            r#"{"type":"object","properties":{"total":{"type":"integer","minimum":0}},"required":["total"]}"#
        )
    );
    let call = send(
        &mut h,
        1,
        "tools/call",
        r#""name":"add","arguments":{"a":2,"b":3}"#,
    );
    assert_eq!(
        call["result"]["structuredContent"],
        json(r#"{"total":5}"#),
        "{call}"
    );
}

#[test]
fn a_hand_written_schema_is_published_as_written_and_enforced() {
    let service = service();
    let mut h = Harness::new(&service, Transport::Stdio);
    let tools = listed(&mut h);
    assert_eq!(
        tool(&tools, "raw")["inputSchema"],
        json(r#"{"type":"object","properties":{"q":{"type":"string","maxLength":3}}}"#)
    );
    assert_eq!(
        tool(&tools, "raw")["outputSchema"],
        json(r#"{"type":"object","properties":{"total":{"type":"integer"}},"required":["total"]}"#)
    );
    let call = send(
        &mut h,
        1,
        "tools/call",
        r#""name":"raw","arguments":{"q":"abc"}"#,
    );
    assert_eq!(
        call["result"]["structuredContent"],
        json(r#"{"total":3}"#),
        "{call}"
    );
    let long = send(
        &mut h,
        2,
        "tools/call",
        r#""name":"raw","arguments":{"q":"abcd"}"#,
    );
    assert_eq!(
        long["error"]["code"], -32602,
        "the hand-written maxLength holds: {long}"
    );
}

#[test]
fn a_tool_with_state_publishes_its_argument_schema() {
    let service = service();
    let mut h = Harness::new(&service, Transport::Stdio);
    let tools = listed(&mut h);
    assert_eq!(
        tool(&tools, "hail")["inputSchema"],
        tool(&tools, "greet")["inputSchema"]
    );
    let call = send(
        &mut h,
        1,
        "tools/call",
        r#""name":"hail","arguments":{"name":"Ada"}"#,
    );
    assert_eq!(
        call["result"]["content"],
        json(r#"[{"type":"text","text":"hi, Ada"}]"#),
        "{call}"
    );
}

#[test]
fn a_typed_tool_with_state_added_at_run_time_is_published_and_called() {
    let service = service();
    let mut h = Harness::new(&service, Transport::Stdio);
    service
        .registry()
        .change()
        .tool(
            Tool::new("late", "Added later"),
            |a: Greet, s: State<App>| async move {
                CallToolResult::text(format!("{}, {}", s.greeting, a.name))
            },
        )
        .commit()
        .unwrap();
    let tools = listed(&mut h);
    assert_eq!(
        tool(&tools, "late")["inputSchema"],
        tool(&tools, "greet")["inputSchema"]
    );
    let call = send(
        &mut h,
        1,
        "tools/call",
        r#""name":"late","arguments":{"name":"Ada"}"#,
    );
    assert_eq!(
        call["result"]["content"],
        json(r#"[{"type":"text","text":"hi, Ada"}]"#),
        "{call}"
    );
    let bad = send(&mut h, 2, "tools/call", r#""name":"late","arguments":{}"#);
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}

#[test]
fn arguments_of_any_shape_publish_an_object_schema() {
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .tool(Tool::new("any", "Anything"), |a: Value| async move {
            CallToolResult::text(a.to_string())
        })
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    let tools = listed(&mut h);
    assert_eq!(
        tool(&tools, "any")["inputSchema"],
        json(r#"{"type":"object"}"#)
    );
    let call = send(
        &mut h,
        1,
        "tools/call",
        r#""name":"any","arguments":{"x":1}"#,
    );
    assert_eq!(
        call["result"]["content"],
        json(r#"[{"type":"text","text":"{\"x\":1}"}]"#),
        "{call}"
    );
}
