//! What a client is told when its arguments do not match the tool's schema.

use serde_json::json;
use snodo_proto::schema::Compiled;

#[test]
fn unexpected_property_is_named() {
    let schema = Compiled::new(&json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": false
    }))
    .unwrap();
    let err = schema.validate(&json!({"a": "x", "extra": 1})).unwrap_err();
    assert!(err.contains("extra"), "{err}");
}

#[test]
fn missing_required_property_is_named() {
    let schema = Compiled::new(&json!({"type": "object", "required": ["expression"]})).unwrap();
    let err = schema.validate(&json!({})).unwrap_err();
    assert!(err.contains("expression"), "{err}");
}

#[test]
fn external_refs_and_unknown_dialects_are_refused() {
    let e = Compiled::new(
        &json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}),
    )
    .unwrap_err();
    assert!(e.contains("example.com"), "{e}");
    let e = Compiled::new(&json!({"$schema": "https://example.com/my-dialect", "type": "object"}))
        .unwrap_err();
    assert!(e.contains("not supported"), "{e}");
}
