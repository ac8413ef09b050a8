//! The common requests, admitted without building their params object.
//!
//! A request that is exactly `{"jsonrpc":"2.0","id":…,"method":"tools/call",
//! "params":{"name":…,"arguments":{…},"_meta":{…}}}`, a `resources/read`
//! whose params are exactly `{"uri":…,"_meta":{…}}`, or a list or
//! `server/discover` request whose params are exactly `{"_meta":{…}}`
//! (members in any order, none repeated, no escapes in `jsonrpc`,
//! `method`, `name`, `uri` or the member names) is read into typed parts:
//! the name or URI borrowed from the message, `arguments` as the object
//! the handler gets. A `_meta` of only the two required members is read
//! into typed fields, and [`RequestMeta::raw`](crate::meta::RequestMeta::raw)
//! finds it in the message when asked; any other `_meta` is read into the
//! map the general path builds, as it streams by. The request then meets
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
use serde::de::{DeserializeSeed, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::{served, tool_invocation, Dispatch, HeaderCheck, Params};
use crate::jsonrpc::RequestId;
use crate::meta::{self, ClientCapabilities, Raw, RequestMeta};
use crate::mrtr;
use crate::service::Service;
use crate::time::Instant;

const TOOLS_CALL: &str = "tools/call";
const RESOURCES_READ: &str = "resources/read";

/// The methods this path takes whose params carry nothing but `_meta`.
const BARE: [&str; 5] = [
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
];

/// [`TOOLS_CALL`], [`RESOURCES_READ`] and [`BARE`] quoted, each with the
/// offset of its first slash (a test holds the table to them).
const QUOTED: [(&[u8], usize); 7] = [
    (b"\"tools/call\"", 6),
    (b"\"resources/read\"", 10),
    (b"\"server/discover\"", 7),
    (b"\"tools/list\"", 6),
    (b"\"prompts/list\"", 8),
    (b"\"resources/list\"", 10),
    (b"\"resources/templates/list\"", 10),
];

/// Which request the message is.
#[derive(Clone, Copy)]
enum Method {
    ToolsCall,
    ResourcesRead,
    /// One of [`BARE`].
    Bare(&'static str),
}

/// Admit `message` if it is one of the common requests and admission
/// would answer it or hand it to the application; `None` otherwise.
pub(crate) fn admit(
    service: &Service,
    message: &Bytes,
    headers: Option<&dyn HeaderCheck>,
    now: Instant,
) -> Option<Dispatch> {
    // Another method fails the typed read at its `method`, but a refusal
    // costs serde_json an allocated error: a scan for the method strings
    // keeps every other request from paying for it.
    if !mentions_a_method(message) {
        return None;
    }
    let Message { id, method, params } = serde_json::from_slice(message).ok()?;
    let CallParams {
        name,
        arguments,
        uri,
        meta,
    } = params;
    let (method_name, target) = match (method, name, arguments, uri) {
        (Method::ToolsCall, Some(name), Some(arguments), None) => {
            (TOOLS_CALL, Target::Tool(name, arguments))
        }
        (Method::ResourcesRead, None, None, Some(uri)) => (RESOURCES_READ, Target::Read(uri)),
        (Method::Bare(m), None, None, None) => (m, Target::Bare),
        _ => return None,
    };
    let inner = &service.inner;
    let profile = inner.profile;
    // 2. Required `_meta`; 3. header mirrors; 4. version.
    let version = match &meta {
        Meta::Typed { version, .. } => version,
        Meta::Map(map) => meta::required_in(map).ok()?,
    };
    if let Some(h) = headers {
        let params = match &target {
            Target::Tool(name, arguments) => Params::ToolCall { name, arguments },
            Target::Read(uri) => Params::ResourceRead { uri },
            Target::Bare => Params::MetaOnly,
        };
        h.check(method_name, params, version).ok()?;
    }
    if version != profile.version {
        return None;
    }
    // 5. A core method, served; 6. optional `_meta`.
    if inner.extensions.owner(method_name).is_some() {
        return None;
    }
    let spec = profile.lookup(method_name)?;
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
            raw: Raw::Message(message.clone()),
            ..RequestMeta::default()
        },
        Meta::Map(map) => meta::optional_owned(map).ok()?,
    };
    // 8. The method's params.
    let (name, arguments) = match target {
        Target::Tool(name, arguments) => (name, arguments),
        Target::Read(uri) => {
            // No `inputResponses` or `requestState` here.
            let d = super::read_resource_at(service, &id, uri, &Map::new(), meta, now).ok()?;
            return match d {
                Dispatch::Invoke(admitted) => {
                    Some(crate::extension::wrap(service, spec.name, admitted, now))
                }
                _ => None,
            };
        }
        Target::Bare => {
            // Nothing but `_meta`, which admission took out.
            return match super::route(service, &id, spec, Map::new(), meta, now).ok()? {
                d @ Dispatch::Answer { .. } => Some(d),
                _ => None,
            };
        }
    };
    // No `inputResponses` or `requestState` here.
    let &index = inner.tool_index.get(name)?;
    let mrtr = mrtr::admit(
        service,
        TOOLS_CALL,
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

/// Whether one of this path's method strings, quoted, appears in
/// `message` (a request this path can take writes its method so). Eight
/// bytes at a time: the candidates are the slashes, which few bytes of a
/// message are.
fn mentions_a_method(message: &[u8]) -> bool {
    const SLASHES: u64 = u64::from_ne_bytes([b'/'; 8]);
    const LOW: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // Each method, quoted, is found at its first slash.
    let at = |i: usize| {
        QUOTED.iter().any(|(quoted, slash)| {
            i >= *slash
                && message[i - slash] == b'"'
                && message.get(i - slash..i - slash + quoted.len()) == Some(*quoted)
        })
    };
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
fn the_quoted_table_is_the_methods() {
    let methods: alloc::vec::Vec<&str> = [TOOLS_CALL, RESOURCES_READ]
        .into_iter()
        .chain(BARE)
        .collect();
    assert_eq!(methods.len(), QUOTED.len());
    for (m, (quoted, slash)) in methods.iter().zip(QUOTED) {
        assert_eq!(quoted, alloc::format!("\"{m}\"").as_bytes());
        assert_eq!(quoted.iter().position(|&b| b == b'/'), Some(slash));
    }
}

#[cfg(test)]
#[test]
fn finds_the_method_string() {
    for (text, found) in [
        (r#"{"method":"tools/call"}"#, true),
        (r#""tools/call""#, true),
        (r#"xxxxxxxx"tools/call""#, true),
        (
            r#"{"method":"tools/lisp","x":"tools/call ","y":"server/discovery"}"#,
            false,
        ),
        (r#"{"method":"resources/templates/list"}"#, true),
        (r#""server/discover""#, true),
        (r#""tools/list""#, true),
        (r#"tools/call"#, false),
        ("", false),
        ("/", false),
    ] {
        assert_eq!(mentions_a_method(text.as_bytes()), found, "{text}");
        for pad in 1..9 {
            let padded = alloc::format!("{}{text}", " ".repeat(pad));
            assert_eq!(mentions_a_method(padded.as_bytes()), found, "{padded}");
        }
    }
}

/// The message: `jsonrpc`, `id`, `method` and `params`, each once.
struct Message<'a> {
    id: RequestId,
    method: Method,
    params: CallParams<'a>,
}

/// The params: `_meta`, and `name`, `arguments` and `uri` if present;
/// each once.
struct CallParams<'a> {
    name: Option<&'a str>,
    arguments: Option<Map<String, Value>>,
    uri: Option<&'a str>,
    meta: Meta<'a>,
}

/// What the params name.
enum Target<'a> {
    Tool(&'a str, Map<String, Value>),
    Read(&'a str),
    Bare,
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

/// `_meta`, read as it streams by: typed while it holds only the two
/// required members, each once; from its first other member on (or
/// without one of them), the map the general path builds, the typed
/// members moved into it in the order they came.
struct MetaSeed;

impl<'de> DeserializeSeed<'de> for MetaSeed {
    type Value = Meta<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Meta<'de>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Meta<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("_meta")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Meta<'de>, A::Error> {
                let mut version: Option<Cow<'de, str>> = None;
                let mut capabilities: Option<Map<String, Value>> = None;
                let mut version_first = false;
                let mut other = None;
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    match &*key.0 {
                        meta::KEY_PROTOCOL_VERSION if version.is_none() => {
                            version = Some(map.next_value::<Text<'de>>()?.0);
                            version_first = capabilities.is_none();
                        }
                        meta::KEY_CLIENT_CAPABILITIES if capabilities.is_none() => {
                            capabilities = Some(map.next_value()?)
                        }
                        _ => {
                            other = Some((key.0.into_owned(), map.next_value::<Value>()?));
                            break;
                        }
                    }
                }
                if other.is_none() {
                    if let (Some(version), Some(capabilities)) =
                        (version.take(), capabilities.take())
                    {
                        return Ok(Meta::Typed {
                            version,
                            capabilities,
                        });
                    }
                }
                let mut m = Map::new();
                let v =
                    version.map(|v| (meta::KEY_PROTOCOL_VERSION, Value::String(v.into_owned())));
                let c = capabilities.map(|c| (meta::KEY_CLIENT_CAPABILITIES, Value::Object(c)));
                let (a, b) = if version_first { (v, c) } else { (c, v) };
                for (k, value) in a.into_iter().chain(b) {
                    m.insert(String::from(k), value);
                }
                if let Some((k, value)) = other {
                    m.insert(k, value);
                    while let Some((k, value)) = map.next_entry::<String, Value>()? {
                        m.insert(k, value);
                    }
                }
                Ok(Meta::Map(m))
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
                let (mut jsonrpc, mut id, mut method, mut params) = (false, None, None, None);
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "jsonrpc" if !jsonrpc => {
                            jsonrpc = map.next_value::<&'de str>()? == "2.0";
                            if !jsonrpc {
                                return Err(other());
                            }
                        }
                        "id" if id.is_none() => id = Some(map.next_value::<Id>()?.0),
                        "method" if method.is_none() => {
                            let m = map.next_value::<&'de str>()?;
                            method = Some(if m == TOOLS_CALL {
                                Method::ToolsCall
                            } else if m == RESOURCES_READ {
                                Method::ResourcesRead
                            } else {
                                Method::Bare(BARE.into_iter().find(|b| *b == m).ok_or_else(other)?)
                            });
                        }
                        "params" if params.is_none() => params = Some(map.next_value()?),
                        _ => return Err(other()),
                    }
                }
                match (jsonrpc, id, method, params) {
                    (true, Some(id), Some(method), Some(params)) => {
                        Ok(Message { id, method, params })
                    }
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
                let (mut name, mut arguments, mut uri, mut meta) = (None, None, None, None);
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "name" if name.is_none() => name = Some(map.next_value::<&'de str>()?),
                        "uri" if uri.is_none() => uri = Some(map.next_value::<&'de str>()?),
                        "arguments" if arguments.is_none() => {
                            arguments = Some(map.next_value::<Map<String, Value>>()?)
                        }
                        "_meta" if meta.is_none() => meta = Some(map.next_value_seed(MetaSeed)?),
                        _ => return Err(other()),
                    }
                }
                match meta {
                    Some(meta) => Ok(CallParams {
                        name,
                        arguments,
                        uri,
                        meta,
                    }),
                    None => Err(other()),
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
            .resource(
                crate::Resource::new("file:///r.txt", "r"),
                |args: crate::ResourceArgs, _ctx| async move {
                    Ok(crate::ReadResourceResult::new(alloc::vec![
                        crate::ResourceContents::text(args.uri, "text/plain", "r")
                    ]))
                },
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
            format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{{"uri":"file:///r.txt",{META}}}}}"#),
            format!(r#"{{"params":{{{META},"uri":"file:///r.txt"}},"id":"r","method":"resources/read","jsonrpc":"2.0"}}"#),
            format!(r#"{{"params":{{{META}}},"method":"server/discover","id":"d","jsonrpc":"2.0"}}"#),
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"app":1}}}"#.into(),
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/protocolVersion":"2026-07-28","app":{"x":[1]},"z":null}}}"#.into(),
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.into(),
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVers\u0069on":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#.into(),
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
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{{"cursor":"x",{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{{"name":"echo",{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"prompts/list","params":{{{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"resources/templates/list","params":{{{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{{META}}}}}"#),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#.into(),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{}}}}"#.into(),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}"#.into(),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}}"#.into(),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":[]}}"#.into(),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{{"uri":"file:///none",{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{{"uri":"file:\/\/\/r.txt",{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{{"uri":1,{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{{"uri":"file:///r.txt","name":"echo",{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{{"uri":"file:///r.txt","requestState":"x",{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"uri":"file:///r.txt","name":"echo","arguments":{{}},{META}}}}}"#),
            format!(r#"["2.0",7,"tools/call",{{"name":"echo","arguments":{{"text":"hi"}},{META}}}]"#),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":["echo",{"text":"hi"},{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}]}"#.into(),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}"#.into(),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.into(),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}}"#.into(),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"\ud800"}},{META}}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}}} x"#),
        ];
        let service = service();
        let head = |method: &str, name: Option<&str>| {
            let mut fields = alloc::vec![
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", method),
            ];
            fields.extend(name.map(|n| ("Mcp-Name", n)));
            Head::new("POST", "/mcp", 1, fields)
        };
        for (case, must_take) in taken
            .iter()
            .map(|c| (c, true))
            .chain(other.iter().map(|c| (c, false)))
        {
            let method = serde_json::from_str::<Value>(case)
                .ok()
                .and_then(|v| v.get("method").and_then(Value::as_str).map(String::from))
                .unwrap_or_default();
            let named = match method.as_str() {
                TOOLS_CALL => Some("echo"),
                RESOURCES_READ => Some("file:///r.txt"),
                _ => None,
            };
            let heads: Vec<Option<Head>> = if let Some(name) = named {
                alloc::vec![
                    None,
                    Some(head(&method, Some(name))),
                    Some(head(&method, Some("other")))
                ]
            } else {
                alloc::vec![
                    None,
                    Some(head(&method, None)),
                    Some(head("tools/call", Some("echo")))
                ]
            };
            for h in &heads {
                let mirrors = h.as_ref().map(|head| Mirrors {
                    head,
                    service: &service,
                });
                let check = mirrors.as_ref().map(|m| m as &dyn HeaderCheck);
                let message = Bytes::copy_from_slice(case.as_bytes());
                let fast = admit(&service, &message, check, Instant::ZERO);
                let general = super::super::dispatch(
                    &service,
                    crate::jsonrpc::parse(case.as_bytes()),
                    check,
                    Instant::ZERO,
                );
                let agrees = h.as_ref().is_none_or(|h| {
                    h.get("mcp-method") == Some(method.as_bytes())
                        && named.is_none_or(|n| h.get("mcp-name") == Some(n.as_bytes()))
                });
                if must_take && agrees {
                    assert!(fast.is_some(), "{case}");
                }
                if let Some(fast) = fast {
                    assert_eq!(parts(&fast), parts(&general), "{case}");
                }
            }
        }
    }

    /// The same comparison on messages mutated from the common shapes (a
    /// seeded generator: bytes replaced, inserted, deleted, spans repeated,
    /// members spliced in), with and without header mirrors: wherever the
    /// typed path answers, its answer is the general path's.
    #[test]
    fn fast_is_the_general_path_on_mutated_messages() {
        const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        // Each with the method and name its header mirrors would carry.
        let seeds = [
            (
                format!(
                    r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},{META}}}}}"#
                ),
                "tools/call",
                "echo",
            ),
            (
                format!(
                    r#"{{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{{"uri":"file:///r.txt",{META}}}}}"#
                ),
                "resources/read",
                "file:///r.txt",
            ),
            (
                format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{{META}}}}}"#),
                "tools/list",
                "",
            ),
            (
                format!(
                    r#"{{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{{{META}}}}}"#
                ),
                "server/discover",
                "",
            ),
        ];
        const BYTES: &[u8] = b"{}[]\",:\\ 0123456789.-+eEtrufalsn/_\x7f\xc3\xa9";
        const SPLICES: [&str; 12] = [
            r#""name":"echo","#,
            r#""arguments":{},"#,
            r#""uri":"file:///r.txt","#,
            r#""_meta":{},"#,
            r#""jsonrpc":"2.0","#,
            r#""id":1,"#,
            r#""requestState":"x","#,
            r#""cursor":"c","#,
            r#""io.modelcontextprotocol/logLevel":"debug","#,
            r#""progressToken":1,"#,
            "\\u0069",
            "null",
        ];
        let service = service();
        // xorshift64*: deterministic, no dependency.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |below: usize| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % below.max(1)
        };
        let (mut taken, mut compared) = (0, 0);
        for _ in 0..20_000 {
            let (seed, seed_method, seed_name) = &seeds[next(seeds.len())];
            let mut m = seed.clone().into_bytes();
            for _ in 0..next(4) {
                let at = next(m.len() + 1);
                // Members spliced in after a `{` or `,` keep the message
                // JSON more often than not.
                let member_at = {
                    let starts: Vec<usize> = (0..m.len())
                        .filter(|&i| m[i] == b'{' || m[i] == b',')
                        .map(|i| i + 1)
                        .collect();
                    starts[next(starts.len())]
                };
                match next(7) {
                    0 if at < m.len() => m[at] = BYTES[next(BYTES.len())],
                    1 => m.insert(at, BYTES[next(BYTES.len())]),
                    2 if at < m.len() => {
                        m.remove(at);
                    }
                    3 if at < m.len() => {
                        let end = (at + 1 + next(24)).min(m.len());
                        let span = m[at..end].to_vec();
                        m.splice(at..at, span);
                    }
                    4 => {
                        let splice = SPLICES[next(SPLICES.len())].as_bytes();
                        m.splice(at..at, splice.iter().copied());
                    }
                    _ => {
                        let splice = SPLICES[next(SPLICES.len())].as_bytes();
                        m.splice(member_at..member_at, splice.iter().copied());
                    }
                }
            }
            let text = String::from_utf8_lossy(&m).into_owned();
            let (method, name) = match next(4) {
                0 => (
                    [
                        "tools/call",
                        "resources/read",
                        "tools/list",
                        "server/discover",
                    ][next(4)],
                    ["echo", "file:///r.txt", "other", ""][next(4)],
                ),
                _ => (*seed_method, *seed_name),
            };
            let heads = [
                None,
                Some(Head::new(
                    "POST",
                    "/mcp",
                    1,
                    [
                        ("MCP-Protocol-Version", "2026-07-28"),
                        ("Mcp-Method", method),
                    ]
                    .into_iter()
                    .chain((!name.is_empty()).then_some(("Mcp-Name", name))),
                )),
            ];
            for h in &heads {
                let mirrors = h.as_ref().map(|head| Mirrors {
                    head,
                    service: &service,
                });
                let check = mirrors.as_ref().map(|m| m as &dyn HeaderCheck);
                let message = Bytes::from(m.clone());
                let Some(fast) = admit(&service, &message, check, Instant::ZERO) else {
                    continue;
                };
                let general = super::super::dispatch(
                    &service,
                    crate::jsonrpc::parse(&m),
                    check,
                    Instant::ZERO,
                );
                assert_eq!(parts(&fast), parts(&general), "{text}");
                taken += 1;
                if h.is_some() {
                    compared += 1;
                }
            }
        }
        // The generator reaches the typed path often, with and without
        // mirrors, or the comparison would prove little.
        assert!(
            taken > 2_000 && compared > 100,
            "taken {taken}, with mirrors {compared}"
        );
    }
}
