//! Typed protocol data of 2026-07-28 (`schema.ts`): what tools, resources and
//! prompts are declared as, and what handlers answer with.
//!
//! Optional members are omitted from the wire when `None`; the server-owned
//! result members (`resultType`, `_meta` server identity, cache hints) are
//! added by shaping, not by these types.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `_meta` object.
pub type Meta = Map<String, Value>;

/// The builder setters the descriptors share (`schema.ts` BaseMetadata,
/// Icons, and the resources' `mimeType` and `description`), written once
/// so that they cannot drift apart.
macro_rules! descriptor_setters {
    ($ty:ty: $($field:ident),+) => {
        impl $ty {
            $(descriptor_setters!(@ $field);)+
        }
    };
    (@ description) => {
        /// Set the description.
        pub fn description(mut self, d: impl Into<String>) -> Self {
            self.description = Some(d.into());
            self
        }
    };
    (@ mime_type) => {
        /// Set the MIME type.
        pub fn mime_type(mut self, m: impl Into<String>) -> Self {
            self.mime_type = Some(m.into());
            self
        }
    };
    (@ title) => {
        /// Set the display title.
        pub fn title(mut self, title: impl Into<String>) -> Self {
            self.title = Some(title.into());
            self
        }
    };
    (@ icon) => {
        /// Add an icon (`basic/index.mdx` § `icons`); call again for more
        /// sizes or themes.
        pub fn icon(mut self, icon: Icon) -> Self {
            self.icons.get_or_insert_with(Vec::new).push(icon);
            self
        }
    };
}

/// `schema.ts` Implementation: who the client or server is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Project website.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
}

impl Implementation {
    /// Name and version only.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
            icons: None,
        }
    }
}

descriptor_setters!(Implementation: icon);

/// `schema.ts` Icon.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// URI of the icon (https or data:).
    pub src: String,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `"light"` or `"dark"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

impl Icon {
    /// An icon at `src`: an `https:` URL or a `data:` URI with base64
    /// image data (`basic/index.mdx` § `icons`: clients reject other
    /// schemes).
    pub fn new(src: impl Into<String>) -> Self {
        Icon {
            src: src.into(),
            mime_type: None,
            sizes: None,
            theme: None,
        }
    }

    /// Set the MIME type (`image/png`, `image/svg+xml`, …).
    pub fn mime_type(mut self, m: impl Into<String>) -> Self {
        self.mime_type = Some(m.into());
        self
    }

    /// Add a size it can be shown at: `"48x48"`, or `"any"` for SVG.
    pub fn size(mut self, size: impl Into<String>) -> Self {
        self.sizes.get_or_insert_with(Vec::new).push(size.into());
        self
    }

    /// Say it is drawn for a `"light"` or a `"dark"` background.
    pub fn theme(mut self, theme: impl Into<String>) -> Self {
        self.theme = Some(theme.into());
        self
    }
}

/// `schema.ts` Role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum Role {
    User,
    Assistant,
}

/// `schema.ts` Annotations.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Intended audience.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 timestamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

/// `schema.ts` ToolAnnotations: hints, never guarantees.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct ToolAnnotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// `schema.ts` Tool: a tool's declaration as `tools/list` publishes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Unique name (1–128 of `A-Za-z0-9_.-`, `server/tools.mdx` § Tool Names).
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// JSON Schema (2020-12 unless `$schema` says otherwise) with
    /// `"type": "object"` at the root; published exactly as authored.
    /// Set it with [`Tool::input_schema`]: a registration replaces a
    /// schema assigned to the field directly with the generated one.
    pub input_schema: Value,
    /// Schema the tool's `structuredContent` conforms to. Set it with
    /// [`Tool::output_schema`], as for `input_schema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// Behaviour hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Which schemas were set by hand (kept as written when the tool is
    /// registered) rather than left to be generated from the handler's
    /// types. Not on the wire: a declaration read from JSON has both.
    #[serde(skip, default = "Authored::both")]
    pub(crate) authored: Authored,
}

/// Which of a [`Tool`]'s schemas its author set. Not part of the
/// declaration's equality: two tools publishing the same JSON are equal.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Authored {
    pub(crate) input: bool,
    pub(crate) output: bool,
}

impl Authored {
    fn both() -> Self {
        Authored {
            input: true,
            output: true,
        }
    }
}

impl PartialEq for Authored {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Tool {
    /// A tool's declaration, its schemas left to the registration: with
    /// feature `typed` generated from the handler's argument and result
    /// types; otherwise (and for a tool answered by hand) the no-argument
    /// schema `{"type":"object","additionalProperties":false}`, the one
    /// `server/tools.mdx` § Tool recommends for a tool without parameters,
    /// and no output schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Tool {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            icons: None,
            input_schema: serde_json::json!({"type": "object", "additionalProperties": false}),
            output_schema: None,
            annotations: None,
            meta: None,
            authored: Authored::default(),
        }
    }

    /// Set the input schema by hand (for arguments of a type you do not
    /// own, or a schema stricter than the type): the registration publishes
    /// it as written instead of the one generated from the argument type.
    pub fn input_schema(mut self, schema: Value) -> Self {
        self.input_schema = schema;
        self.authored.input = true;
        self
    }

    /// Set the output schema by hand: the registration publishes it as
    /// written instead of the one a `Json<T>` result implies.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self.authored.output = true;
        self
    }

    /// Set annotations.
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }
}

descriptor_setters!(Tool: title, icon);

/// `schema.ts` TextContent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `schema.ts` ImageContent / AudioContent: base64 data and a MIME type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MediaContent {
    /// Base64-encoded bytes.
    pub data: String,
    /// MIME type, e.g. `image/png`, `audio/wav`.
    pub mime_type: String,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `schema.ts` EmbeddedResource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `schema.ts` ContentBlock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// `{"type":"text"}`.
    Text(TextContent),
    /// `{"type":"image"}`.
    Image(MediaContent),
    /// `{"type":"audio"}`.
    Audio(MediaContent),
    /// `{"type":"resource_link"}`: a pointer the client may read.
    ResourceLink(Resource),
    /// `{"type":"resource"}`: contents inline.
    Resource(EmbeddedResource),
}

impl Content {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text(TextContent {
            text: text.into(),
            annotations: None,
            meta: None,
        })
    }

    /// An image block from base64 data.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Image(MediaContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// An audio block from base64 data.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Content::Audio(MediaContent {
            data: data.into(),
            mime_type: mime_type.into(),
            annotations: None,
            meta: None,
        })
    }

    /// An embedded resource block.
    pub fn resource(contents: ResourceContents) -> Self {
        Content::Resource(EmbeddedResource {
            resource: contents,
            annotations: None,
            meta: None,
        })
    }

    /// A resource link block.
    pub fn resource_link(resource: Resource) -> Self {
        Content::ResourceLink(resource)
    }
}

/// `schema.ts` CallToolResult (without the server-owned members).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Unstructured content.
    pub content: Vec<Content>,
    /// Structured content, conforming to the tool's `outputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// `true` for a tool execution error (reported in the result, not as a
    /// JSON-RPC error: `server/tools.mdx` § Error Handling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata; the server identity is merged in.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolResult {
    /// A successful result with these blocks.
    pub fn new(content: Vec<Content>) -> Self {
        CallToolResult {
            content,
            ..Default::default()
        }
    }

    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(vec![Content::text(text)])
    }

    /// A tool execution error (`isError: true`) with one text block.
    pub fn error(text: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![Content::text(text)],
            is_error: Some(true),
            ..Default::default()
        }
    }

    /// A result carrying `structuredContent` plus its serialized JSON as a
    /// text block, as `server/tools.mdx` § Structured Content recommends.
    pub fn structured(value: Value) -> Self {
        let text = serde_json::to_string(&value).unwrap_or_default();
        CallToolResult {
            content: vec![Content::text(text)],
            structured_content: Some(value),
            ..Default::default()
        }
    }
}

/// `schema.ts` Resource.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Resource {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            icons: None,
            annotations: None,
            meta: None,
        }
    }
}

descriptor_setters!(Resource: description, mime_type, title, icon);

/// `schema.ts` ResourceTemplate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// An RFC 6570 URI template.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of every matching resource, if uniform.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ResourceTemplate {
    /// A template with a URI template and a name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceTemplate {
            uri_template: uri_template.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            icons: None,
            annotations: None,
            meta: None,
        }
    }
}

descriptor_setters!(ResourceTemplate: description, mime_type, title, icon);

/// `schema.ts` TextResourceContents | BlobResourceContents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents.
    Text {
        /// URI of this content.
        uri: String,
        /// MIME type.
        #[serde(default, rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
        /// Metadata.
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
    /// Binary contents, base64.
    Blob {
        /// URI of this content.
        uri: String,
        /// MIME type.
        #[serde(default, rename = "mimeType", skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// Base64 bytes.
        blob: String,
        /// Metadata.
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<Meta>,
    },
}

impl ResourceContents {
    /// Text contents.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        ResourceContents::Text {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            text: text.into(),
            meta: None,
        }
    }

    /// Binary contents from base64.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        base64: impl Into<String>,
    ) -> Self {
        ResourceContents::Blob {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            blob: base64.into(),
            meta: None,
        }
    }
}

/// `cacheScope` (`server/utilities/caching.mdx` § Cache Scope Field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// No user-specific data; shareable across authorization contexts.
    Public,
    /// Reusable only within the same authorization context.
    Private,
}

/// Caching hints of a cacheable result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheHint {
    /// Freshness in milliseconds (`>= 0` by construction).
    pub ttl_ms: u64,
    /// Who may share the cached result.
    pub scope: CacheScope,
}

impl CacheHint {
    /// Immediately stale, private: the safe default for reads.
    pub const PRIVATE_NO_STORE: CacheHint = CacheHint {
        ttl_ms: 0,
        scope: CacheScope::Private,
    };

    /// Fresh for `ttl_ms`, shareable.
    pub const fn public(ttl_ms: u64) -> Self {
        CacheHint {
            ttl_ms,
            scope: CacheScope::Public,
        }
    }

    /// Fresh for `ttl_ms`, private.
    pub const fn private(ttl_ms: u64) -> Self {
        CacheHint {
            ttl_ms,
            scope: CacheScope::Private,
        }
    }
}

/// `schema.ts` ReadResourceResult (without the server-owned members).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadResourceResult {
    /// One or more contents (never empty for an existing resource).
    pub contents: Vec<ResourceContents>,
    /// Metadata; the server identity is merged in.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Caching hint for this read; the service default when `None`.
    #[serde(skip)]
    pub cache: Option<CacheHint>,
}

impl ReadResourceResult {
    /// A result with these contents.
    pub fn new(contents: Vec<ResourceContents>) -> Self {
        ReadResourceResult {
            contents,
            meta: None,
            cache: None,
        }
    }

    /// Override the caching hint.
    pub fn cache(mut self, hint: CacheHint) -> Self {
        self.cache = Some(hint);
        self
    }
}

/// `schema.ts` PromptArgument.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptArgument {
    /// Argument name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether the argument must be provided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl PromptArgument {
    /// A required argument.
    pub fn required(name: impl Into<String>, description: impl Into<String>) -> Self {
        PromptArgument {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            required: Some(true),
        }
    }

    /// An optional argument.
    pub fn optional(name: impl Into<String>, description: impl Into<String>) -> Self {
        PromptArgument {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            required: None,
        }
    }
}

/// `schema.ts` Prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prompt {
    /// Unique name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Arguments the prompt accepts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Prompt {
    /// A prompt with a name and description.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Prompt {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            arguments: None,
            icons: None,
            meta: None,
        }
    }

    /// Add an argument.
    pub fn argument(mut self, arg: PromptArgument) -> Self {
        self.arguments.get_or_insert_with(Vec::new).push(arg);
        self
    }
}

descriptor_setters!(Prompt: title, icon);

/// `schema.ts` PromptMessage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptMessage {
    /// Speaker.
    pub role: Role,
    /// One content block.
    pub content: Content,
}

impl PromptMessage {
    /// A user message.
    pub fn user(content: Content) -> Self {
        PromptMessage {
            role: Role::User,
            content,
        }
    }

    /// An assistant message.
    pub fn assistant(content: Content) -> Self {
        PromptMessage {
            role: Role::Assistant,
            content,
        }
    }
}

/// `schema.ts` GetPromptResult (without the server-owned members).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GetPromptResult {
    /// Description of this rendering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// Metadata; the server identity is merged in.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl GetPromptResult {
    /// A result with these messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult {
            description: None,
            messages,
            meta: None,
        }
    }
}

/// `schema.ts` CompleteResult's `completion` member.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most 100 values (more are cut and `hasMore` set).
    pub values: Vec<String>,
    /// Total number of matches, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more values exist than returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// A completion with these values.
    pub fn new(values: Vec<String>) -> Self {
        Completion {
            values,
            total: None,
            has_more: None,
        }
    }
}

/// What a completion request refers to (`schema.ts` PromptReference |
/// ResourceTemplateReference).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionRef {
    /// `ref/prompt`.
    #[serde(rename = "ref/prompt")]
    Prompt {
        /// Prompt name.
        name: String,
    },
    /// `ref/resource`.
    #[serde(rename = "ref/resource")]
    Resource {
        /// URI or URI template.
        uri: String,
    },
}

/// A `completion/complete` request, as handed to the completer.
#[derive(Clone, Debug, PartialEq)]
pub struct CompletionRequest {
    /// What is being completed.
    pub reference: CompletionRef,
    /// The argument's name.
    pub argument: String,
    /// The partial value.
    pub value: String,
    /// Arguments already resolved (`context.arguments`).
    pub context: Map<String, Value>,
}
