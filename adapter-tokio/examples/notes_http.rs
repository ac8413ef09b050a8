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
//! - typed tools: arguments validated against the schema generated from
//!   their Rust type (`add_note`), structured output whose `outputSchema`
//!   comes from the return type (`count_notes`), progress and cancellation
//!   (`countdown`); the state reaches every handler as `State<Notes>`;
//! - the resource `notes://index` and the template `notes://note/{id}`;
//! - change notifications: `add_note` publishes `notifications/resources/updated`
//!   for `notes://index` to every `subscriptions/listen` stream subscribed to it;
//! - the prompt `review_notes`.

use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use snodo_proto::extract::State;
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::typed::Json;
use snodo_proto::{
    ChangeEvent, Content, Context, GetPromptResult, Hub, Implementation, Notifications, Prompt,
    PromptMessage, ReadResourceResult, Resource, ResourceArgs, ResourceContents, ResourceError,
    ResourceTemplate, Service, Tool,
};
use tracing_subscriber::EnvFilter;

/// The application's state: every handler receives it as `State<Notes>`.
#[derive(Default)]
struct Notes {
    notes: Mutex<Vec<NewNote>>,
    hub: Hub,
}

impl Notes {
    fn all(&self) -> Vec<NewNote> {
        self.notes.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

#[derive(Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NewNote {
    /// A short title.
    #[schemars(length(min = 1, max = 200))]
    title: String,
    /// The note itself.
    #[schemars(length(max = 10000))]
    body: String,
}

#[derive(Deserialize, JsonSchema)]
struct Countdown {
    /// Seconds to count down from.
    #[schemars(range(min = 1, max = 60))]
    seconds: u64,
}

#[derive(Serialize, JsonSchema)]
struct Count {
    /// Notes saved so far.
    count: usize,
}

fn text(uri: String, mime: &str, text: String) -> ReadResourceResult {
    ReadResourceResult::new(vec![ResourceContents::text(uri, mime, text)])
}

/// The service; its schemas are generated from the types above.
fn service(notes: Notes) -> Service {
    Service::builder()
        .server_info(Implementation::new(
            "snodo-notes",
            env!("CARGO_PKG_VERSION"),
        ))
        .instructions(
            "Keeps short notes. Add with add_note; read notes://index and notes://note/{id}.",
        )
        .notifications(Notifications::default().resource_updates())
        .hub(notes.hub.clone())
        .state(notes)
        .tool(
            Tool::new("add_note", "Save a note"),
            |notes: State<Notes>, note: NewNote| async move {
                let id = {
                    let mut all = notes.notes.lock().unwrap_or_else(|p| p.into_inner());
                    all.push(note);
                    all.len()
                };
                notes.hub.publish(ChangeEvent::ResourceUpdated {
                    uri: "notes://index".into(),
                });
                format!("Saved as notes://note/{id}")
            },
        )
        .tool(
            Tool::new("count_notes", "How many notes are saved"),
            |notes: State<Notes>| async move {
                Json(Count {
                    count: notes.all().len(),
                })
            },
        )
        .tool(
            Tool::new("countdown", "Count down, reporting progress each second"),
            |args: Countdown, ctx: Context| async move {
                for done in 1..=args.seconds {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    let message = Some(format!("{done}s"));
                    ctx.progress(done as f64, Some(args.seconds as f64), message);
                }
                "Lift-off"
            },
        )
        .resource(
            Resource::new("notes://index", "index")
                .description("Titles of all notes")
                .mime_type("text/plain"),
            |notes: State<Notes>, args: ResourceArgs| async move {
                let all = notes.all();
                let index = all.iter().enumerate();
                let index = index.map(|(i, n)| format!("{}. {}\n", i + 1, n.title));
                Ok(text(args.uri, "text/plain", index.collect()))
            },
        )
        .resource_template(
            ResourceTemplate::new("notes://note/{id}", "note")
                .description("One note by number")
                .mime_type("text/markdown"),
            |notes: State<Notes>, args: ResourceArgs| async move {
                let id = args
                    .variables
                    .get("id")
                    .and_then(|id| id.parse::<usize>().ok());
                let all = notes.all();
                let note = id.and_then(|id| all.get(id.wrapping_sub(1)));
                let note = note.ok_or(ResourceError::NotFound)?;
                let markdown = format!("# {}\n\n{}\n", note.title, note.body);
                Ok(text(args.uri, "text/markdown", markdown))
            },
        )
        .prompt(
            Prompt::new("review_notes", "Ask the model to review the saved notes"),
            |notes: State<Notes>| async move {
                let listing: String = notes
                    .all()
                    .iter()
                    .map(|n| format!("- {}: {}\n", n.title, n.body))
                    .collect();
                Ok(GetPromptResult::new(vec![PromptMessage::user(
                    Content::text(format!(
                        "Review these notes and suggest what to do next:\n{listing}"
                    )),
                )]))
            },
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
    let service = service(Notes::default());
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
