//! Claims both validators read the same way.

use serde_json::Value;

/// The audiences an `aud` claim names: one string or an array of them
/// (RFC 7519 § 4.1.3; RFC 7662 § 2.2 uses the same form). The validators
/// hand them to [`Principal::audience`](snodo_proto::Principal::audience),
/// which proto holds to the resource's canonical URI.
pub(crate) fn audiences(aud: Option<&Value>) -> Result<Vec<String>, &'static str> {
    match aud {
        Some(Value::String(a)) => Ok(vec![a.clone()]),
        Some(Value::Array(list)) => list
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or("The token's aud is not a list of strings"),
        Some(_) => Err("The token's aud is not a list of strings"),
        None => Err("The token has no audience"),
    }
}
