//! Typed tools: schemas generated from Rust types, structured output, and
//! application state handed to handlers (feature `typed`, on by default).
//!
//! A tool's arguments are a `serde` type that also derives
//! [`schemars::JsonSchema`]; its `inputSchema` is generated from that type
//! (JSON Schema 2020-12, the MCP default: `basic/index.mdx` § JSON Schema
//! Usage), so the published schema and the type the handler receives cannot
//! drift apart. A handler that returns [`Json<T>`] publishes `T`'s schema
//! as the tool's `outputSchema` and answers with `structuredContent` plus
//! its serialized JSON as a text block (`server/tools.mdx` § Structured
//! Content). A handler's other parameters are extractors
//! ([`crate::extract`]): the application's state, the call's context.
//!
//! Import `schemars` from here (`use snodo_proto::schemars::{self,
//! JsonSchema};`): `#[derive(JsonSchema)]` finds the crate by that name, so
//! the derive and the engine always share one schemars version.
//!
//! ```
//! use snodo_proto::schemars::{self, JsonSchema};
//! use snodo_proto::extract::State;
//! use snodo_proto::typed::Json;
//! use snodo_proto::{Service, Tool, ToolError};
//! use serde::{Deserialize, Serialize};
//!
//! struct Shop {
//!     prices: Vec<(String, u32)>,
//! }
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct Lookup {
//!     /// The article to price.
//!     article: String,
//! }
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Price {
//!     cents: u32,
//! }
//!
//! let service = Service::builder()
//!     .state(Shop { prices: vec![("tea".into(), 350)] })
//!     .tool(
//!         Tool::new("price", "Price of an article"),
//!         |shop: State<Shop>, args: Lookup| async move {
//!             match shop.prices.iter().find(|(a, _)| *a == args.article) {
//!                 Some((_, cents)) => Ok(Json(Price { cents: *cents })),
//!                 None => Err(ToolError::from(format!("no article {}", args.article))),
//!             }
//!         },
//!     )
//!     .build()
//!     .unwrap();
//! let tool = service.tools().into_iter().next().unwrap();
//! assert_eq!(tool.input_schema["type"], "object");
//! assert_eq!(tool.input_schema["required"][0], "article");
//! assert_eq!(tool.output_schema.as_ref().unwrap()["properties"]["cents"]["type"], "integer");
//! ```
//!
//! Every `tool` registration takes its schemas this way: on the
//! [`ServiceBuilder`](crate::ServiceBuilder) and on the live registry
//! ([`Change::tool`](crate::Change::tool)) alike. A schema set by hand on the
//! declaration ([`Tool::input_schema`](crate::Tool::input_schema), [`Tool::output_schema`](crate::Tool::output_schema)) is
//! published as written instead, for a type whose schema the application
//! writes itself.
//!
//! Invalid arguments never reach the handler: they fail the generated
//! schema and are answered `-32602` "Invalid arguments for tool …", the
//! error `schema.ts` gives for invalid tool arguments (`InvalidParamsError`).
//! Checks only the handler can make (a date in the past, an unknown
//! article) are tool execution errors, returned as `Err(ToolError)` and
//! sent as a result with `isError: true` (`server/tools.mdx` § Error
//! Handling), which the model can read and correct.

use alloc::string::String;
use alloc::vec::Vec;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde_json::Value;

use crate::error::ErrorObject;
use crate::handler::{IntoToolOutcome, NoArgs, Outcome};
use crate::model::{CallToolResult, Prompt, PromptArgument};

/// The JSON Schema of `T` as a tool publishes it: 2020-12, definitions
/// under `$defs`, with the root's `$schema` (2020-12 is the default
/// dialect, so it says nothing) and `title` (the Rust type's name, which
/// means nothing to a client) left out.
pub fn schema_for<T: JsonSchema + ?Sized>() -> Value {
    let generator = SchemaGenerator::new(SchemaSettings::draft2020_12());
    publishable(generator.into_root_schema_for::<T>())
}

fn publishable(schema: Schema) -> Value {
    let mut value = schema.to_value();
    if let Some(root) = value.as_object_mut() {
        root.remove("$schema");
        root.remove("title");
    }
    drop_width_formats(&mut value);
    value
}

/// The `format`s schemars gives Rust's number types (`uint8`, `int64`,
/// `double`, …). JSON Schema 2020-12 defines none of them (§ 7.3 of its
/// validation vocabulary), so validators ignore them and strict ones (the
/// TypeScript client's Ajv) warn about every one. What a client can use
/// of them stays: schemars also writes `minimum: 0` for unsigned types and
/// both bounds for the 8- and 16-bit ones.
fn drop_width_formats(value: &mut Value) {
    const WIDTHS: &[&str] = &[
        "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32",
        "uint64", "uint128", "float", "double",
    ];
    match value {
        Value::Object(map) => {
            let numeric = |t: &Value| matches!(t.as_str(), Some("integer" | "number"));
            let is_number = map.get("type").is_some_and(|t| {
                numeric(t) || t.as_array().is_some_and(|ts| ts.iter().any(numeric))
            });
            if is_number
                && map
                    .get("format")
                    .and_then(Value::as_str)
                    .is_some_and(|f| WIDTHS.contains(&f))
            {
                map.remove("format");
            }
            map.values_mut().for_each(drop_width_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_width_formats),
        _ => {}
    }
}

/// The `inputSchema` of arguments `A`: [`schema_for`], with `"type":
/// "object"` added at the root when schemars left it out but every
/// alternative is an object (an internally tagged enum:
/// `#[serde(tag = "kind")]`), since `server/tools.mdx` § Tool requires
/// it there. Any other root without it (a plain enum, a number) is
/// refused when the service is built. A type that accepts anything
/// (`serde_json::Value`, whose schema is `true`) takes `{"type":
/// "object"}`: a call's `arguments` are an object whatever the handler
/// accepts (`server/tools.mdx` § Calling Tools).
pub fn input_schema_for<A: JsonSchema + ?Sized>() -> Value {
    let mut schema = schema_for::<A>();
    let anything = match &schema {
        Value::Bool(true) => true,
        Value::Object(root) => root.is_empty(),
        _ => false,
    };
    if anything {
        return serde_json::json!({"type": "object"});
    }
    if let Some(root) = schema.as_object_mut() {
        let all_objects = |key: &str| {
            root.get(key).and_then(Value::as_array).is_some_and(|alts| {
                !alts.is_empty()
                    && alts
                        .iter()
                        .all(|a| a.get("type").and_then(Value::as_str) == Some("object"))
            })
        };
        if !root.contains_key("type") && (all_objects("oneOf") || all_objects("anyOf")) {
            root.insert(String::from("type"), Value::from("object"));
        }
    }
    schema
}

impl JsonSchema for NoArgs {
    fn schema_name() -> alloc::borrow::Cow<'static, str> {
        alloc::borrow::Cow::Borrowed("NoArgs")
    }

    /// `{"type": "object", "additionalProperties": false}`: the schema
    /// `server/tools.mdx` § Tool recommends for a tool without parameters.
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({"type": "object", "additionalProperties": false})
    }
}

/// A tool's structured result: published as the tool's `outputSchema`
/// (from `T`'s [`JsonSchema`]) and sent as `structuredContent`, with its
/// serialized JSON in a text block for clients that read only `content`
/// (`server/tools.mdx` § Structured Content).
///
/// The engine validates every structured result against the published
/// `outputSchema` before it is sent; a `T` whose `Serialize` strays from
/// its schema is answered `-32603` rather than sent to a client that was
/// promised the schema (`server/tools.mdx` § Output Schema: servers MUST
/// provide structured results that conform).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl<T: Serialize + JsonSchema> IntoToolOutcome for Json<T> {
    fn output_schema() -> Option<Value> {
        Some(schema_for::<T>())
    }

    fn into_outcome(self) -> Outcome {
        match serde_json::to_value(&self.0) {
            Ok(value) => Outcome::CallTool(CallToolResult::structured(value)),
            Err(e) => {
                tracing::error!(error = %e, "a tool's structured result failed to serialize");
                Outcome::Error(ErrorObject::internal("Internal error"))
            }
        }
    }
}

/// `prompt` with its arguments taken from `A`'s schema when it declares
/// none: one per property, with its doc comment as description, required
/// when the schema requires it (`server/prompts.mdx` § Prompt: prompt
/// arguments are strings, so `A`'s fields should be `String`s or
/// `Option<String>`s).
pub(crate) fn declared_prompt(mut prompt: Prompt, schema: &Value) -> Prompt {
    if prompt.arguments.is_some() {
        return prompt;
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            let description = prop
                .get("description")
                .and_then(Value::as_str)
                .map(String::from);
            prompt = prompt.argument(PromptArgument {
                name: name.clone(),
                title: prop.get("title").and_then(Value::as_str).map(String::from),
                description,
                required: required.contains(&name.as_str()).then_some(true),
            });
        }
    }
    prompt
}
