//! `https://` endpoints against snodo's own hyper listener on TLS
//! (`snodo_hyper::serve_tls`), its certificate for `localhost` issued by a
//! CA this test makes: trusted when the test adds that CA, refused with a
//! TLS error naming why when the host is not the certificate's or the CA
//! is unknown. On the blocking transport and on the async one on tokio,
//! smol and plain threads.

#![cfg(all(feature = "tokio", feature = "smol", feature = "threads"))]

#[macro_use]
mod common;
use common::pki;

use std::sync::OnceLock;

use serde_json::json;
use snodo_client::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use snodo_client::rustls::{CertificateError, Error as TlsError};
use snodo_client::{
    AsyncHttpTransport, AsyncSession, ClientRuntime, Error, HttpTransport, NoInput, Session,
    TlsConfig, TransportError,
};
use snodo_proto::client::{ClientConfig, Wire};
use snodo_proto::{CallToolResult, Content, NoArgs, Service, Tool};

fn service() -> Service {
    Service::builder()
        .tool(Tool::new("hello", "Say hello"), |_: NoArgs| async {
            CallToolResult::text("hello over TLS")
        })
        .build()
        .unwrap()
}

/// One TLS server for the whole test binary (on a tokio runtime of its
/// own): its port and the PEM of the CA that issued its certificate.
fn server() -> &'static (u16, String) {
    static SERVER: OnceLock<(u16, String)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let pki = pki("snodo test CA");
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(pki.key));
        let config = snodo_hyper::tls::config(vec![pki.leaf], key).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap().port()).unwrap();
                let options = snodo_hyper::Options::default();
                snodo_hyper::serve_tls(
                    &service(),
                    listener,
                    config,
                    std::future::pending(),
                    options,
                )
                .await
            })
        });
        (rx.recv().unwrap(), pki.ca_pem)
    })
}

/// The test's CA, and no other root.
fn trusting_the_test_ca() -> TlsConfig {
    TlsConfig::no_roots()
        .with_root_pem(server().1.as_bytes())
        .unwrap()
}

fn url(host: &str) -> String {
    format!("https://{host}:{}/mcp", server().0)
}

fn config() -> ClientConfig {
    ClientConfig::new("tls", "1", Wire::Http)
}

fn assert_hello(result: &CallToolResult) {
    assert_eq!(result.content, [Content::text("hello over TLS")]);
}

/// The refusal is a TLS error that says which check failed: `why`
/// holds of the certificate error, and the message says it.
fn assert_refused(outcome: Result<(), Error>, why: fn(&CertificateError) -> bool, says: &str) {
    match outcome {
        Err(Error::Transport(TransportError::Tls(TlsError::InvalidCertificate(e)))) => {
            assert!(why(&e), "{e:?}");
            let text =
                Error::Transport(TransportError::Tls(TlsError::InvalidCertificate(e))).to_string();
            assert!(text.starts_with("TLS: invalid peer certificate"), "{text}");
            assert!(text.contains(says), "{text}");
        }
        other => panic!("{other:?}"),
    }
}

/// The certificate names another host (rustls says which, and which
/// names the certificate carries).
fn not_valid_for_name(e: &CertificateError) -> bool {
    matches!(
        e,
        CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. }
    )
}

fn unknown_issuer(e: &CertificateError) -> bool {
    matches!(e, CertificateError::UnknownIssuer)
}

#[test]
fn blocking_trusts_an_added_ca() {
    let transport = HttpTransport::new(&url("localhost"))
        .unwrap()
        .with_tls(&trusting_the_test_ca());
    let mut session = Session::connect(transport, config(), NoInput).unwrap();
    assert_eq!(session.list_tools().unwrap()[0].name, "hello");
    assert_hello(&session.call_tool("hello", json!({})).unwrap());
}

#[test]
fn blocking_refuses_another_host_name() {
    // 127.0.0.1 is the same server, but its certificate names localhost.
    let transport = HttpTransport::new(&url("127.0.0.1"))
        .unwrap()
        .with_tls(&trusting_the_test_ca());
    let outcome = Session::connect(transport, config(), NoInput).map(|_| ());
    assert_refused(outcome, not_valid_for_name, "127.0.0.1");
}

#[test]
fn blocking_refuses_an_unknown_ca() {
    // The web's roots: the test CA is not among them.
    let transport = HttpTransport::new(&url("localhost")).unwrap();
    let outcome = Session::connect(transport, config(), NoInput).map(|_| ());
    assert_refused(outcome, unknown_issuer, "UnknownIssuer");
}

#[test]
fn blocking_trusts_the_platform_roots() {
    // The platform's store as this test makes it: SSL_CERT_FILE names a
    // bundle holding the test CA (an administrator's CA, say). No other
    // test of this binary reads the variable.
    let bundle = std::env::temp_dir().join(format!("snodo-tls-roots-{}.pem", std::process::id()));
    std::fs::write(&bundle, &server().1).unwrap();
    std::env::set_var("SSL_CERT_FILE", &bundle);
    let roots = TlsConfig::platform_roots();
    std::env::remove_var("SSL_CERT_FILE");
    let _ = std::fs::remove_file(&bundle);
    let transport = HttpTransport::new(&url("localhost"))
        .unwrap()
        .with_tls(&roots.unwrap());
    let mut session = Session::connect(transport, config(), NoInput).unwrap();
    assert_hello(&session.call_tool("hello", json!({})).unwrap());
}

async fn async_trusts_an_added_ca<R: ClientRuntime>(runtime: R) {
    let transport = AsyncHttpTransport::new(runtime, &url("localhost"))
        .unwrap()
        .with_tls(&trusting_the_test_ca());
    let mut session = AsyncSession::connect(transport, config(), NoInput)
        .await
        .unwrap();
    assert_eq!(session.list_tools().await.unwrap()[0].name, "hello");
    // Twice: the second call goes on the kept TLS connection.
    assert_hello(&session.call_tool("hello", json!({})).await.unwrap());
    assert_hello(&session.call_tool("hello", json!({})).await.unwrap());
}

async fn async_refuses_another_host_name<R: ClientRuntime>(runtime: R) {
    let transport = AsyncHttpTransport::new(runtime, &url("127.0.0.1"))
        .unwrap()
        .with_tls(&trusting_the_test_ca());
    let outcome = AsyncSession::connect(transport, config(), NoInput)
        .await
        .map(|_| ());
    assert_refused(outcome, not_valid_for_name, "127.0.0.1");
}

async fn async_refuses_an_unknown_ca<R: ClientRuntime>(runtime: R) {
    let transport = AsyncHttpTransport::new(runtime, &url("localhost")).unwrap();
    let outcome = AsyncSession::connect(transport, config(), NoInput)
        .await
        .map(|_| ());
    assert_refused(outcome, unknown_issuer, "UnknownIssuer");
}

on_each_runtime!(async_trusts_an_added_ca);
on_each_runtime!(async_refuses_another_host_name);
on_each_runtime!(async_refuses_an_unknown_ca);
