//! The HTTP/1.1 abuses over TLS: a local proxy takes each plain TCP
//! connection of a test and carries its bytes, as they come, inside a TLS
//! connection (ALPN `http/1.1`) to the server, and the server's bytes back;
//! a half-close travels as `close_notify` and a TCP FIN (RFC 8446 § 6.1),
//! and the server's close as the proxy's. So every scenario sends the
//! same literal bytes to the TLS listener and holds it to the same
//! oracles; only the proxy's few microseconds are added.

use std::net::SocketAddr;
use std::sync::Arc;

use rustls_pki_types::{CertificateDer, ServerName};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::rustls;
use tokio_rustls::TlsConnector;

/// A running proxy: connect to `addr` for a TLS connection to the server.
pub struct Proxy {
    pub addr: SocketAddr,
    _rt: tokio::runtime::Runtime,
}

impl Proxy {
    /// A proxy to `server`, trusting `cert` (DER, in hex) for `localhost`.
    pub fn start(server: SocketAddr, cert: &str) -> Proxy {
        let der: Vec<u8> = (0..cert.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&cert[i..i + 2], 16).expect("hex"))
            .collect();
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(CertificateDer::from(der))
            .expect("the server's certificate");
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_root_certificates(roots)
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let connector = TlsConnector::from(Arc::new(config));
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("the proxy's runtime");
        let listener = rt
            .block_on(TcpListener::bind("127.0.0.1:0"))
            .expect("the proxy binds");
        let addr = listener.local_addr().expect("the proxy's address");
        rt.spawn(async move {
            while let Ok((plain, _)) = listener.accept().await {
                tokio::spawn(carry(plain, server, connector.clone()));
            }
        });
        Proxy { addr, _rt: rt }
    }
}

/// Carry one connection both ways until each side has closed.
async fn carry(plain: TcpStream, server: SocketAddr, connector: TlsConnector) {
    let Ok(tcp) = TcpStream::connect(server).await else {
        return;
    };
    let _ = (tcp.set_nodelay(true), plain.set_nodelay(true));
    let name = ServerName::try_from("localhost").expect("a name");
    let Ok(tls) = connector.connect(name, tcp).await else {
        return;
    };
    let (mut from_client, mut to_client) = plain.into_split();
    let (mut from_server, mut to_server) = tokio::io::split(tls);
    let up = async {
        let _ = tokio::io::copy(&mut from_client, &mut to_server).await;
        let _ = to_server.shutdown().await;
    };
    let down = async {
        let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
        let _ = to_client.shutdown().await;
    };
    tokio::join!(up, down);
}

/// Clients that never finish their TLS handshake (a ClientHello's record
/// header, then a byte every 250 ms), straight to the server: each is
/// closed by the head deadline (`HttpConfig::head_timeout`, which bounds
/// the handshake), with nothing but at most a TLS alert sent back.
pub fn slow_handshakes(label: &str, server: SocketAddr, deadline: std::time::Duration) {
    use std::time::Duration;
    let clients: Vec<_> = (0..30)
        .map(|_| {
            std::thread::spawn(move || {
                // A handshake record of 512 bytes (RFC 8446 § 5.1).
                let first = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01];
                crate::slowloris(server, &first, 0x00, deadline * 4)
            })
        })
        .collect();
    for (i, c) in clients.into_iter().enumerate() {
        let (got, closed, after) = c.join().expect("a slow handshake");
        assert!(
            closed && after <= deadline + Duration::from_secs(3),
            "{label}: slow handshake {i} held {after:?} (closed: {closed})"
        );
        assert!(
            got.is_empty() || got[0] == 0x15,
            "{label}: slow handshake {i} got {got:?}"
        );
    }
}
