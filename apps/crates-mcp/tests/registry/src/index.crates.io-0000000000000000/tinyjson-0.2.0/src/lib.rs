//! A tiny JSON parser.

pub mod de;

/// A parsed JSON value.
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
}

/// Parse `input`.
pub fn parse(input: &str) -> Option<Value> {
    de::Deserializer::new(input).value()
}

/// Write `value` as JSON text into `out`.
pub fn to_writer(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(&b.to_string()),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::Text(t) => out.push_str(&format!("{t:?}")),
    }
}
