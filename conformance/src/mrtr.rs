//! The fixture's Multi Round-Trip Request tools and prompt
//! (`SCENARIOS-2026-07-28.md` § 2.2, § 2.4; scenarios
//! `input-required-result-*` and the `test_streaming_elicitation` probe of
//! `server-stateless`).
//!
//! Each handler reads the answers of the previous round from its
//! [`Context`] and either completes or returns an [`InputRequired`]; the
//! engine seals the state, checks capabilities and validates answers. A
//! missing or unusable answer is simply asked for again
//! (`basic/patterns/mrtr.mdx` § Error Handling); declining or cancelling is
//! a normal result, never an error (`client/elicitation.mdx` § Error
//! Handling).

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{
    CallToolResult, Content, Context, CreateMessageRequest, ElicitAction, ElicitRequest,
    ElicitResult, GetPromptResult, InputRequired, NoArgs, Prompt, PromptMessage, Reply,
    ServiceBuilder, Tool,
};

type ToolReply = Reply<CallToolResult>;

/// A form schema with one required property of `type`.
fn one_field(name: &str, ty: &str) -> Value {
    json!({
        "type": "object",
        "properties": { name: { "type": ty } },
        "required": [name]
    })
}

fn ask_name(key: &str, message: &str) -> InputRequired {
    InputRequired::new().elicit(
        key,
        ElicitRequest::form(message, one_field("name", "string")),
    )
}

#[derive(Deserialize, JsonSchema)]
struct Name {
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct Color {
    color: String,
}

#[derive(Deserialize, JsonSchema)]
struct Confirm {
    ok: bool,
}

#[derive(Deserialize, JsonSchema)]
struct UserContext {
    context: String,
}

/// What the state-carrying tools put in `requestState`.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Progress {
    tool: String,
    step: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

impl Progress {
    fn new(tool: &str, step: u32, name: Option<String>) -> Self {
        Progress {
            tool: String::from(tool),
            step,
            name,
        }
    }
}

/// A decline or cancel ends the call with a normal result saying so.
fn declined(r: &ElicitResult) -> Option<CallToolResult> {
    match r.action {
        ElicitAction::Accept => None,
        ElicitAction::Decline => Some(CallToolResult::text("The user declined to answer.")),
        ElicitAction::Cancel => Some(CallToolResult::text("The user cancelled the request.")),
    }
}

fn elicitation(ctx: Context) -> ToolReply {
    match ctx.elicitation("user_name") {
        Some(r) => match (declined(&r), r.content_as::<Name>()) {
            (Some(done), _) => Reply::Complete(done),
            (None, Some(n)) => Reply::Complete(CallToolResult::text(format!("Hello, {}!", n.name))),
            (None, None) => ask_name("user_name", "What is your name?").into(),
        },
        None => ask_name("user_name", "What is your name?").into(),
    }
}

fn sampling(ctx: Context) -> ToolReply {
    match ctx.sampling("capital_question") {
        Some(r) => Reply::Complete(CallToolResult::text(format!(
            "The model ({}) answered: {}",
            r.model,
            r.text().unwrap_or("(no text)")
        ))),
        None => InputRequired::new()
            .sample(
                "capital_question",
                CreateMessageRequest::user_text("What is the capital of France?", 100),
            )
            .into(),
    }
}

fn list_roots(ctx: Context) -> ToolReply {
    match ctx.roots("client_roots") {
        Some(r) => Reply::Complete(CallToolResult::text(format!(
            "Found {} root(s)",
            r.roots.len()
        ))),
        None => InputRequired::new().list_roots("client_roots").into(),
    }
}

fn ask_confirm(tool: &str) -> InputRequired {
    InputRequired::new()
        .elicit(
            "confirm",
            ElicitRequest::form("Please confirm", one_field("ok", "boolean")),
        )
        .state(&Progress::new(tool, 1, None))
}

/// Completes only when the confirmation comes back with this tool's own
/// verified state.
fn confirmed(ctx: Context, tool: &str, done: &str) -> ToolReply {
    let state = ctx.state::<Progress>().filter(|p| p.tool == tool);
    match (state, ctx.elicitation("confirm")) {
        (Some(_), Some(r)) => match (declined(&r), r.content_as::<Confirm>()) {
            (Some(d), _) => Reply::Complete(d),
            (None, Some(c)) => {
                Reply::Complete(CallToolResult::text(format!("{done}: ok={}", c.ok)))
            }
            (None, None) => ask_confirm(tool).into(),
        },
        _ => ask_confirm(tool).into(),
    }
}

fn multiple_inputs(ctx: Context) -> ToolReply {
    const TOOL: &str = "multiple_inputs";
    let name = ctx
        .elicitation("user_name")
        .and_then(|r| r.content_as::<Name>());
    let greeting = ctx.sampling("greeting");
    let roots = ctx.roots("client_roots");
    let ours = ctx.state::<Progress>().is_some_and(|p| p.tool == TOOL);
    if let (true, Some(n), Some(g), Some(r)) = (ours, name, greeting, roots) {
        return Reply::Complete(CallToolResult::text(format!(
            "{} ({}): {} [{} root(s)]",
            n.name,
            g.model,
            g.text().unwrap_or("(no text)"),
            r.roots.len()
        )));
    }
    // Anything missing: ask for all three again (a retry answers only
    // what the latest round asked, so partial answers are not kept).
    InputRequired::new()
        .elicit(
            "user_name",
            ElicitRequest::form("What is your name?", one_field("name", "string")),
        )
        .sample(
            "greeting",
            CreateMessageRequest::user_text("Generate a greeting", 50),
        )
        .list_roots("client_roots")
        .state(&Progress::new(TOOL, 1, None))
        .into()
}

fn multi_round(ctx: Context) -> ToolReply {
    const TOOL: &str = "multi_round";
    let state = ctx.state::<Progress>().filter(|p| p.tool == TOOL);
    if let Some(Progress {
        step: 2,
        name: Some(name),
        ..
    }) = &state
    {
        if let Some(c) = ctx
            .elicitation("step2")
            .and_then(|r| r.content_as::<Color>())
        {
            return Reply::Complete(CallToolResult::text(format!(
                "{name}'s favorite color is {}",
                c.color
            )));
        }
        return ask_color(name.clone());
    }
    match ctx
        .elicitation("step1")
        .and_then(|r| r.content_as::<Name>())
    {
        Some(n) => ask_color(n.name),
        None => ask_name("step1", "Step 1: What is your name?")
            .state(&Progress::new(TOOL, 1, None))
            .into(),
    }
}

fn ask_color(name: String) -> ToolReply {
    InputRequired::new()
        .elicit(
            "step2",
            ElicitRequest::form(
                "Step 2: What is your favorite color?",
                one_field("color", "string"),
            ),
        )
        .state(&Progress::new("multi_round", 2, Some(name)))
        .into()
}

/// Ask only for what this request's client capabilities declare
/// (`mrtr.mdx` rule 7).
fn capabilities(ctx: Context) -> ToolReply {
    let caps = &ctx.meta().client_capabilities;
    let answered: Vec<&str> = [
        ("elicitation", ctx.elicitation("user_name").is_some()),
        ("sampling", ctx.sampling("greeting").is_some()),
        ("roots", ctx.roots("client_roots").is_some()),
    ]
    .into_iter()
    .filter_map(|(what, yes)| yes.then_some(what))
    .collect();
    if !answered.is_empty() {
        return Reply::Complete(CallToolResult::text(format!(
            "Received: {}",
            answered.join(", ")
        )));
    }
    let mut ask = InputRequired::new();
    if caps.elicitation_form() {
        ask = ask.elicit(
            "user_name",
            ElicitRequest::form("What is your name?", one_field("name", "string")),
        );
    }
    if caps.sampling() {
        ask = ask.sample(
            "greeting",
            CreateMessageRequest::user_text("Generate a greeting", 50),
        );
    }
    if caps.roots() {
        ask = ask.list_roots("client_roots");
    }
    if ask.requests().is_empty() {
        return Reply::Complete(CallToolResult::text(
            "The client declared no capability to answer input requests.",
        ));
    }
    ask.into()
}

fn streaming_elicitation(ctx: Context) -> ToolReply {
    match ctx
        .elicitation("user_input")
        .and_then(|r| r.content_as::<Name>())
    {
        Some(n) => Reply::Complete(CallToolResult::text(format!("Received {}", n.name))),
        None => ask_name("user_input", "What is your name?").into(),
    }
}

/// Register the MRTR tools (after the others, so `test_simple_text` stays
/// first) and the MRTR prompt.
pub fn register(builder: ServiceBuilder) -> ServiceBuilder {
    builder
        .tool(
            Tool::new(
                "test_streaming_elicitation",
                "Asks for input through an InputRequiredResult, never a request on the stream",
            ),
            |_: NoArgs, ctx: Context| async move { streaming_elicitation(ctx) },
        )
        .tool(
            Tool::new(
                "test_input_required_result_elicitation",
                "Asks for the user's name, then greets them",
            ),
            |_: NoArgs, ctx: Context| async move { elicitation(ctx) },
        )
        .tool(
            Tool::new(
                "test_input_required_result_sampling",
                "Asks the client's model a question",
            ),
            |_: NoArgs, ctx: Context| async move { sampling(ctx) },
        )
        .tool(
            Tool::new(
                "test_input_required_result_list_roots",
                "Asks for the client's roots",
            ),
            |_: NoArgs, ctx: Context| async move { list_roots(ctx) },
        )
        .tool(
            Tool::new(
                "test_input_required_result_request_state",
                "Asks for confirmation and keeps state across the retry",
            ),
            |_: NoArgs, ctx: Context| async move {
                confirmed(ctx, "request_state", "state-ok")
            },
        )
        .tool(
            Tool::new(
                "test_input_required_result_multiple_inputs",
                "Asks for a name, a sampled greeting and the roots at once",
            ),
            |_: NoArgs, ctx: Context| async move { multiple_inputs(ctx) },
        )
        .tool(
            Tool::new(
                "test_input_required_result_multi_round",
                "Asks two questions in two rounds",
            ),
            |_: NoArgs, ctx: Context| async move { multi_round(ctx) },
        )
        .tool(
            Tool::new(
                "test_input_required_result_tampered_state",
                "Asks for confirmation with integrity-protected state",
            ),
            |_: NoArgs, ctx: Context| async move {
                confirmed(ctx, "tampered_state", "state verified")
            },
        )
        .tool(
            Tool::new(
                "test_input_required_result_capabilities",
                "Asks only for what the client's capabilities allow",
            ),
            |_: NoArgs, ctx: Context| async move { capabilities(ctx) },
        )
        .prompt(
            Prompt::new(
                "test_input_required_result_prompt",
                "Asks what context to use, then renders with it",
            ),
            |_: NoArgs, ctx: Context| async move {
                let context = ctx
                    .elicitation("user_context")
                    .and_then(|r| r.content_as::<UserContext>());
                Ok(match context {
                    Some(c) => Reply::Complete(GetPromptResult::new(vec![PromptMessage::user(
                        Content::text(format!("Use this context: {}", c.context)),
                    )])),
                    None => InputRequired::new()
                        .elicit(
                            "user_context",
                            ElicitRequest::form(
                                "What context should the prompt use?",
                                one_field("context", "string"),
                            ),
                        )
                        .into(),
                })
            },
        )
}
