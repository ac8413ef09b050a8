//! A one-tool MCP server on stdin/stdout, run on smol.
//!
//! ```text
//! printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' \
//!   | cargo run -q -p snodo-smol --example stdio
//! ```

use smol::Executor;
use snodo_proto::{CallToolResult, Implementation, NoArgs, Service, Tool};
use std::sync::Arc;

fn main() -> std::io::Result<()> {
    let service = Service::builder()
        .server_info(Implementation::new("hello-smol", "0.1.0"))
        .tool(Tool::new("hello", "Say hello"), |_: NoArgs| async {
            CallToolResult::text("Hello from smol!")
        })
        .build()
        .expect("the service is valid");
    let ex = Arc::new(Executor::new());
    smol::block_on(ex.run(snodo_smol::serve_stdio(
        &ex,
        &service,
        snodo_smol::Options::default(),
    )))
}
