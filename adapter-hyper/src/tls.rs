//! TLS through rustls (feature `tls`): HTTP/2 by ALPN `h2`, HTTP/1.1
//! otherwise, on one port.

use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use snodo_proto::Service;
use std::future::IntoFuture;
use tokio::net::TcpListener;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;

pub use tokio_rustls::rustls;

/// A server configuration from a PEM certificate chain and private key,
/// offering `h2` and `http/1.1` by ALPN.
pub fn config_from_pem(cert: &Path, key: &Path) -> io::Result<Arc<ServerConfig>> {
    let chain = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {e}", cert.display()),
            )
        })?;
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {e}", key.display()),
        )
    })?;
    config(chain, key)
}

/// A server configuration from a certificate chain and its key, offering
/// `h2` and `http/1.1` by ALPN.
pub fn config(
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
) -> io::Result<Arc<ServerConfig>> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_no_client_auth().with_single_cert(chain, key))
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// [`serve`](crate::serve) over TLS. A client has the head timeout
/// ([`HttpConfig::head_timeout`](snodo_proto::HttpConfig)) to finish its
/// handshake, so a slow one cannot hold a task.
pub async fn serve_tls<S>(
    service: &Service,
    listener: TcpListener,
    config: Arc<ServerConfig>,
    shutdown: S,
    options: crate::Options,
) -> io::Result<()>
where
    S: IntoFuture<Output = ()>,
{
    let acceptor = TlsAcceptor::from(config);
    let deadline: Duration = service.http_config().head_timeout;
    crate::serve::serve_with(service, listener, shutdown, options, move |stream| {
        let handshake = acceptor.accept(stream);
        async move {
            match tokio::time::timeout(deadline, handshake).await {
                Ok(done) => done,
                Err(_) => Err(io::ErrorKind::TimedOut.into()),
            }
        }
    })
    .await
}
