//! Typed tools on the wire: the schemas generated from Rust types as
//! `tools/list` publishes them, arguments that fail them, structured
//! results, a result that strays from its `outputSchema`, and state handed
//! to handlers. Requests and expected answers are literal JSON.

use std::sync::atomic::{AtomicU32, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use snodo_proto::extract::State;
use snodo_proto::schemars::{self, JsonSchema};
use snodo_proto::typed::Json;
use snodo_proto::{
    CallToolResult, Connection, Context, Instant, Output, Service, Tool, ToolAnnotations,
    ToolError, Transport,
};
use snodo_testkit::{block_on, TestClient};

#[derive(Deserialize, JsonSchema)]
struct Search {
    /// Words to look for.
    query: String,
    /// At most this many hits.
    limit: Option<u8>,
}

#[derive(Serialize, JsonSchema)]
struct Hits {
    hits: Vec<String>,
}

// Its schema promises an integer; it serializes a string.
#[derive(Serialize, JsonSchema)]
struct Liar {
    #[schemars(with = "u32")]
    count: String,
}

struct Library {
    books: Vec<&'static str>,
    searches: AtomicU32,
}

fn service() -> Service {
    Service::builder()
        .tool(
            Tool::new("shout", "Upper-case a text"),
            |args: Shout, _: Context| async move { args.text.to_uppercase() },
        )
        .state(Library {
            books: vec!["Dune", "Emma", "Dracula"],
            searches: AtomicU32::new(0),
        })
        .tool(
            Tool::new("search", "Search the library")
                .title("Search")
                .annotations(ToolAnnotations {
                    read_only_hint: Some(true),
                    ..ToolAnnotations::default()
                }),
            |lib: State<Library>, args: Search, _: Context| async move {
                lib.searches.fetch_add(1, Ordering::Relaxed);
                if args.query.is_empty() {
                    return Err(ToolError::from(
                        "the query is empty: name a word to look for",
                    ));
                }
                let hits = lib
                    .books
                    .iter()
                    .filter(|b| b.starts_with(&args.query))
                    .take(usize::from(args.limit.unwrap_or(u8::MAX)))
                    .map(|b| b.to_string())
                    .collect();
                Ok(Json(Hits { hits }))
            },
        )
        .tool(
            Tool::new("searches", "How many searches ran"),
            |lib: State<Library>, _: snodo_proto::NoArgs, _: Context| async move {
                CallToolResult::text(lib.searches.load(Ordering::Relaxed).to_string())
            },
        )
        .tool(
            Tool::new("liar", "Returns what its schema does not promise"),
            |_: State<Library>, _: snodo_proto::NoArgs, _: Context| async move {
                Json(Liar {
                    count: "many".into(),
                })
            },
        )
        .build()
        .unwrap()
}

#[derive(Deserialize, JsonSchema)]
struct Shout {
    text: String,
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// Send one literal request line and return the one answer, parsed.
fn exchange(client: &mut TestClient, line: &str) -> Value {
    client.send_line(line);
    block_on(client.next_message())
}

fn literal(text: &str) -> Value {
    serde_json::from_str(text).expect("the expected answer is JSON")
}

#[test]
fn tools_list_publishes_schemas_generated_from_the_types() {
    let mut client = TestClient::new(&service());
    let answer = exchange(
        &mut client,
        &format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{{META}}}}}"#),
    );
    let expected = literal(
        r#"[
        {"name":"shout","description":"Upper-case a text",
         "inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},
        {"name":"search","title":"Search","description":"Search the library",
         "inputSchema":{"type":"object",
           "properties":{
             "query":{"type":"string","description":"Words to look for."},
             "limit":{"type":["integer","null"],"minimum":0,"maximum":255,"description":"At most this many hits."}},
           "required":["query"]},
         "outputSchema":{"type":"object","properties":{"hits":{"type":"array","items":{"type":"string"}}},"required":["hits"]},
         "annotations":{"readOnlyHint":true}},
        {"name":"searches","description":"How many searches ran",
         "inputSchema":{"type":"object","additionalProperties":false}},
        {"name":"liar","description":"Returns what its schema does not promise",
         "inputSchema":{"type":"object","additionalProperties":false},
         "outputSchema":{"type":"object","properties":{"count":{"type":"integer","minimum":0}},"required":["count"]}}
        ]"#,
    );
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["tools"], expected);
}

#[test]
fn a_structured_result_carries_structured_content_and_its_text() {
    let mut client = TestClient::new(&service());
    let answer = exchange(
        &mut client,
        &format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"search","arguments":{{"query":"D"}},{META}}}}}"#
        ),
    );
    let mut result = answer["result"].clone();
    result.as_object_mut().unwrap().remove("_meta");
    assert_eq!(
        result,
        literal(
            r#"{"resultType":"complete",
                "content":[{"type":"text","text":"{\"hits\":[\"Dune\",\"Dracula\"]}"}],
                "structuredContent":{"hits":["Dune","Dracula"]}}"#
        )
    );
}

#[test]
fn arguments_that_fail_the_generated_schema_are_invalid_params() {
    // `schema.ts` InvalidParamsError: "Invalid tool arguments" is -32602.
    let mut client = TestClient::new(&service());
    let answer = exchange(
        &mut client,
        &format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"search","arguments":{{"limit":3}},{META}}}}}"#
        ),
    );
    assert_eq!(
        answer,
        literal(
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid arguments for tool search: \"query\" is a required property"}}"#
        )
    );
    let answer = exchange(
        &mut client,
        &format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"name":"search","arguments":{{"query":"D","limit":300}},{META}}}}}"#
        ),
    );
    assert_eq!(
        answer,
        literal(
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid arguments for tool search: /limit: 300 is greater than the maximum of 255"}}"#
        )
    );
    // Neither reached the handler.
    let count = block_on(client.call_tool("searches", json!({}))).unwrap();
    assert_eq!(count.content, CallToolResult::text("0").content);
}

#[test]
fn a_check_only_the_handler_can_make_is_a_tool_execution_error() {
    // `server/tools.mdx` § Error Handling: business-logic and input
    // validation errors the model can correct are results with isError.
    let mut client = TestClient::new(&service());
    let answer = exchange(
        &mut client,
        &format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"search","arguments":{{"query":""}},{META}}}}}"#
        ),
    );
    let mut result = answer["result"].clone();
    result.as_object_mut().unwrap().remove("_meta");
    assert_eq!(
        result,
        literal(
            r#"{"resultType":"complete","content":[{"type":"text","text":"the query is empty: name a word to look for"}],"isError":true}"#
        )
    );
}

#[test]
fn a_result_that_strays_from_its_output_schema_is_not_sent() {
    // `server/tools.mdx` § Output Schema: servers MUST provide structured
    // results that conform; the engine answers -32603 instead.
    let mut client = TestClient::new(&service());
    let answer = exchange(
        &mut client,
        &format!(
            r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"liar",{META}}}}}"#
        ),
    );
    assert_eq!(
        answer,
        literal(
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"Tool returned structured content that does not match its outputSchema"}}"#
        )
    );
}

#[test]
fn every_handler_sees_the_same_state() {
    let mut client = TestClient::new(&service());
    for query in ["D", "E", "Z"] {
        block_on(client.call_tool("search", json!({ "query": query }))).unwrap();
    }
    let count = block_on(client.call_tool("searches", json!({}))).unwrap();
    assert_eq!(count.content, CallToolResult::text("3").content);
}

/// `body` POSTed over Streamable HTTP to a fresh connection, with the
/// headers the 2026-07-28 transport requires: the status and the body of
/// the answer.
fn http_exchange(service: &Service, tool: &str, body: &str) -> (u16, Value) {
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: {tool}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut conn = Connection::new(service, Transport::Http, Instant::ZERO);
    conn.handle_input(request.as_bytes(), Instant::ZERO);
    let mut written = Vec::new();
    while let Some(out) = conn.poll_output() {
        match out {
            Output::Transmit(bytes) => written.extend_from_slice(&bytes),
            Output::Invoke(invocation) => {
                let mut task = conn.task(invocation);
                let outcome = task.poll_inline().expect("ready at once");
                conn.complete(task.call(), outcome, Instant::ZERO).unwrap();
            }
            Output::Cancel(_) | Output::Close | Output::Respond(_) => {}
        }
    }
    let text = String::from_utf8(written).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("a whole response");
    let status = head[9..12].parse().unwrap();
    assert!(head.contains("Content-Type: application/json"), "{head}");
    (status, serde_json::from_str(body).unwrap())
}

#[test]
fn the_same_answers_over_streamable_http() {
    let service = service();
    let (status, answer) = http_exchange(
        &service,
        "liar",
        &format!(
            r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{{"name":"liar",{META}}}}}"#
        ),
    );
    assert_eq!(status, 200);
    assert_eq!(
        answer,
        literal(
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"Tool returned structured content that does not match its outputSchema"}}"#
        )
    );
    let (status, answer) = http_exchange(
        &service,
        "search",
        &format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"search","arguments":{{"limit":3}},{META}}}}}"#
        ),
    );
    assert_eq!(status, 200);
    assert_eq!(
        answer,
        literal(
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid arguments for tool search: \"query\" is a required property"}}"#
        )
    );
    let (status, mut answer) = http_exchange(
        &service,
        "search",
        &format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"search","arguments":{{"query":"D"}},{META}}}}}"#
        ),
    );
    assert_eq!(status, 200);
    answer["result"].as_object_mut().unwrap().remove("_meta");
    assert_eq!(
        answer["result"],
        literal(
            r#"{"resultType":"complete",
                "content":[{"type":"text","text":"{\"hits\":[\"Dune\",\"Dracula\"]}"}],
                "structuredContent":{"hits":["Dune","Dracula"]}}"#
        )
    );
}
