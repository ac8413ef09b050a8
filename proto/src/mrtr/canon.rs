//! The digest that ties a `requestState` to the request it was issued for
//! (`basic/patterns/mrtr.mdx` § Server Requirements 5: "an identifier for
//! the originating request, e.g. the method name and a digest of its
//! salient parameters").
//!
//! The digest covers every param except the three that legitimately change
//! between rounds: `_meta`, `inputResponses` and `requestState`. It is
//! SHA-256 over a canonical JSON text (object keys sorted, no whitespace),
//! written here rather than by `serde_json` so that it does not depend on
//! how `serde_json::Map` is ordered in a given build.

use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Params that change between rounds and are left out of the digest.
const EXCLUDED: [&str; 3] = ["_meta", "inputResponses", "requestState"];

/// SHA-256 of the canonical JSON of `params` without the excluded members.
pub(crate) fn params_digest(params: &Map<String, Value>) -> [u8; 32] {
    let mut text = Vec::with_capacity(128);
    let mut keys: Vec<&String> = params
        .keys()
        .filter(|k| !EXCLUDED.contains(&k.as_str()))
        .collect();
    keys.sort_unstable();
    text.push(b'{');
    for (i, k) in keys.into_iter().enumerate() {
        if i > 0 {
            text.push(b',');
        }
        write_string(&mut text, k);
        text.push(b':');
        write(&mut text, &params[k.as_str()]);
    }
    text.push(b'}');
    Sha256::digest(&text).into()
}

fn write(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_unstable();
            out.push(b'{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(out, k);
                out.push(b':');
                write(out, &m[k.as_str()]);
            }
            out.push(b'}');
        }
        Value::Array(a) => {
            out.push(b'[');
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(out, item);
            }
            out.push(b']');
        }
        // Scalars have one serde_json text each.
        scalar => crate::json::write(out, scalar),
    }
}

fn write_string(out: &mut Vec<u8>, s: &str) {
    crate::json::write(out, s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn round_trip_members_do_not_count_and_key_order_does_not_matter() {
        let a = map(json!({"name": "t", "arguments": {"b": 1, "a": [true, null, "x"]}}));
        let b = map(json!({
            "arguments": {"a": [true, null, "x"], "b": 1},
            "name": "t",
            "_meta": {"progressToken": 1},
            "inputResponses": {"k": {"action": "accept"}},
            "requestState": "v1.x"
        }));
        assert_eq!(params_digest(&a), params_digest(&b));
    }

    #[test]
    fn any_other_change_does() {
        let a = map(json!({"name": "t", "arguments": {"n": 1}}));
        for other in [
            json!({"name": "u", "arguments": {"n": 1}}),
            json!({"name": "t", "arguments": {"n": 2}}),
            json!({"name": "t", "arguments": {"n": 1}, "extra": true}),
            json!({"name": "t"}),
        ] {
            assert_ne!(params_digest(&a), params_digest(&map(other)));
        }
    }

    #[test]
    fn canonical_text_is_the_sorted_compact_form() {
        let mut out = Vec::new();
        write(&mut out, &json!({"z": 1.5, "a": {"y": "\"q\"", "b": []}}));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"a":{"b":[],"y":"\"q\""},"z":1.5}"#
        );
    }
}
