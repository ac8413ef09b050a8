//! The README's complete program: a typed tool with application state and
//! a structured result, served on stdio (the default) or on Streamable HTTP.
//! Its one dependency is `snodo`, with default features.
//!
//! ```text
//! cargo run -p snodo --example hello               # stdio
//! cargo run -p snodo --example hello -- http       # http://127.0.0.1:8378/mcp
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

use snodo::deps::tokio;
use snodo::prelude::*;

/// The application's state: handlers receive it as `State<Counter>`.
#[derive(Default)]
struct Counter {
    greeted: AtomicU64,
}

// `serde(crate)`: serde is snodo's re-export, not a dependency of its own.
#[derive(Deserialize, JsonSchema)]
#[serde(crate = "snodo::deps::serde")]
struct Greet {
    /// Who to greet.
    name: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(crate = "snodo::deps::serde")]
struct Greeting {
    message: String,
    /// How many greetings this server has made.
    count: u64,
}

#[tokio::main(crate = "snodo::deps::tokio")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Service::builder()
        .state(Counter::default())
        .tool(
            Tool::new("greet", "Say hello to someone").title("Greet"),
            |counter: State<Counter>, args: Greet| async move {
                if args.name.trim().is_empty() {
                    // A tool execution error: the model reads it and retries.
                    return Err(ToolError::from("name is empty: say who to greet"));
                }
                let count = counter.greeted.fetch_add(1, Ordering::Relaxed) + 1;
                Ok(Json(Greeting {
                    message: format!("Hello, {}!", args.name),
                    count,
                }))
            },
        )
        .build()?;

    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("http") => {
            let addr = args.get(1).map_or("127.0.0.1:8378", String::as_str);
            let listener = bind_http(addr).await?;
            eprintln!("MCP endpoint: http://{}/mcp", listener.local_addr()?);
            let ctrl_c = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            serve_http(&service, listener, ctrl_c, Options::default()).await?;
        }
        _ => serve_stdio(&service, Options::default()).await?,
    }
    Ok(())
}
