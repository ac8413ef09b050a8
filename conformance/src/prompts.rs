//! The fixture's prompts (`SCENARIOS-2026-07-28.md` § 2.4). Every one has a
//! non-empty description, which `prompts-list` checks.
//! `test_input_required_result_prompt` lives in `mrtr.rs` and is listed
//! after these.

use serde::Deserialize;
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{
    Content, GetPromptResult, NoArgs, Prompt, PromptArgument, PromptMessage, ResourceContents,
    ServiceBuilder,
};

use crate::media::PNG_1X1;

/// Name of the prompt whose arguments the completer knows.
pub const WITH_ARGUMENTS: &str = "test_prompt_with_arguments";

#[derive(Debug, Deserialize, JsonSchema)]
struct WithArguments {
    arg1: String,
    arg2: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct WithEmbeddedResource {
    #[serde(rename = "resourceUri")]
    resource_uri: String,
}

/// Register the prompts.
pub fn register(builder: ServiceBuilder) -> ServiceBuilder {
    builder
        .prompt(
            Prompt::new("test_simple_prompt", "A simple prompt without arguments"),
            |_: NoArgs| async {
                Ok(GetPromptResult::new(vec![PromptMessage::user(
                    Content::text("This is a simple prompt for testing."),
                )]))
            },
        )
        .prompt(
            Prompt::new(WITH_ARGUMENTS, "A prompt with two required arguments")
                .argument(PromptArgument::required("arg1", "First test argument"))
                .argument(PromptArgument::required("arg2", "Second test argument")),
            |args: WithArguments| async move {
                Ok(GetPromptResult::new(vec![PromptMessage::user(
                    Content::text(format!(
                        "Prompt with arguments: arg1='{}', arg2='{}'",
                        args.arg1, args.arg2
                    )),
                )]))
            },
        )
        .prompt(
            Prompt::new(
                "test_prompt_with_embedded_resource",
                "A prompt that embeds the resource it is given",
            )
            .argument(PromptArgument::required(
                "resourceUri",
                "URI of the resource to embed",
            )),
            |args: WithEmbeddedResource| async move {
                Ok(GetPromptResult::new(vec![
                    PromptMessage::user(Content::resource(ResourceContents::text(
                        args.resource_uri,
                        "text/plain",
                        "Embedded resource content for testing.",
                    ))),
                    PromptMessage::user(Content::text(
                        "Please process the embedded resource above.",
                    )),
                ]))
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_image", "A prompt that includes an image"),
            |_: NoArgs| async {
                Ok(GetPromptResult::new(vec![
                    PromptMessage::user(Content::image(PNG_1X1, "image/png")),
                    PromptMessage::user(Content::text("Please analyze the image above.")),
                ]))
            },
        )
}
