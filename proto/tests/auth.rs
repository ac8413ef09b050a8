//! Authorization on Streamable HTTP (`basic/authorization/index.mdx`):
//! raw HTTP/1.1 requests in, the literal status, `WWW-Authenticate`
//! challenge and body out. The authenticator here is a table of tokens:
//! token validation is the validator crate's; what is under test is what
//! proto does with its verdict.

mod support;

use snodo_proto::{
    Authorization, CallToolResult, Context, GetPromptResult, Implementation, NoArgs, Principal,
    Prompt, ReadResourceResult, Rejection, Resource, ResourceArgs, ResourceContents, Service, Tool,
    Transport,
};
use support::Harness;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const PRM: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

fn service() -> Service {
    let auth = Authorization::new("https://mcp.example.com/mcp", |token: &str| match token {
        "reader" => {
            Ok(Principal::new("alice", ["notes:read"]).audience(["https://mcp.example.com/mcp"]))
        }
        "writer" => Ok(Principal::new("bob", ["notes:read", "notes:write"])
            .audience(["https://mcp.example.com/mcp"])),
        "nobody" => {
            Ok(Principal::new("carol", ["other"]).audience(["https://mcp.example.com/mcp"]))
        }
        "keeper" => Ok(
            Principal::new("dave", ["notes:read", "notes:write", "notes:secret"])
                .audience(["https://mcp.example.com/mcp"]),
        ),
        // Accepted by this authenticator, but issued for another server
        // (or naming none): proto refuses both (§ Token Handling).
        "elsewhere" => Ok(Principal::new("erin", ["notes:read"]).audience([
            "https://other.example.com/mcp",
            "https://mcp.example.com/mcp/",
        ])),
        "unbound" => Ok(Principal::new("frank", ["notes:read"])),
        _ => Err(Rejection("The token is not valid for this resource".into())),
    })
    .authorization_server("https://auth.example.com")
    .scopes_supported(["notes:read"])
    .require(["notes:read"])
    .tool_scopes("write_note", ["notes:write"])
    .prompt_scopes("draft", ["notes:write"])
    .resource_scopes("notes://secret", ["notes:secret", "notes:write"]);
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .authorization(auth)
        .tool(
            Tool::new("whoami", "Who is calling"),
            |_: NoArgs, ctx: Context| async move {
                CallToolResult::text(
                    ctx.principal()
                        .map_or("?", |p| p.subject.as_str())
                        .to_owned(),
                )
            },
        )
        .tool(
            Tool::new("write_note", "Needs notes:write"),
            |_: NoArgs| async { CallToolResult::text("written") },
        )
        .prompt(
            Prompt::new("draft", "Needs notes:write"),
            |_: NoArgs| async { Ok(GetPromptResult::new(vec![])) },
        )
        .resource(
            Resource::new("notes://secret", "Needs notes:secret and notes:write"),
            |args: ResourceArgs| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri,
                    "text/plain",
                    "the secret",
                )]))
            },
        )
        .build()
        .unwrap()
}

fn call(tool: &str, authorization: &[&str]) -> String {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}",{META}}}}}"#
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

/// `method` with `params` (the `_meta` is added), named `name` in
/// `Mcp-Name`.
fn request(method: &str, name: &str, params: &str, authorization: &str) -> String {
    let body =
        format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{{{params},{META}}}}}"#);
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nMcp-Name: {name}\r\nAuthorization: {authorization}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn answer(status: &str, extra: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}\r\n{body}",
        body.len()
    )
}

fn send(request: &str) -> String {
    Harness::new(&service(), Transport::Http).send(request.as_bytes())
}

#[test]
fn a_valid_token_reaches_the_handler_with_its_principal() {
    let out = send(&call("whoami", &["Bearer reader"]));
    assert_eq!(
        out,
        answer(
            "200 OK",
            "",
            r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"alice","type":"text"}],"resultType":"complete"}}"#
        )
    );
    // RFC 6750 § 2.1: the scheme is case-insensitive.
    assert!(send(&call("whoami", &["bearer writer"])).contains(r#""text":"bob""#));
}

#[test]
fn no_token_is_401_with_the_metadata_url_and_the_scope() {
    assert_eq!(
        send(&call("whoami", &[])),
        answer(
            "401 Unauthorized",
            &format!(
                "WWW-Authenticate: Bearer scope=\"notes:read\", resource_metadata=\"{PRM}\"\r\n"
            ),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: a bearer token is required"}}"#
        )
    );
    // Another scheme carries no bearer token.
    assert!(
        send(&call("whoami", &["Basic YWxpY2U6cHc="])).starts_with("HTTP/1.1 401 Unauthorized\r\n")
    );
}

#[test]
fn a_token_in_the_query_string_is_not_a_token() {
    let request = call("whoami", &[]).replacen("POST /mcp ", "POST /mcp?access_token=reader ", 1);
    assert!(
        send(&request).starts_with("HTTP/1.1 401 Unauthorized\r\n"),
        "§ Access Token Usage: tokens MUST NOT be in the query string"
    );
}

#[test]
fn a_refused_token_is_401_invalid_token() {
    assert_eq!(
        send(&call("whoami", &["Bearer forged"])),
        answer(
            "401 Unauthorized",
            &format!("WWW-Authenticate: Bearer error=\"invalid_token\", error_description=\"The token is not valid for this resource\", scope=\"notes:read\", resource_metadata=\"{PRM}\"\r\n"),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: the bearer token is not valid"}}"#
        )
    );
}

#[test]
fn a_token_for_another_audience_is_401_whatever_the_authenticator_said() {
    for (token, why) in [
        ("elsewhere", "The token was issued for another audience"),
        ("unbound", "The token names no audience"),
    ] {
        assert_eq!(
            send(&call("whoami", &[&format!("Bearer {token}")])),
            answer(
                "401 Unauthorized",
                &format!("WWW-Authenticate: Bearer error=\"invalid_token\", error_description=\"{why}\", scope=\"notes:read\", resource_metadata=\"{PRM}\"\r\n"),
                r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Unauthorized: the bearer token is not valid"}}"#
            ),
            "{token}"
        );
    }
}

#[test]
fn malformed_credentials_are_400_invalid_request() {
    assert_eq!(
        send(&call("whoami", &["Bearer reader", "Bearer writer"])),
        answer(
            "400 Bad Request",
            &format!("WWW-Authenticate: Bearer error=\"invalid_request\", error_description=\"Multiple Authorization headers\", scope=\"notes:read\", resource_metadata=\"{PRM}\"\r\n"),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Bad Request: malformed Authorization header"}}"#
        )
    );
    assert!(send(&call("whoami", &["Bearer a\"b"])).starts_with("HTTP/1.1 400 Bad Request\r\n"));
}

#[test]
fn missing_scopes_are_403_insufficient_scope_all_at_once() {
    // The endpoint's own scope.
    assert_eq!(
        send(&call("whoami", &["Bearer nobody"])),
        answer(
            "403 Forbidden",
            &format!("WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"notes:read\", resource_metadata=\"{PRM}\"\r\n"),
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Forbidden: the token lacks a required scope"}}"#
        )
    );
    // A tool's: the call is answered by its id.
    assert_eq!(
        send(&call("write_note", &["Bearer reader"])),
        answer(
            "403 Forbidden",
            &format!("WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"notes:write\", resource_metadata=\"{PRM}\"\r\n"),
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Forbidden: the token lacks a required scope"}}"#
        )
    );
    assert!(send(&call("write_note", &["Bearer writer"])).contains(r#""text":"written""#));
}

#[test]
fn the_protected_resource_metadata_is_served_at_both_well_known_uris() {
    let doc = r#"{"authorization_servers":["https://auth.example.com"],"bearer_methods_supported":["header"],"resource":"https://mcp.example.com/mcp","scopes_supported":["notes:read"]}"#;
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let out = send(&format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
        assert_eq!(out, answer("200 OK", "", doc), "{path}");
    }
}

#[test]
fn a_connection_keeps_serving_after_a_refusal() {
    let mut h = Harness::new(&service(), Transport::Http);
    assert!(h
        .send(call("whoami", &[]).as_bytes())
        .starts_with("HTTP/1.1 401"));
    assert!(h
        .send(call("whoami", &["Bearer reader"]).as_bytes())
        .contains(r#""text":"alice""#));
    // Each request is authenticated on its own: no principal carries over.
    assert!(h
        .send(call("whoami", &[]).as_bytes())
        .starts_with("HTTP/1.1 401"));
}

#[test]
fn stdio_takes_no_tokens() {
    let mut h = Harness::new(&service(), Transport::Stdio);
    let line = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"whoami\",{META}}}}}\n"
    );
    assert!(h.send(line.as_bytes()).contains(r#""text":"?""#));
}

#[test]
fn prompts_and_resources_have_scopes_of_their_own() {
    let forbidden = |scope: &str| {
        answer(
            "403 Forbidden",
            &format!("WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"{scope}\", resource_metadata=\"{PRM}\"\r\n"),
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Forbidden: the token lacks a required scope"}}"#,
        )
    };
    let draft = |token: &str| {
        send(&request(
            "prompts/get",
            "draft",
            r#""name":"draft""#,
            &format!("Bearer {token}"),
        ))
    };
    assert_eq!(draft("reader"), forbidden("notes:write"));
    assert!(draft("writer").starts_with("HTTP/1.1 200 OK\r\n"));

    let secret = |token: &str| {
        send(&request(
            "resources/read",
            "notes://secret",
            r#""uri":"notes://secret""#,
            &format!("Bearer {token}"),
        ))
    };
    // Every missing scope in one challenge.
    assert_eq!(secret("reader"), forbidden("notes:secret notes:write"));
    assert_eq!(secret("writer"), forbidden("notes:secret"));
    let kept = secret("keeper");
    assert!(kept.starts_with("HTTP/1.1 200 OK\r\n"), "{kept}");
    assert!(kept.contains(r#""text":"the secret""#), "{kept}");
}

/// `authorization-server-discovery.mdx`: the Protected Resource Metadata
/// MUST name at least one authorization server, so a service whose
/// authorization names none is not built.
#[test]
fn an_authorization_without_an_authorization_server_is_refused_at_build() {
    let err = Service::builder()
        .authorization(Authorization::new(
            "https://mcp.example.com/mcp",
            |_: &str| Err(Rejection("none".into())),
        ))
        .build()
        .unwrap_err();
    assert_eq!(err, snodo_proto::BuildError::NoAuthorizationServer);
    assert_eq!(
        err.to_string(),
        "the authorization names no authorization server: call Authorization::authorization_server with the issuer that grants its tokens"
    );
}
