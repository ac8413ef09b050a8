//! Running a vector table over a transport and reporting every mismatch.

use serde_json::Value;

use crate::transport::Transport;
use crate::vector::{Scope, Vector};
use crate::vectors::{ADMISSION, ENVELOPE, NOTIFICATIONS};

/// Run `vectors` in order over `transport`, skipping those outside `scopes`.
/// Returns one report per failing vector (empty when all pass); each report
/// shows the request, the expected and the actual messages.
pub fn run_vectors(
    transport: &mut dyn Transport,
    vectors: &[Vector],
    scopes: &[Scope],
) -> Vec<String> {
    let mut failures = Vec::new();
    for v in vectors.iter().filter(|v| scopes.contains(&v.scope)) {
        if v.scope == Scope::Any {
            assert!(
                !v.request.contains('\n'),
                "vector {}: an Any-scope request is one line",
                v.name
            );
        }
        let expected: Vec<Value> = v
            .expect
            .literals()
            .iter()
            .map(|l| {
                serde_json::from_str(l).unwrap_or_else(|e| {
                    panic!("vector {}: expected literal is not JSON: {e}", v.name)
                })
            })
            .collect();
        let actual = transport.exchange(v.request, v.expect.responses());
        if actual != expected {
            failures.push(format!(
                "vector `{}` over {}\n  request:  {}\n  expected: {}\n  actual:   {}",
                v.name,
                transport.name(),
                v.request,
                show(&expected),
                show(&actual)
            ));
        }
    }
    failures
}

/// [`run_vectors`], panicking with every failure report.
pub fn assert_vectors(transport: &mut dyn Transport, vectors: &[Vector], scopes: &[Scope]) {
    let failures = run_vectors(transport, vectors, scopes);
    if !failures.is_empty() {
        panic!(
            "{} of the vectors failed:\n\n{}",
            failures.len(),
            failures.join("\n\n")
        );
    }
}

fn show(messages: &[Value]) -> String {
    if messages.is_empty() {
        return String::from("(nothing)");
    }
    messages
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n            ")
}

/// A bad message leaves the server serving: send each vector of the error
/// groups (envelope, admission, notifications) that expects no result,
/// followed in the same write by a tool call that runs a handler, and check
/// both answers.
pub fn follow_each_bad_message(t: &mut dyn Transport) {
    const NEXT: &str = r#"{"jsonrpc":"2.0","id":"next","method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    const NEXT_RESPONSE: &str = r#"{"jsonrpc":"2.0","id":"next","result":{"content":[{"type":"text","text":"This is a simple text response for testing."}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#;
    let bad: Vec<&Vector> = [ENVELOPE, ADMISSION, NOTIFICATIONS]
        .iter()
        .flat_map(|g| g.iter())
        .filter(|v| {
            v.expect
                .literals()
                .iter()
                .all(|l| !l.contains("\"result\""))
        })
        .collect();
    assert!(
        bad.len() > 40,
        "the error classes are all here ({})",
        bad.len()
    );
    let mut failures = Vec::new();
    for v in bad {
        let request = format!("{}\n{NEXT}", v.request);
        let mut expected = parse(&v.expect.literals());
        expected.extend(parse(&[NEXT_RESPONSE]));
        let actual = t.exchange(&request, v.expect.responses() + 1);
        if actual != expected {
            failures.push(format!(
                "`{}` then a tool call over {}\n  expected: {}\n  actual:   {}",
                v.name,
                t.name(),
                show(&expected),
                show(&actual)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn parse(literals: &[&str]) -> Vec<Value> {
    literals
        .iter()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("literal is not JSON ({e}): {l}"))
        })
        .collect()
}
