//! snodo on hyper over TLS (rustls), with a certificate made for the test:
//! HTTP/2 chosen by ALPN `h2`, and HTTP/1.1 over TLS, on one port, each
//! answering a literal tool call as the native listener does.

use std::sync::Arc;

use bytes::Bytes;
use http::{Request, StatusCode, Version};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use snodo_hyper::tls::rustls;
use snodo_proto::{CallToolResult, Implementation, NoArgs, Service, Tool};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsConnector;

const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const ANSWER: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"hello","type":"text"}],"resultType":"complete"}}"#;

fn service() -> Service {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .tool(Tool::new("hello", "Say hello"), |_: NoArgs| async {
            CallToolResult::text("hello")
        })
        .build()
        .expect("a valid service")
}

/// A server on TLS with a fresh self-signed certificate for `localhost`,
/// and a client configuration that trusts it, offering `alpn`.
async fn start(alpn: &[u8]) -> (std::net::SocketAddr, TlsConnector) {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let der = CertificateDer::from(cert.cert.der().to_vec());
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(cert.key_pair.serialize_der()));
    let config = snodo_hyper::tls::config(vec![der.clone()], key).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let options = snodo_hyper::Options::default();
        snodo_hyper::serve_tls(
            &service(),
            listener,
            config,
            std::future::pending(),
            options,
        )
        .await
    });
    let mut roots = rustls::RootCertStore::empty();
    roots.add(der).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut client = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    client.alpn_protocols = vec![alpn.to_vec()];
    (addr, TlsConnector::from(Arc::new(client)))
}

fn call() -> Request<Full<Bytes>> {
    Request::post("https://localhost/mcp")
        .header("host", "localhost")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "hello")
        .body(Full::new(Bytes::from_static(CALL.as_bytes())))
        .unwrap()
}

async fn body(r: http::Response<hyper::body::Incoming>) -> String {
    String::from_utf8(r.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap()
}

#[tokio::test]
async fn http2_by_alpn_over_tls() {
    let (addr, connector) = start(b"h2").await;
    let tcp = TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let tls = connector.connect(name, tcp).await.unwrap();
    assert_eq!(tls.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
    let (mut send, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tls))
            .await
            .unwrap();
    tokio::spawn(conn);
    let mut req = call();
    req.headers_mut().remove("host");
    let r = send.send_request(req).await.unwrap();
    assert_eq!((r.version(), r.status()), (Version::HTTP_2, StatusCode::OK));
    assert_eq!(body(r).await, ANSWER);
}

#[tokio::test]
async fn http1_over_tls() {
    let (addr, connector) = start(b"http/1.1").await;
    let tcp = TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let tls = connector.connect(name, tcp).await.unwrap();
    let (mut send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .unwrap();
    tokio::spawn(conn);
    let r = send.send_request(call()).await.unwrap();
    assert_eq!(
        (r.version(), r.status()),
        (Version::HTTP_11, StatusCode::OK)
    );
    assert_eq!(body(r).await, ANSWER);
}
