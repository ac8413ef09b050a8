//! Shaping results: the members every 2026-07-28 result carries besides
//! what the handler produced.
//!
//! - `resultType: "complete"` on every final result (`schema.ts` Result:
//!   "Servers implementing this protocol version MUST include this field").
//! - `_meta["io.modelcontextprotocol/serverInfo"]` unless configured off
//!   (`schema.ts` ResultMetaObject), merged with any `_meta` the handler set.
//! - `ttlMs` and `cacheScope` on the cacheable results
//!   (`server/utilities/caching.mdx` § Cacheable Results).

use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{Map, Value};

use crate::error::ErrorObject;
use crate::model::{
    CacheHint, CacheScope, CallToolResult, Content, ReadResourceResult, ResourceContents,
};
use crate::registry::ToolEntry;

/// The server's `_meta` for every result, with its JSON written once when
/// the service is built: the hot results copy the bytes instead of
/// serializing the map per request. Read as the map everywhere else.
#[derive(Clone, Debug, Default)]
pub(crate) struct ServerMeta {
    map: Map<String, Value>,
    json: Vec<u8>,
}

impl ServerMeta {
    pub(crate) fn new(map: Map<String, Value>) -> Self {
        let mut json = Vec::new();
        crate::json::write(&mut json, &map);
        ServerMeta { map, json }
    }
}

impl core::ops::Deref for ServerMeta {
    type Target = Map<String, Value>;

    fn deref(&self) -> &Map<String, Value> {
        &self.map
    }
}

/// Shape `result` (an object) as a complete result and serialize it.
pub fn complete(
    result: Value,
    cache: Option<CacheHint>,
    server_meta: &Map<String, Value>,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    write_complete(&mut out, result, cache, server_meta);
    out
}

/// [`complete`], appended to `out`.
pub fn write_complete(
    out: &mut Vec<u8>,
    result: Value,
    cache: Option<CacheHint>,
    server_meta: &Map<String, Value>,
) {
    let mut obj = match result {
        Value::Object(o) => o,
        other => {
            // Handler result types always serialize to objects; keep the
            // wire valid if a foreign one does not.
            let mut m = Map::new();
            m.insert(String::from("value"), other);
            m
        }
    };
    if write_merged(out, &obj, cache, server_meta) {
        return;
    }
    obj.insert(
        String::from("resultType"),
        Value::String(String::from("complete")),
    );
    if let Some(hint) = cache {
        obj.insert(String::from("ttlMs"), Value::from(hint.ttl_ms));
        let scope = match hint.scope {
            CacheScope::Public => "public",
            CacheScope::Private => "private",
        };
        obj.insert(
            String::from("cacheScope"),
            Value::String(String::from(scope)),
        );
    }
    if !server_meta.is_empty() {
        match obj.get_mut("_meta") {
            Some(Value::Object(m)) => {
                for (k, v) in server_meta {
                    m.insert(k.clone(), v.clone());
                }
            }
            _ => {
                obj.insert(String::from("_meta"), Value::Object(server_meta.clone()));
            }
        }
    }
    crate::json::write(out, &obj);
}

/// The members this module adds, in key order.
const ADDED: [&str; 4] = ["_meta", "cacheScope", "resultType", "ttlMs"];

/// The same bytes as inserting the added members and serializing the map,
/// written without building them (no copy of the server's `_meta`, no
/// key or value strings): the result's members and the added ones merged
/// in key order, appended to `out`. `false` (nothing written) when the
/// map is not in key order or already has one of the added members (a
/// handler `_meta` to merge): the caller then builds the map.
fn write_merged(
    out: &mut Vec<u8>,
    obj: &Map<String, Value>,
    cache: Option<CacheHint>,
    server_meta: &Map<String, Value>,
) -> bool {
    if ADDED.iter().any(|k| obj.contains_key(*k)) || !obj.keys().is_sorted() {
        return false;
    }
    let mut first = true;
    let mut separator = |out: &mut Vec<u8>| {
        if !first {
            out.push(b',');
        }
        first = false;
    };
    let mut added = ADDED.iter().copied().peekable();
    let write_added = |out: &mut Vec<u8>, key: &str, sep: &mut dyn FnMut(&mut Vec<u8>)| match key {
        "_meta" if !server_meta.is_empty() => {
            sep(out);
            out.extend_from_slice(br#""_meta":"#);
            crate::json::write(out, server_meta);
        }
        "cacheScope" => {
            if let Some(hint) = cache {
                sep(out);
                out.extend_from_slice(match hint.scope {
                    CacheScope::Public => br#""cacheScope":"public""#,
                    CacheScope::Private => br#""cacheScope":"private""#,
                });
            }
        }
        "resultType" => {
            sep(out);
            out.extend_from_slice(br#""resultType":"complete""#);
        }
        "ttlMs" => {
            if let Some(hint) = cache {
                sep(out);
                out.extend_from_slice(br#""ttlMs":"#);
                crate::json::write(out, &hint.ttl_ms);
            }
        }
        _ => {}
    };
    out.push(b'{');
    for (k, v) in obj {
        while let Some(a) = added.next_if(|a| *a < k.as_str()) {
            write_added(out, a, &mut separator);
        }
        separator(out);
        crate::json::write(out, k.as_str());
        out.push(b':');
        crate::json::write(out, v);
    }
    for a in added {
        write_added(out, a, &mut separator);
    }
    out.push(b'}');
    true
}

/// Whether `serde_json::Map` keeps its keys sorted in this build (it does
/// unless some crate turned on serde_json's `preserve_order`): the
/// direct writer below writes members in key order, as a sorted map does.
fn maps_are_sorted() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    static SORTED: AtomicU8 = AtomicU8::new(0);
    match SORTED.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let mut m = Map::new();
            m.insert(String::from("b"), Value::Null);
            m.insert(String::from("a"), Value::Null);
            let sorted = m.keys().next().map(String::as_str) == Some("a");
            SORTED.store(if sorted { 1 } else { 2 }, Ordering::Relaxed);
            sorted
        }
    }
}

/// A `resources/read` result shaped with cache hint `hint` and
/// serialized, appended to `out`: the same bytes as [`complete`] of the
/// result's `Value`, written straight from the result when neither it nor
/// any of its contents has a `_meta` (the common case). Anything else
/// takes the general path.
pub fn write_read_result(
    out: &mut Vec<u8>,
    r: &ReadResourceResult,
    hint: CacheHint,
    server_meta: &Map<String, Value>,
) {
    let plain = maps_are_sorted()
        && r.meta.is_none()
        && r.contents.iter().all(|c| match c {
            ResourceContents::Text { meta, .. } | ResourceContents::Blob { meta, .. } => {
                meta.is_none()
            }
        });
    if !plain {
        let value = serde_json::to_value(r).unwrap_or(Value::Null);
        return write_complete(out, value, Some(hint), server_meta);
    }
    // Members in key order, as a serialized map writes them: _meta,
    // cacheScope, contents, resultType, ttlMs; in each content blob or
    // mimeType, text, uri.
    out.push(b'{');
    if !server_meta.is_empty() {
        out.extend_from_slice(br#""_meta":"#);
        crate::json::write(out, server_meta);
        out.push(b',');
    }
    out.extend_from_slice(match hint.scope {
        CacheScope::Public => br#""cacheScope":"public","contents":["#,
        CacheScope::Private => br#""cacheScope":"private","contents":["#,
    });
    for (i, c) in r.contents.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let (uri, mime_type, member, data) = match c {
            ResourceContents::Text {
                uri,
                mime_type,
                text,
                ..
            } => (uri, mime_type, "text", text),
            ResourceContents::Blob {
                uri,
                mime_type,
                blob,
                ..
            } => (uri, mime_type, "blob", blob),
        };
        out.push(b'{');
        if member == "blob" {
            out.extend_from_slice(br#""blob":"#);
            crate::json::write(out, data.as_str());
            out.push(b',');
        }
        if let Some(m) = mime_type {
            out.extend_from_slice(br#""mimeType":"#);
            crate::json::write(out, m.as_str());
            out.push(b',');
        }
        if member == "text" {
            out.extend_from_slice(br#""text":"#);
            crate::json::write(out, data.as_str());
            out.push(b',');
        }
        out.extend_from_slice(br#""uri":"#);
        crate::json::write(out, uri.as_str());
        out.push(b'}');
    }
    out.extend_from_slice(br#"],"resultType":"complete","ttlMs":"#);
    crate::json::write(out, &hint.ttl_ms);
    out.push(b'}');
}

/// A tool's result as the answer to `tools/call`: checked against the
/// tool's `outputSchema` unless it is an error result (`server/tools.mdx`
/// § Output Schema: servers MUST provide structured results that conform
/// to it), then shaped. A result that does not conform is the server's
/// fault: `-32603`, and the reason is logged, not sent.
pub(crate) fn checked_tool_result(
    tool: Option<&ToolEntry>,
    r: &CallToolResult,
    server_meta: &ServerMeta,
) -> Result<Vec<u8>, ErrorObject> {
    let mut out = Vec::new();
    write_checked_tool_result(&mut out, tool, r, server_meta)?;
    Ok(out)
}

/// [`checked_tool_result`], appended to `out`.
pub(crate) fn write_checked_tool_result(
    out: &mut Vec<u8>,
    tool: Option<&ToolEntry>,
    r: &CallToolResult,
    server_meta: &ServerMeta,
) -> Result<(), ErrorObject> {
    #[cfg(feature = "std")]
    if let Some(schema) = tool.and_then(|t| t.output.as_ref()) {
        if r.is_error != Some(true) {
            let valid = match &r.structured_content {
                Some(sc) => schema.validate(sc).map_err(|why| {
                    tracing::error!(%why, "tool result does not match its outputSchema");
                }),
                None => {
                    tracing::error!("tool with an outputSchema returned no structuredContent");
                    Err(())
                }
            };
            if valid.is_err() {
                return Err(ErrorObject::internal(
                    "Tool returned structured content that does not match its outputSchema",
                ));
            }
        }
    }
    #[cfg(not(feature = "std"))]
    let _ = tool;
    write_tool_result(out, r, server_meta);
    Ok(())
}

/// A `tools/call` result shaped and serialized, appended to `out`: the
/// same bytes as [`complete`] of the result's `Value`, written straight from the
/// result when it holds only plain text blocks (no annotations or block
/// `_meta`) and no `_meta` of its own, the common case: no `Value` tree
/// of the result is built. Anything else takes the general path.
pub(crate) fn write_tool_result(out: &mut Vec<u8>, r: &CallToolResult, server_meta: &ServerMeta) {
    let plain = maps_are_sorted()
        && r.meta.is_none()
        && r.content
            .iter()
            .all(|c| matches!(c, Content::Text(t) if t.annotations.is_none() && t.meta.is_none()));
    if !plain {
        return write_complete(
            out,
            serde_json::to_value(r).unwrap_or(Value::Null),
            None,
            server_meta,
        );
    }
    // Members in key order, as a serialized map writes them:
    // _meta, content, isError, resultType, structuredContent. Room for
    // the usual server `_meta` and the texts, so the buffer rarely grows.
    let texts: usize = r
        .content
        .iter()
        .map(|c| match c {
            Content::Text(t) => t.text.len() + 32,
            _ => 0,
        })
        .sum();
    out.reserve(256 + texts);
    out.push(b'{');
    if !server_meta.is_empty() {
        out.extend_from_slice(br#""_meta":"#);
        out.extend_from_slice(&server_meta.json);
        out.push(b',');
    }
    out.extend_from_slice(br#""content":["#);
    for (i, c) in r.content.iter().enumerate() {
        if let Content::Text(t) = c {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(br#"{"text":"#);
            crate::json::write(out, t.text.as_str());
            out.extend_from_slice(br#","type":"text"}"#);
        }
    }
    out.push(b']');
    if let Some(e) = r.is_error {
        out.extend_from_slice(if e {
            br#","isError":true"#
        } else {
            br#","isError":false"#
        });
    }
    out.extend_from_slice(br#","resultType":"complete""#);
    if let Some(sc) = &r.structured_content {
        out.extend_from_slice(br#","structuredContent":"#);
        crate::json::write(out, sc);
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    /// What `complete` wrote before the merged writer: insert, then serialize.
    fn built(result: Value, cache: Option<CacheHint>, server_meta: &Map<String, Value>) -> Vec<u8> {
        let mut obj = object(result);
        obj.insert(String::from("resultType"), json!("complete"));
        if let Some(hint) = cache {
            obj.insert(String::from("ttlMs"), json!(hint.ttl_ms));
            let scope = match hint.scope {
                CacheScope::Public => "public",
                CacheScope::Private => "private",
            };
            obj.insert(String::from("cacheScope"), json!(scope));
        }
        if !server_meta.is_empty() {
            obj.insert(String::from("_meta"), Value::Object(server_meta.clone()));
        }
        serde_json::to_vec(&obj).unwrap()
    }

    #[test]
    fn merged_members_come_out_in_key_order() {
        let meta =
            object(json!({"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}));
        let hint = Some(CacheHint {
            ttl_ms: 5000,
            scope: CacheScope::Public,
        });
        assert_eq!(
            complete(json!({"contents": [{"uri": "a:b", "text": "x"}], "zz": 1}), hint, &meta),
            br#"{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}},"cacheScope":"public","contents":[{"text":"x","uri":"a:b"}],"resultType":"complete","ttlMs":5000,"zz":1}"#
        );
        assert_eq!(
            complete(json!({}), None, &Map::new()),
            br#"{"resultType":"complete"}"#
        );
        assert_eq!(
            complete(json!("bare"), None, &Map::new()),
            br#"{"resultType":"complete","value":"bare"}"#
        );
    }

    #[test]
    fn merged_and_built_shapes_are_the_same_bytes() {
        let meta =
            object(json!({"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}));
        let hints = [
            None,
            Some(CacheHint {
                ttl_ms: 0,
                scope: CacheScope::Private,
            }),
        ];
        let results = [
            json!({"content": [{"type": "text", "text": "hi"}], "isError": true}),
            json!({"a": 1, "cacheScop": 2, "resultTypf": 3, "ttlMr": 4, "~": 5}),
            json!({"messages": [], "description": "d"}),
        ];
        for result in results {
            for hint in hints {
                for m in [&meta, &Map::new()] {
                    assert_eq!(
                        complete(result.clone(), hint, m),
                        built(result.clone(), hint, m),
                        "{result} {hint:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn read_results_written_directly_are_the_general_bytes() {
        let meta =
            object(json!({"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}));
        let blob = |uri: &str, mime: Option<&str>| ResourceContents::Blob {
            uri: String::from(uri),
            mime_type: mime.map(String::from),
            blob: String::from("AAAA"),
            meta: None,
        };
        let results = [
            ReadResourceResult::new(alloc::vec![ResourceContents::text(
                "file:///readme.txt",
                "text/plain",
                "hello, world"
            )]),
            ReadResourceResult::new(alloc::vec![
                ResourceContents::Text {
                    uri: String::from("a:\"b\"\n"),
                    mime_type: None,
                    text: String::from("esc \" \\ \n \u{1} é 😀"),
                    meta: None,
                },
                blob("x:y", Some("image/png")),
                blob("x:z", None),
            ]),
            ReadResourceResult::new(alloc::vec![]),
            // The general path: a result `_meta`, a content `_meta`.
            ReadResourceResult {
                meta: Some(object(json!({"mine": 1}))),
                ..ReadResourceResult::new(alloc::vec![blob("x:y", None)])
            },
            ReadResourceResult::new(alloc::vec![ResourceContents::Text {
                uri: String::from("u:v"),
                mime_type: None,
                text: String::new(),
                meta: Some(object(json!({"k": "v"}))),
            }]),
        ];
        let hints = [
            CacheHint {
                ttl_ms: 0,
                scope: CacheScope::Private,
            },
            CacheHint {
                ttl_ms: u64::MAX,
                scope: CacheScope::Public,
            },
        ];
        for r in &results {
            for hint in hints {
                for m in [&meta, &Map::new()] {
                    let mut direct = Vec::new();
                    write_read_result(&mut direct, r, hint, m);
                    let general = complete(serde_json::to_value(r).unwrap(), Some(hint), m);
                    assert_eq!(
                        String::from_utf8(direct).unwrap(),
                        String::from_utf8(general).unwrap(),
                        "{r:?} {hint:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_handler_meta_is_still_merged() {
        let meta =
            object(json!({"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}));
        assert_eq!(
            complete(json!({"_meta": {"mine": 1}, "content": []}), None, &meta),
            br#"{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"},"mine":1},"content":[],"resultType":"complete"}"#
        );
    }

    #[test]
    fn tool_results_written_directly_are_the_general_bytes() {
        use crate::model::{Annotations, TextContent};
        let meta =
            object(json!({"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}));
        let text = |s: &str| Content::text(s);
        let mut results = alloc::vec![
            CallToolResult::text("hello, world"),
            CallToolResult::text("esc \" \\ \n \u{1} é 😀"),
            CallToolResult::error("it broke"),
            CallToolResult::default(),
            CallToolResult {
                content: alloc::vec![text("a"), text("b"), text("")],
                structured_content: Some(json!({"z": [1, 2.5, null], "a": {"y": true, "b": "c"}})),
                is_error: Some(false),
                meta: None,
            },
            // The general path: a block with annotations, a result `_meta`,
            // a non-text block.
            CallToolResult {
                content: alloc::vec![Content::Text(TextContent {
                    text: String::from("t"),
                    annotations: Some(Annotations::default()),
                    meta: None,
                })],
                ..CallToolResult::default()
            },
            CallToolResult {
                content: alloc::vec![text("t")],
                meta: Some(object(json!({"mine": 1}))),
                ..CallToolResult::default()
            },
            CallToolResult {
                content: alloc::vec![Content::image("AAAA", "image/png"), text("x")],
                ..CallToolResult::default()
            },
        ];
        results.push(CallToolResult {
            structured_content: Some(json!("bare")),
            ..CallToolResult::text("s")
        });
        for r in &results {
            for m in [&ServerMeta::new(meta.clone()), &ServerMeta::default()] {
                assert_eq!(
                    String::from_utf8({
                        let mut out = Vec::new();
                        write_tool_result(&mut out, r, m);
                        out
                    })
                    .unwrap(),
                    String::from_utf8(complete(serde_json::to_value(r).unwrap(), None, m)).unwrap(),
                    "{r:?}"
                );
            }
        }
    }
}
