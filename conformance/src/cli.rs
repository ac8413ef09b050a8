//! The `snodo-fixture` command line: serve the fixture on stdio or on
//! Streamable HTTP, with the chosen runtime.
//!
//! On stdio, stdout carries protocol messages only. With `--listen`, the
//! first (and only) stdout line is the bound address, so a caller that asked
//! for port 0 learns the port. Every diagnostic goes to stderr through
//! `tracing` (level from `RUST_LOG`, default `warn`).

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use tracing_subscriber::EnvFilter;

use crate::auth_spec::AuthSpec;
use crate::store_spec::StoreSpec;
use snodo_tasks_sql::PgBus;

const USAGE: &str = "\
usage: snodo-fixture --stdio [--runtime tokio|smol|blocking] [STORE OPTIONS]
       snodo-fixture --listen ADDR [--runtime tokio|smol|blocking|hyper]
                     [--tls-cert PEM --tls-key PEM] [STORE OPTIONS]
                     [--auth-issuer URL --auth-audience URI [--auth-jwks URL|FILE]
                      | --auth-introspect URL --auth-client ID:SECRET]]
       snodo-fixture --help

Serve the snodo MCP conformance fixture (protocol revision 2026-07-28).

options:
  --stdio                      serve newline-delimited JSON-RPC on stdin/stdout
  --listen ADDR                serve Streamable HTTP at http://ADDR/mcp; port 0
                               picks a free port; the bound address is printed
                               as the first line on stdout
  --runtime tokio|smol|blocking|hyper
                               adapter serving the transport (default:
                               blocking for --stdio, tokio for --listen);
                               hyper (HTTP/1.1 and h2c on one port) serves
                               --listen only
  --tls-cert PEM --tls-key PEM serve https:// (rustls; HTTP/2 by ALPN h2),
                               with --runtime hyper
  --tasks-store memory|disk:PATH|sqlite:PATH|postgres://…
                               where Tasks-extension tasks live: memory, a
                               directory, a SQLite file, or a PostgreSQL
                               database that replicas share (default:
                               SNODO_TASKS_DIR if set, else memory)
  --state-key-file PATH        seal MRTR requestState with the hex key in PATH
                               (overrides SNODO_STATE_KEY)
  --bus postgres://…           carry change events (task status, list changes,
                               resource updates) to and from the other replicas
                               on that database (LISTEN/NOTIFY)
  --session-route TAG          begin every initialize-era session id with TAG
                               and a dot, so a load balancer routes a session
                               to this replica by Mcp-Session-Id (1-32 of
                               A-Z a-z 0-9 _ -; one per replica)
  --auth-issuer URL --auth-audience URI [--auth-jwks URL|FILE]
                               require on HTTP a JWT access token from URL
                               (iss) for URI (aud, the endpoint's canonical
                               URI), signed by a key of the JWKS (a file, or
                               fetched; default URL/.well-known/jwks.json),
                               with scope `mcp`; test_simple_text needs
                               `mcp:text`, test_image_content and
                               test_audio_content `mcp:media`
  --auth-introspect URL --auth-client ID:SECRET
                               with --auth-issuer and --auth-audience: check
                               tokens by RFC 7662 introspection at URL
                               instead, authenticating as ID with SECRET
                               (client_secret_basic); same scopes
  -h, --help                   print this help

Set SNODO_STATE_KEY to a hex secret (at least 32 bytes) to seal MRTR
requestState with it, so that processes sharing it continue each other's
rounds; unset, a key is generated for this process alone.

Environment: SNODO_MAX_CONNECTIONS caps HTTP connections (default 1024).
SNODO_TASKS_DIR keeps Tasks-extension tasks in that directory (a durable
store: tasks survive a restart, even a kill, and are resumed); unset, they
live in memory. SNODO_TASKS_HALT_AT / SNODO_TASKS_STOP_AT arm a crash drill
at a task fault point (before-claim, after-work, mid-commit): the thread
reaching it halts for good, or the process stops (SIGSTOP) until SIGCONT.

Diagnostics go to stderr; set RUST_LOG (default: warn) to change the level.
";

/// The adapter serving the transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// `snodo-tokio`.
    Tokio,
    /// `snodo-smol`.
    Smol,
    /// `snodo-blocking`.
    Blocking,
    /// `snodo-hyper` (HTTP only).
    Hyper,
}

/// `--tls-cert` and `--tls-key`: PEM files (hyper only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tls {
    /// The certificate chain.
    pub cert: std::path::PathBuf,
    /// Its private key.
    pub key: std::path::PathBuf,
}

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Help,
    Stdio(Runtime),
    Listen(SocketAddr, Runtime, Option<Tls>),
}

/// Why the command line was refused.
#[derive(Debug, PartialEq, Eq)]
enum ArgError {
    Unknown(String),
    MissingValue(&'static str),
    BadAddress(String),
    BadRuntime(String),
    NoMode,
    Conflict,
    /// `--tls-cert` and `--tls-key` go together, with `--runtime hyper`.
    Tls,
}

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgError::Unknown(a) => write!(f, "unknown argument {a:?}"),
            ArgError::MissingValue(flag) => write!(f, "{flag} needs a value"),
            ArgError::BadAddress(a) => write!(
                f,
                "--listen needs an address such as 127.0.0.1:0, got {a:?}"
            ),
            ArgError::BadRuntime(r) => {
                write!(f, "--runtime must be tokio, smol or blocking (or hyper, with --listen), got {r:?}")
            }
            ArgError::NoMode => f.write_str("choose a transport: --stdio or --listen ADDR"),
            ArgError::Tls => f.write_str(
                "--tls-cert and --tls-key go together, with --listen and --runtime hyper",
            ),
            ArgError::Conflict => f.write_str("--stdio and --listen exclude each other"),
        }
    }
}

/// Where tasks and request-state keys come from, when the command line
/// says (otherwise the environment does).
#[derive(Debug, Default, PartialEq, Eq)]
struct Stores {
    tasks: Option<StoreSpec>,
    state_key_file: Option<PathBuf>,
    bus: Option<String>,
    /// `--session-route`: this replica's tag in session ids.
    session_route: Option<String>,
    /// `--auth-*`: authorization on HTTP.
    auth: Option<AuthSpec>,
}

/// Take the store options out of `args`; the rest is the command.
fn stores(args: impl IntoIterator<Item = String>) -> Result<(Stores, Vec<String>), String> {
    let mut found = Stores::default();
    let mut rest = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--tasks-store" => {
                let value = args.next().ok_or("--tasks-store needs a value")?;
                found.tasks = Some(StoreSpec::parse(&value)?);
            }
            "--bus" => {
                let value = args.next().ok_or("--bus needs a value")?;
                if !(value.starts_with("postgres://") || value.starts_with("postgresql://")) {
                    return Err(format!("--bus must be a postgres:// URL, got {value:?}"));
                }
                found.bus = Some(value);
            }
            "--session-route" => {
                let value = args.next().ok_or("--session-route needs a value")?;
                found.session_route = Some(value);
            }
            "--state-key-file" => {
                let value = args.next().ok_or("--state-key-file needs a value")?;
                found.state_key_file = Some(PathBuf::from(value));
            }
            _ => rest.push(arg),
        }
    }
    Ok((found, rest))
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, ArgError> {
    let mut stdio = false;
    let mut listen: Option<SocketAddr> = None;
    let mut runtime: Option<Runtime> = None;
    let (mut cert, mut key) = (None, None);
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--stdio" => stdio = true,
            "--listen" => {
                let value = args.next().ok_or(ArgError::MissingValue("--listen"))?;
                listen = Some(value.parse().map_err(|_| ArgError::BadAddress(value))?);
            }
            "--tls-cert" => cert = Some(args.next().ok_or(ArgError::MissingValue("--tls-cert"))?),
            "--tls-key" => key = Some(args.next().ok_or(ArgError::MissingValue("--tls-key"))?),
            "--runtime" => {
                let value = args.next().ok_or(ArgError::MissingValue("--runtime"))?;
                runtime = Some(match value.as_str() {
                    "tokio" => Runtime::Tokio,
                    "smol" => Runtime::Smol,
                    "blocking" => Runtime::Blocking,
                    "hyper" => Runtime::Hyper,
                    _ => return Err(ArgError::BadRuntime(value)),
                });
            }
            _ => return Err(ArgError::Unknown(arg)),
        }
    }
    let tls = match (
        cert,
        key,
        listen.is_some() && runtime == Some(Runtime::Hyper),
    ) {
        (None, None, _) => None,
        (Some(cert), Some(key), true) => Some(Tls {
            cert: cert.into(),
            key: key.into(),
        }),
        _ => return Err(ArgError::Tls),
    };
    match (stdio, listen, runtime) {
        (true, None, Some(Runtime::Hyper)) => Err(ArgError::BadRuntime("hyper".into())),
        (true, None, rt) => Ok(Command::Stdio(rt.unwrap_or(Runtime::Blocking))),
        (true, Some(_), _) => Err(ArgError::Conflict),
        (false, Some(addr), rt) => Ok(Command::Listen(addr, rt.unwrap_or(Runtime::Tokio), tls)),
        (false, None, _) => Err(ArgError::NoMode),
    }
}

fn init_tracing() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .init();
}

/// Run the command line; the `snodo-fixture` binary is just this.
pub fn main() -> ExitCode {
    let (stores, args) = match AuthSpec::take(std::env::args().skip(1))
        .and_then(|(auth, rest)| stores(rest).map(|(s, rest)| (Stores { auth, ..s }, rest)))
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("snodo-fixture: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let command = match parse(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("snodo-fixture: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match command {
        Command::Help => {
            eprint!("{USAGE}");
            ExitCode::SUCCESS
        }
        Command::Stdio(runtime) => {
            init_tracing();
            let Some(service) = service(&stores) else {
                return ExitCode::FAILURE;
            };
            let Ok(_bus) = join_bus(&stores, &service) else {
                return ExitCode::FAILURE;
            };
            match crate::listen::serve_stdio(&service, runtime) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    tracing::error!(error = %e, ?runtime, "stdio serving failed");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Listen(addr, runtime, tls) => {
            init_tracing();
            let Some(service) = service(&stores) else {
                return ExitCode::FAILURE;
            };
            let Ok(_bus) = join_bus(&stores, &service) else {
                return ExitCode::FAILURE;
            };
            let served = match tls {
                Some(tls) => crate::listen::serve_tls(&service, addr, &tls, announce),
                None => crate::listen::serve(&service, addr, runtime, announce),
            };
            match served {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    tracing::error!(error = %e, %addr, ?runtime, "HTTP serving failed");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// Serve the fixture over Streamable HTTP on `addr` with `runtime`, printing
/// the bound address as the first stdout line: what `--listen` does, for
/// programs (benchmarks) that run the fixture in a child process of their own.
pub fn serve_http(addr: SocketAddr, runtime: Runtime) -> std::io::Result<()> {
    let service = crate::try_service().map_err(|e| std::io::Error::other(e.to_string()))?;
    crate::listen::serve(&service, addr, runtime, announce)
}

fn service(stores: &Stores) -> Option<snodo_proto::Service> {
    let keys = match &stores.state_key_file {
        Some(path) => crate::state_key::from_file(path).map(Some),
        None => crate::state_key::from_env(),
    };
    let keys = match keys {
        Ok(k) => k,
        Err(e) => {
            tracing::error!(error = %e, "unusable request-state key");
            return None;
        }
    };
    let tasks = match &stores.tasks {
        Some(spec) => spec.open(),
        None => crate::tasks::store_from_env(),
    };
    let tasks = match tasks {
        Ok(t) => t,
        Err(e) => {
            tracing::error!(error = %e, "unusable task store");
            return None;
        }
    };
    let auth = match stores
        .auth
        .as_ref()
        .map(AuthSpec::authorization)
        .transpose()
    {
        Ok(a) => a,
        Err(e) => {
            tracing::error!(error = %e, "unusable authorization");
            return None;
        }
    };
    let mut builder = crate::builder_with_tasks(tasks);
    if let Some(keys) = keys {
        builder = builder.state_keys(keys);
    }
    if let Some(auth) = auth {
        builder = builder.authorization(auth);
    }
    if let Some(route) = &stores.session_route {
        builder =
            builder.http(snodo_proto::HttpConfig::default().session_route(Some(route.clone())));
    }
    match builder.build() {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::error!(error = %e, "the fixture does not build");
            None
        }
    }
}

/// Join the service's hub to the bus `--bus` names, if any; the bus runs
/// until the returned value is dropped. `Err` (logged) if it cannot start.
fn join_bus(stores: &Stores, service: &snodo_proto::Service) -> Result<Option<PgBus>, ()> {
    let (Some(url), Some(hub)) = (&stores.bus, service.hub()) else {
        return Ok(None);
    };
    match PgBus::start(url, hub) {
        Ok(bus) => {
            tracing::info!(id = bus.id(), "change bus joined");
            Ok(Some(bus))
        }
        Err(e) => {
            tracing::error!(error = %e, "unusable change bus");
            Err(())
        }
    }
}

/// Print the bound address as the first stdout line.
fn announce(addr: SocketAddr) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{addr}");
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| String::from(*s)).collect()
    }

    #[test]
    fn stdio_and_help_parse() {
        assert_eq!(
            parse(args(&["--stdio"])),
            Ok(Command::Stdio(Runtime::Blocking))
        );
        assert_eq!(
            parse(args(&["--stdio", "--runtime", "tokio"])),
            Ok(Command::Stdio(Runtime::Tokio))
        );
        assert_eq!(
            parse(args(&["--runtime", "smol", "--stdio"])),
            Ok(Command::Stdio(Runtime::Smol))
        );
        assert_eq!(
            parse(args(&["--stdio", "--runtime", "blocking"])),
            Ok(Command::Stdio(Runtime::Blocking))
        );
        assert_eq!(parse(args(&["--help"])), Ok(Command::Help));
        assert_eq!(parse(args(&["--stdio", "-h"])), Ok(Command::Help));
    }

    #[test]
    fn listen_parses() {
        let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
        assert_eq!(
            parse(args(&["--listen", "127.0.0.1:0"])),
            Ok(Command::Listen(addr, Runtime::Tokio, None))
        );
        assert_eq!(
            parse(args(&["--listen", "127.0.0.1:0", "--runtime", "blocking"])),
            Ok(Command::Listen(addr, Runtime::Blocking, None))
        );
        assert_eq!(
            parse(args(&["--runtime", "smol", "--listen", "127.0.0.1:0"])),
            Ok(Command::Listen(addr, Runtime::Smol, None))
        );
        assert_eq!(
            parse(args(&["--listen", "127.0.0.1:0", "--runtime", "hyper"])),
            Ok(Command::Listen(addr, Runtime::Hyper, None))
        );
        let tls = Tls {
            cert: "c.pem".into(),
            key: "k.pem".into(),
        };
        assert_eq!(
            parse(args(&[
                "--listen",
                "127.0.0.1:0",
                "--runtime",
                "hyper",
                "--tls-cert",
                "c.pem",
                "--tls-key",
                "k.pem"
            ])),
            Ok(Command::Listen(addr, Runtime::Hyper, Some(tls)))
        );
        // TLS is the hyper adapter's, and needs both files.
        assert_eq!(
            parse(args(&[
                "--listen",
                "127.0.0.1:0",
                "--tls-cert",
                "c.pem",
                "--tls-key",
                "k.pem"
            ])),
            Err(ArgError::Tls)
        );
        assert_eq!(
            parse(args(&[
                "--listen",
                "127.0.0.1:0",
                "--runtime",
                "hyper",
                "--tls-cert",
                "c.pem"
            ])),
            Err(ArgError::Tls)
        );
        // hyper serves HTTP only.
        assert_eq!(
            parse(args(&["--stdio", "--runtime", "hyper"])),
            Err(ArgError::BadRuntime("hyper".into()))
        );
    }

    #[test]
    fn refusals() {
        assert_eq!(parse(args(&[])), Err(ArgError::NoMode));
        assert_eq!(
            parse(args(&["--bogus"])),
            Err(ArgError::Unknown(String::from("--bogus")))
        );
        assert_eq!(
            parse(args(&["--listen"])),
            Err(ArgError::MissingValue("--listen"))
        );
        assert_eq!(
            parse(args(&["--listen", "nowhere"])),
            Err(ArgError::BadAddress(String::from("nowhere")))
        );
        assert_eq!(
            parse(args(&["--listen", "127.0.0.1:0", "--runtime", "async-std"])),
            Err(ArgError::BadRuntime(String::from("async-std")))
        );
        assert_eq!(
            parse(args(&["--stdio", "--listen", "127.0.0.1:0"])),
            Err(ArgError::Conflict)
        );
        assert_eq!(parse(args(&["--runtime", "smol"])), Err(ArgError::NoMode));
        assert_eq!(
            parse(args(&["--stdio", "--runtime"])),
            Err(ArgError::MissingValue("--runtime"))
        );
        assert_eq!(
            parse(args(&["--stdio", "--runtime", "Tokio"])),
            Err(ArgError::BadRuntime(String::from("Tokio")))
        );
    }

    #[test]
    fn store_options_are_taken_out_wherever_they_stand() {
        let (found, rest) = stores(args(&[
            "--tasks-store",
            "sqlite:/tmp/t.db",
            "--listen",
            "127.0.0.1:0",
            "--state-key-file",
            "/run/key",
            "--runtime",
            "smol",
            "--session-route",
            "r1",
        ]))
        .unwrap();
        assert_eq!(
            found,
            Stores {
                tasks: Some(StoreSpec::Sqlite(PathBuf::from("/tmp/t.db"))),
                state_key_file: Some(PathBuf::from("/run/key")),
                bus: None,
                session_route: Some(String::from("r1")),
                auth: None,
            }
        );
        assert_eq!(
            parse(rest),
            Ok(Command::Listen(
                "127.0.0.1:0".parse().unwrap(),
                Runtime::Smol,
                None
            ))
        );
        assert_eq!(stores(args(&["--stdio"])).unwrap().0, Stores::default());
        assert!(stores(args(&["--stdio", "--tasks-store"])).is_err());
        assert!(stores(args(&["--stdio", "--state-key-file"])).is_err());
        assert!(stores(args(&["--stdio", "--tasks-store", "redis://x"])).is_err());
        let (found, _) = stores(args(&["--bus", "postgres://db/x", "--stdio"])).unwrap();
        assert_eq!(found.bus.as_deref(), Some("postgres://db/x"));
        assert!(stores(args(&["--stdio", "--bus"])).is_err());
        assert!(stores(args(&["--stdio", "--bus", "nats://x"])).is_err());
        assert!(stores(args(&["--stdio", "--session-route"])).is_err());
    }
}
