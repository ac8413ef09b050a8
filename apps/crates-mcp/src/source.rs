//! A crate's Rust sources: finding text or an item's definition, and the
//! public items a version declares (what an upgrade can break).
//!
//! This reads source text line by line, as `grep` would, not through a
//! Rust parser: it is fast on a whole cache and good enough to point a
//! reviewer at the right file and line, which is its job.

use std::collections::BTreeSet;
use std::fs;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde::Serialize;
use snodo_proto::schemars::{self, JsonSchema};

use crate::archive;
use crate::cache::Source;

/// Largest source file read, in bytes; larger ones (generated tables) are
/// skipped.
pub const MAX_FILE: u64 = 2 * 1024 * 1024;
/// Most `.rs` files read in one crate.
pub const MAX_FILES: usize = 5_000;

/// One line that matched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Match {
    /// Path inside the crate, `/`-separated.
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    /// The line, trimmed, at most 200 characters.
    pub text: String,
}

/// The item keywords a definition starts with.
const ITEM_KEYWORDS: &[&str] = &[
    "fn",
    "struct",
    "enum",
    "trait",
    "type",
    "const",
    "static",
    "mod",
    "union",
    "macro_rules!",
];

/// Every `.rs` file under `dir`, relative and sorted (`target/` and hidden
/// directories skipped).
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() && !name.starts_with('.') && name != "target" {
                stack.push(path);
            } else if kind.is_file() && name.ends_with(".rs") {
                if let Ok(rel) = path.strip_prefix(dir) {
                    out.push(rel.to_path_buf());
                }
            }
            if out.len() >= MAX_FILES {
                break;
            }
        }
    }
    out.sort();
    out
}

fn read_source(dir: &Path, rel: &Path) -> Option<String> {
    let path = dir.join(rel);
    if fs::metadata(&path).ok()?.len() > MAX_FILE {
        return None;
    }
    fs::read_to_string(path).ok()
}

fn display(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether a `/`-separated path inside a crate is a Rust file outside
/// `target/` and hidden directories.
fn is_rust_source(rel: &str) -> bool {
    let mut parts: Vec<&str> = rel.split('/').collect();
    let file = parts.pop().unwrap_or("");
    file.ends_with(".rs") && !parts.iter().any(|d| d.starts_with('.') || *d == "target")
}

/// Call `f(path, text)` for each Rust file of `source` (a directory's in
/// path order, an archive's in archive order; at most [`MAX_FILES`], files
/// over [`MAX_FILE`] or not UTF-8 skipped) until `f` breaks.
pub fn each_rust_file(source: &Source, mut f: impl FnMut(&str, &str) -> ControlFlow<()>) {
    match source {
        Source::Dir(dir) => {
            for rel in rust_files(dir) {
                if let Some(text) = read_source(dir, &rel) {
                    if f(&display(&rel), &text).is_break() {
                        return;
                    }
                }
            }
        }
        Source::Archive(path) => {
            let mut seen = 0;
            let walked = archive::walk(path, &archive::LIMITS, |rel, size, reader| {
                if !is_rust_source(rel) {
                    return ControlFlow::Continue(());
                }
                seen += 1;
                if seen > MAX_FILES {
                    return ControlFlow::Break(());
                }
                match archive::read_capped(reader, size, MAX_FILE) {
                    Some(text) => f(rel, &text),
                    None => ControlFlow::Continue(()),
                }
            });
            if let Err(why) = walked {
                tracing::warn!(archive = %path.display(), %why, "a crate archive was read in part");
            }
        }
    }
}

fn clip(line: &str) -> String {
    let t = line.trim();
    match t.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_string(),
    }
}

/// Whether `line` defines an item named `symbol` (`pub fn symbol`,
/// `struct symbol<T>`, `macro_rules! symbol`, …).
pub fn defines(line: &str, symbol: &str) -> bool {
    let words: Vec<&str> = line
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .any(|w| ITEM_KEYWORDS.contains(&w[0]) && w[1] == symbol)
}

/// Lines of `dir`'s Rust files containing `text` (case-sensitive), or,
/// with `symbol`, defining an item named `text`; at most `limit`.
/// Returns the matches and whether more were left out.
pub fn find(source: &Source, text: &str, symbol: bool, limit: usize) -> (Vec<Match>, bool) {
    let mut found = Vec::new();
    let mut truncated = false;
    each_rust_file(source, |file, content| {
        for (i, line) in content.lines().enumerate() {
            let hit = if symbol {
                defines(line, text)
            } else {
                line.contains(text)
            };
            if hit {
                if found.len() == limit {
                    truncated = true;
                    return ControlFlow::Break(());
                }
                found.push(Match {
                    file: file.to_string(),
                    line: i + 1,
                    text: clip(line),
                });
            }
        }
        ControlFlow::Continue(())
    });
    (found, truncated)
}

/// The public items of a crate's sources: `kind name` per `pub` item
/// (`pub(crate)` and narrower are not public), prefixed by the file's
/// module path (`src/de/mod.rs` → `de`).
pub fn public_items(source: &Source) -> BTreeSet<String> {
    let mut items = BTreeSet::new();
    each_rust_file(source, |file, content| {
        if let Some(module) = module_path(file) {
            public_items_of(&module, content, &mut items);
        }
        ControlFlow::Continue(())
    });
    items
}

fn public_items_of(module: &str, source: &str, items: &mut BTreeSet<String>) {
    for line in source.lines() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("pub ") else {
            continue;
        };
        let words: Vec<&str> = rest
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
            .filter(|w| !w.is_empty())
            .collect();
        let mut i = 0;
        while words
            .get(i)
            .is_some_and(|w| matches!(*w, "async" | "unsafe" | "extern" | "C"))
        {
            i += 1;
        }
        // `pub const fn f` is a function; `pub const N` a constant.
        if words.get(i) == Some(&"const") && words.get(i + 1) == Some(&"fn") {
            i += 1;
        }
        let (Some(&kind), name) = (words.get(i), words.get(i + 1).copied()) else {
            continue;
        };
        if !ITEM_KEYWORDS.contains(&kind) {
            continue;
        }
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            let path = if module.is_empty() {
                name.to_string()
            } else {
                format!("{module}::{name}")
            };
            items.insert(format!("{kind} {path}"));
        }
    }
}

/// `src/a/b.rs` → `a::b`, `src/a/mod.rs` → `a`, `src/lib.rs` → ``;
/// `None` outside `src/` (tests, examples, build scripts) and for
/// `src/bin/`.
fn module_path(file: &str) -> Option<String> {
    let inner = file.strip_prefix("src/")?;
    if inner.starts_with("bin/") || inner == "main.rs" {
        return None;
    }
    let inner = inner.strip_suffix(".rs")?;
    let parts: Vec<&str> = inner
        .split('/')
        .filter(|p| !matches!(*p, "mod" | "lib"))
        .collect();
    Some(parts.join("::"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_told_from_uses() {
        assert!(defines("pub fn parse(input: &str)", "parse"));
        assert!(defines("    struct Parser<'a> {", "Parser"));
        assert!(defines("macro_rules! parse {", "parse"));
        assert!(!defines("let x = parse(input);", "parse"));
        assert!(!defines("pub fn parse_all()", "parse"));
    }

    #[test]
    fn rust_sources_skip_target_and_hidden_directories() {
        assert!(is_rust_source("src/lib.rs"));
        assert!(is_rust_source("build.rs"));
        assert!(!is_rust_source("target/debug/build/out.rs"));
        assert!(!is_rust_source(".github/x.rs"));
        assert!(!is_rust_source("src/lib.rsx"));
    }

    #[test]
    fn module_paths_follow_the_file_layout() {
        assert_eq!(module_path("src/lib.rs").as_deref(), Some(""));
        assert_eq!(module_path("src/de/mod.rs").as_deref(), Some("de"));
        assert_eq!(module_path("src/de/value.rs").as_deref(), Some("de::value"));
        assert_eq!(module_path("tests/it.rs"), None);
        assert_eq!(module_path("src/bin/tool.rs"), None);
    }
}
