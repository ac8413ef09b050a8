//! The README's complete program: one tool, served over Streamable HTTP on
//! tokio until Ctrl-C.
//!
//! ```text
//! cargo run -p snodo-tokio --example hello
//! ```

use serde::Deserialize;
use snodo_proto::{CallToolResult, Context, Service, Tool};
use snodo_tokio::{bind_http, serve_http, Options};

#[derive(Deserialize)]
struct Greet {
    name: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Service::builder()
        .tool(
            Tool::new("greet", "Say hello to someone").input_schema(serde_json::json!({
                "type": "object",
                "properties": { "name": { "type": "string" } },
                "required": ["name"]
            })),
            |args: Greet, _ctx: Context| async move {
                CallToolResult::text(format!("Hello, {}!", args.name))
            },
        )
        .build()?;
    let listener = bind_http("127.0.0.1:8378").await?;
    eprintln!("MCP endpoint: http://{}/mcp", listener.local_addr()?);
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    serve_http(&service, listener, ctrl_c, Options::default()).await?;
    Ok(())
}
