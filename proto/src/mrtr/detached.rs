//! Input requests outside the request that raised them: an extension that
//! runs a handler after its request was answered (Tasks) stores what the
//! handler asked for, collects the answers some other way, and runs the
//! handler again with them. The checks are MRTR's own: capabilities and
//! request rules when asked (`result.rs`), answer shapes and elicitation
//! schemas when answered (`admit.rs`).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use serde_json::{Map, Value};

use super::admit::{checked, responses};
use super::checks::{bug, check, missing_capabilities};
use super::request::InputRequired;
use super::round::Round;
use super::seal::Issued;
use crate::error::ErrorObject;
use crate::meta::ClientCapabilities;

/// Check `ir` as an `InputRequiredResult` would be checked for a request
/// with `capabilities`, and serialize it: the requests as `{method,
/// params}` objects by key, and the state.
pub(crate) fn detached_input(
    ir: InputRequired,
    capabilities: &ClientCapabilities,
) -> Result<(Map<String, Value>, Option<Value>), ErrorObject> {
    let (requests, state) = ir.into_parts();
    let state = match state {
        None | Some(Ok(Value::Null)) => None,
        Some(Ok(v)) => Some(v),
        Some(Err(why)) => return Err(bug(&format!("its state does not serialize: {why}"))),
    };
    if requests.is_empty() {
        return Err(bug("it has no input requests"));
    }
    let required = missing_capabilities(&requests, capabilities);
    if !required.is_empty() {
        return Err(ErrorObject::missing_client_capability(Value::Object(
            required,
        )));
    }
    let mut out = Map::new();
    for (key, request) in &requests {
        check(request).map_err(|why| bug(&format!("input request {key:?}: {why}")))?;
        let v = serde_json::to_value(request).map_err(|e| bug(&format!("{e}")))?;
        out.insert(key.clone(), v);
    }
    Ok((out, state))
}

/// What a serialized input request asks for, as far as checking its
/// answer needs; `None` for a method that is not an input request.
fn issued(request: &Value) -> Option<Issued> {
    let params = request.get("params");
    match request.get("method").and_then(Value::as_str)? {
        "elicitation/create" => {
            let url = params.and_then(|p| p.get("mode")).and_then(Value::as_str) == Some("url");
            Some(Issued::Elicit(if url {
                None
            } else {
                params.and_then(|p| p.get("requestedSchema")).cloned()
            }))
        }
        "sampling/createMessage" => Some(Issued::Sample),
        "roots/list" => Some(Issued::Roots),
        _ => None,
    }
}

impl Round {
    /// A round carrying `responses` and `state` that were checked when they
    /// were received (for example by MRTR admission of the request a
    /// deferred call came from). Typed accessors deserialize them without
    /// checking which kind of request each key was.
    pub fn detached(responses: Map<String, Value>, state: Option<Value>) -> Round {
        Round {
            responses,
            state,
            issued: None,
        }
    }

    /// A round answering `requests` (serialized input requests by key, as
    /// [`DetachedOutcome::InputRequired`](crate::extension::DetachedOutcome)
    /// gives them): every response must be an object, responses to keys not
    /// in `requests` are dropped, and each kept one is checked against its
    /// request (an elicitation's `content` against its `requestedSchema`),
    /// exactly as a retried request's answers are (`-32602` otherwise).
    pub fn answering(
        requests: &Map<String, Value>,
        answers: &Map<String, Value>,
        state: Option<Value>,
    ) -> Result<Round, ErrorObject> {
        let answers = responses(Some(&Value::Object(answers.clone())))?;
        let issued: BTreeMap<String, Issued> = requests
            .iter()
            .filter_map(|(k, r)| Some((String::from(k.as_str()), issued(r)?)))
            .collect();
        Ok(Round {
            responses: checked(answers, &issued)?,
            state,
            issued: Some(issued),
        })
    }
}
