//! Results as the protocol's own model types: the server's `schema.ts`
//! shapes that `snodo-proto` defines ([`Tool`], [`CallToolResult`],
//! [`ReadResourceResult`], …), read back from the JSON the session holds.
//!
//! The session's requests return `Value`, which stays the way to reach an
//! extension's methods and members; these functions are the one place a
//! result becomes a type, so what a malformed result is, and what is done
//! with it, is decided here.

use serde::de::DeserializeOwned;
use serde_json::Value;
use snodo_proto::CallToolResult;

use crate::error::Error;

/// `result` as `T`; [`Error::Decode`] names `what` was expected.
pub(crate) fn decode<T: DeserializeOwned>(what: &'static str, result: Value) -> Result<T, Error> {
    serde_json::from_value(result).map_err(|error| Error::Decode { what, error })
}

/// The items of a list result that parse as `T`, and for each that does
/// not, its `name` (or `uri`) and why: one malformed entry of a server's
/// list does not hide the others (as a tool with invalid `x-mcp-header`
/// annotations is left out, `server/tools.mdx`, and not the whole list).
pub(crate) fn decode_items<T: DeserializeOwned>(
    items: Vec<Value>,
) -> (Vec<T>, Vec<(String, String)>) {
    let mut good = Vec::with_capacity(items.len());
    let mut bad = Vec::new();
    for item in items {
        let name = item
            .get("name")
            .or_else(|| item.get("uri"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        match serde_json::from_value(item) {
            Ok(t) => good.push(t),
            Err(e) => bad.push((name, e.to_string())),
        }
    }
    (good, bad)
}

/// A typed tool call's answer (`server/tools.mdx` § Structured Content):
/// `structuredContent` as `T`. A tool execution error (`isError: true`)
/// is [`Error::ToolFailed`] with the whole result, for its content says
/// why; a result without structured content is [`Error::Decode`].
pub(crate) fn structured<T: DeserializeOwned>(result: CallToolResult) -> Result<T, Error> {
    if result.is_error == Some(true) {
        return Err(Error::ToolFailed(result));
    }
    match result.structured_content {
        Some(content) => decode("the tool's structuredContent", content),
        None => Err(Error::Decode {
            what: "the tool's structuredContent",
            error: <serde_json::Error as serde::de::Error>::missing_field("structuredContent"),
        }),
    }
}
