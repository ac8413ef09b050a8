//! What a retried request brings back from the previous round, as a
//! handler (or a driver answering by hand) sees it.

use alloc::collections::BTreeMap;
use alloc::string::String;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::elicit::ElicitResult;
use super::roots::ListRootsResult;
use super::sampling::CreateMessageResult;
use super::seal::Issued;

/// The client's input responses and the handler's own state, already
/// admitted: `inputResponses` is an object of objects; a `requestState`
/// was verified (integrity, request binding, expiry) before the handler
/// ran; and when it was, only answers to the input requests it records
/// are kept, each checked against what was asked (an elicitation's
/// `content` against its `requestedSchema`). Without a `requestState` the
/// responses are as untrusted as the request's arguments.
///
/// Empty on a first attempt and on requests that cannot carry input
/// (`completion/complete`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Round {
    pub(crate) responses: Map<String, Value>,
    pub(crate) state: Option<Value>,
    pub(crate) issued: Option<BTreeMap<String, Issued>>,
}

impl Round {
    /// Whether the client sent any input responses or state.
    pub fn is_retry(&self) -> bool {
        !self.responses.is_empty() || self.state.is_some()
    }

    /// Whether a verified `requestState` came with the request.
    pub fn has_state(&self) -> bool {
        self.issued.is_some()
    }

    /// The answer to the `elicitation/create` request issued as `key`.
    pub fn elicitation(&self, key: &str) -> Option<ElicitResult> {
        self.typed(key, |i| matches!(i, Issued::Elicit(_)))
    }

    /// The answer to the `sampling/createMessage` request issued as `key`.
    pub fn sampling(&self, key: &str) -> Option<CreateMessageResult> {
        self.typed(key, |i| matches!(i, Issued::Sample))
    }

    /// The answer to the `roots/list` request issued as `key`.
    pub fn roots(&self, key: &str) -> Option<ListRootsResult> {
        self.typed(key, |i| matches!(i, Issued::Roots))
    }

    /// The state the handler attached to its previous
    /// [`InputRequired`](crate::InputRequired), if it deserializes as `T`.
    pub fn state<T: DeserializeOwned>(&self) -> Option<T> {
        T::deserialize(self.state.clone()?).ok()
    }

    /// The admitted responses as JSON, by key (for drivers answering by
    /// hand; handlers use the typed accessors).
    pub fn responses(&self) -> &Map<String, Value> {
        &self.responses
    }

    fn typed<T: DeserializeOwned>(&self, key: &str, kind: fn(&Issued) -> bool) -> Option<T> {
        if let Some(issued) = &self.issued {
            if !issued.get(key).is_some_and(kind) {
                return None;
            }
        }
        T::deserialize(self.responses.get(key)?.clone()).ok()
    }
}
