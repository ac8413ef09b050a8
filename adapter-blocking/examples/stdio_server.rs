//! A small MCP server on stdin/stdout, run on plain threads by `snodo-blocking`.
//!
//! ```text
//! cargo run -p snodo-blocking --example stdio_server
//! ```
//!
//! Then type one JSON-RPC request per line (the hint printed on stderr is a
//! complete `server/discover` request). Logs go to stderr; `RUST_LOG=debug`
//! shows more. Close stdin (Ctrl-D) to stop.
//!
//! What it serves:
//! - typed tools, their schemas generated from the argument and result
//!   types: `echo` (text in, text out), `add` (a structured result under
//!   the `outputSchema` of `Sum`), `slow` (blocking work in steps, off the
//!   worker that polls it, reporting progress and stopping when cancelled);
//! - the resource `demo://readme` and the template `demo://greeting/{name}`
//!   (its variable read into a type);
//! - the prompt `greet`; its `name` argument and the template's `{name}`
//!   have completions, one handler registered for each.

use snodo_proto::ResourceArgs;
use std::process::ExitCode;
use std::thread;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use snodo_blocking::{serve_stdio, Options, Threads, DEFAULT_WORKERS};
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::typed::Json;
use snodo_proto::{
    Completion, CompletionRequest, Content, Context, ErrorObject, GetPromptResult, Implementation,
    Prompt, PromptMessage, ReadResourceResult, Resource, ResourceContents, ResourceError,
    ResourceTemplate, Service, Tool, ToolError,
};
use tracing_subscriber::EnvFilter;

const HINT: &str = r#"snodo demo server reading JSON-RPC lines on stdin; try: {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

const README: &str =
    "# snodo demo\n\nThis server is the `stdio_server` example of `snodo-blocking`.\n";

/// Names offered when completing `greet`'s `name` and the greeting template's `{name}`.
const NAMES: &[&str] = &[
    "Ada",
    "Alan",
    "Barbara",
    "Grace",
    "Katherine",
    "Linus",
    "Margaret",
];

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EchoArgs {
    /// The text to return.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddArgs {
    a: f64,
    b: f64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: f64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SlowArgs {
    /// How many steps of 200 ms (default 5).
    #[serde(default = "default_steps")]
    #[schemars(range(min = 1, max = 50))]
    steps: u32,
}

fn default_steps() -> u32 {
    5
}

/// The variables of `demo://greeting/{name}`.
#[derive(Deserialize)]
struct Greeting {
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

fn main() -> ExitCode {
    // stdout carries protocol messages only, so logs go to stderr.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .init();

    let service = match build_service() {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "the demo service is invalid");
            return ExitCode::FAILURE;
        }
    };
    eprintln!("{HINT}");
    let served = Threads::new(DEFAULT_WORKERS)
        .and_then(|threads| serve_stdio(&threads, &service, Options::default()));
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "stdio transport failed");
            ExitCode::FAILURE
        }
    }
}

fn build_service() -> Result<Service, snodo_proto::BuildError> {
    Service::builder()
        .server_info(Implementation::new("snodo-demo", env!("CARGO_PKG_VERSION")))
        .instructions(
            "A demo server: echo text, add numbers, or watch a slow task report progress.",
        )
        .tool(
            Tool::new("echo", "Return the given text"),
            |args: EchoArgs| async move { args.text },
        )
        .tool(
            Tool::new("add", "Add two numbers"),
            |args: AddArgs| async move {
                Json(Sum {
                    sum: args.a + args.b,
                })
            },
        )
        .tool(
            Tool::new(
                "slow",
                "Work for a while in steps of 200 ms, reporting progress; stops when cancelled",
            ),
            |args: SlowArgs, ctx: Context| async move {
                let total = args.steps;
                let reporter = ctx.clone();
                // Blocking steps (a sleep stands for real work) run where
                // blocking is allowed: a thread of their own on this adapter,
                // so the worker that polls handlers serves other calls.
                let done = ctx
                    .spawn_blocking(move |interrupt| {
                        for step in 1..=total {
                            if interrupt.is_set() {
                                return step - 1;
                            }
                            thread::sleep(Duration::from_millis(200));
                            reporter.progress(
                                f64::from(step),
                                Some(f64::from(total)),
                                Some(format!("step {step} of {total}")),
                            );
                        }
                        total
                    })
                    .await?;
                Ok::<_, ToolError>(format!("finished {done} steps"))
            },
        )
        .resource(
            Resource::new("demo://readme", "readme")
                .description("What this server is")
                .mime_type("text/markdown"),
            |args: ResourceArgs| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri,
                    "text/markdown",
                    README,
                )]))
            },
        )
        .resource_template(
            ResourceTemplate::new("demo://greeting/{name}", "greeting")
                .description("A greeting for anyone")
                .mime_type("text/plain"),
            |args: ResourceArgs| async move {
                let Greeting { name } = args.variables_as()?;
                if name.is_empty() {
                    return Err(ResourceError::NotFound);
                }
                let text = format!("Hello, {name}!");
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri.clone(),
                    "text/plain",
                    text,
                )]))
            },
        )
        .prompt(
            Prompt::new("greet", "Ask the model to greet someone"),
            |args: GreetArgs| async move {
                let text = format!("Please greet {} warmly, in one sentence.", args.name);
                Ok(GetPromptResult::new(vec![PromptMessage::user(
                    Content::text(text),
                )]))
            },
        )
        .prompt_completion("greet", "name", complete_names)
        .template_completion("demo://greeting/{name}", "name", complete_names)
        .build()
}

/// The names starting with what was typed, for `greet`'s `name` and the
/// greeting template's `{name}`.
async fn complete_names(req: CompletionRequest) -> Result<Completion, ErrorObject> {
    let prefix = req.value.to_lowercase();
    let values = NAMES
        .iter()
        .filter(|n| n.to_lowercase().starts_with(&prefix))
        .map(|n| (*n).to_string())
        .collect();
    Ok(Completion::new(values))
}
