//! `snodo-proto` does no I/O: it depends on no runtime or networking crate
//! and its source names no socket, thread or clock. That is what lets one
//! state machine run unchanged under tokio, smol and blocking threads, and
//! be driven deterministically by tests and fuzzers with time passed in as
//! a value. This test enforces the rule so it cannot erode quietly.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const FORBIDDEN_CRATES: &[&str] = &[
    "tokio",
    "smol",
    "async-io",
    "async-std",
    "mio",
    "socket2",
    "polling",
    "futures-io",
];
const FORBIDDEN_SOURCE: &[&str] = &[
    "std::net",
    "std::thread",
    "Instant::now",
    "SystemTime",
    "std::fs",
    "std::io::stdin",
    "std::io::stdout",
];

/// The normal-dependency closure of `snodo-proto`, read from Cargo.lock.
fn dependency_closure() -> BTreeSet<String> {
    let lock = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"))
        .expect("Cargo.lock");
    let mut deps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for block in lock.split("[[package]]").skip(1) {
        let name = block
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .map(|n| n.trim_end_matches('"').to_string())
            .expect("package name");
        let mut list = Vec::new();
        if let Some(start) = block.find("dependencies = [") {
            for line in block[start..].lines().skip(1) {
                let line = line.trim();
                if line.starts_with(']') {
                    break;
                }
                let dep = line.trim_matches(|c| c == '"' || c == ',');
                list.push(dep.split(' ').next().unwrap_or(dep).to_string());
            }
        }
        deps.entry(name).or_default().extend(list);
    }
    let mut seen = BTreeSet::new();
    let mut stack = vec!["snodo-proto".to_string()];
    while let Some(n) = stack.pop() {
        if seen.insert(n.clone()) {
            stack.extend(deps.get(&n).cloned().unwrap_or_default());
        }
    }
    seen
}

#[test]
fn no_runtime_or_network_crate_in_the_dependency_closure() {
    let closure = dependency_closure();
    assert!(
        closure.contains("serde_json"),
        "closure was read: {closure:?}"
    );
    for bad in FORBIDDEN_CRATES {
        assert!(
            !closure.contains(*bad),
            "snodo-proto depends (transitively) on {bad}"
        );
    }
}

#[test]
fn source_names_no_socket_thread_or_clock() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![src];
    let mut files = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files += 1;
                let text = std::fs::read_to_string(&path).unwrap();
                for bad in FORBIDDEN_SOURCE {
                    assert!(!text.contains(bad), "{} mentions {bad}", path.display());
                }
            }
        }
    }
    assert!(files > 5);
}
