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

use crate::model::{CacheHint, CacheScope};

/// Shape `result` (an object) as a complete result and serialize it.
pub fn complete(
    result: Value,
    cache: Option<CacheHint>,
    server_meta: &Map<String, Value>,
) -> Vec<u8> {
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
    let mut out = Vec::with_capacity(128);
    crate::json::write(&mut out, &obj);
    out
}
