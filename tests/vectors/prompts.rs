//! `prompts/get` of every fixture prompt, and its errors.
//!
//! `server/prompts.mdx` § Getting a Prompt, § Error Handling (invalid prompt
//! name and missing required arguments SHOULD be -32602). Prompt results
//! are not cacheable: no `ttlMs`/`cacheScope`.

use crate::vector::{Expect, Http, Scope, Vector};

pub const PROMPTS: &[Vector] = &[
    Vector {
        name: "prompts/get test_simple_prompt without arguments",
        request: r#"{"jsonrpc":"2.0","id":401,"method":"prompts/get","params":{"name":"test_simple_prompt","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":401,"result":{
                "messages":[{"role":"user","content":{"type":"text","text":"This is a simple prompt for testing."}}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "prompts/get test_prompt_with_arguments",
        request: r#"{"jsonrpc":"2.0","id":402,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"testValue1","arg2":"testValue2"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":402,"result":{
                "messages":[{"role":"user","content":{"type":"text",
                    "text":"Prompt with arguments: arg1='testValue1', arg2='testValue2'"}}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "prompts/get test_prompt_with_embedded_resource",
        request: r#"{"jsonrpc":"2.0","id":403,"method":"prompts/get","params":{"name":"test_prompt_with_embedded_resource","arguments":{"resourceUri":"test://example-resource"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":403,"result":{
                "messages":[
                    {"role":"user","content":{"type":"resource","resource":{"uri":"test://example-resource",
                        "mimeType":"text/plain","text":"Embedded resource content for testing."}}},
                    {"role":"user","content":{"type":"text","text":"Please process the embedded resource above."}}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "prompts/get test_prompt_with_image",
        request: r#"{"jsonrpc":"2.0","id":404,"method":"prompts/get","params":{"name":"test_prompt_with_image","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":404,"result":{
                "messages":[
                    {"role":"user","content":{"type":"image","mimeType":"image/png",
                        "data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}},
                    {"role":"user","content":{"type":"text","text":"Please analyze the image above."}}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "prompts/get of an unknown prompt",
        request: r#"{"jsonrpc":"2.0","id":410,"method":"prompts/get","params":{"name":"no_such_prompt","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":410,"error":{"code":-32602,"message":"Unknown prompt: no_such_prompt"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    // A plain-ASCII name that looks like the sentinel is itself sent in
    // sentinel form over HTTP (§ Value Encoding), and decoded back.
    Vector {
        name: "prompts/get of an unknown prompt named like the Base64 sentinel",
        request: r#"{"jsonrpc":"2.0","id":416,"method":"prompts/get","params":{"name":"=?base64?literal?=","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":416,"error":{"code":-32602,"message":"Unknown prompt: =?base64?literal?="}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "prompts/get with a required argument missing",
        request: r#"{"jsonrpc":"2.0","id":411,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"only"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":411,"error":{"code":-32602,"message":"Missing required argument arg2 for prompt test_prompt_with_arguments"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "prompts/get with no arguments for a prompt that requires them",
        request: r#"{"jsonrpc":"2.0","id":412,"method":"prompts/get","params":{"name":"test_prompt_with_embedded_resource","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":412,"error":{"code":-32602,"message":"Missing required argument resourceUri for prompt test_prompt_with_embedded_resource"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "prompts/get with a non-string argument value",
        request: r#"{"jsonrpc":"2.0","id":413,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"a","arg2":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":413,"error":{"code":-32602,"message":"Prompt arguments must be strings"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "prompts/get with arguments that are not an object",
        request: r#"{"jsonrpc":"2.0","id":414,"method":"prompts/get","params":{"name":"test_simple_prompt","arguments":["a"],"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":414,"error":{"code":-32602,"message":"Prompt arguments must be an object of strings"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "prompts/get without a name",
        request: r#"{"jsonrpc":"2.0","id":415,"method":"prompts/get","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":415,"error":{"code":-32602,"message":"Missing required parameter name"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Differs {
            status: 400,
            expect: Expect::Response(
                r#"{"jsonrpc":"2.0","id":415,"error":{"code":-32020,"message":"Header mismatch: missing required header Mcp-Name"}}"#,
            ),
            why: "Mcp-Name is required for prompts/get and mirrors params.name, which this body lacks as a string, so a client sends none; header mirrors (-32020) are checked before the method's params (streamable-http.mdx § Server Validation; the conformance suite's order)",
        },
    },
];
