//! The typed parser of the common requests: it reads them without
//! building their params object, and hands what it read to the admission
//! steps of [`request`](super::request), the same function the general
//! parser feeds.
//!
//! It reads a request that is exactly `{"jsonrpc":"2.0","id":…,
//! "method":"tools/call","params":{"name":…,"arguments":{…},"_meta":{…}}}`,
//! a `resources/read` whose params are exactly `{"uri":…,"_meta":{…}}`, or
//! a list or `server/discover` request whose params are exactly
//! `{"_meta":{…}}` (members in any order, none repeated, no escapes in
//! `jsonrpc`, `method`, `name`, `uri` or the member names): the name or URI
//! borrowed from the message, `arguments` as the object the handler gets.
//!
//! `_meta` is read into the fields of [`RequestMeta`] as it streams by:
//! the two required members, and every optional one the released clients
//! send (`io.modelcontextprotocol/clientInfo`, `…/logLevel`,
//! `progressToken`, `traceparent`, `tracestate`, `baggage`). Any other
//! member is checked as the general parser would check it and skipped;
//! [`RequestMeta::raw`] finds the whole object in the message when a
//! handler asks for it.
//!
//! The parser takes a message only where its reading is the general
//! parser's: required `_meta` members present and well-typed (so the
//! request is of the 2026-07-28 era, never an initialize-era session's:
//! [`legacy::era`](crate::legacy::era)), optional ones well-formed, a
//! repeated `_meta` member resolved as the general parser's map resolves
//! it (the last one counts). Anything else (another shape, a malformed
//! optional member, a number or escape it does not read) makes it return
//! `None`, and the caller hands the message to the general parser, which
//! decides it from scratch. What it takes, admission answers exactly as it
//! answers the general parser's reading, errors included.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::sync::Arc;
use bytes::Bytes;
use core::fmt;
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{Body, Dispatch, HeaderCheck, Typed};
use crate::jsonrpc::RequestId;
use crate::meta::{self, ClientCapabilities, LogLevel, ProgressToken, RequestMeta};
use crate::model::Implementation;
use crate::service::Service;
use crate::time::Instant;

const TOOLS_CALL: &str = "tools/call";
const RESOURCES_READ: &str = "resources/read";

/// The methods this parser takes whose params carry nothing but `_meta`.
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

/// Dispatch `message` if the typed parser reads it; `None` otherwise (the
/// caller then hands it to the general parser).
pub(crate) fn admit(
    service: &Service,
    message: &Bytes,
    headers: Option<&dyn HeaderCheck>,
    principal: Option<&alloc::sync::Arc<crate::auth::Principal>>,
    memo: &mut Memo,
    now: Instant,
) -> Option<Dispatch> {
    if super::general_parser_only_now() {
        return None;
    }
    let mut meta = RequestMeta::default();
    let (id, method, body) = parse(message, &mut meta, memo)?;
    Some(super::request(
        service, id, method, body, headers, principal, now,
    ))
}

/// The typed reading of `message`: its id, method and params, `_meta`
/// read into `meta` (in place: a `RequestMeta` is large, and handed
/// through the parse by value it would be copied at every step).
pub(super) fn parse<'a>(
    message: &'a Bytes,
    meta: &'a mut RequestMeta,
    memo: &mut Memo,
) -> Option<(RequestId, &'static str, Body<'a>)> {
    // Another method fails the typed read at its `method`, but a refusal
    // costs serde_json an allocated error: a scan for the method strings
    // keeps every other request from paying for it.
    if !mentions_a_method(message) {
        return None;
    }
    // One UTF-8 check of the whole message, rather than one of every
    // string as `from_slice` makes: a message that is not UTF-8 is refused
    // either way (outside a string it is not JSON), and the general parser
    // then decides it.
    let text = core::str::from_utf8(message).ok()?;
    let mut de = serde_json::Deserializer::from_str(text);
    let Message { id, method, params } = MessageSeed(&mut *meta, memo).deserialize(&mut de).ok()?;
    // Nothing but whitespace after it, as `serde_json::from_slice` requires.
    de.end().ok()?;
    let CallParams {
        name,
        arguments,
        uri,
    } = params;
    let (method, params) = match (method, name, arguments, uri) {
        (Method::ToolsCall, Some(name), Some(arguments), None) => {
            (TOOLS_CALL, Typed::ToolCall { name, arguments })
        }
        (Method::ResourcesRead, None, None, Some(uri)) => {
            (RESOURCES_READ, Typed::ResourceRead { uri })
        }
        (Method::Bare(m), None, None, None) => (m, Typed::MetaOnly),
        _ => return None,
    };
    Some((
        id,
        method,
        Body::Typed {
            params,
            meta,
            message,
        },
    ))
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

/// The params: `name`, `arguments` and `uri` if present, each once; and
/// `_meta`, once, read into the caller's `RequestMeta`.
struct CallParams<'a> {
    name: Option<&'a str>,
    arguments: Option<Map<String, Value>>,
    uri: Option<&'a str>,
}

/// `_meta`, read into the admitted fields as it streams by (`raw` left
/// for the caller). Refused unless both required members are there and
/// every member it reads is well-formed; a repeated member replaces the
/// one before it, as in the general parser's map.
struct MetaSeed<'s>(&'s mut RequestMeta, &'s mut Memo);

/// The last `clientCapabilities` and `clientInfo` a connection read, each
/// with its text: a client sends the same objects with every request, so
/// the next request with the same text takes them from here instead of
/// reading them again. Text that differs is read as before, as strictly
/// as the general parser's map.
#[derive(Debug, Default)]
pub(crate) struct Memo {
    capabilities: Option<(alloc::boxed::Box<str>, ClientCapabilities)>,
    client_info: Option<(alloc::boxed::Box<str>, Arc<Implementation>)>,
}

impl Memo {
    fn capabilities<E: serde::de::Error>(
        &mut self,
        raw: &RawValue,
    ) -> Result<ClientCapabilities, E> {
        if let Some((text, caps)) = &self.capabilities {
            if **text == *raw.get() {
                return Ok(caps.clone());
            }
        }
        let map: Map<String, Value> = serde_json::from_str(raw.get()).map_err(|_| other())?;
        let caps = ClientCapabilities::from(map);
        self.capabilities = Some((raw.get().into(), caps.clone()));
        Ok(caps)
    }

    fn client_info<E: serde::de::Error>(
        &mut self,
        raw: &RawValue,
    ) -> Result<Arc<Implementation>, E> {
        if let Some((text, info)) = &self.client_info {
            if **text == *raw.get() {
                return Ok(info.clone());
            }
        }
        let ClientInfo(info) = serde_json::from_str(raw.get()).map_err(|_| other())?;
        let info = Arc::new(info);
        self.client_info = Some((raw.get().into(), info.clone()));
        Ok(info)
    }
}

impl<'de> DeserializeSeed<'de> for MetaSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        struct V<'s>(&'s mut RequestMeta, &'s mut Memo);
        impl<'de> Visitor<'de> for V<'_> {
            type Value = ();
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("_meta")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
                let (meta, memo) = (self.0, self.1);
                let mut version: Option<Cow<'de, str>> = None;
                let mut capabilities = None;
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    match &*key.0 {
                        meta::KEY_PROTOCOL_VERSION => {
                            version = Some(map.next_value::<Text<'de>>()?.0)
                        }
                        meta::KEY_CLIENT_CAPABILITIES => {
                            let raw = map.next_value::<&'de RawValue>()?;
                            capabilities = Some(memo.capabilities(raw)?);
                        }
                        meta::KEY_CLIENT_INFO => {
                            let raw = map.next_value::<&'de RawValue>()?;
                            meta.client_info = Some(memo.client_info(raw)?);
                        }
                        meta::KEY_LOG_LEVEL => {
                            let level = map.next_value::<Text<'de>>()?;
                            meta.log_level = Some(LogLevel::parse(&level.0).ok_or_else(other)?);
                        }
                        meta::KEY_PROGRESS_TOKEN => {
                            meta.progress_token = Some(map.next_value::<Token>()?.0)
                        }
                        "traceparent" => meta.trace.traceparent = Some(owned(map.next_value()?)),
                        "tracestate" => meta.trace.tracestate = Some(owned(map.next_value()?)),
                        "baggage" => meta.trace.baggage = Some(owned(map.next_value()?)),
                        _ => {
                            map.next_value::<Checked>()?;
                        }
                    }
                }
                let (Some(version), Some(capabilities)) = (version, capabilities) else {
                    return Err(other());
                };
                // As `meta::optional_owned` reads the version.
                meta.protocol_version = match crate::profile::known_version(&version) {
                    Some(known) => Cow::Borrowed(known),
                    None => Cow::Owned(version.into_owned()),
                };
                meta.client_capabilities = capabilities;
                Ok(())
            }
        }
        d.deserialize_map(V(self.0, self.1))
    }
}

fn owned(text: Text<'_>) -> String {
    text.0.into_owned()
}

/// `io.modelcontextprotocol/clientInfo` as `Implementation` reads it from
/// the general parser's map, for the members the clients send: `name` and
/// `version`, and `title`, `description` and `websiteUrl`, strings, each
/// once. Anything else (`icons`, another member the map would ignore, a
/// `null`) is left to the general parser.
struct ClientInfo(Implementation);

impl<'de> Deserialize<'de> for ClientInfo {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ClientInfo;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("clientInfo")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ClientInfo, A::Error> {
                let (mut name, mut version) = (None, None);
                let (mut title, mut description, mut website_url) = (None, None, None);
                while let Some(key) = map.next_key::<&'de str>()? {
                    let slot = match key {
                        "name" => &mut name,
                        "version" => &mut version,
                        "title" => &mut title,
                        "description" => &mut description,
                        "websiteUrl" => &mut website_url,
                        _ => return Err(other()),
                    };
                    if slot.is_some() {
                        return Err(other());
                    }
                    *slot = Some(owned(map.next_value()?));
                }
                let (Some(name), Some(version)) = (name, version) else {
                    return Err(other());
                };
                let mut info = Implementation::new(name, version);
                info.title = title;
                info.description = description;
                info.website_url = website_url;
                Ok(ClientInfo(info))
            }
        }
        d.deserialize_map(V)
    }
}

/// `progressToken` as the general parser admits it: a string, or a number
/// that is an `i64`.
struct Token(ProgressToken);

impl<'de> Deserialize<'de> for Token {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Token;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a progress token")
            }
            fn visit_i64<E: serde::de::Error>(self, i: i64) -> Result<Token, E> {
                Ok(Token(ProgressToken::Int(i)))
            }
            fn visit_u64<E: serde::de::Error>(self, u: u64) -> Result<Token, E> {
                let i = i64::try_from(u).map_err(|_| other())?;
                Ok(Token(ProgressToken::Int(i)))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Token, E> {
                Ok(Token(ProgressToken::Str(String::from(s))))
            }
        }
        d.deserialize_any(V)
    }
}

/// Any JSON value, checked as strictly as the general parser's `Value`
/// reads it (string escapes, number ranges) and dropped: `IgnoredAny`
/// would let through a lone surrogate escape or an out-of-range number
/// that the general parser refuses, and then the two would differ.
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Checked;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_str<E>(self, _: &str) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_unit<E>(self) -> Result<Checked, E> {
                Ok(Checked)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
                while seq.next_element::<Checked>()?.is_some() {}
                Ok(Checked)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
                while map.next_key::<Checked>()?.is_some() {
                    map.next_value::<Checked>()?;
                }
                Ok(Checked)
            }
        }
        d.deserialize_any(V)
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
    E::custom("not a request the typed parser reads")
}

/// [`Message`], its `_meta` read into the `RequestMeta` this holds.
struct MessageSeed<'s>(&'s mut RequestMeta, &'s mut Memo);

impl<'de> DeserializeSeed<'de> for MessageSeed<'_> {
    type Value = Message<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Message<'de>, D::Error> {
        struct V<'s>(&'s mut RequestMeta, &'s mut Memo);
        impl<'de> Visitor<'de> for V<'_> {
            type Value = Message<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a request the typed parser reads")
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
                        "params" if params.is_none() => {
                            params =
                                Some(map.next_value_seed(ParamsSeed(&mut *self.0, &mut *self.1))?)
                        }
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
        d.deserialize_map(V(self.0, self.1))
    }
}

/// [`CallParams`], its `_meta` read into the `RequestMeta` this holds.
struct ParamsSeed<'s>(&'s mut RequestMeta, &'s mut Memo);

impl<'de> DeserializeSeed<'de> for ParamsSeed<'_> {
    type Value = CallParams<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<CallParams<'de>, D::Error> {
        struct V<'s>(&'s mut RequestMeta, &'s mut Memo);
        impl<'de> Visitor<'de> for V<'_> {
            type Value = CallParams<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("params the typed parser reads")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CallParams<'de>, A::Error> {
                let (mut name, mut arguments, mut uri, mut meta) = (None, None, None, false);
                while let Some(key) = map.next_key::<&'de str>()? {
                    match key {
                        "name" if name.is_none() => name = Some(map.next_value::<&'de str>()?),
                        "uri" if uri.is_none() => uri = Some(map.next_value::<&'de str>()?),
                        "arguments" if arguments.is_none() => {
                            arguments = Some(map.next_value::<Map<String, Value>>()?)
                        }
                        "_meta" if !meta => {
                            map.next_value_seed(MetaSeed(&mut *self.0, &mut *self.1))?;
                            meta = true;
                        }
                        _ => return Err(other()),
                    }
                }
                if !meta {
                    return Err(other());
                }
                Ok(CallParams {
                    name,
                    arguments,
                    uri,
                })
            }
        }
        d.deserialize_map(V(self.0, self.1))
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

#[cfg(test)]
#[test]
fn the_capabilities_memo_shares_only_the_same_text() {
    let message = |caps: &str| {
        Bytes::from(alloc::format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{caps}}}}}}}"#
        ))
    };
    let mut memo = Memo::default();
    let read = |memo: &mut Memo, caps: &str| {
        let mut meta = RequestMeta::default();
        let read = parse(&message(caps), &mut meta, memo).is_some();
        read.then(|| meta.client_capabilities.clone())
    };
    let sampling = read(&mut memo, r#"{"sampling":{}}"#).unwrap();
    assert!(sampling.sampling() && !sampling.roots());
    let again = read(&mut memo, r#"{"sampling":{}}"#).unwrap();
    assert!(
        core::ptr::eq(sampling.as_map(), again.as_map()),
        "the same text is shared"
    );
    let roots = read(&mut memo, r#"{"roots":{}}"#).unwrap();
    assert!(roots.roots() && !roots.sampling());
    // Other text is read as strictly as before: a lone surrogate refuses
    // the message here (the general parser then decides it), and the memo
    // keeps the last object it read.
    assert!(read(&mut memo, r#"{"x":"\ud800"}"#).is_none());
    assert!(read(&mut memo, r#"[]"#).is_none());
    assert!(read(&mut memo, r#"{"roots":{}}"#).unwrap().roots());
}

#[cfg(test)]
#[test]
fn the_client_info_memo_answers_only_the_same_text() {
    let message = |info: &str| {
        Bytes::from(alloc::format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{info},"io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        ))
    };
    let mut memo = Memo::default();
    let read = |memo: &mut Memo, info: &str| {
        let mut meta = RequestMeta::default();
        let read = parse(&message(info), &mut meta, memo).is_some();
        read.then(|| meta.client_info.as_deref().cloned())
    };
    let a = r#"{"name":"a","version":"1"}"#;
    let named = |name: &str, version: &str| Some(Some(Implementation::new(name, version)));
    assert_eq!(read(&mut memo, a), named("a", "1"));
    assert_eq!(read(&mut memo, a), named("a", "1"), "the same text again");
    assert_eq!(
        read(&mut memo, r#"{"name":"b","version":"2"}"#),
        named("b", "2")
    );
    // Other text is read as strictly as before: a member the typed
    // parser does not read refuses the message (the general parser then
    // decides it), and a repeated one too.
    assert_eq!(
        read(&mut memo, r#"{"name":"a","version":"1","icons":[]}"#),
        None
    );
    assert_eq!(
        read(&mut memo, r#"{"name":"a","name":"a","version":"1"}"#),
        None
    );
    assert_eq!(
        read(&mut memo, r#"{"name":"\u00e9","version":"1"}"#),
        named("é", "1")
    );
}
