//! JSON Schema validation of tool arguments and structured output
//! (`basic/index.mdx` § JSON Schema Usage), behind the `std` feature.
//!
//! - Schemas without `$schema` are 2020-12; other dialects the validator
//!   knows (draft 4, 6, 7, 2019-09) are honoured; any other `$schema` is
//!   refused at registration with an error naming the dialect.
//! - `$ref` is never dereferenced over the network or the file system: every
//!   external retrieval is refused, so a schema with an unresolvable
//!   external `$ref` is rejected when the tool is registered.
//! - Cost is bounded up front: schemas deeper than [`MAX_SCHEMA_DEPTH`] or
//!   with more than [`MAX_SCHEMA_NODES`] JSON nodes are refused, and
//!   instances are bounded by the transport's message-size limit.

use alloc::format;
use alloc::string::String;
use serde_json::Value;

/// Deepest nesting accepted in a schema.
pub const MAX_SCHEMA_DEPTH: usize = 64;
/// Most JSON nodes accepted in a schema.
pub const MAX_SCHEMA_NODES: usize = 20_000;

const KNOWN_DIALECTS: &[&str] = &[
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-04/schema",
];

/// Check the size bounds of a schema.
pub fn check_bounds(schema: &Value) -> Result<(), String> {
    fn walk(v: &Value, depth: usize, nodes: &mut usize) -> Result<(), String> {
        *nodes += 1;
        if *nodes > MAX_SCHEMA_NODES {
            return Err(format!("schema has more than {MAX_SCHEMA_NODES} nodes"));
        }
        if depth > MAX_SCHEMA_DEPTH {
            return Err(format!(
                "schema is nested deeper than {MAX_SCHEMA_DEPTH} levels"
            ));
        }
        match v {
            Value::Object(m) => m.values().try_for_each(|c| walk(c, depth + 1, nodes)),
            Value::Array(a) => a.iter().try_for_each(|c| walk(c, depth + 1, nodes)),
            _ => Ok(()),
        }
    }
    let mut nodes = 0;
    walk(schema, 0, &mut nodes)
}

/// The dialect a schema declares, if it is one we do not support.
pub fn unsupported_dialect(schema: &Value) -> Option<String> {
    let declared = schema.get("$schema")?.as_str()?;
    let normalized = declared.trim_end_matches('#');
    if KNOWN_DIALECTS.contains(&normalized) {
        None
    } else {
        Some(String::from(declared))
    }
}

#[cfg(feature = "std")]
pub use compiled::Compiled;

#[cfg(feature = "std")]
mod compiled {
    use super::*;
    use alloc::boxed::Box;
    use alloc::vec::Vec;

    /// A compiled schema, ready to validate instances.
    pub struct Compiled(jsonschema::Validator);

    impl core::fmt::Debug for Compiled {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("Compiled")
        }
    }

    struct RefuseRetrieval;

    impl jsonschema::Retrieve for RefuseRetrieval {
        fn retrieve(
            &self,
            uri: &jsonschema::Uri<String>,
        ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
            Err(format!(
                "external $ref {} is not dereferenced (network and file $refs are refused)",
                uri.as_str()
            )
            .into())
        }
    }

    /// The message for `additionalProperties: false` with no `properties`
    /// or `patternProperties` beside it (the schema of a tool without
    /// arguments): the validator reports a false schema at the object
    /// ("False schema does not allow 1"), not which member broke it, so it
    /// is said here in the words it uses when the object has properties:
    /// every member is unexpected.
    fn closed_object(e: &jsonschema::ValidationError<'_>, instance: &Value) -> Option<String> {
        if !matches!(
            e.kind(),
            jsonschema::error::ValidationErrorKind::FalseSchema
        ) || !e.schema_path().as_str().ends_with("/additionalProperties")
        {
            return None;
        }
        let object = instance.pointer(e.instance_path().as_str())?.as_object()?;
        if object.is_empty() {
            return None;
        }
        let names: Vec<String> = object.keys().map(|k| format!("'{k}'")).collect();
        let verb = if names.len() == 1 { "was" } else { "were" };
        Some(format!(
            "Additional properties are not allowed ({} {verb} unexpected)",
            names.join(", ")
        ))
    }

    impl Compiled {
        /// Compile `schema`, enforcing the bounds and dialect rules above.
        pub fn new(schema: &Value) -> Result<Compiled, String> {
            check_bounds(schema)?;
            if let Some(d) = unsupported_dialect(schema) {
                return Err(format!("JSON Schema dialect {d} is not supported"));
            }
            let mut opts = jsonschema::options().with_retriever(RefuseRetrieval);
            if schema.get("$schema").is_none() {
                opts = opts.with_draft(jsonschema::Draft::Draft202012);
            }
            opts.build(schema).map(Compiled).map_err(|e| format!("{e}"))
        }

        /// Validate `instance`; on failure, a one-sentence summary of the
        /// first few violations with their locations.
        pub fn validate(&self, instance: &Value) -> Result<(), String> {
            // The common case first: `is_valid` allocates nothing, where
            // `iter_errors` boxes its iterator even for a valid instance.
            if self.0.is_valid(instance) {
                return Ok(());
            }
            let errors: Vec<String> = self
                .0
                .iter_errors(instance)
                .take(3)
                .map(|e| {
                    let path = e.instance_path().as_str();
                    let message = closed_object(&e, instance).unwrap_or_else(|| format!("{e}"));
                    if path.is_empty() {
                        message
                    } else {
                        format!("{path}: {message}")
                    }
                })
                .collect();
            if errors.is_empty() {
                Ok(())
            } else {
                Err(errors.join("; "))
            }
        }
    }
}
