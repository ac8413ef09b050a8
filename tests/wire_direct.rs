//! `snodo-proto`'s [`Connection`] in-process: each vector alone on a fresh
//! connection, and what needs a service other than the fixture: a small
//! line limit, a registry without some capabilities, several list pages.
//! (The table in order on one connection is the `direct` cell of
//! `wire_matrix.rs`.)

use std::time::Duration;

use serde_json::Value;
use snodo_proto::{CallToolResult, Implementation, Limits, NoArgs, Service, Tool};
use snodo_tests::vectors;
use snodo_tests::{assert_vectors, Direct, Expect, Http, Scope, Transport, Vector};

fn fixture() -> Direct {
    Direct::new(&snodo_conformance::service())
}

fn parse_all(literals: &[&str]) -> Vec<Value> {
    literals
        .iter()
        .map(|l| serde_json::from_str(l).expect("literal is JSON"))
        .collect()
}

/// Statelessness (`basic/index.mdx` § Statelessness): no answer depends on
/// what came before on the connection.
#[test]
fn every_vector_alone_on_a_fresh_connection() {
    let service = snodo_conformance::service();
    let mut failures = Vec::new();
    for v in vectors::all() {
        failures.extend(
            snodo_tests::run_vectors(
                &mut Direct::new(&service),
                &[v],
                &[Scope::Any, Scope::Stream],
            )
            .failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn small_limit_service(max: usize) -> Service {
    snodo_conformance::builder()
        .limits(Limits::default().max_message_bytes(max))
        .build()
        .expect("fixture with a small limit")
}

/// `Limits::max_message_bytes`: a longer line is refused with -32600 and no
/// id (none can be read from a line that is not parsed), and is skipped up
/// to its newline; the next line is served.
#[test]
fn overlong_line_is_refused_and_the_next_is_served() {
    let mut d = Direct::new(&small_limit_service(256));
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"x","pad":"{}"}}"#,
        "a".repeat(300)
    );
    let got = d.feed(format!("{long}\n").as_bytes());
    assert_eq!(
        got,
        parse_all(&[
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Message exceeds the maximum size of 256 bytes"}}"#
        ])
    );
    let got = d.exchange(
        r#"{"jsonrpc":"2.0","id":2,"method":"unknown/method","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        1,
    );
    assert_eq!(
        got,
        parse_all(&[
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: unknown/method"}}"#
        ])
    );
}

/// An over-long line arriving in pieces with no newline yet is refused once,
/// as soon as it passes the limit, and its remainder is discarded.
#[test]
fn overlong_line_in_pieces_is_refused_once() {
    let mut d = Direct::new(&small_limit_service(64));
    assert_eq!(d.feed(&[b'x'; 40]), Vec::<Value>::new());
    assert_eq!(
        d.feed(&[b'x'; 40]),
        parse_all(&[
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Message exceeds the maximum size of 64 bytes"}}"#
        ])
    );
    assert_eq!(d.feed(&[b'y'; 500]), Vec::<Value>::new());
    let got = d.feed(b"zzz\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"m\"}\n");
    assert_eq!(
        got,
        parse_all(&[
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Missing required _meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"}}"#
        ])
    );
}

/// A line of exactly the limit is read as a message.
#[test]
fn line_of_exactly_the_limit_is_accepted() {
    let mut d = Direct::new(&small_limit_service(64));
    let line = r#"{"jsonrpc":"2.0","id":4,"method":"m","params":{"_meta":"xxxxx"}}"#;
    assert_eq!(line.len(), 64);
    assert_eq!(
        d.exchange(line, 1),
        parse_all(&[
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"_meta must be an object"}}"#
        ])
    );
}

/// A registry with tools only: `server/discover` advertises exactly that,
/// and every method gated by an unadvertised capability is -32601
/// (`schema.ts` MethodNotFoundError: "one gated behind a server capability
/// the server did not advertise").
#[test]
fn methods_of_unadvertised_capabilities_are_not_found() {
    let service = Service::builder()
        .server_info(Implementation::new("tools-only", "2.0.0"))
        .tool(Tool::new("only", "The only tool"), |_: NoArgs| async {
            CallToolResult::text("only")
        })
        .build()
        .expect("tools-only service");
    let table: &[Vector] = &[
        Vector {
            name: "discover advertises tools only",
            request: r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            expect: Expect::Response(
                r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},
                    "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                    "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"tools-only","version":"2.0.0"}}}}"#,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
        Vector {
            name: "prompts/list without prompts",
            request: r#"{"jsonrpc":"2.0","id":2,"method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            expect: Expect::Response(
                r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: prompts/list"}}"#,
            ),
            scope: Scope::Any,
            http: Http::Same(404),
        },
        Vector {
            name: "resources/read without resources",
            request: r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://static-text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            expect: Expect::Response(
                r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found: resources/read"}}"#,
            ),
            scope: Scope::Any,
            http: Http::Same(404),
        },
        Vector {
            name: "resources/templates/list without resources",
            request: r#"{"jsonrpc":"2.0","id":4,"method":"resources/templates/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            expect: Expect::Response(
                r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: resources/templates/list"}}"#,
            ),
            scope: Scope::Any,
            http: Http::Same(404),
        },
        Vector {
            name: "completion/complete without a completer",
            request: r#"{"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            expect: Expect::Response(
                r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found: completion/complete"}}"#,
            ),
            scope: Scope::Any,
            http: Http::Same(404),
        },
        // Logging not enabled: a valid level is admitted and nothing is sent.
        Vector {
            name: "a logLevel on a server without logging",
            request: r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"only","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"}}}"#,
            expect: Expect::Response(
                r#"{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"only"}],"resultType":"complete",
                    "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"tools-only","version":"2.0.0"}}}}"#,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
    ];
    assert_vectors(&mut Direct::new(&service), table, &[Scope::Any]);
}

/// `omit_server_info`: results carry no `_meta` at all.
#[test]
fn server_info_can_be_left_out() {
    let service = snodo_conformance::builder()
        .omit_server_info()
        .build()
        .expect("fixture");
    let table: &[Vector] = &[Vector {
        name: "tools/call without serverInfo",
        request: r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"This is a simple text response for testing."}],"resultType":"complete"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    }];
    assert_vectors(&mut Direct::new(&service), table, &[Scope::Any]);
}

/// Pages of four tools: `nextCursor` on every page but the last, cursors
/// opaque and bound to their list (`server/utilities/pagination.mdx`).
#[test]
fn tools_list_pages() {
    let service = snodo_conformance::builder()
        .limits(Limits::default().page_size(4))
        .build()
        .expect("fixture with small pages");
    let table: &[Vector] = &[
        Vector {
            name: "tools/list page 1",
            request: r##"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"##,
            expect: Expect::Response(
                r##"{"jsonrpc":"2.0","id":1,"result":{"tools":[
                    {"description":"Returns a simple text response","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_simple_text"},
                    {"description":"Returns a 1x1 PNG image","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_image_content"},
                    {"description":"Returns a short WAV audio clip","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_audio_content"},
                    {"description":"Returns an embedded text resource","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_embedded_resource"}],
                    "nextCursor":"1.c914330829363219",
                    "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                    "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"##,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
        Vector {
            name: "tools/list page 2",
            request: r##"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"1.c914330829363219","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"##,
            expect: Expect::Response(
                r##"{"jsonrpc":"2.0","id":2,"result":{"tools":[
                    {"description":"Returns text, image and embedded resource content together","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_multiple_content_types"},
                    {"description":"Always fails with a tool execution error","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_error_handling"},
                    {"description":"Reports progress 0, 50, 100 of 100, then finishes","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_tool_with_progress"},
                    {"description":"Requires the client's sampling capability","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_missing_capability"}],
                    "nextCursor":"2.c914330829363219",
                    "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                    "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"##,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
        Vector {
            name: "tools/list page 3",
            request: r##"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"2.c914330829363219","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"##,
            expect: Expect::Response(
                r##"{"jsonrpc":"2.0","id":3,"result":{"tools":[
                    {"description":"Emits log messages when the request asks for them","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_logging_tool"},
                    {"description":"Tool with JSON Schema 2020-12 features","inputSchema":{"$defs":{"address":{"$anchor":"addressDef","properties":{"city":{"type":"string"},"street":{"type":"string"}},"type":"object"}},"$schema":"https://json-schema.org/draft/2020-12/schema","additionalProperties":false,"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"else":{"required":["email"]},"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"properties":{"address":{"$ref":"#/$defs/address"},"contactMethod":{"enum":["phone","email"],"type":"string"},"email":{"type":"string"},"name":{"type":"string"},"phone":{"type":"string"}},"then":{"required":["phone"]},"type":"object"},"name":"json_schema_2020_12_tool"},
                    {"description":"Echoes a region that is mirrored in the Mcp-Param-Region header","inputSchema":{"properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"],"type":"object"},"name":"test_header_param"},
                    {"description":"Announces a tool list change to subscribed listen streams","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_trigger_tool_change"}],
                    "nextCursor":"3.c914330829363219",
                    "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                    "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"##,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
        Vector {
            name: "tools/list page 4",
            request: r##"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":"3.c914330829363219","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"##,
            expect: Expect::Response(
                r##"{"jsonrpc":"2.0","id":6,"result":{"tools":[
                    {"description":"Announces a prompt list change to subscribed listen streams","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_trigger_prompt_change"},
                    {"description":"Asks for input through an InputRequiredResult, never a request on the stream","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_streaming_elicitation"},
                    {"description":"Asks for the user's name, then greets them","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_input_required_result_elicitation"},
                    {"description":"Asks the client's model a question","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_input_required_result_sampling"}],
                    "nextCursor":"4.c914330829363219",
                    "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                    "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"##,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
        Vector {
            name: "tools/list page 5",
            request: r##"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"4.c914330829363219","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"##,
            expect: Expect::Response(
                r##"{"jsonrpc":"2.0","id":7,"result":{"tools":[
                    {"description":"Asks for the client's roots","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_input_required_result_list_roots"},
                    {"description":"Asks for confirmation and keeps state across the retry","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_input_required_result_request_state"},
                    {"description":"Asks for a name, a sampled greeting and the roots at once","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_input_required_result_multiple_inputs"},
                    {"description":"Asks two questions in two rounds","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_input_required_result_multi_round"}],
                    "nextCursor":"5.c914330829363219",
                    "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                    "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"##,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
        Vector {
            name: "tools/list page 6",
            request: r##"{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"cursor":"5.c914330829363219","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"##,
            expect: Expect::Response(
                r##"{"jsonrpc":"2.0","id":8,"result":{"tools":[
                    {"description":"Asks for confirmation with integrity-protected state","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_input_required_result_tampered_state"},
                    {"description":"Asks only for what the client's capabilities allow","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_input_required_result_capabilities"},
                    {"description":"Sends the user to a URL, then reports what they chose","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_url_elicitation"},
                    {"description":"Waits ms milliseconds, then reports how many earlier waits were cancelled","inputSchema":{"additionalProperties":false,"properties":{"ms":{"maximum":60000,"minimum":0,"type":"integer"}},"required":["ms"],"type":"object"},"name":"test_cancellable_wait"}],
                    "nextCursor":"6.c914330829363219",
                    "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                    "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"##,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
        Vector {
            name: "tools/list page 7",
            request: r##"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"6.c914330829363219","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"##,
            expect: Expect::Response(
                r##"{"jsonrpc":"2.0","id":9,"result":{"tools":[
                    {"description":"Greets by name, synchronously","inputSchema":{"additionalProperties":false,"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"},"name":"greet"},
                    {"description":"Sleeps for the given seconds, then reports; runs as a task when the client supports tasks","inputSchema":{"additionalProperties":false,"properties":{"label":{"type":"string"},"seconds":{"maximum":3600,"minimum":0,"type":"number"}},"required":["seconds"],"type":"object"},"name":"slow_compute"},
                    {"description":"A task that ends with a tool error after about a second","inputSchema":{"additionalProperties":false,"type":"object"},"name":"failing_job"},
                    {"description":"A task that ends with a JSON-RPC error","inputSchema":{"additionalProperties":false,"type":"object"},"name":"protocol_error_job"}],
                    "nextCursor":"7.c914330829363219",
                    "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                    "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"##,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
        Vector {
            name: "tools/list page 8",
            request: r##"{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{"cursor":"7.c914330829363219","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"##,
            expect: Expect::Response(
                r##"{"jsonrpc":"2.0","id":11,"result":{"tools":[
                    {"description":"Asks to confirm, then pretends to delete a file","inputSchema":{"additionalProperties":false,"properties":{"filename":{"type":"string"}},"required":["filename"],"type":"object"},"name":"confirm_delete"},
                    {"description":"A task asking for two inputs at once","inputSchema":{"additionalProperties":false,"type":"object"},"name":"multi_input"},
                    {"description":"Asks for a name (multi round-trip), then greets in a task","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_tool_with_task"},
                    {"description":"Sends three log messages while it runs","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_tool_with_logging"}],
                    "nextCursor":"8.c914330829363219",
                    "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                    "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"##,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
        Vector {
            name: "tools/list page 9 (the last) has no nextCursor",
            request: r##"{"jsonrpc":"2.0","id":12,"method":"tools/list","params":{"cursor":"8.c914330829363219","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"##,
            expect: Expect::Response(
                r##"{"jsonrpc":"2.0","id":12,"result":{"tools":[
                    {"description":"Asks the client's model to answer a prompt","inputSchema":{"properties":{"prompt":{"description":"The prompt to send to the LLM","type":"string"}},"required":["prompt"],"type":"object"},"name":"test_sampling"},
                    {"description":"Asks the user for a username and an email","inputSchema":{"properties":{"message":{"description":"The message to show the user","type":"string"}},"required":["message"],"type":"object"},"name":"test_elicitation"},
                    {"description":"Asks for a form whose fields all have defaults (SEP-1034)","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_elicitation_sep1034_defaults"},
                    {"description":"Asks for a form with every enum variant (SEP-1330)","inputSchema":{"additionalProperties":false,"type":"object"},"name":"test_elicitation_sep1330_enums"}],
                    "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                    "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"##,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
        Vector {
            name: "a tools/list cursor is refused by prompts/list",
            request: r##"{"jsonrpc":"2.0","id":4,"method":"prompts/list","params":{"cursor":"1.c914330829363219","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"##,
            expect: Expect::Response(
                r##"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid cursor"}}"##,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
        Vector {
            name: "a cursor past the last page",
            request: r##"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"9.c914330829363219","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"##,
            expect: Expect::Response(
                r##"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid cursor"}}"##,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
        Vector {
            name: "a cursor from before the tool list changed",
            request: r##"{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"cursor":"1.e5989d8a71a91a81","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"##,
            expect: Expect::Response(
                r##"{"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"Invalid cursor"}}"##,
            ),
            scope: Scope::Any,
            http: Http::Same(200),
        },
    ];
    assert_vectors(&mut Direct::new(&service), table, &[Scope::Any]);
}

/// EOF: an unterminated last line is still read and answered, then the
/// connection closes (`basic/transports/stdio.mdx` § Shutdown).
#[test]
fn eof_reads_the_unterminated_last_line_then_closes() {
    let mut d = fixture();
    assert_eq!(
        d.feed(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#),
        Vec::<Value>::new()
    );
    assert!(!d.is_closed());
    assert_eq!(
        d.close_input(),
        parse_all(&[
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"This is a simple text response for testing."}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#
        ])
    );
    assert!(d.is_closed());
    assert!(d.partial().is_empty());
}

/// A handler that outlives `call_timeout` is cancelled and answered -32603.
#[test]
fn a_call_past_its_timeout_is_answered_with_an_internal_error() {
    use snodo_proto::{Connection, Instant, Output};
    let service = snodo_conformance::builder()
        .limits(Limits::default().call_timeout(Some(Duration::from_secs(5))))
        .build()
        .expect("fixture with a short timeout");
    let mut conn = Connection::new(&service, snodo_proto::Transport::Stdio, Instant::ZERO);
    conn.handle_input(
        b"{\"jsonrpc\":\"2.0\",\"id\":\"slow\",\"method\":\"tools/call\",\"params\":{\"name\":\"test_tool_with_progress\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n",
        Instant::ZERO,
    );
    let mut invoked = None;
    while let Some(out) = conn.poll_output() {
        if let Output::Invoke(inv) = out {
            invoked = Some(inv.call);
        }
    }
    let call = invoked.expect("the call was handed out");
    assert_eq!(conn.poll_timeout(), Some(Instant::from_millis(5_000)));
    conn.handle_timeout(Instant::from_millis(4_999));
    assert!(
        conn.poll_output().is_none(),
        "nothing happens before the deadline"
    );
    conn.handle_timeout(Instant::from_millis(5_000));
    let mut written = Vec::new();
    let mut cancelled = false;
    while let Some(out) = conn.poll_output() {
        match out {
            Output::Transmit(b) => written.extend_from_slice(&b),
            Output::Cancel(c) => cancelled = c == call,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(cancelled, "the handler is told to stop");
    let got: Value = serde_json::from_slice(&written).expect("one JSON line");
    assert_eq!(
        got,
        serde_json::from_str::<Value>(
            r#"{"jsonrpc":"2.0","id":"slow","error":{"code":-32603,"message":"Request timed out"}}"#
        )
        .unwrap()
    );
    assert!(conn
        .complete(
            call,
            snodo_proto::Outcome::CallTool(CallToolResult::text("late")),
            Instant::from_millis(6_000)
        )
        .is_err());
    assert!(
        conn.poll_output().is_none(),
        "a late outcome writes nothing"
    );
}

/// A line that is not UTF-8 cannot be JSON (`basic/transports/index.mdx`:
/// messages MUST be UTF-8): -32700 without an id.
#[test]
fn a_line_that_is_not_utf8_is_a_parse_error() {
    let mut d = fixture();
    assert_eq!(
        d.feed(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}\n"),
        parse_all(&[
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"}}"#
        ])
    );
}

/// `basic/versioning.mdx` § Backward Compatibility with Initialization-Based
/// Versions: "A server that supports only modern versions SHOULD name the
/// protocol versions it supports in any error it returns to an `initialize`
/// request, on any transport". A legacy client's `initialize` carries no
/// `_meta`, so admission stops at the missing `_meta` (-32602); the error
/// still names the supported versions, in words and in `data.supported`.
#[test]
fn a_legacy_initialize_is_told_the_supported_versions() {
    // The fixture built as a modern-only server (its default also serves
    // the initialize-era dialects: `tests/legacy.rs`).
    let modern_only = snodo_conformance::builder()
        .dialects([snodo_proto::Dialect::V2026_07_28])
        .build()
        .expect("the fixture builds");
    let got = Direct::new(&modern_only).exchange(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"legacy","version":"1.0.0"}}}"#,
        1,
    );
    assert_eq!(
        got,
        vec![serde_json::json!({"jsonrpc":"2.0","id":1,"error":{
            "code":-32602,
            "message":"Missing required _meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities (initialize belongs to protocol versions before 2026-07-28; this server supports 2026-07-28)",
            "data":{"supported":["2026-07-28"]}
        }})]
    );
}
