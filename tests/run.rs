//! Running a vector table over a transport and reporting every mismatch.

use std::time::Instant;

use serde_json::Value;

use crate::transport::{Transport, Wire};
use crate::vector::{Expect, Http, Scope, Vector};
use crate::vectors::{self, ADMISSION, ENVELOPE, NOTIFICATIONS};

/// What running a table found.
#[derive(Debug, Default)]
pub struct Run {
    /// Vectors sent.
    pub ran: usize,
    /// One report per failing vector, showing the request, the expected and
    /// the actual answer.
    pub failures: Vec<String>,
}

/// Run `vectors` in order over `transport`, skipping those outside
/// `scopes` and, over HTTP, those [not sent there](Http::NotSent). Over
/// HTTP each vector's [`Vector::http`] gives the expected answer and its
/// status is checked too.
pub fn run_vectors(transport: &mut dyn Transport, vectors: &[Vector], scopes: &[Scope]) -> Run {
    let mut run = Run::default();
    for v in vectors.iter().filter(|v| scopes.contains(&v.scope)) {
        check_shape(v);
        let Some((status, expect)) = expected(transport.wire(), v) else {
            continue;
        };
        run.ran += 1;
        let expected = parse(&expect.literals(), v.name);
        let actual = transport.exchange(v.request, expect.responses());
        let actual_status = transport.last_status();
        if actual != expected || actual_status != status {
            run.failures.push(format!(
                "vector `{}` over {}\n  request:  {}\n  expected: {}{}\n  actual:   {}{}{}",
                v.name,
                transport.name(),
                v.request,
                show_status(status),
                show(&expected),
                show_status(actual_status),
                show(&actual),
                why(v),
            ));
        }
    }
    run
}

/// [`run_vectors`], panicking with every failure report.
pub fn assert_vectors(transport: &mut dyn Transport, vectors: &[Vector], scopes: &[Scope]) {
    let run = run_vectors(transport, vectors, scopes);
    if !run.failures.is_empty() {
        panic!(
            "{} of the vectors failed:\n\n{}",
            run.failures.len(),
            run.failures.join("\n\n")
        );
    }
}

/// The whole suite for one cell of the transport × runtime matrix: every
/// vector of the table in order on one connection, then every bad message
/// followed by a served request. Panics with every failure; prints the
/// counts and the time taken to stderr.
pub fn run_table(t: &mut dyn Transport) {
    let started = Instant::now();
    let table = run_vectors(t, &vectors::all(), &[Scope::Any, Scope::Stream]);
    let follow = follow_each_bad_message_run(t);
    eprintln!(
        "{}: {} vectors, {} bad messages each followed by a request, in {:?}",
        t.name(),
        table.ran,
        follow.ran,
        started.elapsed()
    );
    let failures: Vec<String> = table.failures.into_iter().chain(follow.failures).collect();
    assert!(
        failures.is_empty(),
        "{} failures over {}:\n\n{}",
        failures.len(),
        t.name(),
        failures.join("\n\n")
    );
}

/// The status (HTTP only) and messages `v` expects over `wire`, or `None`
/// when it is not sent there.
fn expected(wire: Wire, v: &Vector) -> Option<(Option<u16>, Expect)> {
    match wire {
        Wire::Stream => Some((None, v.expect)),
        Wire::Http => v.http.expected(v.expect).map(|(s, e)| (Some(s), e)),
    }
}

fn check_shape(v: &Vector) {
    match v.scope {
        Scope::Any => assert!(
            !v.request.contains('\n'),
            "vector {}: an Any-scope request is one line",
            v.name
        ),
        Scope::Stream => assert!(
            matches!(v.http, Http::NotSent),
            "vector {}: a Stream-scope vector is not sent over HTTP",
            v.name
        ),
    }
    if let Http::Differs { why, .. } = v.http {
        assert!(!why.is_empty(), "vector {}: say why HTTP differs", v.name);
    }
}

fn why(v: &Vector) -> String {
    match v.http {
        Http::Differs { why, .. } => format!("\n  (HTTP differs: {why})"),
        _ => String::new(),
    }
}

fn show_status(status: Option<u16>) -> String {
    status.map(|s| format!("HTTP {s} ")).unwrap_or_default()
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

const NEXT: &str = r#"{"jsonrpc":"2.0","id":"next","method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const NEXT_RESPONSE: &str = r#"{"jsonrpc":"2.0","id":"next","result":{"content":[{"type":"text","text":"This is a simple text response for testing."}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#;

/// A bad message leaves the server serving: send each vector of the error
/// groups (envelope, admission, notifications) that expects no result,
/// followed by a tool call that runs a handler, and check both answers. On
/// a byte stream both go in one write; over HTTP they are two POSTs on one
/// connection.
pub fn follow_each_bad_message(t: &mut dyn Transport) {
    let run = follow_each_bad_message_run(t);
    assert!(run.failures.is_empty(), "{}", run.failures.join("\n\n"));
}

fn follow_each_bad_message_run(t: &mut dyn Transport) -> Run {
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
    let next = parse(&[NEXT_RESPONSE], "next");
    let mut run = Run::default();
    for v in bad {
        let Some((status, expect)) = expected(t.wire(), v) else {
            continue;
        };
        run.ran += 1;
        let mut expected = parse(&expect.literals(), v.name);
        expected.extend(next.iter().cloned());
        let (actual, statuses) = match t.wire() {
            Wire::Stream => {
                let request = format!("{}\n{NEXT}", v.request);
                (t.exchange(&request, expect.responses() + 1), None)
            }
            Wire::Http => {
                let mut actual = t.exchange(v.request, expect.responses());
                let first = t.last_status();
                actual.extend(t.exchange(NEXT, 1));
                (actual, Some((first, t.last_status())))
            }
        };
        let expected_statuses = status.map(|s| (Some(s), Some(200)));
        if actual != expected || statuses != expected_statuses {
            run.failures.push(format!(
                "`{}` then a tool call over {}\n  expected: {}{}\n  actual:   {}{}",
                v.name,
                t.name(),
                show_statuses(expected_statuses),
                show(&expected),
                show_statuses(statuses),
                show(&actual)
            ));
        }
    }
    run
}

fn show_statuses(s: Option<(Option<u16>, Option<u16>)>) -> String {
    match s {
        Some((a, b)) => format!(
            "HTTP {} then {} ",
            a.map_or(String::from("?"), |s| s.to_string()),
            b.map_or(String::from("?"), |s| s.to_string())
        ),
        None => String::new(),
    }
}

fn parse(literals: &[&str], name: &str) -> Vec<Value> {
    literals
        .iter()
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("vector {name}: literal is not JSON ({e}): {l}"))
        })
        .collect()
}
