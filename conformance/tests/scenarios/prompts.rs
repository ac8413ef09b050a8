//! `prompts-list` and `prompts-get-*`.

use serde_json::json;

use crate::harness::{error, is_png, result};

#[test]
fn prompts_list_has_described_prompts() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    let prompts = r["prompts"].as_array().unwrap();
    let names: Vec<&str> = prompts
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "test_simple_prompt",
            "test_prompt_with_arguments",
            "test_prompt_with_embedded_resource",
            "test_prompt_with_image",
            "test_input_required_result_prompt",
        ]
    );
    for p in prompts {
        assert!(
            !p["description"].as_str().unwrap_or_default().is_empty(),
            "{p}"
        );
    }
    assert!(prompts[0].get("arguments").is_none());
    assert_eq!(
        prompts[1]["arguments"],
        json!([
            {"name":"arg1","description":"First test argument","required":true},
            {"name":"arg2","description":"Second test argument","required":true}
        ])
    );
    assert_eq!(
        prompts[2]["arguments"],
        json!([{"name":"resourceUri","description":"URI of the resource to embed","required":true}])
    );
    assert!(prompts[3].get("arguments").is_none());
}

#[test]
fn simple_prompt_without_arguments_member() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"test_simple_prompt","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    assert_eq!(
        r["messages"],
        json!([{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}])
    );
}

#[test]
fn prompt_with_arguments_renders_both() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"testValue1","arg2":"testValue2"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    assert_eq!(
        r["messages"],
        json!([{"role":"user","content":{"type":"text","text":"Prompt with arguments: arg1='testValue1', arg2='testValue2'"}}])
    );
}

#[test]
fn prompt_with_arguments_requires_arg2() {
    let e = error(
        r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"testValue1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(e["code"], -32602);
}

#[test]
fn prompt_with_embedded_resource_embeds_the_given_uri() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"test_prompt_with_embedded_resource","arguments":{"resourceUri":"test://example-resource"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    assert_eq!(
        r["messages"],
        json!([
            {"role":"user","content":{"type":"resource","resource":{"uri":"test://example-resource","mimeType":"text/plain","text":"Embedded resource content for testing."}}},
            {"role":"user","content":{"type":"text","text":"Please process the embedded resource above."}}
        ])
    );
}

#[test]
fn prompt_with_image_carries_a_png() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"test_prompt_with_image","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    let messages = r["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(messages[0]["content"]["type"], "image");
    assert_eq!(messages[0]["content"]["mimeType"], "image/png");
    assert!(is_png(messages[0]["content"]["data"].as_str().unwrap()));
    assert_eq!(
        messages[1],
        json!({"role":"user","content":{"type":"text","text":"Please analyze the image above."}})
    );
}
