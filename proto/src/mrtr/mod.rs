//! Multi Round-Trip Requests (`basic/patterns/mrtr.mdx`): how a server asks
//! the client for input — elicitation, sampling, roots — in a protocol
//! where it never sends requests of its own.
//!
//! A `tools/call`, `prompts/get` or `resources/read` handler that needs
//! input returns an [`InputRequired`] (through [`Reply`]); the engine
//! answers with an `InputRequiredResult` carrying its `inputRequests` and a
//! sealed `requestState`. The client retries the same request with
//! `inputResponses` and the state; the engine verifies both and the handler
//! runs again, reading the answers and its own state through
//! [`Context`](crate::Context) (or [`Invocation::round`](crate::Invocation)
//! when answering by hand). Nothing is stored between rounds, so any
//! process holding the same [`StateKeys`] can serve any round.

mod admit;
mod b64;
mod canon;
mod checks;
mod detached;
mod elicit;
mod inline;
mod keys;
mod request;
mod result;
mod roots;
mod round;
mod sampling;
mod seal;

pub use elicit::{ElicitAction, ElicitRequest, ElicitResult};
pub use keys::{StateKeys, MIN_SECRET_BYTES};
pub use request::{InputRequest, InputRequired, Reply};
pub use roots::{ListRootsResult, Root};
pub use round::Round;
pub use sampling::{
    CreateMessageRequest, CreateMessageResult, IncludeContext, ModelHint, ModelPreferences,
    SamplingBlock, SamplingContent, SamplingMessage, ToolChoice, ToolChoiceMode, ToolResultContent,
    ToolUseContent,
};

pub(crate) use admit::{admit, Origin};
pub(crate) use detached::detached_input;
pub(crate) use inline::{inline, params as inline_params, round as inline_round};
pub(crate) use result::shape;
pub(crate) use seal::Issued;
pub(crate) use seal::Sealer;

/// How long a sealed `requestState` stays valid unless the service sets
/// its own ([`ServiceBuilder::request_state_ttl`](crate::ServiceBuilder::request_state_ttl)):
/// long enough for a person to answer a form, short enough to bound replay
/// (`mrtr.mdx` § Server Requirements 5: "a short expiry").
pub const DEFAULT_STATE_TTL: core::time::Duration = core::time::Duration::from_secs(600);
