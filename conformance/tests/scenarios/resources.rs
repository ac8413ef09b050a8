//! `resources-list`, `resources-read-*`, `resources-templates-read`,
//! `sep-2164-resource-not-found`.

use serde_json::json;

use crate::harness::{error, is_png, response, result};

#[test]
fn resources_list_starts_with_static_text() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    assert_eq!(
        r["resources"],
        json!([
            {"uri":"test://static-text","name":"static-text","description":"A static text resource for testing","mimeType":"text/plain"},
            {"uri":"test://static-binary","name":"static-binary","description":"A static binary resource (a 1x1 PNG image) for testing","mimeType":"image/png"},
            {"uri":"test://watched-resource","name":"watched-resource","description":"A resource clients may subscribe to for updates","mimeType":"text/plain"}
        ])
    );
}

#[test]
fn read_static_text() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://static-text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    assert_eq!(
        r["contents"],
        json!([{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}])
    );
    // Static contents: the handler's own hint overrides the private default.
    assert_eq!(r["ttlMs"], 60000);
    assert_eq!(r["cacheScope"], "public");
}

#[test]
fn read_static_binary() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://static-binary","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    let contents = r["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 1);
    assert_eq!(contents[0]["uri"], "test://static-binary");
    assert_eq!(contents[0]["mimeType"], "image/png");
    assert!(contents[0].get("text").is_none());
    assert!(is_png(contents[0]["blob"].as_str().unwrap()), "{r}");
}

#[test]
fn templates_list_names_the_data_template() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/templates/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(
        r["resourceTemplates"],
        json!([{"uriTemplate":"test://template/{id}/data","name":"template-data","description":"A templated resource whose contents name the requested id","mimeType":"application/json"}])
    );
}

#[test]
fn read_template_123() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://template/123/data","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    assert_eq!(
        r["contents"],
        json!([{"uri":"test://template/123/data","mimeType":"application/json","text":"{\"id\":\"123\",\"templateTest\":true,\"data\":\"Data for ID: 123\"}"}])
    );
    assert!(r["contents"][0]["text"].as_str().unwrap().contains("123"));
    // No override: the service's read default.
    assert_eq!(r["ttlMs"], 0);
    assert_eq!(r["cacheScope"], "private");
}

#[test]
fn read_template_escapes_the_id_in_its_json() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://template/a%22b/data","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    let text = r["contents"][0]["text"].as_str().unwrap();
    let parsed: serde_json::Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(parsed["templateTest"], true);
    assert_eq!(
        parsed["data"],
        format!("Data for ID: {}", parsed["id"].as_str().unwrap())
    );
}

#[test]
fn unknown_resource_is_32602_with_uri() {
    let resp = response(
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://nonexistent-resource-for-conformance-testing","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    );
    assert!(
        resp.get("result").is_none(),
        "never an empty contents: {resp}"
    );
    assert_eq!(resp["error"]["code"], -32602);
    assert_eq!(
        resp["error"]["data"]["uri"],
        "test://nonexistent-resource-for-conformance-testing"
    );
}

#[test]
fn template_shaped_but_unmatched_uri_is_not_found() {
    let e = error(
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://template/123/other","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(e["code"], -32602);
    assert_eq!(e["data"]["uri"], "test://template/123/other");
}
