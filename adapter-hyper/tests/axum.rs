//! snodo mounted in an axum application beside its own routes, behind a
//! tower layer whose request extension a handler reads
//! (`Router::nest_service`), over a real socket.

use std::time::Duration;

use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::routing::get;
use axum::Router;
use snodo_hyper::{Extension, McpService, RequestExtensions};
use snodo_proto::{CallToolResult, Context, Implementation, NoArgs, Service, Tool};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the host's auth layer establishes.
#[derive(Clone)]
struct Caller(&'static str);

async fn authenticate(mut request: Request, next: Next) -> axum::response::Response {
    request.extensions_mut().insert(Caller("alice"));
    next.run(request).await
}

fn service() -> Service {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .tool(
            Tool::new("whoami", "Who the host says is calling"),
            |_: NoArgs, ctx: Context| async move {
                match ctx.request_extension::<Caller>() {
                    Some(caller) => CallToolResult::text(caller.0),
                    None => CallToolResult::text("nobody"),
                }
            },
        )
        .tool(
            Tool::new("caller", "The host's caller as an extractor"),
            |Extension(caller): Extension<Caller>, absent: Option<Extension<Absent>>| async move {
                CallToolResult::text(format!("{} absent={}", caller.0, absent.is_none()))
            },
        )
        .tool(
            Tool::new("needs_absent", "An extension no layer inserted"),
            |_: Extension<Absent>| async { CallToolResult::text("unreachable") },
        )
        .build()
        .expect("a valid service")
}

/// What no layer inserts.
#[derive(Clone)]
struct Absent;

async fn exchange(addr: std::net::SocketAddr, request: &str) -> String {
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out))
        .await
        .expect("answered and closed in time")
        .unwrap();
    String::from_utf8(out).unwrap()
}

#[tokio::test]
async fn mounted_in_axum_beside_other_routes_with_the_hosts_extensions() {
    let app = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .nest_service("/mcp", McpService::mounted(service()))
        .layer(middleware::from_fn(authenticate));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let health = exchange(
        addr,
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(health.starts_with("HTTP/1.1 200 OK\r\n"), "{health}");
    assert!(health.ends_with("\r\n\r\nok"), "{health}");

    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let call = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: whoami\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let answer = exchange(addr, &call).await;
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("\r\ncontent-type: application/json\r\n"),
        "{answer}"
    );
    assert!(
        answer.ends_with(r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"alice","type":"text"}],"resultType":"complete"}}"#),
        "{answer}"
    );

    // The host's Host policy still applies under a mount: a rebinding
    // attempt is refused as on the native listener.
    let hostile = call.replace("Host: 127.0.0.1", "Host: evil.example");
    let refused = exchange(addr, &hostile).await;
    assert!(
        refused.starts_with("HTTP/1.1 403 Forbidden\r\n"),
        "{refused}"
    );
}

fn post(name: &str) -> String {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{name}","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {name}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn a_handler_takes_the_hosts_extension_as_an_extractor() {
    let app = Router::new()
        .nest_service("/mcp", McpService::mounted(service()))
        .layer(middleware::from_fn(authenticate));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });

    let answer = exchange(addr, &post("caller")).await;
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(
        answer.ends_with(r#"{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"content":[{"text":"alice absent=true","type":"text"}],"resultType":"complete"}}"#),
        "{answer}"
    );

    let refused = exchange(addr, &post("needs_absent")).await;
    assert!(refused.starts_with("HTTP/1.1 200 OK\r\n"), "{refused}");
    assert!(
        refused.ends_with(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"This call's request carries no such extension"}}"#),
        "{refused}"
    );
}
