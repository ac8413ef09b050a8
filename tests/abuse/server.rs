//! `snodo-abuse-server --runtime tokio|smol|blocking|hyper [--tls]`: the
//! conformance fixture over Streamable HTTP on an ephemeral loopback port
//! (printed as the first stdout line), with deadlines short enough for the
//! abuse tests (`abuse/main.rs`) to watch them fire: 1 s to deliver a
//! request, 4 s of idleness, 256 KiB per message. `hyper` is `snodo-hyper`'s
//! server (HTTP/1.1 and h2c on one port); with `--tls` it serves TLS with
//! a certificate made at start-up for `localhost`, whose DER is printed in
//! hex as the second stdout line. Runs until killed.

use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use snodo_proto::{HttpConfig, Limits, Service};

/// The deadlines and limits the abuse tests assert against.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(1);
const IDLE_TIMEOUT: Duration = Duration::from_secs(4);
const MAX_MESSAGE: usize = 256 * 1024;

fn main() {
    let runtime = std::env::args()
        .skip_while(|a| a != "--runtime")
        .nth(1)
        .unwrap_or_default();
    let service = snodo_conformance::builder()
        .http(
            HttpConfig::default()
                .head_timeout(REQUEST_TIMEOUT)
                .request_timeout(REQUEST_TIMEOUT)
                .idle_timeout(IDLE_TIMEOUT),
        )
        .limits(Limits::default().max_message_bytes(MAX_MESSAGE))
        .build()
        .expect("the fixture builds");
    let addr: SocketAddr = "127.0.0.1:0".parse().expect("an address");
    let result = match runtime.as_str() {
        "tokio" => tokio(&service, addr),
        "smol" => smol(service, addr),
        "blocking" => blocking(&service, addr),
        "hyper" => hyper(&service, addr, std::env::args().any(|a| a == "--tls")),
        other => {
            eprintln!("snodo-abuse-server: --runtime tokio|smol|blocking|hyper, not {other:?}");
            std::process::exit(2);
        }
    };
    if let Err(e) = result {
        eprintln!("snodo-abuse-server: {e}");
        std::process::exit(1);
    }
}

fn announce(addr: SocketAddr) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{addr}");
    let _ = out.flush();
}

fn tokio(service: &Service, addr: SocketAddr) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = snodo_tokio::bind_http(addr).await?;
        announce(listener.local_addr()?);
        snodo_tokio::serve_http(
            service,
            listener,
            std::future::pending(),
            snodo_tokio::Options::default(),
        )
        .await
    })
}

fn smol(service: Service, addr: SocketAddr) -> std::io::Result<()> {
    let ex = Arc::new(smol::Executor::new());
    for _ in 0..2 {
        let ex = ex.clone();
        std::thread::spawn(move || smol::block_on(ex.run(std::future::pending::<()>())));
    }
    smol::block_on(ex.run(async {
        let listener = snodo_smol::bind_http(addr).await?;
        announce(listener.local_addr()?);
        snodo_smol::serve_http(
            &ex,
            &service,
            listener,
            std::future::pending(),
            snodo_smol::Options::default(),
        )
        .await
    }))
}

fn blocking(service: &Service, addr: SocketAddr) -> std::io::Result<()> {
    let listener = snodo_blocking::bind_http(addr)?;
    announce(listener.local_addr()?);
    let threads = snodo_blocking::Threads::new(snodo_blocking::DEFAULT_WORKERS)?;
    snodo_blocking::serve_http(
        &threads,
        service,
        listener,
        std::future::pending(),
        snodo_blocking::Options::default(),
    )
}

fn hyper(service: &Service, addr: SocketAddr, tls: bool) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let bound = listener.local_addr()?;
        let options = snodo_hyper::Options::default();
        if !tls {
            announce(bound);
            return snodo_hyper::serve(service, listener, std::future::pending(), options).await;
        }
        let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()])
            .map_err(std::io::Error::other)?;
        let der = cert.cert.der().to_vec();
        let key = rustls_pki_types::PrivateKeyDer::Pkcs8(
            rustls_pki_types::PrivatePkcs8KeyDer::from(cert.key_pair.serialize_der()),
        );
        let config = snodo_hyper::tls::config(vec![der.clone().into()], key)?;
        {
            let mut out = std::io::stdout().lock();
            let hex: String = der.iter().map(|b| format!("{b:02x}")).collect();
            let _ = writeln!(out, "{bound}\n{hex}");
            let _ = out.flush();
        }
        snodo_hyper::serve_tls(service, listener, config, std::future::pending(), options).await
    })
}
