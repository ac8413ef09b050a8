//! The common `tools/call`, admitted without building its params object.
//!
//! A request that is exactly `{"jsonrpc":"2.0","id":…,"method":"tools/call",
//! "params":{"name":…,"arguments":{…},"_meta":{…}}}` (members in any
//! order, none repeated, no escapes in `jsonrpc`, `method`, `name` or the
//! member names) is read into typed parts: the name borrowed from the
//! message, `arguments` as the object the handler gets, and `_meta` as its
//! text. A `_meta` of only the two required members is read into typed
//! fields and kept as that text for
//! [`RequestMeta::raw`](crate::meta::RequestMeta::raw); any other is
//! parsed into the map the general path builds. The request then meets
//! the admission steps of [`dispatch`](super::dispatch) in the same order.
//!
//! This path only ever produces the invocation the general path would:
//! any other shape, and any request that some step would refuse, returns
//! `None` before anything is done, and the caller hands the message to
//! the general path, which decides it from scratch.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::sync::Arc;
use bytes::Bytes;
use core::fmt;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{served, tool_invocation, Dispatch, HeaderCheck, Params};
use crate::jsonrpc::RequestId;
use crate::meta::{self, ClientCapabilities, Raw, RequestMeta};
use crate::mrtr;
use crate::service::Service;
use crate::time::Instant;

const METHOD: &str = "tools/call";

/// Admit `message` if it is the common `tools/call` and admission would
/// hand it to the application; `None` otherwise.
pub(crate) fn tool_call(
    service: &Service,
    message: &Bytes,
    headers: Option<&dyn HeaderCheck>,
    now: Instant,
) -> Option<Dispatch> {
    // Another method fails the typed read at its `method`, but a refusal
    // costs serde_json an allocated error: a scan for the method string
    // keeps every other request from paying for it.
    if !mentions_tools_call(message) {
        return None;
    }
    let Message { id, params } = serde_json::from_slice(message).ok()?;
    let CallParams {
        name,
        arguments,
        meta: raw_meta,
    } = params;
    let inner = &service.inner;
    let profile = inner.profile;
    // 2. Required `_meta`; 3. header mirrors; 4. version.
    let meta = match serde_json::from_str::<MetaView<'_>>(raw_meta.get()) {
        Ok(MetaView {
            version: Some(version),
            capabilities: Some(capabilities),
            other: false,
        }) => Meta::Typed {
            version,
            capabilities,
        },
        _ => Meta::Map(serde_json::from_str(raw_meta.get()).ok()?),
    };
    let version = match &meta {
        Meta::Typed { version, .. } => version,
        Meta::Map(map) => meta::required_in(map).ok()?,
    };
    if let Some(h) = headers {
        let params = Params::ToolCall {
            name,
            arguments: &arguments,
        };
        h.check(METHOD, params, version).ok()?;
    }
    if version != profile.version {
        return None;
    }
    // 5. A core method, served; 6. optional `_meta`.
    if inner.extensions.owner(METHOD).is_some() {
        return None;
    }
    let spec = profile.lookup(METHOD)?;
    if !served(service, spec) {
        return None;
    }
    let meta = match meta {
        // What `meta::optional_owned` makes of an object of exactly these
        // two members.
        Meta::Typed {
            version,
            capabilities,
        } => RequestMeta {
            protocol_version: match crate::profile::known_version(&version) {
                Some(known) => Cow::Borrowed(known),
                None => Cow::Owned(version.into_owned()),
            },
            client_capabilities: ClientCapabilities(capabilities),
            raw: Raw::Text(message.slice_ref(raw_meta.get().as_bytes())),
            ..RequestMeta::default()
        },
        Meta::Map(map) => meta::optional_owned(map).ok()?,
    };
    // 8. The tool's params: no `inputResponses` or `requestState` here.
    let &index = inner.tool_index.get(name)?;
    let mrtr = mrtr::admit(
        service,
        METHOD,
        inner.tools[index].name.clone(),
        &Map::new(),
        now,
    )
    .ok()?;
    match tool_invocation(service, &id, index, arguments, meta, mrtr).ok()? {
        Dispatch::Invoke(admitted) => {
            Some(crate::extension::wrap(service, spec.name, admitted, now))
        }
        _ => None,
    }
}

/// Whether `"tools/call"` appears in `message` (a tools/call request
/// this path can take writes its method so). Eight bytes at a time: the
/// candidates are the slashes, which few bytes of a message are.
fn mentions_tools_call(message: &[u8]) -> bool {
    const NEEDLE: &[u8] = b"\"tools/call\"";
    const SLASHES: u64 = u64::from_ne_bytes([b'/'; 8]);
    const LOW: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let at = |i: usize| i >= 6 && message.get(i - 6..i + 6) == Some(NEEDLE);
    let mut chunks = message.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let Ok(bytes) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        // Non-zero when some byte of `x` is zero (and rarely otherwise:
        // each candidate is checked).
        let x = u64::from_ne_bytes(bytes) ^ SLASHES;
        if x.wrapping_sub(LOW) & !x & HIGH != 0 && (0..8).any(|j| bytes[j] == b'/' && at(base + j))
        {
            return true;
        }
        base += 8;
    }
    let rest = chunks.remainder();
    (0..rest.len()).any(|j| rest[j] == b'/' && at(base + j))
}

#[cfg(test)]
#[test]
fn finds_the_method_string() {
    for (text, found) in [
        (r#"{"method":"tools/call"}"#, true),
        (r#""tools/call""#, true),
        (r#"xxxxxxxx"tools/call""#, true),
        (r#"{"method":"tools/list","x":"tools/call "}"#, false),
        (r#"tools/call"#, false),
        ("", false),
        ("/", false),
    ] {
        assert_eq!(mentions_tools_call(text.as_bytes()), found, "{text}");
        for pad in 1..9 {
            let padded = alloc::format!("{}{text}", " ".repeat(pad));
            assert_eq!(mentions_tools_call(padded.as_bytes()), found, "{padded}");
        }
    }
}

/// The message: `jsonrpc`, `id`, `method` and `params`, each once.
struct Message<'a> {
    id: RequestId,
    params: CallParams<'a>,
}

/// The params: `name`, `arguments` and `_meta`, each once.
struct CallParams<'a> {
    name: &'a str,
    arguments: Map<String, Value>,
    meta: &'a RawValue,
}

/// A `_meta` as this path admits it.
enum Meta<'a> {
    /// Exactly the two required members, well-typed.
    Typed {
        version: Cow<'a, str>,
        capabilities: Map<String, Value>,
    },
    /// Anything else, as the general path reads it.
    Map(Map<String, Value>),
}

/// The required members of `_meta`, and whether it has any other member
/// (or one twice).
struct MetaView<'a> {
    version: Option<Cow<'a, str>>,
    capabilities: Option<Map<String, Value>>,
    other: bool,
}

impl<'de> Deserialize<'de> for MetaView<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MetaView<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("_meta")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MetaView<'de>, A::Error> {
                let mut view = MetaView {
                    version: None,
                    capabilities: None,
                    other: false,
                };
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    match &*key.0 {
                        meta::KEY_PROTOCOL_VERSION if view.version.is_none() => {
                            view.version = Some(map.next_value::<Text<'de>>()?.0)
                        }
                        meta::KEY_CLIENT_CAPABILITIES if view.capabilities.is_none() => {
                            view.capabilities = Some(map.next_value()?)
                        }
                        _ => {
                            view.other = true;
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(view)
            }
        }
        d.deserialize_map(V)
    }
}

/// A string, borrowed from the message unless it had escapes.
struct Text<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(String::from(s))))
            }
        }
        d.deserialize_str(V)
    }
}

/// Refuse the message for this path (the general path reads it).
fn other<E: serde::de::Error>() -> E {
    E::custom("not the common tools/call")
}

impl<'de> Deserialize<'de> for Message<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Message<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tools/call request")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Message<'de>, A::Error> {
                let (mut jsonrpc, mut id, mut method, mut params) = (false, None, false, None);
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "jsonrpc" if !jsonrpc => {
                            jsonrpc = map.next_value::<&'de str>()? == "2.0";
                            if !jsonrpc {
                                return Err(other());
                            }
                        }
                        "id" if id.is_none() => id = Some(map.next_value::<Id>()?.0),
                        "method" if !method => {
                            method = map.next_value::<&'de str>()? == METHOD;
                            if !method {
                                return Err(other());
                            }
                        }
                        "params" if params.is_none() => params = Some(map.next_value()?),
                        _ => return Err(other()),
                    }
                }
                match (jsonrpc, id, method, params) {
                    (true, Some(id), true, Some(params)) => Ok(Message { id, params }),
                    _ => Err(other()),
                }
            }
        }
        // Objects only: a `deserialize_struct` would also take an array.
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for CallParams<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CallParams<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("tools/call params")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CallParams<'de>, A::Error> {
                let (mut name, mut arguments, mut meta) = (None, None, None);
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "name" if name.is_none() => name = Some(map.next_value::<&'de str>()?),
                        "arguments" if arguments.is_none() => {
                            arguments = Some(map.next_value::<Map<String, Value>>()?)
                        }
                        "_meta" if meta.is_none() => {
                            meta = Some(map.next_value::<&'de RawValue>()?)
                        }
                        _ => return Err(other()),
                    }
                }
                match (name, arguments, meta) {
                    (Some(name), Some(arguments), Some(meta)) => Ok(CallParams {
                        name,
                        arguments,
                        meta,
                    }),
                    _ => Err(other()),
                }
            }
        }
        d.deserialize_map(V)
    }
}

/// A request id as [`RequestId::from_value`] reads it: an integer or a
/// string.
struct Id(RequestId);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Id;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a request id")
            }
            fn visit_i64<E>(self, i: i64) -> Result<Id, E> {
                Ok(Id(RequestId::Int(i)))
            }
            fn visit_u64<E>(self, u: u64) -> Result<Id, E> {
                Ok(Id(match i64::try_from(u) {
                    Ok(i) => RequestId::Int(i),
                    Err(_) => RequestId::Uint(u),
                }))
            }
            fn visit_str<E>(self, s: &str) -> Result<Id, E> {
                Ok(Id(RequestId::Str(Arc::from(s))))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use crate::http::codec::Head;
    use crate::http::rules::Mirrors;
    use crate::{CallToolResult, Tool};
    use alloc::format;
    use alloc::string::ToString;
    use alloc::vec::Vec;

    #[derive(serde::Deserialize)]
    struct Echo {
        #[allow(dead_code)]
        text: String,
    }

    fn service() -> Service {
        Service::builder()
            .tool(
                Tool::new("echo", "Echo").input_schema(serde_json::json!({
                    "type": "object",
                    "properties": { "text": { "type": "string" } },
                    "required": ["text"]
                })),
                |a: Echo, _ctx| async move { CallToolResult::text(a.text) },
            )
            .build()
            .unwrap()
    }

    /// What an invocation carries, for comparing the two paths.
    fn parts(d: &Dispatch) -> String {
        match d {
            Dispatch::Invoke(a) => format!(
                "{:?} {:?} {:?} {:?} {:?} {:?} {}",
                a.id,
                a.request,
                a.meta,
                a.round,
                a.tool,
                a.origin.as_ref().map(|o| (o.method, o.target.to_string())),
                a.handler.is_some()
            ),
            other => format!("{other:?}"),
        }
    }

    /// Where the fast path answers, it answers what the general path does;
    /// the common shape is answered by it.
    #[test]
    fn fast_is_the_general_path() {
        const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let taken = [
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}}}"#),
            format!(r#"{{"params":{{{META},"arguments":{{"text":"h\u0069"}},"name":"echo"}},"method":"tools/call","id":"x","jsonrpc":"2.0"}}"#),
            format!(r#" {{"jsonrpc":"2.0","id":-3,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi","text":"again","more":[1,{{}}]}},{META}}}}} "#),
            format!(r#"{{"jsonrpc":"2.0","id":18446744073709551615,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}}}"#),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/protocolVersion":"2026-07-28","progressToken":"p","traceparent":"t","app/key":[1],"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/logLevel":"info"}}}"#.into(),
        ];
        let other = [
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"ec\u0068o","arguments":{{"text":"hi"}},{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"nope","arguments":{{"text":"hi"}},{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":1}},{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":null,{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo",{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","name":"echo","arguments":{{"text":"hi"}},{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","extra":1,"params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},"requestState":"x",{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7.0,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}}}"#),
            format!(r#"{{"jsonrpc":"1.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}}}"#),
            format!(r#"["2.0",7,"tools/call",{{"name":"echo","arguments":{{"text":"hi"}},{META}}}]"#),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":["echo",{"text":"hi"},{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}]}"#.into(),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}"#.into(),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.into(),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}}"#.into(),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"\ud800"}},{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}}} x"#),
        ];
        let service = service();
        let head = |name: &str| {
            Head::new(
                "POST",
                "/mcp",
                1,
                [
                    ("MCP-Protocol-Version", "2026-07-28"),
                    ("Mcp-Method", "tools/call"),
                    ("Mcp-Name", name),
                ],
            )
        };
        let heads: Vec<Option<Head>> = alloc::vec![None, Some(head("echo")), Some(head("other"))];
        for (case, must_take) in taken
            .iter()
            .map(|c| (c, true))
            .chain(other.iter().map(|c| (c, false)))
        {
            for h in &heads {
                let mirrors = h.as_ref().map(|head| Mirrors {
                    head,
                    service: &service,
                });
                let check = mirrors.as_ref().map(|m| m as &dyn HeaderCheck);
                let message = Bytes::copy_from_slice(case.as_bytes());
                let fast = tool_call(&service, &message, check, Instant::ZERO);
                let general = super::super::dispatch(
                    &service,
                    crate::jsonrpc::parse(case.as_bytes()),
                    check,
                    Instant::ZERO,
                );
                let agrees_on_name = h
                    .as_ref()
                    .is_none_or(|h| h.get("mcp-name") == Some(b"echo"));
                if must_take && agrees_on_name {
                    assert!(fast.is_some(), "{case}");
                }
                if let Some(fast) = fast {
                    assert_eq!(parts(&fast), parts(&general), "{case}");
                }
            }
        }
    }
}
