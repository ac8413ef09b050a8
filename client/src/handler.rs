//! The application's side of server-initiated input: MRTR input requests
//! (`basic/patterns/mrtr.mdx`) and, in the initialize era, server requests.

use serde_json::{json, Value};
use snodo_proto::client::OpId;
use snodo_proto::{code, ErrorObject};

/// Answers what the server asks of the client. Every method has a default
/// that refuses, so an application implements only the capabilities it
/// declares in [`ClientConfig::capabilities`](snodo_proto::client::ClientConfig).
pub trait Handler {
    /// `elicitation/create`: an `ElicitResult` (`{"action": ...}`).
    fn elicit(&mut self, params: &Value) -> Result<Value, ErrorObject> {
        let _ = params;
        Ok(json!({"action": "decline"}))
    }

    /// `sampling/createMessage`: a `CreateMessageResult`.
    fn sample(&mut self, params: &Value) -> Result<Value, ErrorObject> {
        let _ = params;
        Err(ErrorObject::new(
            code::METHOD_NOT_FOUND,
            "sampling is not supported",
        ))
    }

    /// `roots/list`: a `ListRootsResult`.
    fn roots(&mut self) -> Result<Value, ErrorObject> {
        Err(ErrorObject::new(
            code::METHOD_NOT_FOUND,
            "roots are not supported",
        ))
    }

    /// A notification; `op` is set for the progress of an operation.
    fn notification(&mut self, op: Option<OpId>, message: &Value) {
        let _ = (op, message);
    }

    /// A tool dropped from `tools/list` for invalid `x-mcp-header`
    /// annotations; the spec asks clients to log a warning.
    fn tool_rejected(&mut self, name: &str, reason: &str) {
        eprintln!("warning: tool {name:?} excluded: {reason}");
    }

    /// Route one request by method (`ping` answers `{}`).
    fn dispatch(&mut self, method: &str, params: &Value) -> Result<Value, ErrorObject> {
        match method {
            "elicitation/create" => self.elicit(params),
            "sampling/createMessage" => self.sample(params),
            "roots/list" => self.roots(),
            "ping" => Ok(json!({})),
            other => Err(ErrorObject::new(
                code::METHOD_NOT_FOUND,
                format!("method not found: {other}"),
            )),
        }
    }
}

/// A handler that supports no server-initiated input.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoInput;

impl Handler for NoInput {}
