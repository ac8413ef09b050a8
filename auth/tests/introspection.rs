//! [`IntrospectionValidator`] against a fake RFC 7662 endpoint: a tiny
//! `std::net::TcpListener` server in the test that answers literal JSON
//! by the token it is asked about, and records what it was sent.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use snodo_auth::IntrospectionValidator;
use snodo_proto::auth::{Authentication, Verdict};
use snodo_proto::{Authenticator, Principal, Rejection};
use support::*;

/// What the fake endpoint was sent: the `Authorization` header and the
/// form body, one entry per request.
type Seen = Arc<Mutex<Vec<(String, String)>>>;

/// Start the fake endpoint; its URL and what it sees.
fn endpoint() -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/introspect", listener.local_addr().unwrap());
    let seen: Seen = Arc::default();
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let log = log.clone();
            std::thread::spawn(move || answer(stream, &log));
        }
    });
    (url, seen)
}

/// Read one request, answer it by its token, close.
fn answer(stream: TcpStream, seen: &Seen) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let (mut authorization, mut length) = (String::new(), 0);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap_or((line, ""));
        match name.to_ascii_lowercase().as_str() {
            "authorization" => authorization = value.trim().to_owned(),
            "content-length" => length = value.trim().parse().unwrap(),
            _ => {}
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let body = String::from_utf8(body).unwrap();
    seen.lock().unwrap().push((authorization, body.clone()));
    let token = body
        .split('&')
        .find_map(|kv| kv.strip_prefix("token="))
        .unwrap_or("");
    let now = now();
    let (status, json) = match token {
        "good" => (
            "200 OK",
            format!(
                r#"{{"active":true,"sub":"alice","scope":"notes:read notes:write","aud":"{RESOURCE}","iss":"{ISSUER}","exp":{},"email":"alice@example.com"}}"#,
                now + 600
            ),
        ),
        "robot" => (
            "200 OK",
            format!(
                r#"{{"active":true,"client_id":"robot-7","scope":"notes:read","aud":["https://other.example.com","{RESOURCE}"],"iss":"{ISSUER}","exp":{}}}"#,
                now + 600
            ),
        ),
        "inactive" => ("200 OK", r#"{"active":false}"#.to_owned()),
        "elsewhere" => (
            "200 OK",
            format!(
                r#"{{"active":true,"sub":"alice","scope":"notes:read","aud":"https://other.example.com/mcp","exp":{}}}"#,
                now + 600
            ),
        ),
        "no-aud" => (
            "200 OK",
            format!(
                r#"{{"active":true,"sub":"alice","scope":"notes:read","exp":{}}}"#,
                now + 600
            ),
        ),
        "expired" => (
            "200 OK",
            format!(
                r#"{{"active":true,"sub":"alice","scope":"notes:read","aud":"{RESOURCE}","exp":{}}}"#,
                now - 3600
            ),
        ),
        "early" => (
            "200 OK",
            format!(
                r#"{{"active":true,"sub":"alice","scope":"notes:read","aud":"{RESOURCE}","nbf":{},"exp":{}}}"#,
                now + 3600,
                now + 7200
            ),
        ),
        "foreign" => (
            "200 OK",
            format!(
                r#"{{"active":true,"sub":"alice","scope":"notes:read","aud":"{RESOURCE}","iss":"https://evil.example.com","exp":{}}}"#,
                now + 600
            ),
        ),
        "broken" => (
            "500 Internal Server Error",
            r#"{"error":"server_error"}"#.to_owned(),
        ),
        "garbage" => ("200 OK", "<html>".to_owned()),
        "slow" => {
            std::thread::sleep(Duration::from_secs(3));
            ("200 OK", r#"{"active":false}"#.to_owned())
        }
        _ => ("200 OK", r#"{"active":false}"#.to_owned()),
    };
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{json}",
        json.len()
    );
}

fn validator(url: &str) -> IntrospectionValidator {
    IntrospectionValidator::builder(url, "snodo-rs", "s3cr:t", RESOURCE)
        .issuer(ISSUER)
        .claim("email")
        .build()
        .unwrap()
}

/// The verdict, waiting for a deferred one.
fn verdict(v: &IntrospectionValidator, token: &str) -> Verdict {
    match v.authenticate(token, RESOURCE) {
        Authentication::Ready(verdict) => verdict,
        Authentication::Deferred(future) => snodo_testkit::block_on(future),
    }
}

fn rejected(why: &str) -> Verdict {
    Verdict::Rejected(Rejection(why.to_owned()))
}

#[test]
fn an_active_token_for_this_resource_is_its_principal() {
    let (url, seen) = endpoint();
    let v = validator(&url);
    let mut alice = Principal::new("alice", ["notes:read", "notes:write"]).audience([RESOURCE]);
    alice
        .claims
        .insert("email".into(), "alice@example.com".into());
    assert_eq!(verdict(&v, "good"), Verdict::Accepted(alice));
    // RFC 7662 § 2.1: a form POST of the token, client_secret_basic with
    // the id and secret form-urlencoded first (RFC 6749 § 2.3.1):
    // base64("snodo-rs:s3cr%3At").
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(
            "Basic c25vZG8tcnM6czNjciUzQXQ=".to_owned(),
            "token=good&token_type_hint=access_token".to_owned()
        )]
    );
    // Without `sub`, a client credentials token stands for its client;
    // `aud` may be a list.
    assert_eq!(
        verdict(&v, "robot"),
        Verdict::Accepted(
            Principal::new("robot-7", ["notes:read"])
                .audience(["https://other.example.com", RESOURCE])
        )
    );
}

#[test]
fn an_accepted_token_is_answered_from_the_cache_at_once_without_asking_again() {
    let (url, seen) = endpoint();
    let v = validator(&url);
    assert!(matches!(
        v.authenticate("good", RESOURCE),
        Authentication::Deferred(_)
    ));
    // That first future was dropped unrun: nothing was remembered.
    assert!(matches!(verdict(&v, "good"), Verdict::Accepted(_)));
    let asked = seen.lock().unwrap().len();
    assert!(
        matches!(v.authenticate("good", RESOURCE), Authentication::Ready(Verdict::Accepted(p)) if p.subject == "alice"),
        "a cache hit is synchronous"
    );
    assert_eq!(seen.lock().unwrap().len(), asked, "not asked again");
    assert_eq!(v.cache_hits(), 1);
    // Refusals are not remembered.
    assert_eq!(verdict(&v, "inactive"), rejected("The token is not active"));
    assert!(matches!(
        v.authenticate("inactive", RESOURCE),
        Authentication::Deferred(_)
    ));
}

#[test]
fn refusals_name_the_check_that_failed() {
    let (url, _) = endpoint();
    let v = validator(&url);
    assert_eq!(verdict(&v, "inactive"), rejected("The token is not active"));
    assert_eq!(
        verdict(&v, "elsewhere"),
        rejected("The token was issued for another audience")
    );
    assert_eq!(verdict(&v, "no-aud"), rejected("The token has no audience"));
    assert_eq!(verdict(&v, "expired"), rejected("The token has expired"));
    assert_eq!(verdict(&v, "early"), rejected("The token is not yet valid"));
    assert_eq!(
        verdict(&v, "foreign"),
        rejected("The token was issued by another issuer")
    );
}

#[test]
fn an_endpoint_that_fails_or_is_down_is_unavailable_not_an_invalid_token() {
    let (url, _) = endpoint();
    let v = validator(&url);
    let unavailable = Verdict::Unavailable { retry_after: 5 };
    assert_eq!(verdict(&v, "broken"), unavailable, "a 5xx");
    assert_eq!(verdict(&v, "garbage"), unavailable, "not JSON");
    // Nothing listens there any more.
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/introspect", l.local_addr().unwrap())
    };
    assert_eq!(verdict(&validator(&closed), "good"), unavailable);
    // Too slow for the validator's timeout.
    let impatient = IntrospectionValidator::builder(&url, "snodo-rs", "x", RESOURCE)
        .timeout(Duration::from_millis(300))
        .retry_after(2)
        .build()
        .unwrap();
    assert_eq!(
        verdict(&impatient, "slow"),
        Verdict::Unavailable { retry_after: 2 }
    );
}

#[test]
fn the_endpoint_must_be_https_or_loopback_and_the_audience_set() {
    let err = IntrospectionValidator::builder(
        "http://auth.example.com/introspect",
        "id",
        "secret",
        RESOURCE,
    )
    .build()
    .unwrap_err();
    assert!(err.to_string().contains("https://"), "{err}");
    assert!(
        IntrospectionValidator::builder("https://auth.example.com/i", "id", "secret", "")
            .build()
            .is_err()
    );
}

/// Through a connection on literal HTTP bytes: the deferred verdict is
/// what the client gets.
#[test]
fn on_the_wire_an_active_token_is_served_and_a_dead_endpoint_is_503() {
    let (url, _) = endpoint();
    let s = service(validator(&url));
    let ok = send(&s, call("whoami", &["Bearer good"]).as_bytes());
    assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
    assert!(ok.contains(r#""text":"alice alice@example.com""#), "{ok}");
    assert_eq!(
        send(&s, call("whoami", &["Bearer inactive"]).as_bytes()),
        format!(
            "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: 97\r\nWWW-Authenticate: Bearer error=\"invalid_token\", error_description=\"The token is not active\", scope=\"notes:read\", resource_metadata=\"{PRM}\"\r\n\r\n{}",
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: the bearer token is not valid"}}"#
        )
    );
    let body = r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Service Unavailable: the bearer token cannot be checked now; retry later","data":{"retryAfterSeconds":5,"retryable":true}}}"#;
    assert_eq!(
        send(&s, call("whoami", &["Bearer broken"]).as_bytes()),
        format!(
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {}\r\nRetry-After: 5\r\n\r\n{body}",
            body.len()
        )
    );
}

/// The queue is bounded: with its one worker busy and its one waiting slot
/// taken, the next token is answered unavailable at once, without waiting
/// and without reaching the endpoint; the queued ones are still answered.
#[test]
fn beyond_the_queue_a_token_is_unavailable_at_once() {
    let (url, seen) = endpoint();
    let v = IntrospectionValidator::builder(&url, "snodo-rs", "x", RESOURCE)
        .workers(1, 1)
        .retry_after(3)
        .build()
        .unwrap();
    let Authentication::Deferred(first) = v.authenticate("slow", RESOURCE) else {
        panic!("a cache miss defers")
    };
    // Until the worker has taken the first, it would hold the one slot.
    let started = std::time::Instant::now();
    while seen.lock().unwrap().is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the worker took it"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let Authentication::Deferred(second) = v.authenticate("good", RESOURCE) else {
        panic!("one token may wait")
    };
    match v.authenticate("good-too", RESOURCE) {
        Authentication::Ready(verdict) => {
            assert_eq!(verdict, Verdict::Unavailable { retry_after: 3 })
        }
        Authentication::Deferred(_) => panic!("a third token must not queue"),
    }
    assert_eq!(
        snodo_testkit::block_on(first),
        rejected("The token is not active")
    );
    assert!(matches!(
        snodo_testkit::block_on(second),
        Verdict::Accepted(_)
    ));
    assert_eq!(
        seen.lock().unwrap().len(),
        2,
        "the refused token never left"
    );
}
