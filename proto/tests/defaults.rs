//! The defaults the rustdoc states are the defaults the code has: every
//! field of [`Limits`](snodo_proto::Limits) and
//! [`HttpConfig`](snodo_proto::HttpConfig) says `Default: `expr`` in its doc,
//! and that `expr` is exactly the one its `Default` impl gives the field. A
//! default changed, or a field added, without its doc fails here.

/// A struct's fields, each with its doc comment joined into one line.
fn documented_fields(src: &str, name: &str) -> Vec<(String, String)> {
    let start = src
        .find(&format!("pub struct {name} {{"))
        .unwrap_or_else(|| panic!("no `pub struct {name}`"));
    let mut fields = Vec::new();
    let mut doc = String::new();
    for line in src[start..].lines().skip(1) {
        let line = line.trim();
        if line == "}" {
            break;
        }
        if let Some(text) = line.strip_prefix("///") {
            doc.push_str(text.trim());
            doc.push(' ');
        } else if let Some(field) = line.strip_prefix("pub ") {
            let field = field.split(':').next().unwrap_or_default().trim();
            fields.push((field.to_string(), std::mem::take(&mut doc)));
        }
    }
    fields
}

/// The fields of `name`'s `Default` impl, each with its expression.
fn default_exprs(src: &str, name: &str) -> Vec<(String, String)> {
    let imp = src
        .find(&format!("impl Default for {name} {{"))
        .unwrap_or_else(|| panic!("no `impl Default for {name}`"));
    let after = imp + src[imp..].find('\n').unwrap_or_default();
    let body = after
        + src[after..]
            .find(&format!("{name} {{\n"))
            .unwrap_or_else(|| panic!("`impl Default for {name}` builds no `{name} {{`"));
    let mut exprs = Vec::new();
    for line in src[body..].lines().skip(1) {
        let line = line.trim();
        if line == "}" {
            break;
        }
        let (field, expr) = line.split_once(':').unwrap_or_else(|| {
            panic!("`{line}`: one `field: expr,` per line in Default for {name}")
        });
        exprs.push((
            field.trim().to_string(),
            expr.trim().trim_end_matches(',').to_string(),
        ));
    }
    exprs
}

fn check(src: &str, name: &str) {
    let fields = documented_fields(src, name);
    let exprs = default_exprs(src, name);
    let mut wrong = Vec::new();
    let names: Vec<&str> = fields.iter().map(|(f, _)| f.as_str()).collect();
    let set: Vec<&str> = exprs.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(
        names, set,
        "{name}: Default sets every field, in declaration order"
    );
    for ((field, doc), (_, expr)) in fields.iter().zip(&exprs) {
        if !doc.contains(&format!("Default: `{expr}`")) {
            wrong.push(format!(
                "{name}::{field}: its doc must say Default: `{expr}`\n  doc: {doc}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(fields.len() > 5, "{name}: parsed only {fields:?}");
}

#[test]
fn limits_document_their_defaults() {
    check(include_str!("../src/service.rs"), "Limits");
}

#[test]
fn http_config_documents_its_defaults() {
    check(include_str!("../src/http/mod.rs"), "HttpConfig");
}
