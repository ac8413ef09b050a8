//! `tower-mcp-echo`: the same `echo` tool served by tower-mcp, by published
//! version, built as its README shows (`ToolBuilder` with a typed input).
//!
//! - HTTP: `HttpTransport::into_router_at("/mcp")` served by axum. Built
//!   with the `protocol-2026-07-28` feature, tower-mcp dispatches a request
//!   carrying `MCP-Protocol-Version: 2026-07-28` and no session id
//!   sessionless; results are plain `application/json` (its default).
//! - stdio: `StdioTransport::run`, which serves 2026-07-28 requests (with
//!   per-request `_meta`) without `initialize`.
//! - tokio current-thread runtime, like every tokio server here.

use bench_common::{announce, args, Mode};
use schemars::JsonSchema;
use serde::Deserialize;
use tower_mcp::{CallToolResult, HttpTransport, McpRouter, StdioTransport, ToolBuilder};

#[derive(Debug, Deserialize, JsonSchema)]
struct EchoInput {
    text: String,
}

fn router() -> McpRouter {
    let echo = ToolBuilder::new("echo")
        .description("Echo the text back")
        .handler(|input: EchoInput| async move { Ok(CallToolResult::text(input.text)) })
        .build();
    McpRouter::new()
        .server_info("tower-mcp-echo", "0.1.0")
        .tool(echo)
}

fn main() -> std::io::Result<()> {
    let args = args("tower-mcp-echo");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        match args.mode {
            Mode::Stdio => StdioTransport::new(router())
                .run()
                .await
                .map_err(std::io::Error::other),
            Mode::Listen(addr) => {
                let app = HttpTransport::new(router()).into_router_at("/mcp");
                let listener = tokio::net::TcpListener::bind(addr).await?;
                announce(listener.local_addr()?);
                axum::serve(listener, app).await
            }
        }
    })
}
