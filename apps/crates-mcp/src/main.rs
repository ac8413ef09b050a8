//! `snodo-crates`: the crate-knowledge MCP server, on stdio or HTTP.
//!
//! ```text
//! snodo-crates stdio                       # for desktop clients
//! snodo-crates http [127.0.0.1:8379]       # Streamable HTTP at /mcp (prints the address)
//! snodo-crates --registry DIR stdio        # another registry cache
//! ```
//!
//! The registry is `$CARGO_HOME/registry`, or `~/.cargo/registry`. Logs go
//! to stderr (`RUST_LOG` filters them; stdout is the stdio transport's).

use snodo_crates::serve::{parse_args, serve};
use snodo_crates::App;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (registry, transport) = parse_args(&args).inspect_err(|e| eprintln!("{e}"))?;
    let app = App::open(&registry);
    let catalog = app.catalog();
    tracing::info!(registry = %registry.display(), crates = catalog.crates.len(), versions = catalog.len(), "registry cache read");
    // `index_cache` may run as a task for clients that ask
    // (`io.modelcontextprotocol/tasks`).
    let builder = snodo_crates::with_tasks(snodo_crates::builder(app.clone()));
    serve(app, builder, transport).await
}
