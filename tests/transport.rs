//! What a transport under test must provide, and the shape every message a
//! server writes must have.

use serde_json::Value;

/// A way to talk to a server: write request bytes, read what comes back.
pub trait Transport {
    /// Write `request` (one or more JSON lines separated by `\n`; the
    /// transport adds the final newline) and return every message the server
    /// writes in reply, in order, once `responses` of them are responses
    /// (`result` or `error`) and the server has nothing more to say about
    /// this request.
    ///
    /// Implementations must fail the test (panic) on anything that is not a
    /// JSON-RPC message, so that [`check_message`] holds for every returned
    /// value.
    fn exchange(&mut self, request: &str, responses: usize) -> Vec<Value>;

    /// A label for failure reports.
    fn name(&self) -> String;

    /// How requests travel, which decides the vectors that apply and what
    /// they expect.
    fn wire(&self) -> Wire {
        Wire::Stream
    }

    /// The HTTP status of the last [`exchange`](Transport::exchange)'s
    /// response; `None` on a byte stream.
    fn last_status(&self) -> Option<u16> {
        None
    }
}

/// The two ways a client reaches a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// Newline-delimited JSON-RPC on one byte stream
    /// (`basic/transports/stdio.mdx`).
    Stream,
    /// One POST per message (`basic/transports/streamable-http.mdx`).
    Http,
}

/// Check that `line` is one well-formed JSON-RPC message as the 2026-07-28
/// schema allows a server to send it (`schema.ts` JSONRPCMessage): an object
/// with `"jsonrpc":"2.0"` that is either a notification (`method`, no `id`)
/// or a response (`result` xor `error`, and an `id` that is a string or an
/// integer when present — never `null`). Servers never send requests
/// (`basic/patterns/index.mdx`).
pub fn check_message(line: &str) -> Result<Value, String> {
    check_message_in(line, false)
}

/// The server-to-client requests of the initialize-era revisions
/// (`mcp-2025-11-25/schema.ts` ServerRequest).
const SESSION_SERVER_REQUESTS: &[&str] = &[
    "ping",
    "elicitation/create",
    "sampling/createMessage",
    "roots/list",
];

/// [`check_message`], where `session` allows the requests a server sends
/// inside an initialize-era session (2026-07-28 has none).
pub fn check_message_in(line: &str, session: bool) -> Result<Value, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e}): {line}"))?;
    let obj = v
        .as_object()
        .ok_or_else(|| format!("not a JSON object: {line}"))?;
    if obj.get("jsonrpc") != Some(&Value::String(String::from("2.0"))) {
        return Err(format!("jsonrpc is not \"2.0\": {line}"));
    }
    match obj.get("id") {
        None | Some(Value::String(_)) => {}
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => {}
        Some(_) => {
            return Err(format!(
                "id must be a string or an integer when present: {line}"
            ))
        }
    }
    let method = obj.contains_key("method");
    let result = obj.contains_key("result");
    let error = obj.contains_key("error");
    match (method, result, error) {
        (true, false, false) if !obj.contains_key("id") => Ok(v),
        (true, false, false)
            if session
                && obj
                    .get("method")
                    .and_then(Value::as_str)
                    .is_some_and(|m| SESSION_SERVER_REQUESTS.contains(&m)) =>
        {
            Ok(v)
        }
        (true, _, _) => Err(format!("a server must not send requests: {line}")),
        (false, true, false) if obj.contains_key("id") => Ok(v),
        (false, true, false) => Err(format!("a result without an id: {line}")),
        (false, false, true) => Ok(v),
        _ => Err(format!("neither a notification nor a response: {line}")),
    }
}
