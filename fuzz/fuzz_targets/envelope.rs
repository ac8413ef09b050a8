//! The JSON-RPC envelope and admission (`jsonrpc::parse`,
//! `dispatch::dispatch`, and on HTTP `rules::check_head` and the header
//! mirrors), over arbitrary bytes and over arbitrary JSON built from the
//! protocol's vocabulary. Checked against a classification written from
//! JSON-RPC 2.0 and MCP alone: requests get an answer, an error or an
//! invocation with their own id; notifications nothing (a cancellation
//! names its id); anything else an error with the id when readable. Errors
//! carry known codes in the order the conformance suite requires (required
//! `_meta` → `-32602`, then the version → `-32022`, then the method →
//! `-32601`; see `snodo_proto::dispatch`);
//! correct header mirrors are never refused; every answer serializes to a
//! valid message; dispatching is deterministic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};
use snodo_fuzz::machine::oracle::{classify, Line};
use snodo_fuzz::machine::source::Source;
use snodo_fuzz::machine::wire::{self, Message};
use snodo_proto::dispatch::{dispatch, Dispatch};
use snodo_proto::http::codec::{Head, HeadStr};
use snodo_proto::http::rules::{check_head, Mirrors};
use snodo_proto::jsonrpc::{self, RequestId};
use snodo_proto::{ErrorObject, Instant};

const VERSION: &str = "2026-07-28";
const KNOWN_CODES: &[i64] = &[
    -32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022,
];
const KEYS: &[&str] = &[
    "jsonrpc",
    "id",
    "method",
    "params",
    "_meta",
    "name",
    "arguments",
    "uri",
    "cursor",
    "ref",
    "argument",
    "value",
    "type",
    "context",
    "notifications",
    "requestState",
    "inputResponses",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/logLevel",
    "io.modelcontextprotocol/clientInfo",
    "progressToken",
    "traceparent",
    "result",
    "error",
    "requestId",
    "region",
    "n",
    "toolsListChanged",
    "resourceSubscriptions",
    "elicitation",
    "form",
    "sampling",
    "roots",
    "version",
    "text",
];
const STRINGS: &[&str] = &[
    "2.0",
    VERSION,
    "2025-06-18",
    "tools/call",
    "tools/list",
    "server/discover",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "prompts/get",
    "prompts/list",
    "completion/complete",
    "subscriptions/listen",
    "notifications/cancelled",
    "initialize",
    "ping",
    "a",
    "typed",
    "hdr",
    "echo",
    "ask",
    "p",
    "x",
    "file:///a.txt",
    "note://1",
    "ref/prompt",
    "ref/resource",
    "debug",
    "eu",
    "",
    "v1.AAAA.BBBB.CCCC",
    "\u{e9}",
    "\u{0}",
];
const SERVED: &[&str] = &[
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "prompts/get",
    "prompts/list",
    "completion/complete",
    "subscriptions/listen",
];
const NOT_SERVED: &[&str] = &[
    "initialize",
    "ping",
    "nope",
    "sampling/createMessage",
    "roots/list",
    "notifications/cancelled",
];

fn value(src: &mut Source, depth: usize) -> Value {
    match src.below(if depth > 4 { 6 } else { 9 }) {
        0 => Value::Null,
        1 => Value::Bool(src.chance(1, 2)),
        2 => json!(*src.pick(&[0i64, 1, -1, 2, 3, i64::MAX, i64::MIN])),
        3 => json!(*src.pick(&[1.5f64, 1e300, -0.0, 0.1])),
        4 => json!(u64::MAX),
        5 => Value::String(String::from(*src.pick(STRINGS))),
        6 | 7 => {
            let mut m = Map::new();
            for _ in 0..src.below(5) {
                m.insert(String::from(*src.pick(KEYS)), value(src, depth + 1));
            }
            Value::Object(m)
        }
        _ => Value::Array((0..src.below(4)).map(|_| value(src, depth + 1)).collect()),
    }
}

/// A valid request or notification for the machine fixture.
fn template(src: &mut Source) -> Value {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    });
    let (method, mut params) = match src.below(12) {
        0 => ("server/discover", json!({})),
        1 => ("tools/list", json!({})),
        2 => ("tools/call", json!({"name": "a", "arguments": {}})),
        3 => (
            "tools/call",
            json!({"name": "typed", "arguments": {"n": 1}}),
        ),
        4 => (
            "tools/call",
            json!({"name": "hdr", "arguments": {"region": "eu"}}),
        ),
        5 => ("resources/read", json!({"uri": "note://1"})),
        6 => ("prompts/get", json!({"name": "p", "arguments": {"x": "1"}})),
        7 => (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "x", "value": ""}}),
        ),
        8 => (
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        ),
        9 => (
            "tools/call",
            json!({"name": "a", "requestState": "v1.x.y.z", "inputResponses": {"k": {}}}),
        ),
        10 => ("resources/templates/list", json!({"cursor": "x"})),
        _ => {
            return json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
        }
    };
    params["_meta"] = meta;
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

/// Damage a value at a random path: drop, replace or add a member.
fn mutate(src: &mut Source, v: &mut Value, depth: usize) {
    match v {
        Value::Object(m) if !m.is_empty() && depth < 6 && src.chance(2, 3) => {
            let k = m
                .keys()
                .nth(src.below(m.len()))
                .cloned()
                .unwrap_or_default();
            match src.below(4) {
                0 => {
                    m.remove(&k);
                }
                1 => {
                    m.insert(k, value(src, depth));
                }
                2 => {
                    m.insert(String::from(*src.pick(KEYS)), value(src, depth));
                }
                _ => {
                    if let Some(child) = m.get_mut(&k) {
                        mutate(src, child, depth + 1);
                    }
                }
            }
        }
        Value::Array(a) if !a.is_empty() && src.chance(1, 2) => {
            let i = src.below(a.len());
            mutate(src, &mut a[i], depth + 1);
        }
        other => *other = value(src, depth),
    }
}

/// The header mirrors a conforming client derives from `body`
/// (`streamable-http.mdx` § Request Metadata), when it can.
/// Header fields, lower-case names.
type Fields = Vec<(String, Vec<u8>)>;

fn mirrors(body: &Value) -> Option<Fields> {
    let method = body.get("method")?.as_str()?;
    let params = body.get("params")?;
    let version = params
        .get("_meta")?
        .get("io.modelcontextprotocol/protocolVersion")?
        .as_str()?;
    let printable = |s: &str| s.bytes().all(|b| (0x20..0x7f).contains(&b)) && s.trim() == s;
    if !printable(method) || !printable(version) {
        return None;
    }
    let mut h = vec![
        (
            String::from("mcp-protocol-version"),
            version.as_bytes().to_vec(),
        ),
        (String::from("mcp-method"), method.as_bytes().to_vec()),
    ];
    let field = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    if let Some(f) = field {
        let v = params.get(f)?.as_str()?;
        if !printable(v) || v.starts_with("=?") {
            return None;
        }
        h.push((String::from("mcp-name"), v.as_bytes().to_vec()));
    }
    if method == "tools/call" && params.get("name")?.as_str()? == "hdr" {
        match params.get("arguments").and_then(|a| a.get("region")) {
            None | Some(Value::Null) => {}
            Some(Value::String(r)) if printable(r) && !r.starts_with("=?") && !r.is_empty() => {
                h.push((String::from("mcp-param-region"), r.as_bytes().to_vec()));
            }
            Some(_) => return None,
        }
    }
    Some(h)
}

fn head(headers: Fields) -> Head {
    Head::new("POST", "/mcp", 1, headers)
}

fn check_error(e: &ErrorObject, id: Option<&RequestId>) {
    assert!(
        KNOWN_CODES.contains(&e.code),
        "unexpected error code {}",
        e.code
    );
    assert!(!e.message.is_empty(), "an error without a message");
    let mut out = Vec::new();
    jsonrpc::write_error(&mut out, id, e);
    match wire::message(&out) {
        Ok(Message::Response {
            outcome: Err(c), ..
        }) if c == e.code => {}
        other => panic!(
            "error serializes to {other:?}: {}",
            String::from_utf8_lossy(&out)
        ),
    }
}

/// `headers`: the HTTP head's fields, and whether they mirror the body exactly.
fn check(bytes: &[u8], headers: Option<(Fields, bool)>) {
    let (service, _) = snodo_fuzz::fixture();
    let now = Instant::from_millis(1_700_000_000_000);
    let head = headers.as_ref().map(|(h, _)| head(h.clone()));
    let m = head.as_ref().map(|head| Mirrors { head, service });
    let d = dispatch(
        service,
        jsonrpc::parse(bytes),
        m.as_ref().map(|m| m as _),
        None,
        now,
    );
    let again = dispatch(
        service,
        jsonrpc::parse(bytes),
        m.as_ref().map(|m| m as _),
        None,
        now,
    );
    assert_eq!(
        format!("{d:?}"),
        format!("{again:?}"),
        "dispatch is not deterministic"
    );
    let same = |got: &RequestId, want: &Value| {
        assert_eq!(&got.to_value(), want, "answered with another id");
    };
    match (classify(bytes), &d) {
        (
            Line::Blank | Line::Refused(None),
            Dispatch::Error {
                id: None,
                error,
                admission: true,
            },
        ) => {
            check_error(error, None);
            assert!(
                [-32700, -32600].contains(&error.code),
                "envelope error {}",
                error.code
            );
        }
        (
            Line::Refused(Some(k)),
            Dispatch::Error {
                id: Some(id),
                error,
                admission: true,
            },
        ) => {
            assert_eq!(&wire::key(&id.to_value()), &k, "refused with another id");
            check_error(error, Some(id));
        }
        (Line::Request { id, method, params }, _) => {
            match &d {
                Dispatch::Answer { id: got, result } => {
                    same(got, &id);
                    let mut out = Vec::new();
                    jsonrpc::write_result_raw(&mut out, got, result);
                    match wire::message(&out) {
                        Ok(Message::Response { outcome: Ok(_), .. }) => {}
                        other => panic!("answer serializes to {other:?}"),
                    }
                }
                Dispatch::Error {
                    id: Some(got),
                    error,
                    ..
                } => {
                    same(got, &id);
                    check_error(error, Some(got));
                    admission_order(
                        &method,
                        &params,
                        error,
                        headers.as_ref().map(|(_, exact)| *exact),
                    );
                }
                Dispatch::Invoke(a) => {
                    same(&a.id, &id);
                    assert!(
                        SERVED.contains(&method.as_str()),
                        "{method} invoked a handler"
                    );
                }
                Dispatch::Listen { id: got, .. } => {
                    same(got, &id);
                    assert_eq!(method, "subscriptions/listen");
                }
                other => panic!("a request dispatched as {other:?}"),
            }
            if !matches!(d, Dispatch::Error { .. }) {
                assert!(SERVED.contains(&method.as_str()), "{method} was served");
            }
        }
        (Line::Notification(Some(want)), Dispatch::Cancel { request_id }) => {
            same(request_id, &want)
        }
        (Line::Notification(None), Dispatch::Ignore) => {}
        (line, d) => panic!("classified as {line:?} but dispatched as {d:?}"),
    }
}

/// The first failing admission step decides the error (§ 4.3): required
/// `_meta`, header mirrors, version, method.
fn admission_order(
    method: &str,
    params: &Map<String, Value>,
    e: &ErrorObject,
    exact_mirrors: Option<bool>,
) {
    if exact_mirrors == Some(true) {
        assert_ne!(
            e.code, -32020,
            "correct header mirrors refused: {}",
            e.message
        );
    }
    let meta = params.get("_meta").and_then(Value::as_object);
    let version = meta.and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"));
    let caps = meta.and_then(|m| m.get("io.modelcontextprotocol/clientCapabilities"));
    let (Some(Value::String(version)), Some(Value::Object(_))) = (version, caps) else {
        assert_eq!(
            e.code, -32602,
            "missing or malformed required _meta answered {}",
            e.code
        );
        return;
    };
    if exact_mirrors == Some(false) {
        return;
    }
    if version != VERSION {
        assert_eq!(e.code, -32022, "unsupported version answered {}", e.code);
        return;
    }
    if NOT_SERVED.contains(&method) {
        assert_eq!(e.code, -32601, "{method} answered {}", e.code);
    }
}

/// The head checks over arbitrary header bytes never panic and refuse
/// with the statuses `streamable-http.mdx` gives.
fn head_rules(src: &mut Source) {
    let (service, _) = snodo_fuzz::fixture();
    let names = ["host", "origin", "content-type", "accept", "host", "accept"];
    let mut headers = vec![
        (String::from("host"), b"127.0.0.1:3000".to_vec()),
        (String::from("content-type"), b"application/json".to_vec()),
        (
            String::from("accept"),
            b"application/json, text/event-stream".to_vec(),
        ),
    ];
    for _ in 0..src.below(4) {
        let name = String::from(*src.pick(&names));
        let value = src.bytes(40).to_vec();
        if src.chance(1, 2) {
            headers.retain(|(n, _)| n != &name);
        }
        headers.push((name, value));
    }
    let mut h = head(headers);
    if src.chance(1, 8) {
        h.method = HeadStr::new(*src.pick(&["GET", "DELETE", "post"]));
    }
    if src.chance(1, 8) {
        h.path = HeadStr::new(*src.pick(&["/", "/mcp/", "/MCP"]));
    }
    if let Err(r) = check_head(service.http_config(), &h) {
        assert!(
            [400, 403, 404, 405, 406, 415].contains(&r.status),
            "head refused with {}",
            r.status
        );
        assert!(!r.message.is_empty());
        assert_eq!(r.allow.is_some(), r.status == 405);
    }
}

fuzz_target!(|data: &[u8]| {
    let mut src = Source::new(data);
    match src.below(4) {
        0 => {
            let bytes = &data[src.consumed()..];
            check(bytes, None);
        }
        1 => head_rules(&mut src),
        _ => {
            let mut v = if src.chance(1, 4) {
                value(&mut src, 0)
            } else {
                template(&mut src)
            };
            for _ in 0..src.below(4) {
                mutate(&mut src, &mut v, 0);
            }
            let bytes = serde_json::to_vec(&v).unwrap_or_default();
            let headers = match (src.below(3), mirrors(&v)) {
                (0, _) => None,
                (1, Some(h)) => Some((h, true)),
                (_, h) => {
                    let mut h = h.unwrap_or_default();
                    if !h.is_empty() && src.chance(1, 2) {
                        let i = src.below(h.len());
                        h.remove(i);
                    } else {
                        h.push((
                            String::from(*src.pick(&[
                                "mcp-method",
                                "mcp-name",
                                "mcp-protocol-version",
                                "mcp-param-region",
                            ])),
                            src.bytes(12).to_vec(),
                        ));
                    }
                    Some((h, false))
                }
            };
            check(&bytes, headers);
        }
    }
});
