//! The fixture's completer (`server/utilities/completion.mdx`): suggestions
//! for `test_prompt_with_arguments`'s `arg1`/`arg2` and the template's
//! `id`, filtered by the typed prefix. Anything else gets no suggestions
//! (an empty `values` array, which `completion-complete` accepts).

use snodo_proto::{
    Completion, CompletionRef, CompletionRequest, Context, ErrorObject, ServiceBuilder,
};

use crate::prompts::WITH_ARGUMENTS;
use crate::resources::TEMPLATE;

const ARG1: &[&str] = &["testValue1", "test-alpha", "test-beta", "example-1"];
const ARG2: &[&str] = &["testValue2", "test-gamma", "test-delta", "example-2"];
const IDS: &[&str] = &["1", "2", "3", "42", "123"];

/// Register the completer.
pub fn register(builder: ServiceBuilder) -> ServiceBuilder {
    builder.completer(|req: CompletionRequest, _: Context| async move {
        Ok::<_, ErrorObject>(complete(&req))
    })
}

fn complete(req: &CompletionRequest) -> Completion {
    let candidates: &[&str] = match (&req.reference, req.argument.as_str()) {
        (CompletionRef::Prompt { name }, "arg1") if name == WITH_ARGUMENTS => ARG1,
        (CompletionRef::Prompt { name }, "arg2") if name == WITH_ARGUMENTS => ARG2,
        (CompletionRef::Resource { uri }, "id") if uri == TEMPLATE => IDS,
        _ => &[],
    };
    let values: Vec<String> = candidates
        .iter()
        .filter(|c| c.starts_with(req.value.as_str()))
        .map(|c| String::from(*c))
        .collect();
    let mut completion = Completion::new(values);
    completion.total = Some(completion.values.len() as u64);
    completion.has_more = Some(false);
    completion
}
