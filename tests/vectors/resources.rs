//! `resources/read` of text, binary and templated resources, and its errors.
//!
//! `server/resources.mdx` § Reading Resources, § Error Handling (a resource
//! that does not exist is -32602 with `data.uri`, never an empty
//! `contents`); `server/utilities/caching.mdx` (reads carry `ttlMs` and
//! `cacheScope`: the static resources set 60 s public, template reads take
//! the engine default of 0 ms private).

use crate::vector::{Expect, Http, Scope, Vector};

pub const RESOURCES: &[Vector] = &[
    Vector {
        name: "resources/read test://static-text",
        request: r#"{"jsonrpc":"2.0","id":301,"method":"resources/read","params":{"uri":"test://static-text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":301,"result":{
                "contents":[{"uri":"test://static-text","mimeType":"text/plain",
                    "text":"This is the content of the static text resource."}],
                "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "resources/read test://static-binary",
        request: r#"{"jsonrpc":"2.0","id":302,"method":"resources/read","params":{"uri":"test://static-binary","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":302,"result":{
                "contents":[{"uri":"test://static-binary","mimeType":"image/png",
                    "blob":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}],
                "resultType":"complete","ttlMs":60000,"cacheScope":"public",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "resources/read through the template",
        request: r#"{"jsonrpc":"2.0","id":303,"method":"resources/read","params":{"uri":"test://template/123/data","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":303,"result":{
                "contents":[{"uri":"test://template/123/data","mimeType":"application/json",
                    "text":"{\"id\":\"123\",\"templateTest\":true,\"data\":\"Data for ID: 123\"}"}],
                "resultType":"complete","ttlMs":0,"cacheScope":"private",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "resources/read through the template with another id",
        request: r#"{"jsonrpc":"2.0","id":304,"method":"resources/read","params":{"uri":"test://template/abc/data","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":304,"result":{
                "contents":[{"uri":"test://template/abc/data","mimeType":"application/json",
                    "text":"{\"id\":\"abc\",\"templateTest\":true,\"data\":\"Data for ID: abc\"}"}],
                "resultType":"complete","ttlMs":0,"cacheScope":"private",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    // Over HTTP the URI is not plain ASCII, so `Mcp-Name` carries it in the
    // Base64 sentinel form (`streamable-http.mdx` § Value Encoding), which
    // the server decodes before comparing it with the body.
    Vector {
        name: "resources/read through the template with a non-ASCII id",
        request: r#"{"jsonrpc":"2.0","id":305,"method":"resources/read","params":{"uri":"test://template/ü/data","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":305,"result":{
                "contents":[{"uri":"test://template/ü/data","mimeType":"application/json",
                    "text":"{\"id\":\"ü\",\"templateTest\":true,\"data\":\"Data for ID: ü\"}"}],
                "resultType":"complete","ttlMs":0,"cacheScope":"private",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "resources/read of a resource that does not exist",
        request: r#"{"jsonrpc":"2.0","id":310,"method":"resources/read","params":{"uri":"test://nonexistent-resource-for-conformance-testing","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":310,"error":{"code":-32602,"message":"Resource not found",
                "data":{"uri":"test://nonexistent-resource-for-conformance-testing"}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "resources/read of a URI that almost matches the template",
        request: r#"{"jsonrpc":"2.0","id":311,"method":"resources/read","params":{"uri":"test://template/123/other","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":311,"error":{"code":-32602,"message":"Resource not found",
                "data":{"uri":"test://template/123/other"}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "resources/read without a uri",
        request: r#"{"jsonrpc":"2.0","id":312,"method":"resources/read","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":312,"error":{"code":-32602,"message":"Missing required parameter uri"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Differs {
            status: 400,
            expect: Expect::Response(
                r#"{"jsonrpc":"2.0","id":312,"error":{"code":-32020,"message":"Header mismatch: missing required header Mcp-Name"}}"#,
            ),
            why: "Mcp-Name is required for resources/read and mirrors params.uri, which this body lacks as a string, so a client sends none; header mirrors (-32020) are checked before the method's params (streamable-http.mdx § Server Validation; the conformance suite's order)",
        },
    },
    Vector {
        name: "resources/read with a non-string uri",
        request: r#"{"jsonrpc":"2.0","id":313,"method":"resources/read","params":{"uri":["test://static-text"],"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":313,"error":{"code":-32602,"message":"Parameter uri must be a string"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Differs {
            status: 400,
            expect: Expect::Response(
                r#"{"jsonrpc":"2.0","id":313,"error":{"code":-32020,"message":"Header mismatch: missing required header Mcp-Name"}}"#,
            ),
            why: "Mcp-Name is required for resources/read and mirrors params.uri, which this body lacks as a string, so a client sends none; header mirrors (-32020) are checked before the method's params (streamable-http.mdx § Server Validation; the conformance suite's order)",
        },
    },
];
