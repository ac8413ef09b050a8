//! The independent wire-schema corpus (`evidence/wire-schema/`): every
//! message the real fixture writes over stdio and Streamable HTTP on every
//! runtime, validated against the concrete named definition of the pinned
//! official `schema.json` for its kind, each definition used also fed
//! broken copies it must reject.
//!
//! `SNODO_WIRE_SCHEMA_REPORT=FILE` writes the Markdown coverage report
//! there; `evidence/wire-schema/run` prints it.

mod schema_corpus;

use std::thread;

use snodo_tests::Runtime;

use schema_corpus::capture::{self, Emission};
use schema_corpus::{evaluate, mutate, schema};

const FIXTURE: &str = env!("CARGO_BIN_EXE_snodo-fixture-wire");
const RUNTIMES: [Runtime; 3] = [Runtime::Tokio, Runtime::Smol, Runtime::Blocking];

/// What the corpus must reach (issue 9: at least 60 distinct emissions
/// across at least 25 definitions).
const MIN_DISTINCT: usize = 60;
const MIN_DEFINITIONS: usize = 25;

fn capture_all() -> Vec<Emission> {
    let cells: Vec<thread::JoinHandle<Vec<Emission>>> = RUNTIMES
        .iter()
        .flat_map(|&rt| {
            [
                thread::spawn(move || capture::stdio_cell(FIXTURE, rt)),
                thread::spawn(move || capture::http_cell(FIXTURE, rt)),
            ]
        })
        .collect();
    let mut all = capture::internal_error();
    for c in cells {
        all.extend(c.join().expect("a capture cell panicked"));
    }
    all
}

#[test]
fn every_emission_matches_its_definition_and_every_control_is_rejected() {
    let report = evaluate(&capture_all());
    let markdown = report.markdown();
    if let Some(path) = std::env::var_os("SNODO_WIRE_SCHEMA_REPORT") {
        std::fs::write(&path, &markdown).expect("write the report");
    }
    eprintln!("{}", report.summary());
    assert!(
        report.failures.is_empty(),
        "{} failures:\n{}",
        report.failures.len(),
        report.failures.join("\n")
    );
    assert_eq!(
        report.cells.len(),
        7,
        "six process cells and direct: {:?}",
        report.cells
    );
    assert!(
        report.distinct.len() >= MIN_DISTINCT,
        "{} distinct emissions",
        report.distinct.len()
    );
    assert!(
        report.definitions().len() >= MIN_DEFINITIONS,
        "{} definitions",
        report.definitions().len()
    );
    assert!(
        report.union_only > 0,
        "the response unions accept broken results the branches reject"
    );
}

/// The vendored schema is the published one.
#[test]
fn the_vendored_schema_is_draft_2020_12_with_the_definitions_used() {
    let doc = schema::document();
    assert_eq!(
        doc["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(doc["$defs"].as_object().map(|d| d.len()), Some(155));
    assert_eq!(schema::SCHEMA_SHA256.len(), 64);
}

/// The controls work on a literal: a `tools/call` result missing `content`
/// passes the published union but not the pinned branch, and every
/// mutation of a literal progress notification is rejected.
#[test]
fn controls_on_literals() {
    let result = serde_json::json!({"resultType":"complete"});
    let response = serde_json::json!({"jsonrpc":"2.0","id":1,"result":result});
    assert!(schema::validate(&schema::Target::def("CallToolResultResponse"), &response).is_ok());
    assert!(schema::validate(
        &schema::Target::branch("CallToolResult", "complete"),
        &result
    )
    .is_err());

    let progress = serde_json::json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":50,"total":100}});
    let target = schema::Target::def("ProgressNotification");
    assert!(schema::validate(&target, &progress).is_ok());
    let ms = mutate::mutations(&target, &progress);
    let whats: Vec<&str> = ms.iter().map(|m| m.what.as_str()).collect();
    assert_eq!(
        whats,
        [
            "required `jsonrpc` removed",
            "required `method` removed",
            "required `params` removed",
            "`jsonrpc` of another type (boolean)",
            "`jsonrpc` not \"2.0\"",
            "`method` of another type (boolean)",
            "`method` not \"notifications/progress\"",
            "`params` of another type (boolean)",
            "the whole value of another type",
        ]
    );
    for m in ms {
        assert!(schema::validate(&target, &m.value).is_err(), "{}", m.what);
    }
}
