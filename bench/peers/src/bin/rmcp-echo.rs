//! `rmcp-echo`: the same `echo` tool served by rmcp (the official Rust SDK),
//! by published version.
//!
//! - HTTP: `StreamableHttpService` mounted at `/mcp` on axum, with
//!   `legacy_session_mode(false)` (every request sessionless; rmcp serves
//!   2026-07-28 requests sessionless whatever this says) and
//!   `json_response(true)` (a plain `application/json` body for a result
//!   with no notification before it, as snodo answers; rmcp's default is an
//!   SSE body). The handler advertises only protocol 2026-07-28.
//! - stdio: `serve(stdio_pipes())`, rmcp's non-blocking pipe transport.
//! - tokio current-thread runtime, like every tokio server here.

use std::borrow::Cow;
use std::sync::Arc;

use bench_common::{announce, args, Mode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::{
    session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{ErrorData, ServerHandler, ServiceExt};

#[derive(Clone)]
struct Echo {
    tools: Arc<Vec<Tool>>,
}

impl Echo {
    fn new() -> Self {
        let schema = serde_json::json!({
            "type": "object",
            "properties": { "text": { "type": "string" } },
            "required": ["text"]
        });
        let serde_json::Value::Object(schema) = schema else {
            unreachable!()
        };
        Echo {
            tools: Arc::new(vec![Tool::new("echo", "Echo the text back", schema)]),
        }
    }
}

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(&[ProtocolVersion::V_2026_07_28])
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items((*self.tools).clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "echo" {
            return Err(ErrorData::invalid_params("unknown tool", None));
        }
        let text = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(|t| t.as_str())
            .ok_or_else(|| ErrorData::invalid_params("text must be a string", None))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

fn main() -> std::io::Result<()> {
    let args = args("rmcp-echo");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        match args.mode {
            Mode::Stdio => {
                let running = Echo::new()
                    .serve(rmcp::transport::io::stdio_pipes())
                    .await
                    .map_err(std::io::Error::other)?;
                let _ = running.waiting().await;
                Ok(())
            }
            Mode::Listen(addr) => {
                // The factory runs per request; it only clones an `Arc`.
                let echo = Echo::new();
                let service = StreamableHttpService::new(
                    move || Ok(echo.clone()),
                    Arc::new(LocalSessionManager::default()),
                    StreamableHttpServerConfig::default()
                        .with_legacy_session_mode(false)
                        .with_json_response(true)
                        .with_sse_keep_alive(None),
                );
                let router = axum::Router::new().nest_service("/mcp", service);
                let listener = tokio::net::TcpListener::bind(addr).await?;
                announce(listener.local_addr()?);
                axum::serve(listener, router).await
            }
        }
    })
}
