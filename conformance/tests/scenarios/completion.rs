//! `completion-complete` and the completer's other answers.

use serde_json::json;

use crate::harness::result;

#[test]
fn conformance_probe_arg1_test() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"test"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    assert_eq!(
        r["completion"],
        json!({"values":["testValue1","test-alpha","test-beta"],"total":3,"hasMore":false})
    );
}

#[test]
fn arg2_with_empty_prefix_lists_everything() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg2","value":""},"context":{"arguments":{"arg1":"testValue1"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(
        r["completion"]["values"],
        json!(["testValue2", "test-gamma", "test-delta", "example-2"])
    );
}

#[test]
fn template_id_by_prefix() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(
        r["completion"],
        json!({"values":["1","123"],"total":2,"hasMore":false})
    );
}

#[test]
fn unknown_argument_gets_no_values() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg3","value":"t"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(r["completion"]["values"], json!([]));
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_simple_prompt"},"argument":{"name":"arg1","value":""},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(r["completion"]["values"], json!([]));
}
