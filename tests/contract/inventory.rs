//! The evidence inventory and the map from tests to evidence ids.
//!
//! `inventory.txt`: one id per line, then what its tests show.
//! `map.txt`: one claim per line, a test pattern then an id. A pattern is
//! `package::target::test` (the target is `lib`, `bin:NAME` or the test
//! target's name) where `*` matches any run of characters. `#` starts a
//! comment; blank lines are ignored.

use std::collections::BTreeMap;

/// An evidence id and what its tests show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    pub title: String,
}

/// One line of the map: tests matching `pattern` are evidence for `id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    pub pattern: String,
    pub id: String,
    /// 1-based line in the map file, for messages.
    pub line: usize,
}

/// An id is lower-case dotted words: `core.admission.meta`.
fn valid_id(id: &str) -> bool {
    let parts: Vec<&str> = id.split('.').collect();
    parts.len() >= 2
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
}

/// Lines that carry content, with their 1-based numbers, comments removed.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, l)| {
        let l = l.split('#').next().unwrap_or("").trim();
        (!l.is_empty()).then_some((i + 1, l))
    })
}

/// Parse the inventory; every problem is reported.
pub fn parse_inventory(text: &str) -> Result<Vec<Entry>, Vec<String>> {
    let mut out: Vec<Entry> = Vec::new();
    let mut problems = Vec::new();
    let mut seen = BTreeMap::new();
    for (n, l) in lines(text) {
        let (id, title) = match l.split_once(char::is_whitespace) {
            Some((id, title)) => (id, title.trim()),
            None => (l, ""),
        };
        if !valid_id(id) {
            problems.push(format!(
                "inventory line {n}: `{id}` is not a dotted lower-case id"
            ));
        } else if title.is_empty() {
            problems.push(format!(
                "inventory line {n}: `{id}` says nothing about its tests"
            ));
        } else if let Some(first) = seen.insert(id.to_owned(), n) {
            problems.push(format!("inventory line {n}: `{id}` repeats line {first}"));
        } else {
            out.push(Entry {
                id: id.to_owned(),
                title: title.to_owned(),
            });
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// Parse the map; every problem is reported.
pub fn parse_map(text: &str) -> Result<Vec<Claim>, Vec<String>> {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (n, l) in lines(text) {
        let fields: Vec<&str> = l.split_whitespace().collect();
        match fields.as_slice() {
            [pattern, id] if pattern.split("::").count() >= 3 => out.push(Claim {
                pattern: (*pattern).to_owned(),
                id: (*id).to_owned(),
                line: n,
            }),
            _ => problems.push(format!(
                "map line {n}: expected `package::target::test-pattern id`, got `{l}`"
            )),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// Whether `name` matches `pattern`, where `*` matches any run of
/// characters (including none) and everything else matches itself.
pub fn matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ni));
            pi += 1;
        } else if pi < p.len() && p[pi] == n[ni] {
            pi += 1;
            ni += 1;
        } else if let Some((sp, sn)) = star {
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(matches("a::b::c", "a::b::c"));
        assert!(!matches("a::b::c", "a::b::cd"));
        assert!(matches("a::b::*", "a::b::cd"));
        assert!(matches("a::*::c*", "a::x::y::cz"));
        assert!(matches("*", ""));
        assert!(!matches("a*b", "ac"));
        assert!(matches("a*b*c", "aXbYbZc"));
    }

    #[test]
    fn inventory_lines_and_refusals() {
        let ok = parse_inventory(
            "# comment\n\ncore.x  Shows x (spec § 1)\nhttp.y_z  Shows y # trailing\n",
        )
        .unwrap();
        assert_eq!(
            ok,
            vec![
                Entry {
                    id: "core.x".into(),
                    title: "Shows x (spec § 1)".into()
                },
                Entry {
                    id: "http.y_z".into(),
                    title: "Shows y".into()
                }
            ]
        );
        let bad = parse_inventory("Core.x t\nsingle t\ncore.y\ncore.z a\ncore.z b\n").unwrap_err();
        assert_eq!(bad.len(), 4, "{bad:?}");
    }

    #[test]
    fn map_lines_and_refusals() {
        let ok = parse_map("p::t::name*   core.x\n").unwrap();
        assert_eq!(
            ok,
            vec![Claim {
                pattern: "p::t::name*".into(),
                id: "core.x".into(),
                line: 1
            }]
        );
        assert_eq!(parse_map("p::t core.x\np::t::n\n").unwrap_err().len(), 2);
    }
}
