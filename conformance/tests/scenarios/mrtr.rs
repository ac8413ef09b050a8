//! `input-required-result-*` (`SCENARIOS-2026-07-28.md` § 3.24–3.37) and
//! the `test_streaming_elicitation` probe of `server-stateless`: the same
//! requests the runner sends, the same checks it makes. Every round of one
//! scenario goes to the same fixture build (one request-state key); each
//! request is its own connection, as the stateless protocol allows.

use serde_json::{json, Value};
use snodo_proto::{Service, StateKeys};

use crate::harness::exchange_on;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-test-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"elicitation":{},"roots":{}}}"#;

fn fixture() -> Service {
    snodo_conformance::try_service_with_keys(Some(StateKeys::new([0x5e; 32]))).unwrap()
}

fn answer(service: &Service, request: &str) -> Value {
    let lines = exchange_on(service, request);
    assert_eq!(
        lines.len(),
        1,
        "one message, no request on the stream: {lines:?}"
    );
    let v = lines.into_iter().next().unwrap();
    assert!(
        v.get("method").is_none(),
        "a server never sends requests: {v}"
    );
    v
}

fn call(id: u64, tool: &str, extra: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}},{extra}{META}}}}}"#
    )
}

/// An `InputRequiredResult`: returns it.
fn input_required(v: &Value) -> &Value {
    let r = &v["result"];
    assert_eq!(r["resultType"], "input_required", "{v}");
    assert!(
        r.get("ttlMs").is_none() && r.get("cacheScope").is_none(),
        "{v}"
    );
    assert_eq!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "snodo-fixture"
    );
    r
}

fn complete(v: &Value) -> &Value {
    let r = &v["result"];
    assert_eq!(r["resultType"], "complete", "{v}");
    r
}

fn first_key(r: &Value) -> String {
    r["inputRequests"]
        .as_object()
        .and_then(|m| m.keys().next().cloned())
        .unwrap_or_else(|| panic!("no inputRequests: {r}"))
}

fn state(r: &Value) -> String {
    let s = r["requestState"].as_str().unwrap_or_default();
    assert!(!s.is_empty(), "a non-empty requestState: {r}");
    s.to_string()
}

fn text(r: &Value) -> &str {
    r["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn basic_elicitation_result_type_and_validation() {
    let f = fixture();
    let r1 = answer(&f, &call(1, "test_input_required_result_elicitation", ""));
    let r = input_required(&r1);
    assert_eq!(
        r["inputRequests"]["user_name"],
        json!({"method":"elicitation/create","params":{"mode":"form","message":"What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}})
    );
    let r2 = answer(
        &f,
        &call(
            2,
            "test_input_required_result_elicitation",
            r#""inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}},"#,
        ),
    );
    assert_eq!(text(complete(&r2)), "Hello, Alice!");
    // -missing-input-response: asked again, not an error.
    let v = answer(
        &f,
        &call(
            3,
            "test_input_required_result_elicitation",
            r#""inputResponses":{"wrong_key":{"action":"accept","content":{"data":"wrong"}}},"#,
        ),
    );
    assert!(input_required(&v)["inputRequests"]["user_name"].is_object());
    // -ignore-extra-params.
    let v = answer(
        &f,
        &call(
            4,
            "test_input_required_result_elicitation",
            r#""inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}},"unknown_extra_key":{"action":"accept","content":{"foo":"bar"}},"another_unexpected":{"action":"accept","content":{"baz":123}}},"#,
        ),
    );
    assert_eq!(text(complete(&v)), "Hello, Alice!");
    // -validate-input: never a complete result.
    for (id, bad) in [
        (5, r#""inputResponses":{"user_name":12345},"#),
        (6, r#""inputResponses":null,"#),
    ] {
        let v = answer(&f, &call(id, "test_input_required_result_elicitation", bad));
        assert_eq!(v["error"]["code"], -32602, "{v}");
        assert_eq!(v["id"], id);
    }
}

#[test]
fn basic_sampling_and_list_roots() {
    let f = fixture();
    let r1 = answer(&f, &call(1, "test_input_required_result_sampling", ""));
    let key = first_key(input_required(&r1));
    assert_eq!(
        r1["result"]["inputRequests"][&key],
        json!({"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"What is the capital of France?"}}],"maxTokens":100}})
    );
    let r2 = answer(
        &f,
        &call(
            2,
            "test_input_required_result_sampling",
            &format!(
                r#""inputResponses":{{"{key}":{{"role":"assistant","content":{{"type":"text","text":"The capital of France is Paris."}},"model":"test-model","stopReason":"endTurn"}}}},"requestState":"{}","#,
                state(&r1["result"])
            ),
        ),
    );
    assert_eq!(
        text(complete(&r2)),
        "The model (test-model) answered: The capital of France is Paris."
    );

    let r1 = answer(&f, &call(3, "test_input_required_result_list_roots", ""));
    let key = first_key(input_required(&r1));
    assert_eq!(
        r1["result"]["inputRequests"][&key],
        json!({"method":"roots/list","params":{}})
    );
    let r2 = answer(
        &f,
        &call(
            4,
            "test_input_required_result_list_roots",
            &format!(
                r#""inputResponses":{{"{key}":{{"roots":[{{"uri":"file:///test/root","name":"Test Root"}}]}}}},"#
            ),
        ),
    );
    assert_eq!(text(complete(&r2)), "Found 1 root(s)");
}

#[test]
fn request_state_and_tampered_state() {
    let f = fixture();
    for (tool, done) in [
        (
            "test_input_required_result_request_state",
            "state-ok: ok=true",
        ),
        (
            "test_input_required_result_tampered_state",
            "state verified: ok=true",
        ),
    ] {
        let r1 = answer(&f, &call(1, tool, ""));
        let r = input_required(&r1);
        assert_eq!(
            r["inputRequests"]["confirm"],
            json!({"method":"elicitation/create","params":{"mode":"form","message":"Please confirm","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}})
        );
        let s = state(r);
        let response = r#""inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}},"#;
        let v = answer(
            &f,
            &call(2, tool, &format!(r#"{response}"requestState":"{s}","#)),
        );
        assert_eq!(text(complete(&v)), done);
        let v = answer(
            &f,
            &call(
                3,
                tool,
                &format!(r#"{response}"requestState":"{s}-TAMPERED","#),
            ),
        );
        assert_eq!(
            v,
            json!({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid requestState: it was not issued by this server or was modified"}})
        );
        // Without the state the confirmation is asked for again.
        let v = answer(&f, &call(4, tool, response));
        assert!(input_required(&v)["requestState"].is_string());
    }
}

#[test]
fn multiple_inputs_at_once() {
    let f = fixture();
    let r1 = answer(
        &f,
        &call(1, "test_input_required_result_multiple_inputs", ""),
    );
    let r = input_required(&r1);
    let requests = r["inputRequests"].as_object().unwrap();
    let mut methods: Vec<&str> = requests
        .values()
        .map(|q| q["method"].as_str().unwrap())
        .collect();
    methods.sort_unstable();
    assert_eq!(
        methods,
        ["elicitation/create", "roots/list", "sampling/createMessage"]
    );
    assert_eq!(
        requests["greeting"],
        json!({"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Generate a greeting"}}],"maxTokens":50}})
    );
    let s = state(r);
    let responses = r#""inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}},"greeting":{"role":"assistant","content":{"type":"text","text":"Hello there!"},"model":"test-model"},"client_roots":{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}},"#;
    let v = answer(
        &f,
        &call(
            2,
            "test_input_required_result_multiple_inputs",
            &format!(r#"{responses}"requestState":"{s}","#),
        ),
    );
    assert_eq!(
        text(complete(&v)),
        "Alice (test-model): Hello there! [1 root(s)]"
    );
    // One answer missing: everything is asked for again, with new state.
    let partial =
        r#""inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}},"#;
    let v = answer(
        &f,
        &call(
            3,
            "test_input_required_result_multiple_inputs",
            &format!(r#"{partial}"requestState":"{s}","#),
        ),
    );
    assert_eq!(
        input_required(&v)["inputRequests"]
            .as_object()
            .unwrap()
            .len(),
        3
    );
    assert_ne!(state(&v["result"]), s);
}

#[test]
fn multi_round() {
    let f = fixture();
    let tool = "test_input_required_result_multi_round";
    let r1 = answer(&f, &call(1, tool, ""));
    let r = input_required(&r1);
    assert_eq!(
        r["inputRequests"],
        json!({"step1":{"method":"elicitation/create","params":{"mode":"form","message":"Step 1: What is your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}})
    );
    let s1 = state(r);
    let r2 = answer(
        &f,
        &call(
            2,
            tool,
            &format!(
                r#""inputResponses":{{"step1":{{"action":"accept","content":{{"name":"Alice"}}}}}},"requestState":"{s1}","#
            ),
        ),
    );
    let r = input_required(&r2);
    assert_eq!(
        r["inputRequests"],
        json!({"step2":{"method":"elicitation/create","params":{"mode":"form","message":"Step 2: What is your favorite color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}}})
    );
    let s2 = state(r);
    assert_ne!(s1, s2);
    let r3 = answer(
        &f,
        &call(
            3,
            tool,
            &format!(
                r#""inputResponses":{{"step2":{{"action":"accept","content":{{"color":"blue"}}}}}},"requestState":"{s2}","#
            ),
        ),
    );
    assert_eq!(text(complete(&r3)), "Alice's favorite color is blue");
}

#[test]
fn prompts_ask_too() {
    let f = fixture();
    let get = |id: u64, extra: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"prompts/get","params":{{"name":"test_input_required_result_prompt",{extra}{META}}}}}"#
        )
    };
    let r1 = answer(&f, &get(1, ""));
    let r = input_required(&r1);
    assert_eq!(
        r["inputRequests"]["user_context"],
        json!({"method":"elicitation/create","params":{"mode":"form","message":"What context should the prompt use?","requestedSchema":{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}}})
    );
    let r2 = answer(
        &f,
        &get(
            2,
            &format!(
                r#""inputResponses":{{"user_context":{{"action":"accept","content":{{"context":"test context"}}}}}},"requestState":"{}","#,
                state(r)
            ),
        ),
    );
    assert_eq!(
        complete(&r2)["messages"],
        json!([{"role":"user","content":{"type":"text","text":"Use this context: test context"}}])
    );
}

#[test]
fn never_on_other_requests() {
    let f = fixture();
    for method in ["tools/list", "prompts/list"] {
        let v = answer(
            &f,
            &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{META}}}}}"#),
        );
        assert_eq!(v["result"]["resultType"], "complete", "{v}");
    }
}

#[test]
fn capabilities_are_respected() {
    let f = fixture();
    let with_caps = |caps: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"test_input_required_result_capabilities","arguments":{{}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{caps}}}}}}}"#
        )
    };
    let v = answer(&f, &with_caps(r#"{"sampling":{}}"#));
    let methods: Vec<&str> = input_required(&v)["inputRequests"]
        .as_object()
        .unwrap()
        .values()
        .map(|q| q["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["sampling/createMessage"]);
    let v = answer(&f, &with_caps(r#"{"elicitation":{},"roots":{}}"#));
    let keys: Vec<&String> = input_required(&v)["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["client_roots", "user_name"]);
    let v = answer(&f, &with_caps("{}"));
    assert_eq!(
        text(complete(&v)),
        "The client declared no capability to answer input requests."
    );
}

#[test]
fn streaming_elicitation_is_an_input_required_result() {
    let f = fixture();
    let v = answer(
        &f,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_streaming_elicitation","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"conformance-client","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#,
    );
    assert_eq!(
        input_required(&v)["inputRequests"]["user_input"]["method"],
        "elicitation/create"
    );
    // Without the elicitation capability the engine refuses it (-32021).
    let v = answer(
        &f,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_streaming_elicitation","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
    );
    assert_eq!(
        v,
        json!({"jsonrpc":"2.0","id":2,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}})
    );
}

#[test]
fn another_build_with_another_key_refuses_the_state() {
    let a = fixture();
    let b = snodo_conformance::try_service_with_keys(Some(StateKeys::new([0x77; 32]))).unwrap();
    let r1 = answer(&a, &call(1, "test_input_required_result_request_state", ""));
    let s = state(&r1["result"]);
    let retry = call(
        2,
        "test_input_required_result_request_state",
        &format!(
            r#""inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}}}},"requestState":"{s}","#
        ),
    );
    assert_eq!(answer(&b, &retry)["error"]["code"], -32602);
    assert_eq!(text(complete(&answer(&a, &retry))), "state-ok: ok=true");
}
