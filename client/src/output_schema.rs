//! Checking a tool's structured result against the `outputSchema` the
//! server listed for it (`server/tools.mdx` § Output Schema: servers MUST
//! provide structured results that conform to it; clients SHOULD
//! validate them). The schemas are learned from `tools/list`; a tool the
//! client has not listed is not checked.

use std::collections::BTreeMap;

use serde_json::Value;
use snodo_proto::schema::Compiled;
use snodo_proto::{CallToolResult, Tool};

use crate::error::Error;

/// The output schemas of the tools listed so far, by name.
#[derive(Debug, Default)]
pub(crate) struct OutputSchemas(BTreeMap<String, Value>);

impl OutputSchemas {
    /// Take the schemas of a whole `tools/list` (every page): the list
    /// replaces what was known, so a tool whose schema was dropped is no
    /// longer held to it.
    pub(crate) fn learn(&mut self, tools: &[Tool]) {
        self.0 = tools
            .iter()
            .filter_map(|t| Some((t.name.clone(), t.output_schema.clone()?)))
            .collect();
    }

    /// Whether `result` of `tool` keeps to its schema. A tool execution
    /// error (`isError`) is not held to it; a tool with a schema must give
    /// structured content. A schema this client cannot compile (an
    /// unknown dialect, an external `$ref`) checks nothing.
    pub(crate) fn check(&self, tool: &str, result: &CallToolResult) -> Result<(), Error> {
        let Some(schema) = self.0.get(tool) else {
            return Ok(());
        };
        if result.is_error == Some(true) {
            return Ok(());
        }
        let refused = |why: String| Error::OutputSchema {
            tool: String::from(tool),
            why,
        };
        let Some(content) = &result.structured_content else {
            return Err(refused(String::from(
                "no structuredContent, though the tool declares an outputSchema",
            )));
        };
        match Compiled::new(schema) {
            Ok(compiled) => compiled.validate(content).map_err(refused),
            Err(_) => Ok(()),
        }
    }
}
