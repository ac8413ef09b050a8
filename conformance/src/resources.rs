//! The fixture's resources and resource template
//! (`SCENARIOS-2026-07-28.md` § 2.3).
//!
//! `test://static-text` is registered first: the `caching` scenario reads
//! the first URI `resources/list` returns (`SCENARIOS-2026-07-28.md` § 4
//! rule 5).
//! `test://nonexistent-resource-for-conformance-testing` must stay
//! unregistered and unmatched, so reading it yields `-32602` with
//! `data.uri` from the engine.

use snodo_proto::{
    CacheHint, ReadResourceResult, Resource, ResourceArgs, ResourceContents, ResourceError,
    ResourceTemplate, ServiceBuilder,
};

use crate::media::PNG_1X1;

/// URI template of the templated resource.
pub const TEMPLATE: &str = "test://template/{id}/data";

/// How long the static resources may be cached: their contents never
/// change and hold nothing user-specific (`server/utilities/caching.mdx`).
const STATIC_HINT: CacheHint = CacheHint::public(60_000);

/// Register the resources (static text first) and the template.
pub fn register(builder: ServiceBuilder) -> ServiceBuilder {
    builder
        .resource(
            Resource::new("test://static-text", "static-text")
                .description("A static text resource for testing")
                .mime_type("text/plain"),
            |args: ResourceArgs| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri,
                    "text/plain",
                    "This is the content of the static text resource.",
                )])
                .cache(STATIC_HINT))
            },
        )
        .resource(
            Resource::new("test://static-binary", "static-binary")
                .description("A static binary resource (a 1x1 PNG image) for testing")
                .mime_type("image/png"),
            |args: ResourceArgs| async move {
                Ok(ReadResourceResult::new(vec![ResourceContents::blob(
                    args.uri,
                    "image/png",
                    PNG_1X1,
                )])
                .cache(STATIC_HINT))
            },
        )
        .resource_template(
            ResourceTemplate::new(TEMPLATE, "template-data")
                .description("A templated resource whose contents name the requested id")
                .mime_type("application/json"),
            // No cache override: template reads take the service default.
            |args: ResourceArgs| async move {
                let Some(id) = args.variables.get("id") else {
                    return Err(ResourceError::NotFound);
                };
                let text = template_data(id);
                Ok(ReadResourceResult::new(vec![ResourceContents::text(
                    args.uri,
                    "application/json",
                    text,
                )]))
            },
        )
}

/// `{"id":"<id>","templateTest":true,"data":"Data for ID: <id>"}`, members
/// in that order (serde_json's map would sort them).
fn template_data(id: &str) -> String {
    let id_json = serde_json::Value::String(id.to_owned());
    let data_json = serde_json::Value::String(format!("Data for ID: {id}"));
    format!(r#"{{"id":{id_json},"templateTest":true,"data":{data_json}}}"#)
}
