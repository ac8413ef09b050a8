//! `tools-list`, `tools-call-*`, `server-stateless` (capability and logging
//! probes), `json-schema-2020-12` and the `x-mcp-header` tool.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::{error, exchange, is_png, is_wav, response, result};

/// `SCENARIOS-2026-07-28.md` § 3.3 `tools-name-format`:
/// `^[A-Za-z0-9_./-]{1,64}$`.
fn name_format_ok(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-'))
}

#[test]
fn name_format_check_rejects_what_the_suite_rejects() {
    assert!(name_format_ok("test_simple_text"));
    assert!(name_format_ok("a/b.c-d"));
    assert!(!name_format_ok(""));
    assert!(!name_format_ok("has space"));
    assert!(!name_format_ok(&"x".repeat(65)));
}

#[test]
fn tools_list_publishes_every_fixture_tool_in_order() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    let tools = r["tools"].as_array().expect("tools array");
    let names: Vec<&str> = tools
        .iter()
        .map(|t| t["name"].as_str().expect("string name"))
        .collect();
    assert_eq!(
        names,
        [
            "test_simple_text",
            "test_image_content",
            "test_audio_content",
            "test_embedded_resource",
            "test_multiple_content_types",
            "test_error_handling",
            "test_tool_with_progress",
            "test_missing_capability",
            "test_logging_tool",
            "json_schema_2020_12_tool",
            "test_header_param",
            "test_trigger_tool_change",
            "test_trigger_prompt_change",
            "test_streaming_elicitation",
            "test_input_required_result_elicitation",
            "test_input_required_result_sampling",
            "test_input_required_result_list_roots",
            "test_input_required_result_request_state",
            "test_input_required_result_multiple_inputs",
            "test_input_required_result_multi_round",
            "test_input_required_result_tampered_state",
            "test_input_required_result_capabilities",
            "test_url_elicitation",
            "test_cancellable_wait",
            "greet",
            "slow_compute",
            "failing_job",
            "protocol_error_job",
            "confirm_delete",
            "multi_input",
            "test_tool_with_task",
            "test_tool_with_logging",
            "test_sampling",
            "test_elicitation",
            "test_elicitation_sep1034_defaults",
            "test_elicitation_sep1330_enums",
        ]
    );
    for t in tools {
        assert!(name_format_ok(t["name"].as_str().unwrap()), "{t}");
        let description = t["description"].as_str().unwrap_or_default();
        assert!(!description.is_empty(), "tool without description: {t}");
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
    }
    assert!(r.get("nextCursor").is_none(), "one page expected: {r}");
    // The first tool takes no arguments (http-header-validation calls it with `{}`).
    assert_eq!(
        tools[0]["inputSchema"],
        json!({"type":"object","additionalProperties":false})
    );
}

#[test]
fn simple_text_without_arguments_member() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    assert_eq!(
        r["content"],
        json!([{"type":"text","text":"This is a simple text response for testing."}])
    );
    assert!(r.get("isError").is_none(), "{r}");
}

#[test]
fn first_tool_accepts_empty_arguments() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(
        r["content"][0]["text"],
        "This is a simple text response for testing."
    );
}

#[test]
fn image_content_is_a_png() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_image_content","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    let content = r["content"].as_array().unwrap();
    assert_eq!(content.len(), 1);
    assert_eq!(content[0]["type"], "image");
    assert_eq!(content[0]["mimeType"], "image/png");
    assert!(is_png(content[0]["data"].as_str().unwrap()), "{r}");
}

#[test]
fn audio_content_is_a_wav() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_audio_content","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    let content = r["content"].as_array().unwrap();
    assert_eq!(content.len(), 1);
    assert_eq!(content[0]["type"], "audio");
    assert_eq!(content[0]["mimeType"], "audio/wav");
    assert!(is_wav(content[0]["data"].as_str().unwrap()), "{r}");
}

#[test]
fn embedded_resource_content() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_embedded_resource","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    assert_eq!(
        r["content"],
        json!([{"type":"resource","resource":{"uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}}])
    );
}

#[test]
fn mixed_content_has_text_image_and_resource() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_multiple_content_types","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    let content = r["content"].as_array().unwrap();
    assert_eq!(content.len(), 3);
    assert_eq!(
        content[0],
        json!({"type":"text","text":"Multiple content types test:"})
    );
    assert_eq!(content[1]["type"], "image");
    assert_eq!(content[1]["mimeType"], "image/png");
    assert!(is_png(content[1]["data"].as_str().unwrap()));
    assert_eq!(
        content[2],
        json!({"type":"resource","resource":{"uri":"test://mixed-content-resource","mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}})
    );
}

#[test]
fn error_handling_is_a_result_with_is_error() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_error_handling","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    assert_eq!(r["isError"], true);
    assert_eq!(
        r["content"],
        json!([{"type":"text","text":"This tool intentionally returns an error for testing"}])
    );
}

#[test]
fn progress_notifications_precede_the_result() {
    let started = Instant::now();
    let lines = exchange(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}},"progressToken":"progress-test-1"}}}"#,
    );
    // Two 50 ms pauses between the three reports.
    assert!(
        started.elapsed() >= Duration::from_millis(100),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(lines.len(), 4, "{lines:?}");
    for (line, progress) in lines.iter().zip([0, 50, 100]) {
        assert_eq!(
            *line,
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-test-1","progress":progress as f64,"total":100.0}})
        );
    }
    assert_eq!(lines[3]["id"], 1);
    assert_eq!(lines[3]["result"]["content"][0]["type"], "text");
    assert!(!lines[3]["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .is_empty());
}

#[test]
fn progress_tool_without_token_just_answers() {
    let lines = exchange(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["id"], 1);
    assert_eq!(lines[0]["result"]["resultType"], "complete");
}

#[test]
fn missing_sampling_capability_is_32021() {
    // server-stateless probe 401: clientCapabilities `{}`.
    let resp = response(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_missing_capability","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert!(resp.get("result").is_none(), "{resp}");
    assert_eq!(resp["error"]["code"], -32021);
    assert_eq!(
        resp["error"]["data"],
        json!({"requiredCapabilities":{"sampling":{}}})
    );
    assert!(!resp["error"]["message"].as_str().unwrap().is_empty());
}

#[test]
fn declared_sampling_capability_succeeds() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_missing_capability","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}"#,
    );
    assert_eq!(r["content"], json!([{"type":"text","text":"Success"}]));
}

#[test]
fn logging_tool_is_silent_without_log_level() {
    let lines = exchange(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_logging_tool","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(
        lines[0]["result"]["content"],
        json!([{"type":"text","text":"Logging evaluated"}])
    );
}

#[test]
fn logging_tool_logs_at_and_above_the_requested_level() {
    let lines = exchange(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_logging_tool","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}"#,
    );
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(
        lines[0],
        json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"snodo-fixture","data":"Logging tool: info message"}})
    );
    assert_eq!(
        lines[1],
        json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"snodo-fixture","data":"Logging tool: warning message"}})
    );
    assert_eq!(
        lines[2]["result"]["content"][0]["text"],
        "Logging evaluated"
    );
}

fn list_tool(name: &str) -> Value {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    r["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed"))
        .clone()
}

#[test]
fn json_schema_2020_12_keywords_are_published_verbatim() {
    let tool = list_tool("json_schema_2020_12_tool");
    let schema = &tool["inputSchema"];
    let expected: Value = serde_json::from_str(
        r##"{
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        }"##,
    )
    .unwrap();
    assert_eq!(*schema, expected);
    // The individual checks of `SCENARIOS-2026-07-28.md` § 3.48.
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert!(schema["$defs"]["address"].is_object());
    assert_eq!(schema["additionalProperties"], false);
    assert!(schema["allOf"][0]["anyOf"].is_array());
    assert!(schema["if"].is_object() && schema["then"].is_object() && schema["else"].is_object());
    assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
    assert_eq!(
        tool["description"],
        "Tool with JSON Schema 2020-12 features"
    );
}

#[test]
fn json_schema_2020_12_tool_runs_with_valid_arguments() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"json_schema_2020_12_tool","arguments":{"name":"Ada","contactMethod":"email","email":"ada@example.com","address":{"street":"1 Main St","city":"Springfield"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("ada@example.com") && text.contains("Springfield"),
        "{text}"
    );
}

#[test]
fn json_schema_2020_12_conditionals_are_enforced() {
    // contactMethod "phone" makes `then` require `phone`.
    let e = error(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"json_schema_2020_12_tool","arguments":{"contactMethod":"phone","email":"ada@example.com"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(e["code"], -32602);
    // additionalProperties: false.
    let e = error(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"json_schema_2020_12_tool","arguments":{"email":"ada@example.com","nickname":"A"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(e["code"], -32602);
}

#[test]
fn header_param_tool_declares_a_direct_string_header_property() {
    let tool = list_tool("test_header_param");
    assert_eq!(
        tool["inputSchema"],
        json!({"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]})
    );
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_header_param","arguments":{"region":"=?base64?SGVsbG8="},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(
        r["content"],
        json!([{"type":"text","text":"Region: =?base64?SGVsbG8="}])
    );
}

#[test]
fn header_param_tool_requires_region() {
    let e = error(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_header_param","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(e["code"], -32602);
}
