//! Hostile tokens against `JwtValidator`, over the wire: a raw HTTP/1.1
//! request into a `snodo_proto::Connection` on Transport::Http, the exact
//! status line, `WWW-Authenticate` challenge and body out
//! (`basic/authorization/index.mdx` § Token Handling, § Error Handling).

mod support;

use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey};
use serde_json::json;
use support::*;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

fn answer(status: &str, challenge: &str, body: &str) -> String {
    let extra = if challenge.is_empty() {
        String::new()
    } else {
        format!("WWW-Authenticate: Bearer {challenge}\r\n")
    };
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}\r\n{body}",
        body.len()
    )
}

/// The 401 `invalid_token` answer with `description`.
fn invalid(description: &str) -> String {
    answer(
        "401 Unauthorized",
        &format!("error=\"invalid_token\", error_description=\"{description}\", scope=\"notes:read\", resource_metadata=\"{PRM}\""),
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: the bearer token is not valid"}}"#,
    )
}

fn ok(text: &str) -> String {
    answer(
        "200 OK",
        "",
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"t","version":"1"}}}},"content":[{{"text":"{text}","type":"text"}}],"resultType":"complete"}}}}"#
        ),
    )
}

fn whoami(authorization: &str) -> String {
    send(
        &service(static_validator()),
        call("whoami", &[authorization]).as_bytes(),
    )
}

#[test]
fn a_valid_rs256_token_reaches_the_handler_with_subject_and_claims() {
    let token = rs256("rsa-1", &claims());
    assert_eq!(
        whoami(&format!("Bearer {token}")),
        ok("alice alice@example.com")
    );
}

#[test]
fn lowercase_bearer_is_accepted() {
    let token = rs256("rsa-1", &claims());
    assert_eq!(
        whoami(&format!("bearer {token}")),
        ok("alice alice@example.com")
    );
}

#[test]
fn a_valid_es256_token_with_scp_is_accepted() {
    let mut c = claims();
    c.as_object_mut().unwrap().remove("scope");
    c["scp"] = json!(["notes:read"]);
    let token = sign(
        Algorithm::ES256,
        Some("ec-1"),
        &EncodingKey::from_ec_pem(EC_KEY).unwrap(),
        &c,
    );
    assert_eq!(
        whoami(&format!("Bearer {token}")),
        ok("alice alice@example.com")
    );
}

#[test]
fn no_token_is_401_with_the_metadata_url() {
    assert_eq!(
        send(&service(static_validator()), call("whoami", &[]).as_bytes()),
        answer(
            "401 Unauthorized",
            &format!("scope=\"notes:read\", resource_metadata=\"{PRM}\""),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: a bearer token is required"}}"#
        )
    );
}

#[test]
fn a_malformed_token_is_invalid() {
    assert_eq!(
        whoami("Bearer not-a-jwt"),
        invalid("The token is malformed")
    );
    assert_eq!(whoami("Bearer a.b.c"), invalid("The token is malformed"));
}

#[test]
fn alg_none_is_refused() {
    let header = B64.encode(br#"{"alg":"none","typ":"JWT"}"#);
    let payload = B64.encode(claims().to_string());
    assert_eq!(
        whoami(&format!("Bearer {header}.{payload}.")),
        invalid("The token's algorithm is not accepted")
    );
    // The same with a `kid` naming the RSA key.
    let header = B64.encode(br#"{"alg":"none","kid":"rsa-1"}"#);
    assert_eq!(
        whoami(&format!("Bearer {header}.{payload}.")),
        invalid("The token's algorithm is not accepted")
    );
}

#[test]
fn hs256_signed_with_the_rsa_public_key_is_refused() {
    let secret = EncodingKey::from_secret(RSA_PUB);
    for kid in [Some("rsa-1"), None] {
        let token = sign(Algorithm::HS256, kid, &secret, &claims());
        assert_eq!(
            whoami(&format!("Bearer {token}")),
            invalid("The token's algorithm is not accepted"),
            "kid {kid:?}"
        );
    }
}

#[test]
fn a_bad_signature_is_refused() {
    let token = rs256("rsa-1", &claims());
    let (signed, signature) = token.rsplit_once('.').unwrap();
    let mut sig = B64.decode(signature).unwrap();
    sig[10] ^= 1;
    let forged = format!("{signed}.{}", B64.encode(sig));
    assert_eq!(
        whoami(&format!("Bearer {forged}")),
        invalid("The token's signature is not valid")
    );
    // Claims changed under a valid signature.
    let (head, _) = signed.split_once('.').unwrap();
    let mut c = claims();
    c["sub"] = json!("mallory");
    let swapped = format!("{head}.{}.{signature}", B64.encode(c.to_string()));
    assert_eq!(
        whoami(&format!("Bearer {swapped}")),
        invalid("The token's signature is not valid")
    );
}

#[test]
fn an_unknown_kid_is_refused() {
    let token = rs256("rsa-9", &claims());
    assert_eq!(
        whoami(&format!("Bearer {token}")),
        invalid("The token's signing key is unknown")
    );
}

#[test]
fn expired_and_not_yet_valid_tokens_are_refused() {
    let mut c = claims();
    c["exp"] = json!(now() - 120);
    assert_eq!(
        whoami(&format!("Bearer {}", rs256("rsa-1", &c))),
        invalid("The token has expired")
    );
    let mut c = claims();
    c["nbf"] = json!(now() + 120);
    assert_eq!(
        whoami(&format!("Bearer {}", rs256("rsa-1", &c))),
        invalid("The token is not yet valid")
    );
    // Within the default leeway of 60 s both are accepted (clock skew).
    let mut c = claims();
    c["exp"] = json!(now() - 5);
    c["nbf"] = json!(now() + 5);
    assert_eq!(
        whoami(&format!("Bearer {}", rs256("rsa-1", &c))),
        ok("alice alice@example.com")
    );
    // No `exp` at all.
    let mut c = claims();
    c.as_object_mut().unwrap().remove("exp");
    assert_eq!(
        whoami(&format!("Bearer {}", rs256("rsa-1", &c))),
        invalid("The token has no expiry")
    );
}

#[test]
fn the_wrong_issuer_is_refused() {
    let mut c = claims();
    c["iss"] = json!("https://evil.example.com");
    assert_eq!(
        whoami(&format!("Bearer {}", rs256("rsa-1", &c))),
        invalid("The token was issued by another issuer")
    );
}

#[test]
fn the_wrong_audience_is_refused_and_no_audience_too() {
    for aud in [
        json!("https://other.example.com/mcp"),
        json!(["https://other.example.com/mcp"]),
        // A prefix of the resource is another resource.
        json!("https://mcp.example.com"),
    ] {
        let mut c = claims();
        c["aud"] = aud.clone();
        assert_eq!(
            whoami(&format!("Bearer {}", rs256("rsa-1", &c))),
            invalid("The token was issued for another audience"),
            "{aud}"
        );
    }
    let mut c = claims();
    c.as_object_mut().unwrap().remove("aud");
    assert_eq!(
        whoami(&format!("Bearer {}", rs256("rsa-1", &c))),
        invalid("The token has no audience")
    );
    // A list that names the resource is accepted.
    let mut c = claims();
    c["aud"] = json!(["https://other.example.com", RESOURCE]);
    assert_eq!(
        whoami(&format!("Bearer {}", rs256("rsa-1", &c))),
        ok("alice alice@example.com")
    );
}

#[test]
fn a_missing_scope_is_403_insufficient_scope() {
    let mut c = claims();
    c["scope"] = json!("other");
    assert_eq!(
        whoami(&format!("Bearer {}", rs256("rsa-1", &c))),
        answer(
            "403 Forbidden",
            &format!(
                "error=\"insufficient_scope\", scope=\"notes:read\", resource_metadata=\"{PRM}\""
            ),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Forbidden: the token lacks a required scope"}}"#
        )
    );
    // The tool's own scope.
    let mut c = claims();
    c["scope"] = json!("notes:read");
    let token = rs256("rsa-1", &c);
    assert_eq!(
        send(
            &service(static_validator()),
            call("write_note", &[&format!("Bearer {token}")]).as_bytes()
        ),
        answer(
            "403 Forbidden",
            &format!(
                "error=\"insufficient_scope\", scope=\"notes:write\", resource_metadata=\"{PRM}\""
            ),
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Forbidden: the token lacks a required scope"}}"#
        )
    );
}

/// A 64 KiB token never reaches the validator: the request head (default
/// limit 16 KiB, `HttpConfig::max_head_bytes`) is refused first with 431
/// and the connection closed — before any token is looked at, so no
/// `WWW-Authenticate`. (A token between proto's 8 KiB token cap and the
/// head limit gets 401 "The token is too large", tested in proto.)
#[test]
fn an_oversized_token_is_431_before_it_is_read() {
    let token = "a".repeat(64 * 1024);
    let out = whoami(&format!("Bearer {token}"));
    assert!(
        out.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"),
        "{}",
        &out[..out.len().min(200)]
    );
    assert!(!out.contains("WWW-Authenticate"));
}

#[test]
fn two_authorization_headers_are_400_invalid_request() {
    let token = rs256("rsa-1", &claims());
    let bearer = format!("Bearer {token}");
    assert_eq!(
        send(
            &service(static_validator()),
            call("whoami", &[&bearer, &bearer]).as_bytes()
        ),
        answer(
            "400 Bad Request",
            &format!("error=\"invalid_request\", error_description=\"Multiple Authorization headers\", scope=\"notes:read\", resource_metadata=\"{PRM}\""),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Bad Request: malformed Authorization header"}}"#
        )
    );
}

#[test]
fn a_token_in_the_query_string_is_not_a_token() {
    let token = rs256("rsa-1", &claims());
    let request =
        call("whoami", &[]).replacen("POST /mcp ", &format!("POST /mcp?access_token={token} "), 1);
    assert_eq!(
        send(&service(static_validator()), request.as_bytes()),
        answer(
            "401 Unauthorized",
            &format!("scope=\"notes:read\", resource_metadata=\"{PRM}\""),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: a bearer token is required"}}"#
        )
    );
}

#[test]
fn a_rejection_never_echoes_the_token() {
    let mut c = claims();
    c["exp"] = json!(now() - 600);
    let token = rs256("rsa-1", &c);
    let out = whoami(&format!("Bearer {token}"));
    let (_, payload, _) = {
        let mut parts = token.split('.');
        (parts.next(), parts.next().unwrap(), parts.next())
    };
    assert!(!out.contains(payload));
    assert!(!out.contains("alice"));
}

#[test]
fn a_validator_set_up_for_another_audience_does_not_let_its_tokens_in() {
    // The validator was given the wrong audience: it accepts tokens for
    // that audience, and the Authorization, which holds every verdict to
    // its own resource, refuses them (§ Token Handling).
    let elsewhere = "https://other.example.com/mcp";
    let validator = snodo_auth::JwtValidator::builder(ISSUER, elsewhere)
        .key(snodo_auth::Key::rsa_pem(Some("rsa-1"), RSA_PUB).unwrap())
        .build()
        .unwrap();
    let mut c = claims();
    c["aud"] = json!(elsewhere);
    let token = rs256("rsa-1", &c);
    assert!(validator.validate(&token).is_ok());
    assert_eq!(
        send(
            &service(validator),
            call("whoami", &[&format!("Bearer {token}")]).as_bytes()
        ),
        invalid("The token was issued for another audience")
    );
}
