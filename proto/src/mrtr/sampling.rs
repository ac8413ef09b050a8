//! `sampling/createMessage` as an input request, and the client's answer
//! (`client/sampling.mdx`, deprecated in 2026-07-28 but part of it;
//! `schema.ts` CreateMessageRequestParams, CreateMessageResult).

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::{Content, MediaContent, Meta, Role, TextContent, Tool};

/// The params of a `sampling/createMessage` input request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequest {
    /// The conversation to continue.
    pub messages: Vec<SamplingMessage>,
    /// Advisory model preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// Requested system prompt (the client may change or drop it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Context to include; `thisServer`/`allServers` need the client's
    /// `sampling.context` capability (deprecated values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Most tokens to sample (required; the client must respect it).
    pub max_tokens: u64,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Tools the model may use; needs the client's `sampling.tools`
    /// capability (`§ Tools in Sampling`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model uses the tools; also needs `sampling.tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
}

impl CreateMessageRequest {
    /// A request to continue `messages`, sampling at most `max_tokens`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u64) -> Self {
        CreateMessageRequest {
            messages,
            model_preferences: None,
            system_prompt: None,
            include_context: None,
            temperature: None,
            max_tokens,
            stop_sequences: None,
            metadata: None,
            tools: None,
            tool_choice: None,
        }
    }

    /// A request answering one user text message.
    pub fn user_text(text: impl Into<String>, max_tokens: u64) -> Self {
        Self::new(vec![SamplingMessage::user_text(text)], max_tokens)
    }

    /// Set the system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Set the model preferences.
    pub fn model_preferences(mut self, prefs: ModelPreferences) -> Self {
        self.model_preferences = Some(prefs);
        self
    }

    /// Whether the request is tool-enabled (`tools` or `toolChoice`).
    pub fn uses_tools(&self) -> bool {
        self.tools.is_some() || self.tool_choice.is_some()
    }
}

/// A message sent to or received from the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingMessage {
    /// Speaker.
    pub role: Role,
    /// One block or several.
    pub content: SamplingContent,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SamplingMessage {
    /// A user message of one text block.
    pub fn user_text(text: impl Into<String>) -> Self {
        SamplingMessage {
            role: Role::User,
            content: SamplingContent::One(SamplingBlock::text(text)),
            meta: None,
        }
    }
}

/// `content` of a sampling message: a single block or an array.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SamplingContent {
    /// One block.
    One(SamplingBlock),
    /// Several blocks.
    Many(Vec<SamplingBlock>),
}

impl SamplingContent {
    /// The blocks, whichever form they came in.
    pub fn blocks(&self) -> &[SamplingBlock] {
        match self {
            SamplingContent::One(b) => core::slice::from_ref(b),
            SamplingContent::Many(v) => v,
        }
    }
}

/// `schema.ts` SamplingMessageContentBlock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SamplingBlock {
    /// Text.
    Text(TextContent),
    /// Base64 image.
    Image(MediaContent),
    /// Base64 audio.
    Audio(MediaContent),
    /// The model asks to call a tool.
    ToolUse(ToolUseContent),
    /// The result of a tool call, sent back to the model.
    ToolResult(ToolResultContent),
}

impl SamplingBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingBlock::Text(TextContent {
            text: text.into(),
            annotations: None,
            meta: None,
        })
    }
}

/// `schema.ts` ToolUseContent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolUseContent {
    /// Matches the `toolUseId` of the result.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments.
    pub input: Map<String, Value>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `schema.ts` ToolResultContent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The `id` of the tool use answered.
    pub tool_use_id: String,
    /// Unstructured result.
    pub content: Vec<Content>,
    /// Structured result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `schema.ts` ModelPreferences: advisory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model name hints, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// 0..=1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// 0..=1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// 0..=1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

/// `schema.ts` ModelHint.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelHint {
    /// A substring of a model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `includeContext`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// No context (the default).
    None,
    /// Deprecated: context from this server.
    ThisServer,
    /// Deprecated: context from every server.
    AllServers,
}

/// `schema.ts` ToolChoice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolChoice {
    /// `auto` (default), `required` or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
}

/// `ToolChoice.mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides.
    Auto,
    /// At least one tool call.
    Required,
    /// No tool calls.
    None,
}

/// The client's answer to a `sampling/createMessage` input request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Speaker of the sampled message.
    pub role: Role,
    /// The sampled content.
    pub content: SamplingContent,
    /// The model that produced it.
    pub model: String,
    /// Why sampling stopped (`endTurn`, `stopSequence`, `maxTokens`,
    /// `toolUse`, or a provider's own value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateMessageResult {
    /// The first text block, if any.
    pub fn text(&self) -> Option<&str> {
        self.content.blocks().iter().find_map(|b| match b {
            SamplingBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
    }
}
