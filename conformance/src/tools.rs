//! The fixture's tools (`SCENARIOS-2026-07-28.md` § 2.2), in `tools/list`
//! order.
//!
//! Order matters: `http-header-validation` calls the **first** listed tool
//! with `arguments: {}` and expects success, so the no-argument
//! `test_simple_text` comes first (`SCENARIOS-2026-07-28.md` § 4
//! rule 5).
//!
//! The MRTR tools (`test_streaming_elicitation`,
//! `test_input_required_result_*`) live in `mrtr.rs` and are listed after
//! these.
//!
//! Not registered yet, each arriving with the issue that builds the engine
//! feature it exercises:
//! - Subscriptions (`subscriptions/listen`): `test_trigger_tool_change`,
//!   `test_trigger_prompt_change`.
//! - Tasks extension: `greet`, `slow_compute`, `failing_job`,
//!   `protocol_error_job`, `confirm_delete`, `multi_input`,
//!   `test_tool_with_task`.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Map, Value};
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{
    CallToolResult, Content, Context, ErrorObject, LogLevel, NoArgs, ResourceContents,
    ServiceBuilder, Tool, ToolError,
};

use crate::media::{PNG_1X1, WAV_SILENCE};
use crate::timer::Delay;

/// Pause between progress reports of `test_tool_with_progress`.
const PROGRESS_STEP: Duration = Duration::from_millis(50);

/// Register every tool, in list order.
pub fn register(builder: ServiceBuilder) -> ServiceBuilder {
    builder
        .tool(
            Tool::new("test_simple_text", "Returns a simple text response"),
            |_: NoArgs| async {
                CallToolResult::text("This is a simple text response for testing.")
            },
        )
        .tool(
            Tool::new("test_image_content", "Returns a 1x1 PNG image"),
            |_: NoArgs| async { CallToolResult::new(vec![Content::image(PNG_1X1, "image/png")]) },
        )
        .tool(
            Tool::new("test_audio_content", "Returns a short WAV audio clip"),
            |_: NoArgs| async {
                CallToolResult::new(vec![Content::audio(WAV_SILENCE, "audio/wav")])
            },
        )
        .tool(
            Tool::new(
                "test_embedded_resource",
                "Returns an embedded text resource",
            ),
            |_: NoArgs| async {
                CallToolResult::new(vec![Content::resource(ResourceContents::text(
                    "test://embedded-resource",
                    "text/plain",
                    "This is an embedded resource content.",
                ))])
            },
        )
        .tool(
            Tool::new(
                "test_multiple_content_types",
                "Returns text, image and embedded resource content together",
            ),
            |_: NoArgs| async {
                CallToolResult::new(vec![
                    Content::text("Multiple content types test:"),
                    Content::image(PNG_1X1, "image/png"),
                    Content::resource(ResourceContents::text(
                        "test://mixed-content-resource",
                        "application/json",
                        r#"{"test":"data","value":123}"#,
                    )),
                ])
            },
        )
        .tool(
            Tool::new(
                "test_error_handling",
                "Always fails with a tool execution error",
            ),
            // A tool execution error, reported in the result with `isError: true`
            // (`server/tools.mdx` § Error Handling), not as a JSON-RPC error.
            |_: NoArgs| async {
                Err::<CallToolResult, _>(ToolError::Execution(String::from(
                    "This tool intentionally returns an error for testing",
                )))
            },
        )
        .tool(
            Tool::new(
                "test_tool_with_progress",
                "Reports progress 0, 50, 100 of 100, then finishes",
            ),
            |_: NoArgs, ctx: Context| async move {
                // `basic/patterns/progress.mdx`: sent only when the request
                // carried a progressToken; the engine drops them otherwise.
                ctx.progress(0.0, Some(100.0), None);
                Delay::new(PROGRESS_STEP).await;
                ctx.progress(50.0, Some(100.0), None);
                Delay::new(PROGRESS_STEP).await;
                ctx.progress(100.0, Some(100.0), None);
                CallToolResult::text("Progress test completed")
            },
        )
        .tool(
            Tool::new(
                "test_missing_capability",
                "Requires the client's sampling capability",
            ),
            |_: NoArgs, ctx: Context| async move {
                // `basic/index.mdx`: a request needing a capability the client
                // did not declare fails with -32021 naming what is missing.
                if ctx.meta().client_capabilities.sampling() {
                    Ok("Success")
                } else {
                    Err(ToolError::Protocol(ErrorObject::missing_client_capability(
                        json!({ "sampling": {} }),
                    )))
                }
            },
        )
        .tool(
            Tool::new(
                "test_logging_tool",
                "Emits log messages when the request asks for them",
            ),
            |_: NoArgs, ctx: Context| async move {
                // `server/utilities/logging.mdx`: only a request carrying
                // `io.modelcontextprotocol/logLevel` gets messages, and only at
                // or above that level; the engine enforces both.
                for (level, text) in [
                    (LogLevel::Debug, "Logging tool: debug message"),
                    (LogLevel::Info, "Logging tool: info message"),
                    (LogLevel::Warning, "Logging tool: warning message"),
                ] {
                    ctx.log(
                        level,
                        Some("snodo-fixture"),
                        Value::String(String::from(text)),
                    );
                }
                "Logging evaluated"
            },
        )
        .tool(
            Tool::new(
                "json_schema_2020_12_tool",
                "Tool with JSON Schema 2020-12 features",
            )
            .input_schema(json_schema_2020_12()),
            |args: Map<String, Value>| async move {
                CallToolResult::text(format!("Received: {}", Value::Object(args)))
            },
        )
        .tool(
            Tool::new(
                "test_header_param",
                "Echoes a region that is mirrored in the Mcp-Param-Region header",
            )
            .input_schema(json!({
                "type": "object",
                "properties": {
                    "region": { "type": "string", "x-mcp-header": "Region" }
                },
                "required": ["region"]
            })),
            |args: HeaderParamArgs| async move {
                CallToolResult::text(format!("Region: {}", args.region))
            },
        )
}

/// Arguments of `test_header_param`.
#[derive(Debug, Deserialize, JsonSchema)]
struct HeaderParamArgs {
    region: String,
}

/// The `inputSchema` the `json-schema-2020-12` scenario checks keyword by
/// keyword (`SCENARIOS-2026-07-28.md` § 2.2 and § 3.48): it must come back
/// from `tools/list` exactly as written here.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": { "type": "string" },
                    "city": { "type": "string" }
                }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" }
        },
        "allOf": [
            { "anyOf": [ { "required": ["phone"] }, { "required": ["email"] } ] }
        ],
        "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false
    })
}
