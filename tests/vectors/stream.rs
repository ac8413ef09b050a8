//! Byte-stream behaviour (`basic/transports/stdio.mdx`): several messages in
//! one write, line endings, blank lines, in-flight id reuse and
//! cancellation on one stream.
//!
//! `test_tool_with_progress` pauses twice for 50 ms, so a call to it is
//! still in flight when the next line of the same write is read.

use crate::vector::{Expect, Http, Scope, Vector};

pub const STREAM: &[Vector] = &[
    Vector {
        name: "two requests in one write are both answered, in order",
        request: concat!(
            r#"{"jsonrpc":"2.0","id":901,"method":"unknown/one","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":902,"method":"unknown/two","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ),
        expect: Expect::Messages(&[
            r#"{"jsonrpc":"2.0","id":901,"error":{"code":-32601,"message":"Method not found: unknown/one"}}"#,
            r#"{"jsonrpc":"2.0","id":902,"error":{"code":-32601,"message":"Method not found: unknown/two"}}"#,
        ]),
        scope: Scope::Stream,
        http: Http::NotSent,
    },
    Vector {
        name: "CRLF line ending",
        request: "{\"jsonrpc\":\"2.0\",\"id\":903,\"method\":\"unknown/crlf\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\r",
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":903,"error":{"code":-32601,"message":"Method not found: unknown/crlf"}}"#,
        ),
        scope: Scope::Stream,
        http: Http::NotSent,
    },
    Vector {
        name: "blank and whitespace-only lines are skipped",
        request: concat!(
            "\n",
            "   \t\n",
            "\r\n",
            r#"{"jsonrpc":"2.0","id":904,"method":"unknown/after-blanks","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ),
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":904,"error":{"code":-32601,"message":"Method not found: unknown/after-blanks"}}"#,
        ),
        scope: Scope::Stream,
        http: Http::NotSent,
    },
    Vector {
        name: "a malformed line does not disturb the next one",
        request: concat!(
            r#"{"jsonrpc":"2.0","id":905,"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":906,"method":"unknown/next","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ),
        expect: Expect::Messages(&[
            r#"{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: Invalid JSON"}}"#,
            r#"{"jsonrpc":"2.0","id":906,"error":{"code":-32601,"message":"Method not found: unknown/next"}}"#,
        ]),
        scope: Scope::Stream,
        http: Http::NotSent,
    },
    // `basic/index.mdx` § Requests: the id MUST NOT repeat an id the sender
    // has in flight. The reuse is refused; the original call still ends
    // with its own result.
    Vector {
        name: "an id reused while its request is in flight",
        request: concat!(
            r#"{"jsonrpc":"2.0","id":907,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":907,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ),
        expect: Expect::Messages(&[
            r#"{"jsonrpc":"2.0","id":907,"error":{"code":-32600,"message":"Request id is already used by a request in flight"}}"#,
            r#"{"jsonrpc":"2.0","id":907,"result":{
                "content":[{"type":"text","text":"Progress test completed"}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ]),
        scope: Scope::Stream,
        http: Http::NotSent,
    },
    Vector {
        name: "an id reused for a request answered inline while the first is in flight",
        request: concat!(
            r#"{"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":"dup","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        ),
        expect: Expect::Messages(&[
            r#"{"jsonrpc":"2.0","id":"dup","error":{"code":-32600,"message":"Request id is already used by a request in flight"}}"#,
            r#"{"jsonrpc":"2.0","id":"dup","result":{
                "content":[{"type":"text","text":"Progress test completed"}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ]),
        scope: Scope::Stream,
        http: Http::NotSent,
    },
    Vector {
        name: "the same id is accepted again once its request has been answered",
        request: r#"{"jsonrpc":"2.0","id":907,"method":"tools/call","params":{"name":"test_simple_text","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","id":907,"result":{
                "content":[{"type":"text","text":"This is a simple text response for testing."}],
                "resultType":"complete",
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"snodo-fixture","version":"0.1.0"}}}}"#,
        ),
        scope: Scope::Stream,
        http: Http::NotSent,
    },
    // `basic/patterns/cancellation.mdx` / `stdio.mdx` § Cancellation: after
    // the client cancels, nothing more is sent for that request.
    Vector {
        name: "a request cancelled while in flight gets no response",
        request: concat!(
            r#"{"jsonrpc":"2.0","id":908,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":908,"reason":"no longer needed"}}"#,
        ),
        expect: Expect::Nothing,
        scope: Scope::Stream,
        http: Http::NotSent,
    },
    // `subscriptions.mdx` § Acknowledgment: the first message of a listen
    // stream is the acknowledgement, tagged with the stream's id, listing the
    // honoured subset of the filter (resources are not declared by the
    // fixture, so resourcesListChanged is omitted).
    Vector {
        name: "subscriptions/listen is acknowledged with the honoured filter",
        // The client then ends the stream (stdio: notifications/cancelled);
        // nothing is sent for it afterwards (`cancellation.mdx`).
        request: concat!(
            r#"{"jsonrpc":"2.0","id":628,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourcesListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":628,"reason":"done listening"}}"#,
        ),
        expect: Expect::Messages(&[
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":628},"notifications":{"toolsListChanged":true}}}"#,
        ]),
        scope: Scope::Stream,
        http: Http::NotSent,
    },
];
