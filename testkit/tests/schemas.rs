//! Schemas generated for typed tools are JSON Schema 2020-12 with `type:
//! object` at the root (`server/tools.mdx` § Tool), and the tools that
//! carry them are valid `Tool`s of the pinned `schema.json`
//! (`testkit/schema/mcp-2026-07-28.schema.json`), checked on the
//! `tools/list` answer as the wire carries it. Each type's arguments are
//! then checked both ways: a valid instance is accepted and reaches the
//! handler; an invalid one is refused with `-32602`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::typed::{input_schema_for, Json};
use snodo_proto::{BuildError, CallToolResult, Context, Service, Tool};
use snodo_testkit::{assert_json_schema_2020_12, assert_schema_valid, block_on, TestClient};

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Nested {
    /// Who asks.
    user_name: String,
    address: Address,
    tags: Vec<String>,
    scores: BTreeMap<String, u32>,
    #[serde(default)]
    verbose: bool,
    mode: Mode,
    #[schemars(range(min = -10, max = 10))]
    offset: Option<i64>,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Address {
    city: String,
    zip: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Mode {
    Fast,
    Thorough,
}

/// An internally tagged enum: every alternative an object.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

#[derive(Deserialize, JsonSchema)]
struct Empty {}

#[derive(Serialize, JsonSchema)]
struct Report {
    lines: Vec<String>,
    at: Address,
}

fn service() -> Service {
    Service::builder()
        .tool(
            Tool::new("nested", "Nested arguments"),
            |a: Nested, _: Context| async move {
                let mode = match a.mode {
                    Mode::Fast => "fast",
                    Mode::Thorough => "thorough",
                };
                format!(
                    "{} in {}: {} tags, {} scores, verbose {}, {mode}, offset {:?}",
                    a.user_name,
                    a.address.city,
                    a.tags.len(),
                    a.scores.len(),
                    a.verbose,
                    a.offset
                )
            },
        )
        .tool(
            Tool::new("shape", "A tagged enum"),
            |s: Shape, _: Context| async move {
                match s {
                    Shape::Circle { radius } => format!("circle {radius}"),
                    Shape::Square { side } => format!("square {side}"),
                }
            },
        )
        .tool(
            Tool::new("empty", "No fields"),
            |_: Empty, _: Context| async { CallToolResult::text("empty") },
        )
        .tool(
            Tool::new("report", "Structured output"),
            |_: Empty, _: Context| async {
                Json(Report {
                    lines: vec!["a".into()],
                    at: Address {
                        city: "Oslo".into(),
                        zip: None,
                    },
                })
            },
        )
        .build()
        .unwrap()
}

#[test]
fn generated_schemas_are_2020_12_objects_and_valid_tools_of_schema_json() {
    let mut client = TestClient::new(&service());
    let page = block_on(client.request("tools/list", json!({}))).unwrap();
    assert_schema_valid("ListToolsResult", &page);
    let tools = page["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 4);
    for tool in tools {
        let name = &tool["name"];
        assert_schema_valid("Tool", tool);
        let input = &tool["inputSchema"];
        assert_eq!(input["type"], "object", "{name}");
        assert_json_schema_2020_12(&format!("{name}: inputSchema"), input);
        if let Some(output) = tool.get("outputSchema") {
            assert_json_schema_2020_12(&format!("{name}: outputSchema"), output);
        }
    }
    // The one structured tool's outputSchema, definitions under `$defs`.
    assert_eq!(
        tools[3]["outputSchema"],
        json!({
            "type": "object",
            "properties": {
                "lines": {"type": "array", "items": {"type": "string"}},
                "at": {"$ref": "#/$defs/Address"}
            },
            "required": ["lines", "at"],
            "$defs": {"Address": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "zip": {"type": ["string", "null"]}},
                "required": ["city"]
            }}
        })
    );
}

#[test]
fn the_generated_schema_accepts_what_the_type_accepts_and_refuses_the_rest() {
    let mut client = TestClient::new(&service());
    let ok = block_on(client.call_tool(
        "nested",
        json!({"userName": "ada", "address": {"city": "Oslo"}, "tags": [], "scores": {"x": 1}, "mode": "fast", "offset": -3}),
    ))
    .unwrap();
    assert_eq!(
        ok.content,
        CallToolResult::text("ada in Oslo: 0 tags, 1 scores, verbose false, fast, offset Some(-3)")
            .content
    );
    for (bad, why) in [
        (
            json!({"userName": "ada", "address": {"city": "Oslo"}, "tags": [], "scores": {}, "mode": "slow"}),
            "/mode: \"slow\" is not one of \"fast\" or \"thorough\"",
        ),
        (
            json!({"userName": "ada", "address": {}, "tags": [], "scores": {}, "mode": "fast"}),
            "/address: \"city\" is a required property",
        ),
        (
            json!({"userName": "ada", "address": {"city": "Oslo"}, "tags": [], "scores": {"x": -1}, "mode": "fast"}),
            "/scores/x: -1 is less than the minimum of 0",
        ),
        (
            json!({"userName": "ada", "address": {"city": "Oslo"}, "tags": [], "scores": {}, "mode": "fast", "offset": 11}),
            "/offset: 11 is greater than the maximum of 10",
        ),
    ] {
        let e = block_on(client.call_tool("nested", bad)).unwrap_err();
        assert_eq!(
            (e.code, e.message),
            (-32602, format!("Invalid arguments for tool nested: {why}"))
        );
    }
    let circle =
        block_on(client.call_tool("shape", json!({"kind": "circle", "radius": 2.0}))).unwrap();
    assert_eq!(circle.content, CallToolResult::text("circle 2").content);
    let e = block_on(client.call_tool("shape", json!({"kind": "triangle"}))).unwrap_err();
    assert_eq!(e.code, -32602);
}

#[test]
fn a_tagged_enum_gets_type_object_at_its_root_and_a_plain_enum_is_refused() {
    let shape = input_schema_for::<Shape>();
    assert_eq!(shape["type"], "object");
    assert_eq!(shape["oneOf"].as_array().map(Vec::len), Some(2));
    // A plain enum is a string: no tool can take it as its arguments.
    let built = Service::builder()
        .tool(
            Tool::new("mode", "A plain enum"),
            |_: Mode, _: Context| async { "x" },
        )
        .build();
    assert_eq!(
        built.unwrap_err(),
        BuildError::InvalidInputSchema {
            tool: "mode".into(),
            reason: "inputSchema must have \"type\": \"object\" at the root".into()
        }
    );
}

/// A 1×1 transparent PNG, as a `data:` URI.
const DOT: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

#[test]
fn icons_set_on_typed_and_untyped_declarations_are_published_as_schema_json_icons() {
    use snodo_proto::extract::State;
    use snodo_proto::{
        Icon, Implementation, NoArgs, Prompt, ReadResourceResult, Resource, ResourceArgs,
        ResourceTemplate,
    };
    let service = Service::builder()
        .server_info(Implementation::new("iconic", "1.0.0").icon(Icon::new(DOT).size("1x1")))
        .tool(
            Tool::new("plain", "An untyped tool").icon(
                Icon::new("https://example.com/plain.svg")
                    .mime_type("image/svg+xml")
                    .size("any"),
            ),
            |_: NoArgs, _: Context| async { "plain" },
        )
        .tool(
            Tool::new("typed", "A typed tool")
                .icon(
                    Icon::new(DOT)
                        .mime_type("image/png")
                        .size("1x1")
                        .theme("light"),
                )
                .icon(Icon::new(DOT).size("1x1").theme("dark")),
            |_: Empty, _: Context| async { "typed" },
        )
        .state(7u32)
        .tool(
            Tool::new("stateful", "A tool with state").icon(Icon::new(DOT)),
            |n: State<u32>, _: NoArgs, _: Context| async move { n.to_string() },
        )
        .prompt(
            Prompt::new("greeting", "A greeting")
                .title("Greeting")
                .icon(Icon::new(DOT)),
            |_: State<u32>, _: Empty, _: Context| async {
                Ok::<_, snodo_proto::ErrorObject>(snodo_proto::GetPromptResult::new(vec![]))
            },
        )
        .resource(
            Resource::new("mem://index", "index")
                .title("Index")
                .icon(Icon::new(DOT).theme("dark")),
            |_: State<u32>, _: ResourceArgs, _: Context| async {
                Ok::<_, snodo_proto::ResourceError>(ReadResourceResult::new(vec![]))
            },
        )
        .resource_template(
            ResourceTemplate::new("mem://{id}", "memo")
                .title("Memo")
                .icon(Icon::new(DOT).size("48x48")),
            |_: State<u32>, _: ResourceArgs, _: Context| async {
                Err::<snodo_proto::ReadResourceResult, _>(snodo_proto::ResourceError::NotFound)
            },
        )
        .build()
        .unwrap();
    let mut client = TestClient::new(&service);
    let tools = block_on(client.request("tools/list", json!({}))).unwrap();
    assert_schema_valid("ListToolsResult", &tools);
    let icons: Vec<&Value> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["icons"])
        .collect();
    assert_eq!(
        icons,
        [
            &json!([{"src": "https://example.com/plain.svg", "mimeType": "image/svg+xml", "sizes": ["any"]}]),
            &json!([
                {"src": DOT, "mimeType": "image/png", "sizes": ["1x1"], "theme": "light"},
                {"src": DOT, "sizes": ["1x1"], "theme": "dark"}
            ]),
            &json!([{"src": DOT}]),
        ]
    );
    let prompts = block_on(client.request("prompts/list", json!({}))).unwrap();
    assert_schema_valid("ListPromptsResult", &prompts);
    assert_eq!(
        prompts["prompts"][0],
        json!({"name": "greeting", "title": "Greeting", "description": "A greeting", "icons": [{"src": DOT}]})
    );
    let resources = block_on(client.request("resources/list", json!({}))).unwrap();
    assert_schema_valid("ListResourcesResult", &resources);
    assert_eq!(
        resources["resources"][0],
        json!({"uri": "mem://index", "name": "index", "title": "Index", "icons": [{"src": DOT, "theme": "dark"}]})
    );
    let discover = block_on(client.discover()).unwrap();
    assert_schema_valid("DiscoverResult", &discover);
    assert_eq!(
        discover["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "iconic", "version": "1.0.0", "icons": [{"src": DOT, "sizes": ["1x1"]}]})
    );
    let templates = block_on(client.request("resources/templates/list", json!({}))).unwrap();
    assert_schema_valid("ListResourceTemplatesResult", &templates);
    assert_eq!(
        templates["resourceTemplates"][0],
        json!({"uriTemplate": "mem://{id}", "name": "memo", "title": "Memo", "icons": [{"src": DOT, "sizes": ["48x48"]}]})
    );
}
