//! Extractors in any order (issue 35): a handler is an async closure or
//! fn whose parameters are extractors, at most one of which takes the
//! call's input. Each test drives a service with literal JSON-RPC over
//! stdio and reads back what the handler extracted; a handler whose state
//! the service lacks, or that takes its input twice, is refused when the
//! service is built and when a live-registry change is committed.

mod support;

use serde::Deserialize;
use serde_json::Value;
use snodo_proto::extract::{Meta, Reporter, State};
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::{
    BuildError, CallToolResult, CancelFlag, Completion, CompletionRequest, Content, Context,
    GetPromptResult, Implementation, Kinds, LogLevel, Principal, Prompt, PromptMessage,
    ReadResourceResult, Resource, ResourceArgs, ResourceContents, Service, Tool, Transport,
};
use support::Harness;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

#[derive(Deserialize, JsonSchema)]
struct Greet {
    name: String,
}

struct Db {
    rows: u32,
}

struct Config {
    greeting: &'static str,
}

/// Never given to any service.
struct Absent;

fn line(id: u64, method: &str, params: &str) -> String {
    let sep = if params.is_empty() { "" } else { "," };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{META}{sep}{params}}}}}"#)
        + "\n"
}

/// Every line the connection wrote, parsed.
fn send(h: &mut Harness, id: u64, method: &str, params: &str) -> Vec<Value> {
    let out = h.send(line(id, method, params).as_bytes());
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The answer to request `id` among the lines written.
fn answer(lines: &[Value], id: u64) -> &Value {
    lines
        .iter()
        .find(|l| l["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {id} in {lines:?}"))
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {answer}"))
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn base() -> snodo_proto::ServiceBuilder {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .state(Db { rows: 3 })
        .state(Config { greeting: "hi" })
}

#[test]
fn extractors_come_in_any_order_around_the_arguments() {
    let service = base()
        .stdio_principal(Principal::new("carol", ["notes:read"]))
        .tool(
            Tool::new("mixed", "Everything at once"),
            |meta: Meta,
             db: State<Db>,
             a: Greet,
             config: State<Config>,
             who: Principal,
             cancel: CancelFlag,
             report: Reporter| async move {
                report.progress(1.0, Some(2.0), None);
                CallToolResult::text(format!(
                    "{} {} rows={} by={} v={} cancelled={}",
                    config.greeting,
                    a.name,
                    db.rows,
                    who.subject,
                    meta.protocol_version,
                    cancel.is_cancelled(),
                ))
            },
        )
        .tool(
            Tool::new("reversed", "State last"),
            |a: Greet, config: State<Config>| async move {
                CallToolResult::text(format!("{}, {}", config.greeting, a.name))
            },
        )
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    let out = h.send(
        concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mixed","arguments":{"name":"Ada"},"#,
            r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p1"}}}"#,
            "\n"
        )
        .as_bytes(),
    );
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        text(answer(&lines, 1)),
        "hi Ada rows=3 by=carol v=2026-07-28 cancelled=false"
    );
    assert_eq!(
        lines[0],
        json(
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1.0,"total":2.0}}"#
        ),
        "the Reporter's progress precedes the result: {out}"
    );

    let reversed = send(
        &mut h,
        2,
        "tools/call",
        r#""name":"reversed","arguments":{"name":"Bo"}"#,
    );
    assert_eq!(text(answer(&reversed, 2)), "hi, Bo");
}

#[test]
fn extractors_do_not_change_the_published_input_schema() {
    let service = base()
        .tool(
            Tool::new("with_state", "State and arguments"),
            |_: State<Db>, _: Reporter, a: Greet| async move { CallToolResult::text(a.name) },
        )
        .tool(
            Tool::new("bare", "No arguments"),
            |_: State<Db>| async move { CallToolResult::text("ok") },
        )
        .tool(Tool::new("none", "Nothing at all"), || async {
            CallToolResult::text("ok")
        })
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    let list = send(&mut h, 1, "tools/list", "");
    let tools = answer(&list, 1)["result"]["tools"]
        .as_array()
        .unwrap()
        .clone();
    let schema = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no {name}"))["inputSchema"]
            .clone()
    };
    assert_eq!(
        schema("with_state"),
        json(r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#)
    );
    for name in ["bare", "none"] {
        assert_eq!(
            schema(name),
            json(r#"{"type":"object","additionalProperties":false}"#),
            "{name}"
        );
    }
    let called = send(&mut h, 2, "tools/call", r#""name":"none""#);
    assert_eq!(text(answer(&called, 2)), "ok");
    let refused = send(
        &mut h,
        3,
        "tools/call",
        r#""name":"bare","arguments":{"x":1}"#,
    );
    assert_eq!(answer(&refused, 3)["error"]["code"], -32602, "{refused:?}");
}

#[test]
fn a_principal_extractor_without_a_principal_is_an_internal_error_and_option_is_none() {
    let service = base()
        .tool(
            Tool::new("who", "Needs a principal"),
            |p: Principal| async move { CallToolResult::text(p.subject) },
        )
        .tool(
            Tool::new("maybe", "Takes one if there is one"),
            |p: Option<Principal>| async move {
                CallToolResult::text(p.map_or(String::from("nobody"), |p| p.subject))
            },
        )
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    let who = send(&mut h, 1, "tools/call", r#""name":"who""#);
    assert_eq!(
        answer(&who, 1)["error"],
        json(r#"{"code":-32603,"message":"This call has no authenticated principal"}"#)
    );
    let maybe = send(&mut h, 2, "tools/call", r#""name":"maybe""#);
    assert_eq!(text(answer(&maybe, 2)), "nobody");
}

#[test]
fn an_attached_extractor_on_stdio_is_refused_and_optional_is_none() {
    use snodo_proto::extract::Attached;
    let service =
        base()
            .tool(
                Tool::new("host", "Host value"),
                |Attached(v): Attached<u32>| async move { CallToolResult::text(v.to_string()) },
            )
            .tool(
                Tool::new("maybe_host", "Optional host value"),
                |v: Option<Attached<u32>>| async move {
                    CallToolResult::text(format!("{}", v.is_some()))
                },
            )
            .build()
            .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    let host = send(&mut h, 1, "tools/call", r#""name":"host""#);
    assert_eq!(answer(&host, 1)["error"]["code"], -32603, "{host:?}");
    let maybe = send(&mut h, 2, "tools/call", r#""name":"maybe_host""#);
    assert_eq!(text(answer(&maybe, 2)), "false");
}

#[test]
fn a_second_state_of_one_type_replaces_the_first() {
    let service = base()
        .state(Db { rows: 9 })
        .tool(Tool::new("rows", "Rows"), |db: State<Db>| async move {
            CallToolResult::text(db.rows.to_string())
        })
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    let rows = send(&mut h, 1, "tools/call", r#""name":"rows""#);
    assert_eq!(text(answer(&rows, 1)), "9");
}

#[test]
fn a_handler_whose_state_is_missing_is_refused_at_build() {
    let tool = Service::builder()
        .tool(Tool::new("t", "T"), |_: State<Absent>| async {
            CallToolResult::text("x")
        })
        .build()
        .unwrap_err();
    let BuildError::MissingState { handler, state } = &tool else {
        panic!("{tool:?}")
    };
    assert_eq!(handler, r#"tool "t""#);
    assert!(state.ends_with("Absent"), "{state}");
    assert!(tool.to_string().contains("ServiceBuilder::state"), "{tool}");

    let resource = Service::builder()
        .resource(
            Resource::new("file:///a", "a"),
            |_: ResourceArgs, _: State<Absent>| async {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    "file:///a",
                    "text/plain",
                    "a",
                )]))
            },
        )
        .build()
        .unwrap_err();
    assert!(
        matches!(&resource, BuildError::MissingState { handler, .. } if handler == r#"resource "file:///a""#),
        "{resource:?}"
    );

    let completer = Service::builder()
        .completer(|_: State<Absent>, _: CompletionRequest| async { Ok(Completion::default()) })
        .build()
        .unwrap_err();
    assert!(
        matches!(&completer, BuildError::MissingState { handler, .. } if handler == "the completer"),
        "{completer:?}"
    );
}

#[test]
fn a_handler_taking_its_input_twice_is_refused_at_build() {
    let err = Service::builder()
        .tool(Tool::new("twice", "T"), |_: Greet, _: Greet| async {
            CallToolResult::text("x")
        })
        .build()
        .unwrap_err();
    assert!(
        matches!(&err, BuildError::InputTakenTwice(handler) if handler == r#"tool "twice""#),
        "{err:?}"
    );
}

#[test]
fn a_live_change_whose_state_is_missing_is_refused_and_changes_nothing() {
    let service = base().changing(Kinds::default().tools()).build().unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    let err = service
        .registry()
        .change()
        .tool(Tool::new("ok", "Fine"), |db: State<Db>| async move {
            CallToolResult::text(db.rows.to_string())
        })
        .tool(Tool::new("late", "Needs more"), |_: State<Absent>| async {
            CallToolResult::text("x")
        })
        .commit()
        .unwrap_err();
    assert!(
        matches!(&err, BuildError::MissingState { handler, .. } if handler == r#"tool "late""#),
        "{err:?}"
    );
    let list = send(&mut h, 1, "tools/list", "");
    assert_eq!(
        answer(&list, 1)["result"]["tools"],
        json("[]"),
        "a refused change adds neither tool"
    );

    service
        .registry()
        .change()
        .tool(
            Tool::new("ok", "Fine"),
            |db: State<Db>, c: Context| async move {
                CallToolResult::text(format!("{} {}", db.rows, c.is_cancelled()))
            },
        )
        .commit()
        .unwrap();
    let ok = send(&mut h, 2, "tools/call", r#""name":"ok""#);
    assert_eq!(text(answer(&ok, 2)), "3 false");
}

#[derive(Deserialize, JsonSchema)]
struct Review {
    /// The code to review.
    code: String,
    /// How strict to be.
    strictness: Option<u8>,
}

#[test]
fn a_typed_prompt_declares_its_arguments_from_the_type_and_takes_state() {
    let service = base()
        .prompt(
            Prompt::new("review", "Review code"),
            |config: State<Config>, r: Review| async move {
                Ok(GetPromptResult::new(vec![PromptMessage::user(
                    Content::text(format!(
                        "{}: review {} at {}",
                        config.greeting,
                        r.code,
                        r.strictness.unwrap_or(1)
                    )),
                )]))
            },
        )
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    let list = send(&mut h, 1, "prompts/list", "");
    assert_eq!(
        answer(&list, 1)["result"]["prompts"][0]["arguments"],
        json(
            r#"[{"name":"code","description":"The code to review.","required":true},{"name":"strictness","description":"How strict to be."}]"#
        ),
        "{list:?}"
    );
    let got = send(
        &mut h,
        2,
        "prompts/get",
        r#""name":"review","arguments":{"code":"fn main(){}","strictness":"2"}"#,
    );
    assert_eq!(
        answer(&got, 2)["result"]["messages"][0]["content"]["text"],
        "hi: review fn main(){} at 2",
        "{got:?}"
    );
    let missing = send(
        &mut h,
        3,
        "prompts/get",
        r#""name":"review","arguments":{}"#,
    );
    assert_eq!(answer(&missing, 3)["error"]["code"], -32602, "{missing:?}");
}

#[test]
fn resources_and_completion_take_extractors_too() {
    let service = base()
        .resource(
            Resource::new("file:///rows", "rows"),
            |db: State<Db>, args: ResourceArgs, report: Reporter| async move {
                report.log(LogLevel::Info, None, Value::from("read"));
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri.clone(),
                    "text/plain",
                    db.rows.to_string(),
                )]))
            },
        )
        .completer(|req: CompletionRequest, config: State<Config>| async move {
            Ok(Completion::new(vec![format!(
                "{}-{}",
                config.greeting, req.value
            )]))
        })
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    let read = send(&mut h, 1, "resources/read", r#""uri":"file:///rows""#);
    assert_eq!(
        answer(&read, 1)["result"]["contents"][0]["text"],
        "3",
        "{read:?}"
    );
    let done = send(
        &mut h,
        2,
        "completion/complete",
        r#""ref":{"type":"ref/resource","uri":"file:///rows"},"argument":{"name":"x","value":"a"}"#,
    );
    assert_eq!(
        answer(&done, 2)["result"]["completion"]["values"],
        json(r#"["hi-a"]"#),
        "{done:?}"
    );
}
