//! The registry changed while connections are open (`Service::registry`),
//! on the wire: lists follow commits, a batch is one snapshot and one
//! notification, a cursor from before a change is an invalid cursor
//! (`server/utilities/pagination.mdx` § Error Handling), listen streams
//! and initialize-era sessions hear each committed change once
//! (`server/tools.mdx` § List Changed Notification), and a call of a
//! removed tool that is already running finishes while the next is
//! refused as a call of an unknown tool. A view shows each caller its own
//! lists, and answers a call outside it as a call of an unknown tool. A
//! resource lister enumerates resources on demand after the registered
//! ones, with cursors of its own.

mod support;

use serde_json::Value;
use snodo_proto::registry::{Caller, ResourceLister, ResourcePage, View};
use snodo_proto::{
    BuildError, CallToolResult, Committed, Implementation, Kinds, Limits, NoArgs, Notifications,
    Prompt, Resource, Service, Tool, Transport,
};
use support::Harness;

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
const SERVER: &str = r#""_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}}"#;

/// Tools `a` and `b`, two to a page; tools, prompts and resources may
/// change, and their list changes are declared.
fn service() -> Service {
    Service::builder()
        .server_info(Implementation::new("t", "1"))
        .limits(Limits::default().page_size(2))
        .changing(Kinds::default().tools().prompts().resources())
        .notifications(
            Notifications::default()
                .tools_list_changed()
                .prompts_list_changed()
                .resources_list_changed(),
        )
        .tool(Tool::new("a", "A"), |_: NoArgs| async {
            CallToolResult::text("from a")
        })
        .tool(Tool::new("b", "B"), |_: NoArgs| async {
            CallToolResult::text("from b")
        })
        .build()
        .unwrap()
}

fn request(id: u64, method: &str, params: &str) -> String {
    let sep = if params.is_empty() { "" } else { "," };
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{META}{sep}{params}}}}}"#)
}

fn line(json: &str) -> Vec<u8> {
    format!("{json}\n").into_bytes()
}

fn tool(name: &str, description: &str) -> String {
    format!(
        r#"{{"description":"{description}","inputSchema":{{"additionalProperties":false,"type":"object"}},"name":"{name}"}}"#
    )
}

/// A `tools/list` page, as the spec shapes it (keys in order).
fn tools_page(id: u64, tools: &[String], next: Option<&str>) -> String {
    let next = next.map_or(String::new(), |c| format!(r#""nextCursor":"{c}","#));
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{{SERVER},"cacheScope":"public",{next}"resultType":"complete","tools":[{}],"ttlMs":60000}}}}"#,
        tools.join(",")
    )
}

fn text_result(id: u64, text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{{SERVER},"content":[{{"text":"{text}","type":"text"}}],"resultType":"complete"}}}}"#
    )
}

fn error(id: u64, code: i64, message: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#)
}

fn cursor_of(out: &str) -> String {
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    v["result"]["nextCursor"]
        .as_str()
        .expect("a nextCursor")
        .to_string()
}

fn listen(id: u64, notifications: &str) -> String {
    request(
        id,
        "subscriptions/listen",
        &format!(r#""notifications":{notifications}"#),
    )
}

fn ack(id: u64, honoured: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{id}}},"notifications":{honoured}}}}}"#
    )
}

fn changed(kind: &str, stream: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/{kind}/list_changed","params":{{"_meta":{{"io.modelcontextprotocol/subscriptionId":{stream}}}}}}}"#
    )
}

#[test]
fn stdio_lists_follow_commits_and_each_stream_hears_each_change_once() {
    let service = service();
    let mut h = Harness::new(&service, Transport::Stdio);
    assert_eq!(
        h.send(&line(&listen(
            9,
            r#"{"toolsListChanged":true,"promptsListChanged":true}"#
        ))),
        ack(9, r#"{"promptsListChanged":true,"toolsListChanged":true}"#) + "\n"
    );
    assert_eq!(
        h.send(&line(&listen(10, r#"{"resourcesListChanged":true}"#))),
        ack(10, r#"{"resourcesListChanged":true}"#) + "\n"
    );

    // One batch: a tool replaced, one removed, one added; a prompt added.
    let committed = service
        .registry()
        .change()
        .tool_declared(Tool::new("b", "B, replaced"))
        .remove_tool("a")
        .tool(Tool::new("c", "C"), |_: NoArgs| async {
            CallToolResult::text("from c")
        })
        .prompt_declared(Prompt::new("p", "P"))
        .commit()
        .unwrap();
    assert_eq!(
        committed,
        Committed {
            generation: 1,
            tools: true,
            prompts: true,
            resources: false
        }
    );
    h.conn.handle_changes(h.now);
    assert_eq!(
        h.drain(),
        changed("tools", 9) + "\n" + &changed("prompts", 9) + "\n",
        "one notification per changed list, only to the stream that asked"
    );
    assert_eq!(
        h.send(&line(&request(2, "tools/list", ""))),
        tools_page(2, &[tool("b", "B, replaced"), tool("c", "C")], None) + "\n",
        "the replaced tool keeps its place; the new one follows"
    );
    assert_eq!(
        h.send(&line(&request(3, "tools/call", r#""name":"c""#))),
        text_result(3, "from c") + "\n"
    );
    assert_eq!(
        h.send(&line(&request(4, "tools/call", r#""name":"a""#))),
        error(4, -32602, "Unknown tool: a") + "\n",
        "a removed tool is an unknown tool"
    );

    // A resource: the resources stream hears it; nothing else does.
    service
        .registry()
        .change()
        .resource_declared(Resource::new("file:///r", "r"))
        .commit()
        .unwrap();
    h.conn.handle_changes(h.now);
    assert_eq!(h.drain(), changed("resources", 10) + "\n");

    // A change that changes nothing is no snapshot and no notification.
    let none = service
        .registry()
        .change()
        .remove_tool("zz")
        .commit()
        .unwrap();
    assert_eq!(
        none,
        Committed {
            generation: 2,
            ..Committed::default()
        }
    );
    h.conn.handle_changes(h.now);
    assert_eq!(h.drain(), "");
}

#[test]
fn a_kind_declared_as_changing_is_advertised_while_empty_and_served_once_added() {
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .changing(Kinds::default().tools())
        .notifications(Notifications::default().tools_list_changed())
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    assert_eq!(
        h.send(&line(&request(1, "server/discover", ""))),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{{SERVER},"cacheScope":"public","capabilities":{{"tools":{{"listChanged":true}}}},"resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":60000}}}}"#
        ) + "\n"
    );
    assert_eq!(
        h.send(&line(&request(2, "tools/list", ""))),
        tools_page(2, &[], None) + "\n"
    );
    service
        .registry()
        .change()
        .tool(Tool::new("late", "Added later"), |_: NoArgs| async {
            CallToolResult::text("late")
        })
        .commit()
        .unwrap();
    assert_eq!(
        h.send(&line(&request(3, "tools/call", r#""name":"late""#))),
        text_result(3, "late") + "\n"
    );
    // Prompts were neither registered nor declared: not served, and a
    // change adding one is refused whole.
    let refused = service
        .registry()
        .change()
        .tool_declared(Tool::new("other", "Other"))
        .prompt_declared(Prompt::new("p", "P"))
        .commit();
    assert_eq!(refused, Err(BuildError::KindNotServed("prompts")));
    assert_eq!(
        h.send(&line(&request(4, "tools/list", ""))),
        tools_page(4, &[tool("late", "Added later")], None) + "\n",
        "nothing of the refused batch was applied"
    );
    assert_eq!(service.registry().generation(), 1);
}

#[test]
fn an_invalid_declaration_commits_nothing() {
    let service = service();
    let mut h = Harness::new(&service, Transport::Stdio);
    h.send(&line(&listen(9, r#"{"toolsListChanged":true}"#)));
    let refused = service
        .registry()
        .change()
        .tool_declared(Tool::new("fine", "Fine"))
        .tool_declared(Tool::new("not a name", "Spaces are not allowed"))
        .commit();
    assert_eq!(
        refused,
        Err(BuildError::InvalidToolName(String::from("not a name")))
    );
    h.conn.handle_changes(h.now);
    assert_eq!(h.drain(), "", "no notification");
    assert_eq!(
        h.send(&line(&request(2, "tools/list", ""))),
        tools_page(2, &[tool("a", "A"), tool("b", "B")], None) + "\n"
    );
}

/// `server/utilities/pagination.mdx` § Error Handling: a cursor of the
/// list before a change is invalid (-32602); the client lists again from
/// the start and never gets a page mixing the two.
fn cursor_from_before_a_change_is_invalid(transport: Transport) {
    let service = service();
    service
        .registry()
        .change()
        .tool_declared(Tool::new("c", "C"))
        .commit()
        .unwrap();
    let mut h = Harness::new(&service, transport);
    let send = |h: &mut Harness, json: &str| -> String {
        match transport {
            Transport::Stdio => h.send(&line(json)).trim_end().to_string(),
            Transport::Http => {
                let out = h.send(http_post(json).as_bytes());
                let (head, body) = out.split_once("\r\n\r\n").expect("an HTTP response");
                assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
                body.to_string()
            }
        }
    };
    let first = send(&mut h, &request(1, "tools/list", ""));
    let cursor = cursor_of(&first);
    assert_eq!(
        first,
        tools_page(1, &[tool("a", "A"), tool("b", "B")], Some(&cursor))
    );
    // The cursor works while the list stays as it is, even across a
    // change to another list.
    service
        .registry()
        .change()
        .prompt_declared(Prompt::new("p", "P"))
        .commit()
        .unwrap();
    let params = format!(r#""cursor":"{cursor}""#);
    assert_eq!(
        send(&mut h, &request(2, "tools/list", &params)),
        tools_page(2, &[tool("c", "C")], None)
    );
    // Then the tool list changes: the old cursor is invalid.
    service
        .registry()
        .change()
        .remove_tool("a")
        .commit()
        .unwrap();
    assert_eq!(
        send(&mut h, &request(3, "tools/list", &params)),
        error(3, -32602, "Invalid cursor")
    );
    assert_eq!(
        send(&mut h, &request(4, "tools/list", "")),
        tools_page(4, &[tool("b", "B"), tool("c", "C")], None),
        "listed again from the start: the new list, two tools, one page"
    );
}

fn http_post(body: &str) -> String {
    let method = serde_json::from_str::<Value>(body).unwrap()["method"]
        .as_str()
        .unwrap()
        .to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

#[test]
fn stdio_a_cursor_from_before_a_change_is_an_invalid_cursor() {
    cursor_from_before_a_change_is_invalid(Transport::Stdio);
}

#[test]
fn http_a_cursor_from_before_a_change_is_an_invalid_cursor() {
    cursor_from_before_a_change_is_invalid(Transport::Http);
}

#[test]
fn a_removed_tool_s_running_call_finishes_and_the_next_is_refused() {
    let service = service();
    let mut h = Harness::new(&service, Transport::Stdio);
    h.run_handlers = false;
    assert_eq!(
        h.send(&line(&request(1, "tools/call", r#""name":"a""#))),
        ""
    );
    assert_eq!(h.pending.len(), 1, "the call runs");
    service
        .registry()
        .change()
        .remove_tool("a")
        .commit()
        .unwrap();
    assert_eq!(
        h.run_pending(),
        text_result(1, "from a") + "\n",
        "the running call finishes"
    );
    assert_eq!(
        h.send(&line(&request(2, "tools/call", r#""name":"a""#))),
        error(2, -32602, "Unknown tool: a") + "\n"
    );
}

#[test]
fn http_listen_stream_hears_a_commit() {
    let service = service();
    let mut h = Harness::new(&service, Transport::Http);
    let sse = |json: &str| {
        let data = format!("data: {json}\n\n");
        format!("{:x}\r\n{data}\r\n", data.len())
    };
    assert_eq!(
        h.send(http_post(&listen(5, r#"{"toolsListChanged":true}"#)).as_bytes()),
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n\r\n".to_string()
            + &sse(&ack(5, r#"{"toolsListChanged":true}"#))
    );
    service
        .registry()
        .change()
        .remove_tool("b")
        .commit()
        .unwrap();
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    assert!(
        h.conn.poll_changes(&mut cx).is_ready(),
        "the commit woke it"
    );
    h.conn.handle_changes(h.now);
    assert_eq!(h.drain(), sse(&changed("tools", 5)));
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"legacy","version":"1.0.0"}}}"#;

#[test]
fn stdio_initialize_era_session_hears_a_commit() {
    let service = service();
    let mut h = Harness::new(&service, Transport::Stdio);
    assert_eq!(
        h.send(&line(INITIALIZE)),
        r#"{"jsonrpc":"2.0","id":0,"result":{"capabilities":{"prompts":{"listChanged":true},"resources":{"listChanged":true},"tools":{"listChanged":true}},"protocolVersion":"2025-11-25","serverInfo":{"name":"t","version":"1"}}}"#.to_string() + "\n"
    );
    h.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    service
        .registry()
        .change()
        .tool_declared(Tool::new("c", "C"))
        .commit()
        .unwrap();
    h.conn.handle_changes(h.now);
    assert_eq!(
        h.drain(),
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{}}\n"
    );
    let out = h.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n");
    let cursor = cursor_of(&out);
    assert_eq!(
        out,
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"nextCursor":"{cursor}","tools":[{},{}]}}}}"#,
            tool("a", "A"),
            tool("b", "B")
        ) + "\n"
    );
    let next = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{"cursor":"{cursor}"}}}}"#
    );
    assert_eq!(
        h.send(&line(&next)),
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"result":{{"tools":[{}]}}}}"#,
            tool("c", "C")
        ) + "\n"
    );
}

/// Readers on other threads list while a writer commits: every page they
/// get holds the tools of one snapshot (each commit renames every tool to
/// its generation, two tools to a page).
#[test]
fn concurrent_readers_never_get_a_page_mixing_snapshots() {
    let service = Service::builder()
        .limits(Limits::default().page_size(2))
        .changing(Kinds::default().tools())
        .build()
        .unwrap();
    let generations = 200u64;
    let writer = {
        let registry = service.registry();
        std::thread::spawn(move || {
            let mut previous: Vec<String> = Vec::new();
            for g in 1..=generations {
                let mut change = registry.change();
                for old in previous.drain(..) {
                    change = change.remove_tool(old);
                }
                for i in 0..6 {
                    let name = format!("g{g}_{i}");
                    change = change.tool_declared(Tool::new(name.clone(), "x"));
                    previous.push(name);
                }
                change.commit().unwrap();
            }
        })
    };
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let service = service.clone();
            std::thread::spawn(move || {
                let mut h = Harness::new(&service, Transport::Stdio);
                let mut pages = 0;
                let mut cursor: Option<String> = None;
                while pages < 2000 {
                    let params = cursor
                        .as_ref()
                        .map_or(String::new(), |c| format!(r#""cursor":"{c}""#));
                    let out = h.send(&line(&request(1, "tools/list", &params)));
                    let v: Value = serde_json::from_str(out.trim()).unwrap();
                    if v.get("error").is_some() {
                        assert_eq!(v["error"]["code"], -32602, "{out}");
                        cursor = None;
                        continue;
                    }
                    let names: Vec<&str> = v["result"]["tools"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|t| t["name"].as_str().unwrap())
                        .collect();
                    let gens: std::collections::BTreeSet<&str> =
                        names.iter().map(|n| n.split('_').next().unwrap()).collect();
                    assert!(gens.len() <= 1, "a page mixing snapshots: {names:?}");
                    pages += 1;
                    cursor = v["result"]["nextCursor"].as_str().map(String::from);
                }
            })
        })
        .collect();
    writer.join().unwrap();
    for r in readers {
        r.join().unwrap();
    }
    assert_eq!(service.registry().generation(), generations);
}

/// A view by the caller's self-declared role (`_meta["example.com/role"]`):
/// a guest sees no `admin_` tool; anyone else sees everything. Counts the
/// questions it is asked, to show a view's pages are made once.
struct ByRole(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl View for ByRole {
    fn name(&self, caller: &Caller<'_>) -> Option<String> {
        let meta = caller.meta().raw();
        match meta.get("example.com/role").and_then(Value::as_str) {
            Some("guest") => Some(String::from("guest")),
            _ => None,
        }
    }
    fn tool(&self, view: &str, tool: &Tool) -> bool {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        !(view == "guest" && tool.name.starts_with("admin_"))
    }
}

const GUEST_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"example.com/role":"guest"}"#;

fn guest(id: u64, method: &str, params: &str) -> String {
    let sep = if params.is_empty() { "" } else { "," };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{{GUEST_META}{sep}{params}}}}}"#
    )
}

fn viewed(transport: Transport) {
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .view(ByRole(asked.clone()))
        .tool(Tool::new("a", "A"), |_: NoArgs| async {
            CallToolResult::text("from a")
        })
        .tool(Tool::new("admin_reset", "Resets"), |_: NoArgs| async {
            CallToolResult::text("reset")
        })
        .build()
        .unwrap();
    let mut h = Harness::new(&service, transport);
    let mut send = |json: &str| -> String {
        match transport {
            Transport::Stdio => h.send(&line(json)).trim_end().to_string(),
            Transport::Http => {
                let v: Value = serde_json::from_str(json).unwrap();
                let method = v["method"].as_str().unwrap();
                let name = v["params"]["name"]
                    .as_str()
                    .map_or(String::new(), |n| format!("Mcp-Name: {n}\r\n"));
                let out = h.send(
                    format!(
                        "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n{name}Content-Length: {}\r\n\r\n{json}",
                        json.len()
                    )
                    .as_bytes(),
                );
                out.split_once("\r\n\r\n")
                    .expect("a response")
                    .1
                    .to_string()
            }
        }
    };
    let guest_page = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{{SERVER},"cacheScope":"private","resultType":"complete","tools":[{}],"ttlMs":60000}}}}"#,
        tool("a", "A")
    );
    assert_eq!(
        send(&guest(1, "tools/list", "")),
        guest_page,
        "a guest's page: its view, cached privately"
    );
    assert_eq!(
        send(&guest(1, "tools/list", "")),
        guest_page,
        "the same page again"
    );
    assert_eq!(
        asked.load(std::sync::atomic::Ordering::SeqCst),
        2,
        "the view's pages were made once: one question per tool"
    );
    assert_eq!(
        send(&request(2, "tools/list", "")),
        tools_page(2, &[tool("a", "A"), tool("admin_reset", "Resets")], None),
        "no role: the whole registry"
    );
    // A tool outside the view is answered exactly as one that does not exist.
    let hidden = send(&guest(3, "tools/call", r#""name":"admin_reset""#));
    let absent = send(&guest(3, "tools/call", r#""name":"admin_gone""#));
    assert_eq!(hidden, error(3, -32602, "Unknown tool: admin_reset"));
    assert_eq!(
        hidden.replace("admin_reset", "admin_gone"),
        absent,
        "the same answer as a tool that does not exist"
    );
    assert_eq!(
        send(&request(4, "tools/call", r#""name":"admin_reset""#)),
        text_result(4, "reset")
    );
}

#[test]
fn stdio_a_view_shows_each_caller_its_own_lists_and_hides_the_rest() {
    viewed(Transport::Stdio);
}

#[test]
fn http_a_view_shows_each_caller_its_own_lists_and_hides_the_rest() {
    viewed(Transport::Http);
}

/// The `Mcp-Param-*` mirrors of a tool outside the caller's view are never
/// examined: a wrong mirror of a hidden tool gets the unknown-tool answer,
/// not the `-32020` that would reveal the tool (`streamable-http.mdx`
/// § Server Behavior for Custom Headers, `server/tools.mdx` § Error
/// Handling). A caller who sees the tool gets the mismatch.
#[test]
fn http_a_hidden_tool_s_header_mirrors_do_not_reveal_it() {
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .view(ByRole(Default::default()))
        .tool(
            Tool::new("admin_region", "Moves a region").input_schema(serde_json::json!({
                "type": "object",
                "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}
            })),
            |_: Value| async { CallToolResult::text("moved") },
        )
        .build()
        .unwrap();
    let post = |body: &str| {
        let mut h = Harness::new(&service, Transport::Http);
        h.send(
            format!(
                "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: admin_region\r\nMcp-Param-Region: eu-west\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
    };
    let as_guest = post(
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"example.com/role":"guest"},"name":"admin_region","arguments":{"region":"us-east"}}}"#,
    );
    assert!(as_guest.starts_with("HTTP/1.1 200 OK\r\n"), "{as_guest}");
    assert!(
        as_guest.ends_with(
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool: admin_region"}}"#
        ),
        "{as_guest}"
    );
    let as_admin = post(
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"admin_region","arguments":{"region":"us-east"}}}"#,
    );
    assert!(
        as_admin.starts_with("HTTP/1.1 400 Bad Request\r\n"),
        "{as_admin}"
    );
    assert!(
        as_admin.ends_with(
            r#"{"jsonrpc":"2.0","id":8,"error":{"code":-32020,"message":"Header mismatch: Mcp-Param-Region header does not match the request body"}}"#
        ),
        "{as_admin}"
    );
}

/// A view per team named in `_meta["example.com/team"]`, counting the
/// questions it is asked.
struct ByTeam(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl View for ByTeam {
    fn name(&self, caller: &Caller<'_>) -> Option<String> {
        let meta = caller.meta().raw();
        meta.get("example.com/team")
            .and_then(Value::as_str)
            .map(String::from)
    }
    fn tool(&self, _view: &str, _tool: &Tool) -> bool {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        true
    }
}

#[test]
fn the_views_a_snapshot_keeps_are_bounded_and_the_rest_are_paged_per_request() {
    use snodo_proto::registry::view::MAX_CACHED_VIEWS;
    use std::sync::atomic::Ordering::SeqCst;
    let asked = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let service = Service::builder()
        .view(ByTeam(asked.clone()))
        .tool_declared(Tool::new("a", "A"))
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    let mut list = |team: usize| {
        let request = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"example.com/team":"t{team}"}}}}}}"#
        );
        let out = h.send(&line(&request));
        assert!(out.contains(r#""tools":[{"#), "{out}");
    };
    let teams = MAX_CACHED_VIEWS + 6;
    for team in 0..teams {
        list(team);
    }
    assert_eq!(asked.load(SeqCst), teams, "one question per view and tool");
    list(0);
    assert_eq!(asked.load(SeqCst), teams, "a kept view is not paged again");
    list(teams - 1);
    assert_eq!(
        asked.load(SeqCst),
        teams + 1,
        "a view beyond the bound is paged for each request"
    );
}

/// Records kept in memory, enumerated two to a page; the cursor is the
/// index of the next record.
struct Records(Vec<&'static str>);

impl ResourceLister for Records {
    fn list(
        &self,
        _caller: &Caller<'_>,
        cursor: Option<&str>,
    ) -> Result<ResourcePage, snodo_proto::ErrorObject> {
        let start = match cursor {
            None => 0,
            Some(c) => c
                .parse::<usize>()
                .ok()
                .filter(|i| *i < self.0.len())
                .ok_or_else(|| snodo_proto::ErrorObject::invalid_params("Invalid cursor"))?,
        };
        let end = (start + 2).min(self.0.len());
        Ok(ResourcePage {
            resources: self.0[start..end]
                .iter()
                .map(|id| Resource::new(format!("db://records/{id}"), *id))
                .collect(),
            next_cursor: (end < self.0.len()).then(|| end.to_string()),
        })
    }
}

fn resource(uri: &str, name: &str) -> String {
    format!(r#"{{"name":"{name}","uri":"{uri}"}}"#)
}

fn resources_page(id: u64, scope: &str, resources: &[String], next: Option<&str>) -> String {
    let next = next.map_or(String::new(), |c| format!(r#""nextCursor":"{c}","#));
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{{SERVER},"cacheScope":"{scope}",{next}"resources":[{}],"resultType":"complete","ttlMs":60000}}}}"#,
        resources.join(",")
    )
}

fn listed_on_demand(transport: Transport) {
    let with_registered = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .resource_declared(Resource::new("file:///readme", "readme"))
        .resource_lister(Records(vec!["r1", "r2", "r3"]))
        .build()
        .unwrap();
    let mut h = Harness::new(&with_registered, transport);
    let mut send = |json: &str| -> String {
        match transport {
            Transport::Stdio => h.send(&line(json)).trim_end().to_string(),
            Transport::Http => {
                let out = h.send(http_post(json).as_bytes());
                let (head, body) = out.split_once("\r\n\r\n").expect("a response");
                assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
                body.to_string()
            }
        }
    };
    assert_eq!(
        send(&request(1, "resources/list", "")),
        resources_page(
            1,
            "public",
            &[resource("file:///readme", "readme")],
            Some("d")
        ),
        "the registered resources first; their last page points to the lister"
    );
    assert_eq!(
        send(&request(2, "resources/list", r#""cursor":"d""#)),
        resources_page(
            2,
            "private",
            &[
                resource("db://records/r1", "r1"),
                resource("db://records/r2", "r2")
            ],
            Some("d:2")
        )
    );
    assert_eq!(
        send(&request(3, "resources/list", r#""cursor":"d:2""#)),
        resources_page(3, "private", &[resource("db://records/r3", "r3")], None)
    );
    assert_eq!(
        send(&request(4, "resources/list", r#""cursor":"d:9""#)),
        error(4, -32602, "Invalid cursor"),
        "the lister refuses a cursor it did not give"
    );
    assert_eq!(
        send(&request(5, "resources/list", r#""cursor":"x""#)),
        error(5, -32602, "Invalid cursor")
    );
}

#[test]
fn stdio_a_resource_lister_enumerates_after_the_registered_resources() {
    listed_on_demand(Transport::Stdio);
}

#[test]
fn http_a_resource_lister_enumerates_after_the_registered_resources() {
    listed_on_demand(Transport::Http);
}

#[test]
fn a_resource_lister_alone_serves_resources_from_its_first_page() {
    let service = Service::builder()
        .server_info(Implementation::new("t", "1"))
        .resource_lister(Records(vec!["r1"]))
        .build()
        .unwrap();
    let mut h = Harness::new(&service, Transport::Stdio);
    assert_eq!(
        h.send(&line(&request(1, "server/discover", ""))),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{{SERVER},"cacheScope":"public","capabilities":{{"resources":{{}}}},"resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":60000}}}}"#
        ) + "\n"
    );
    assert_eq!(
        h.send(&line(&request(2, "resources/list", ""))),
        resources_page(2, "private", &[resource("db://records/r1", "r1")], None) + "\n"
    );
}
