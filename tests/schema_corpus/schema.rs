//! The pinned official schema and validators for its named definitions.
//!
//! `testkit/schema/mcp-2026-07-28.schema.json` (carried by snodo-testkit,
//! whose package may read only its own files) is a byte-for-byte
//! copy of `schema/2026-07-28/schema.json` of
//! modelcontextprotocol/modelcontextprotocol @ b0f60ba5 (JSON Schema
//! draft 2020-12, as its `$schema` declares); [`SCHEMA_SHA256`] pins it and
//! `evidence/wire-schema/run` checks the copy against it. Its licence, that
//! repository's `LICENSE`, is `testkit/schema/SCHEMA-LICENSE`.
//!
//! `evidence/wire-schema/tasks-2026-07-28.schema.json` is a byte-for-byte
//! copy of `schema/2026-07-28/schema.json` of modelcontextprotocol/ext-tasks
//! @ 05dde3b8 (the Tasks extension's locked 2026-07-28 schema, draft
//! 2020-12 too); [`TASKS_SCHEMA_SHA256`] pins it, and its licence is
//! `evidence/wire-schema/TASKS-SCHEMA-LICENSE`. A [`Target`] names the
//! schema its definition is taken from.
//!
//! A definition is validated by compiling the whole document with a root
//! `$ref` to `#/$defs/<Name>`, so every `$ref` inside resolves exactly as
//! the schema's authors wrote it. `format` stays an annotation, as the
//! declared dialect (2020-12, default vocabularies) makes it: a server
//! echoing a client's IRI in a resource `uri` is not a schema violation.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use jsonschema::Validator;
use serde_json::{json, Value};

/// SHA-256 of the vendored schema file, as published upstream.
pub const SCHEMA_SHA256: &str = "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203";

/// SHA-256 of the vendored Tasks extension schema, as published upstream.
pub const TASKS_SCHEMA_SHA256: &str =
    "bf30afb7ac251e3e22c037b7a685f60ef6603031b5484c0d08b1fa0bbe86d460";

const SCHEMA_TEXT: &str = include_str!("../../testkit/schema/mcp-2026-07-28.schema.json");
const TASKS_SCHEMA_TEXT: &str =
    include_str!("../../evidence/wire-schema/tasks-2026-07-28.schema.json");

/// Which vendored schema a definition comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Schema {
    /// The core protocol's `schema.json`.
    Core,
    /// The Tasks extension's `schema.json`.
    Tasks,
}

impl Schema {
    /// The parsed schema document.
    pub fn document(self) -> &'static Value {
        static CORE: OnceLock<Value> = OnceLock::new();
        static TASKS: OnceLock<Value> = OnceLock::new();
        match self {
            Schema::Core => CORE.get_or_init(|| {
                serde_json::from_str(SCHEMA_TEXT).expect("the vendored schema is JSON")
            }),
            Schema::Tasks => TASKS.get_or_init(|| {
                serde_json::from_str(TASKS_SCHEMA_TEXT).expect("the vendored Tasks schema is JSON")
            }),
        }
    }

    /// The named definition's own schema object (`$defs.<name>`).
    pub fn definition(self, name: &str) -> &'static Value {
        self.document()["$defs"]
            .get(name)
            .unwrap_or_else(|| panic!("{self:?} schema.json has no definition {name}"))
    }
}

/// The parsed core schema document.
pub fn document() -> &'static Value {
    Schema::Core.document()
}

/// What a value is checked against: a named definition, optionally with
/// its `resultType` pinned to the branch the message claims.
///
/// `schema.json` types `resultType` as any string (`schema.ts`:
/// `"complete" | "input_required" | string`), and every response union
/// (`CallToolResultResponse.result` is `InputRequiredResult` or
/// `CallToolResult`) accepts any result through `InputRequiredResult`,
/// whose only required member is `resultType`. Validating the concrete
/// branch, with `resultType` pinned to the value that selects it
/// (`basic/index.mdx` § resultType: `"complete"` for a final result,
/// `"input_required"` for an [`InputRequiredResult`]), is what makes a
/// missing `content` or `tools` fail.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    /// The `$defs` name.
    pub def: &'static str,
    /// `Some(value)`: `resultType` must equal it.
    pub result_type: Option<&'static str>,
    /// The schema `def` is taken from.
    pub schema: Schema,
}

impl Target {
    /// A definition as published.
    pub const fn def(def: &'static str) -> Target {
        Target {
            def,
            result_type: None,
            schema: Schema::Core,
        }
    }

    /// A definition of the Tasks extension's schema.
    pub const fn tasks(def: &'static str) -> Target {
        Target {
            def,
            result_type: None,
            schema: Schema::Tasks,
        }
    }

    /// A result definition, `resultType` pinned.
    pub const fn branch(def: &'static str, result_type: &'static str) -> Target {
        Target {
            def,
            result_type: Some(result_type),
            schema: Schema::Core,
        }
    }

    /// `Name` or `Name[resultType=value]`; `tasks:Name` for the Tasks
    /// schema's.
    pub fn label(&self) -> String {
        let prefix = match self.schema {
            Schema::Core => "",
            Schema::Tasks => "tasks:",
        };
        match self.result_type {
            Some(v) => format!("{prefix}{}[resultType={v}]", self.def),
            None => format!("{prefix}{}", self.def),
        }
    }

    /// The definition's own schema object.
    pub fn definition(&self) -> &'static Value {
        self.schema.definition(self.def)
    }

    fn root_schema(&self) -> Value {
        let mut doc = self.schema.document().clone();
        let reference = json!({ "$ref": format!("#/$defs/{}", self.def) });
        let root = match self.result_type {
            None => reference,
            Some(v) => json!({
                "allOf": [reference],
                "properties": { "resultType": { "const": v } },
                "required": ["resultType"]
            }),
        };
        let obj = doc
            .as_object_mut()
            .expect("the schema document is an object");
        for (k, v) in root.as_object().expect("an object").clone() {
            obj.insert(k, v);
        }
        doc
    }
}

fn compile(target: &Target) -> Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&target.root_schema())
        .unwrap_or_else(|e| panic!("{} does not compile: {e}", target.label()))
}

/// Validators, compiled once per target and shared across threads.
fn validator(target: &Target) -> &'static Validator {
    static CACHE: OnceLock<Mutex<HashMap<Target, &'static Validator>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
    map.entry(target.clone())
        .or_insert_with(|| Box::leak(Box::new(compile(target))))
}

/// `Ok` when `instance` is valid against `target`, else every error.
pub fn validate(target: &Target, instance: &Value) -> Result<(), Vec<String>> {
    let errors: Vec<String> = validator(target)
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}
