//! Serving the fixture over Streamable HTTP on each runtime. This is the
//! only runtime-specific code of the fixture: binding, announcing the bound
//! address, and stopping. On tokio, SIGINT/SIGTERM shut down gracefully; the
//! other runtimes have no signal support without another dependency, so
//! there the default signal action ends the process (the fixture holds no
//! state worth a graceful exit).

use std::io;
use std::net::SocketAddr;

use snodo_proto::Service;

use crate::cli::Runtime;

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
        Runtime::Blocking => Err(io::Error::other(format!(
            "the {runtime:?} runtime does not serve HTTP in this build yet"
        ))),
    }
}

fn tokio_serve(service: &Service, addr: SocketAddr, announce: fn(SocketAddr)) -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = snodo_tokio::bind_http(addr).await?;
        announce(listener.local_addr()?);
        let shutdown = async {
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
        };
        snodo_tokio::serve_http(service, listener, shutdown, snodo_tokio::Options::default()).await
    })
}

/// Executor threads for the smol runtime, besides the main thread.
const SMOL_THREADS: usize = 2;

fn smol_serve(service: &Service, addr: SocketAddr, announce: fn(SocketAddr)) -> io::Result<()> {
    use std::sync::Arc;
    let ex = Arc::new(smol::Executor::new());
    let (stop, stopped) = smol::channel::unbounded::<()>();
    let threads: Vec<_> = (0..SMOL_THREADS)
        .map(|_| {
            let ex = ex.clone();
            let stopped = stopped.clone();
            std::thread::spawn(move || smol::block_on(ex.run(stopped.recv())))
        })
        .collect();
    let result = smol::block_on(ex.run(async {
        let listener = snodo_smol::bind_http(addr).await?;
        announce(listener.local_addr()?);
        snodo_smol::serve_http(
            &ex,
            service.clone(),
            listener,
            std::future::pending(),
            snodo_smol::Options::default(),
        )
        .await
    }));
    drop(stop);
    for t in threads {
        let _ = t.join();
    }
    result
}
