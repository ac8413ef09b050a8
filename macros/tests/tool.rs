//! `#[tool]` and `#[tools]` on the wire: each test builds a service from
//! annotated functions and reads `tools/list` and `tools/call` back as a
//! client sees them, against schemas and results written out here.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};
use snodo::prelude::*;
use snodo::proto::extract::Meta;
use snodo::testkit::{block_on, TestClient};

/// Add two numbers.
///
/// Both are integers.
#[tool(read_only, idempotent, open_world = false)]
async fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> String {
    (a + b).to_string()
}

fn wave(size: &str) -> Icon {
    Icon::new("data:image/png;base64,AAAA")
        .mime_type("image/png")
        .size(size)
}

struct Greeting {
    word: &'static str,
}

/// Greet someone.
#[tool(name = "say.hello", title = "Say hello", icon = wave("64x64"), icon = Icon::new("https://example.com/wave.svg"))]
fn greet(
    greeting: State<Greeting>,
    #[serde(rename = "who")] name: String,
    /// Exclamation marks.
    #[serde(default)]
    excitement: Option<u8>,
    meta: Meta,
) -> Result<Json<Value>, ToolError> {
    let bang = "!".repeat(usize::from(excitement.unwrap_or(1)));
    Ok(Json(json!({
        "text": format!("{} {name}{bang}", greeting.word),
        "app": meta.raw().get("example.com/app").cloned(),
    })))
}

#[derive(Deserialize, JsonSchema)]
#[serde(crate = "snodo::deps::serde")]
struct Span {
    /// Where it starts.
    from: u32,
    /// Where it ends.
    to: u32,
}

/// The length of a span.
#[tool]
async fn length(#[args] span: Span) -> Result<String, ToolError> {
    span.to
        .checked_sub(span.from)
        .map(|n| n.to_string())
        .ok_or_else(|| ToolError::from("A span ends after it starts"))
}

/// How many tools this is.
#[tool(description = "Takes nothing")]
async fn nothing(_: Context) -> &'static str {
    "nothing"
}

fn listed(client: &mut TestClient) -> Value {
    block_on(client.request("tools/list", json!({}))).expect("tools/list")["tools"].clone()
}

/// A `tools/call` result as the service sends it: `content` and the rest
/// of `fields`, with the envelope every 2026-07-28 result carries.
fn complete(fields: Value) -> Value {
    let mut result = json!({
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "snodo", "version": "0.1.0"}}
    });
    for (k, v) in fields.as_object().expect("an object") {
        result[k] = v.clone();
    }
    result
}

fn call(client: &mut TestClient, name: &str, arguments: Value) -> Value {
    block_on(client.request("tools/call", json!({"name": name, "arguments": arguments})))
        .expect("tools/call")
}

fn tool<'a>(tools: &'a Value, name: &str) -> &'a Value {
    tools
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("no tool {name} in {tools}"))
}

fn service() -> Service {
    let builder = Service::builder().state(Greeting { word: "Hello" });
    let builder = add_tool(builder);
    let builder = greet_tool(builder);
    let builder = length_tool(builder);
    nothing_tool(builder).build().expect("service")
}

#[test]
fn parameters_are_the_input_schema_and_the_doc_comment_the_description() {
    let mut client = TestClient::new(&service());
    let tools = listed(&mut client);
    assert_eq!(
        tool(&tools, "add"),
        &json!({
            "name": "add",
            "description": "Add two numbers.\n\nBoth are integers.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "description": "The first addend."},
                    "b": {"type": "integer", "description": "The second addend."}
                },
                "required": ["a", "b"]
            },
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        })
    );
    assert_eq!(
        call(&mut client, "add", json!({"a": 2, "b": 40})),
        complete(json!({"content": [{"type": "text", "text": "42"}]}))
    );
}

#[test]
fn extractors_and_arguments_mix_in_any_order_with_serde_attributes() {
    let mut client = TestClient::new(&service()).with_meta("example.com/app", json!("test"));
    let tools = listed(&mut client);
    let greet = tool(&tools, "say.hello");
    assert_eq!(greet["title"], "Say hello");
    assert_eq!(
        greet["icons"],
        json!([
            {"src": "data:image/png;base64,AAAA", "mimeType": "image/png", "sizes": ["64x64"]},
            {"src": "https://example.com/wave.svg"}
        ])
    );
    assert_eq!(greet["description"], "Greet someone.");
    assert_eq!(
        greet["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "who": {"type": "string"},
                "excitement": {
                    "type": ["integer", "null"],
                    "description": "Exclamation marks.",
                    "minimum": 0,
                    "maximum": 255,
                    "default": null
                }
            },
            "required": ["who"]
        })
    );
    let result = call(
        &mut client,
        "say.hello",
        json!({"who": "Ada", "excitement": 3}),
    );
    assert_eq!(
        result["structuredContent"],
        json!({"text": "Hello Ada!!!", "app": "test"})
    );
    let result = call(&mut client, "say.hello", json!({"who": "Bob"}));
    assert_eq!(result["structuredContent"]["text"], "Hello Bob!");
}

#[test]
fn a_missing_required_argument_is_refused_before_the_function_runs() {
    let mut client = TestClient::new(&service());
    let err = block_on(client.request("tools/call", json!({"name": "add", "arguments": {"a": 1}})))
        .expect_err("refused");
    assert_eq!(err.code, -32602, "{err:?}");
}

#[test]
fn an_args_parameter_is_the_whole_arguments_object() {
    let mut client = TestClient::new(&service());
    let tools = listed(&mut client);
    assert_eq!(
        tool(&tools, "length")["inputSchema"],
        json!({
            "type": "object",
            "properties": {
                "from": {"type": "integer", "description": "Where it starts.", "minimum": 0},
                "to": {"type": "integer", "description": "Where it ends.", "minimum": 0}
            },
            "required": ["from", "to"]
        })
    );
    assert_eq!(
        call(&mut client, "length", json!({"from": 3, "to": 10})),
        complete(json!({"content": [{"type": "text", "text": "7"}]}))
    );
    assert_eq!(
        call(&mut client, "length", json!({"from": 10, "to": 3})),
        complete(
            json!({"content": [{"type": "text", "text": "A span ends after it starts"}], "isError": true})
        )
    );
}

#[test]
fn a_function_without_arguments_admits_none() {
    let mut client = TestClient::new(&service());
    let tools = listed(&mut client);
    assert_eq!(
        tool(&tools, "nothing"),
        &json!({
            "name": "nothing",
            "description": "Takes nothing",
            "inputSchema": {"type": "object", "additionalProperties": false}
        })
    );
    assert_eq!(
        call(&mut client, "nothing", json!({}))["content"][0]["text"],
        "nothing"
    );
}

#[test]
fn the_function_stays_callable_as_written() {
    assert_eq!(block_on(add(1, 2)), "3");
}

/// A counter whose methods are tools.
struct Counter {
    count: AtomicU32,
}

#[tools]
impl Counter {
    /// Add to the counter and say its value.
    #[tool(name = "bump", destructive = false)]
    async fn bump(
        &self,
        /// How much to add.
        by: u32,
    ) -> String {
        (self.count.fetch_add(by, Ordering::SeqCst) + by).to_string()
    }

    /// The counter's value.
    #[tool(read_only)]
    fn value(self: Arc<Self>, _ctx: Context) -> Json<Value> {
        Json(json!({"value": self.count.load(Ordering::SeqCst)}))
    }

    /// Not a tool: no `#[tool]`.
    fn reset(&self) {
        self.count.store(0, Ordering::SeqCst);
    }
}

#[test]
fn the_methods_of_an_impl_block_are_tools_on_one_shared_value() {
    let counter = Arc::new(Counter {
        count: AtomicU32::new(0),
    });
    let service = counter.tools(Service::builder()).build().expect("service");
    let mut client = TestClient::new(&service);
    let tools = listed(&mut client);
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["bump", "value"]);
    assert_eq!(
        tool(&tools, "bump")["annotations"],
        json!({"destructiveHint": false})
    );
    assert_eq!(
        call(&mut client, "bump", json!({"by": 5}))["content"][0]["text"],
        "5"
    );
    assert_eq!(
        call(&mut client, "bump", json!({"by": 2}))["content"][0]["text"],
        "7"
    );
    assert_eq!(
        call(&mut client, "value", json!({}))["structuredContent"],
        json!({"value": 7})
    );
    counter.reset();
    assert_eq!(counter.count.load(Ordering::SeqCst), 0);
}

#[test]
fn a_tool_is_added_at_run_time_through_the_live_registry() {
    let service = add_tool(Service::builder().state(Greeting { word: "Hi" }))
        .build()
        .expect("service");
    let mut client = TestClient::new(&service);
    assert_eq!(listed(&mut client).as_array().map(Vec::len), Some(1));
    let registry = service.registry();
    greet_tool(registry.change()).commit().expect("commit");
    let result = call(&mut client, "say.hello", json!({"who": "Eve"}));
    assert_eq!(result["structuredContent"]["text"], "Hi Eve!");
}
