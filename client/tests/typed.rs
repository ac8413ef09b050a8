//! Typed results: the session hands back `snodo-proto`'s model types
//! (`Tool`, `CallToolResult`, `ReadResourceResult`, `GetPromptResult`, …)
//! read from literal server answers, and `call_tool_typed` reads a tool's
//! `structuredContent` as the caller's type.

use std::io::{Read, Write};
use std::net::TcpListener;

use serde::Deserialize;
use serde_json::json;
use snodo_client::{Error, Handler, HttpTransport, Session};
use snodo_proto::client::{ClientConfig, Wire};
use snodo_proto::{Content, ResourceContents, Role};

/// An HTTP/1.1 answer carrying `body` as JSON, closed after it.
fn json_answer(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A server that answers the n-th POST with the n-th body (a JSON-RPC
/// message, written out here byte for byte), one connection each.
fn server(bodies: Vec<&'static str>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for body in bodies {
            let (mut conn, _) = listener.accept().unwrap();
            read_head_and_body(&mut conn);
            conn.write_all(&json_answer(body)).unwrap();
        }
    });
    url
}

fn read_head_and_body(conn: &mut std::net::TcpStream) {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        conn.read_exact(&mut byte).unwrap();
        buf.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&buf).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .map_or(0, |n| n.trim().parse().unwrap());
    let mut body = vec![0u8; length];
    conn.read_exact(&mut body).unwrap();
}

const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"resources":{},"prompts":{}}}}"#;

/// Keeps the names of the tools the session left out.
#[derive(Default)]
struct Rejections(Vec<String>);

impl Handler for Rejections {
    fn tool_rejected(&mut self, name: &str, _reason: &str) {
        self.0.push(name.to_owned());
    }
}

fn session(bodies: Vec<&'static str>) -> Session<HttpTransport, Rejections> {
    let mut all = vec![DISCOVER];
    all.extend(bodies);
    let transport = HttpTransport::new(&server(all)).unwrap();
    let config = ClientConfig::new("typed", "1", Wire::Http);
    Session::connect(transport, config, Rejections::default()).unwrap()
}

#[test]
fn tools_are_tools_over_every_page_and_a_malformed_one_is_left_out() {
    let mut s = session(vec![
        r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"weather","title":"Weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"}}},"outputSchema":{"type":"object","properties":{"celsius":{"type":"number"}}},"annotations":{"readOnlyHint":true}},{"name":"broken","description":"no inputSchema"}],"nextCursor":"p2"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}"#,
    ]);
    let tools = s.list_tools().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["weather", "echo"]);
    assert_eq!(tools[0].title.as_deref(), Some("Weather"));
    assert_eq!(
        tools[0].output_schema.as_ref().unwrap()["properties"]["celsius"]["type"],
        "number"
    );
    assert_eq!(
        tools[0].annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );
    assert_eq!(s.handler_mut().0, ["broken"]);
}

#[derive(Debug, Deserialize, PartialEq)]
struct Weather {
    celsius: f64,
    sky: String,
}

#[test]
fn a_typed_call_reads_structured_content_as_the_callers_type() {
    let mut s = session(vec![
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"celsius\":21.5,\"sky\":\"clear\"}"}],"structuredContent":{"celsius":21.5,"sky":"clear"},"resultType":"complete"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"no such city: Atlantis"}],"isError":true}}"#,
        r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"sunny"}]}}"#,
        r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"celsius":"warm"}}}"#,
    ]);
    let weather: Weather = s
        .call_tool_typed("weather", json!({"city": "Oslo"}))
        .unwrap();
    assert_eq!(
        weather,
        Weather {
            celsius: 21.5,
            sky: String::from("clear")
        }
    );
    // A tool execution error is the tool's result, with its reason.
    match s.call_tool_typed::<Weather>("weather", json!({"city": "Atlantis"})) {
        Err(Error::ToolFailed(result)) => {
            assert_eq!(result.is_error, Some(true));
            assert_eq!(result.content, [Content::text("no such city: Atlantis")]);
        }
        other => panic!("{other:?}"),
    }
    // No structuredContent, or one that is not a Weather: a decode error.
    match s.call_tool_typed::<Weather>("weather", json!({})) {
        Err(Error::Decode { .. }) => {}
        other => panic!("{other:?}"),
    }
    match s.call_tool_typed::<Weather>("weather", json!({})) {
        Err(Error::Decode { error, .. }) => {
            assert!(error.to_string().contains("invalid type"), "{error}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_untyped_call_keeps_the_error_result_as_a_result() {
    let mut s = session(vec![
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"failed"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"isError":true}}"#,
    ]);
    let result = s.call_tool("draw", json!({})).unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        result.content,
        [Content::text("failed"), Content::image("AAAA", "image/png")]
    );
}

#[test]
fn resources_templates_and_prompts_are_their_model_types() {
    let mut s = session(vec![
        r#"{"jsonrpc":"2.0","id":2,"result":{"resources":[{"uri":"notes://1","name":"first","mimeType":"text/plain"}]}}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{"resourceTemplates":[{"uriTemplate":"notes://{id}","name":"note"}]}}"#,
        r#"{"jsonrpc":"2.0","id":4,"result":{"contents":[{"uri":"notes://1","mimeType":"text/plain","text":"hello"},{"uri":"notes://1.bin","blob":"AAE="}],"ttlMs":1000}}"#,
        r#"{"jsonrpc":"2.0","id":5,"result":{"prompts":[{"name":"review","arguments":[{"name":"code","required":true}]}]}}"#,
        r#"{"jsonrpc":"2.0","id":6,"result":{"description":"a review","messages":[{"role":"user","content":{"type":"text","text":"Review: x = 1"}}]}}"#,
    ]);
    let resources = s.list_resources().unwrap();
    assert_eq!(resources[0].uri, "notes://1");
    assert_eq!(resources[0].mime_type.as_deref(), Some("text/plain"));
    let templates = s.list_resource_templates().unwrap();
    assert_eq!(templates[0].uri_template, "notes://{id}");
    let read = s.read_resource("notes://1").unwrap();
    assert_eq!(read.contents.len(), 2);
    assert!(matches!(&read.contents[0], ResourceContents::Text { text, .. } if text == "hello"));
    assert!(matches!(&read.contents[1], ResourceContents::Blob { blob, .. } if blob == "AAE="));
    let prompts = s.list_prompts().unwrap();
    assert_eq!(prompts[0].name, "review");
    let prompt = s.get_prompt("review", json!({"code": "x = 1"})).unwrap();
    assert_eq!(prompt.description.as_deref(), Some("a review"));
    assert_eq!(prompt.messages[0].role, Role::User);
    assert_eq!(prompt.messages[0].content, Content::text("Review: x = 1"));
}
