//! `server/discover` and the four list methods, complete results.
//!
//! `server/discover.mdx`; `server/utilities/caching.mdx` § Cacheable Results
//! (`ttlMs` and `cacheScope` on discover and every list page);
//! `schema.ts` Result (`resultType`) and ResultMetaObject (`serverInfo`).

use crate::vector::{Expect, Http, Scope, Vector};

pub const DISCOVERY: &[Vector] = &[
    Vector {
        name: "server/discover",
        request: r#"{"jsonrpc":"2.0","id":101,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"wire-tests","version":"1.0.0"}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":101,"result":{
                "supportedVersions":["2026-07-28"],
                "capabilities":{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{},"completions":{},"logging":{}},
                "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "server/discover with a string id",
        request: r#"{"jsonrpc":"2.0","id":"discover-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":"discover-1","result":{
                "supportedVersions":["2026-07-28"],
                "capabilities":{"tools":{"listChanged":true},"prompts":{"listChanged":true},"resources":{},"completions":{},"logging":{}},
                "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "tools/list",
        request: r#"{"jsonrpc":"2.0","id":102,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r##"{"jsonrpc":"2.0","id":102,"result":{"tools":[
                {"name":"test_simple_text","description":"Returns a simple text response",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_image_content","description":"Returns a 1x1 PNG image",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_audio_content","description":"Returns a short WAV audio clip",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_embedded_resource","description":"Returns an embedded text resource",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_multiple_content_types","description":"Returns text, image and embedded resource content together",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_error_handling","description":"Always fails with a tool execution error",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_tool_with_progress","description":"Reports progress 0, 50, 100 of 100, then finishes",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_missing_capability","description":"Requires the client's sampling capability",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_logging_tool","description":"Emits log messages when the request asks for them",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"json_schema_2020_12_tool","description":"Tool with JSON Schema 2020-12 features",
                 "inputSchema":{
                    "$schema":"https://json-schema.org/draft/2020-12/schema",
                    "type":"object",
                    "$defs":{"address":{"$anchor":"addressDef","type":"object",
                        "properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
                    "properties":{
                        "name":{"type":"string"},
                        "address":{"$ref":"#/$defs/address"},
                        "contactMethod":{"type":"string","enum":["phone","email"]},
                        "phone":{"type":"string"},
                        "email":{"type":"string"}},
                    "allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
                    "if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},
                    "then":{"required":["phone"]},
                    "else":{"required":["email"]},
                    "additionalProperties":false}},
                {"name":"test_header_param","description":"Echoes a region that is mirrored in the Mcp-Param-Region header",
                 "inputSchema":{"type":"object",
                    "properties":{"region":{"type":"string","x-mcp-header":"Region"}},
                    "required":["region"]}},
                {"name":"test_trigger_tool_change","description":"Announces a tool list change to subscribed listen streams",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_trigger_prompt_change","description":"Announces a prompt list change to subscribed listen streams",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_streaming_elicitation","description":"Asks for input through an InputRequiredResult, never a request on the stream",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_input_required_result_elicitation","description":"Asks for the user's name, then greets them",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_input_required_result_sampling","description":"Asks the client's model a question",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_input_required_result_list_roots","description":"Asks for the client's roots",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_input_required_result_request_state","description":"Asks for confirmation and keeps state across the retry",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_input_required_result_multiple_inputs","description":"Asks for a name, a sampled greeting and the roots at once",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_input_required_result_multi_round","description":"Asks two questions in two rounds",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_input_required_result_tampered_state","description":"Asks for confirmation with integrity-protected state",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_input_required_result_capabilities","description":"Asks only for what the client's capabilities allow",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_url_elicitation","description":"Sends the user to a URL, then reports what they chose",
                 "inputSchema":{"type":"object","additionalProperties":false}},
                {"name":"test_cancellable_wait","description":"Waits ms milliseconds, then reports how many earlier waits were cancelled",
                 "inputSchema":{"type":"object",
                    "properties":{"ms":{"type":"integer","minimum":0,"maximum":60000}},
                    "required":["ms"],"additionalProperties":false}}
            ],
            "resultType":"complete","ttlMs":60000,"cacheScope":"public",
            "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"##,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "resources/templates/list with a null cursor is the first page",
        request: r#"{"jsonrpc":"2.0","id":103,"method":"resources/templates/list","params":{"cursor":null,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":103,"result":{"resourceTemplates":[
                {"uriTemplate":"test://template/{id}/data","name":"template-data",
                 "description":"A templated resource whose contents name the requested id",
                 "mimeType":"application/json"}],
            "resultType":"complete","ttlMs":60000,"cacheScope":"public",
            "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "resources/list",
        request: r#"{"jsonrpc":"2.0","id":104,"method":"resources/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":104,"result":{"resources":[
                {"uri":"test://static-text","name":"static-text",
                 "description":"A static text resource for testing","mimeType":"text/plain"},
                {"uri":"test://static-binary","name":"static-binary",
                 "description":"A static binary resource (a 1x1 PNG image) for testing","mimeType":"image/png"}],
            "resultType":"complete","ttlMs":60000,"cacheScope":"public",
            "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "resources/templates/list",
        request: r#"{"jsonrpc":"2.0","id":105,"method":"resources/templates/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":105,"result":{"resourceTemplates":[
                {"uriTemplate":"test://template/{id}/data","name":"template-data",
                 "description":"A templated resource whose contents name the requested id",
                 "mimeType":"application/json"}],
            "resultType":"complete","ttlMs":60000,"cacheScope":"public",
            "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "prompts/list",
        request: r#"{"jsonrpc":"2.0","id":106,"method":"prompts/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":106,"result":{"prompts":[
                {"name":"test_simple_prompt","description":"A simple prompt without arguments"},
                {"name":"test_prompt_with_arguments","description":"A prompt with two required arguments",
                 "arguments":[
                    {"name":"arg1","description":"First test argument","required":true},
                    {"name":"arg2","description":"Second test argument","required":true}]},
                {"name":"test_prompt_with_embedded_resource","description":"A prompt that embeds the resource it is given",
                 "arguments":[{"name":"resourceUri","description":"URI of the resource to embed","required":true}]},
                {"name":"test_prompt_with_image","description":"A prompt that includes an image"},
                {"name":"test_input_required_result_prompt","description":"Asks what context to use, then renders with it"}],
            "resultType":"complete","ttlMs":60000,"cacheScope":"public",
            "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    // `server/utilities/pagination.mdx` § Error Handling: invalid cursors
    // SHOULD yield -32602.
    Vector {
        name: "tools/list with a garbage cursor",
        request: r#"{"jsonrpc":"2.0","id":107,"method":"tools/list","params":{"cursor":"garbage","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":107,"error":{"code":-32602,"message":"Invalid cursor"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "prompts/list with a well-formed cursor of another list",
        request: r#"{"jsonrpc":"2.0","id":108,"method":"prompts/list","params":{"cursor":"1.0000000000000000","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":108,"error":{"code":-32602,"message":"Invalid cursor"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "resources/list with an empty cursor",
        request: r#"{"jsonrpc":"2.0","id":109,"method":"resources/list","params":{"cursor":"","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":109,"error":{"code":-32602,"message":"Invalid cursor"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "resources/templates/list with a non-string cursor",
        request: r#"{"jsonrpc":"2.0","id":110,"method":"resources/templates/list","params":{"cursor":2,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":110,"error":{"code":-32602,"message":"Invalid cursor"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
];
