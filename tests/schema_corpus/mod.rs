//! The wire-schema corpus: real emissions validated against the concrete
//! named definitions of the official 2026-07-28 schema, with negative
//! controls for every definition used.

pub mod capture;
pub mod classify;
pub mod mutate;
pub mod schema;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::Value;

use capture::Emission;
use schema::{validate, Target};

/// What one definition (or pinned branch) saw.
#[derive(Default)]
pub struct Coverage {
    /// Values checked against it, over all cells.
    pub checked: usize,
    /// Distinct values among them.
    pub distinct: BTreeMap<String, Value>,
    /// Cells they came from.
    pub cells: BTreeSet<String>,
    /// Negative controls rejected, and generated.
    pub rejected: usize,
    pub mutations: usize,
}

/// What one cell (or one transport, its cells together) captured.
#[derive(Default)]
pub struct Tally {
    pub emissions: usize,
    /// Emissions carrying `result` or `error`.
    pub responses: usize,
    /// Validations run on its emissions (a message and its parts).
    pub validations: usize,
    /// Distinct messages among its emissions, masked as [`masked`].
    pub distinct: BTreeSet<String>,
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.emissions += other.emissions;
        self.responses += other.responses;
        self.validations += other.validations;
        self.distinct.extend(other.distinct.iter().cloned());
    }

    fn row(&self, name: &str) -> String {
        format!(
            "| {name} | {} | {} | {} | {} | {} |",
            self.emissions,
            self.responses,
            self.emissions - self.responses,
            self.validations,
            self.distinct.len()
        )
    }
}

/// The outcome of a corpus run.
#[derive(Default)]
pub struct Report {
    pub emissions: usize,
    /// Distinct messages (ids and sealed state masked), over all cells.
    pub distinct: BTreeSet<String>,
    /// Per cell: `stdio/tokio`, `http/smol`, …, `direct`.
    pub cells: BTreeMap<String, Tally>,
    pub validations: usize,
    pub valid: usize,
    pub coverage: BTreeMap<Target, Coverage>,
    /// Broken results a response union still accepts while their branch
    /// rejects them: why the branch, not the union, is the check.
    pub union_only: usize,
    pub failures: Vec<String>,
}

/// Members of a task (and of a task subscription) that differ on every
/// run: its generated id and its timestamps.
const TASK_VARYING: &[&str] = &["taskId", "createdAt", "lastUpdatedAt"];

/// Mask [`TASK_VARYING`] members and `taskIds` elements wherever they are.
fn mask_tasks(v: &mut Value) {
    match v {
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                if TASK_VARYING.contains(&k.as_str()) && x.is_string() {
                    *x = Value::String(format!("<{k}>"));
                } else if k == "taskIds" {
                    for id in x.as_array_mut().into_iter().flatten() {
                        *id = Value::String(String::from("<taskId>"));
                    }
                } else {
                    mask_tasks(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(mask_tasks),
        _ => {}
    }
}

/// A message with what varies between runs masked: its `id`, a sealed
/// `requestState`, and a task's id and timestamps.
fn masked(m: &Value) -> String {
    let mut m = m.clone();
    if let Some(o) = m.as_object_mut() {
        o.remove("id");
    }
    if let Some(s) = m.pointer_mut("/result/requestState") {
        *s = Value::String(String::from("<state>"));
    }
    mask_tasks(&mut m);
    m.to_string()
}

/// A checked value with the same masking: a whole message as [`masked`],
/// a result's sealed `requestState`, tasks' ids and timestamps anywhere.
fn masked_at(v: &Value, pointer: &str) -> String {
    match pointer {
        "" => masked(v),
        _ => {
            let mut v = v.clone();
            if pointer == "/result" {
                if let Some(s) = v.pointer_mut("/requestState") {
                    *s = Value::String(String::from("<state>"));
                }
            }
            mask_tasks(&mut v);
            v.to_string()
        }
    }
}

/// Validate every emission and run the negative controls.
pub fn evaluate(emissions: &[Emission]) -> Report {
    let mut r = Report {
        emissions: emissions.len(),
        ..Report::default()
    };
    for e in emissions {
        r.distinct.insert(masked(&e.message));
        let cell = r.cells.entry(e.cell.clone()).or_default();
        cell.emissions += 1;
        cell.responses +=
            usize::from(e.message.get("result").is_some() || e.message.get("error").is_some());
        cell.distinct.insert(masked(&e.message));
        let checks = match classify::checks(&e.message, e.method.as_deref()) {
            Ok(c) => c,
            Err(why) => {
                r.failures
                    .push(format!("[{}] {}: unclassified: {why}", e.cell, e.source));
                continue;
            }
        };
        if let Some(cell) = r.cells.get_mut(&e.cell) {
            cell.validations += checks.len();
        }
        for c in &checks {
            r.validations += 1;
            let Some(value) = e.message.pointer(&c.pointer) else {
                r.failures.push(format!(
                    "[{}] {}: nothing at {} for {}",
                    e.cell,
                    e.source,
                    c.pointer,
                    c.target.label()
                ));
                continue;
            };
            match validate(&c.target, value) {
                Ok(()) => {
                    r.valid += 1;
                    let cov = r.coverage.entry(c.target.clone()).or_default();
                    cov.checked += 1;
                    cov.cells.insert(e.cell.clone());
                    cov.distinct
                        .entry(masked_at(value, &c.pointer))
                        .or_insert_with(|| value.clone());
                }
                Err(errors) => r.failures.push(format!(
                    "[{}] {}: {} at `{}` is invalid:\n    {}\n    value: {value}",
                    e.cell,
                    e.source,
                    c.target.label(),
                    c.pointer,
                    errors.join("\n    ")
                )),
            }
        }
        union_only(e, &checks, &mut r);
    }
    negative_controls(&mut r);
    r
}

/// For a result checked against its pinned branch, remove each required
/// member and see whether the message-level union still accepts it.
fn union_only(e: &Emission, checks: &[classify::Check], r: &mut Report) {
    let Some(response) = checks.iter().find(|c| c.pointer.is_empty()) else {
        return;
    };
    for c in checks
        .iter()
        .filter(|c| c.pointer == "/result" && c.target.result_type.is_some())
    {
        for m in mutate::mutations(&c.target, &e.message["result"]) {
            if !m.what.starts_with("required") {
                continue;
            }
            let mut broken = e.message.clone();
            broken["result"] = m.value.clone();
            if validate(&response.target, &broken).is_ok() && validate(&c.target, &m.value).is_err()
            {
                r.union_only += 1;
            }
        }
    }
}

fn negative_controls(r: &mut Report) {
    for (target, cov) in r.coverage.iter_mut() {
        for value in cov.distinct.values() {
            for m in mutate::mutations(target, value) {
                cov.mutations += 1;
                if validate(target, &m.value).is_err() {
                    cov.rejected += 1;
                } else {
                    r.failures.push(format!(
                        "negative control accepted: {} with {}: {}",
                        target.label(),
                        m.what,
                        m.value
                    ));
                }
            }
        }
        if cov.mutations == 0 {
            r.failures
                .push(format!("{}: no negative control", target.label()));
        }
    }
}

impl Report {
    /// Distinct definitions validated against (a name in one schema).
    pub fn definitions(&self) -> BTreeSet<(schema::Schema, &'static str)> {
        self.coverage.keys().map(|t| (t.schema, t.def)).collect()
    }

    pub fn mutations(&self) -> (usize, usize) {
        self.coverage
            .values()
            .fold((0, 0), |(r, t), c| (r + c.rejected, t + c.mutations))
    }

    /// One summary line.
    pub fn summary(&self) -> String {
        let (rejected, mutations) = self.mutations();
        format!(
            "wire-schema: {}/{} validations passed over {} emissions ({} distinct) from {} cells; \
             {} definitions ({} targets); negative controls {}/{} rejected; {} broken results only the union accepts",
            self.valid,
            self.validations,
            self.emissions,
            self.distinct.len(),
            self.cells.len(),
            self.definitions().len(),
            self.coverage.len(),
            rejected,
            mutations,
            self.union_only
        )
    }

    /// The cells of each transport (`stdio`, `http`, `direct`) together.
    pub fn transports(&self) -> BTreeMap<&str, Tally> {
        let mut out: BTreeMap<&str, Tally> = BTreeMap::new();
        for (cell, tally) in &self.cells {
            let transport = cell.split('/').next().unwrap_or(cell);
            out.entry(transport).or_default().add(tally);
        }
        out
    }

    /// The summary, the counts per transport and per cell, and a table of
    /// every target, as Markdown.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# Wire-schema corpus\n\n{}\n", self.summary());
        let columns = "| emissions | responses | notifications | validations | distinct |\n|---|---|---|---|---|---|";
        let _ = writeln!(s, "| transport {columns}");
        for (transport, tally) in self.transports() {
            let _ = writeln!(s, "{}", tally.row(transport));
        }
        let _ = writeln!(s, "\n| cell {columns}");
        for (cell, tally) in &self.cells {
            let _ = writeln!(s, "{}", tally.row(cell));
        }
        let _ = writeln!(
            s,
            "\n| definition | values checked | distinct | cells | negative controls rejected |\n|---|---|---|---|---|"
        );
        for (t, c) in &self.coverage {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {}/{} |",
                t.label(),
                c.checked,
                c.distinct.len(),
                c.cells.len(),
                c.rejected,
                c.mutations
            );
        }
        if !self.failures.is_empty() {
            let _ = writeln!(s, "\n## Failures\n");
            for f in &self.failures {
                let _ = writeln!(s, "- {f}");
            }
        }
        s
    }
}
