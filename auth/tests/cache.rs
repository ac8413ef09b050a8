//! The cache of verified tokens (`JwtValidatorBuilder::cache`) over the
//! wire: a token sent again is answered from the cache, but never past its
//! `exp`, never by another validator (another audience), and not after the
//! key set changed.

mod support;

use std::time::Duration;

use serde_json::json;
use snodo_auth::{JwksSource, JwtValidator, Key};
use support::*;

fn validator(audience: &str) -> JwtValidator {
    JwtValidator::builder(ISSUER, audience)
        .key(Key::rsa_pem(Some("rsa-1"), RSA_PUB).unwrap())
        .leeway(Duration::ZERO)
        .build()
        .unwrap()
}

fn whoami(v: &JwtValidator, token: &str) -> String {
    send(
        &service(v.clone()),
        call("whoami", &[&format!("Bearer {token}")]).as_bytes(),
    )
}

const OK: &str = r#""content":[{"text":"alice ","type":"text"}]"#;

#[test]
fn a_token_sent_again_is_answered_from_the_cache() {
    let v = validator(RESOURCE);
    let token = rs256("rsa-1", &claims());
    assert!(whoami(&v, &token).contains(OK));
    assert_eq!(v.cache_hits(), 0, "the first time it is checked");
    assert!(whoami(&v, &token).contains(OK));
    assert!(whoami(&v, &token).contains(OK));
    assert_eq!(v.cache_hits(), 2);

    // Off: every request is checked.
    let off = JwtValidator::builder(ISSUER, RESOURCE)
        .key(Key::rsa_pem(Some("rsa-1"), RSA_PUB).unwrap())
        .cache(0, Duration::from_secs(60))
        .build()
        .unwrap();
    assert!(whoami(&off, &token).contains(OK));
    assert!(whoami(&off, &token).contains(OK));
    assert_eq!(off.cache_hits(), 0);
}

#[test]
fn a_cached_token_is_refused_once_it_has_expired() {
    let v = validator(RESOURCE);
    let mut c = claims();
    // Two seconds ahead: at least one whole second of validity whatever
    // the fraction of the current second (with `+ 1` a test started at
    // x.999 s had a token that expired before its first request).
    let exp = now() + 2;
    c["exp"] = json!(exp);
    let token = rs256("rsa-1", &c);
    assert!(whoami(&v, &token).contains(OK));
    assert!(whoami(&v, &token).contains(OK));
    assert_eq!(v.cache_hits(), 1, "cached while valid");
    // Past `exp` (whole seconds; the leeway is zero): wait until the clock
    // reads a second after it.
    let past = std::time::UNIX_EPOCH
        + Duration::from_millis(u64::try_from(exp + 1).expect("after 1970") * 1_000 + 100);
    if let Ok(left) = past.duration_since(std::time::SystemTime::now()) {
        std::thread::sleep(left);
    }
    let answer = whoami(&v, &token);
    assert!(
        answer.starts_with("HTTP/1.1 401 Unauthorized\r\n"),
        "{answer}"
    );
    assert!(
        answer.contains(r#"error_description="The token has expired""#),
        "{answer}"
    );
    assert_eq!(v.cache_hits(), 1);
}

#[test]
fn another_validator_never_uses_the_entry() {
    // The same key, another audience: the token is cached by the first
    // validator and still refused by the second.
    let ours = validator(RESOURCE);
    let theirs = validator("https://other.example.com/mcp");
    let token = rs256("rsa-1", &claims());
    assert!(whoami(&ours, &token).contains(OK));
    assert!(whoami(&ours, &token).contains(OK));
    assert_eq!(ours.cache_hits(), 1);
    for _ in 0..2 {
        let answer = whoami(&theirs, &token);
        assert!(
            answer.starts_with("HTTP/1.1 401 Unauthorized\r\n"),
            "{answer}"
        );
        assert!(
            answer.contains(r#"error_description="The token was issued for another audience""#),
            "{answer}"
        );
    }
    assert_eq!(theirs.cache_hits(), 0);
}

#[test]
fn a_refreshed_key_set_forgets_the_cache() {
    let dir = std::env::temp_dir().join(format!("snodo-auth-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("jwks.json");
    std::fs::copy(JWKS, &file).unwrap();
    let v = JwtValidator::builder(ISSUER, RESOURCE)
        .jwks(JwksSource::File(file.clone()))
        .jwks_min_refresh(Duration::ZERO)
        .build()
        .unwrap();
    let token = sign(
        jsonwebtoken::Algorithm::RS256,
        Some("rsa-2"),
        &jsonwebtoken::EncodingKey::from_rsa_pem(RSA2_KEY).unwrap(),
        &claims(),
    );
    assert!(v.validate(&token).is_ok());
    assert!(v.validate(&token).is_ok());
    assert_eq!(v.cache_hits(), 1);
    // rsa-2 leaves the set; an unknown kid asks for the refresh.
    std::fs::write(&file, r#"{"keys":[]}"#).unwrap();
    assert!(v.validate(&rs256("rsa-9", &claims())).is_err());
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while v.jwks_loads() < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(v.jwks_loads(), 2, "the emptied set was loaded");
    assert_eq!(
        v.validate(&token).unwrap_err().0,
        "The token's signing key is unknown"
    );
    assert_eq!(v.cache_hits(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}
