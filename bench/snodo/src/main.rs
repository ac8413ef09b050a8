//! `snodo-echo`: one tool, `echo` (`{"text": string}` -> one text block),
//! served by snodo on the chosen runtime. The command line is the
//! fixture's: `--listen ADDR --runtime tokio|smol|blocking|hyper` or `--stdio`.
//!
//! `--auth` (HTTP) turns authorization on: every request needs an RS256
//! JWT for `http://ADDR/mcp` with the scope `mcp`, checked by
//! `snodo_auth::JwtValidator` with a static key and its default cache of
//! verified tokens. The server mints one such token with snodo-auth's
//! test key and prints it as the second stdout line, after the address;
//! the load generator sends it on every request (a client reusing its
//! access token, as clients do).
//!
//! tokio runs on a current-thread runtime and smol on one executor thread,
//! the same single-threaded shape as the peers' servers in this benchmark
//! (which pins every server to one core anyway).

use bench_common::{announce, Mode};
use serde::Deserialize;
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{CallToolResult, Implementation, Service, Tool};
use std::io;
use std::sync::{Arc, OnceLock};

/// With `--auth`: the token printed after the address.
static TOKEN: OnceLock<String> = OnceLock::new();

/// The address line, then with `--auth` the token line.
fn announce_all(addr: std::net::SocketAddr) {
    announce(addr);
    if let Some(token) = TOKEN.get() {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{token}");
        let _ = out.flush();
    }
}

#[derive(Deserialize, JsonSchema)]
struct Echo {
    text: String,
}

/// snodo-auth's test keys (`auth/tests/keys`): a benchmark, not a secret.
const KEY: &[u8] = include_bytes!("../../../auth/tests/keys/rsa.key");
const PUB: &[u8] = include_bytes!("../../../auth/tests/keys/rsa.pub");
const ISSUER: &str = "https://auth.example.com";

/// Authorization for the endpoint at `addr`, and a token for it.
fn authorization(addr: std::net::SocketAddr) -> (snodo_proto::Authorization, String) {
    use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
    let resource = format!("http://{addr}/mcp");
    let validator = snodo_auth::JwtValidator::builder(ISSUER, &resource)
        .key(snodo_auth::Key::rsa_pem(Some("rsa-1"), PUB).expect("the test key"))
        .build()
        .expect("the validator");
    let auth = snodo_proto::Authorization::new(&resource, validator)
        .authorization_server(ISSUER)
        .require(["mcp"]);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("rsa-1".into());
    let claims = serde_json::json!({
        "iss": ISSUER, "aud": resource, "sub": "bench", "scope": "mcp",
        "iat": now, "exp": now + 3600,
    });
    let token = encode(
        &header,
        &claims,
        &EncodingKey::from_rsa_pem(KEY).expect("the test key"),
    )
    .expect("the token");
    (auth, token)
}

fn service(auth: Option<snodo_proto::Authorization>) -> Service {
    let tool = Tool::new("echo", "Echo the text back").input_schema(serde_json::json!({
        "type": "object",
        "properties": { "text": { "type": "string" } },
        "required": ["text"]
    }));
    let mut builder = Service::builder()
        .server_info(Implementation::new("snodo-echo", "0.1.0"))
        .tool(
            tool,
            |a: Echo| async move { CallToolResult::text(a.text) },
        );
    if let Some(auth) = auth {
        builder = builder.authorization(auth);
    }
    builder.build().expect("the echo service builds")
}

/// The address the listener will have: with `--auth` the port must be
/// known before binding (it is in the audience), so port 0 is resolved
/// here by binding once.
fn fixed(addr: std::net::SocketAddr) -> io::Result<std::net::SocketAddr> {
    if addr.port() != 0 {
        return Ok(addr);
    }
    std::net::TcpListener::bind(addr)?.local_addr()
}

fn main() -> io::Result<()> {
    // `--auth` is this binary's own; the rest is the shared command line.
    let mut auth = false;
    let rest: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| {
            let is = a == "--auth";
            auth |= is;
            !is
        })
        .collect();
    let mut args = bench_common::parse("snodo-echo", rest);
    let service = match (&mut args.mode, auth) {
        (Mode::Listen(addr), true) => {
            *addr = fixed(*addr)?;
            let (authorization, token) = authorization(*addr);
            TOKEN.set(token).expect("set once");
            service(Some(authorization))
        }
        _ => service(None),
    };
    let runtime = args.runtime.as_deref().unwrap_or("tokio");
    match (runtime, args.mode) {
        ("tokio", mode) => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            rt.block_on(async {
                let options = snodo_tokio::Options::default();
                match mode {
                    Mode::Stdio => snodo_tokio::serve_stdio(&service, options).await,
                    Mode::Listen(addr) => {
                        let listener = snodo_tokio::bind_http(addr).await?;
                        announce_all(listener.local_addr()?);
                        snodo_tokio::serve_http(&service, listener, std::future::pending(), options)
                            .await
                    }
                }
            })
        }
        ("smol", mode) => {
            let ex = Arc::new(smol::Executor::new());
            let options = snodo_smol::Options::default();
            smol::block_on(ex.run(async {
                match mode {
                    Mode::Stdio => snodo_smol::serve_stdio(&ex, &service, options).await,
                    Mode::Listen(addr) => {
                        let listener = snodo_smol::bind_http(addr).await?;
                        announce_all(listener.local_addr()?);
                        snodo_smol::serve_http(
                            &ex,
                            &service,
                            listener,
                            std::future::pending(),
                            options,
                        )
                        .await
                    }
                }
            }))
        }
        ("blocking", Mode::Stdio) => {
            let threads = snodo_blocking::Threads::new(snodo_blocking::DEFAULT_WORKERS)?;
            snodo_blocking::serve_stdio(&threads, &service, snodo_blocking::Options::default())
        }
        ("blocking", Mode::Listen(addr)) => {
            let listener = snodo_blocking::bind_http(addr)?;
            announce_all(listener.local_addr()?);
            let threads = snodo_blocking::Threads::new(snodo_blocking::DEFAULT_WORKERS)?;
            snodo_blocking::serve_http(
                &threads,
                &service,
                listener,
                std::future::pending(),
                snodo_blocking::Options::default(),
            )
        }
        // On the same current-thread tokio runtime as the tokio row, so the
        // two rows differ only in the HTTP layer (hyper's against proto's).
        ("hyper", Mode::Listen(addr)) => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            rt.block_on(async {
                let listener = tokio::net::TcpListener::bind(addr).await?;
                announce_all(listener.local_addr()?);
                let options = snodo_hyper::Options::default();
                snodo_hyper::serve(&service, listener, std::future::pending(), options).await
            })
        }
        (other, _) => {
            eprintln!(
                "--runtime must be tokio, smol, blocking or hyper (HTTP only), got {other:?}"
            );
            std::process::exit(2)
        }
    }
}
