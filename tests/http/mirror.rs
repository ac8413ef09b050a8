//! The request metadata headers a conforming client derives from the body
//! it sends (`basic/transports/streamable-http.mdx` § Request Metadata).
//!
//! Derivation is best-effort, as a client sending a malformed body would
//! do it: a header whose source field is missing or not of its type is
//! left out, so the server meets the body's own fault or the missing
//! header, whichever it checks first.

use serde_json::{Map, Value};

/// The protocol version this client speaks; `MCP-Protocol-Version` when
/// the body does not name one.
pub const VERSION: &str = "2026-07-28";

/// An `x-mcp-header` annotation: `Mcp-Param-{header}` mirrors the
/// argument at `path` (a chain of `properties` keys).
struct Param {
    tool: &'static str,
    header: &'static str,
    path: &'static [&'static str],
}

/// The fixture's annotations as its `tools/list` shows them
/// (`vectors/discovery.rs`). A client learns these from `tools/list`; they
/// are written out here, like every other expectation.
const ANNOTATED: &[Param] = &[Param {
    tool: "test_header_param",
    header: "Region",
    path: &["region"],
}];

/// The headers for a POST carrying `body`, names as the spec writes them.
pub fn headers(body: &str) -> Vec<(String, String)> {
    let parsed: Option<Map<String, Value>> = serde_json::from_str(body).ok();
    let message = parsed.unwrap_or_default();
    let params = message.get("params").and_then(Value::as_object);
    let method = message.get("method").and_then(Value::as_str);
    let mut out = Vec::new();

    // § Protocol Version Header: on every POST, equal to `_meta`'s.
    let version = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(Value::as_str)
        .unwrap_or(VERSION);
    if let Some(v) = verbatim(version) {
        out.push((String::from("MCP-Protocol-Version"), v));
    }

    // § Standard Request Headers.
    let Some(method) = method else { return out };
    if let Some(m) = verbatim(method) {
        out.push((String::from("Mcp-Method"), m));
    }
    let name_field = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        // The Tasks extension (`tasks.md` § Streamable HTTP): the task id.
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    if let Some(name) = name_field
        .and_then(|f| params.and_then(|p| p.get(f)))
        .and_then(Value::as_str)
    {
        out.push((String::from("Mcp-Name"), encode(name)));
    }

    // § Custom Headers from Tool Parameters, Client Behavior 3-5.
    if method == "tools/call" {
        let tool = params.and_then(|p| p.get("name")).and_then(Value::as_str);
        let arguments = params.and_then(|p| p.get("arguments"));
        for param in ANNOTATED.iter().filter(|p| Some(p.tool) == tool) {
            if let Some(value) = arguments
                .and_then(|a| value_at(a, param.path))
                .and_then(text_of)
            {
                out.push((format!("Mcp-Param-{}", param.header), encode(&value)));
            }
        }
    }
    out
}

/// The instance value at `path` (a chain of `properties` keys), if present.
fn value_at<'a>(arguments: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter()
        .try_fold(arguments, |v, key| v.as_object()?.get(*key))
}

/// § Value Encoding, type conversion: strings as they are, integers in
/// decimal, booleans lower-case. `null` (and anything else) omits the
/// header.
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        _ => None,
    }
}

/// A value for a header without the Base64 sentinel form (the version and
/// the method): sent as it is when it is a valid field value, else left
/// out, as no client could send it.
fn verbatim(value: &str) -> Option<String> {
    value
        .bytes()
        .all(|b| b == b'\t' || (0x20..=0x7e).contains(&b))
        .then(|| String::from(value))
}

/// § Value Encoding: a value that is not plain visible ASCII and spaces,
/// has leading or trailing whitespace, or looks like the sentinel itself is
/// sent as `=?base64?{Base64 of its UTF-8}?=`.
pub fn encode(value: &str) -> String {
    let needs_encoding = value.bytes().any(|b| !(0x20..=0x7e).contains(&b))
        || value.starts_with(' ')
        || value.ends_with(' ')
        || (value.starts_with("=?base64?") && value.ends_with("?="));
    if needs_encoding {
        format!("=?base64?{}?=", base64(value.as_bytes()))
    } else {
        String::from(value)
    }
}

/// Standard Base64 with padding (RFC 4648 § 4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (String::from(*n), String::from(*v)))
            .collect()
    }

    /// The table of § Value Encoding, value for value.
    #[test]
    fn encodes_as_the_spec_examples() {
        assert_eq!(encode("us-west1"), "us-west1");
        assert_eq!(encode("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(encode(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            encode("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(encode("=?base64?"), "=?base64?");
        assert_eq!(encode(""), "");
        assert_eq!(encode("a\tb"), "=?base64?YQli?=");
    }

    /// The spec's own `tools/call` example (§ Schema Extension), with the
    /// fixture's annotated tool.
    #[test]
    fn derives_the_standard_and_parameter_headers() {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_header_param","arguments":{"region":"us-west1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
        assert_eq!(
            headers(body),
            pairs(&[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "test_header_param"),
                ("Mcp-Param-Region", "us-west1"),
            ])
        );
    }

    #[test]
    fn names_uris_and_missing_sources() {
        let read = r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://template/ü/data","_meta":{"io.modelcontextprotocol/protocolVersion":"v9"}}}"#;
        assert_eq!(
            headers(read),
            pairs(&[
                ("MCP-Protocol-Version", "v9"),
                ("Mcp-Method", "resources/read"),
                ("Mcp-Name", "=?base64?dGVzdDovL3RlbXBsYXRlL8O8L2RhdGE=?="),
            ])
        );
        let nameless = r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":7}}"#;
        assert_eq!(
            headers(nameless),
            pairs(&[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "prompts/get"),
            ])
        );
        assert_eq!(
            headers("hello"),
            pairs(&[("MCP-Protocol-Version", "2026-07-28")])
        );
        let null_param = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_header_param","arguments":{"region":null}}}"#;
        assert_eq!(
            headers(null_param).len(),
            3,
            "a null parameter has no header"
        );
        let int_param = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_header_param","arguments":{"region":5}}}"#;
        assert_eq!(
            headers(int_param)[3],
            (String::from("Mcp-Param-Region"), String::from("5"))
        );
    }
}
