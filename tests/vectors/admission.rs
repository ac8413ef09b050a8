//! Per-request admission: required and optional `_meta`, protocol version,
//! unknown and removed methods.
//!
//! `basic/index.mdx` § `_meta` › Per-request protocol fields (missing
//! `protocolVersion`/`clientCapabilities` MUST be -32602; `clientInfo` is
//! optional); `basic/versioning.mdx` and `schema.ts`
//! UnsupportedProtocolVersionError (-32022 with `data.supported` and
//! `data.requested`); `schema.ts` MethodNotFoundError (-32601);
//! `changelog.mdx` (removed methods); `server/utilities/logging.mdx`
//! § Error Handling (invalid level SHOULD be -32602).

use crate::vector::{Expect, Http, Scope, Vector};

pub const ADMISSION: &[Vector] = &[
    Vector {
        name: "no params at all",
        request: r#"{"jsonrpc":"2.0","id":601,"method":"server/discover"}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":601,"error":{"code":-32602,"message":"Missing required _meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "missing _meta",
        request: r#"{"jsonrpc":"2.0","id":602,"method":"server/discover","params":{}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":602,"error":{"code":-32602,"message":"Missing required _meta with io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "_meta not an object",
        request: r#"{"jsonrpc":"2.0","id":603,"method":"tools/list","params":{"_meta":"2026-07-28"}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":603,"error":{"code":-32602,"message":"_meta must be an object"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "missing protocolVersion",
        request: r#"{"jsonrpc":"2.0","id":604,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"wire-tests","version":"1.0.0"}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":604,"error":{"code":-32602,"message":"Missing required _meta field io.modelcontextprotocol/protocolVersion"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "protocolVersion not a string",
        request: r#"{"jsonrpc":"2.0","id":605,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":605,"error":{"code":-32602,"message":"_meta io.modelcontextprotocol/protocolVersion must be a string"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "missing clientCapabilities",
        request: r#"{"jsonrpc":"2.0","id":606,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"wire-tests","version":"1.0.0"}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":606,"error":{"code":-32602,"message":"Missing required _meta field io.modelcontextprotocol/clientCapabilities"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "clientCapabilities not an object",
        request: r#"{"jsonrpc":"2.0","id":607,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":["sampling"]}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":607,"error":{"code":-32602,"message":"_meta io.modelcontextprotocol/clientCapabilities must be an object"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    // A missing required field outranks a bad version (the conformance
    // suite's order, see snodo_proto::dispatch): -32602, not -32022.
    Vector {
        name: "missing clientCapabilities with an unsupported version",
        request: r#"{"jsonrpc":"2.0","id":608,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0"}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":608,"error":{"code":-32602,"message":"Missing required _meta field io.modelcontextprotocol/clientCapabilities"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "unsupported protocol version",
        request: r#"{"jsonrpc":"2.0","id":609,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":609,"error":{"code":-32022,"message":"Unsupported protocol version",
                "data":{"supported":["2026-07-28"],"requested":"v999.0.0"}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "an earlier protocol version",
        request: r#"{"jsonrpc":"2.0","id":610,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":610,"error":{"code":-32022,"message":"Unsupported protocol version",
                "data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    // The version is checked before the method (§ 4.3): an unknown method
    // at an unsupported version is -32022.
    Vector {
        name: "unknown method at an unsupported version",
        request: r#"{"jsonrpc":"2.0","id":611,"method":"unknown/method","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2024-11-05","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":611,"error":{"code":-32022,"message":"Unsupported protocol version",
                "data":{"supported":["2026-07-28"],"requested":"2024-11-05"}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "clientInfo absent is served",
        request: r#"{"jsonrpc":"2.0","id":612,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":612,"result":{
                "content":[{"type":"text","text":"This is a simple text response for testing."}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "unknown clientCapabilities members and extra params are ignored",
        request: r#"{"jsonrpc":"2.0","id":613,"method":"tools/call","params":{"name":"test_simple_text","task":{"ttl":60000},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"x-vendor":{}},"com.example/trace":"abc"}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":613,"result":{
                "content":[{"type":"text","text":"This is a simple text response for testing."}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "clientInfo malformed",
        request: r#"{"jsonrpc":"2.0","id":614,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"wire-tests"}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":614,"error":{"code":-32602,"message":"_meta io.modelcontextprotocol/clientInfo must be an object with string name and version"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "invalid logLevel",
        request: r#"{"jsonrpc":"2.0","id":615,"method":"tools/call","params":{"name":"test_logging_tool","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"verbose"}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":615,"error":{"code":-32602,"message":"Invalid log level: expected one of debug, info, notice, warning, error, critical, alert, emergency"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "logLevel not a string",
        request: r#"{"jsonrpc":"2.0","id":616,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":3}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":616,"error":{"code":-32602,"message":"_meta io.modelcontextprotocol/logLevel must be a string"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "progressToken of the wrong type",
        request: r#"{"jsonrpc":"2.0","id":617,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":1.5}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":617,"error":{"code":-32602,"message":"_meta progressToken must be a string or an integer"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    // `basic/index.mdx` § `_meta`: OpenTelemetry keys MUST follow W3C Trace Context.
    Vector {
        name: "traceparent not a string",
        request: r#"{"jsonrpc":"2.0","id":618,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"traceparent":{"v":0}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":618,"error":{"code":-32602,"message":"_meta traceparent must be a string (W3C Trace Context)"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "unknown method",
        request: r#"{"jsonrpc":"2.0","id":620,"method":"unknown/method","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":620,"error":{"code":-32601,"message":"Method not found: unknown/method"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "removed method initialize",
        request: r#"{"jsonrpc":"2.0","id":621,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wire-tests","version":"1.0.0"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":621,"error":{"code":-32601,
                "message":"Method not found: initialize was removed in protocol version 2026-07-28; this server supports 2026-07-28",
                "data":{"supported":["2026-07-28"]}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "removed method ping",
        request: r#"{"jsonrpc":"2.0","id":622,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":622,"error":{"code":-32601,
                "message":"Method not found: ping was removed in protocol version 2026-07-28; this server supports 2026-07-28",
                "data":{"supported":["2026-07-28"]}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "removed method logging/setLevel",
        request: r#"{"jsonrpc":"2.0","id":623,"method":"logging/setLevel","params":{"level":"info","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":623,"error":{"code":-32601,
                "message":"Method not found: logging/setLevel was removed in protocol version 2026-07-28; this server supports 2026-07-28",
                "data":{"supported":["2026-07-28"]}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "removed method resources/subscribe",
        request: r#"{"jsonrpc":"2.0","id":624,"method":"resources/subscribe","params":{"uri":"test://static-text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":624,"error":{"code":-32601,
                "message":"Method not found: resources/subscribe was removed in protocol version 2026-07-28; this server supports 2026-07-28",
                "data":{"supported":["2026-07-28"]}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "removed method resources/unsubscribe",
        request: r#"{"jsonrpc":"2.0","id":625,"method":"resources/unsubscribe","params":{"uri":"test://static-text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":625,"error":{"code":-32601,
                "message":"Method not found: resources/unsubscribe was removed in protocol version 2026-07-28; this server supports 2026-07-28",
                "data":{"supported":["2026-07-28"]}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "removed method tasks/list",
        request: r#"{"jsonrpc":"2.0","id":626,"method":"tasks/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":626,"error":{"code":-32601,
                "message":"Method not found: tasks/list was removed in protocol version 2026-07-28; this server supports 2026-07-28",
                "data":{"supported":["2026-07-28"]}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "removed method tasks/result",
        request: r#"{"jsonrpc":"2.0","id":627,"method":"tasks/result","params":{"taskId":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":627,"error":{"code":-32601,
                "message":"Method not found: tasks/result was removed in protocol version 2026-07-28; this server supports 2026-07-28",
                "data":{"supported":["2026-07-28"]}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "a notification method sent as a request",
        request: r#"{"jsonrpc":"2.0","id":629,"method":"notifications/cancelled","params":{"requestId":1,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":629,"error":{"code":-32601,"message":"Method not found: notifications/cancelled"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "an embedded input request sent as a request",
        request: r#"{"jsonrpc":"2.0","id":630,"method":"elicitation/create","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":630,"error":{"code":-32601,"message":"Method not found: elicitation/create"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
    Vector {
        name: "a server-to-client request method sent by the client",
        request: r#"{"jsonrpc":"2.0","id":631,"method":"roots/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":631,"error":{"code":-32601,"message":"Method not found: roots/list"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(404),
    },
];
