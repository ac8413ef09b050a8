//! `snodo-contract`: run the workspace's tests and report them under the
//! stable evidence ids of `evidence/contract/inventory.txt`, through the
//! claims of `evidence/contract/map.txt`. Run it as
//! `evidence/contract/run`.
//!
//! ```text
//! snodo-contract [--format text|json|markdown] [--output FILE]
//!                [--inventory FILE] [--map FILE] [--root DIR]
//! ```
//!
//! The report goes to stdout, or only to FILE with `--output`; progress and
//! the one-line summary go to stderr. Exit status 1 when an id has no
//! executed test, a claim names an id not in the inventory or matches no
//! test, or a test failed; 2 on a usage or build error.

mod inventory;
mod report;
mod suite;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: snodo-contract [--format text|json|markdown] [--output FILE] [--inventory FILE] [--map FILE] [--root DIR]";

#[derive(Clone, Copy)]
enum Format {
    Text,
    Json,
    Markdown,
}

struct Args {
    format: Format,
    output: Option<PathBuf>,
    inventory: PathBuf,
    map: PathBuf,
    root: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut a = Args {
        format: Format::Text,
        output: None,
        inventory: root.join("evidence/contract/inventory.txt"),
        map: root.join("evidence/contract/map.txt"),
        root,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--format" => {
                a.format = match value()?.as_str() {
                    "text" => Format::Text,
                    "json" => Format::Json,
                    "markdown" => Format::Markdown,
                    other => return Err(format!("unknown format {other}")),
                }
            }
            "--output" => a.output = Some(PathBuf::from(value()?)),
            "--inventory" => a.inventory = PathBuf::from(value()?),
            "--map" => a.map = PathBuf::from(value()?),
            "--root" => a.root = PathBuf::from(value()?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("snodo-contract: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("snodo-contract: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<bool, String> {
    let entries = inventory::parse_inventory(&read(&args.inventory)?).map_err(|p| p.join("\n"))?;
    let claims = inventory::parse_map(&read(&args.map)?).map_err(|p| p.join("\n"))?;
    eprintln!("== building the workspace's tests");
    let binaries = suite::build(&args.root)?;
    let mut tests = BTreeMap::new();
    for b in &binaries {
        eprintln!("== running {}", b.prefix);
        tests.extend(suite::run(b)?);
    }
    let r = report::evaluate(&entries, &claims, &tests);
    let text = match args.format {
        Format::Text => r.text(),
        Format::Json => r.json(),
        Format::Markdown => r.markdown(),
    };
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        None => print!("{text}"),
    }
    eprintln!("{}", r.summary());
    Ok(r.ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn committed() -> (Vec<inventory::Entry>, Vec<inventory::Claim>) {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../evidence/contract");
        let entries = read(&dir.join("inventory.txt"))
            .map(|t| inventory::parse_inventory(&t))
            .expect("the inventory")
            .expect("the inventory parses");
        let claims = read(&dir.join("map.txt"))
            .map(|t| inventory::parse_map(&t))
            .expect("the map")
            .expect("the map parses");
        (entries, claims)
    }

    /// The tests that show the most carry ids of their own (issue 23): the
    /// SIGKILL recovery test, the abuse tests and the property tests. The
    /// run fails when such a claim matches no test, so a rename is caught
    /// there; this catches a claim or id removed outright.
    #[test]
    fn the_strongest_tests_carry_ids() {
        let (entries, claims) = committed();
        let strongest = [
            ("snodo-conformance::tasks_process::a_task_survives_sigkill_and_finishes_exactly_once_on_every_runtime", "tasks.crash_recovery"),
            ("snodo-tests::abuse::tokio::abuse", "adapter.abuse"),
            ("snodo-tests::abuse::smol::abuse", "adapter.abuse"),
            ("snodo-tests::abuse::blocking::abuse", "adapter.abuse"),
            ("snodo-tests::abuse::tokio::stdio_abuse", "adapter.abuse"),
            ("snodo-tests::abuse::smol::stdio_abuse", "adapter.abuse"),
            ("snodo-tests::abuse::blocking::stdio_abuse", "adapter.abuse"),
            ("snodo-proto::properties::short_sequences_keep_every_invariant", "core.properties"),
            ("snodo-proto::properties::long_sequences_keep_every_invariant", "core.properties"),
            ("snodo-proto::properties::sessions_keep_every_invariant", "core.properties"),
        ];
        for (test, id) in strongest {
            assert!(
                entries.iter().any(|e| e.id == id),
                "`{id}` is in the inventory"
            );
            assert!(
                claims
                    .iter()
                    .any(|c| c.id == id && inventory::matches(&c.pattern, test)),
                "map.txt claims `{test}` for `{id}`"
            );
        }
    }

    /// Every claim of the committed map names an inventory id.
    #[test]
    fn the_committed_map_names_only_inventory_ids() {
        let (entries, claims) = committed();
        for c in claims {
            assert!(
                entries.iter().any(|e| e.id == c.id),
                "map line {}: `{}` is not in the inventory",
                c.line,
                c.id
            );
        }
    }
}
