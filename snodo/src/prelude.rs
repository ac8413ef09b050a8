//! What a server author names in almost every program: `use
//! snodo::prelude::*;`.
//!
//! The service and its declarations (tools, prompts, resources), the
//! handler's side (its `Context`, typed arguments and state, results and
//! errors), the derives for typed tools, and, with the feature `tokio`
//! (the default), the tokio entry points. Everything else stays under its
//! crate's module (`snodo::proto`, `snodo::smol`, ...), so the prelude
//! never shadows a name of the application's for something it rarely
//! needs. The smol and blocking entry points have the same names as
//! tokio's, so they are not here: call them as `snodo::smol::serve_http`
//! and `snodo::blocking::serve_http`.

pub use snodo_proto::extract::State;
pub use snodo_proto::typed::Json;
pub use snodo_proto::{
    BuildError, CallToolResult, Content, Context, ErrorObject, GetPromptResult, Icon,
    Implementation, NoArgs, Prompt, PromptArgument, PromptMessage, ReadResourceResult,
    RegisterTool, Resource, ResourceContents, ResourceError, ResourceTemplate, Service,
    ServiceBuilder, Tool, ToolError,
};

// The derives of typed tools' arguments and results. `schemars` is in
// scope for `#[derive(JsonSchema)]`, whose code names it.
pub use serde::{Deserialize, Serialize};
pub use serde_json::{json, Value};
pub use snodo_proto::schemars::{self, JsonSchema};

#[cfg(feature = "tokio")]
pub use snodo_tokio::{bind_http, serve_http, serve_stdio, Options, Shutdown};

#[cfg(feature = "macros")]
pub use snodo_macros::{tool, tools};
