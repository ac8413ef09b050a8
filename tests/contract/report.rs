//! Joining the inventory, the map and the outcomes into the report, and
//! writing it as text, JSON or Markdown.
//!
//! The command fails when an inventory id has no executed test, when a
//! claim names an id the inventory does not have, when a claim's pattern
//! matches no test (a renamed or deleted test would otherwise leave its id
//! resting on the others without a word), or when a test failed.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{json, Value};

use super::inventory::{matches, Claim, Entry};
use super::suite::Status;

/// What the report always says of itself.
pub const NOTE: &str = "snodo's own evidence: its wire tests grouped under stable ids. \
    It is not an official MCP conformance score and must not be read as one.";

/// One evidence id with its tests.
pub struct IdReport {
    pub entry: Entry,
    /// `package::target::test` and outcome.
    pub tests: Vec<(String, Status)>,
}

impl IdReport {
    /// `pass` when at least one test ran and none failed, `fail` when one
    /// failed, `missing` when none ran.
    pub fn status(&self) -> &'static str {
        let ran: Vec<Status> = self
            .tests
            .iter()
            .map(|(_, s)| *s)
            .filter(|s| *s != Status::Ignored)
            .collect();
        if ran.is_empty() {
            "missing"
        } else if ran.contains(&Status::Failed) {
            "fail"
        } else {
            "pass"
        }
    }
}

pub struct Report {
    pub ids: Vec<IdReport>,
    /// Why the command fails, besides failing ids: unknown ids, ids with
    /// no executed test, and stale claims (a pattern matching no test).
    pub problems: Vec<String>,
    /// Executed tests no claim covers.
    pub unclaimed: Vec<String>,
    /// Failed tests no claim covers.
    pub unclaimed_failures: Vec<String>,
    pub executed: usize,
}

/// Join everything; `tests` is every test of the workspace and its outcome.
pub fn evaluate(inventory: &[Entry], claims: &[Claim], tests: &BTreeMap<String, Status>) -> Report {
    let mut problems = Vec::new();
    let mut by_id: BTreeMap<&str, BTreeMap<&str, Status>> = BTreeMap::new();
    let mut claimed: BTreeMap<&str, ()> = BTreeMap::new();
    for c in claims {
        if !inventory.iter().any(|e| e.id == c.id) {
            problems.push(format!(
                "map line {}: `{}` claims id `{}`, which is not in the inventory",
                c.line, c.pattern, c.id
            ));
            continue;
        }
        let hits: Vec<(&String, &Status)> = tests
            .iter()
            .filter(|(n, _)| matches(&c.pattern, n))
            .collect();
        if hits.is_empty() {
            problems.push(format!(
                "map line {}: `{}` ({}) matches no test",
                c.line, c.pattern, c.id
            ));
        }
        for (name, status) in hits {
            by_id
                .entry(c.id.as_str())
                .or_default()
                .insert(name, *status);
            claimed.insert(name, ());
        }
    }
    let ids: Vec<IdReport> = inventory
        .iter()
        .map(|e| IdReport {
            entry: e.clone(),
            tests: by_id
                .get(e.id.as_str())
                .map(|m| m.iter().map(|(n, s)| ((*n).to_owned(), *s)).collect())
                .unwrap_or_default(),
        })
        .collect();
    for r in &ids {
        if r.status() == "missing" {
            problems.push(format!("`{}` has no executed test", r.entry.id));
        }
    }
    let executed: Vec<(&String, &Status)> = tests
        .iter()
        .filter(|(_, s)| **s != Status::Ignored)
        .collect();
    let unclaimed = executed
        .iter()
        .filter(|(n, _)| !claimed.contains_key(n.as_str()))
        .map(|(n, _)| (*n).clone())
        .collect::<Vec<_>>();
    let unclaimed_failures = executed
        .iter()
        .filter(|(n, s)| **s == Status::Failed && !claimed.contains_key(n.as_str()))
        .map(|(n, _)| (*n).clone())
        .collect();
    Report {
        ids,
        problems,
        unclaimed,
        unclaimed_failures,
        executed: executed.len(),
    }
}

impl Report {
    pub fn passing(&self) -> usize {
        self.ids.iter().filter(|r| r.status() == "pass").count()
    }

    /// Whether the command succeeds.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
            && self.unclaimed_failures.is_empty()
            && self.passing() == self.ids.len()
    }

    pub fn summary(&self) -> String {
        format!(
            "contract: {}/{} evidence ids pass; {} of {} executed tests carry an id",
            self.passing(),
            self.ids.len(),
            self.executed - self.unclaimed.len(),
            self.executed
        )
    }

    pub fn text(&self) -> String {
        let mut s = format!("{NOTE}\n\n");
        for r in &self.ids {
            let _ = writeln!(
                s,
                "{:<7} {}  ({} tests)  {}",
                r.status(),
                r.entry.id,
                r.tests.len(),
                r.entry.title
            );
            for (name, status) in &r.tests {
                if *status != Status::Passed {
                    let _ = writeln!(s, "          {} {name}", status.word());
                }
            }
        }
        self.tail(&mut s, "");
        let _ = writeln!(s, "\n{}", self.summary());
        s
    }

    pub fn markdown(&self) -> String {
        let mut s = format!(
            "# snodo contract report\n\n> {NOTE}\n\n{}\n\n",
            self.summary()
        );
        let _ = writeln!(
            s,
            "| id | status | tests | what the tests show |\n|---|---|---|---|"
        );
        for r in &self.ids {
            let _ = writeln!(
                s,
                "| `{}` | {} | {} | {} |",
                r.entry.id,
                r.status(),
                r.tests.len(),
                r.entry.title.replace('|', "\\|")
            );
        }
        let _ = writeln!(s, "\n## Tests by id\n");
        for r in &self.ids {
            let _ = writeln!(s, "### `{}` — {}\n", r.entry.id, r.status());
            for (name, status) in &r.tests {
                let _ = writeln!(s, "- {} `{name}`", status.word());
            }
            s.push('\n');
        }
        self.tail(&mut s, "- ");
        s
    }

    pub fn json(&self) -> String {
        let ids: Vec<Value> = self
            .ids
            .iter()
            .map(|r| {
                json!({
                    "id": r.entry.id,
                    "title": r.entry.title,
                    "status": r.status(),
                    "tests": r.tests.iter().map(|(n, s)| json!({"name": n, "status": s.word()})).collect::<Vec<_>>(),
                })
            })
            .collect();
        let v = json!({
            "note": NOTE,
            "summary": {
                "ids": self.ids.len(),
                "passing": self.passing(),
                "executedTests": self.executed,
                "claimedTests": self.executed - self.unclaimed.len(),
                "ok": self.ok(),
            },
            "ids": ids,
            "problems": self.problems,
            "unclaimedFailures": self.unclaimed_failures,
            "unclaimed": self.unclaimed,
        });
        let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
        s.push('\n');
        s
    }

    fn tail(&self, s: &mut String, bullet: &str) {
        for (title, items) in [
            ("Problems", &self.problems),
            ("Failed tests without an id", &self.unclaimed_failures),
        ] {
            if !items.is_empty() {
                let _ = writeln!(s, "\n{title}:");
                for i in items {
                    let _ = writeln!(s, "{bullet}{i}");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str) -> Entry {
        Entry {
            id: id.into(),
            title: format!("shows {id}"),
        }
    }

    fn claim(pattern: &str, id: &str) -> Claim {
        Claim {
            pattern: pattern.into(),
            id: id.into(),
            line: 1,
        }
    }

    fn tests(list: &[(&str, Status)]) -> BTreeMap<String, Status> {
        list.iter().map(|(n, s)| ((*n).to_owned(), *s)).collect()
    }

    #[test]
    fn a_clean_run_passes() {
        let r = evaluate(
            &[entry("core.a"), entry("core.b")],
            &[claim("p::t::a*", "core.a"), claim("p::t::b", "core.b")],
            &tests(&[
                ("p::t::a1", Status::Passed),
                ("p::t::a2", Status::Passed),
                ("p::t::b", Status::Passed),
                ("p::t::c", Status::Passed),
            ]),
        );
        assert!(r.ok(), "{:?}", r.problems);
        assert_eq!(
            r.summary(),
            "contract: 2/2 evidence ids pass; 3 of 4 executed tests carry an id"
        );
        assert_eq!(r.unclaimed, ["p::t::c"]);
    }

    #[test]
    fn an_id_without_an_executed_test_fails() {
        let r = evaluate(
            &[entry("core.a"), entry("core.b")],
            &[claim("p::t::a", "core.a"), claim("p::t::b", "core.b")],
            &tests(&[("p::t::a", Status::Passed), ("p::t::b", Status::Ignored)]),
        );
        assert!(!r.ok());
        assert_eq!(r.problems, ["`core.b` has no executed test"]);
        let none = evaluate(&[entry("core.a")], &[], &tests(&[]));
        assert_eq!(none.problems, ["`core.a` has no executed test"]);
    }

    #[test]
    fn a_claim_of_an_unknown_id_fails() {
        let r = evaluate(
            &[entry("core.a")],
            &[claim("p::t::a", "core.a"), claim("p::t::a", "core.zzz")],
            &tests(&[("p::t::a", Status::Passed)]),
        );
        assert!(!r.ok());
        assert_eq!(
            r.problems,
            ["map line 1: `p::t::a` claims id `core.zzz`, which is not in the inventory"]
        );
    }

    #[test]
    fn a_claim_matching_no_test_fails_even_when_its_id_passes() {
        let r = evaluate(
            &[entry("core.a")],
            &[claim("p::t::a", "core.a"), claim("p::t::gone", "core.a")],
            &tests(&[("p::t::a", Status::Passed)]),
        );
        assert_eq!(r.ids[0].status(), "pass");
        assert!(!r.ok());
        assert_eq!(
            r.problems,
            ["map line 1: `p::t::gone` (core.a) matches no test"]
        );
        let v: Value = serde_json::from_str(&r.json()).unwrap();
        assert_eq!(v["summary"]["ok"], false);
        assert!(r.text().contains("Problems:\nmap line 1: `p::t::gone`"));
    }

    #[test]
    fn failures_fail() {
        let r = evaluate(
            &[entry("core.a")],
            &[claim("p::t::a", "core.a")],
            &tests(&[("p::t::a", Status::Failed), ("p::t::x", Status::Failed)]),
        );
        assert!(!r.ok());
        assert_eq!(r.ids[0].status(), "fail");
        assert_eq!(r.unclaimed_failures, ["p::t::x"]);
        let text = r.text();
        assert!(text.starts_with(NOTE), "{text}");
        assert!(text.contains("fail    core.a  (1 tests)"), "{text}");
        let v: Value = serde_json::from_str(&r.json()).unwrap();
        assert_eq!(v["summary"]["ok"], false);
        assert_eq!(
            v["ids"][0]["tests"][0],
            json!({"name":"p::t::a","status":"fail"})
        );
        assert!(r.markdown().contains("| `core.a` | fail | 1 |"));
    }
}
