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
//! `SNODO_CRATES_INDEX_HOLD=FILE` is the binary's test hook, for tests
//! that drive it from outside (the released TypeScript client's lane):
//! while `FILE` exists, an `index_cache` call that has finished holds its
//! answer, so a task's progress can be seen while it is `working` however
//! fast the machine reads. It is a layer around the tool
//! ([`hold_answers`]), not part of the library.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use snodo_crates::{watch::Watcher, App};
use snodo_tasks::{RunnerConfig, TaskRunner};
use snodo_tokio::Options;

const USAGE: &str = "usage: snodo-crates [--registry DIR] (stdio | http [ADDR])";

fn default_registry() -> PathBuf {
    if let Some(home) = std::env::var_os("CARGO_HOME") {
        return PathBuf::from(home).join("registry");
    }
    let home = std::env::var_os("HOME").unwrap_or_default();
    PathBuf::from(home).join(".cargo").join("registry")
}

enum Mode {
    Stdio,
    Http(String),
}

fn parse(args: &[String]) -> Result<(PathBuf, Mode), String> {
    let mut registry = default_registry();
    let mut rest = args;
    if rest.first().map(String::as_str) == Some("--registry") {
        registry = PathBuf::from(rest.get(1).ok_or(USAGE)?);
        rest = &rest[2..];
    }
    match rest {
        [m] if m == "stdio" => Ok((registry, Mode::Stdio)),
        [m] if m == "http" => Ok((registry, Mode::Http("127.0.0.1:8379".into()))),
        [m, addr] if m == "http" => Ok((registry, Mode::Http(addr.clone()))),
        _ => Err(USAGE.into()),
    }
}

/// The test hook's layer: each answer waits while `hold` exists.
fn hold_answers(hold: PathBuf) -> impl snodo_proto::Layer {
    snodo_proto::layer::from_fn(move |call: snodo_proto::layer::Call| {
        let hold = hold.clone();
        async move {
            let outcome = call.run().await;
            while hold.exists() {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            outcome
        }
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (registry, mode) = parse(&args).map_err(|e| {
        eprintln!("{e}");
        e
    })?;
    let app = App::open(&registry);
    let catalog = app.catalog();
    tracing::info!(registry = %registry.display(), crates = catalog.crates.len(), versions = catalog.len(), "registry cache read");

    // `index_cache` may run as a task for clients that ask
    // (`io.modelcontextprotocol/tasks`).
    let mut builder = snodo_crates::with_tasks(snodo_crates::builder(app.clone()));
    if let Some(hold) = std::env::var_os("SNODO_CRATES_INDEX_HOLD") {
        builder = builder.tool_layer("index_cache", hold_answers(PathBuf::from(hold)));
    }
    let service = builder.build()?;
    // A task's run does its blocking reading on the same pool as a call's.
    let runner =
        TaskRunner::new(&service, RunnerConfig::default())?.executor(snodo_tokio::blocking_pool());
    let handle = tokio::runtime::Handle::current();
    let _tasks = snodo_tasks::drive::start(
        runner,
        Arc::new(move |f| {
            handle.spawn(f);
        }),
    )?;
    let _watcher = Watcher::start(app, Duration::from_secs(2))?;
    match mode {
        Mode::Stdio => snodo_tokio::serve_stdio(&service, Options::default()).await?,
        Mode::Http(addr) => {
            let listener = snodo_tokio::bind_http(addr).await?;
            // The bound address first on stdout (a launcher reads it when
            // asking for port 0), then the endpoint for a human on stderr.
            let local = listener.local_addr()?;
            println!("{local}");
            eprintln!("MCP endpoint: http://{local}/mcp");
            let ctrl_c = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            snodo_tokio::serve_http(&service, listener, ctrl_c, Options::default()).await?;
        }
    }
    Ok(())
}
