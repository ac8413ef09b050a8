//! The fixture's tools and resource for the initialize-era scenarios of
//! `--requirements 2025-11-25` (`SCENARIOS-2025-11-25.md`):
//! `tools-call-with-logging`, `tools-call-sampling`,
//! `tools-call-elicitation`, `elicitation-sep1034-defaults`,
//! `elicitation-sep1330-enums` and `resources-subscribe`/`-unsubscribe`.
//!
//! The input-asking tools are written once, as MRTR handlers: a session
//! client receives their input requests as server-to-client requests on the
//! call's stream, a 2026-07-28 client as an `InputRequiredResult`; either
//! way the handler runs again with the answer.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{
    CallToolResult, Context, CreateMessageRequest, ElicitRequest, InputRequired, LogLevel, NoArgs,
    ReadResourceResult, Reply, Resource, ResourceArgs, ResourceContents, ServiceBuilder, Tool,
};

use crate::timer::Delay;

/// The resource `resources-subscribe` subscribes to.
pub const WATCHED: &str = "test://watched-resource";

/// Pause between the log messages of `test_tool_with_logging`: the
/// scenario checks that several arrive while the call runs.
const LOG_STEP: Duration = Duration::from_millis(50);

#[derive(Deserialize, JsonSchema)]
struct PromptArgs {
    prompt: String,
}

#[derive(Deserialize, JsonSchema)]
struct MessageArgs {
    message: String,
}

/// Register the tools and the watched resource.
pub fn register(builder: ServiceBuilder) -> ServiceBuilder {
    builder
        .tool(
            Tool::new(
                "test_tool_with_logging",
                "Sends three log messages while it runs",
            ),
            |_: NoArgs, ctx: Context| async move {
                for (i, text) in [
                    "Tool execution started",
                    "Tool processing data",
                    "Tool execution completed",
                ]
                .into_iter()
                .enumerate()
                {
                    if i > 0 {
                        Delay::new(LOG_STEP).await;
                    }
                    ctx.log(LogLevel::Info, Some("snodo-fixture"), Value::from(text));
                }
                CallToolResult::text("Logging completed")
            },
        )
        .tool(
            Tool::new("test_sampling", "Asks the client's model to answer a prompt").input_schema(
                json!({
                    "type": "object",
                    "properties": {
                        "prompt": {"type": "string", "description": "The prompt to send to the LLM"}
                    },
                    "required": ["prompt"]
                }),
            ),
            |args: PromptArgs, ctx: Context| async move {
                let reply: Reply<CallToolResult> = match ctx.sampling("answer") {
                    Some(r) => Reply::Complete(CallToolResult::text(format!(
                        "LLM response: {}",
                        r.text().unwrap_or("(no text)")
                    ))),
                    None => InputRequired::new()
                        .sample("answer", CreateMessageRequest::user_text(args.prompt, 100))
                        .into(),
                };
                reply
            },
        )
        .tool(
            Tool::new("test_elicitation", "Asks the user for a username and an email")
                .input_schema(json!({
                    "type": "object",
                    "properties": {
                        "message": {"type": "string", "description": "The message to show the user"}
                    },
                    "required": ["message"]
                })),
            |args: MessageArgs, ctx: Context| async move {
                let reply: Reply<CallToolResult> = match ctx.elicitation("user") {
                    Some(r) => Reply::Complete(CallToolResult::text(format!(
                        "User response: {}",
                        json!({"action": r.action, "content": r.content})
                    ))),
                    None => InputRequired::new()
                        .elicit(
                            "user",
                            ElicitRequest::form(
                                args.message,
                                json!({
                                    "type": "object",
                                    "properties": {
                                        "username": {"type": "string", "description": "User's response"},
                                        "email": {"type": "string", "description": "User's email address"}
                                    },
                                    "required": ["username", "email"]
                                }),
                            ),
                        )
                        .into(),
                };
                reply
            },
        )
        .tool(
            Tool::new(
                "test_elicitation_sep1034_defaults",
                "Asks for a form whose fields all have defaults (SEP-1034)",
            ),
            |_: NoArgs, ctx: Context| async move {
                ask_form(
                    &ctx,
                    "Please review and update the form fields with defaults",
                    json!({
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "description": "User name", "default": "John Doe"},
                            "age": {"type": "integer", "description": "User age", "default": 30},
                            "score": {"type": "number", "description": "User score", "default": 95.5},
                            "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
                            "verified": {"type": "boolean", "description": "Verification status", "default": true}
                        }
                    }),
                )
            },
        )
        .tool(
            Tool::new(
                "test_elicitation_sep1330_enums",
                "Asks for a form with every enum variant (SEP-1330)",
            ),
            |_: NoArgs, ctx: Context| async move {
                ask_form(
                    &ctx,
                    "Please select options from the enum fields",
                    json!({
                        "type": "object",
                        "properties": {
                            "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
                            "titledSingle": {"type": "string", "description": "Select one option with titles", "oneOf": [
                                {"const": "value1", "title": "First Option"},
                                {"const": "value2", "title": "Second Option"},
                                {"const": "value3", "title": "Third Option"}
                            ]},
                            "legacyEnum": {"type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
                            "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                            "titledMulti": {"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3, "items": {"anyOf": [
                                {"const": "value1", "title": "First Choice"},
                                {"const": "value2", "title": "Second Choice"},
                                {"const": "value3", "title": "Third Choice"}
                            ]}}
                        }
                    }),
                )
            },
        )
        .resource(
            Resource::new(WATCHED, "watched-resource")
                .description("A resource clients may subscribe to for updates")
                .mime_type("text/plain"),
            |args: ResourceArgs| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri,
                    "text/plain",
                    "Watched resource content",
                )]))
            },
        )
}

/// Ask for `schema` once, then report what the user answered.
fn ask_form(ctx: &Context, message: &str, schema: Value) -> Reply<CallToolResult> {
    match ctx.elicitation("form") {
        Some(r) => Reply::Complete(CallToolResult::text(format!(
            "Elicitation completed: {}",
            json!({"action": r.action, "content": r.content})
        ))),
        None => InputRequired::new()
            .elicit("form", ElicitRequest::form(message, schema))
            .into(),
    }
}
