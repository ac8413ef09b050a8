//! Typed handler inputs on the wire: resource-template variables read
//! into a type (`ResourceArgs::variables_as`), typed prompt arguments
//! from their strings, and completion registered per prompt argument and
//! per template variable (`server/utilities/completion.mdx`), in front
//! of the general completer or alone. Requests and answers are literal
//! JSON lines on stdio.

mod support;

use serde::Deserialize;
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::CompletionRequest;
use snodo_proto::{
    BuildError, Completion, CompletionRef, Context, ErrorObject, GetPromptResult, Prompt,
    PromptArgument, PromptMessage, ReadResourceResult, ResourceArgs, ResourceContents,
    ResourceError, ResourceTemplate, Service, ServiceBuilder, Transport,
};
use support::Harness;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Format {
    Text,
    Json,
}

/// Template `docs://{name}/page/{page}`'s variables (and a `format` it does not have: `None`).
#[derive(Deserialize)]
struct Page {
    name: String,
    page: u32,
    format: Option<Format>,
}

#[derive(Deserialize, JsonSchema)]
struct Greeting {
    name: String,
    times: u8,
}

fn builder() -> ServiceBuilder {
    Service::builder()
        .resource_template(
            ResourceTemplate::new("docs://{name}/page/{page}", "page"),
            |args: ResourceArgs, _: Context| async move {
                let Page { name, page, format } = args.variables_as()?;
                let kind = match format {
                    Some(Format::Json) => "json",
                    Some(Format::Text) | None => "text",
                };
                Ok::<_, ResourceError>(ReadResourceResult {
                    contents: vec![ResourceContents::text(
                        args.uri.clone(),
                        "text/plain",
                        format!("{name} page {} as {kind}", page + 1),
                    )],
                    ..Default::default()
                })
            },
        )
        .prompt(
            Prompt::new("greet", "Greet someone")
                .argument(PromptArgument::required("name", "Who"))
                .argument(PromptArgument::required("times", "How often")),
            |g: Greeting, _: Context| async move {
                Ok::<_, ErrorObject>(GetPromptResult::new(vec![PromptMessage::user(
                    snodo_proto::Content::text(
                        format!("Hello {}! ", g.name).repeat(usize::from(g.times)),
                    ),
                )]))
            },
        )
}

fn call(service: &Service, line: &str) -> String {
    let mut h = Harness::new(service, Transport::Stdio);
    h.send(format!("{line}\n").as_bytes())
}

fn read(service: &Service, uri: &str) -> String {
    call(
        service,
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{{"uri":"{uri}",{META}}}}}"#
        ),
    )
}

fn complete(service: &Service, reference: &str, argument: &str, value: &str) -> String {
    call(
        service,
        &format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{{"ref":{reference},"argument":{{"name":"{argument}","value":"{value}"}},{META}}}}}"#
        ),
    )
}

fn values(answer: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(answer.trim()).unwrap();
    v["result"]["completion"].clone()
}

#[test]
fn template_variables_are_read_into_a_type() {
    let service = builder().build().unwrap();
    let answer = read(&service, "docs://serde/page/2");
    assert!(
        answer.contains(r#""text":"serde page 3 as text""#),
        "{answer}"
    );
}

/// A URI that matches the template but whose variables make no `Page` (a
/// page that is not a number) names no resource: -32602 with `data.uri`
/// (`server/resources.mdx` § Error Handling), not an internal error.
#[test]
fn variables_that_do_not_fit_the_type_name_no_resource() {
    let service = builder().build().unwrap();
    let answer = read(&service, "docs://serde/page/two");
    let v: serde_json::Value = serde_json::from_str(answer.trim()).unwrap();
    assert_eq!(v["error"]["code"], -32602, "{answer}");
    assert_eq!(
        v["error"]["data"]["uri"], "docs://serde/page/two",
        "{answer}"
    );
}

#[test]
fn typed_prompt_arguments_are_read_from_their_strings() {
    let service = builder().build().unwrap();
    let answer = call(
        &service,
        &format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{{"name":"greet","arguments":{{"name":"Ada","times":"2"}},{META}}}}}"#
        ),
    );
    assert!(
        answer.contains(r#""text":"Hello Ada! Hello Ada! ""#),
        "{answer}"
    );
    let answer = call(
        &service,
        &format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{{"name":"greet","arguments":{{"name":"Ada","times":"many"}},{META}}}}}"#
        ),
    );
    assert_eq!(
        answer.trim(),
        r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid prompt arguments: \"many\" is not a non-negative integer"}}"#
    );
}

async fn names(_: snodo_proto::CompletionRequest, _: Context) -> Result<Completion, ErrorObject> {
    Ok(Completion::new(vec!["serde".into(), "serde_json".into()]))
}

#[test]
fn each_argument_is_answered_by_its_own_route_and_the_rest_by_the_completer() {
    let service = builder()
        .template_completion("docs://{name}/page/{page}", "name", names)
        .prompt_completion("greet", "times", |req: CompletionRequest| async move {
            Ok(Completion::new(
                ["1", "2", "3"]
                    .into_iter()
                    .filter(|n| n.starts_with(&req.value))
                    .map(String::from)
                    .collect(),
            ))
        })
        .completer(|req: CompletionRequest| async move {
            Ok(Completion::new(vec![format!("general:{}", req.argument)]))
        })
        .build()
        .unwrap();
    let template = r#"{"type":"ref/resource","uri":"docs://{name}/page/{page}"}"#;
    let prompt = r#"{"type":"ref/prompt","name":"greet"}"#;
    assert_eq!(
        values(&complete(&service, template, "name", "se")),
        serde_json::json!({"values":["serde","serde_json"]})
    );
    assert_eq!(
        values(&complete(&service, prompt, "times", "2")),
        serde_json::json!({"values":["2"]})
    );
    assert_eq!(
        values(&complete(&service, prompt, "name", "A")),
        serde_json::json!({"values":["general:name"]})
    );
    assert_eq!(
        values(&complete(&service, template, "page", "")),
        serde_json::json!({"values":["general:page"]})
    );
}

/// Routes alone advertise `completions`, and an argument with no route
/// completes to nothing.
#[test]
fn routes_without_a_completer_complete_the_rest_to_nothing() {
    let service = builder()
        .template_completion("docs://{name}/page/{page}", "name", names)
        .build()
        .unwrap();
    let discover = call(
        &service,
        &format!(r#"{{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{{{META}}}}}"#),
    );
    assert!(discover.contains(r#""completions":{}"#), "{discover}");
    let template = r#"{"type":"ref/resource","uri":"docs://{name}/page/{page}"}"#;
    assert_eq!(
        values(&complete(&service, template, "page", "1")),
        serde_json::json!({"values":[]})
    );
}

#[test]
fn a_route_for_no_registered_argument_is_a_build_error() {
    let unknown = builder()
        .prompt_completion("greet", "nme", names)
        .build()
        .unwrap_err();
    assert_eq!(
        unknown,
        BuildError::UnknownCompletion {
            reference: CompletionRef::Prompt {
                name: "greet".into()
            },
            argument: "nme".into()
        }
    );
    let twice = builder()
        .template_completion("docs://{name}/page/{page}", "page", names)
        .template_completion("docs://{name}/page/{page}", "page", names)
        .build()
        .unwrap_err();
    assert!(
        matches!(twice, BuildError::DuplicateCompletion { .. }),
        "{twice:?}"
    );
    let declared = builder()
        .prompt_completion("greet", "name", names)
        .completer_declared()
        .build()
        .unwrap_err();
    assert_eq!(declared, BuildError::CompletionDeclared);
}
