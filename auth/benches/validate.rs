//! What authorization costs per request with the key in hand (static, or
//! from a JWKS already loaded): `JwtValidator::validate` alone for RS256
//! and ES256 with the cache of verified tokens off (the full check) and
//! on (the same token again), and one whole `tools/call` through a
//! `Connection` on Transport::Http with and without authorization (the
//! difference is the cost per request: header parse, validation, scope
//! check).
//!
//! `cargo bench -p snodo-auth --bench validate`

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;

use jsonwebtoken::{Algorithm, EncodingKey};
use std::time::Duration;

use snodo_auth::{JwksSource, JwtValidator, Key};
use snodo_proto::{CallToolResult, Implementation, NoArgs, Service, Tool};
use support::*;

fn main() {
    divan::main();
}

/// `static_validator` with the cache off: every validation is the full
/// check.
fn uncached() -> JwtValidator {
    JwtValidator::builder(ISSUER, RESOURCE)
        .key(Key::rsa_pem(Some("rsa-1"), RSA_PUB).unwrap())
        .key(Key::ec_pem(Some("ec-1"), EC_PUB).unwrap())
        .claim("email")
        .cache(0, Duration::ZERO)
        .build()
        .unwrap()
}

#[divan::bench]
fn validate_rs256_cached(b: divan::Bencher) {
    let v = static_validator();
    let token = rs256("rsa-1", &claims());
    b.bench(|| v.validate(black_box(&token)).unwrap());
}

#[divan::bench]
fn validate_rs256_static_key(b: divan::Bencher) {
    let v = uncached();
    let token = rs256("rsa-1", &claims());
    b.bench(|| v.validate(black_box(&token)).unwrap());
}

#[divan::bench]
fn validate_es256_static_key(b: divan::Bencher) {
    let v = uncached();
    let token = sign(
        Algorithm::ES256,
        Some("ec-1"),
        &EncodingKey::from_ec_pem(EC_KEY).unwrap(),
        &claims(),
    );
    b.bench(|| v.validate(black_box(&token)).unwrap());
}

#[divan::bench]
fn validate_rs256_jwks_key(b: divan::Bencher) {
    let v = JwtValidator::builder(ISSUER, RESOURCE)
        .jwks(JwksSource::File(JWKS.into()))
        .cache(0, Duration::ZERO)
        .build()
        .unwrap();
    let token = sign(
        Algorithm::RS256,
        Some("rsa-2"),
        &EncodingKey::from_rsa_pem(RSA2_KEY).unwrap(),
        &claims(),
    );
    b.bench(|| v.validate(black_box(&token)).unwrap());
}

#[divan::bench]
fn request_with_authorization_uncached(b: divan::Bencher) {
    let service = service(uncached());
    let request = call(
        "whoami",
        &[&format!("Bearer {}", rs256("rsa-1", &claims()))],
    );
    b.bench(|| {
        let out = send(&service, black_box(request.as_bytes()));
        assert!(out.starts_with("HTTP/1.1 200"));
    });
}

#[divan::bench]
fn request_with_authorization(b: divan::Bencher) {
    let service = service(static_validator());
    let request = call(
        "whoami",
        &[&format!("Bearer {}", rs256("rsa-1", &claims()))],
    );
    b.bench(|| {
        let out = send(&service, black_box(request.as_bytes()));
        assert!(out.starts_with("HTTP/1.1 200"));
    });
}

#[divan::bench]
fn request_without_authorization(b: divan::Bencher) {
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .tool(
            snodo_proto::Tool::new("whoami", "Who is calling"),
            |_: NoArgs| async { CallToolResult::text("alice alice@example.com") },
        )
        .tool(
            Tool::new("write_note", "Needs notes:write"),
            |_: NoArgs| async { CallToolResult::text("written") },
        )
        .build()
        .unwrap();
    let request = call("whoami", &[]);
    b.bench(|| {
        let out = send(&service, black_box(request.as_bytes()));
        assert!(out.starts_with("HTTP/1.1 200"));
    });
}
