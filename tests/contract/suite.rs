//! Building and running the workspace's test binaries, and naming each test.
//!
//! `cargo test --workspace --no-run --message-format=json-render-diagnostics`
//! builds every test target and says which package and target each test
//! executable belongs to, which `cargo test`'s own output does not (two
//! packages may both have `tests/http.rs`). Each executable is then asked
//! for its tests (`--list`) and run, from its package's directory as cargo
//! would; its libtest lines `test NAME ... ok|FAILED|ignored` give the
//! outcomes. A listed test with no outcome line (the binary crashed) counts
//! as failed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// A test's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Passed,
    Failed,
    /// Not run (`#[ignore]`): never counts as evidence.
    Ignored,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Passed => "pass",
            Status::Failed => "fail",
            Status::Ignored => "ignored",
        }
    }
}

/// One test executable.
#[derive(Clone, Debug)]
pub struct Binary {
    /// `package::target`.
    pub prefix: String,
    pub executable: PathBuf,
    pub package_dir: PathBuf,
}

/// The package name in a cargo package id, either
/// `path+file:///dir#name@1.0` (`path+file:///name#1.0` when the directory
/// is named like the package) or the older `name 1.0 (path+file:///dir)`.
pub fn package_name(id: &str) -> String {
    if let Some((url, rest)) = id.split_once('#') {
        match rest.split_once('@') {
            Some((name, _)) => name.to_owned(),
            None => url.rsplit('/').next().unwrap_or(url).to_owned(),
        }
    } else {
        id.split(' ').next().unwrap_or(id).to_owned()
    }
}

/// `lib`, `bin:NAME`, or the test target's name.
fn target_label(target: &Value) -> Option<String> {
    let name = target["name"].as_str()?;
    let kinds: Vec<&str> = target["kind"]
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    Some(if kinds.iter().any(|k| k.ends_with("lib")) {
        String::from("lib")
    } else if kinds.contains(&"bin") {
        format!("bin:{name}")
    } else {
        name.to_owned()
    })
}

/// The test executables among cargo's JSON messages.
pub fn binaries(messages: &str) -> Vec<Binary> {
    let mut out = Vec::new();
    for line in messages.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if v["reason"] != "compiler-artifact" || v["profile"]["test"] != true {
            continue;
        }
        let (Some(exe), Some(id), Some(manifest), Some(target)) = (
            v["executable"].as_str(),
            v["package_id"].as_str(),
            v["manifest_path"].as_str(),
            target_label(&v["target"]),
        ) else {
            continue;
        };
        out.push(Binary {
            prefix: format!("{}::{target}", package_name(id)),
            executable: PathBuf::from(exe),
            package_dir: Path::new(manifest)
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
        });
    }
    out.sort_by(|a, b| a.prefix.cmp(&b.prefix));
    out
}

/// Test names from `--list` output (`NAME: test`).
pub fn listed(output: &str) -> Vec<String> {
    output
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(str::to_owned)
        .collect()
}

/// Outcomes from a libtest run's output.
pub fn outcomes(output: &str) -> BTreeMap<String, Status> {
    let mut out = BTreeMap::new();
    for line in output.lines() {
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        let Some((name, result)) = rest.rsplit_once(" ... ") else {
            continue;
        };
        // libtest marks a `#[should_panic]` test in its line, not its name.
        let name = name.strip_suffix(" - should panic").unwrap_or(name);
        let status = match result.trim() {
            "ok" => Status::Passed,
            "FAILED" => Status::Failed,
            r if r.starts_with("ignored") => Status::Ignored,
            _ => continue,
        };
        out.insert(name.to_owned(), status);
    }
    out
}

/// Build every test target of the workspace at `root`.
pub fn build(root: &Path) -> Result<Vec<Binary>, String> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| String::from("cargo")))
        .current_dir(root)
        .args([
            "test",
            "--workspace",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ])
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo test --no-run failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(binaries(&String::from_utf8_lossy(&out.stdout)))
}

/// Every test of `b` and its outcome, named `package::target::test`.
pub fn run(b: &Binary) -> Result<BTreeMap<String, Status>, String> {
    let cmd = |args: &[&str]| {
        Command::new(&b.executable)
            .args(args)
            .current_dir(&b.package_dir)
            .env("CARGO_MANIFEST_DIR", &b.package_dir)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", b.executable.display()))
    };
    let list = cmd(&["--list"])?;
    if !list.status.success() {
        return Err(format!("{} --list failed", b.prefix));
    }
    let names = listed(&String::from_utf8_lossy(&list.stdout));
    let ran = cmd(&[])?;
    let results = outcomes(&String::from_utf8_lossy(&ran.stdout));
    Ok(names
        .into_iter()
        .map(|n| {
            let status = results.get(&n).copied().unwrap_or(Status::Failed);
            (format!("{}::{n}", b.prefix), status)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_ids() {
        assert_eq!(
            package_name("path+file:///w/proto#snodo-proto@0.1.0"),
            "snodo-proto"
        );
        assert_eq!(
            package_name("path+file:///w/snodo-proto#0.1.0"),
            "snodo-proto"
        );
        assert_eq!(
            package_name("snodo-proto 0.1.0 (path+file:///w/proto)"),
            "snodo-proto"
        );
    }

    #[test]
    fn artifacts_to_binaries() {
        let msgs = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/tests#snodo-tests@0.1.0","manifest_path":"/w/tests/Cargo.toml","target":{"kind":["test"],"name":"wire_matrix"},"profile":{"test":true},"executable":"/t/wire_matrix-1"}
{"reason":"compiler-artifact","package_id":"path+file:///w/proto#snodo-proto@0.1.0","manifest_path":"/w/proto/Cargo.toml","target":{"kind":["lib"],"name":"snodo_proto"},"profile":{"test":true},"executable":"/t/snodo_proto-2"}
{"reason":"compiler-artifact","package_id":"path+file:///w/proto#snodo-proto@0.1.0","manifest_path":"/w/proto/Cargo.toml","target":{"kind":["lib"],"name":"snodo_proto"},"profile":{"test":false},"executable":null}
{"reason":"build-finished","success":true}"#;
        let b = binaries(msgs);
        let got: Vec<(&str, &str)> = b
            .iter()
            .map(|b| (b.prefix.as_str(), b.executable.to_str().unwrap()))
            .collect();
        assert_eq!(
            got,
            [
                ("snodo-proto::lib", "/t/snodo_proto-2"),
                ("snodo-tests::wire_matrix", "/t/wire_matrix-1")
            ]
        );
        assert_eq!(b[1].package_dir, PathBuf::from("/w/tests"));
    }

    #[test]
    fn libtest_output() {
        assert_eq!(
            listed("a::b: test\nc: test\n\n2 tests, 0 benchmarks\n"),
            ["a::b", "c"]
        );
        let o = outcomes(
            "running 5 tests\ntest a ... ok\ntest b::c ... FAILED\ntest d ... ignored, slow\ntest e has been running for over 60 seconds\ntest f - should panic ... ok\ntest result: FAILED. 2 passed; 1 failed\n",
        );
        assert_eq!(
            o.into_iter().collect::<Vec<_>>(),
            [
                (String::from("a"), Status::Passed),
                (String::from("b::c"), Status::Failed),
                (String::from("d"), Status::Ignored),
                (String::from("f"), Status::Passed)
            ]
        );
    }
}
