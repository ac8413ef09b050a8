//! Multi Round-Trip Requests (`basic/patterns/mrtr.mdx`) on the wire: every
//! request and expected answer is literal JSON. A sealed `requestState` is
//! the one thing a literal cannot pin (it carries a random nonce), so
//! expected answers write it as `"<state>"`; the actual one is checked for
//! the `v1.` format, then substituted; round 2 literals splice in the state
//! round 1 returned.

mod support;

use snodo_proto::CompletionRequest;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use snodo_proto::{
    CallToolResult, Completion, Content, Context, CreateMessageRequest, ElicitRequest,
    GetPromptResult, Implementation, InputRequired, Instant, NoArgs, Outcome, Prompt,
    PromptMessage, ReadResourceResult, Reply, Request, Resource, ResourceArgs, ResourceContents,
    ResourceError, Service, StateKeys, Tool, Transport,
};
use support::{b64url, Harness};

const KEY_A: [u8; 32] = [0xa1; 32];
const KEY_B: [u8; 32] = [0xb2; 32];
/// 2026-07-28T00:00:00Z, in milliseconds since the UNIX epoch.
const T0: u64 = 1_785_196_800_000;
const TTL: Duration = Duration::from_secs(60);

#[derive(Deserialize)]
struct Name {
    name: String,
}

#[derive(Serialize, Deserialize)]
struct Steps {
    step: u32,
    name: String,
}

fn name_schema() -> Value {
    json!({"type":"object","properties":{"name":{"type":"string"}},"required":["name"]})
}

fn service(keys: StateKeys) -> Service {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .state_keys(keys)
        .request_state_ttl(TTL)
        // One elicitation; no state of its own.
        .tool(Tool::new("greet", "Asks for a name"), |_: NoArgs, ctx: Context| async move {
            match ctx.elicitation("user_name").and_then(|r| r.content_as::<Name>()) {
                Some(n) => Reply::Complete(CallToolResult::text(format!("Hello, {}!", n.name))),
                None => InputRequired::new()
                    .elicit("user_name", ElicitRequest::form("What is your name?", name_schema()))
                    .into(),
            }
        })
        // Two rounds, carrying typed state between them.
        .tool(Tool::new("steps", "Two questions"), |_: NoArgs, ctx: Context| async move {
            let name = ctx.elicitation("step1").and_then(|r| r.content_as::<Name>());
            match (ctx.state::<Steps>(), name) {
                (Some(s), _) if s.step == 2 => match ctx.elicitation("step2") {
                    Some(r) if r.is_accepted() => Reply::Complete(CallToolResult::text(format!(
                        "{} likes {}",
                        s.name,
                        r.content.unwrap_or_default()["color"].as_str().unwrap_or("?")
                    ))),
                    _ => Reply::InputRequired(InputRequired::new().state(&s)),
                },
                (_, Some(n)) => InputRequired::new()
                    .elicit(
                        "step2",
                        ElicitRequest::form(
                            "Favorite color?",
                            json!({"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}),
                        ),
                    )
                    .state(&Steps { step: 2, name: n.name })
                    .into(),
                _ => InputRequired::new()
                    .elicit("step1", ElicitRequest::form("Name?", name_schema()))
                    .state(&Steps { step: 1, name: String::new() })
                    .into(),
            }
        })
        // Asks for what needs every client capability.
        .tool(Tool::new("everything", "Needs every capability"), |_: NoArgs| async {
            let mut tool_sampling = CreateMessageRequest::user_text("Use a tool", 10);
            tool_sampling.tools = Some(vec![Tool::new("calc", "Calculates")]);
            InputRequired::new()
                .elicit("form", ElicitRequest::form("Name?", name_schema()))
                // The id a 2025-11-25 client would know it by is not sent in
                // 2026-07-28 (`changelog.mdx` major change 11).
                .elicit(
                    "url",
                    ElicitRequest::url("Sign in", "https://example.com/connect")
                        .with_elicitation_id("sign-in-7"),
                )
                .sample("sample", tool_sampling)
                .list_roots("roots")
        })
        .tool(
            Tool::new("with_args", "Binds its arguments").input_schema(
                json!({"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}),
            ),
            |_: Value, ctx: Context| async move {
                if ctx.state::<u32>() == Some(7) {
                    Reply::Complete(CallToolResult::text("state-ok"))
                } else {
                    InputRequired::new().state(&7u32).into()
                }
            },
        )
        .tool(Tool::new("nothing", "Asks for nothing"), |_: NoArgs| async {
            InputRequired::new()
        })
        .prompt(Prompt::new("ask_prompt", "Asks for context"), |_: NoArgs, ctx: Context| async move {
            Ok(match ctx.elicitation("ctx") {
                Some(r) if r.is_accepted() => Reply::Complete(GetPromptResult::new(vec![
                    PromptMessage::user(Content::text("with context")),
                ])),
                _ => InputRequired::new()
                    .elicit(
                        "ctx",
                        ElicitRequest::form(
                            "Context?",
                            json!({"type":"object","properties":{"context":{"type":"string"}}}),
                        ),
                    )
                    .into(),
            })
        })
        .resource(Resource::new("test://ask", "ask"), |args: ResourceArgs, ctx: Context| async move {
            Ok::<_, ResourceError>(match ctx.roots("roots") {
                Some(r) => Reply::Complete(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri,
                    "text/plain",
                    format!("{} root(s)", r.roots.len()),
                )])),
                None => InputRequired::new().list_roots("roots").into(),
            })
        })
        .completer(|_: CompletionRequest| async { Ok(Completion::new(vec![])) })
        .build()
        .unwrap()
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"roots":{}}}"#;
const SERVER_INFO: &str =
    r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}"#;

fn harness(keys: StateKeys) -> Harness {
    let mut h = Harness::new(&service(keys), Transport::Stdio);
    h.now = Instant::from_millis(T0);
    h
}

/// Send one line; return the one message written back, with a sealed
/// `requestState` replaced by `"<state>"`, and that state.
fn exchange(h: &mut Harness, line: &str) -> (Value, Option<String>) {
    let out = h.send(format!("{line}\n").as_bytes());
    let mut lines = out.lines();
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("no answer to {line}"));
    assert_eq!(lines.next(), None, "one message for {line}");
    let mut v: Value = serde_json::from_str(first).unwrap();
    let state = match v.pointer_mut("/result/requestState") {
        Some(s) => {
            let token = s.as_str().expect("requestState is a string").to_string();
            assert!(token.starts_with("v1."), "sealed format: {token}");
            *s = json!("<state>");
            Some(token)
        }
        None => None,
    };
    (v, state)
}

fn literal(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("literal is not JSON ({e}): {text}"))
}

fn greet_r1(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{{SERVER_INFO},"inputRequests":{{"user_name":{{"method":"elicitation/create","params":{{"message":"What is your name?","mode":"form","requestedSchema":{{"properties":{{"name":{{"type":"string"}}}},"required":["name"],"type":"object"}}}}}}}},"requestState":"<state>","resultType":"input_required"}}}}"#
    )
}

fn error(id: u64, code: i64, message: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"error":{"code":code,"message":message}})
}

fn round1(h: &mut Harness) -> String {
    let (r1, state) = exchange(
        h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"greet","arguments":{{}},{META}}}}}"#
        ),
    );
    assert_eq!(r1, literal(&greet_r1(1)));
    state.unwrap()
}

#[test]
fn round_one_asks_and_round_two_completes() {
    let mut h = harness(StateKeys::new(KEY_A));
    let state = round1(&mut h);
    let (r2, _) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"greet","arguments":{{}},"inputResponses":{{"user_name":{{"action":"accept","content":{{"name":"Alice"}}}}}},"requestState":"{state}",{META}}}}}"#
        ),
    );
    assert_eq!(
        r2,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":2,"result":{{{SERVER_INFO},"content":[{{"type":"text","text":"Hello, Alice!"}}],"resultType":"complete"}}}}"#
        ))
    );
}

#[test]
fn the_sealed_payload_binds_request_expiry_and_what_was_asked() {
    let mut h = harness(StateKeys::new(KEY_A));
    let state = round1(&mut h);
    let parts: Vec<&str> = state.split('.').collect();
    assert_eq!(parts.len(), 4, "v1.<kid>.<payload>.<mac>");
    assert_eq!(parts[1], StateKeys::new(KEY_A).signing_key_id());
    let payload: Value = serde_json::from_slice(&b64url(parts[2])).unwrap();
    assert_eq!(payload["m"], "tools/call");
    assert_eq!(payload["t"], "greet");
    assert_eq!(payload["iat"], T0);
    assert_eq!(payload["exp"], T0 + 60_000);
    assert_eq!(payload["q"], json!({"user_name": {"e": name_schema()}}));
    assert_eq!(b64url(payload["d"].as_str().unwrap()).len(), 32, "SHA-256");
    assert_eq!(b64url(parts[3]).len(), 32, "HMAC-SHA256");
}

#[test]
fn retries_without_state_missing_and_extra_responses() {
    let mut h = harness(StateKeys::new(KEY_A));
    // No state: the answer is taken as unverified input, like arguments.
    let (v, _) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"greet","inputResponses":{{"user_name":{{"action":"accept","content":{{"name":"Bob"}}}},"unknown_extra_key":{{"action":"accept","content":{{"foo":"bar"}}}}}},{META}}}}}"#
        ),
    );
    assert_eq!(
        v,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":3,"result":{{{SERVER_INFO},"content":[{{"type":"text","text":"Hello, Bob!"}}],"resultType":"complete"}}}}"#
        ))
    );
    // The wrong key: asked again, not an error (`mrtr.mdx` § Error Handling).
    let (v, _) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"greet","inputResponses":{{"wrong_key":{{"action":"accept","content":{{"data":"wrong"}}}}}},{META}}}}}"#
        ),
    );
    assert_eq!(v, literal(&greet_r1(4)));
    // With state, a response to a key that was never issued is dropped.
    let state = round1(&mut h);
    let (v, _) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"greet","arguments":{{}},"inputResponses":{{"other":{{"action":"accept","content":{{"name":"Eve"}}}}}},"requestState":"{state}",{META}}}}}"#
        ),
    );
    assert_eq!(v, literal(&greet_r1(5)));
}

#[test]
fn malformed_input_responses_and_state_are_invalid_params() {
    let mut h = harness(StateKeys::new(KEY_A));
    let cases = [
        (
            r#""inputResponses":null"#,
            "Parameter inputResponses must be an object mapping input request keys to results",
        ),
        (
            r#""inputResponses":[]"#,
            "Parameter inputResponses must be an object mapping input request keys to results",
        ),
        (
            r#""inputResponses":"x""#,
            "Parameter inputResponses must be an object mapping input request keys to results",
        ),
        (
            r#""inputResponses":{"user_name":12345}"#,
            "Input response user_name must be an object",
        ),
        (
            r#""inputResponses":{"user_name":null}"#,
            "Input response user_name must be an object",
        ),
        (
            r#""requestState":42"#,
            "Parameter requestState must be a string",
        ),
        (
            r#""requestState":null"#,
            "Parameter requestState must be a string",
        ),
        (
            r#""requestState":"""#,
            "Invalid requestState: it was not issued by this server or was modified",
        ),
        (
            r#""requestState":"v1.x.y.z""#,
            "Invalid requestState: it was not issued by this server or was modified",
        ),
    ];
    for (i, (member, message)) in cases.iter().enumerate() {
        let id = 10 + i as u64;
        let (v, _) = exchange(
            &mut h,
            &format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"greet",{member},{META}}}}}"#
            ),
        );
        assert_eq!(v, error(id, -32602, message), "{member}");
    }
}

#[test]
fn mrtr_params_are_unknown_params_elsewhere() {
    let mut h = harness(StateKeys::new(KEY_A));
    let (v, _) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{{"ref":{{"type":"ref/prompt","name":"ask_prompt"}},"argument":{{"name":"a","value":""}},"inputResponses":null,"requestState":7,{META}}}}}"#
        ),
    );
    assert_eq!(
        v,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{{SERVER_INFO},"completion":{{"values":[]}},"resultType":"complete"}}}}"#
        ))
    );
}

#[test]
fn one_flipped_byte_anywhere_is_refused() {
    let mut h = harness(StateKeys::new(KEY_A));
    let state = round1(&mut h);
    let mut refused = 0;
    for i in 0..state.len() {
        let mut bytes = state.clone().into_bytes();
        bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(bytes).unwrap();
        let (v, _) = exchange(
            &mut h,
            &format!(
                r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"greet","arguments":{{}},"inputResponses":{{"user_name":{{"action":"accept","content":{{"name":"Alice"}}}}}},"requestState":"{tampered}",{META}}}}}"#
            ),
        );
        assert_eq!(
            v,
            error(
                2,
                -32602,
                "Invalid requestState: it was not issued by this server or was modified"
            ),
            "byte {i}"
        );
        refused += 1;
    }
    assert_eq!(refused, state.len());
    let (v, _) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"greet","arguments":{{}},"requestState":"{state}-TAMPERED",{META}}}}}"#
        ),
    );
    assert_eq!(
        v,
        error(
            3,
            -32602,
            "Invalid requestState: it was not issued by this server or was modified"
        )
    );
}

#[test]
fn state_expires_after_its_ttl_by_the_injected_clock() {
    let mut h = harness(StateKeys::new(KEY_A));
    let state = round1(&mut h);
    let retry = |id: u64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"greet","arguments":{{}},"inputResponses":{{"user_name":{{"action":"accept","content":{{"name":"Alice"}}}}}},"requestState":"{state}",{META}}}}}"#
        )
    };
    h.now = Instant::from_millis(T0 + 60_000);
    let (v, _) = exchange(&mut h, &retry(2));
    assert_eq!(
        v["result"]["resultType"], "complete",
        "valid through its expiry instant"
    );
    h.now = Instant::from_millis(T0 + 60_001);
    let (v, _) = exchange(&mut h, &retry(3));
    assert_eq!(
        v,
        error(
            3,
            -32602,
            "Expired requestState: retry the original request without it"
        )
    );
}

#[test]
fn state_replayed_on_another_request_is_refused() {
    let mut h = harness(StateKeys::new(KEY_A));
    let (_, state) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"with_args","arguments":{{"n":1}},{META}}}}}"#
        ),
    );
    let state = state.unwrap();
    let same = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"with_args","arguments":{{"n":1}},"requestState":"{state}",{META}}}}}"#
    );
    let (v, _) = exchange(&mut h, &same);
    assert_eq!(
        v,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":2,"result":{{{SERVER_INFO},"content":[{{"type":"text","text":"state-ok"}}],"resultType":"complete"}}}}"#
        ))
    );
    let others = [
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"with_args","arguments":{{"n":2}},"requestState":"{state}",{META}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"greet","arguments":{{}},"requestState":"{state}",{META}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{{"name":"ask_prompt","requestState":"{state}",{META}}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{{"uri":"test://ask","requestState":"{state}",{META}}}}}"#
        ),
    ];
    for line in others {
        let (v, _) = exchange(&mut h, &line);
        assert_eq!(
            v,
            error(
                3,
                -32602,
                "Invalid requestState: it was issued for a different request"
            ),
            "{line}"
        );
    }
}

#[test]
fn answers_to_issued_elicitations_must_match_the_schema() {
    let mut h = harness(StateKeys::new(KEY_A));
    let state = round1(&mut h);
    for (i, response) in [
        r#"{"action":"accept","content":{"name":12}}"#,
        r#"{"action":"accept","content":{}}"#,
        r#"{"action":"accept"}"#,
    ]
    .iter()
    .enumerate()
    {
        let id = 20 + i as u64;
        let (v, _) = exchange(
            &mut h,
            &format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"greet","arguments":{{}},"inputResponses":{{"user_name":{response}}},"requestState":"{state}",{META}}}}}"#
            ),
        );
        assert_eq!(v["error"]["code"], -32602, "{response}: {v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with("Input response user_name does not match the requested schema: "),
            "{v}"
        );
    }
    let (v, _) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{{"name":"greet","arguments":{{}},"inputResponses":{{"user_name":{{"action":"maybe"}}}},"requestState":"{state}",{META}}}}}"#
        ),
    );
    assert_eq!(
        v,
        error(
            30,
            -32602,
            "Input response user_name is not a valid elicitation result"
        )
    );
    // Declining needs no content.
    let (v, _) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{{"name":"greet","arguments":{{}},"inputResponses":{{"user_name":{{"action":"decline"}}}},"requestState":"{state}",{META}}}}}"#
        ),
    );
    assert_eq!(v, literal(&greet_r1(31)));
}

#[test]
fn multi_round_state_is_typed_and_changes_every_round() {
    let mut h = harness(StateKeys::new(KEY_A));
    let call = |id: u64, extra: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"steps",{extra}{META}}}}}"#
        )
    };
    let (v, s1) = exchange(&mut h, &call(1, ""));
    assert_eq!(
        v,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{{SERVER_INFO},"inputRequests":{{"step1":{{"method":"elicitation/create","params":{{"message":"Name?","mode":"form","requestedSchema":{{"properties":{{"name":{{"type":"string"}}}},"required":["name"],"type":"object"}}}}}}}},"requestState":"<state>","resultType":"input_required"}}}}"#
        ))
    );
    let s1 = s1.unwrap();
    let (v, s2) = exchange(
        &mut h,
        &call(
            2,
            &format!(
                r#""inputResponses":{{"step1":{{"action":"accept","content":{{"name":"Alice"}}}}}},"requestState":"{s1}","#
            ),
        ),
    );
    assert_eq!(
        v,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":2,"result":{{{SERVER_INFO},"inputRequests":{{"step2":{{"method":"elicitation/create","params":{{"message":"Favorite color?","mode":"form","requestedSchema":{{"properties":{{"color":{{"type":"string"}}}},"required":["color"],"type":"object"}}}}}}}},"requestState":"<state>","resultType":"input_required"}}}}"#
        ))
    );
    let s2 = s2.unwrap();
    assert_ne!(s1, s2);
    // A state-only round (no input requests): allowed, and re-sealed.
    let (v, s3) = exchange(&mut h, &call(3, &format!(r#""requestState":"{s2}","#)));
    assert_eq!(
        v,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":3,"result":{{{SERVER_INFO},"requestState":"<state>","resultType":"input_required"}}}}"#
        ))
    );
    let s3 = s3.unwrap();
    assert_ne!(s2, s3);
    let (v, _) = exchange(
        &mut h,
        &call(
            4,
            &format!(
                r#""inputResponses":{{"step2":{{"action":"accept","content":{{"color":"blue"}}}}}},"requestState":"{s2}","#
            ),
        ),
    );
    assert_eq!(
        v,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":4,"result":{{{SERVER_INFO},"content":[{{"type":"text","text":"Alice likes blue"}}],"resultType":"complete"}}}}"#
        ))
    );
}

#[test]
fn undeclared_capabilities_are_refused_with_what_is_missing() {
    let mut h = harness(StateKeys::new(KEY_A));
    let cases = [
        (
            r#"{}"#,
            r#"{"elicitation":{"form":{},"url":{}},"roots":{},"sampling":{"tools":{}}}"#,
        ),
        (
            r#"{"elicitation":{},"sampling":{},"roots":{}}"#,
            r#"{"elicitation":{"url":{}},"sampling":{"tools":{}}}"#,
        ),
        (
            r#"{"elicitation":{"url":{}},"sampling":{"tools":{}},"roots":{}}"#,
            r#"{"elicitation":{"form":{}}}"#,
        ),
    ];
    for (caps, missing) in cases {
        let (v, _) = exchange(
            &mut h,
            &format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"everything","_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{caps}}}}}}}"#
            ),
        );
        assert_eq!(
            v,
            literal(&format!(
                r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-32021,"message":"Missing required client capability","data":{{"requiredCapabilities":{missing}}}}}}}"#
            )),
            "{caps}"
        );
    }
    let (v, _) = exchange(
        &mut h,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"everything","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}},"sampling":{"tools":{}},"roots":{}}}}}"#,
    );
    assert_eq!(
        v,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":2,"result":{{{SERVER_INFO},"inputRequests":{{
                "form":{{"method":"elicitation/create","params":{{"message":"Name?","mode":"form","requestedSchema":{{"properties":{{"name":{{"type":"string"}}}},"required":["name"],"type":"object"}}}}}},
                "roots":{{"method":"roots/list","params":{{}}}},
                "sample":{{"method":"sampling/createMessage","params":{{"maxTokens":10,"messages":[{{"content":{{"text":"Use a tool","type":"text"}},"role":"user"}}],"tools":[{{"description":"Calculates","inputSchema":{{"additionalProperties":false,"type":"object"}},"name":"calc"}}]}}}},
                "url":{{"method":"elicitation/create","params":{{"message":"Sign in","mode":"url","url":"https://example.com/connect"}}}}
            }},"requestState":"<state>","resultType":"input_required"}}}}"#
        ))
    );
}

#[test]
fn asking_for_nothing_and_input_from_a_completer_are_internal_errors() {
    let mut h = harness(StateKeys::new(KEY_A));
    let (v, _) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"nothing",{META}}}}}"#
        ),
    );
    assert_eq!(v, error(1, -32603, "Internal error"));

    // A driver answering by hand sees the round on the invocation, and may
    // not answer completion/complete with InputRequired.
    h.run_handlers = false;
    h.send(format!("{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"completion/complete\",\"params\":{{\"ref\":{{\"type\":\"ref/prompt\",\"name\":\"ask_prompt\"}},\"argument\":{{\"name\":\"a\",\"value\":\"\"}},{META}}}}}\n").as_bytes());
    let inv = h.pending.pop().unwrap();
    assert!(matches!(inv.request, Request::Complete(_)));
    assert!(!inv.round().is_retry());
    let ask = InputRequired::new().list_roots("r");
    h.conn
        .complete(inv.call, Outcome::InputRequired(ask), h.now)
        .unwrap();
    assert_eq!(
        literal(h.drain().trim_end()),
        error(2, -32603, "Internal error")
    );
}

#[test]
fn a_driver_answering_by_hand_reads_the_round() {
    let mut h = harness(StateKeys::new(KEY_A));
    let state = round1(&mut h);
    h.run_handlers = false;
    h.send(format!("{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"greet\",\"inputResponses\":{{\"user_name\":{{\"action\":\"accept\",\"content\":{{\"name\":\"Ann\"}}}}}},\"requestState\":\"{state}\",\"arguments\":{{}},{META}}}}}\n").as_bytes());
    let inv = h.pending.pop().unwrap();
    assert!(inv.round().is_retry());
    assert!(inv.round().has_state());
    let answer = inv.round().elicitation("user_name").unwrap();
    assert_eq!(answer.content_as::<Name>().unwrap().name, "Ann");
    assert_eq!(
        inv.round().sampling("user_name"),
        None,
        "issued as an elicitation"
    );
    h.conn
        .complete(
            inv.call,
            Outcome::CallTool(CallToolResult::text("ok")),
            h.now,
        )
        .unwrap();
    assert_eq!(
        literal(h.drain().trim_end()),
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":2,"result":{{{SERVER_INFO},"content":[{{"type":"text","text":"ok"}}],"resultType":"complete"}}}}"#
        ))
    );
}

#[test]
fn keys_rotate_sealing_with_the_newest_and_verifying_with_any() {
    let mut old = harness(StateKeys::new(KEY_A));
    let state_a = round1(&mut old);
    let mut rotated = harness(StateKeys::new(KEY_B).also_accept(KEY_A));
    let mut foreign = harness(StateKeys::new(KEY_B));
    let retry = |state: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"greet","arguments":{{}},"inputResponses":{{"user_name":{{"action":"accept","content":{{"name":"Alice"}}}}}},"requestState":"{state}",{META}}}}}"#
        )
    };
    let (v, _) = exchange(&mut rotated, &retry(&state_a));
    assert_eq!(v["result"]["content"][0]["text"], "Hello, Alice!");
    let (v, _) = exchange(&mut foreign, &retry(&state_a));
    assert_eq!(
        v,
        error(
            2,
            -32602,
            "Invalid requestState: it was not issued by this server or was modified"
        )
    );
    let state_b = round1(&mut rotated);
    assert!(state_b.starts_with(&format!("v1.{}.", StateKeys::new(KEY_B).signing_key_id())));
    let (v, _) = exchange(&mut old, &retry(&state_b));
    assert_eq!(
        v["error"]["code"], -32602,
        "the old key alone cannot verify the new"
    );
}

#[test]
fn prompts_and_resources_ask_too_without_cache_hints() {
    let mut h = harness(StateKeys::new(KEY_A));
    let (v, state) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{{"name":"ask_prompt",{META}}}}}"#
        ),
    );
    assert_eq!(
        v,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{{SERVER_INFO},"inputRequests":{{"ctx":{{"method":"elicitation/create","params":{{"message":"Context?","mode":"form","requestedSchema":{{"properties":{{"context":{{"type":"string"}}}},"type":"object"}}}}}}}},"requestState":"<state>","resultType":"input_required"}}}}"#
        ))
    );
    let (v, _) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{{"name":"ask_prompt","inputResponses":{{"ctx":{{"action":"accept","content":{{"context":"test context"}}}}}},"requestState":"{}",{META}}}}}"#,
            state.unwrap()
        ),
    );
    assert_eq!(
        v,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":2,"result":{{{SERVER_INFO},"messages":[{{"role":"user","content":{{"type":"text","text":"with context"}}}}],"resultType":"complete"}}}}"#
        ))
    );

    let (v, state) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{{"uri":"test://ask",{META}}}}}"#
        ),
    );
    assert_eq!(
        v,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":3,"result":{{{SERVER_INFO},"inputRequests":{{"roots":{{"method":"roots/list","params":{{}}}}}},"requestState":"<state>","resultType":"input_required"}}}}"#
        )),
        "no ttlMs or cacheScope on an InputRequiredResult"
    );
    let (v, _) = exchange(
        &mut h,
        &format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{{"uri":"test://ask","inputResponses":{{"roots":{{"roots":[{{"uri":"file:///test/root","name":"Test Root"}}]}}}},"requestState":"{}",{META}}}}}"#,
            state.unwrap()
        ),
    );
    assert_eq!(
        v,
        literal(&format!(
            r#"{{"jsonrpc":"2.0","id":4,"result":{{{SERVER_INFO},"cacheScope":"private","contents":[{{"uri":"test://ask","mimeType":"text/plain","text":"1 root(s)"}}],"resultType":"complete","ttlMs":0}}}}"#
        ))
    );
}

#[test]
fn a_round_over_http() {
    let mut h = Harness::new(&service(StateKeys::new(KEY_A)), Transport::Http);
    h.now = Instant::from_millis(T0);
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"greet","arguments":{{}},{META}}}}}"#
    );
    let head = "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: greet\r\n";
    let post = |body: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{head}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let out = h.send(post(&body).as_bytes());
    let (head_text, json_text) = out.split_once("\r\n\r\n").unwrap();
    assert_eq!(
        head_text,
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}",
            json_text.len()
        )
    );
    let mut v: Value = serde_json::from_str(json_text).unwrap();
    let state = v["result"]["requestState"].as_str().unwrap().to_string();
    v["result"]["requestState"] = json!("<state>");
    assert_eq!(v, literal(&greet_r1(1)));
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"greet","arguments":{{}},"inputResponses":{{"user_name":{{"action":"accept","content":{{"name":"Alice"}}}}}},"requestState":"{state}",{META}}}}}"#
    );
    let out = h.send(post(&body).as_bytes());
    let expected = format!(
        r#"{{"jsonrpc":"2.0","id":2,"result":{{{SERVER_INFO},"content":[{{"text":"Hello, Alice!","type":"text"}}],"resultType":"complete"}}}}"#
    );
    assert_eq!(
        out,
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{expected}",
            expected.len()
        )
    );
    // A tampered state is a JSON-RPC error on a 200 like any method-params
    // error (only admission errors map to 400).
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"greet","arguments":{{}},"requestState":"{state}-TAMPERED",{META}}}}}"#
    );
    let out = h.send(post(&body).as_bytes());
    assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
    assert!(out.ends_with(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid requestState: it was not issued by this server or was modified"}}"#), "{out}");
}
