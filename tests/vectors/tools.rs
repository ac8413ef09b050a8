//! `tools/call` of every fixture tool, and its errors.
//!
//! `server/tools.mdx` § Calling Tools, § Tool Result, § Error Handling
//! (unknown tool and invalid arguments are protocol errors, -32602; a
//! failing tool is a result with `isError: true`);
//! `basic/patterns/progress.mdx`; `server/utilities/logging.mdx`;
//! `basic/index.mdx` § Per-request protocol fields (-32021).

use crate::vector::{Expect, Http, Scope, Vector};

pub const TOOLS: &[Vector] = &[
    Vector {
        name: "tools/call test_simple_text without arguments",
        request: r#"{"jsonrpc":"2.0","id":201,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":201,"result":{
                "content":[{"type":"text","text":"This is a simple text response for testing."}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call test_simple_text with empty arguments",
        request: r#"{"jsonrpc":"2.0","id":202,"method":"tools/call","params":{"name":"test_simple_text","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":202,"result":{
                "content":[{"type":"text","text":"This is a simple text response for testing."}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call test_image_content",
        request: r#"{"jsonrpc":"2.0","id":203,"method":"tools/call","params":{"name":"test_image_content","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":203,"result":{
                "content":[{"type":"image","mimeType":"image/png",
                    "data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call test_audio_content",
        request: r#"{"jsonrpc":"2.0","id":204,"method":"tools/call","params":{"name":"test_audio_content","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":204,"result":{
                "content":[{"type":"audio","mimeType":"audio/wav",
                    "data":"UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call test_embedded_resource",
        request: r#"{"jsonrpc":"2.0","id":205,"method":"tools/call","params":{"name":"test_embedded_resource","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":205,"result":{
                "content":[{"type":"resource","resource":{"uri":"test://embedded-resource",
                    "mimeType":"text/plain","text":"This is an embedded resource content."}}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call test_multiple_content_types",
        request: r#"{"jsonrpc":"2.0","id":206,"method":"tools/call","params":{"name":"test_multiple_content_types","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":206,"result":{
                "content":[
                    {"type":"text","text":"Multiple content types test:"},
                    {"type":"image","mimeType":"image/png",
                     "data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="},
                    {"type":"resource","resource":{"uri":"test://mixed-content-resource",
                     "mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call test_error_handling is a result with isError",
        request: r#"{"jsonrpc":"2.0","id":207,"method":"tools/call","params":{"name":"test_error_handling","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":207,"result":{
                "content":[{"type":"text","text":"This tool intentionally returns an error for testing"}],
                "isError":true,
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    // `basic/patterns/progress.mdx`: notifications reference the request's
    // token and `progress` increases; they precede the final response.
    Vector {
        name: "tools/call test_tool_with_progress with a progressToken",
        request: r#"{"jsonrpc":"2.0","id":208,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"progress-test-1"}}}"#,
        expect: Expect::Messages(&[
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-test-1","progress":0.0,"total":100.0}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-test-1","progress":50.0,"total":100.0}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-test-1","progress":100.0,"total":100.0}}"#,
            r#"{"jsonrpc":"2.0","id":208,"result":{
                "content":[{"type":"text","text":"Progress test completed"}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ]),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call test_tool_with_progress with an integer progressToken",
        request: r#"{"jsonrpc":"2.0","id":209,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":7}}}"#,
        expect: Expect::Messages(&[
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":0.0,"total":100.0}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":50.0,"total":100.0}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":100.0,"total":100.0}}"#,
            r#"{"jsonrpc":"2.0","id":209,"result":{
                "content":[{"type":"text","text":"Progress test completed"}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ]),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call test_tool_with_progress without a token sends no progress",
        request: r#"{"jsonrpc":"2.0","id":210,"method":"tools/call","params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":210,"result":{
                "content":[{"type":"text","text":"Progress test completed"}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    // `basic/index.mdx` § Per-request protocol fields; `schema.ts`
    // MissingRequiredClientCapabilityError: `data.requiredCapabilities` is a
    // ClientCapabilities object.
    Vector {
        name: "tools/call test_missing_capability without sampling",
        request: r#"{"jsonrpc":"2.0","id":211,"method":"tools/call","params":{"name":"test_missing_capability","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":211,"error":{"code":-32021,"message":"Missing required client capability",
                "data":{"requiredCapabilities":{"sampling":{}}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "tools/call test_missing_capability with sampling declared",
        request: r#"{"jsonrpc":"2.0","id":212,"method":"tools/call","params":{"name":"test_missing_capability","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":212,"result":{
                "content":[{"type":"text","text":"Success"}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    // `server/utilities/logging.mdx` § Per-request log level: messages at or
    // above the request's level, before the final response; none without one.
    Vector {
        name: "tools/call test_logging_tool at logLevel info",
        request: r#"{"jsonrpc":"2.0","id":213,"method":"tools/call","params":{"name":"test_logging_tool","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}"#,
        expect: Expect::Messages(&[
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"snodo-fixture","data":"Logging tool: info message"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"snodo-fixture","data":"Logging tool: warning message"}}"#,
            r#"{"jsonrpc":"2.0","id":213,"result":{
                "content":[{"type":"text","text":"Logging evaluated"}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ]),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call test_logging_tool at logLevel debug",
        request: r#"{"jsonrpc":"2.0","id":214,"method":"tools/call","params":{"name":"test_logging_tool","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"}}}"#,
        expect: Expect::Messages(&[
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","logger":"snodo-fixture","data":"Logging tool: debug message"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"snodo-fixture","data":"Logging tool: info message"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"snodo-fixture","data":"Logging tool: warning message"}}"#,
            r#"{"jsonrpc":"2.0","id":214,"result":{
                "content":[{"type":"text","text":"Logging evaluated"}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ]),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call test_logging_tool above every message's level",
        request: r#"{"jsonrpc":"2.0","id":215,"method":"tools/call","params":{"name":"test_logging_tool","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"error"}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":215,"result":{
                "content":[{"type":"text","text":"Logging evaluated"}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call test_logging_tool without a logLevel sends no messages",
        request: r#"{"jsonrpc":"2.0","id":216,"method":"tools/call","params":{"name":"test_logging_tool","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":216,"result":{
                "content":[{"type":"text","text":"Logging evaluated"}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call json_schema_2020_12_tool with valid arguments",
        request: r#"{"jsonrpc":"2.0","id":217,"method":"tools/call","params":{"name":"json_schema_2020_12_tool","arguments":{"address":{"city":"Oslo","street":"Main St 1"},"contactMethod":"phone","name":"Ann","phone":"+47 123"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":217,"result":{
                "content":[{"type":"text","text":"Received: {\"address\":{\"city\":\"Oslo\",\"street\":\"Main St 1\"},\"contactMethod\":\"phone\",\"name\":\"Ann\",\"phone\":\"+47 123\"}"}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call test_header_param",
        request: r#"{"jsonrpc":"2.0","id":218,"method":"tools/call","params":{"name":"test_header_param","arguments":{"region":"eu-north-1"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":218,"result":{
                "content":[{"type":"text","text":"Region: eu-north-1"}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    // Errors. `server/tools.mdx` § Error Handling: "Unknown tool" is a
    // protocol error (-32602).
    Vector {
        name: "tools/call of an unknown tool",
        request: r#"{"jsonrpc":"2.0","id":230,"method":"tools/call","params":{"name":"no_such_tool","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":230,"error":{"code":-32602,"message":"Unknown tool: no_such_tool"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    // Over HTTP, `Mcp-Name` in the Base64 sentinel form (§ Value Encoding).
    Vector {
        name: "tools/call of an unknown tool with a non-ASCII name",
        request: r#"{"jsonrpc":"2.0","id":239,"method":"tools/call","params":{"name":"outil_inconnu_été","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":239,"error":{"code":-32602,"message":"Unknown tool: outil_inconnu_été"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call without a name",
        request: r#"{"jsonrpc":"2.0","id":231,"method":"tools/call","params":{"arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":231,"error":{"code":-32602,"message":"Missing required parameter name"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Differs {
            status: 400,
            expect: Expect::Response(
                r#"{"jsonrpc":"2.0","id":231,"error":{"code":-32020,"message":"Header mismatch: missing required header Mcp-Name"}}"#,
            ),
            why: "Mcp-Name is required for tools/call and mirrors params.name, which this body lacks as a string, so a client sends none; header mirrors (-32020) are checked before the method's params (streamable-http.mdx § Server Validation; the conformance suite's order)",
        },
    },
    Vector {
        name: "tools/call with a non-string name",
        request: r#"{"jsonrpc":"2.0","id":232,"method":"tools/call","params":{"name":42,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":232,"error":{"code":-32602,"message":"Parameter name must be a string"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Differs {
            status: 400,
            expect: Expect::Response(
                r#"{"jsonrpc":"2.0","id":232,"error":{"code":-32020,"message":"Header mismatch: missing required header Mcp-Name"}}"#,
            ),
            why: "Mcp-Name is required for tools/call and mirrors params.name, which this body lacks as a string, so a client sends none; header mirrors (-32020) are checked before the method's params (streamable-http.mdx § Server Validation; the conformance suite's order)",
        },
    },
    Vector {
        name: "tools/call with arguments that are not an object",
        request: r#"{"jsonrpc":"2.0","id":233,"method":"tools/call","params":{"name":"test_simple_text","arguments":["a"],"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":233,"error":{"code":-32602,"message":"Invalid arguments for tool test_simple_text: arguments must be an object"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call with a string for arguments",
        request: r#"{"jsonrpc":"2.0","id":234,"method":"tools/call","params":{"name":"test_header_param","arguments":"region=eu","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":234,"error":{"code":-32602,"message":"Invalid arguments for tool test_header_param: arguments must be an object"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    // Schema-invalid arguments (`server/tools.mdx` § Security: servers MUST
    // validate all tool inputs). The reason text after the colon is the
    // JSON Schema validator's wording, frozen here as well.
    Vector {
        name: "tools/call with a required argument missing",
        request: r#"{"jsonrpc":"2.0","id":235,"method":"tools/call","params":{"name":"test_header_param","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":235,"error":{"code":-32602,"message":"Invalid arguments for tool test_header_param: \"region\" is a required property"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call with an argument of the wrong type",
        request: r#"{"jsonrpc":"2.0","id":236,"method":"tools/call","params":{"name":"test_header_param","arguments":{"region":5},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":236,"error":{"code":-32602,"message":"Invalid arguments for tool test_header_param: /region: 5 is not of type \"string\""}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call of a no-argument tool with an unexpected argument",
        request: r#"{"jsonrpc":"2.0","id":237,"method":"tools/call","params":{"name":"test_simple_text","arguments":{"x":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":237,"error":{"code":-32602,"message":"Invalid arguments for tool test_simple_text: Additional properties are not allowed ('x' was unexpected)"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/call json_schema_2020_12_tool violating its if/then",
        request: r#"{"jsonrpc":"2.0","id":238,"method":"tools/call","params":{"name":"json_schema_2020_12_tool","arguments":{"contactMethod":"phone","email":"a@example.com"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":238,"error":{"code":-32602,"message":"Invalid arguments for tool json_schema_2020_12_tool: \"phone\" is a required property"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
];
