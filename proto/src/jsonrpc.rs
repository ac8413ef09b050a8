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
        /// The method string: the profile's own when it is a method of a
        /// revision snodo knows, copied otherwise.
        method: Cow<'static, str>,
        /// `params`, if present (always an object here).
        params: Option<Map<String, Value>>,
    },
    /// `{jsonrpc, method, params?}` with no `id` member.
    Notification {
        /// The method string, as for a request.
        method: Cow<'static, str>,
        /// `params`, if present and an object.
        params: Option<Map<String, Value>>,
    },
    /// `{jsonrpc, id, result}` or `{jsonrpc, id, error}`: a client's answer
    /// to a request the server sent. Only the initialize-era dialects send
    /// server-to-client requests (`crate::legacy`); elsewhere it is
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
///
/// The same verdicts as parsing a [`Value`] and [`classify`]ing it, without
/// building the envelope's own map: its members are read as they are
/// parsed (the last of a repeated member wins, as in a map), `jsonrpc` is
/// compared without being copied, and only `id`, `method`, `params`,
/// `result` and `error` become values. Every other member is still parsed
/// as a [`Value`], so exactly the texts a `Value` refuses are parse errors.
pub fn parse(bytes: &[u8]) -> Incoming {
    match serde_json::from_slice::<Envelope>(bytes) {
        Ok(Envelope::Object(parts)) => classify_parts(parts),
        Ok(Envelope::Array) => invalid(None, "Batch requests are not supported"),
        Ok(Envelope::Other) => invalid(None, "A JSON-RPC message must be an object"),
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
    let jsonrpc = match obj.get("jsonrpc") {
        None => Jsonrpc::Absent,
        Some(Value::String(s)) if s == "2.0" => Jsonrpc::Valid,
        Some(_) => Jsonrpc::Invalid,
    };
    classify_parts(Parts {
        jsonrpc,
        id: obj.remove("id"),
        method: obj.remove("method").map(|m| match m {
            Value::String(s) => MethodValue::Str(match crate::profile::known_method(&s) {
                Some(known) => Cow::Borrowed(known),
                None => Cow::Owned(s),
            }),
            _ => MethodValue::Other,
        }),
        params: obj.remove("params"),
        result: obj.remove("result"),
        error: obj.remove("error"),
    })
}

/// The `jsonrpc` member, as far as classification cares.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Jsonrpc {
    #[default]
    Absent,
    Valid,
    Invalid,
}

/// The members of a message object that classification reads.
#[derive(Default)]
struct Parts {
    jsonrpc: Jsonrpc,
    id: Option<Value>,
    method: Option<MethodValue>,
    params: Option<Value>,
    result: Option<Value>,
    error: Option<Value>,
}

fn classify_parts(parts: Parts) -> Incoming {
    let Parts {
        jsonrpc,
        id,
        method,
        params,
        result,
        error,
    } = parts;
    // The id is read first so that every later error can echo it.
    let id = match id {
        None => None,
        Some(raw) => match RequestId::from_value(&raw) {
            Some(id) => Some(id),
            None => {
                return invalid(None, "Request id must be a string or an integer");
            }
        },
    };
    if jsonrpc != Jsonrpc::Valid {
        return invalid(id, "The jsonrpc member must be exactly \"2.0\"");
    }
    let method = match method {
        Some(MethodValue::Str(m)) => m,
        Some(MethodValue::Other) => return invalid(id, "The method member must be a string"),
        None => {
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
    let params = match params {
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

/// A message's top level, parsed for [`parse`].
enum Envelope {
    Object(Parts),
    Array,
    Other,
}

/// A member name of the envelope.
enum Member {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Number,
    Other,
}

impl<'de> Deserialize<'de> for Member {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Member;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Member, E> {
                Ok(match s {
                    "jsonrpc" => Member::Jsonrpc,
                    "id" => Member::Id,
                    "method" => Member::Method,
                    "params" => Member::Params,
                    "result" => Member::Result,
                    "error" => Member::Error,
                    // How a number reaches a visitor when serde_json's
                    // `arbitrary_precision` is on: not an object.
                    "$serde_json::private::Number" => Member::Number,
                    _ => Member::Other,
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// The `method` member's value: a string, interned when the profiles name
/// it (no copy for any method snodo serves), or anything else (parsed as a
/// [`Value`] would be, then dropped).
enum MethodValue {
    Str(Cow<'static, str>),
    Other,
}

impl<'de> Deserialize<'de> for MethodValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = MethodValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<MethodValue, E> {
                Ok(MethodValue::Str(match crate::profile::known_method(s) {
                    Some(known) => Cow::Borrowed(known),
                    None => Cow::Owned(String::from(s)),
                }))
            }
            fn visit_bool<E>(self, _: bool) -> Result<MethodValue, E> {
                Ok(MethodValue::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<MethodValue, E> {
                Ok(MethodValue::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<MethodValue, E> {
                Ok(MethodValue::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<MethodValue, E> {
                Ok(MethodValue::Other)
            }
            fn visit_unit<E>(self) -> Result<MethodValue, E> {
                Ok(MethodValue::Other)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<MethodValue, A::Error> {
                Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
                Ok(MethodValue::Other)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<MethodValue, A::Error> {
                Value::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(MethodValue::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// The `jsonrpc` member's value: exactly the string `2.0` or not (any
/// other value parsed as a [`Value`] would be, then dropped).
struct JsonrpcValue(Jsonrpc);

impl<'de> Deserialize<'de> for JsonrpcValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = JsonrpcValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<JsonrpcValue, E> {
                Ok(JsonrpcValue(if s == "2.0" {
                    Jsonrpc::Valid
                } else {
                    Jsonrpc::Invalid
                }))
            }
            fn visit_bool<E>(self, _: bool) -> Result<JsonrpcValue, E> {
                Ok(JsonrpcValue(Jsonrpc::Invalid))
            }
            fn visit_i64<E>(self, _: i64) -> Result<JsonrpcValue, E> {
                Ok(JsonrpcValue(Jsonrpc::Invalid))
            }
            fn visit_u64<E>(self, _: u64) -> Result<JsonrpcValue, E> {
                Ok(JsonrpcValue(Jsonrpc::Invalid))
            }
            fn visit_f64<E>(self, _: f64) -> Result<JsonrpcValue, E> {
                Ok(JsonrpcValue(Jsonrpc::Invalid))
            }
            fn visit_unit<E>(self) -> Result<JsonrpcValue, E> {
                Ok(JsonrpcValue(Jsonrpc::Invalid))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                seq: A,
            ) -> Result<JsonrpcValue, A::Error> {
                Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
                Ok(JsonrpcValue(Jsonrpc::Invalid))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<JsonrpcValue, A::Error> {
                Value::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(JsonrpcValue(Jsonrpc::Invalid))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Envelope {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Envelope;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, _: &str) -> Result<Envelope, E> {
                Ok(Envelope::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Envelope, E> {
                Ok(Envelope::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Envelope, E> {
                Ok(Envelope::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Envelope, E> {
                Ok(Envelope::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Envelope, E> {
                Ok(Envelope::Other)
            }
            fn visit_unit<E>(self) -> Result<Envelope, E> {
                Ok(Envelope::Other)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Envelope, A::Error> {
                Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))?;
                Ok(Envelope::Array)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Envelope, A::Error> {
                let mut parts = Parts::default();
                while let Some(member) = map.next_key::<Member>()? {
                    match member {
                        Member::Jsonrpc => parts.jsonrpc = map.next_value::<JsonrpcValue>()?.0,
                        Member::Id => parts.id = Some(map.next_value()?),
                        Member::Method => parts.method = Some(map.next_value()?),
                        Member::Params => parts.params = Some(map.next_value()?),
                        Member::Result => parts.result = Some(map.next_value()?),
                        Member::Error => parts.error = Some(map.next_value()?),
                        Member::Number => {
                            map.next_value::<Value>()?;
                            return Ok(Envelope::Other);
                        }
                        Member::Other => {
                            map.next_value::<Value>()?;
                        }
                    }
                }
                Ok(Envelope::Object(parts))
            }
        }
        d.deserialize_any(V)
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

/// Append a server-to-client request
/// `{"jsonrpc":"2.0","id":ID,"method":M,"params":P}` (initialize-era
/// sessions only: 2026-07-28 servers send no requests).
pub fn write_request(out: &mut Vec<u8>, id: u64, method: &str, params: &Value) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    crate::json::write(out, &id);
    out.extend_from_slice(b",\"method\":");
    crate::json::write(out, method);
    out.extend_from_slice(b",\"params\":");
    crate::json::write(out, params);
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

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    /// `parse` gives exactly what parsing a `Value` and classifying it does.
    #[test]
    fn parse_is_classify_of_a_value() {
        let cases: &[&str] = &[
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":"a","error":1}"#,
            r#"{"jsonrpc":"2.0","id":"a","result":1,"error":{}}"#,
            r#"{"jsonrpc":"2.0","result":1}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":-3,"method":"m","params":[]}"#,
            r#"{"jsonrpc":"2.0","method":"m","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":3}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#,
            r#"{"jsonrpc":2.0,"id":1,"method":"m"}"#,
            r#"{"jsonrpc":{"a":[1]},"id":1,"method":"m"}"#,
            r#"{"jsonrpc":["2.0"],"id":1,"method":"m"}"#,
            r#"{"jsonrpc":null,"id":1,"method":"m"}"#,
            r#"{"id":1,"method":"m"}"#,
            r#"{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":"x","method":"a","method":"b"}"#,
            r#"{"\u006aSONRPC":"2.0","\u006asonrpc":"2\u002e0","\u0069d":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","extra":{"deep":[1,2,{"x":null}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","extra":"\ud800"}"#,
            r#"{"jsonrpc":"\ud800","id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","extra":1e999}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m"} x"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m""#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"m"}]"#,
            r#"[1,"#,
            r#""text""#,
            "12",
            "-0.5",
            "true",
            "null",
            "",
            " \n{}\n ",
            "{}",
        ];
        for case in cases {
            let expected = match serde_json::from_slice::<Value>(case.as_bytes()) {
                Ok(v) => classify(v),
                Err(_) => Incoming::Invalid {
                    id: None,
                    error: ErrorObject::parse_error(),
                },
            };
            assert_eq!(
                format!("{:?}", parse(case.as_bytes())),
                format!("{expected:?}"),
                "{case}"
            );
        }
    }
}
