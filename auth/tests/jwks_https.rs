//! A JWKS fetched over HTTPS from an authorization server behind a
//! private CA (`TrustRoots::with_pem`): accepted with the CA added, and
//! refused without it or when the certificate names another host. The
//! endpoint is rustls over a std socket in this test, with a certificate
//! for `localhost` from a CA made here.

#![cfg(feature = "https")]

mod support;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::{Algorithm, EncodingKey};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use snodo_auth::{JwksSource, JwtValidator, KeyError, TrustRoots};
use support::*;

/// The CA's PEM, and a served endpoint's port and what each of its
/// connections ended with (`Ok` once it answered, the TLS error if the
/// client refused the handshake).
struct Endpoint {
    ca_pem: String,
    port: u16,
    ended: Receiver<Result<(), String>>,
}

fn serve_jwks_over_tls() -> Endpoint {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "snodo-auth test CA");
    let ca = ca.self_signed(&ca_key).unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec![String::from("localhost")])
        .unwrap()
        .signed_by(&leaf_key, &ca, &ca_key)
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = Arc::new(
        rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(leaf.der().to_vec())],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
            )
            .unwrap(),
    );
    let body = std::fs::read_to_string(JWKS).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, ended) = mpsc::channel();
    std::thread::spawn(move || {
        for tcp in listener.incoming() {
            let Ok(tcp) = tcp else { return };
            let conn = rustls::ServerConnection::new(config.clone()).unwrap();
            let mut tls = rustls::StreamOwned::new(conn, tcp);
            let mut reader = BufReader::new(&mut tls);
            let mut line = String::new();
            let read = loop {
                line.clear();
                match reader.read_line(&mut line) {
                    Ok(n) if n > 2 => continue,
                    Ok(_) => break Ok(()),
                    Err(e) => break Err(e.to_string()),
                }
            };
            let answered = read.and_then(|()| {
                write!(
                    tls,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
                .and_then(|()| tls.flush())
                .map_err(|e| e.to_string())
            });
            let _ = tx.send(answered);
        }
    });
    Endpoint {
        ca_pem: ca.pem(),
        port,
        ended,
    }
}

fn token() -> String {
    sign(
        Algorithm::RS256,
        Some("rsa-2"),
        &EncodingKey::from_rsa_pem(RSA2_KEY).unwrap(),
        &claims(),
    )
}

fn validator(url: &str, roots: TrustRoots) -> JwtValidator {
    JwtValidator::builder(ISSUER, RESOURCE)
        .jwks(JwksSource::parse(url).unwrap())
        .jwks_roots(roots)
        .build()
        .unwrap()
}

#[test]
fn a_jwks_behind_an_added_ca_is_fetched_and_verifies() {
    let endpoint = serve_jwks_over_tls();
    let roots = TrustRoots::default()
        .with_pem(endpoint.ca_pem.as_bytes())
        .unwrap();
    let v = validator(&format!("https://localhost:{}/jwks", endpoint.port), roots);
    let deadline = Instant::now() + Duration::from_secs(10);
    while v.jwks_loads() == 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(v.jwks_loads(), 1);
    assert_eq!(v.validate(&token()).unwrap().subject, "alice");
    assert_eq!(endpoint.ended.recv().unwrap(), Ok(()));
}

/// Without the CA, Mozilla's roots do not reach the test's certificate;
/// with it, a certificate for `localhost` does not name `127.0.0.1`. The
/// handshake is refused either way, no key is loaded, and the token is
/// not accepted.
#[test]
fn an_unknown_ca_or_another_hostname_is_refused() {
    let endpoint = serve_jwks_over_tls();
    let with_ca = || {
        TrustRoots::default()
            .with_pem(endpoint.ca_pem.as_bytes())
            .unwrap()
    };
    for (url, roots) in [
        (
            format!("https://localhost:{}/jwks", endpoint.port),
            TrustRoots::default(),
        ),
        (
            format!("https://127.0.0.1:{}/jwks", endpoint.port),
            with_ca(),
        ),
    ] {
        let v = validator(&url, roots);
        let ended = endpoint
            .ended
            .recv_timeout(Duration::from_secs(10))
            .expect("the client connected");
        assert!(
            ended.is_err(),
            "{url}: the handshake was refused: {ended:?}"
        );
        assert_eq!(v.jwks_loads(), 0, "{url}");
        assert!(v.validate(&token()).is_err(), "{url}");
    }
}

#[test]
fn a_pem_without_a_certificate_is_a_configuration_error() {
    assert!(matches!(
        TrustRoots::default().with_pem(b"not a certificate"),
        Err(KeyError::Invalid(_))
    ));
}
