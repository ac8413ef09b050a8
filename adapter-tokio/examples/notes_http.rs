//! A small notes server over Streamable HTTP on loopback, run by `snodo-tokio`.
//!
//! ```text
//! cargo run -p snodo-tokio --example notes_http
//! ```
//!
//! It listens on `127.0.0.1:8377` (set `SNODO_ADDR` to change it; port 0
//! picks a free one) and prints `curl` commands to try on stderr. Logs go to
//! stderr; `RUST_LOG=debug` shows more. Ctrl-C shuts it down gracefully.
//!
//! What it shows:
//! - a tool with typed arguments validated against its schema (`add_note`),
//!   one with structured output (`count_notes`), one that reports progress
//!   and stops when cancelled (`countdown`);
//! - the resource `notes://index` and the template `notes://note/{id}`;
//! - change notifications: `add_note` publishes `notifications/resources/updated`
//!   for `notes://index` to every `subscriptions/listen` stream subscribed to it;
//! - the prompt `review_notes`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use snodo_proto::{
    CallToolResult, ChangeEvent, Content, Context, GetPromptResult, Hub, Implementation, NoArgs,
    Notifications, Prompt, PromptMessage, ReadResourceResult, Resource, ResourceArgs,
    ResourceContents, ResourceError, ResourceTemplate, Service, Tool,
};
use tracing_subscriber::EnvFilter;

#[derive(Deserialize)]
struct NewNote {
    title: String,
    body: String,
}

#[derive(Deserialize)]
struct Countdown {
    seconds: u64,
}

type Notes = Arc<Mutex<Vec<(String, String)>>>;

fn all(notes: &Notes) -> Vec<(String, String)> {
    notes.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

fn service(notes: Notes, hub: Hub) -> Service {
    let add = {
        let (notes, hub) = (notes.clone(), hub.clone());
        move |args: NewNote, _ctx: Context| {
            let (notes, hub) = (notes.clone(), hub.clone());
            async move {
                let id = {
                    let mut n = notes.lock().unwrap_or_else(|p| p.into_inner());
                    n.push((args.title, args.body));
                    n.len()
                };
                hub.publish(ChangeEvent::ResourceUpdated {
                    uri: "notes://index".into(),
                });
                CallToolResult::text(format!("Saved as notes://note/{id}"))
            }
        }
    };
    let count = {
        let notes = notes.clone();
        move |_: NoArgs, _ctx: Context| {
            let n = all(&notes).len();
            async move { CallToolResult::structured(json!({ "count": n })) }
        }
    };
    let index = {
        let notes = notes.clone();
        move |args: ResourceArgs, _ctx: Context| {
            let text: String = all(&notes)
                .iter()
                .enumerate()
                .map(|(i, (title, _))| format!("{}. {title}\n", i + 1))
                .collect();
            async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri,
                    "text/plain",
                    text,
                )]))
            }
        }
    };
    let note = {
        let notes = notes.clone();
        move |args: ResourceArgs, _ctx: Context| {
            let found = args
                .variables
                .get("id")
                .and_then(|id| id.parse::<usize>().ok())
                .and_then(|id| all(&notes).get(id.wrapping_sub(1)).cloned());
            async move {
                let (title, body) = found.ok_or(ResourceError::NotFound)?;
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri,
                    "text/markdown",
                    format!("# {title}\n\n{body}\n"),
                )]))
            }
        }
    };
    let review = move |_: NoArgs, _ctx: Context| {
        let listing: String = all(&notes)
            .iter()
            .map(|(t, b)| format!("- {t}: {b}\n"))
            .collect();
        async move {
            Ok(GetPromptResult::new(vec![PromptMessage::user(
                Content::text(format!(
                    "Review these notes and suggest what to do next:\n{listing}"
                )),
            )]))
        }
    };
    Service::builder()
        .server_info(Implementation::new(
            "snodo-notes",
            env!("CARGO_PKG_VERSION"),
        ))
        .instructions(
            "Keeps short notes. Add with add_note; read notes://index and notes://note/{id}.",
        )
        .notifications(Notifications {
            resource_updates: true,
            ..Notifications::default()
        })
        .hub(hub)
        .tool(
            Tool::new("add_note", "Save a note").input_schema(json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string", "minLength": 1, "maxLength": 200},
                    "body": {"type": "string", "maxLength": 10000}
                },
                "required": ["title", "body"],
                "additionalProperties": false
            })),
            add,
        )
        .tool(
            Tool::new("count_notes", "How many notes are saved").output_schema(json!({
                "type": "object",
                "properties": {"count": {"type": "integer"}},
                "required": ["count"]
            })),
            count,
        )
        .tool(
            Tool::new("countdown", "Count down, reporting progress each second").input_schema(
                json!({
                    "type": "object",
                    "properties": {"seconds": {"type": "integer", "minimum": 1, "maximum": 60}},
                    "required": ["seconds"]
                }),
            ),
            |args: Countdown, ctx: Context| async move {
                for done in 1..=args.seconds {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    ctx.progress(
                        done as f64,
                        Some(args.seconds as f64),
                        Some(format!("{done}s")),
                    );
                }
                CallToolResult::text("Lift-off")
            },
        )
        .resource(
            Resource::new("notes://index", "index")
                .description("Titles of all notes")
                .mime_type("text/plain"),
            index,
        )
        .resource_template(
            ResourceTemplate::new("notes://note/{id}", "note")
                .description("One note by number")
                .mime_type("text/markdown"),
            note,
        )
        .prompt(
            Prompt::new("review_notes", "Ask the model to review the saved notes"),
            review,
        )
        .build()
        .expect("the example's registry is valid")
}

/// A `curl` command for `method`, with the headers Streamable HTTP requires.
fn curl(addr: &std::net::SocketAddr, method: &str, name: Option<&str>, params: &str) -> String {
    let name_header = name
        .map(|n| format!(" -H 'Mcp-Name: {n}'"))
        .unwrap_or_default();
    format!(
        "curl -sN http://{addr}/mcp -H 'Content-Type: application/json' \
-H 'Accept: application/json, text/event-stream' \
-H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: {method}'{name_header} \
-d '{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"{method}\",\"params\":{{{params}\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}}}}}'"
    )
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::io::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let addr = std::env::var("SNODO_ADDR").unwrap_or_else(|_| String::from("127.0.0.1:8377"));
    let listener = snodo_tokio::bind_http(&addr).await?;
    let bound = listener.local_addr()?;
    let service = service(Arc::default(), Hub::default());
    eprintln!("snodo notes server: Streamable HTTP at http://{bound}/mcp (MCP 2026-07-28). Try:\n");
    eprintln!("{}\n", curl(&bound, "server/discover", None, ""));
    eprintln!(
        "{}\n",
        curl(
            &bound,
            "tools/call",
            Some("add_note"),
            r#""name":"add_note","arguments":{"title":"Hello","body":"First note"},"#
        )
    );
    eprintln!(
        "{}\n",
        curl(
            &bound,
            "resources/read",
            Some("notes://index"),
            r#""uri":"notes://index","#
        )
    );
    eprintln!(
        "{}\n",
        curl(
            &bound,
            "subscriptions/listen",
            None,
            r#""notifications":{"resourceSubscriptions":["notes://index"]},"#
        )
    );
    eprintln!("(the last one stays open: add a note from another terminal to see the update)");
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down");
    };
    snodo_tokio::serve_http(
        &service,
        listener,
        shutdown,
        snodo_tokio::Options::default(),
    )
    .await
}
