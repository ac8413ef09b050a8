//! The core never names the Tasks extension (issue 7: optional behaviour
//! stays outside the core). Extensions live in their own crate and the core
//! never names them, so that the core stays the protocol as the spec
//! revision defines it (`basic/versioning.mdx` § Extension Negotiation:
//! extensions are optional, negotiated per request) and an extension can be
//! added, revised or dropped without touching it. Tasks plugs in through
//! `proto/src/extension.rs` like any other extension, from the
//! `snodo-tasks` crate.
//!
//! Every source file under `proto/src` is scanned for the extension's
//! identifier, method and notification names, result discriminator and
//! wire field names, and for the crate's name. The one exception: the
//! profile's table of methods this revision *removed* from the core
//! (`tasks/list`, `tasks/result`, `notifications/tasks/status` were core
//! methods in 2025-11-25 and must still be answered `-32601`).

use std::fs;
use std::path::{Path, PathBuf};

/// Strings that would mean a core module knows about Tasks.
const FORBIDDEN: &[&str] = &[
    "io.modelcontextprotocol/tasks",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "\"notifications/tasks\"",
    "snodo_tasks",
    "snodo-tasks",
    "TaskId",
    "taskId",
    "taskIds",
    "CreateTaskResult",
    "\"task\"",
    "ttlMs\": null",
];

/// Lines mentioning `tasks/` that are allowed: the removed core methods.
const REMOVED_CORE: &[&str] = &[
    "\"tasks/result\",",
    "\"tasks/list\",",
    "\"notifications/tasks/status\",",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("proto/src is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_core_module_names_the_tasks_extension() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    assert!(files.len() > 20, "found only {} sources", files.len());
    let mut hits = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).expect("source is UTF-8");
        for (n, line) in text.lines().enumerate() {
            let place = format!("{}:{}: {}", file.display(), n + 1, line.trim());
            for word in FORBIDDEN {
                if line.contains(word) {
                    hits.push(format!("{place}  (names {word})"));
                }
            }
            if line.contains("tasks/") && !REMOVED_CORE.contains(&line.trim()) {
                hits.push(format!("{place}  (names a tasks/ method)"));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "core sources name Tasks:\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_scan_finds_what_it_looks_for() {
    // The scanner must be able to fail: a line naming a Tasks method is a hit,
    // the removed-method rows are not.
    let hit = |line: &str| {
        FORBIDDEN.iter().any(|w| line.contains(w))
            || (line.contains("tasks/") && !REMOVED_CORE.contains(&line.trim()))
    };
    assert!(hit(r#"    "tasks/get" => route(),"#));
    assert!(hit(r#"let id = params["taskId"];"#));
    assert!(hit(r#"        "tasks/list", "tasks/get","#));
    assert!(!hit(r#"        "tasks/list","#));
    assert!(!hit(r#"        "notifications/tasks/status","#));
}
