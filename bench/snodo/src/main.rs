//! `snodo-echo`: one tool, `echo` (`{"text": string}` -> one text block),
//! served by snodo on the chosen runtime. The command line is the
//! fixture's: `--listen ADDR --runtime tokio|smol|blocking|hyper` or `--stdio`.
//!
//! tokio runs on a current-thread runtime and smol on one executor thread,
//! the same single-threaded shape as the peers' servers in this benchmark
//! (which pins every server to one core anyway).

use bench_common::{announce, args, Mode};
use serde::Deserialize;
use snodo_proto::{CallToolResult, Implementation, Service, Tool};
use std::io;
use std::sync::Arc;

#[derive(Deserialize)]
struct Echo {
    text: String,
}

fn service() -> Service {
    let tool = Tool::new("echo", "Echo the text back").input_schema(serde_json::json!({
        "type": "object",
        "properties": { "text": { "type": "string" } },
        "required": ["text"]
    }));
    Service::builder()
        .server_info(Implementation::new("snodo-echo", "0.1.0"))
        .tool(
            tool,
            |a: Echo, _ctx| async move { CallToolResult::text(a.text) },
        )
        .build()
        .expect("the echo service builds")
}

fn main() -> io::Result<()> {
    let args = args("snodo-echo");
    let service = service();
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
                        announce(listener.local_addr()?);
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
                        announce(listener.local_addr()?);
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
            announce(listener.local_addr()?);
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
                announce(listener.local_addr()?);
                let options = snodo_hyper::Options::default();
                snodo_hyper::serve(&service, listener, std::future::pending(), options).await
            })
        }
        (other, _) => {
            eprintln!("--runtime must be tokio, smol, blocking or hyper (HTTP only), got {other:?}");
            std::process::exit(2)
        }
    }
}
