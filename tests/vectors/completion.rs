//! `completion/complete` for a prompt argument and a template variable, and
//! its errors (`server/utilities/completion.mdx` § Completion Results,
//! § Error Handling).

use crate::vector::{Expect, Http, Scope, Vector};

pub const COMPLETION: &[Vector] = &[
    Vector {
        name: "completion/complete of a prompt argument",
        request: r#"{"jsonrpc":"2.0","id":501,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"test"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":501,"result":{
                "completion":{"values":["testValue1","test-alpha","test-beta"],"total":3,"hasMore":false},
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "completion/complete of a template variable with context",
        request: r#"{"jsonrpc":"2.0","id":502,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"test://template/{id}/data"},"argument":{"name":"id","value":"1"},"context":{"arguments":{"other":"x"}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":502,"result":{
                "completion":{"values":["1","123"],"total":2,"hasMore":false},
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "completion/complete with no matches",
        request: r#"{"jsonrpc":"2.0","id":503,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg2","value":"zzz"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":503,"result":{
                "completion":{"values":[],"total":0,"hasMore":false},
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "completion/complete for an unknown prompt",
        request: r#"{"jsonrpc":"2.0","id":510,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"no_such_prompt"},"argument":{"name":"arg1","value":""},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":510,"error":{"code":-32602,"message":"Unknown prompt: no_such_prompt"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "completion/complete for an unknown resource reference",
        request: r#"{"jsonrpc":"2.0","id":511,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"test://nope/{x}"},"argument":{"name":"x","value":""},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":511,"error":{"code":-32602,"message":"Unknown resource reference: test://nope/{x}"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "completion/complete with a malformed ref",
        request: r#"{"jsonrpc":"2.0","id":512,"method":"completion/complete","params":{"ref":{"type":"ref/tool","name":"test_simple_text"},"argument":{"name":"a","value":""},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":512,"error":{"code":-32602,"message":"Parameter ref must be {type: \"ref/prompt\", name} or {type: \"ref/resource\", uri}"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "completion/complete without a ref",
        request: r#"{"jsonrpc":"2.0","id":513,"method":"completion/complete","params":{"argument":{"name":"a","value":""},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":513,"error":{"code":-32602,"message":"Missing required parameter ref"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "completion/complete without an argument",
        request: r#"{"jsonrpc":"2.0","id":514,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":514,"error":{"code":-32602,"message":"Parameter argument must be an object {name, value}"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "completion/complete with a non-string argument value",
        request: r#"{"jsonrpc":"2.0","id":515,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":515,"error":{"code":-32602,"message":"Parameter argument must have string name and value"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
    Vector {
        name: "completion/complete with non-string context arguments",
        request: r#"{"jsonrpc":"2.0","id":516,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg2","value":""},"context":{"arguments":{"arg1":1}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":516,"error":{"code":-32602,"message":"context.arguments must be an object of strings"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(200),
    },
];
