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
    write_object(&mut text, params, |k| !EXCLUDED.contains(&k));
    Sha256::digest(&text).into()
}

/// An object with its members sorted by key. serde_json's default map
/// already iterates in key order, so the members are only collected and
/// sorted when it does not (its `preserve_order` feature).
fn write_object(out: &mut Vec<u8>, m: &Map<String, Value>, keep: impl Fn(&str) -> bool) {
    out.push(b'{');
    let mut first = true;
    let mut member = |out: &mut Vec<u8>, k: &String, v: &Value| {
        if !keep(k) {
            return;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        write_string(out, k);
        out.push(b':');
        write(out, v);
    };
    if m.keys().is_sorted() {
        for (k, v) in m {
            member(out, k, v);
        }
    } else {
        let mut members: Vec<(&String, &Value)> = m.iter().collect();
        members.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for (k, v) in members {
            member(out, k, v);
        }
    }
    out.push(b'}');
}

fn write(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Object(m) => write_object(out, m, |_| true),
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
