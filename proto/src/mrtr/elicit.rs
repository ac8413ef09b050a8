//! `elicitation/create` as an input request, and the client's answer
//! (`client/elicitation.mdx`; `schema.ts` ElicitRequest, ElicitResult).

use alloc::string::String;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

/// The params of an `elicitation/create` input request.
#[derive(Clone, Debug, PartialEq)]
pub enum ElicitRequest {
    /// Form mode: structured, non-sensitive data the client collects and
    /// returns in `content` (`§ Form Mode Elicitation Requests`).
    Form {
        /// Why the information is needed.
        message: String,
        /// A flat object of primitive properties (`§ Requested Schema`);
        /// checked when the request is issued, and the client's `content`
        /// is validated against it on the retry.
        requested_schema: Value,
    },
    /// URL mode: the user is sent to `url` for an interaction that must not
    /// pass through the client (`§ URL Mode Elicitation Requests`). An
    /// `accept` answer only means consent.
    Url {
        /// Why the interaction is needed.
        message: String,
        /// Where to send the user.
        url: String,
        /// What a 2025-11-25 client knows this elicitation by
        /// (`elicitationId`, which that revision requires, and which its
        /// `notifications/elicitation/complete` names): set it when the
        /// page at `url` must say which elicitation it completes. Without
        /// one, a session's request carries an id the server makes up. It
        /// is not sent in 2026-07-28, which removed it (`changelog.mdx`
        /// major change 11: a server correlates retries through
        /// `requestState`).
        elicitation_id: Option<String>,
    },
}

impl ElicitRequest {
    /// A form-mode request.
    pub fn form(message: impl Into<String>, requested_schema: Value) -> Self {
        ElicitRequest::Form {
            message: message.into(),
            requested_schema,
        }
    }

    /// A URL-mode request.
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        ElicitRequest::Url {
            message: message.into(),
            url: url.into(),
            elicitation_id: None,
        }
    }

    /// The request, known to a 2025-11-25 client as `id` (its
    /// `elicitationId`); a form-mode request has no id and is unchanged.
    pub fn with_elicitation_id(mut self, id: impl Into<String>) -> Self {
        if let ElicitRequest::Url { elicitation_id, .. } = &mut self {
            *elicitation_id = Some(id.into());
        }
        self
    }

    /// The `params` of a 2025-11-25 session's `elicitation/create`: the
    /// 2026-07-28 params, and for URL mode the `elicitationId` that
    /// revision requires (`schema.ts` ElicitRequestURLParams), this
    /// request's own or `fallback`.
    pub(crate) fn session_params(&self, fallback: impl FnOnce() -> String) -> Value {
        let mut params = match serde_json::to_value(self) {
            Ok(Value::Object(m)) => m,
            _ => Map::new(),
        };
        if let ElicitRequest::Url { elicitation_id, .. } = self {
            let id = elicitation_id.clone().unwrap_or_else(fallback);
            params.insert(String::from("elicitationId"), Value::String(id));
        }
        Value::Object(params)
    }

    /// The message shown to the user.
    pub fn message(&self) -> &str {
        match self {
            ElicitRequest::Form { message, .. } | ElicitRequest::Url { message, .. } => message,
        }
    }
}

/// Serialized as the request's `params`, always with an explicit `mode`
/// (optional for form mode, but explicit is unambiguous for every client).
impl Serialize for ElicitRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = Map::new();
        match self {
            ElicitRequest::Form {
                message,
                requested_schema,
            } => {
                m.insert(String::from("mode"), Value::from("form"));
                m.insert(String::from("message"), Value::from(message.as_str()));
                m.insert(String::from("requestedSchema"), requested_schema.clone());
            }
            ElicitRequest::Url { message, url, .. } => {
                m.insert(String::from("mode"), Value::from("url"));
                m.insert(String::from("message"), Value::from(message.as_str()));
                m.insert(String::from("url"), Value::from(url.as_str()));
            }
        }
        m.serialize(s)
    }
}

/// What the user did (`§ Response Actions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted (form) or consented (URL).
    Accept,
    /// Explicitly declined.
    Decline,
    /// Dismissed without a choice.
    Cancel,
}

/// The client's answer to an `elicitation/create` input request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted form data (form mode, `accept` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

impl ElicitResult {
    /// Whether the user accepted.
    pub fn is_accepted(&self) -> bool {
        self.action == ElicitAction::Accept
    }

    /// The accepted form data as `T`; `None` unless the user accepted and
    /// the content deserializes as `T`.
    pub fn content_as<T: DeserializeOwned>(&self) -> Option<T> {
        if !self.is_accepted() {
            return None;
        }
        let content = self.content.clone().unwrap_or_default();
        T::deserialize(Value::Object(content)).ok()
    }
}
