//! Serving the fixture on each runtime, over stdio or Streamable HTTP. This
//! is the only runtime-specific code of the fixture: starting the runtime,
//! binding, announcing the bound address, and stopping. On stdio every
//! runtime stops at end of input. Over HTTP, on tokio, SIGINT/SIGTERM shut
//! down gracefully; the other runtimes have no signal support without
//! another dependency, so there the default signal action ends the process
//! (the fixture holds no state worth a graceful exit).
//!
//! Every runtime also drives the fixture's task runner
//! ([`crate::tasks::run`]), spawning task runs on itself; the runner stops
//! (releasing its claims) when serving ends.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use snodo_proto::Service;

use crate::cli::Runtime;

/// How long tokio may take to stop after stdio serving ended: its stdin
/// reader is a blocking thread that only returns with the next line or EOF.
const TOKIO_STDIO_STOP: Duration = Duration::from_millis(100);

/// Serve one client on stdin/stdout until end of input and every call is
/// answered (`basic/transports/stdio.mdx` § Shutdown).
pub fn serve_stdio(service: &Service, runtime: Runtime) -> io::Result<()> {
    match runtime {
        Runtime::Blocking => {
            let _tasks = crate::tasks::run(service, snodo_tasks::drive::thread_spawner());
            let threads = snodo_blocking::Threads::new(snodo_blocking::DEFAULT_WORKERS)?;
            snodo_blocking::serve_stdio(&threads, service, snodo_blocking::Options::default())
        }
        Runtime::Tokio => {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()?;
            let result = rt.block_on(async {
                let _tasks = crate::tasks::run(service, tokio_spawner());
                snodo_tokio::serve_stdio(service, snodo_tokio::Options::default()).await
            });
            rt.shutdown_timeout(TOKIO_STDIO_STOP);
            result
        }
        Runtime::Hyper => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the hyper adapter serves HTTP only",
        )),
        Runtime::Smol => with_smol(|ex| {
            let _tasks = crate::tasks::run(service, smol_spawner(ex));
            smol::block_on(ex.run(snodo_smol::serve_stdio(
                ex,
                service,
                snodo_smol::Options::default().max_connections(max_connections()),
            )))
        }),
    }
}

/// Bind `addr`, call `announce` with the bound address, and serve until
/// SIGINT or SIGTERM, then shut down gracefully.
pub fn serve(
    service: &Service,
    addr: SocketAddr,
    runtime: Runtime,
    announce: fn(SocketAddr),
) -> io::Result<()> {
    match runtime {
        Runtime::Tokio => tokio_serve(service, addr, announce),
        Runtime::Smol => smol_serve(service, addr, announce),
        Runtime::Blocking => blocking_serve(service, addr, announce),
        Runtime::Hyper => hyper_serve(service, addr, announce),
    }
}

fn blocking_serve(service: &Service, addr: SocketAddr, announce: fn(SocketAddr)) -> io::Result<()> {
    let listener = snodo_blocking::bind_http(addr)?;
    announce(listener.local_addr()?);
    let _tasks = crate::tasks::run(service, snodo_tasks::drive::thread_spawner());
    let threads = snodo_blocking::Threads::new(snodo_blocking::DEFAULT_WORKERS)?;
    let options = snodo_blocking::Options::default().max_connections(max_connections());
    snodo_blocking::serve_http(&threads, service, listener, std::future::pending(), options)
}

fn tokio_serve(service: &Service, addr: SocketAddr, announce: fn(SocketAddr)) -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = snodo_tokio::bind_http(addr).await?;
        announce(listener.local_addr()?);
        let _tasks = crate::tasks::run(service, tokio_spawner());
        let options = snodo_tokio::Options::default().max_connections(max_connections());
        snodo_tokio::serve_http(service, listener, terminated(), options).await
    })
}

/// The same fixture in a hyper server (`snodo-hyper`): HTTP/1.1 and h2c.
fn hyper_serve(service: &Service, addr: SocketAddr, announce: fn(SocketAddr)) -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        announce(listener.local_addr()?);
        let _tasks = crate::tasks::run(service, tokio_spawner());
        let options = snodo_hyper::Options::default().max_connections(max_connections());
        snodo_hyper::serve(service, listener, terminated(), options).await
    })
}

/// The fixture on hyper over TLS (`--tls-cert`, `--tls-key`).
pub fn serve_tls(
    service: &Service,
    addr: SocketAddr,
    tls: &crate::cli::Tls,
    announce: fn(SocketAddr),
) -> io::Result<()> {
    let config = snodo_hyper::tls::config_from_pem(&tls.cert, &tls.key)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        announce(listener.local_addr()?);
        let _tasks = crate::tasks::run(service, tokio_spawner());
        let options = snodo_hyper::Options::default().max_connections(max_connections());
        snodo_hyper::serve_tls(service, listener, config, terminated(), options).await
    })
}

/// SIGINT or SIGTERM, on tokio.
async fn terminated() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "cannot listen for SIGTERM; only SIGINT stops the server");
            let _ = tokio::signal::ctrl_c().await;
            return;
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    tracing::info!("shutting down");
}

/// Executor threads for the smol runtime, besides the main thread.
const SMOL_THREADS: usize = 2;

/// Run `main` with a smol executor that [`SMOL_THREADS`] threads also
/// drive, and stop those threads when it returns.
fn with_smol<T>(main: impl FnOnce(&Arc<smol::Executor<'static>>) -> T) -> T {
    let ex = Arc::new(smol::Executor::new());
    let (stop, stopped) = smol::channel::unbounded::<()>();
    let threads: Vec<_> = (0..SMOL_THREADS)
        .map(|_| {
            let ex = ex.clone();
            let stopped = stopped.clone();
            std::thread::spawn(move || smol::block_on(ex.run(stopped.recv())))
        })
        .collect();
    let result = main(&ex);
    drop(stop);
    for t in threads {
        let _ = t.join();
    }
    result
}

fn smol_serve(service: &Service, addr: SocketAddr, announce: fn(SocketAddr)) -> io::Result<()> {
    with_smol(|ex| {
        smol::block_on(ex.run(async {
            let listener = snodo_smol::bind_http(addr).await?;
            announce(listener.local_addr()?);
            let _tasks = crate::tasks::run(service, smol_spawner(ex));
            snodo_smol::serve_http(
                ex,
                service,
                listener,
                std::future::pending(),
                snodo_smol::Options::default().max_connections(max_connections()),
            )
            .await
        }))
    })
}

/// Task runs as tasks of the current tokio runtime.
fn tokio_spawner() -> snodo_tasks::drive::Spawn {
    let handle = tokio::runtime::Handle::current();
    Arc::new(move |run| {
        handle.spawn(run);
    })
}

/// Task runs as tasks of the fixture's smol executor.
fn smol_spawner(ex: &Arc<smol::Executor<'static>>) -> snodo_tasks::drive::Spawn {
    let ex = ex.clone();
    Arc::new(move |run| ex.spawn(run).detach())
}

/// Connections served at once over HTTP: `SNODO_MAX_CONNECTIONS`, default
/// 1024 (what a benchmark with thousands of listen streams raises).
fn max_connections() -> usize {
    std::env::var("SNODO_MAX_CONNECTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(1024)
}
