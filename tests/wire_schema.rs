//! The independent wire-schema corpus (`evidence/wire-schema/`): every
//! message the real fixture writes over stdio and Streamable HTTP on every
//! runtime, validated against the concrete named definition of the pinned
//! official `schema.json` for its kind (the Tasks extension's messages:
//! of the Tasks extension's `schema.json`), each definition used also fed
//! broken copies it must reject.
//!
//! The run's report (counts per transport, per cell and per definition) is
//! committed as `evidence/wire-schema/report.md` and must match what the
//! run produces, byte for byte: the capture is deterministic (the same
//! requests to the same fixture, each waited for), so any change in what
//! the server emits or what the schema accepts shows up as a failing diff,
//! and `SNODO_WIRE_SCHEMA_BLESS=1` (`evidence/wire-schema/run --bless`)
//! rewrites the file for review. The README quotes the report's summary
//! line, which is checked too. `SNODO_WIRE_SCHEMA_REPORT=FILE` also writes
//! the report to FILE.

mod schema_corpus;

use std::path::PathBuf;
use std::thread;

use snodo_tests::Runtime;

use schema_corpus::capture::{self, Emission};
use schema_corpus::{evaluate, mutate, schema, Report};

const FIXTURE: &str = env!("CARGO_BIN_EXE_snodo-fixture-wire");
const RUNTIMES: [Runtime; 3] = [Runtime::Tokio, Runtime::Smol, Runtime::Blocking];

/// Floors at what the corpus captured when they were set (2026-12-01,
/// `evidence/wire-schema/report.md`). The committed report pins the exact
/// counts; these keep a re-blessed report from quietly shrinking below
/// them: raising one is routine, lowering one needs a reason in the commit.
const MIN_DISTINCT: usize = 145;
const MIN_DEFINITIONS: usize = 81;
const MIN_EMISSIONS: usize = 1151;
const MIN_VALIDATIONS: usize = 4261;
const MIN_CONTROLS: usize = 3256;

/// The Tasks extension schema's definitions every process cell must reach.
const TASKS_TARGETS: [&str; 12] = [
    "CreateTaskResult",
    "GetTaskResult",
    "WorkingTask",
    "CompletedTask",
    "FailedTask",
    "InputRequiredTask",
    "CancelledTask",
    "UpdateTaskResult",
    "CancelTaskResult",
    "TaskStatusNotification",
    "TaskStatusNotificationParams",
    "TaskSubscriptionAcknowledgedNotifications",
];

/// The committed report and the README that quotes it.
fn evidence(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../evidence/wire-schema")
        .join(file)
}

/// The first line where `committed` and `produced` differ, for the
/// failure message.
fn first_difference(committed: &str, produced: &str) -> String {
    let mut c = committed.lines();
    let mut p = produced.lines();
    for n in 1.. {
        match (c.next(), p.next()) {
            (None, None) => break,
            (a, b) if a == b => continue,
            (a, b) => {
                return format!(
                    "line {n}:\n  committed: {}\n  produced:  {}",
                    a.unwrap_or("(end of file)"),
                    b.unwrap_or("(end of file)")
                )
            }
        }
    }
    String::from("(only line endings differ)")
}

/// The report matches the committed one (or replaces it when blessing),
/// and the README quotes its summary line.
fn check_committed(report: &Report, markdown: &str) {
    let path = evidence("report.md");
    if std::env::var_os("SNODO_WIRE_SCHEMA_BLESS").is_some() {
        std::fs::write(&path, markdown).expect("write the committed report");
        eprintln!("wire-schema: {} rewritten", path.display());
    } else {
        let committed =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            committed == markdown,
            "the corpus no longer matches {}; first difference at {}\n\
             Review the change; if it is intended, rewrite the report with \
             `evidence/wire-schema/run --bless` and commit it.",
            path.display(),
            first_difference(&committed, markdown)
        );
    }
    let readme = std::fs::read_to_string(evidence("README.md")).expect("the lane's README");
    let summary = report.summary();
    assert!(
        readme.contains(&summary),
        "evidence/wire-schema/README.md must quote the report's summary line:\n{summary}"
    );
}

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
    all.extend(capture::registry_changes());
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
        report.cells.keys().collect::<Vec<_>>(),
        [
            "direct",
            "http/blocking",
            "http/smol",
            "http/tokio",
            "stdio/blocking",
            "stdio/smol",
            "stdio/tokio"
        ],
        "six process cells and direct"
    );
    let (rejected, controls) = report.mutations();
    let floors = [
        ("distinct emissions", report.distinct.len(), MIN_DISTINCT),
        ("definitions", report.definitions().len(), MIN_DEFINITIONS),
        ("emissions", report.emissions, MIN_EMISSIONS),
        ("validations", report.validations, MIN_VALIDATIONS),
        ("negative controls rejected", rejected, MIN_CONTROLS),
    ];
    for (what, got, floor) in floors {
        assert!(got >= floor, "{got} {what}, fewer than {floor}");
    }
    assert_eq!(rejected, controls, "every negative control is rejected");
    // The Tasks extension's shapes (issue 20): the creation result,
    // `tasks/get` in every status, `tasks/update`, `tasks/cancel`, and
    // `notifications/tasks`, each on every process cell.
    for def in TASKS_TARGETS {
        let cells = report
            .coverage
            .get(&schema::Target::tasks(def))
            .map_or(0, |c| c.cells.len());
        assert_eq!(cells, 6, "tasks:{def} on {cells} of the 6 process cells");
    }
    assert!(
        report.union_only > 0,
        "the response unions accept broken results the branches reject"
    );
    check_committed(&report, &markdown);
}

/// The vendored schemas are the published ones.
#[test]
fn the_vendored_schema_is_draft_2020_12_with_the_definitions_used() {
    let doc = schema::document();
    assert_eq!(
        doc["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(doc["$defs"].as_object().map(|d| d.len()), Some(155));
    assert_eq!(schema::SCHEMA_SHA256.len(), 64);
    let tasks = schema::Schema::Tasks.document();
    assert_eq!(
        tasks["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(tasks["$defs"].as_object().map(|d| d.len()), Some(76));
    assert_eq!(schema::TASKS_SCHEMA_SHA256.len(), 64);
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
