//! One registered tool, prompt, resource or template: its declaration, its
//! handler, and what is derived from it once, when it is registered (the
//! compiled schemas, the header parameters, the JSON it is listed as).
//!
//! Entries are shared (`Arc`) by every snapshot that holds them, so a
//! change to one tool of ten thousand derives that one tool only; and a
//! running call keeps its entry alive after a change removed it from the
//! registry (`server/tools.mdx`: the list changes, the call in flight goes
//! on).

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;
use core::time::Duration;
use serde_json::Value;

use crate::handler::{PromptFn, ResourceFn, ToolFn};
use crate::layer::Layers;
use crate::model::{Prompt, Resource, ResourceTemplate, Tool};
use crate::service::BuildError;
use crate::uri_template::UriTemplate;

/// A registered tool.
pub(crate) struct ToolEntry {
    pub(crate) tool: Tool,
    /// The tool's name, shared by every call of it.
    pub(crate) name: Arc<str>,
    pub(crate) handler: Option<Arc<ToolFn>>,
    /// The deadline its layers set, replacing `Limits::call_timeout`.
    pub(crate) timeout: Option<Duration>,
    pub(crate) header_params: Vec<crate::headers::HeaderParam>,
    /// The tool as `tools/list` lists it (serialized once).
    pub(crate) listed: Box<[u8]>,
    #[cfg(feature = "std")]
    pub(crate) input: Option<crate::schema::Compiled>,
    #[cfg(feature = "std")]
    pub(crate) output: Option<crate::schema::Compiled>,
}

impl fmt::Debug for ToolEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolEntry")
            .field("name", &self.name)
            .finish()
    }
}

/// A registered static resource.
pub(crate) struct ResourceEntry {
    pub(crate) resource: Resource,
    pub(crate) handler: Option<Arc<ResourceFn>>,
    /// The deadline its layers set, replacing `Limits::call_timeout`.
    pub(crate) timeout: Option<Duration>,
    pub(crate) listed: Box<[u8]>,
}

/// A registered resource template.
pub(crate) struct TemplateEntry {
    pub(crate) template: ResourceTemplate,
    pub(crate) parsed: UriTemplate,
    pub(crate) handler: Option<Arc<ResourceFn>>,
    /// The deadline its layers set, replacing `Limits::call_timeout`.
    pub(crate) timeout: Option<Duration>,
    pub(crate) listed: Box<[u8]>,
}

/// A registered prompt.
pub(crate) struct PromptEntry {
    pub(crate) prompt: Prompt,
    pub(crate) handler: Option<Arc<PromptFn>>,
    /// The deadline its layers set, replacing `Limits::call_timeout`.
    pub(crate) timeout: Option<Duration>,
    pub(crate) listed: Box<[u8]>,
}

/// What every entry has: the key it is replaced and removed by, and the
/// JSON it is listed as.
pub(crate) trait Entry {
    /// The tool or prompt name, the resource URI, the template string.
    fn key(&self) -> &str;
    /// The list item, serialized.
    fn listed(&self) -> &[u8];
}

impl Entry for ToolEntry {
    fn key(&self) -> &str {
        &self.tool.name
    }
    fn listed(&self) -> &[u8] {
        &self.listed
    }
}

impl Entry for ResourceEntry {
    fn key(&self) -> &str {
        &self.resource.uri
    }
    fn listed(&self) -> &[u8] {
        &self.listed
    }
}

impl Entry for TemplateEntry {
    fn key(&self) -> &str {
        &self.template.uri_template
    }
    fn listed(&self) -> &[u8] {
        &self.listed
    }
}

impl Entry for PromptEntry {
    fn key(&self) -> &str {
        &self.prompt.name
    }
    fn listed(&self) -> &[u8] {
        &self.listed
    }
}

/// `item` as a list carries it: through a `Value`, so that its members are
/// in the order every other result's are (sorted), then compact.
fn listed<T: serde::Serialize>(item: &T) -> Box<[u8]> {
    let value = serde_json::to_value(item).unwrap_or(Value::Null);
    serde_json::to_vec(&value)
        .unwrap_or_default()
        .into_boxed_slice()
}

impl ToolEntry {
    /// Check `tool` (`server/tools.mdx` § Tool Names, § Tool) and derive
    /// what its calls need.
    pub(crate) fn new(tool: Tool, handler: Option<Arc<ToolFn>>) -> Result<Self, BuildError> {
        check_tool_name(&tool.name)?;
        check_input_schema(&tool)?;
        let header_params = crate::headers::scan(&tool.input_schema).map_err(|reason| {
            BuildError::InvalidInputSchema {
                tool: tool.name.clone(),
                reason,
            }
        })?;
        if let Some(out) = &tool.output_schema {
            if !out.is_object() {
                return Err(BuildError::InvalidOutputSchema {
                    tool: tool.name.clone(),
                    reason: String::from("outputSchema must be a JSON object"),
                });
            }
            crate::schema::check_bounds(out).map_err(|reason| BuildError::InvalidOutputSchema {
                tool: tool.name.clone(),
                reason,
            })?;
        }
        #[cfg(feature = "std")]
        let input = Some(
            crate::schema::Compiled::new(&tool.input_schema).map_err(|reason| {
                BuildError::InvalidInputSchema {
                    tool: tool.name.clone(),
                    reason,
                }
            })?,
        );
        #[cfg(feature = "std")]
        let output = match &tool.output_schema {
            Some(s) => Some(crate::schema::Compiled::new(s).map_err(|reason| {
                BuildError::InvalidOutputSchema {
                    tool: tool.name.clone(),
                    reason,
                }
            })?),
            None => None,
        };
        Ok(ToolEntry {
            name: Arc::from(tool.name.as_str()),
            listed: listed(&tool),
            tool,
            handler,
            timeout: None,
            header_params,
            #[cfg(feature = "std")]
            input,
            #[cfg(feature = "std")]
            output,
        })
    }
}

impl ResourceEntry {
    pub(crate) fn new(resource: Resource, handler: Option<Arc<ResourceFn>>) -> Self {
        ResourceEntry {
            listed: listed(&resource),
            resource,
            handler,
            timeout: None,
        }
    }
}

impl TemplateEntry {
    /// Parse the template (RFC 6570, `server/resources.mdx` § Resource
    /// Templates).
    pub(crate) fn new(
        template: ResourceTemplate,
        handler: Option<Arc<ResourceFn>>,
    ) -> Result<Self, BuildError> {
        let parsed = UriTemplate::parse(&template.uri_template).map_err(|reason| {
            BuildError::InvalidUriTemplate {
                template: template.uri_template.clone(),
                reason,
            }
        })?;
        Ok(TemplateEntry {
            listed: listed(&template),
            template,
            parsed,
            handler,
            timeout: None,
        })
    }
}

impl PromptEntry {
    pub(crate) fn new(prompt: Prompt, handler: Option<Arc<PromptFn>>) -> Self {
        PromptEntry {
            listed: listed(&prompt),
            prompt,
            handler,
            timeout: None,
        }
    }
}

/// `server/tools.mdx` § Tool Names: 1–128 characters of `A-Z a-z 0-9 _ - .`.
fn check_tool_name(name: &str) -> Result<(), BuildError> {
    let ok = !name.is_empty()
        && name.len() <= 128
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
    if ok {
        Ok(())
    } else {
        Err(BuildError::InvalidToolName(String::from(name)))
    }
}

/// `server/tools.mdx` § Tool: `inputSchema` MUST be a JSON Schema object
/// (not `null`) with `"type": "object"` at the root.
fn check_input_schema(tool: &Tool) -> Result<(), BuildError> {
    let err = |reason: &str| BuildError::InvalidInputSchema {
        tool: tool.name.clone(),
        reason: String::from(reason),
    };
    let Some(obj) = tool.input_schema.as_object() else {
        return Err(err("inputSchema must be a JSON object"));
    };
    if obj.get("type").and_then(Value::as_str) != Some("object") {
        return Err(err(
            "inputSchema must have \"type\": \"object\" at the root",
        ));
    }
    crate::schema::check_bounds(&tool.input_schema).map_err(|reason| {
        BuildError::InvalidInputSchema {
            tool: tool.name.clone(),
            reason,
        }
    })?;
    if let Some(d) = crate::schema::unsupported_dialect(&tool.input_schema) {
        return Err(BuildError::InvalidInputSchema {
            tool: tool.name.clone(),
            reason: format!("JSON Schema dialect {d} is not supported"),
        });
    }
    Ok(())
}

// The layers around each kind's handler (`crate::layer`), applied once an
// entry is checked: at build, and when a registry change commits.
impl ToolEntry {
    pub(crate) fn layered(mut self, layers: &Layers) -> Self {
        let wrapped = layers.tool(&self.name, self.handler.take());
        self.handler = wrapped.handler;
        self.timeout = wrapped.timeout;
        self
    }
}

impl ResourceEntry {
    pub(crate) fn layered(mut self, layers: &Layers) -> Self {
        let wrapped = layers.resource(self.handler.take());
        self.handler = wrapped.handler;
        self.timeout = wrapped.timeout;
        self
    }
}

impl TemplateEntry {
    pub(crate) fn layered(mut self, layers: &Layers) -> Self {
        let wrapped = layers.resource(self.handler.take());
        self.handler = wrapped.handler;
        self.timeout = wrapped.timeout;
        self
    }
}

impl PromptEntry {
    pub(crate) fn layered(mut self, layers: &Layers) -> Self {
        let wrapped = layers.prompt(&self.prompt.name, self.handler.take());
        self.handler = wrapped.handler;
        self.timeout = wrapped.timeout;
        self
    }
}
