//! What a handler returns to ask for input: an [`InputRequired`] holding
//! the input requests and the handler's own state, inside a [`Reply`].
//!
//! The engine turns it into an `InputRequiredResult`
//! (`basic/patterns/mrtr.mdx` § InputRequiredResult): it refuses requests
//! the client's capabilities do not allow, seals the state, and never adds
//! caching hints.

use alloc::collections::BTreeMap;
use alloc::string::String;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use super::elicit::ElicitRequest;
use super::sampling::CreateMessageRequest;

/// One server-to-client request carried in `inputRequests`.
#[derive(Clone, Debug, PartialEq)]
pub enum InputRequest {
    /// `elicitation/create`.
    Elicit(ElicitRequest),
    /// `sampling/createMessage`.
    Sample(CreateMessageRequest),
    /// `roots/list`.
    ListRoots,
}

impl InputRequest {
    /// The method string.
    pub fn method(&self) -> &'static str {
        match self {
            InputRequest::Elicit(_) => "elicitation/create",
            InputRequest::Sample(_) => "sampling/createMessage",
            InputRequest::ListRoots => "roots/list",
        }
    }
}

/// `{"method": …, "params": …}` (`schema.ts` InputRequest).
impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let params = match self {
            InputRequest::Elicit(e) => serde_json::to_value(e),
            InputRequest::Sample(c) => serde_json::to_value(c),
            InputRequest::ListRoots => Ok(Value::Object(Map::new())),
        }
        .map_err(serde::ser::Error::custom)?;
        let mut m = Map::new();
        m.insert(String::from("method"), Value::from(self.method()));
        m.insert(String::from("params"), params);
        m.serialize(s)
    }
}

/// A handler's request for more input before it can answer: input
/// requests keyed by names the handler chooses, and optionally state it
/// wants back on the retry. At least one of the two must be set.
///
/// ```
/// use serde_json::json;
/// use snodo_proto::{CreateMessageRequest, ElicitRequest, InputRequired};
///
/// let ask = InputRequired::new()
///     .elicit("user_name", ElicitRequest::form(
///         "What is your name?",
///         json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
///     ))
///     .sample("greeting", CreateMessageRequest::user_text("Generate a greeting", 50))
///     .state(&json!({"step": 1}));
/// assert_eq!(ask.requests().len(), 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputRequired {
    requests: BTreeMap<String, InputRequest>,
    state: Option<Result<Value, String>>,
}

impl InputRequired {
    /// Nothing requested yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add (or replace) the input request under `key`.
    pub fn request(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        self.requests.insert(key.into(), request);
        self
    }

    /// Ask the user through `elicitation/create`.
    pub fn elicit(self, key: impl Into<String>, request: ElicitRequest) -> Self {
        self.request(key, InputRequest::Elicit(request))
    }

    /// Ask the client's model through `sampling/createMessage`.
    pub fn sample(self, key: impl Into<String>, request: CreateMessageRequest) -> Self {
        self.request(key, InputRequest::Sample(request))
    }

    /// Ask for the client's roots through `roots/list`.
    pub fn list_roots(self, key: impl Into<String>) -> Self {
        self.request(key, InputRequest::ListRoots)
    }

    /// State to get back, verified, on the retry
    /// ([`Context::state`](crate::Context::state)). It travels through the
    /// client sealed (integrity-protected, not encrypted): do not put
    /// secrets in it.
    pub fn state<T: Serialize + ?Sized>(mut self, state: &T) -> Self {
        self.state = Some(serde_json::to_value(state).map_err(|e| alloc::format!("{e}")));
        self
    }

    /// The input requests, by key.
    pub fn requests(&self) -> &BTreeMap<String, InputRequest> {
        &self.requests
    }

    /// The state set with [`state`](InputRequired::state), if it serialized.
    pub fn state_value(&self) -> Option<&Value> {
        self.state.as_ref().and_then(|s| s.as_ref().ok())
    }

    pub(crate) fn into_parts(
        self,
    ) -> (
        BTreeMap<String, InputRequest>,
        Option<Result<Value, String>>,
    ) {
        (self.requests, self.state)
    }
}

/// A handler's answer: the final result, or a request for more input.
/// Tool, prompt and resource handlers may return `Reply<T>` (inside their
/// usual `Result`) wherever they return `T`.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply<T> {
    /// The final result.
    Complete(T),
    /// Ask the client for input and retry.
    InputRequired(InputRequired),
}

impl<T> From<InputRequired> for Reply<T> {
    fn from(ir: InputRequired) -> Self {
        Reply::InputRequired(ir)
    }
}
