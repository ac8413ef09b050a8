//! `caching` and the discovery checks of `server-stateless`: the six
//! cacheable results carry `ttlMs` and `cacheScope`.

use serde_json::Value;

use crate::harness::result;

fn assert_cache_hints(r: &Value, ttl: u64, scope: &str) {
    assert!(
        r["ttlMs"].is_u64(),
        "ttlMs must be a non-negative integer: {r}"
    );
    assert_eq!(r["ttlMs"], ttl, "{r}");
    assert_eq!(r["cacheScope"], scope, "{r}");
}

#[test]
fn discover_declares_what_the_fixture_serves() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    let versions = r["supportedVersions"].as_array().unwrap();
    assert!(versions.iter().any(|v| v == "2026-07-28"), "{r}");
    let caps = r["capabilities"].as_object().unwrap();
    for key in ["tools", "prompts", "resources", "completions", "logging"] {
        assert!(caps[key].is_object(), "capability {key} missing: {r}");
    }
    assert!(caps.get("tasks").is_none());
    assert_cache_hints(&r, 60000, "public");
}

#[test]
fn the_four_lists_carry_cache_hints() {
    for request in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/templates/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{"listChanged":true}}}}}"#,
    ] {
        assert_cache_hints(&result(request), 60000, "public");
    }
}

#[test]
fn reading_the_first_listed_resource_carries_cache_hints() {
    let list = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(list["resources"][0]["uri"], "test://static-text");
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://static-text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_cache_hints(&r, 60000, "public");
}

#[test]
fn non_cacheable_results_carry_no_cache_hints() {
    let r = result(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert!(
        r.get("ttlMs").is_none() && r.get("cacheScope").is_none(),
        "{r}"
    );
}
