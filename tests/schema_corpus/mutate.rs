//! Negative controls: broken copies of a valid instance that the validator
//! must reject, so a lane that validates against a definition can fail.
//!
//! For an instance of a definition, derived from the definition itself:
//! - each required member removed;
//! - each member present (required or not) whose schema names its JSON
//!   types given a value of a type it does not allow;
//! - each `const` discriminator (a notification's `method`, an error's
//!   `code`, a content block's `type`, an elicitation's `mode`) changed to a
//!   different value of the same type, including one level into `allOf`
//!   (`HeaderMismatchError`'s `error.code`);
//! - for a branch target, `resultType` swapped (`complete` ↔
//!   `input_required`);
//! - the whole value replaced by one of another JSON type.
//!
//! Members are read from the definition, the `allOf` layers directly under
//! it, and, of an `anyOf` among them, the one branch the instance selects
//! by its `const` members (a `GetTaskResult`'s task by `status`).

use serde_json::{Map, Value};

use super::schema::{Schema, Target};

/// One broken copy and what was broken.
pub struct Mutation {
    pub what: String,
    pub value: Value,
}

/// The JSON types a member schema allows, read from `type`, `const`,
/// `enum`, and through `$ref`, `anyOf` and `oneOf`; `None` when the schema
/// does not say (it may accept anything).
fn allowed_types(doc: Schema, s: &Value) -> Option<Vec<String>> {
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        return allowed_types(
            doc,
            &doc.document()["$defs"][r.trim_start_matches("#/$defs/")],
        );
    }
    match s.get("type") {
        Some(Value::String(t)) => return Some(vec![t.clone()]),
        Some(Value::Array(ts)) => {
            return Some(
                ts.iter()
                    .filter_map(|t| t.as_str().map(String::from))
                    .collect(),
            )
        }
        _ => {}
    }
    if let Some(c) = s.get("const") {
        return Some(vec![json_type(c)]);
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        return Some(e.iter().map(json_type).collect());
    }
    let branches = s.get("anyOf").or_else(|| s.get("oneOf"))?.as_array()?;
    let mut out = Vec::new();
    for b in branches {
        out.extend(allowed_types(doc, b)?);
    }
    Some(out)
}

fn json_type(v: &Value) -> String {
    String::from(match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    })
}

/// A value of a JSON type the member schema `s` does not allow, if it says
/// which it allows.
fn wrong_type_for(doc: Schema, s: &Value) -> Option<Value> {
    let allowed = allowed_types(doc, s)?;
    let candidates = [
        ("boolean", Value::Bool(true)),
        ("string", Value::String(String::from("wrong type"))),
        ("array", Value::Array(Vec::new())),
        ("object", Value::Object(Map::new())),
        ("number", serde_json::json!(1.5)),
    ];
    candidates
        .into_iter()
        .find(|(t, _)| !allowed.iter().any(|a| a == t))
        .map(|(_, v)| v)
}

/// A value of another JSON type than the object or array `v`.
fn other_type(v: &Value) -> Value {
    match v {
        Value::Object(_) => Value::Array(Vec::new()),
        _ => Value::Object(Map::new()),
    }
}

/// A different value of the same JSON type as the `const` `c`.
fn other_const(c: &Value) -> Value {
    match c {
        Value::String(s) => Value::String(format!("{s}-not")),
        Value::Number(n) => Value::from(n.as_i64().map_or(0, |i| i - 1)),
        Value::Bool(b) => Value::Bool(!b),
        _ => Value::Null,
    }
}

/// Follow a root-level `$ref` to another definition (`EmptyResult` is a
/// `$ref` to `Result`).
fn resolved(doc: Schema, schema: &'static Value) -> &'static Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.trim_start_matches("#/$defs/");
            resolved(doc, &doc.document()["$defs"][name])
        }
        None => schema,
    }
}

/// The schema and the `allOf` members directly under it, and of an
/// `anyOf` among them the one branch `instance` selects by its `const`
/// members (`GetTaskResult`'s task by `status`), if exactly one does.
fn layers(doc: Schema, schema: &'static Value, instance: &Value) -> Vec<&'static Value> {
    let s = resolved(doc, schema);
    let mut out = vec![s];
    for item in s
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push(resolved(doc, item));
    }
    let selected: Vec<&'static Value> = out
        .iter()
        .filter_map(|layer| selected_branch(doc, layer, instance))
        .collect();
    out.extend(selected);
    out
}

/// The branch of `layer`'s `anyOf` whose `const` members `instance`
/// matches, when exactly one branch has any and matches.
fn selected_branch(doc: Schema, layer: &'static Value, instance: &Value) -> Option<&'static Value> {
    let branches = layer.get("anyOf")?.as_array()?;
    let mut matching = branches.iter().map(|b| resolved(doc, b)).filter(|b| {
        let consts: Vec<(&String, &Value)> = b
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(k, p)| p.get("const").map(|c| (k, c)))
            .collect();
        !consts.is_empty()
            && consts
                .iter()
                .all(|(k, c)| instance.get(k.as_str()) == Some(c))
    });
    let first = matching.next()?;
    matching.next().is_none().then_some(first)
}

fn required(doc: Schema, schema: &'static Value, instance: &Value) -> Vec<&'static str> {
    let mut out = Vec::new();
    for layer in layers(doc, schema, instance) {
        for r in layer
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(k) = r.as_str() {
                if !out.contains(&k) {
                    out.push(k);
                }
            }
        }
    }
    out
}

/// `(member, its schema)` for every declared property.
fn properties(
    doc: Schema,
    schema: &'static Value,
    instance: &Value,
) -> Vec<(&'static str, &'static Value)> {
    let mut out: Vec<(&'static str, &'static Value)> = Vec::new();
    for layer in layers(doc, schema, instance) {
        for (k, v) in layer
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if !out.iter().any(|(o, ov)| *o == k.as_str() && *ov == v) {
                out.push((k.as_str(), v));
            }
        }
    }
    out
}

/// Every broken copy of `instance`, an instance of `target`.
pub fn mutations(target: &Target, instance: &Value) -> Vec<Mutation> {
    let doc = target.schema;
    let schema = target.definition();
    let mut out = Vec::new();
    let Some(obj) = instance.as_object() else {
        return out;
    };
    let with = |k: &str, v: Value| {
        let mut o = obj.clone();
        o.insert(k.to_owned(), v);
        Value::Object(o)
    };
    for k in required(doc, schema, instance) {
        let mut o = obj.clone();
        if o.remove(k).is_some() {
            out.push(Mutation {
                what: format!("required `{k}` removed"),
                value: Value::Object(o),
            });
        }
    }
    for (k, s) in properties(doc, schema, instance) {
        let Some(v) = obj.get(k) else { continue };
        if let Some(wrong) = wrong_type_for(doc, s) {
            out.push(Mutation {
                what: format!("`{k}` of another type ({})", json_type(&wrong)),
                value: with(k, wrong),
            });
        }
        if let Some(c) = s.get("const") {
            out.push(Mutation {
                what: format!("`{k}` not {c}"),
                value: with(k, other_const(c)),
            });
        }
        // One level into the member: `allOf` layers with `const`s.
        for layer in s
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for (sub, ss) in layer
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if let (Some(c), Some(inner)) = (ss.get("const"), v.as_object()) {
                    if inner.contains_key(sub) {
                        let mut i = inner.clone();
                        i.insert(sub.clone(), other_const(c));
                        out.push(Mutation {
                            what: format!("`{k}.{sub}` not {c}"),
                            value: with(k, Value::Object(i)),
                        });
                    }
                }
            }
        }
    }
    if let Some(rt) = target.result_type {
        let swapped = if rt == "complete" {
            "input_required"
        } else {
            "complete"
        };
        out.push(Mutation {
            what: format!("`resultType` {swapped} instead of {rt}"),
            value: with("resultType", Value::String(swapped.to_owned())),
        });
    }
    out.push(Mutation {
        what: String::from("the whole value of another type"),
        value: other_type(instance),
    });
    out
}
