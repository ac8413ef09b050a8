//! Keys from a JWKS: a file read at build and again on an unknown `kid`
//! (at a bounded rate), and a URL fetched by the background thread (here
//! a loopback HTTP server this test runs; `https://` goes through the same
//! code with TLS).

mod support;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jsonwebtoken::{Algorithm, EncodingKey};
use snodo_auth::{ConfigError, JwksSource, JwtValidator, Key, KeyError};
use snodo_proto::auth::{Authentication, Verdict};
use snodo_proto::Authenticator;
use support::*;

fn rs2(kid: &str) -> String {
    sign(
        Algorithm::RS256,
        Some(kid),
        &EncodingKey::from_rsa_pem(RSA2_KEY).unwrap(),
        &claims(),
    )
}

fn wait_for(what: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if what() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}

#[test]
fn a_key_from_a_jwks_file_verifies_over_the_wire() {
    let v = JwtValidator::builder(ISSUER, RESOURCE)
        .jwks(JwksSource::File(JWKS.into()))
        .build()
        .unwrap();
    let out = send(
        &service(v),
        call("whoami", &[&format!("Bearer {}", rs2("rsa-2"))]).as_bytes(),
    );
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(out.contains(r#""text":"alice ""#), "{out}");
}

#[test]
fn the_jwks_alg_narrows_the_key() {
    // jwks.json says `"alg": "RS256"`: the same key under PS256 is refused.
    let v = JwtValidator::builder(ISSUER, RESOURCE)
        .jwks(JwksSource::File(JWKS.into()))
        .build()
        .unwrap();
    let token = sign(
        Algorithm::PS256,
        Some("rsa-2"),
        &EncodingKey::from_rsa_pem(RSA2_KEY).unwrap(),
        &claims(),
    );
    assert_eq!(
        v.validate(&token).unwrap_err().0,
        "The token's algorithm is not accepted"
    );
}

#[test]
fn an_unknown_kid_refreshes_the_file_at_a_bounded_rate() {
    let dir = std::env::temp_dir().join(format!("snodo-auth-jwks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("jwks.json");
    std::fs::write(&file, r#"{"keys":[]}"#).unwrap();

    // Rate-bounded: one refresh per hour. The first unknown kid asks for
    // one; the key added afterwards stays unknown, the second unknown kid
    // asks for nothing.
    let slow = JwtValidator::builder(ISSUER, RESOURCE)
        .jwks(JwksSource::File(file.clone()))
        .jwks_min_refresh(Duration::from_secs(3600))
        .build()
        .unwrap();
    assert_eq!(slow.jwks_loads(), 1);
    assert_eq!(
        slow.validate(&rs2("rsa-2")).unwrap_err().0,
        "The token's signing key is unknown"
    );
    assert!(wait_for(|| slow.jwks_loads() == 2));
    std::fs::copy(JWKS, &file).unwrap();
    for _ in 0..100 {
        assert_eq!(
            slow.validate(&rs2("rsa-2")).unwrap_err().0,
            "The token's signing key is unknown"
        );
    }
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(slow.jwks_loads(), 2, "one refresh per interval");

    // Without the bound the next unknown kid loads the new set.
    let fast = JwtValidator::builder(ISSUER, RESOURCE)
        .jwks(JwksSource::File(file.clone()))
        .jwks_min_refresh(Duration::ZERO)
        .build()
        .unwrap();
    assert!(fast.validate(&rs2("rsa-2")).is_ok(), "loaded at build");
    std::fs::write(&file, r#"{"keys":[]}"#).unwrap();
    assert!(fast.validate(&rs2("rsa-9")).is_err());
    // The emptied set is swapped in: rsa-2 is gone too.
    assert!(wait_for(|| fast.validate(&rs2("rsa-2")).is_err()));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What the loopback JWKS endpoint answers: a status and a body.
type Answer = Arc<Mutex<(u16, String)>>;

/// Serve `answer` (as it is at each request) to each connection; returns
/// the URL.
fn serve_jwks(answer: Answer) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/jwks", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let (status, body) = answer.lock().unwrap().clone();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

fn answer(status: u16, body: &str) -> Answer {
    Arc::new(Mutex::new((status, body.to_owned())))
}

const EMPTY_SET: &str = r#"{"keys":[]}"#;

#[test]
fn a_jwks_url_is_fetched_in_the_background() {
    let url = serve_jwks(answer(200, &std::fs::read_to_string(JWKS).unwrap()));
    let v = JwtValidator::builder(ISSUER, RESOURCE)
        .jwks(JwksSource::parse(&url).unwrap())
        .build()
        .unwrap();
    // `validate` never waits for the fetch: the test does.
    assert!(wait_for(|| v.jwks_loads() == 1));
    let principal = v.validate(&rs2("rsa-2")).unwrap();
    assert_eq!(principal.subject, "alice");
    assert_eq!(principal.scopes, ["notes:read", "notes:write"]);
}

#[test]
fn configuration_errors() {
    assert!(matches!(
        JwtValidator::builder(ISSUER, RESOURCE).build(),
        Err(ConfigError::NoKeys)
    ));
    assert!(matches!(
        JwtValidator::builder(ISSUER, "")
            .key(Key::hmac_secret(None, b"s"))
            .build(),
        Err(ConfigError::Empty("audience"))
    ));
    assert!(matches!(
        JwtValidator::builder(ISSUER, RESOURCE)
            .jwks(JwksSource::File("/nonexistent/jwks.json".into()))
            .build(),
        Err(ConfigError::Key(KeyError::Invalid(_)))
    ));
    assert!(JwksSource::parse("http://auth.example.com/jwks").is_err());
    // A key's family decides its algorithms.
    let rsa = Key::rsa_pem(Some("rsa-1"), RSA_PUB).unwrap();
    assert_eq!(
        rsa.clone().only(&[Algorithm::HS256]).unwrap_err(),
        KeyError::WrongFamily(Algorithm::HS256)
    );
    assert_eq!(
        rsa.only(&[Algorithm::PS256]).unwrap().algorithms(),
        [Algorithm::PS256]
    );
    assert!(Key::rsa_pem(None, EC_PUB).is_err());
    assert!(
        snodo_auth::parse_jwks(b"{\"keys\":[{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"}]}")
            .unwrap()
            .is_empty()
    );
}

#[test]
fn an_hmac_key_verifies_hs_only_and_rsa_tokens_never_meet_it() {
    let v = JwtValidator::builder(ISSUER, RESOURCE)
        .key(Key::hmac_secret(
            Some("hs-1"),
            b"a shared secret of thirty-two by",
        ))
        .build()
        .unwrap();
    let hs = sign(
        Algorithm::HS256,
        Some("hs-1"),
        &EncodingKey::from_secret(b"a shared secret of thirty-two by"),
        &claims(),
    );
    assert_eq!(v.validate(&hs).unwrap().subject, "alice");
    let rs = rs256("hs-1", &claims());
    assert_eq!(
        v.validate(&rs).unwrap_err().0,
        "The token's algorithm is not accepted"
    );
}

#[test]
fn the_leeway_is_capped() {
    let v = JwtValidator::builder(ISSUER, RESOURCE)
        .key(Key::rsa_pem(Some("rsa-1"), RSA_PUB).unwrap())
        .leeway(Duration::from_secs(24 * 3600))
        .build()
        .unwrap();
    let mut c = claims();
    c["exp"] = serde_json::json!(now() - 310);
    assert_eq!(
        v.validate(&rs256("rsa-1", &c)).unwrap_err().0,
        "The token has expired"
    );
    c["exp"] = serde_json::json!(now() - 200);
    assert!(v.validate(&rs256("rsa-1", &c)).is_ok());
}

/// A provider rotates a key in, then signs with it: the server's copy of
/// the set is older. The first token under the new `kid` waits for the
/// refresh it asks for and is answered 200, never 401. A second unknown
/// `kid` within `jwks_min_refresh` asks for nothing and is refused at once.
#[test]
fn a_token_signed_by_a_key_rotated_in_waits_for_the_refresh_not_401() {
    let endpoint = answer(200, EMPTY_SET);
    let v = JwtValidator::builder(ISSUER, RESOURCE)
        .jwks(JwksSource::parse(&serve_jwks(endpoint.clone())).unwrap())
        .jwks_min_refresh(Duration::from_secs(3600))
        .build()
        .unwrap();
    assert!(wait_for(|| v.jwks_loads() == 1));
    *endpoint.lock().unwrap() = (200, std::fs::read_to_string(JWKS).unwrap());
    let token = rs2("rsa-2");
    assert!(matches!(
        v.authenticate(&token, RESOURCE),
        Authentication::Deferred(_)
    ));
    let out = send(
        &service(v.clone()),
        call("whoami", &[&format!("Bearer {token}")]).as_bytes(),
    );
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(out.contains(r#""text":"alice ""#), "{out}");
    assert_eq!(v.jwks_loads(), 2);
    // The refresh of this interval is spent: a forged kid is refused at
    // once, and the endpoint is not asked again.
    match v.authenticate(&rs2("rsa-forged"), RESOURCE) {
        Authentication::Ready(Verdict::Rejected(r)) => {
            assert_eq!(r.0, "The token's signing key is unknown")
        }
        other => panic!("{other:?}"),
    }
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(v.jwks_loads(), 2);
}

/// Tokens that arrive before the first fetch of a JWKS URL wait for it.
#[test]
fn a_token_before_the_first_fetch_waits_for_it() {
    let endpoint = answer(200, &std::fs::read_to_string(JWKS).unwrap());
    let v = JwtValidator::builder(ISSUER, RESOURCE)
        .jwks(JwksSource::parse(&serve_jwks(endpoint)).unwrap())
        .build()
        .unwrap();
    let out = send(
        &service(v),
        call("whoami", &[&format!("Bearer {}", rs2("rsa-2"))]).as_bytes(),
    );
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
}

/// The refresh an unknown `kid` waits for fails (the provider's JWKS
/// endpoint answers 500): the token can be neither accepted nor refused,
/// so it is 503 with `Retry-After` (no refresh is asked for sooner than
/// `jwks_min_refresh`), not 401.
#[test]
fn an_unknown_kid_whose_refresh_fails_is_503_not_401() {
    let endpoint = answer(200, EMPTY_SET);
    let v = JwtValidator::builder(ISSUER, RESOURCE)
        .jwks(JwksSource::parse(&serve_jwks(endpoint.clone())).unwrap())
        .jwks_min_refresh(Duration::from_secs(60))
        .build()
        .unwrap();
    assert!(wait_for(|| v.jwks_loads() == 1));
    *endpoint.lock().unwrap() = (500, String::from("{}"));
    let out = send(
        &service(v),
        call("whoami", &[&format!("Bearer {}", rs2("rsa-2"))]).as_bytes(),
    );
    let body = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Service Unavailable: the bearer token cannot be checked now; retry later","data":{"retryAfterSeconds":60,"retryable":true}}}"#;
    assert_eq!(
        out,
        format!(
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {}\r\nRetry-After: 60\r\n\r\n{body}",
            body.len()
        )
    );
}
