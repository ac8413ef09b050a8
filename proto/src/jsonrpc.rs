//! The JSON-RPC 2.0 envelope as MCP 2026-07-28 constrains it.
//!
//! One message is one JSON object (`schema.ts` JSONRPCMessage: no batches).
//! Ids are strings or integers, never `null` (`basic/index.mdx` § Requests).
//! Clients send requests and notifications only; a response from a client is
//! refused (`basic/transports/stdio.mdx` § Sending Messages).

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::ErrorObject;

/// A JSON-RPC request id: a string or an integer, never `null`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RequestId {
    /// An integer id (JSON numbers without a fraction that fit in `i64`).
    Int(i64),
    /// An integer id above `i64::MAX`.
    Uint(u64),
    /// A string id.
    Str(Arc<str>),
}

impl RequestId {
    /// Read an id from JSON; `None` for `null`, fractions, booleans, arrays, objects.
    pub fn from_value(v: &Value) -> Option<RequestId> {
        match v {
            Value::String(s) => Some(RequestId::Str(Arc::from(s.as_str()))),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Some(RequestId::Int(i))
                } else {
                    n.as_u64().map(RequestId::Uint)
                }
            }
            _ => None,
        }
    }

    /// The id as a JSON value (same type the client used).
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Int(i) => Value::from(*i),
            RequestId::Uint(u) => Value::from(*u),
            RequestId::Str(s) => Value::String(String::from(&**s)),
        }
    }
}

impl From<i64> for RequestId {
    fn from(i: i64) -> Self {
        RequestId::Int(i)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::Str(Arc::from(s))
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Int(i) => write!(f, "{i}"),
            RequestId::Uint(u) => write!(f, "{u}"),
            RequestId::Str(s) => write!(f, "{s:?}"),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Int(i) => s.serialize_i64(*i),
            RequestId::Uint(u) => s.serialize_u64(*u),
            RequestId::Str(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        RequestId::from_value(&v)
            .ok_or_else(|| serde::de::Error::custom("request id must be a string or an integer"))
    }
}

/// A message received from the client, classified by shape.
#[derive(Debug)]
pub enum Incoming {
    /// `{jsonrpc, id, method, params?}`.
    Request {
        /// The request id.
        id: RequestId,
        /// The method string.
        method: String,
        /// `params`, if present (always an object here).
        params: Option<Map<String, Value>>,
    },
    /// `{jsonrpc, method, params?}` with no `id` member.
    Notification {
        /// The method string.
        method: String,
        /// `params`, if present and an object.
        params: Option<Map<String, Value>>,
    },
    /// `{jsonrpc, id, result}` or `{jsonrpc, id, error}`: a client's answer
    /// to a request the server sent. Only the initialize-era dialects send
    /// server-to-client requests ([`crate::legacy`]); elsewhere it is
    /// refused like any other malformed message.
    Response {
        /// The id of the server's request.
        id: RequestId,
        /// `result` (`Ok`) or `error` (`Err`), as sent.
        outcome: Result<Value, Value>,
    },
    /// Something that must be answered with an error; `id` is set when it
    /// could be read (`basic/index.mdx` § Error Responses).
    Invalid {
        /// The readable id, if any.
        id: Option<RequestId>,
        /// The error to send.
        error: ErrorObject,
    },
}

/// Parse one message's bytes and classify it.
pub fn parse(bytes: &[u8]) -> Incoming {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(v) => classify(v),
        Err(_) => Incoming::Invalid {
            id: None,
            error: ErrorObject::parse_error(),
        },
    }
}

/// Classify an already parsed JSON value.
pub fn classify(v: Value) -> Incoming {
    let mut obj = match v {
        Value::Object(o) => o,
        Value::Array(_) => {
            return invalid(None, "Batch requests are not supported");
        }
        _ => return invalid(None, "A JSON-RPC message must be an object"),
    };
    // The id is read first so that every later error can echo it.
    let id = match obj.remove("id") {
        None => None,
        Some(raw) => match RequestId::from_value(&raw) {
            Some(id) => Some(id),
            None => {
                return invalid(None, "Request id must be a string or an integer");
            }
        },
    };
    match obj.get("jsonrpc") {
        Some(Value::String(s)) if s == "2.0" => {}
        _ => return invalid(id, "The jsonrpc member must be exactly \"2.0\""),
    }
    let method = match obj.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => return invalid(id, "The method member must be a string"),
        None => {
            let result = obj.remove("result");
            let error = obj.remove("error");
            return match (id, result, error) {
                (Some(id), Some(r), None) => Incoming::Response { id, outcome: Ok(r) },
                (Some(id), None, Some(e @ Value::Object(_))) => Incoming::Response {
                    id,
                    outcome: Err(e),
                },
                // Never echo the id of something that looks like a
                // response: it would read as an answer to the client's
                // own request.
                (_, Some(_), _) | (_, _, Some(_)) => {
                    invalid(None, "Clients must not send responses to the server")
                }
                (id, None, None) => invalid(id, "Missing method member"),
            };
        }
    };
    let params = match obj.remove("params") {
        None => None,
        Some(Value::Object(p)) => Some(p),
        Some(Value::Array(_)) => {
            return match id {
                Some(id) => Incoming::Invalid {
                    id: Some(id),
                    error: ErrorObject::invalid_params("Params must be an object"),
                },
                None => invalid(None, "Params must be an object"),
            };
        }
        Some(_) => return invalid(id, "Params must be an object"),
    };
    match id {
        Some(id) => Incoming::Request { id, method, params },
        None => Incoming::Notification { method, params },
    }
}

fn invalid(id: Option<RequestId>, message: &'static str) -> Incoming {
    Incoming::Invalid {
        id,
        error: ErrorObject::invalid_request(Cow::Borrowed(message)),
    }
}

/// Append `{"jsonrpc":"2.0","id":ID,"result":RESULT}` to `out`, where
/// `result` is already serialized JSON.
pub fn write_result_raw(out: &mut Vec<u8>, id: &RequestId, result: &[u8]) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    write_id(out, id);
    out.extend_from_slice(b",\"result\":");
    out.extend_from_slice(result);
    out.push(b'}');
}

/// Append an error response; the `id` member is omitted when unknown
/// (the 2026-07-28 schema allows no `null` id).
pub fn write_error(out: &mut Vec<u8>, id: Option<&RequestId>, error: &ErrorObject) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",");
    if let Some(id) = id {
        out.extend_from_slice(b"\"id\":");
        write_id(out, id);
        out.push(b',');
    }
    out.extend_from_slice(b"\"error\":");
    crate::json::write(out, error);
    out.push(b'}');
}

/// Append a notification `{"jsonrpc":"2.0","method":M,"params":P}`.
pub fn write_notification(out: &mut Vec<u8>, method: &str, params: &Value) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":");
    crate::json::write(out, method);
    out.extend_from_slice(b",\"params\":");
    crate::json::write(out, params);
    out.push(b'}');
}

fn write_id(out: &mut Vec<u8>, id: &RequestId) {
    crate::json::write(out, id);
}
