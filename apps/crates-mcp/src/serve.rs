//! Serving the application: its tasks runner, its watcher and a transport,
//! for the binary and for programs that build the service differently (the
//! `held` example the TypeScript client's lane runs).

use std::error::Error;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use snodo_proto::ServiceBuilder;
use snodo_tasks::{RunnerConfig, TaskRunner};
use snodo_tokio::Options;

use crate::service::App;
use crate::watch::Watcher;

/// How the server talks to its clients.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// stdin and stdout, for desktop clients.
    Stdio,
    /// Streamable HTTP at `/mcp` on this address (`127.0.0.1:0`: any
    /// free port).
    Http(String),
}

/// The command line's usage.
pub const USAGE: &str = "usage: snodo-crates [--registry DIR] (stdio | http [ADDR])";

/// `$CARGO_HOME/registry`, or `~/.cargo/registry`.
pub fn default_registry() -> PathBuf {
    if let Some(home) = std::env::var_os("CARGO_HOME") {
        return PathBuf::from(home).join("registry");
    }
    let home = std::env::var_os("HOME").unwrap_or_default();
    PathBuf::from(home).join(".cargo").join("registry")
}

/// The registry and transport the arguments name (after the program's
/// name): `[--registry DIR] (stdio | http [ADDR])`; the error is
/// [`USAGE`].
pub fn parse_args(args: &[String]) -> Result<(PathBuf, Transport), String> {
    let mut registry = default_registry();
    let mut rest = args;
    if rest.first().map(String::as_str) == Some("--registry") {
        registry = PathBuf::from(rest.get(1).ok_or(USAGE)?);
        rest = &rest[2..];
    }
    match rest {
        [m] if m == "stdio" => Ok((registry, Transport::Stdio)),
        [m] if m == "http" => Ok((registry, Transport::Http("127.0.0.1:8379".into()))),
        [m, addr] if m == "http" => Ok((registry, Transport::Http(addr.clone()))),
        _ => Err(USAGE.into()),
    }
}

/// Build `builder` (the service over `app`, with the Tasks extension:
/// [`with_tasks`](crate::with_tasks)) and serve it on `transport` until
/// stdin closes or, on HTTP, Ctrl-C. Its task runs are driven on the
/// current tokio runtime, their blocking reading on tokio's blocking pool;
/// a watcher re-reads the cache when it changes. On HTTP the bound
/// address is printed first on stdout (a launcher that asked for port 0
/// reads it), then the endpoint on stderr.
pub async fn serve(
    app: Arc<App>,
    builder: ServiceBuilder,
    transport: Transport,
) -> Result<(), Box<dyn Error>> {
    let service = builder.build()?;
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
    match transport {
        Transport::Stdio => snodo_tokio::serve_stdio(&service, Options::default()).await?,
        Transport::Http(addr) => {
            let listener = snodo_tokio::bind_http(addr).await?;
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
