//! Matching URIs against RFC 6570 URI templates (levels 1 and 2).
//!
//! `resources/read` of a URI that is not a registered resource is tried
//! against each registered template in order; the first match's variables
//! go to its handler, which may still answer "not found".
//! Supported expressions: `{var}` (simple: no `/ ? # &` in the value, and
//! percent-decoded), `{+var}` (reserved: any characters), `{#var}`
//! (fragment). Other operators are refused at registration.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

#[derive(Clone, Debug, PartialEq)]
enum Part {
    Literal(String),
    Var {
        name: String,
        reserved: bool,
        prefix: Option<char>,
    },
}

/// A parsed template.
#[derive(Clone, Debug, PartialEq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

impl UriTemplate {
    /// The names of the template's variables, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// Parse `template`.
    pub fn parse(template: &str) -> Result<UriTemplate, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            match rest.find('{') {
                Some(0) => {
                    let end = rest.find('}').ok_or_else(|| String::from("unclosed '{'"))?;
                    let expr = &rest[1..end];
                    let (reserved, prefix, name) = match expr.chars().next() {
                        Some('+') => (true, None, &expr[1..]),
                        Some('#') => (true, Some('#'), &expr[1..]),
                        Some(c) if "./;?&=,!@|".contains(c) => {
                            return Err(alloc::format!(
                                "URI template operator '{c}' is not supported"
                            ))
                        }
                        _ => (false, None, expr),
                    };
                    if name.is_empty()
                        || !name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                    {
                        return Err(alloc::format!("invalid variable name {name:?}"));
                    }
                    if matches!(parts.last(), Some(Part::Var { .. })) {
                        return Err(String::from(
                            "two adjacent expressions cannot be matched unambiguously",
                        ));
                    }
                    parts.push(Part::Var {
                        name: String::from(name),
                        reserved,
                        prefix,
                    });
                    rest = &rest[end + 1..];
                }
                Some(i) => {
                    parts.push(Part::Literal(String::from(&rest[..i])));
                    rest = &rest[i..];
                }
                None => {
                    if rest.contains('}') {
                        return Err(String::from("unmatched '}'"));
                    }
                    parts.push(Part::Literal(String::from(rest)));
                    rest = "";
                }
            }
        }
        Ok(UriTemplate { parts })
    }

    /// Match `uri`, returning the variables on success.
    ///
    /// Trying split points is quadratic (or worse) in the URI's length
    /// when a template has several expressions and the URI almost fits, so
    /// the work is bounded, linearly in that length: a URI that exhausts
    /// the budget does not match. A URI that fits is matched within it
    /// (values are tried shortest first, each expression scanning forward
    /// once).
    pub fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        let mut vars = BTreeMap::new();
        let mut budget = uri.len().saturating_mul(8).saturating_add(1024);
        if match_parts(&self.parts, uri, &mut vars, &mut budget) {
            Some(vars)
        } else {
            None
        }
    }
}

fn match_parts(
    parts: &[Part],
    input: &str,
    vars: &mut BTreeMap<String, String>,
    budget: &mut usize,
) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return input.is_empty();
    };
    match first {
        Part::Literal(l) => input
            .strip_prefix(l.as_str())
            .is_some_and(|r| match_parts(rest, r, vars, budget)),
        Part::Var {
            name,
            reserved,
            prefix,
        } => {
            let mut input = input;
            if let Some(p) = prefix {
                match input.strip_prefix(*p) {
                    Some(r) => input = r,
                    None => return false,
                }
            }
            // A simple value ends before the first `/ ? # &`: found once,
            // not searched again for every split point.
            let stop = if *reserved {
                input.len()
            } else {
                input.find(['/', '?', '#', '&']).unwrap_or(input.len())
            };
            // Try every split point, shortest value first, within the budget.
            for (end, _) in input
                .char_indices()
                .skip(1)
                .chain(core::iter::once((input.len(), ' ')))
            {
                if end > stop {
                    break;
                }
                if *budget == 0 {
                    return false;
                }
                *budget -= 1;
                let value = &input[..end];
                if match_parts(rest, &input[end..], vars, budget) {
                    let decoded = if *reserved {
                        String::from(value)
                    } else {
                        percent_decode(value)
                    };
                    vars.insert(name.clone(), decoded);
                    return true;
                }
            }
            false
        }
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| String::from(s))
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_variable() {
        let t = UriTemplate::parse("test://template/{id}/data").unwrap();
        let v = t.matches("test://template/123/data").unwrap();
        assert_eq!(v.get("id").map(String::as_str), Some("123"));
        assert!(t.matches("test://template/1/2/data").is_none());
        assert!(t.matches("test://template//data").is_none());
        assert!(t.matches("test://template/123/datax").is_none());
    }

    #[test]
    fn reserved_variable_spans_slashes() {
        let t = UriTemplate::parse("file:///{+path}").unwrap();
        let v = t.matches("file:///a/b/c.txt").unwrap();
        assert_eq!(v.get("path").map(String::as_str), Some("a/b/c.txt"));
    }

    #[test]
    fn percent_decoding_of_simple_values() {
        let t = UriTemplate::parse("x://{name}").unwrap();
        let v = t.matches("x://a%20b").unwrap();
        assert_eq!(v.get("name").map(String::as_str), Some("a b"));
        let v = t.matches("x://a%2").unwrap();
        assert_eq!(v.get("name").map(String::as_str), Some("a%2"));
    }

    #[test]
    fn refuses_unsupported_templates() {
        assert!(UriTemplate::parse("x://{?q}").is_err());
        assert!(UriTemplate::parse("x://{a}{b}").is_err());
        assert!(UriTemplate::parse("x://{a").is_err());
        assert!(UriTemplate::parse("x://a}").is_err());
    }
}
