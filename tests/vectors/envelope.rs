//! The JSON-RPC envelope: parse errors, invalid requests, ids.
//!
//! `basic/index.mdx` § Messages › Requests (ids are strings or integers,
//! never `null`), § Responses › Error Responses (echo the id unless it could
//! not be read); `schema.ts` JSONRPCErrorResponse (`id` optional, never
//! `null`: an unreadable id is omitted); `schema.ts` JSONRPCMessage (no
//! batches); JSON-RPC 2.0 § 5.1 codes -32700 / -32600.

use crate::vector::{Expect, Http, Scope, Vector};

pub const ENVELOPE: &[Vector] = &[
    Vector {
        name: "malformed JSON",
        request: r#"{"jsonrpc":"2.0","id":701,"method":"server/discover","params":"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "not JSON at all",
        request: r#"hello"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "trailing garbage after the object",
        request: r#"{"jsonrpc":"2.0","id":702,"method":"server/discover"} x"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "batch array",
        request: r#"[{"jsonrpc":"2.0","id":703,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}]"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Batch requests are not supported"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "empty batch array",
        request: r#"[]"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Batch requests are not supported"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "a JSON scalar",
        request: r#"42"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"A JSON-RPC message must be an object"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "JSON null",
        request: r#"null"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"A JSON-RPC message must be an object"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "id null",
        request: r#"{"jsonrpc":"2.0","id":null,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request id must be a string or an integer"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "id float",
        request: r#"{"jsonrpc":"2.0","id":1.5,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request id must be a string or an integer"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    // Refused because `2.0` is read as a float. JSON Schema's "integer"
    // (schema.json RequestId) would admit it: this pins a choice of the
    // engine, not a rule of the spec.
    Vector {
        name: "id with a zero fraction",
        request: r#"{"jsonrpc":"2.0","id":2.0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request id must be a string or an integer"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "id object",
        request: r#"{"jsonrpc":"2.0","id":{"n":1},"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request id must be a string or an integer"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "id array",
        request: r#"{"jsonrpc":"2.0","id":[1],"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request id must be a string or an integer"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "id boolean",
        request: r#"{"jsonrpc":"2.0","id":true,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Request id must be a string or an integer"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    // Every valid id is echoed as sent, with its JSON type.
    Vector {
        name: "id zero is echoed",
        request: r#"{"jsonrpc":"2.0","id":0,"method":"unknown/method","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found: unknown/method"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "negative id is echoed",
        request: r#"{"jsonrpc":"2.0","id":-5,"method":"unknown/method","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":-5,"error":{"code":-32601,"message":"Method not found: unknown/method"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "u64::MAX id is echoed",
        request: r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"unknown/method","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"error":{"code":-32601,"message":"Method not found: unknown/method"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "empty string id is echoed",
        request: r#"{"jsonrpc":"2.0","id":"","method":"unknown/method","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":"","error":{"code":-32601,"message":"Method not found: unknown/method"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "missing jsonrpc member",
        request: r#"{"id":704,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":704,"error":{"code":-32600,"message":"The jsonrpc member must be exactly \"2.0\""}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "wrong jsonrpc version",
        request: r#"{"jsonrpc":"1.0","id":"v1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":"v1","error":{"code":-32600,"message":"The jsonrpc member must be exactly \"2.0\""}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "jsonrpc as a number",
        request: r#"{"jsonrpc":2.0,"id":705,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":705,"error":{"code":-32600,"message":"The jsonrpc member must be exactly \"2.0\""}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "missing method",
        request: r#"{"jsonrpc":"2.0","id":706,"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":706,"error":{"code":-32600,"message":"Missing method member"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "method not a string",
        request: r#"{"jsonrpc":"2.0","id":707,"method":["tools/list"],"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":707,"error":{"code":-32600,"message":"The method member must be a string"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    // `basic/transports/stdio.mdx` § Sending Messages; servers never send
    // requests, so a response from the client answers nothing. The id is
    // not echoed: an error carrying it would read as the answer to one of
    // the client's own requests.
    Vector {
        name: "a result response sent by the client",
        request: r#"{"jsonrpc":"2.0","id":708,"result":{"resultType":"complete"}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Clients must not send responses to the server"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "an error response sent by the client",
        request: r#"{"jsonrpc":"2.0","id":709,"error":{"code":-32603,"message":"oops"}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Clients must not send responses to the server"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    // Params must be an object (`schema.ts` JSONRPCRequest). By-position
    // params are valid JSON-RPC but not MCP: -32602 with the id. A scalar is
    // not valid JSON-RPC at all: -32600.
    Vector {
        name: "params as an array",
        request: r#"{"jsonrpc":"2.0","id":710,"method":"tools/list","params":[{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}]}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":710,"error":{"code":-32602,"message":"Params must be an object"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "params as a string",
        request: r#"{"jsonrpc":"2.0","id":711,"method":"tools/list","params":"all"}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":711,"error":{"code":-32600,"message":"Params must be an object"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "params null",
        request: r#"{"jsonrpc":"2.0","id":712,"method":"tools/list","params":null}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":712,"error":{"code":-32600,"message":"Params must be an object"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
];
