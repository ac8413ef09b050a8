//! The tool catalog a Streamable HTTP client keeps: each tool's
//! `x-mcp-header` annotations, read from `tools/list`, become the
//! `Mcp-Param-*` headers of its calls (`basic/transports/streamable-http.mdx`
//! § Custom Headers from Tool Parameters).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::{Map, Value};

use crate::headers::{self, HeaderParam};

use super::Wire;

/// Tool name -> its header mirrors.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    tools: BTreeMap<String, Vec<HeaderParam>>,
}

impl Catalog {
    /// Remember the tools of one `tools/list` page. On HTTP a tool whose
    /// annotations are invalid is removed from `result` (§ Schema
    /// Extension: "the client MUST exclude the invalid tool from the
    /// result of tools/list") and reported to `rejected` with the reason;
    /// other transports may ignore the annotations.
    pub(crate) fn record(
        &mut self,
        result: &mut Map<String, Value>,
        wire: Wire,
        mut rejected: impl FnMut(String, String),
    ) {
        let Some(Value::Array(tools)) = result.get_mut("tools") else {
            return;
        };
        let mut kept = Vec::with_capacity(tools.len());
        for tool in core::mem::take(tools) {
            let Some(name) = tool.get("name").and_then(Value::as_str).map(String::from) else {
                continue;
            };
            let schema = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
            match headers::scan(&schema) {
                Ok(params) => {
                    self.tools.insert(name, params);
                    kept.push(tool);
                }
                Err(reason) if wire == Wire::Http => {
                    self.tools.remove(&name);
                    rejected(name, reason);
                }
                Err(_) => {
                    self.tools.insert(name, Vec::new());
                    kept.push(tool);
                }
            }
        }
        *tools = kept;
    }

    /// Whether a `tools/list` has shown tool `name`.
    pub(crate) fn knows(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    /// The `Mcp-Param-{Name}` headers of a call of `name` with `arguments`
    /// (§ Value Encoding: strings as-is or Base64-sentinel encoded,
    /// integers in decimal, booleans `true`/`false`; a `null` or absent
    /// value has no header). A tool never listed has none.
    pub(crate) fn param_headers(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
    ) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for param in self.tools.get(name).map(Vec::as_slice).unwrap_or(&[]) {
            let Some(value) = headers::value_at(arguments, &param.path) else {
                continue;
            };
            let text = match value {
                Value::String(s) => headers::encode_value(s).into_owned(),
                Value::Bool(b) => String::from(if *b { "true" } else { "false" }),
                Value::Number(n) => n.to_string(),
                _ => continue,
            };
            out.push((format!("Mcp-Param-{}", param.name), text));
        }
        out
    }
}
