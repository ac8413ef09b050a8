//! A handler's [`InputRequired`], admitted: its state normalized, at least
//! one of requests and state, no request the client's capabilities do not
//! allow, each request well-formed, and what each answer will be checked
//! against. Shared by both ways of asking: an `InputRequiredResult`
//! (`result.rs`, 2026-07-28) and requests sent inline on the call's
//! stream by the initialize-era dialects ([`crate::legacy`]), where the
//! handler runs again when every answer is in, checked like a retry's
//! (`admit.rs`); there the state never leaves the server, so nothing is
//! sealed.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use serde_json::{Map, Value};

use super::checks::{bug, check, issued_kind, missing_capabilities};
use super::request::{InputRequest, InputRequired};
use super::round::Round;
use super::seal::Issued;
use crate::error::ErrorObject;
use crate::meta::ClientCapabilities;

/// A handler's input requests, admitted for sending inline.
#[derive(Debug)]
pub(crate) struct Inline {
    /// What to send, by key.
    pub(crate) requests: BTreeMap<String, InputRequest>,
    /// What each answer is checked against, by key.
    pub(crate) issued: BTreeMap<String, Issued>,
    /// The handler's state, handed back on the next run.
    pub(crate) state: Option<Value>,
}

/// Check `ir` against the client's `capabilities`.
pub(crate) fn inline(
    ir: InputRequired,
    capabilities: &ClientCapabilities,
) -> Result<Inline, ErrorObject> {
    let (requests, state) = ir.into_parts();
    let state = match state {
        None | Some(Ok(Value::Null)) => None,
        Some(Ok(v)) => Some(v),
        Some(Err(why)) => return Err(bug(&format!("its state does not serialize: {why}"))),
    };
    if requests.is_empty() && state.is_none() {
        return Err(bug("it has neither input requests nor state"));
    }
    let required = missing_capabilities(&requests, capabilities);
    if !required.is_empty() {
        return Err(ErrorObject::missing_client_capability(Value::Object(
            required,
        )));
    }
    let mut issued = BTreeMap::new();
    for (key, request) in &requests {
        check(request).map_err(|why| bug(&format!("input request {key:?}: {why}")))?;
        issued.insert(key.clone(), issued_kind(request));
    }
    Ok(Inline {
        requests,
        issued,
        state,
    })
}

/// The round the handler runs again with: the answers, each checked
/// against its request, and its state.
pub(crate) fn round(
    responses: Map<String, Value>,
    issued: BTreeMap<String, Issued>,
    state: Option<Value>,
) -> Result<Round, ErrorObject> {
    Ok(Round {
        responses: super::admit::checked(responses, &issued)?,
        state,
        issued: Some(issued),
    })
}

/// The `params` of the request that sends `request` in a session;
/// `elicitation_id` makes the id of a URL-mode elicitation that has none
/// of its own.
pub(crate) fn params(request: &InputRequest, elicitation_id: impl FnOnce() -> String) -> Value {
    if let InputRequest::Elicit(e) = request {
        return e.session_params(elicitation_id);
    }
    match serde_json::to_value(request) {
        Ok(Value::Object(mut m)) => m.remove("params").unwrap_or(Value::Object(Map::new())),
        _ => Value::Object(Map::new()),
    }
}
