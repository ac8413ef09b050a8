//! The checks an input request passes before it leaves the server, on
//! either path (inline in an `InputRequiredResult`, or a session's
//! server-to-client request): the capabilities it needs
//! (`basic/patterns/mrtr.mdx` § Server Requirements, rule 7), what the
//! spec requires of its params beyond their types, and what it is
//! answered as once issued.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use serde_json::{Map, Value};

use super::elicit::ElicitRequest;
use super::request::InputRequest;
use super::sampling::IncludeContext;
use super::seal::Issued;
use crate::error::ErrorObject;
use crate::meta::ClientCapabilities;

/// A handler's unusable `InputRequired`: logged, and answered as an
/// internal error (the client did nothing wrong).
pub(super) fn bug(why: &str) -> ErrorObject {
    tracing::error!(%why, "a handler returned an unusable InputRequired");
    ErrorObject::internal("Internal error")
}

pub(super) fn issued_kind(request: &InputRequest) -> Issued {
    match request {
        InputRequest::Elicit(ElicitRequest::Form {
            requested_schema, ..
        }) => Issued::Elicit(Some(requested_schema.clone())),
        InputRequest::Elicit(ElicitRequest::Url { .. }) => Issued::Elicit(None),
        InputRequest::Sample(_) => Issued::Sample,
        InputRequest::ListRoots => Issued::Roots,
    }
}

/// The `ClientCapabilities` object of everything `requests` need that
/// `caps` lacks (empty when nothing is missing).
pub(super) fn missing_capabilities(
    requests: &BTreeMap<String, InputRequest>,
    caps: &ClientCapabilities,
) -> Map<String, Value> {
    let mut required = Map::new();
    let mut need = |cap: &str, sub: Option<&str>| {
        let entry = required
            .entry(String::from(cap))
            .or_insert_with(|| Value::Object(Map::new()));
        if let (Some(sub), Value::Object(m)) = (sub, entry) {
            m.insert(String::from(sub), Value::Object(Map::new()));
        }
    };
    let sampling_context = caps
        .as_map()
        .get("sampling")
        .and_then(Value::as_object)
        .is_some_and(|s| s.contains_key("context"));
    for request in requests.values() {
        match request {
            InputRequest::Elicit(ElicitRequest::Form { .. }) if !caps.elicitation_form() => {
                need("elicitation", Some("form"))
            }
            InputRequest::Elicit(ElicitRequest::Url { .. }) if !caps.elicitation_url() => {
                need("elicitation", Some("url"))
            }
            InputRequest::Elicit(_) => {}
            InputRequest::Sample(c) => {
                if !caps.sampling() {
                    need("sampling", None);
                }
                if c.uses_tools() && !caps.sampling_tools() {
                    need("sampling", Some("tools"));
                }
                let deprecated_context = matches!(
                    c.include_context,
                    Some(IncludeContext::ThisServer | IncludeContext::AllServers)
                );
                if deprecated_context && !sampling_context {
                    need("sampling", Some("context"));
                }
            }
            InputRequest::ListRoots if !caps.roots() => need("roots", None),
            InputRequest::ListRoots => {}
        }
    }
    required
}

/// What the spec requires of each request's params beyond their types.
pub(super) fn check(request: &InputRequest) -> Result<(), String> {
    match request {
        InputRequest::Elicit(ElicitRequest::Form {
            requested_schema, ..
        }) => check_form_schema(requested_schema),
        InputRequest::Elicit(ElicitRequest::Url { url, .. }) => {
            if is_url(url) {
                Ok(())
            } else {
                Err(format!("url {url:?} is not a URL"))
            }
        }
        InputRequest::Sample(_) | InputRequest::ListRoots => Ok(()),
    }
}

/// `client/elicitation.mdx` § Requested Schema: a flat object whose
/// properties are strings, numbers, integers, booleans or enums (single or
/// multi-select).
fn check_form_schema(schema: &Value) -> Result<(), String> {
    let obj = schema
        .as_object()
        .ok_or("requestedSchema must be an object")?;
    if obj.get("type").and_then(Value::as_str) != Some("object") {
        return Err(String::from(
            "requestedSchema must have \"type\": \"object\"",
        ));
    }
    let props = obj
        .get("properties")
        .and_then(Value::as_object)
        .ok_or("requestedSchema must have an object of properties")?;
    for (name, p) in props {
        let flat = match p.get("type").and_then(Value::as_str) {
            Some("string" | "number" | "integer" | "boolean") => true,
            Some("array") => p
                .get("items")
                .and_then(Value::as_object)
                .is_some_and(|i| i.contains_key("enum") || i.contains_key("anyOf")),
            _ => false,
        };
        if !flat {
            return Err(format!(
                "property {name:?} of requestedSchema is not a primitive or an enum"
            ));
        }
    }
    match obj.get("required") {
        None => {}
        Some(Value::Array(a)) if a.iter().all(Value::is_string) => {}
        Some(_) => return Err(String::from("required must be an array of strings")),
    }
    #[cfg(feature = "std")]
    crate::schema::Compiled::new(schema)?;
    Ok(())
}

/// An absolute URI: a scheme (RFC 3986 § 3.1), a colon, something after
/// it, and no whitespace.
fn is_url(url: &str) -> bool {
    let Some((scheme, rest)) = url.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !url.chars().any(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;
    use serde_json::json;

    fn caps(v: Value) -> ClientCapabilities {
        match v {
            Value::Object(m) => ClientCapabilities::from(m),
            _ => unreachable!(),
        }
    }

    fn requests(list: Vec<(&str, InputRequest)>) -> BTreeMap<String, InputRequest> {
        list.into_iter()
            .map(|(k, r)| (String::from(k), r))
            .collect()
    }

    #[test]
    fn missing_capabilities_name_exactly_what_is_missing() {
        let form = InputRequest::Elicit(ElicitRequest::form(
            "m",
            json!({"type":"object","properties":{}}),
        ));
        let url = InputRequest::Elicit(ElicitRequest::url("m", "https://example.com"));
        let mut tool_sampling = super::super::sampling::CreateMessageRequest::user_text("x", 1);
        tool_sampling.tools = Some(Vec::new());
        let all = requests(vec![
            ("a", form.clone()),
            ("b", url.clone()),
            ("c", InputRequest::Sample(tool_sampling)),
            ("d", InputRequest::ListRoots),
        ]);
        assert_eq!(
            Value::Object(missing_capabilities(&all, &caps(json!({})))),
            json!({"elicitation":{"form":{},"url":{}},"sampling":{"tools":{}},"roots":{}})
        );
        assert_eq!(
            Value::Object(missing_capabilities(
                &all,
                &caps(json!({"elicitation":{},"sampling":{},"roots":{}}))
            )),
            json!({"elicitation":{"url":{}},"sampling":{"tools":{}}})
        );
        assert!(missing_capabilities(
            &all,
            &caps(json!({"elicitation":{"form":{},"url":{}},"sampling":{"tools":{}},"roots":{}}))
        )
        .is_empty());
        assert_eq!(
            Value::Object(missing_capabilities(
                &requests(vec![("a", form)]),
                &caps(json!({"elicitation":{"url":{}}}))
            )),
            json!({"elicitation":{"form":{}}})
        );
    }

    #[test]
    fn form_schemas_must_be_flat() {
        assert!(check_form_schema(
            &json!({"type":"object","properties":{"n":{"type":"string"}},"required":["n"]})
        )
        .is_ok());
        assert!(check_form_schema(
            &json!({"type":"object","properties":{"c":{"type":"array","items":{"enum":["a"]}}}})
        )
        .is_ok());
        assert!(
            check_form_schema(&json!({"type":"object","properties":{"o":{"type":"object"}}}))
                .is_err()
        );
        assert!(check_form_schema(&json!({"type":"string"})).is_err());
        assert!(check_form_schema(&json!({"type":"object"})).is_err());
        assert!(
            check_form_schema(&json!({"type":"object","properties":{},"required":"x"})).is_err()
        );
    }

    #[test]
    fn urls() {
        assert!(is_url("https://mcp.example.com/connect?x=1"));
        assert!(is_url("mailto:a@b"));
        assert!(!is_url("not a url"));
        assert!(!is_url("/relative"));
        assert!(!is_url("https:"));
    }
}
