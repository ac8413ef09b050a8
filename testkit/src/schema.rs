//! Checks against the MCP schema, for tests of what a service puts on the
//! wire: a message against a definition of the revision's `schema.json`,
//! and a tool's `inputSchema` or `outputSchema` against JSON Schema 2020-12
//! (`server/tools.mdx` § Tool: both are 2020-12 documents, `type: object`
//! at the root).
//!
//! The `schema.json` is the 2026-07-28 one, carried in this crate
//! (`schema/mcp-2026-07-28.schema.json`, byte for byte the specification's,
//! with its licence beside it as `schema/SCHEMA-LICENSE`; the repository's
//! `evidence/wire-schema/README.md` gives the commit and checksum). It lives
//! here, not in the evidence lane, because a published package may read
//! only its own files; the lane and the corpus test read this copy. Each check
//! panics, naming what failed, as `assert!` does.

use std::sync::OnceLock;

use serde_json::{json, Value};

/// The specification's `schema.json` for 2026-07-28, as vendored.
const SCHEMA_JSON: &str = include_str!("../schema/mcp-2026-07-28.schema.json");

fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| serde_json::from_str(SCHEMA_JSON).expect("the vendored schema.json is JSON"))
}

/// Check `instance` against `$defs/<definition>` of the 2026-07-28
/// `schema.json` (every `$ref` resolved inside that document), as JSON
/// Schema 2020-12.
///
/// # Panics
///
/// When `instance` is not a valid `definition` (the message names the
/// definition and the first violation), or when the schema has no such
/// definition.
///
/// ```
/// use serde_json::json;
/// snodo_testkit::assert_schema_valid("Implementation", &json!({"name": "notes", "version": "1.0.0"}));
/// ```
///
/// ```should_panic
/// # use serde_json::json;
/// // `version` is required.
/// snodo_testkit::assert_schema_valid("Implementation", &json!({"name": "notes"}));
/// ```
pub fn assert_schema_valid(definition: &str, instance: &Value) {
    assert!(
        document()["$defs"].get(definition).is_some(),
        "schema.json has no definition {definition}"
    );
    let mut doc = document().clone();
    doc["$ref"] = json!(format!("#/$defs/{definition}"));
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&doc)
        .expect("the vendored schema.json compiles");
    if let Err(e) = validator.validate(instance) {
        panic!("not a valid {definition} of schema.json: {e}");
    }
}

/// Check that `schema` is a JSON Schema 2020-12 document (valid against
/// the 2020-12 meta-schema), as a tool's `inputSchema` and `outputSchema`
/// must be; `what` names it in the panic message.
///
/// # Panics
///
/// When `schema` is not valid against the meta-schema.
///
/// ```
/// use serde_json::json;
/// snodo_testkit::assert_json_schema_2020_12("inputSchema", &json!({"type": "object"}));
/// ```
///
/// ```should_panic
/// # use serde_json::json;
/// snodo_testkit::assert_json_schema_2020_12("inputSchema", &json!({"type": "objekt"}));
/// ```
pub fn assert_json_schema_2020_12(what: &str, schema: &Value) {
    if let Err(e) = jsonschema::draft202012::meta::validator().validate(schema) {
        panic!("{what} is not JSON Schema 2020-12: {e}");
    }
}
