//! Client notifications are never answered (`basic/index.mdx` § Messages ›
//! Notifications: the receiver MUST NOT respond), whatever their method,
//! including removed ones (`notifications/initialized`) and cancellations
//! that name nothing in flight (`basic/patterns/cancellation.mdx` § Error
//! Handling: invalid cancellations SHOULD be ignored).
//!
//! A message that is not a valid notification because its envelope is
//! broken is answered like any invalid message, without an id.

use crate::vector::{Expect, Http, Scope, Vector};

pub const NOTIFICATIONS: &[Vector] = &[
    Vector {
        name: "notifications/initialized",
        request: r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        expect: Expect::Nothing,
        scope: Scope::Any,
        http: Http::Same(202),
    },
    Vector {
        name: "notifications/initialized with _meta",
        request: r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Nothing,
        scope: Scope::Any,
        http: Http::Same(202),
    },
    Vector {
        name: "an unknown notification",
        request: r#"{"jsonrpc":"2.0","method":"notifications/whatever","params":{"x":1}}"#,
        expect: Expect::Nothing,
        scope: Scope::Any,
        http: Http::Same(202),
    },
    Vector {
        name: "a notification with a non-notification method",
        request: r#"{"jsonrpc":"2.0","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        expect: Expect::Nothing,
        scope: Scope::Any,
        http: Http::Same(202),
    },
    Vector {
        name: "notifications/cancelled for a request not in flight",
        request: r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345,"reason":"changed my mind"}}"#,
        expect: Expect::Nothing,
        scope: Scope::Any,
        http: Http::Same(202),
    },
    Vector {
        name: "notifications/cancelled with an invalid requestId",
        request: r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}"#,
        expect: Expect::Nothing,
        scope: Scope::Any,
        http: Http::Same(202),
    },
    Vector {
        name: "notifications/cancelled without params",
        request: r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#,
        expect: Expect::Nothing,
        scope: Scope::Any,
        http: Http::Same(202),
    },
    Vector {
        name: "notifications/progress sent by the client",
        request: r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#,
        expect: Expect::Nothing,
        scope: Scope::Any,
        http: Http::Same(202),
    },
    Vector {
        name: "notification-shaped message with the wrong jsonrpc version",
        request: r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"The jsonrpc member must be exactly \"2.0\""}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
    Vector {
        name: "notification-shaped message with array params",
        request: r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":[]}"#,
        expect: Expect::Response(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Params must be an object"}}"#,
        ),
        scope: Scope::Any,
        http: Http::Same(400),
    },
];
