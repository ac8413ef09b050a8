//! Shared by the tests and the bench: the test keys, token minting, and a
//! `Connection` on Transport::Http fed literal bytes.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::{json, Value};
use snodo_auth::{JwtValidator, Key};
use snodo_proto::{
    Authenticator, Authorization, CallToolResult, Connection, Context, Implementation, Instant,
    NoArgs, NullSink, Output, Service, Tool, Transport,
};

pub const ISSUER: &str = "https://auth.example.com";
pub const RESOURCE: &str = "https://mcp.example.com/mcp";
pub const PRM: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

pub const RSA_KEY: &[u8] = include_bytes!("../keys/rsa.key");
pub const RSA_PUB: &[u8] = include_bytes!("../keys/rsa.pub");
pub const RSA2_KEY: &[u8] = include_bytes!("../keys/rsa2.key");
pub const EC_KEY: &[u8] = include_bytes!("../keys/ec.key");
pub const EC_PUB: &[u8] = include_bytes!("../keys/ec.pub");
pub const JWKS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/keys/jwks.json");

pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// Claims a good token carries; tests change one thing at a time.
pub fn claims() -> Value {
    json!({
        "iss": ISSUER,
        "aud": RESOURCE,
        "sub": "alice",
        "scope": "notes:read notes:write",
        "exp": now() + 600,
        "iat": now(),
        "email": "alice@example.com",
    })
}

/// `claims` signed with `key` under `alg`, header `kid`.
pub fn sign(alg: Algorithm, kid: Option<&str>, key: &EncodingKey, claims: &Value) -> String {
    let mut header = Header::new(alg);
    header.kid = kid.map(str::to_owned);
    encode(&header, claims, key).unwrap()
}

pub fn rs256(kid: &str, claims: &Value) -> String {
    sign(
        Algorithm::RS256,
        Some(kid),
        &EncodingKey::from_rsa_pem(RSA_KEY).unwrap(),
        claims,
    )
}

/// A validator with the RSA key `rsa-1` and the EC key `ec-1`, static.
pub fn static_validator() -> JwtValidator {
    JwtValidator::builder(ISSUER, RESOURCE)
        .key(Key::rsa_pem(Some("rsa-1"), RSA_PUB).unwrap())
        .key(Key::ec_pem(Some("ec-1"), EC_PUB).unwrap())
        .claim("email")
        .build()
        .unwrap()
}

/// The service of the tests: `whoami` answers the subject and the
/// copied `email`; `write_note` needs `notes:write`; every request
/// `notes:read`.
pub fn service(validator: impl Authenticator) -> Service {
    let auth = Authorization::new(RESOURCE, validator)
        .authorization_server(ISSUER)
        .require(["notes:read"])
        .tool_scopes("write_note", ["notes:write"]);
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .authorization(auth)
        .tool(
            Tool::new("whoami", "Who is calling"),
            |_: NoArgs, ctx: Context| async move {
                let p = ctx.principal().cloned().unwrap_or_default();
                let email = p.claims.get("email").and_then(Value::as_str).unwrap_or("");
                CallToolResult::text(format!("{} {email}", p.subject))
            },
        )
        .tool(
            Tool::new("write_note", "Needs notes:write"),
            |_: NoArgs| async { CallToolResult::text("written") },
        )
        .build()
        .unwrap()
}

/// A `tools/call` of `tool` with these `Authorization` header values.
pub fn call(tool: &str, authorization: &[&str]) -> String {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    let auth: String = authorization
        .iter()
        .map(|a| format!("Authorization: {a}\r\n"))
        .collect();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {tool}\r\n{auth}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Feed `request` to a fresh HTTP connection of `service`, run what it
/// invokes to completion, and return every byte it wrote.
pub fn send(service: &Service, request: &[u8]) -> String {
    let mut conn = Connection::new(service, Transport::Http, Instant::ZERO);
    conn.handle_input(request, Instant::ZERO);
    let mut written = Vec::new();
    while let Some(out) = conn.poll_output() {
        match out {
            Output::Transmit(b) => written.extend_from_slice(&b),
            Output::Invoke(inv) => {
                let call = inv.call;
                let outcome = snodo_testkit::block_on(inv.run(Arc::new(NullSink)));
                let _ = conn.complete(call, outcome, Instant::ZERO);
            }
            Output::Cancel(_) | Output::Close => {}
            Output::Respond(r) => panic!("a byte transport answered with a head: {r:?}"),
        }
    }
    String::from_utf8(written).unwrap()
}
