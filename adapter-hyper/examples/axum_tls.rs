//! An axum application with its own routes and snodo at `/mcp`, served
//! over TLS with HTTP/2 (and HTTP/1.1) on one port.
//!
//! ```text
//! cargo run -p snodo-hyper --example axum_tls                 # self-signed for localhost
//! cargo run -p snodo-hyper --example axum_tls -- CERT.pem KEY.pem
//! curl -k --http2 https://localhost:8443/healthz
//! ```
//!
//! Without a certificate it makes a self-signed one for `localhost` at
//! start-up (rcgen) and prints where it wrote it, for clients to trust.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::extract::{Request, State as AxumState};
use axum::middleware::{self, Next};
use axum::routing::get;
use axum::{Json, Router};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use snodo_hyper::{McpService, RequestExtensions};
use snodo_proto::extract::State;
use snodo_proto::{Context, Implementation, NoArgs, Service, Tool};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// The application's own state, shared by its API (axum's `State`) and its
/// MCP tools (snodo's `State`).
#[derive(Default)]
struct Counter {
    count: AtomicU64,
}

/// What the application's own auth layer establishes (here: every caller
/// is "demo"); MCP handlers read it from the request's extensions.
#[derive(Clone)]
struct Caller(&'static str);

async fn authenticate(mut request: Request, next: Next) -> axum::response::Response {
    request.extensions_mut().insert(Caller("demo"));
    next.run(request).await
}

fn mcp(counter: Arc<Counter>) -> Service {
    Service::builder()
        .server_info(Implementation::new("axum-tls-example", "0.1.0"))
        .state_arc(counter)
        .tool(
            Tool::new("bump", "Increment the application's counter and return it"),
            |counter: State<Counter>, _: NoArgs, ctx: Context| async move {
                let who = ctx.request_extension::<Caller>().map_or("nobody", |c| c.0);
                let n = counter.count.fetch_add(1, Ordering::Relaxed) + 1;
                format!("{who} bumped the counter to {n}")
            },
        )
        .build()
        .expect("a valid service")
}

fn tls_config() -> Arc<tokio_rustls::rustls::ServerConfig> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [cert, key] = args.as_slice() {
        return snodo_hyper::tls::config_from_pem(cert.as_ref(), key.as_ref())
            .expect("a usable certificate and key");
    }
    let made = rcgen::generate_simple_self_signed(vec!["localhost".into()])
        .expect("a self-signed certificate");
    let path = std::env::temp_dir().join("snodo-axum-tls-example.pem");
    std::fs::write(&path, made.cert.pem()).expect("the certificate written");
    eprintln!("self-signed certificate for localhost: {}", path.display());
    let der = CertificateDer::from(made.cert.der().to_vec());
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(made.key_pair.serialize_der()));
    snodo_hyper::tls::config(vec![der], key).expect("a usable certificate")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let counter = Arc::new(Counter::default());
    let app = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route(
            "/api/counter",
            get(|AxumState(c): AxumState<Arc<Counter>>| async move {
                Json(serde_json::json!({ "counter": c.count.load(Ordering::Relaxed) }))
            }),
        )
        .with_state(counter.clone())
        .nest_service("/mcp", McpService::mounted(mcp(counter)))
        .layer(middleware::from_fn(authenticate));

    let acceptor = TlsAcceptor::from(tls_config());
    let listener = TcpListener::bind("127.0.0.1:8443").await?;
    eprintln!("serving https://localhost:8443 (/healthz, /api/counter, /mcp)");
    loop {
        let (tcp, _) = listener.accept().await?;
        let (acceptor, app) = (acceptor.clone(), app.clone());
        tokio::spawn(async move {
            let Ok(tls) = acceptor.accept(tcp).await else {
                return;
            };
            let service = TowerToHyperService::new(app);
            let _ = Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(tls), service)
                .await;
        });
    }
}
