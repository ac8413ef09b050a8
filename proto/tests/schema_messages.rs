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
fn a_member_of_an_object_that_allows_none_is_named() {
    // The schema of a tool without arguments (`NoArgs`).
    let schema = Compiled::new(&json!({"type": "object", "additionalProperties": false})).unwrap();
    assert_eq!(
        schema.validate(&json!({"full": true})),
        Err("Additional properties are not allowed ('full' was unexpected)".to_string())
    );
    assert_eq!(
        schema.validate(&json!({"a": 1, "b": 2})),
        Err("Additional properties are not allowed ('a', 'b' were unexpected)".to_string())
    );
    // Nested, with its location.
    let schema = Compiled::new(&json!({
        "type": "object",
        "properties": {"opts": {"type": "object", "additionalProperties": false}}
    }))
    .unwrap();
    assert_eq!(
        schema.validate(&json!({"opts": {"x": 1}})),
        Err("/opts: Additional properties are not allowed ('x' was unexpected)".to_string())
    );
    assert_eq!(schema.validate(&json!({"opts": {}})), Ok(()));
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
