//! Results and errors as the initialize-era revisions shape them.
//!
//! The core shapes every answer for 2026-07-28 (`shape.rs`); a session
//! answer is the same answer without what that revision added:
//! `resultType`, the caching hints `ttlMs` / `cacheScope`, and the
//! server's identity in `_meta` (it was given once, in `initialize`). The
//! resource-not-found error keeps its older code, `-32002`.

use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{Map, Value};

use super::code;
use crate::error::ErrorObject;
use crate::meta::KEY_SERVER_INFO;

/// `result` (a serialized 2026-07-28 result object) for a session.
pub(crate) fn result(result: &[u8]) -> Vec<u8> {
    let Ok(mut obj) = serde_json::from_slice::<Map<String, Value>>(result) else {
        return result.to_vec();
    };
    obj.remove("resultType");
    obj.remove("ttlMs");
    obj.remove("cacheScope");
    let empty_meta = match obj.get_mut("_meta") {
        Some(Value::Object(m)) => {
            m.remove(KEY_SERVER_INFO);
            m.is_empty()
        }
        _ => false,
    };
    if empty_meta {
        obj.remove("_meta");
    }
    let mut out = Vec::with_capacity(result.len());
    crate::json::write(&mut out, &obj);
    out
}

/// `error` for a session.
pub(crate) fn error(mut error: ErrorObject) -> ErrorObject {
    // `mcp-2025-11-25/server/resources.mdx` § Error Handling.
    if error.code == crate::error::code::INVALID_PARAMS
        && error.message == "Resource not found"
        && error.data.as_ref().is_some_and(|d| d.get("uri").is_some())
    {
        error.code = code::RESOURCE_NOT_FOUND;
    }
    error
}
