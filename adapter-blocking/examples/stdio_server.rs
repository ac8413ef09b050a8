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
//!   the `outputSchema` of `Sum`), `slow` (reports progress, stops when
//!   cancelled);
//! - the resource `demo://readme` and the template `demo://greeting/{name}`;
//! - the prompt `greet`, whose `name` argument has completions.

use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;
use std::task::{Context as TaskContext, Poll};
use std::thread;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use snodo_blocking::{serve_stdio, Options, Threads, DEFAULT_WORKERS};
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::typed::Json;
use snodo_proto::{
    Completion, CompletionRef, CompletionRequest, Content, GetPromptResult, Implementation, Prompt,
    PromptMessage, ReadResourceResult, Resource, ResourceContents, ResourceError, ResourceTemplate,
    Service, Tool,
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
            |args: EchoArgs, _ctx| async move { args.text },
        )
        .tool(
            Tool::new("add", "Add two numbers"),
            |args: AddArgs, _ctx| async move {
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
            |args: SlowArgs, ctx| async move {
                let total = args.steps;
                for step in 1..=total {
                    // This adapter drops a cancelled call's future; the check
                    // serves drivers that only set the flag.
                    if ctx.is_cancelled() {
                        return String::from("cancelled");
                    }
                    delay(Duration::from_millis(200)).await;
                    ctx.progress(
                        f64::from(step),
                        Some(f64::from(total)),
                        Some(format!("step {step} of {total}")),
                    );
                }
                format!("finished {total} steps")
            },
        )
        .resource(
            Resource::new("demo://readme", "readme")
                .description("What this server is")
                .mime_type("text/markdown"),
            |args, _ctx| async move {
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
            |args, _ctx| async move {
                let Some(name) = args.variables.get("name").filter(|n| !n.is_empty()) else {
                    return Err(ResourceError::NotFound);
                };
                let text = format!("Hello, {name}!");
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri.clone(),
                    "text/plain",
                    text,
                )]))
            },
        )
        .typed_prompt(
            Prompt::new("greet", "Ask the model to greet someone"),
            |args: GreetArgs, _ctx| async move {
                let text = format!("Please greet {} warmly, in one sentence.", args.name);
                Ok(GetPromptResult::new(vec![PromptMessage::user(
                    Content::text(text),
                )]))
            },
        )
        .completer(|req: CompletionRequest, _ctx| async move { Ok(complete(&req)) })
        .build()
}

fn complete(req: &CompletionRequest) -> Completion {
    let about_names = match &req.reference {
        CompletionRef::Prompt { name } => name == "greet",
        CompletionRef::Resource { uri } => uri == "demo://greeting/{name}",
    } && req.argument == "name";
    if !about_names {
        return Completion::new(Vec::new());
    }
    let prefix = req.value.to_lowercase();
    let values = NAMES
        .iter()
        .filter(|n| n.to_lowercase().starts_with(&prefix))
        .map(|n| (*n).to_string())
        .collect();
    Completion::new(values)
}

/// A timer future needing no runtime: a helper thread wakes it when due.
fn delay(d: Duration) -> Delay {
    Delay {
        due: Instant::now() + d,
        armed: false,
    }
}

struct Delay {
    due: Instant,
    armed: bool,
}

impl Future for Delay {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if Instant::now() >= self.due {
            return Poll::Ready(());
        }
        if !self.armed {
            self.armed = true;
            let (due, waker) = (self.due, cx.waker().clone());
            thread::spawn(move || {
                thread::sleep(due.saturating_duration_since(Instant::now()));
                waker.wake();
            });
        }
        Poll::Pending
    }
}
