//! Header mirrors of Streamable HTTP that depend on the body
//! (`basic/transports/streamable-http.mdx` § Request Metadata):
//! `x-mcp-header` annotations on tool parameters, the Base64 sentinel
//! encoding of `Mcp-Name` / `Mcp-Param-*` values, and comparing a header
//! value with the body value it mirrors.
//!
//! The annotation rules are checked when a tool is registered (a tool
//! violating them is one clients must drop, so the server refuses to build
//! with it); the value rules run on every HTTP `tools/call`.

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde_json::{Map, Value};

/// The JSON type of an annotated parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// `"type": "string"`.
    String,
    /// `"type": "integer"`.
    Integer,
    /// `"type": "boolean"`.
    Boolean,
}

/// One `x-mcp-header` annotation of a tool's `inputSchema`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderParam {
    /// The annotation's value: the header is `Mcp-Param-{name}`.
    pub name: String,
    /// `mcp-param-{name}` lower-cased, for case-insensitive lookup.
    pub header_lower: String,
    /// The chain of `properties` keys leading to the parameter.
    pub path: Vec<String>,
    /// The parameter's type.
    pub kind: ParamKind,
}

/// RFC 9110 `tchar`.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Collect and validate the `x-mcp-header` annotations of `schema`
/// (§ Schema Extension): non-empty `1*tchar`, case-insensitively unique,
/// only on `integer` / `string` / `boolean` properties, and only on
/// properties reachable from the root through `properties` keys alone.
pub fn scan(schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    if let Some(obj) = schema.as_object() {
        walk_properties(obj, &mut Vec::new(), &mut found)?;
    }
    let total = count_annotations(schema, false);
    if total != found.len() {
        return Err(String::from(
            "x-mcp-header may only annotate properties reachable from the root through properties keys",
        ));
    }
    for (i, a) in found.iter().enumerate() {
        if found[..i].iter().any(|b| b.header_lower == a.header_lower) {
            return Err(format!(
                "x-mcp-header {:?} is not case-insensitively unique",
                a.name
            ));
        }
    }
    Ok(found)
}

fn walk_properties(
    obj: &Map<String, Value>,
    path: &mut Vec<String>,
    found: &mut Vec<HeaderParam>,
) -> Result<(), String> {
    let Some(Value::Object(props)) = obj.get("properties") else {
        return Ok(());
    };
    for (key, sub) in props {
        let Some(sub) = sub.as_object() else { continue };
        path.push(key.clone());
        if let Some(annotation) = sub.get("x-mcp-header") {
            let name = annotation
                .as_str()
                .ok_or_else(|| format!("x-mcp-header on {} must be a string", path.join(".")))?;
            if name.is_empty() || !name.bytes().all(is_tchar) {
                return Err(format!(
                    "x-mcp-header {name:?} is not a non-empty HTTP token"
                ));
            }
            let kind = match sub.get("type").and_then(Value::as_str) {
                Some("string") => ParamKind::String,
                Some("integer") => ParamKind::Integer,
                Some("boolean") => ParamKind::Boolean,
                _ => {
                    return Err(format!(
                        "x-mcp-header {name:?} annotates {} which is not of type string, integer or boolean",
                        path.join(".")
                    ))
                }
            };
            found.push(HeaderParam {
                name: String::from(name),
                header_lower: format!("mcp-param-{}", name.to_ascii_lowercase()),
                path: path.clone(),
                kind,
            });
        }
        walk_properties(sub, path, found)?;
        path.pop();
    }
    Ok(())
}

/// Count `x-mcp-header` keywords anywhere in the schema (not property
/// names of a `properties` map that happen to be spelled so).
fn count_annotations(v: &Value, is_properties_map: bool) -> usize {
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, c)| {
                let own = usize::from(!is_properties_map && k == "x-mcp-header");
                own + count_annotations(c, !is_properties_map && k == "properties")
            })
            .sum(),
        Value::Array(a) => a.iter().map(|c| count_annotations(c, false)).sum(),
        _ => 0,
    }
}

/// Why a mirrored header value is refused (all answered `-32020`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueError {
    /// Characters outside visible ASCII, space and tab.
    InvalidCharacters,
    /// A `=?base64?…?=` value that is not strict Base64 of UTF-8.
    InvalidBase64,
}

/// Decode a header value that may use the Base64 sentinel (§ Value
/// Encoding). Optional whitespace around the value is not part of it
/// (RFC 9110 § 5.5). A value with only the prefix or only the suffix is
/// literal.
pub fn decode_value(raw: &[u8]) -> Result<String, ValueError> {
    decode_value_borrowed(raw).map(Cow::into_owned)
}

/// [`decode_value`], borrowing the value unless it was Base64-encoded.
pub fn decode_value_borrowed(raw: &[u8]) -> Result<Cow<'_, str>, ValueError> {
    let trimmed = trim_ows(raw);
    if !trimmed
        .iter()
        .all(|&b| b == b'\t' || (0x20..=0x7e).contains(&b))
    {
        return Err(ValueError::InvalidCharacters);
    }
    // Safe: checked ASCII above.
    let text = core::str::from_utf8(trimmed).map_err(|_| ValueError::InvalidCharacters)?;
    match text
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(encoded) => {
            let bytes = base64_decode_strict(encoded).ok_or(ValueError::InvalidBase64)?;
            String::from_utf8(bytes)
                .map(Cow::Owned)
                .map_err(|_| ValueError::InvalidBase64)
        }
        None => Ok(Cow::Borrowed(text)),
    }
}

/// Strip RFC 9110 optional whitespace (SP / HTAB) from both ends.
pub fn trim_ows(mut v: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = v {
        v = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = v {
        v = rest;
    }
    v
}

/// Standard-alphabet Base64 with mandatory padding; anything else (missing
/// padding, characters outside the alphabet, `=` before the end, non-zero
/// padding bits) is refused.
pub fn base64_decode_strict(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if b.len() % 4 != 0 {
        return None;
    }
    let pad = b.iter().rev().take_while(|&&c| c == b'=').count();
    if pad > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(b.len() / 4 * 3);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in &b[..b.len() - pad] {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    (acc == 0).then_some(out)
}

/// Encode a value for an `Mcp-Name` or `Mcp-Param-*` header (§ Value
/// Encoding, the client's side of [`decode_value`]): as-is when it is
/// visible ASCII with inner spaces only, else (non-ASCII, control
/// characters, leading or trailing whitespace, or a value that already
/// looks like the sentinel) `=?base64?…?=` of its UTF-8.
pub fn encode_value(value: &str) -> Cow<'_, str> {
    let b = value.as_bytes();
    let visible = b.iter().all(|&c| (0x20..=0x7e).contains(&c));
    let padded = b.first() == Some(&b' ') || b.last() == Some(&b' ');
    let sentinel = value.starts_with("=?base64?") && value.ends_with("?=");
    if visible && !padded && !sentinel {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(format!("=?base64?{}?=", base64_encode(b)))
    }
}

/// Standard-alphabet Base64 with padding (RFC 4648 § 4).
pub fn base64_encode(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &c)| acc | u32::from(c) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The argument value at `path`, if present and not `null`.
pub fn value_at<'a>(arguments: &'a Map<String, Value>, path: &[String]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let mut v = arguments.get(first)?;
    for key in rest {
        v = v.as_object()?.get(key)?;
    }
    (!v.is_null()).then_some(v)
}

/// Whether a decoded header value mirrors `body` (§ Server Validation).
///
/// The comparison follows the body value's own JSON type, the way a client
/// encodes it (§ Value Encoding: strings as-is, integers in decimal,
/// booleans `true`/`false`), not the type the schema declares: a body value
/// of the wrong type is then reported by schema validation as invalid
/// params, not as a header mismatch. Numbers compare numerically, so
/// `42.0` mirrors `42`.
pub fn mirrors(header: &str, body: &Value) -> bool {
    match body {
        Value::String(s) => header == s,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(n) => match (header.parse::<f64>(), n.as_f64()) {
            (Ok(h), Some(b)) => h.is_finite() && h == b,
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scans_valid_annotations() {
        let s = json!({"type":"object","properties":{
            "region":{"type":"string","x-mcp-header":"Region"},
            "opts":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}},
            "x-mcp-header":{"type":"string"}
        }});
        let found = scan(&s).unwrap();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].header_lower, "mcp-param-n");
        assert_eq!(found[0].path, ["opts", "n"]);
        assert_eq!(found[1].header_lower, "mcp-param-region");
        assert_eq!(found[1].kind, ParamKind::String);
    }

    #[test]
    fn refuses_invalid_annotations() {
        for s in [
            json!({"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}),
            json!({"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}),
            json!({"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A B"}}}),
            json!({"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A\r\n"}}}),
            json!({"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"a"}}}),
            json!({"type":"object","properties":{"a":{"type":"array","items":{"type":"string","x-mcp-header":"A"}}}}),
            json!({"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}),
            json!({"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"A"}}}),
        ] {
            assert!(scan(&s).is_err(), "{s}");
        }
    }

    #[test]
    fn decodes_sentinel_values_strictly() {
        assert_eq!(
            decode_value(b"=?base64?SGVsbG8=?="),
            Ok(String::from("Hello"))
        );
        assert_eq!(decode_value(b"  us-west1 \t"), Ok(String::from("us-west1")));
        assert_eq!(
            decode_value(b"=?base64?SGVsbG8?="),
            Err(ValueError::InvalidBase64)
        );
        assert_eq!(
            decode_value(b"=?base64?SGVs!!!bG8=?="),
            Err(ValueError::InvalidBase64)
        );
        assert_eq!(
            decode_value(b"=?base64?SGVsbG8="),
            Ok(String::from("=?base64?SGVsbG8="))
        );
        assert_eq!(decode_value(b"SGVsbG8=?="), Ok(String::from("SGVsbG8=?=")));
        assert_eq!(
            decode_value(b"caf\xc3\xa9"),
            Err(ValueError::InvalidCharacters)
        );
        assert_eq!(
            decode_value(b"=?base64?SGVsbG8sIOS4lueVjA==?="),
            Ok(String::from("Hello, 世界"))
        );
        assert_eq!(
            decode_value(b"=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
            Ok(String::from("=?base64?literal?="))
        );
    }

    #[test]
    fn encodes_values_as_the_spec_table_shows() {
        // § Value Encoding, the encoding examples table.
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(encode_value("us west 1"), "us west 1");
        assert_eq!(
            encode_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            encode_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(encode_value("\tindented"), "=?base64?CWluZGVudGVk?=");
        assert_eq!(encode_value(""), "");
        assert_eq!(base64_encode(b"A"), "QQ==");
        assert_eq!(base64_encode(b"AB"), "QUI=");
        assert_eq!(base64_encode(b"ABC"), "QUJD");
    }

    #[test]
    fn base64_edge_cases() {
        assert_eq!(base64_decode_strict(""), Some(Vec::new()));
        assert_eq!(base64_decode_strict("QQ=="), Some(alloc::vec![b'A']));
        assert_eq!(base64_decode_strict("QR=="), None, "non-zero padding bits");
        assert_eq!(base64_decode_strict("Q==="), None);
        assert_eq!(base64_decode_strict("QQ=A"), None);
        assert_eq!(
            base64_decode_strict("QQ==QQ=="),
            None,
            "padding only at the end"
        );
    }

    #[test]
    fn numeric_and_boolean_mirrors() {
        assert!(mirrors("42.0", &json!(42)));
        assert!(!mirrors("43", &json!(42)));
        assert!(!mirrors("NaN", &json!(42)));
        assert!(mirrors("false", &json!(false)));
        assert!(!mirrors("False", &json!(false)));
        assert!(mirrors("42", &json!(42)), "typed by the body value");
        assert!(!mirrors("x", &json!({"a": 1})));
    }
}
